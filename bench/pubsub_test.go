package bench

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zlite/zlite/pubsub"
)

// TestRunPubSub runs the pubsub group tiny: with zlite, a row per shape, metric and
// zlite path, the zlite column holding that path's figure and every peer's the
// same runs in each; without zlite, one row per shape and metric for the peers.
func TestRunPubSub(t *testing.T) {
	tests := []struct {
		name     string
		systems  []string
		variants []string
		columns  []string // the systems measured, sorted
	}{
		{"zlite, zlite-do and miniredis", inProcess, pubsubVariants, []string{"miniredis", "zlite"}},
		{"miniredis alone", []string{"miniredis"}, []string{pubsubEmbedded}, []string{"miniredis"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tinyConfig(openSystems(t, tt.systems))
			cfg.Groups = []string{"pubsub"}
			rep, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			var got, want []string
			for _, n := range pubsubShapes {
				for _, v := range tt.variants {
					for _, m := range []Metric{OpsPerSec, LatencyP50, LatencyP99} {
						want = append(want, fmt.Sprintf("%s %v", pubsubID(v, n), m))
					}
				}
			}
			byKey := map[string]Row{}
			for _, r := range rep.Rows {
				key := fmt.Sprintf("%s %v", r.ID, r.Metric)
				got = append(got, key)
				byKey[key] = r
				if r.Group != "pubsub" || r.N != 0 || !strings.HasPrefix(r.Workload, "PUBLISH→SUBSCRIBE 1/") {
					t.Errorf("row %+v: want a pubsub row titled PUBLISH→SUBSCRIBE 1/n", r)
				}
				var cols []string
				for s, v := range r.Values {
					cols = append(cols, s)
					if !(v > 0) || math.IsInf(v, 0) {
						t.Errorf("%s %s = %v; want a positive finite figure", key, s, v)
					}
					if sp, ok := r.Spread[s]; !ok || !(sp.Min <= v && v <= sp.Max) {
						t.Errorf("%s %s = %v, spread %+v, %v; want the median of %d runs within their range", key, s, v, sp, ok, cfg.Runs)
					}
				}
				slices.Sort(cols)
				if !slices.Equal(cols, tt.columns) {
					t.Errorf("%s measured %v; want %v", key, cols, tt.columns)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("rows %v;\nwant %v", got, want)
			}
			for _, n := range pubsubShapes {
				for _, v := range tt.variants {
					for _, s := range tt.columns {
						p50 := byKey[fmt.Sprintf("%s %v", pubsubID(v, n), LatencyP50)].Values[s]
						p99 := byKey[fmt.Sprintf("%s %v", pubsubID(v, n), LatencyP99)].Values[s]
						if p50 > p99 {
							t.Errorf("%s %s: p50 %v > p99 %v", pubsubID(v, n), s, p50, p99)
						}
						if s == Reference {
							continue
						}
						// The peers' figures are the same runs in every variant's rows.
						first := byKey[fmt.Sprintf("%s %v", pubsubID(tt.variants[0], n), OpsPerSec)]
						this := byKey[fmt.Sprintf("%s %v", pubsubID(v, n), OpsPerSec)]
						if this.Values[s] != first.Values[s] || this.Spread[s] != first.Spread[s] {
							t.Errorf("%s %s: %v %+v; want %s's %v %+v", pubsubID(v, n), s, this.Values[s], this.Spread[s],
								pubsubID(tt.variants[0], n), first.Values[s], first.Spread[s])
						}
					}
				}
			}
			checkMarkdown(t, rep)
			checkSVG(t, rep)
		})
	}
}

// hubPath is a path straight onto h whose PUBLISH is publish.
func hubPath(h *pubsub.Hub, publish func(channel, msg string) int) *pubSubPath {
	return &pubSubPath{name: "hub", column: Reference,
		publish: func(_ context.Context, channel, msg string) (int64, error) { return int64(publish(channel, msg)), nil },
		subscribe: func(_ context.Context, channel string) (*receiver, error) {
			s := h.Subscriber()
			s.Subscribe(channel)
			return &receiver{
				receive: func(ctx context.Context) (string, error) {
					m, err := s.Receive(ctx)
					return m.Payload, err
				},
				close: func() error { s.Close(); return nil },
			}, nil
		}}
}

// TestFan publishes messages one at a time to three subscribers: every delivery
// is a sample, with its latency.
func TestFan(t *testing.T) {
	ctx := context.Background()
	for _, keep := range []int{0, 4} {
		t.Run(fmt.Sprintf("keep=%d", keep), func(t *testing.T) {
			h := pubsub.NewHub()
			const subs, msgs = 3, 10
			f, err := openFan(ctx, hubPath(h, h.Publish), subs, 0, 1, keep)
			if err != nil {
				t.Fatal(err)
			}
			for i := range msgs + 1 {
				if ok, err := f.await(nil); !ok || err != nil {
					t.Fatalf("await before message %d = %v, %v; want true, nil (fan: %v)", i, ok, err, f.close(ctx))
				}
				if i == msgs {
					break
				}
				if err := f.publish(ctx); err != nil {
					t.Fatalf("publish %d: %v", i, err)
				}
			}
			if err := f.close(ctx); err != nil {
				t.Fatalf("close: %v", err)
			}
			lat := f.latencies(math.MaxInt64)
			want := subs * msgs
			if keep > 0 {
				want = subs * keep
			}
			if len(lat) != want {
				t.Errorf("%d samples; want %d", len(lat), want)
			}
			for _, l := range lat {
				if !(l >= 0) {
					t.Errorf("latency %v; want at least 0", l)
				}
			}
			if n := h.NumSub(f.channel); n != 0 {
				t.Errorf("%d subscribers left on %s; want 0", n, f.channel)
			}
		})
	}
}

// TestFanoutChecks: a path whose PUBLISH miscounts its receivers, or that delivers a
// message twice, fails the measurement rather than posting a figure.
func TestFanoutChecks(t *testing.T) {
	tests := []struct {
		name    string
		publish func(h *pubsub.Hub) func(channel, msg string) int
		want    string
	}{
		{"PUBLISH undercounts", func(h *pubsub.Hub) func(string, string) int {
			return func(channel, msg string) int { return h.Publish(channel, msg) - 1 }
		}, "reached 1 subscribers; want 2"},
		{"a message delivered twice", func(h *pubsub.Hub) func(string, string) int {
			return func(channel, msg string) int {
				if msg != pubsubStop {
					h.Publish(channel, msg)
				}
				return h.Publish(channel, msg)
			}
		}, `received "0" after message 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := pubsub.NewHub()
			_, err := fanout(context.Background(), hubPath(h, tt.publish(h)), 2, 1, 0, 20*time.Millisecond)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("fanout: %v; want an error containing %q", err, tt.want)
			}
		})
	}
}
