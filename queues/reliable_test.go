package queues_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

func TestReliable(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		q := queues.NewReliable(b, qname(t), queues.WithLease(time.Minute), queues.WithClock(clock.Now))
		for _, p := range []string{"a", "b", "c", "a"} {
			_, err := q.Push(ctx, p)
			require.NoError(t, err)
		}
		pop := func() queues.Delivery {
			t.Helper()
			d, ok, err := q.Pop(ctx, time.Second)
			require.NoError(t, err)
			require.True(t, ok)
			return d
		}
		lens := func(ready, processing int64) {
			t.Helper()
			r, p, err := q.Len(ctx)
			require.NoError(t, err)
			require.Equal(t, [2]int64{ready, processing}, [2]int64{r, p})
		}
		a := pop()
		require.Equal(t, "a", a.Payload)
		lens(3, 1)
		ok, err := q.Ack(ctx, a)
		require.NoError(t, err)
		require.True(t, ok)
		ok, err = q.Ack(ctx, a)
		require.NoError(t, err)
		require.False(t, ok, "second Ack found the element")
		lens(3, 0)

		bd := pop()
		require.Equal(t, "b", bd.Payload)
		ok, err = q.Nack(ctx, bd)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, bd.ID, pop().ID, "a nacked element is delivered next")

		// b's worker dies. Its lease expires after a minute; Reap puts it back.
		c := pop()
		require.Equal(t, "c", c.Payload)
		lens(1, 2)
		clock.Advance(30 * time.Second)
		ok, err = q.Extend(ctx, c) // c's worker is alive: its lease runs to +90s
		require.NoError(t, err)
		require.True(t, ok)
		n, err := q.Reap(ctx)
		require.NoError(t, err)
		require.Zero(t, n)
		clock.Advance(30 * time.Second)
		n, err = q.Reap(ctx)
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		lens(2, 1)
		require.Equal(t, bd.ID, pop().ID, "an expired element is delivered next")
		a2 := pop()
		require.Equal(t, "a", a2.Payload)
		require.NotEqual(t, a.ID, a2.ID, "equal payloads are distinct deliveries")
		for _, d := range []queues.Delivery{bd, c, a2} {
			ok, err := q.Ack(ctx, d)
			require.NoError(t, err)
			require.True(t, ok)
		}
		lens(0, 0)
		_, ok, err = q.Pop(ctx, 10*time.Millisecond)
		require.NoError(t, err)
		require.False(t, ok)
	})
}

// TestReliableOrphan: an element left in processing without a lease (its worker died
// between BLMOVE and the lease) gets a lease from Reap and returns after it expires.
func TestReliableOrphan(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		name := qname(t)
		q := queues.NewReliable(b, name, queues.WithLease(time.Minute), queues.WithClock(clock.Now))
		_, err := q.Push(ctx, "x")
		require.NoError(t, err)
		// The dying worker's half-step: BLMOVE only.
		_, ok, err := b.BLMove(ctx, "{"+name+"}:ready", "{"+name+"}:processing", "RIGHT", "LEFT", time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		n, err := q.Reap(ctx)
		require.NoError(t, err)
		require.Zero(t, n)
		clock.Advance(time.Minute)
		n, err = q.Reap(ctx)
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		d, ok, err := q.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "x", d.Payload)
	})
}

// TestReliableCancelledPop: a Pop whose context is already done takes nothing.
func TestReliableCancelledPop(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		q := queues.NewReliable(b, qname(t), queues.WithLease(time.Minute))
		ctx := guard(t)
		_, err := q.Push(ctx, "x")
		require.NoError(t, err)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, _, err = q.Pop(cctx, 0)
		require.ErrorIs(t, err, context.Canceled)
		r, p, err := q.Len(ctx)
		require.NoError(t, err)
		require.Equal(t, [2]int64{1, 0}, [2]int64{r, p})
	})
}
