package prom_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/metrics/prom"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
)

// clock is a clock moved by the test; queues.WithClock takes its Now.
type clock struct{ t time.Time }

func (c *clock) Now() time.Time { return c.t }

// failing is a queue whose Stats always fail, as on an unreachable Redis.
type failing struct{}

func (failing) Stats(context.Context) (queues.Stats, error) {
	return queues.Stats{Name: "down", Type: "fifo"}, errors.New("unreachable")
}

// TestCollector: the collector reports each queue's Stats under names that pass
// Prometheus's lint, with the values the queues report.
func TestCollector(t *testing.T) {
	ctx := context.Background()
	b := embedded.New(zlite.New())
	clk := &clock{time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	fifo := queues.NewFIFO(b, "jobs")
	require.NoError(t, fifo.Push(ctx, "a", "b", "c"))
	_, ok, err := fifo.Pop(ctx, time.Second)
	require.NoError(t, err)
	require.True(t, ok)
	levels := queues.NewLevels(b, "tiers", []string{"hi", "lo"})
	require.NoError(t, levels.Push(ctx, "lo", "x"))
	delayed := queues.NewDelayed(b, "later", queues.WithClock(clk.Now))
	for _, d := range []time.Duration{time.Second, 2 * time.Second, time.Hour} {
		require.NoError(t, errOnly(delayed.Schedule(ctx, "j", clk.t.Add(d))))
	}
	clk.t = clk.t.Add(3 * time.Second)
	_, ok, err = delayed.TryPop(ctx) // 2 s late
	require.NoError(t, err)
	require.True(t, ok)
	rel := queues.NewReliable(b, "work", queues.WithClock(clk.Now))
	_, err = rel.Push(ctx, "r")
	require.NoError(t, err)
	d, ok, err := rel.Pop(ctx, time.Second)
	require.NoError(t, err)
	require.True(t, ok)
	_, err = rel.Nack(ctx, d)
	require.NoError(t, err)
	poison := queues.NewReliable(b, "poison", queues.WithClock(clk.Now), queues.WithMaxDeliveries(1))
	_, err = poison.Push(ctx, "p")
	require.NoError(t, err)
	d, ok, err = poison.Pop(ctx, time.Second)
	require.NoError(t, err)
	require.True(t, ok)
	_, err = poison.Nack(ctx, d) // its only delivery failed: dead
	require.NoError(t, err)

	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(prom.NewCollector(time.Second, fifo, levels, delayed, rel, poison, failing{}))
	problems, err := testutil.GatherAndLint(reg)
	require.NoError(t, err)
	require.Empty(t, problems)

	want := `
# HELP zlite_queue_depth Items waiting in the queue.
# TYPE zlite_queue_depth gauge
zlite_queue_depth{queue="jobs",type="fifo"} 2
zlite_queue_depth{queue="later",type="delayed"} 2
zlite_queue_depth{queue="poison",type="reliable"} 0
zlite_queue_depth{queue="tiers",type="levels"} 1
zlite_queue_depth{queue="work",type="reliable"} 1
# HELP zlite_queue_level_depth Items waiting per level, priority or party size.
# TYPE zlite_queue_level_depth gauge
zlite_queue_level_depth{level="hi",queue="tiers",type="levels"} 0
zlite_queue_level_depth{level="lo",queue="tiers",type="levels"} 1
# HELP zlite_queue_due Waiting jobs already due (delayed queue, scheduler).
# TYPE zlite_queue_due gauge
zlite_queue_due{queue="later",type="delayed"} 1
# HELP zlite_queue_oldest_age_seconds How long the oldest item has waited.
# TYPE zlite_queue_oldest_age_seconds gauge
zlite_queue_oldest_age_seconds{queue="later",type="delayed"} 1
# HELP zlite_queue_enqueued_total Items added by this process.
# TYPE zlite_queue_enqueued_total counter
zlite_queue_enqueued_total{queue="jobs",type="fifo"} 3
zlite_queue_enqueued_total{queue="later",type="delayed"} 3
zlite_queue_enqueued_total{queue="poison",type="reliable"} 1
zlite_queue_enqueued_total{queue="tiers",type="levels"} 1
zlite_queue_enqueued_total{queue="work",type="reliable"} 1
# HELP zlite_queue_requeued_total Elements put back by Nack or Reap (reliable queue).
# TYPE zlite_queue_requeued_total counter
zlite_queue_requeued_total{queue="poison",type="reliable"} 0
zlite_queue_requeued_total{queue="work",type="reliable"} 1
# HELP zlite_queue_dead Elements in the dead set (reliable queue with a delivery limit).
# TYPE zlite_queue_dead gauge
zlite_queue_dead{queue="poison",type="reliable"} 1
zlite_queue_dead{queue="work",type="reliable"} 0
# HELP zlite_queue_dead_lettered_total Elements moved to the dead set after their last delivery (reliable queue).
# TYPE zlite_queue_dead_lettered_total counter
zlite_queue_dead_lettered_total{queue="poison",type="reliable"} 1
zlite_queue_dead_lettered_total{queue="work",type="reliable"} 0
# HELP zlite_queue_up 1 if the last Stats call for the queue succeeded, else 0.
# TYPE zlite_queue_up gauge
zlite_queue_up{queue="down",type="fifo"} 0
zlite_queue_up{queue="jobs",type="fifo"} 1
zlite_queue_up{queue="later",type="delayed"} 1
zlite_queue_up{queue="poison",type="reliable"} 1
zlite_queue_up{queue="tiers",type="levels"} 1
zlite_queue_up{queue="work",type="reliable"} 1
`
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want),
		"zlite_queue_depth", "zlite_queue_level_depth", "zlite_queue_due", "zlite_queue_oldest_age_seconds",
		"zlite_queue_enqueued_total", "zlite_queue_requeued_total", "zlite_queue_dead", "zlite_queue_dead_lettered_total",
		"zlite_queue_up"))

	mfs, err := reg.Gather()
	require.NoError(t, err)
	var found bool
	for _, mf := range mfs {
		if mf.GetName() != "zlite_queue_lateness_seconds" {
			continue
		}
		found = true
		require.Len(t, mf.GetMetric(), 1)
		h := mf.GetMetric()[0].GetHistogram()
		require.EqualValues(t, 1, h.GetSampleCount())
		require.InDelta(t, 2.0, h.GetSampleSum(), 1e-9)
		for _, b := range h.GetBucket() {
			want := uint64(0)
			if b.GetUpperBound() >= 2 {
				want = 1
			}
			require.Equal(t, want, b.GetCumulativeCount(), "bucket le=%g", b.GetUpperBound())
		}
	}
	require.True(t, found, "no lateness histogram")
}

// errOnly drops the id an enqueue returns, for calls that check only the error.
func errOnly(_ string, err error) error { return err }
