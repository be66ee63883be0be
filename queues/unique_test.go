package queues_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

// TestReliableUnique: a push with a uniqueness key is refused, with the holder's id
// and an error matching ErrDuplicate, while the holder is waiting, in processing,
// retrying or dead and its window has not passed; Ack, Remove and DeleteDead end
// the lock at once, and the window's end ends it too.
func TestReliableUnique(t *testing.T) {
	const ttl = 24 * time.Hour
	cases := []struct {
		name string
		// state brings the first element (id, pushed with key "k") into a state.
		state func(t *testing.T, ctx context.Context, q *queues.Reliable, clock *fakeClock, id string)
		dup   bool // a second push with "k" is refused
	}{
		{"waiting", func(*testing.T, context.Context, *queues.Reliable, *fakeClock, string) {}, true},
		{"waiting, window almost over", func(_ *testing.T, _ context.Context, _ *queues.Reliable, c *fakeClock, _ string) {
			c.Advance(ttl - time.Microsecond)
		}, true},
		{"waiting, window over", func(_ *testing.T, _ context.Context, _ *queues.Reliable, c *fakeClock, _ string) {
			c.Advance(ttl)
		}, false},
		{"processing", func(t *testing.T, ctx context.Context, q *queues.Reliable, _ *fakeClock, _ string) {
			popOne(t, ctx, q)
		}, true},
		{"retrying", func(t *testing.T, ctx context.Context, q *queues.Reliable, _ *fakeClock, _ string) {
			ok, err := q.Nack(ctx, popOne(t, ctx, q))
			require.True(t, ok)
			require.NoError(t, err)
		}, true},
		{"acked", func(t *testing.T, ctx context.Context, q *queues.Reliable, _ *fakeClock, _ string) {
			ok, err := q.Ack(ctx, popOne(t, ctx, q))
			require.True(t, ok)
			require.NoError(t, err)
		}, false},
		{"removed", func(t *testing.T, ctx context.Context, q *queues.Reliable, _ *fakeClock, id string) {
			ok, err := q.Remove(ctx, id)
			require.True(t, ok)
			require.NoError(t, err)
		}, false},
		{"dead", func(t *testing.T, ctx context.Context, q *queues.Reliable, c *fakeClock, _ string) {
			kill(t, ctx, q, c)
		}, true},
		{"dead, deleted", func(t *testing.T, ctx context.Context, q *queues.Reliable, c *fakeClock, _ string) {
			dead := kill(t, ctx, q, c)
			ok, err := q.DeleteDead(ctx, dead)
			require.True(t, ok)
			require.NoError(t, err)
		}, false},
	}
	each(t, func(t *testing.T, b queues.Backend) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				ctx := guard(t)
				clock := newFakeClock()
				name := qname(t)
				q := queues.NewReliable(b, name, queues.WithClock(clock.Now), queues.WithMaxDeliveries(2),
					queues.WithRetry(queues.RetryPolicy{Base: time.Hour, Rand: half}))
				id, err := q.Push(ctx, "a", queues.Unique("k", ttl))
				require.NoError(t, err)
				tc.state(t, ctx, q, clock, id)
				id2, err := q.Push(ctx, "b", queues.Unique("k", ttl))
				if !tc.dup {
					require.NoError(t, err)
					require.NotEqual(t, id, id2)
					return
				}
				require.ErrorIs(t, err, queues.ErrDuplicate)
				require.Equal(t, id, id2, "a refused push returns the holder's id")
				require.EqualError(t, err, fmt.Sprintf(`queues: reliable %q: push "k": id already queued`, name))
				var qe *queues.Error
				require.True(t, errors.As(err, &qe))
				require.Equal(t, "push", qe.Op)
				// Another key is not affected.
				_, err = q.Push(ctx, "c", queues.Unique("other", ttl))
				require.NoError(t, err)
			})
		}
	})
}

// TestReliableUniqueExpiredHolder: once the window passed, a new element takes the
// key; finishing the old holder then must not release the new one's lock.
func TestReliableUniqueExpiredHolder(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		q := queues.NewReliable(b, qname(t), queues.WithClock(clock.Now))
		_, err := q.Push(ctx, "old", queues.Unique("k", time.Second))
		require.NoError(t, err)
		clock.Advance(time.Second)
		d := popOne(t, ctx, q)
		id2, err := q.Push(ctx, "new", queues.Unique("k", time.Hour))
		require.NoError(t, err)
		ok, err := q.Ack(ctx, d)
		require.True(t, ok)
		require.NoError(t, err)
		got, err := q.Push(ctx, "third", queues.Unique("k", time.Hour))
		require.ErrorIs(t, err, queues.ErrDuplicate)
		require.Equal(t, id2, got)
	})
}

// TestReliableUniqueBadInput: an empty key or a window below 1 µs changes nothing.
func TestReliableUniqueBadInput(t *testing.T) {
	cases := []struct {
		name string
		opt  queues.PushOption
		want error
	}{
		{"empty key", queues.Unique("", time.Second), queues.ErrEmptyID},
		{"zero ttl", queues.Unique("k", 0), queues.ErrBadDuration},
		{"negative ttl", queues.Unique("k", -time.Second), queues.ErrBadDuration},
	}
	each(t, func(t *testing.T, b queues.Backend) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				ctx := guard(t)
				q := queues.NewReliable(b, qname(t))
				_, err := q.Push(ctx, "x", tc.opt)
				require.ErrorIs(t, err, tc.want)
				ready, _, err := q.Len(ctx)
				require.NoError(t, err)
				require.Zero(t, ready)
			})
		}
	})
}

// popOne pops one element that must be waiting.
func popOne(t *testing.T, ctx context.Context, q *queues.Reliable) queues.Delivery {
	t.Helper()
	d, ok, err := q.Pop(ctx, time.Second)
	require.NoError(t, err)
	require.True(t, ok, "q.Pop: nothing waiting")
	return d
}

// kill fails the only element of q (WithMaxDeliveries(2), retries an hour apart)
// twice, so that it is dead, and returns it.
func kill(t *testing.T, ctx context.Context, q *queues.Reliable, clock *fakeClock) queues.Delivery {
	t.Helper()
	_, err := q.Nack(ctx, popOne(t, ctx, q))
	require.NoError(t, err)
	clock.Advance(time.Hour)
	_, err = q.Nack(ctx, popOne(t, ctx, q))
	require.NoError(t, err)
	dead, err := q.Dead(ctx, 0, 1)
	require.NoError(t, err)
	require.Len(t, dead, 1)
	return dead[0].Delivery
}

// TestReliableUniqueManyExpired: a push drops at most 64 expired locks, but its own
// key's expired lock never blocks it, however many others expired.
func TestReliableUniqueManyExpired(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		q := queues.NewReliable(b, qname(t), queues.WithClock(clock.Now))
		for i := range 200 {
			_, err := q.Push(ctx, "x", queues.Unique(fmt.Sprint("k", i), time.Second))
			require.NoError(t, err)
		}
		clock.Advance(time.Second)
		for i := 199; i >= 190; i-- {
			_, err := q.Push(ctx, "y", queues.Unique(fmt.Sprint("k", i), time.Second))
			require.NoError(t, err, "k%d expired", i)
		}
	})
}
