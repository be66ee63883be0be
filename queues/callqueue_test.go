package queues_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

func TestCallQueue(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		q := queues.NewCallQueue(b, qname(t), queues.WithClock(clock.Now))
		start := clock.Now()
		calls := []struct {
			id   string
			prio float64
		}{{"c1", 1}, {"vip1", 10}, {"c2", 1}, {"vip2", 10}, {"c3", 1}, {"mid", 5}}
		for _, c := range calls {
			require.NoError(t, q.Enqueue(ctx, c.id, c.prio))
			clock.Advance(10 * time.Second)
		}
		// Serving order: vip1 vip2 mid c1 c2 c3.
		for id, want := range map[string]int{"vip1": 1, "vip2": 2, "mid": 3, "c1": 4, "c2": 5, "c3": 6} {
			pos, ok, err := q.Position(ctx, id)
			require.NoError(t, err)
			require.True(t, ok)
			require.EqualValues(t, want, pos, "Position(%q)", id)
		}
		// Now = start+60s. Waiting longer than 35 s: enqueued before start+25s.
		stale, err := q.Stale(ctx, 35*time.Second)
		require.NoError(t, err)
		require.Equal(t, []queues.Call{
			{ID: "c1", Priority: 1, Since: start},
			{ID: "vip1", Priority: 10, Since: start.Add(10 * time.Second)},
			{ID: "c2", Priority: 1, Since: start.Add(20 * time.Second)},
		}, normalise(stale))
		ok, err := q.Cancel(ctx, "vip2")
		require.NoError(t, err)
		require.True(t, ok)
		ok, err = q.Cancel(ctx, "vip2")
		require.NoError(t, err)
		require.False(t, ok)
		pos, _, err := q.Position(ctx, "c3")
		require.NoError(t, err)
		require.EqualValues(t, 5, pos)

		for _, want := range []string{"vip1", "mid", "c1"} {
			c, ok, err := q.TryDequeue(ctx)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, want, c.ID)
		}
		for _, want := range []string{"c2", "c3"} {
			c, ok, err := q.Dequeue(ctx, time.Second)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, want, c.ID)
		}
		_, ok, err = q.TryDequeue(ctx)
		require.NoError(t, err)
		require.False(t, ok)
		_, ok, err = q.Dequeue(ctx, 20*time.Millisecond)
		require.NoError(t, err)
		require.False(t, ok)
		// A dequeued id may call again.
		require.NoError(t, q.Enqueue(ctx, "c1", 2))
		n, err := q.Len(ctx)
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
	})
}

// normalise puts times in UTC so that require.Equal compares instants.
func normalise(cs []queues.Call) []queues.Call {
	for i := range cs {
		cs[i].Since = cs[i].Since.UTC()
	}
	return cs
}

// TestCallQueueFIFOAtAnyRate: calls enqueued within the same clock tick keep their
// order within a priority.
func TestCallQueueFIFOAtAnyRate(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		q := queues.NewCallQueue(b, qname(t), queues.WithClock(newFakeClock().Now)) // the clock never moves
		ids := []string{"z", "a", "m", "b", "y"}
		for _, id := range ids {
			require.NoError(t, q.Enqueue(ctx, id, 3))
		}
		for _, want := range ids {
			c, ok, err := q.TryDequeue(ctx)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, want, c.ID)
		}
	})
}

func TestCallQueueBadInput(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		q := queues.NewCallQueue(b, qname(t))
		require.NoError(t, q.Enqueue(ctx, "a", 1))
		tests := []struct {
			id   string
			prio float64
			err  error
		}{
			{"", 1, queues.ErrEmptyID},
			{"b", math.NaN(), queues.ErrBadPriority},
			{"b", math.Inf(1), queues.ErrBadPriority},
			{"b", math.Inf(-1), queues.ErrBadPriority},
			{"a", 2, queues.ErrDuplicate},
		}
		for _, tt := range tests {
			require.ErrorIs(t, q.Enqueue(ctx, tt.id, tt.prio), tt.err, "Enqueue(%q, %v)", tt.id, tt.prio)
		}
		_, err := q.Stale(ctx, -time.Second)
		require.ErrorIs(t, err, queues.ErrBadDuration)
		_, err = q.Cancel(ctx, "")
		require.ErrorIs(t, err, queues.ErrEmptyID)
		n, err := q.Len(ctx)
		require.NoError(t, err)
		require.EqualValues(t, 1, n, "bad input changed the queue")
		c, ok, err := q.TryDequeue(ctx)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, queues.Call{ID: "a", Priority: 1, Since: c.Since}, c)
	})
}

// TestCallQueueBlockingDequeue: an operator blocked in Dequeue gets the next call, and
// one whose context ends gets ctx.Err() and takes nothing.
func TestCallQueueBlockingDequeue(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		q := queues.NewCallQueue(b, qname(t))
		got := make(chan queues.Call, 1)
		go func() {
			c, _, _ := q.Dequeue(ctx, 0)
			got <- c
		}()
		require.NoError(t, q.Enqueue(ctx, "caller", 1))
		require.Equal(t, "caller", (<-got).ID)

		cctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			_, _, err := q.Dequeue(cctx, 0)
			done <- err
		}()
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
		require.NoError(t, q.Enqueue(ctx, "later", 1))
		c, ok, err := q.TryDequeue(ctx)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "later", c.ID)
	})
}
