package queues_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

// TestStats: every queue type reports its depth (per level where it has levels),
// its age and due figures, and this process's counters, on both backends.
func TestStats(t *testing.T) {
	type tc struct {
		name string
		run  func(ctx context.Context, t *testing.T, b queues.Backend, name string, clock *fakeClock) queues.StatsReader
		want queues.Stats // Name is filled in; Lateness checked separately
	}
	pop := func(t *testing.T, ok bool, err error) {
		t.Helper()
		require.NoError(t, err)
		require.True(t, ok)
	}
	for _, c := range []tc{
		{"fifo", func(ctx context.Context, t *testing.T, b queues.Backend, name string, clock *fakeClock) queues.StatsReader {
			q := queues.NewFIFO(b, name, queues.WithClock(clock.Now))
			require.NoError(t, q.Push(ctx, "a", "b", "c"))
			_, ok, err := q.Pop(ctx, time.Second)
			pop(t, ok, err)
			return q
		}, queues.Stats{Type: "fifo", Depth: 2, Enqueued: 3, Dequeued: 1}},
		{"levels", func(ctx context.Context, t *testing.T, b queues.Backend, name string, clock *fakeClock) queues.StatsReader {
			q := queues.NewLevels(b, name, []string{"hi", "lo"}, queues.WithClock(clock.Now))
			require.NoError(t, q.Push(ctx, "lo", "a", "b"))
			require.NoError(t, q.Push(ctx, "hi", "c"))
			_, _, ok, err := q.Pop(ctx, time.Second)
			pop(t, ok, err)
			return q
		}, queues.Stats{Type: "levels", Depth: 2, Levels: []queues.LevelDepth{{"hi", 0}, {"lo", 2}}, Enqueued: 3, Dequeued: 1}},
		{"priority", func(ctx context.Context, t *testing.T, b queues.Backend, name string, clock *fakeClock) queues.StatsReader {
			q := queues.NewPriority(b, name, queues.WithClock(clock.Now))
			for _, p := range []float64{1, 5, 5, 2, 9} {
				require.NoError(t, errOnly(q.Push(ctx, "v", p)))
			}
			_, _, ok, err := q.Pop(ctx, time.Second)
			pop(t, ok, err)
			return q
		}, queues.Stats{Type: "priority", Depth: 4, Levels: []queues.LevelDepth{{"5", 2}, {"2", 1}, {"1", 1}}, Enqueued: 5, Dequeued: 1}},
		{"waitlist", func(ctx context.Context, t *testing.T, b queues.Backend, name string, clock *fakeClock) queues.StatsReader {
			w := queues.NewWaitlist(b, name, queues.WithClock(clock.Now))
			clock.Advance(time.Second)
			for i, n := range []string{"a", "b", "c", "d"} {
				require.NoError(t, w.Add(ctx, n, int64([]int{2, 4, 2, 6}[i])))
			}
			_, ok, err := w.Seat(ctx, 6, queues.Exact)
			pop(t, ok, err)
			left, err := w.Leave(ctx, "b")
			pop(t, left, err)
			return w
		}, queues.Stats{Type: "waitlist", Depth: 2, Levels: []queues.LevelDepth{{"2", 2}}, Enqueued: 4, Dequeued: 1, Cancelled: 1, Uptime: time.Second}},
		{"callqueue", func(ctx context.Context, t *testing.T, b queues.Backend, name string, clock *fakeClock) queues.StatsReader {
			q := queues.NewCallQueue(b, name, queues.WithClock(clock.Now))
			for i, id := range []string{"a", "b", "c", "d"} {
				require.NoError(t, q.Enqueue(ctx, id, float64([]int{1, 10, 1, 1}[i])))
				clock.Advance(10 * time.Second)
			}
			_, ok, err := q.Dequeue(ctx, time.Second) // b, the VIP
			pop(t, ok, err)
			ok, err = q.Cancel(ctx, "d")
			pop(t, ok, err)
			return q
		}, queues.Stats{Type: "callqueue", Depth: 2, Levels: []queues.LevelDepth{{"1", 2}}, OldestAge: 40 * time.Second, HasAge: true,
			Enqueued: 4, Dequeued: 1, Cancelled: 1, Uptime: 40 * time.Second}},
		{"delayed", func(ctx context.Context, t *testing.T, b queues.Backend, name string, clock *fakeClock) queues.StatsReader {
			q := queues.NewDelayed(b, name, queues.WithClock(clock.Now))
			for _, d := range []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, time.Hour} {
				require.NoError(t, errOnly(q.Schedule(ctx, "j", clock.Now().Add(d))))
			}
			clock.Advance(5 * time.Second)
			_, ok, err := q.TryPop(ctx) // 4 s late
			pop(t, ok, err)
			return q
		}, queues.Stats{Type: "delayed", Depth: 3, Due: 2, OldestAge: 3 * time.Second, HasAge: true, Enqueued: 4, Dequeued: 1, Uptime: 5 * time.Second}},
		{"scheduler", func(ctx context.Context, t *testing.T, b queues.Backend, name string, clock *fakeClock) queues.StatsReader {
			s := queues.NewScheduler(b, name, queues.WithClock(clock.Now))
			for _, d := range []time.Duration{time.Second, time.Hour} {
				require.NoError(t, errOnly(s.AddFutureJob(ctx, queues.FutureJob{Queue: "q", Func: "f"}, clock.Now().Add(d))))
			}
			clock.Advance(5 * time.Second)
			moved, err := s.Step(ctx) // 4 s late
			require.NoError(t, err)
			require.Len(t, moved, 1)
			return s
		}, queues.Stats{Type: "scheduler", Depth: 1, HasAge: true, Enqueued: 2, Dequeued: 1, Uptime: 5 * time.Second}},
		{"reliable", func(ctx context.Context, t *testing.T, b queues.Backend, name string, clock *fakeClock) queues.StatsReader {
			q := queues.NewReliable(b, name, queues.WithClock(clock.Now), queues.WithLease(time.Minute))
			for _, v := range []string{"a", "b", "c", "d"} {
				_, err := q.Push(ctx, v)
				require.NoError(t, err)
			}
			var ds []queues.Delivery
			for range 3 {
				d, ok, err := q.Pop(ctx, time.Second)
				pop(t, ok, err)
				ds = append(ds, d)
			}
			acked, err := q.Ack(ctx, ds[0])
			pop(t, acked, err)
			nacked, err := q.Nack(ctx, ds[1])
			pop(t, nacked, err)
			clock.Advance(2 * time.Minute)
			n, err := q.Reap(ctx) // ds[2]
			require.NoError(t, err)
			require.EqualValues(t, 1, n)
			return q
		}, queues.Stats{Type: "reliable", Depth: 3, InFlight: 0, Enqueued: 4, Dequeued: 3, Acked: 1, Requeued: 2, ExpiredLeases: 1, Uptime: 2 * time.Minute}},
	} {
		t.Run("queue="+c.name, func(t *testing.T) {
			each(t, func(t *testing.T, b queues.Backend) {
				ctx := guard(t)
				name := qname(t)
				q := c.run(ctx, t, b, name, newFakeClock())
				got, err := q.Stats(ctx)
				require.NoError(t, err)
				want := c.want
				want.Name = name
				if c.name == "delayed" || c.name == "scheduler" {
					require.NotNil(t, got.Lateness)
					require.EqualValues(t, 1, got.Lateness.Count)
					require.Equal(t, 4*time.Second, got.Lateness.Max)
					require.InEpsilon(t, float64(4*time.Second), float64(got.Lateness.P50), 0.2)
					got.Lateness = nil
				}
				require.Equal(t, want, got)
				data, err := json.Marshal(got)
				require.NoError(t, err)
				var back queues.Stats
				require.NoError(t, json.Unmarshal(data, &back))
				require.Equal(t, got, back, "Stats round-trips through its JSON form")
			})
		})
	}
}

// TestStatsOff: WithStats(false) counts nothing but still reads the backend.
func TestStatsOff(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		q := queues.NewFIFO(b, qname(t), queues.WithStats(false))
		require.NoError(t, q.Push(ctx, "a", "b"))
		s, err := q.Stats(ctx)
		require.NoError(t, err)
		require.Equal(t, queues.Stats{Name: s.Name, Type: "fifo", Depth: 2}, s)
	})
}

// TestStatsBlocked: a consumer waiting in Pop is counted as blocked until it
// returns.
func TestStatsBlocked(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		q := queues.NewFIFO(b, qname(t))
		got := make(chan string)
		go func() {
			v, _, _ := q.Pop(ctx, 0)
			got <- v
		}()
		waitEntered(t, ctx, q.Stats, 1) // Blocked is the fact under test
		require.NoError(t, q.Push(ctx, "x"))
		require.Equal(t, "x", <-got)
		s, err := q.Stats(ctx)
		require.NoError(t, err)
		require.Zero(t, s.Blocked)
	})
}

// TestHistogram: percentiles read from the buckets are within one bucket (19%) of
// the exact ones of the samples; count, sum and max are exact; buckets are
// cumulative at fixed bounds.
func TestHistogram(t *testing.T) {
	seed := testSeed(t)
	r := rand.New(rand.NewPCG(seed, 0))
	var h queues.Histogram
	var samples []time.Duration
	var sum time.Duration
	for range 10000 {
		d := time.Duration(r.ExpFloat64() * float64(50*time.Millisecond))
		h.Observe(d)
		samples = append(samples, d)
		sum += d
	}
	h.Observe(-time.Second) // counts as 0
	samples = append(samples, 0)
	slices.Sort(samples)
	s := h.Snapshot()
	require.EqualValues(t, len(samples), s.Count)
	require.Equal(t, sum, s.Sum)
	require.Equal(t, samples[len(samples)-1], s.Max)
	exact := func(q float64) float64 { return float64(samples[int(q*float64(len(samples)))]) }
	require.InEpsilon(t, exact(0.5), float64(s.P50), 0.19)
	require.InEpsilon(t, exact(0.99), float64(s.P99), 0.19)
	require.Len(t, s.Buckets, 33)
	require.Equal(t, time.Microsecond, s.Buckets[0].UpperBound)
	for i := 1; i < len(s.Buckets); i++ {
		require.Equal(t, 2*s.Buckets[i-1].UpperBound, s.Buckets[i].UpperBound)
		require.GreaterOrEqual(t, s.Buckets[i].Count, s.Buckets[i-1].Count)
		n, _ := slices.BinarySearch(samples, s.Buckets[i].UpperBound+1)
		require.InDelta(t, n, s.Buckets[i].Count, 0, "bucket ≤ %v", s.Buckets[i].UpperBound)
	}
	var empty queues.Histogram
	require.Equal(t, queues.LatenessStats{Buckets: empty.Snapshot().Buckets}, empty.Snapshot())
}

// TestStatsString: String is a short summary with rates and lateness percentiles,
// leaving out zero counters and the histogram's buckets.
func TestStatsString(t *testing.T) {
	h := &queues.Histogram{}
	for _, d := range []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond, 40 * time.Millisecond} {
		h.Observe(d)
	}
	late := h.Snapshot()
	for _, tt := range []struct {
		name string
		s    queues.Stats
		want string
	}{
		{"empty", queues.Stats{Type: "fifo", Name: "mail"}, `fifo "mail": depth 0`},
		{"levels and rates", queues.Stats{Type: "levels", Name: "tickets", Depth: 5,
			Levels:   []queues.LevelDepth{{"hi", 1}, {"mid", 2}, {"lo", 2}, {"bulk", 0}},
			Enqueued: 120, Dequeued: 115, Blocked: 2, Uptime: time.Minute},
			`levels "tickets": depth 5 (hi:1 mid:2 lo:2 …1 more), blocked 2; enqueued 120 (2.00/s), dequeued 115 (1.92/s)`},
		{"reliable", queues.Stats{Type: "reliable", Name: "pay", Depth: 1, InFlight: 3, Dead: 1,
			Enqueued: 5000, Acked: 4000, DeadLettered: 1, Uptime: 10 * time.Second},
			`reliable "pay": depth 1, in flight 3, dead 1; enqueued 5000 (500/s), acked 4000 (400/s), dead-lettered 1 (0.10/s)`},
		{"no uptime, no rates", queues.Stats{Type: "callqueue", Name: "c", Depth: 2, HasAge: true, OldestAge: 1234567 * time.Microsecond, Enqueued: 3},
			`callqueue "c": depth 2, oldest 1.23s; enqueued 3`},
		{"lateness", queues.Stats{Type: "delayed", Name: "d", Due: 2, HasAge: true, Dequeued: 4, Uptime: 40 * time.Second, Lateness: &late},
			"delayed \"d\": depth 0, due 2; dequeued 4 (0.10/s)\n  lateness p50 " + fmtDur(late.P50) + ", p99 " + fmtDur(late.P99) + ", max 40ms over 4 jobs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.String(); got != tt.want {
				t.Errorf("String() = %q; want %q", got, tt.want)
			}
		})
	}
	require.Less(t, late.P50, 3*time.Millisecond+time.Millisecond)
	require.Greater(t, late.P50, time.Millisecond)
}

// fmtDur rounds d to three significant digits, as Stats.String does.
func fmtDur(d time.Duration) string {
	r := time.Duration(1)
	for r*1000 <= d {
		r *= 10
	}
	return d.Round(r).String()
}

// waitEntered waits until n callers of the queue whose Stats is stats have entered
// a blocking Pop (Stats.Blocked is n), as a start-up wait: each read is a backend
// round trip, and the callers may not be blocked in the backend yet.
func waitEntered(t *testing.T, ctx context.Context, stats func(context.Context) (queues.Stats, error), n int64) {
	t.Helper()
	for {
		s, err := stats(ctx)
		require.NoError(t, err)
		if s.Blocked == n {
			return
		}
		require.NoError(t, ctx.Err())
	}
}
