package inspector_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/inspector"
	"github.com/zlite/zlite/queues"
)

type fixedClock struct{ t time.Time }

func (c *fixedClock) Now() time.Time { return c.t }

func TestAdapters(t *testing.T) {
	ctx := t.Context()
	b := queues.NewEmbedded(zlite.New())
	clock := &fixedClock{t0}

	calls := queues.NewCallQueue(b, "calls", queues.WithClock(clock))
	for i, c := range []struct {
		id string
		p  float64
	}{{"low", 1}, {"high", 9}, {"mid", 5}, {"high2", 9}} {
		clock.t = t0.Add(time.Duration(i) * time.Second)
		require.NoError(t, calls.Enqueue(ctx, c.id, c.p))
	}
	clock.t = t0.Add(10 * time.Second)
	cq := inspector.CallQueue("calls", calls, clock.Now)
	st, err := cq.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, inspector.Stats{Depth: 4, Oldest: 10 * time.Second}, st)
	items, err := cq.Items(ctx, 1, 2)
	require.NoError(t, err)
	for i := range items {
		items[i].Enqueued = items[i].Enqueued.UTC()
	}
	assert.Equal(t, []inspector.Item{
		{ID: "high2", Position: 1, Priority: 9, Enqueued: t0.Add(3 * time.Second)},
		{ID: "mid", Position: 2, Priority: 5, Enqueued: t0.Add(2 * time.Second)},
	}, items)
	for _, it := range items {
		pos, ok, err := calls.Position(ctx, it.ID)
		require.NoError(t, err)
		require.True(t, ok)
		assert.EqualValues(t, pos-1, it.Position, "position of %s agrees with CallQueue.Position (1-based)", it.ID)
	}
	ok, err := cq.(inspector.Canceler).Cancel(ctx, "mid")
	require.NoError(t, err)
	assert.True(t, ok)
	n, _ := calls.Len(ctx)
	assert.EqualValues(t, 3, n)

	wl := queues.NewWaitlist(b, "tables")
	require.NoError(t, wl.Add(ctx, "ann", 2))
	require.NoError(t, wl.Add(ctx, "bob", 4))
	wq := inspector.Waitlist("tables", wl)
	items, err = wq.Items(ctx, 0, 10)
	require.NoError(t, err)
	assert.Equal(t, []inspector.Item{{ID: "ann", Value: "2 seats"}, {ID: "bob", Value: "4 seats", Position: 1}}, items)
	items, err = wq.Items(ctx, 2, 10)
	require.NoError(t, err)
	assert.Empty(t, items)
	ok, err = wq.(inspector.Canceler).Cancel(ctx, "ann")
	require.NoError(t, err)
	assert.True(t, ok)

	lv := queues.NewLevels(b, "tickets", []string{"hi", "lo"})
	require.NoError(t, lv.Push(ctx, "lo", "a", "b"))
	require.NoError(t, lv.Push(ctx, "hi", "c"))
	st, err = inspector.Levels("tickets", lv, "hi", "lo").Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, inspector.Stats{Depth: 3, Levels: []inspector.Level{{Name: "hi", Depth: 1}, {Name: "lo", Depth: 2}}}, st)

	rel := queues.NewReliable(b, "pay", queues.WithLease(time.Minute), queues.WithClock(clock))
	_, err = rel.Push(ctx, "x")
	require.NoError(t, err)
	_, err = rel.Push(ctx, "y")
	require.NoError(t, err)
	_, _, err = rel.Pop(ctx, time.Second)
	require.NoError(t, err)
	st, err = inspector.Reliable("pay", rel).Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, inspector.Stats{Depth: 1, InFlight: 1}, st)

	fifo := queues.NewFIFO(b, "jobs")
	require.NoError(t, fifo.Push(ctx, "1", "2"))
	for _, q := range []inspector.Queue{
		inspector.FIFO("jobs", fifo),
		inspector.Priority("p", queues.NewPriority(b, "p", queues.WithOrder(queues.LowestFirst))),
		inspector.Delayed("d", queues.NewDelayed(b, "d", queues.WithClock(clock))),
		inspector.Scheduler("s", queues.NewScheduler(b, "s", queues.WithClock(clock))),
		inspector.Reliable("pay", rel),
		inspector.Levels("tickets", lv, "hi", "lo"),
	} {
		_, err := q.Items(ctx, 0, 1)
		assert.ErrorIs(t, err, errors.ErrUnsupported, "%s lists no items yet", q.Name())
	}
	st, _ = inspector.FIFO("jobs", fifo).Stats(ctx)
	assert.EqualValues(t, 2, st.Depth)
}
