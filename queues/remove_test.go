package queues_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

// TestRemoveFromLists: FIFO.Remove and Levels.Remove take out the occurrences of a
// value that would be served first, up to count (0: all), and count them.
func TestRemoveFromLists(t *testing.T) {
	cases := []struct {
		name  string
		count int64
		want  int64
		left  []string
	}{
		{"first", 1, 1, []string{"a", "b", "x", "c", "x"}},
		{"two", 2, 2, []string{"a", "b", "c", "x"}},
		{"all", 0, 3, []string{"a", "b", "c"}},
		{"more than there are", 9, 3, []string{"a", "b", "c"}},
	}
	each(t, func(t *testing.T, b queues.Backend) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				ctx := guard(t)
				q := queues.NewFIFO(b, qname(t))
				require.NoError(t, q.Push(ctx, "x", "a", "b", "x", "c", "x"))
				n, err := q.Remove(ctx, "x", c.count)
				require.NoError(t, err)
				require.Equal(t, c.want, n)
				items, err := q.Items(ctx, 0, 10)
				require.NoError(t, err)
				require.Equal(t, c.left, items)
				s, err := q.Stats(ctx)
				require.NoError(t, err)
				require.Equal(t, c.want, s.Cancelled)

				l := queues.NewLevels(b, qname(t), []string{"hi", "lo"})
				require.NoError(t, l.Push(ctx, "lo", "x", "a", "b", "x", "c", "x"))
				require.NoError(t, l.Push(ctx, "hi", "x"))
				n, err = l.Remove(ctx, "lo", "x", c.count)
				require.NoError(t, err)
				require.Equal(t, c.want, n)
				items, err = l.Items(ctx, "lo", 0, 10)
				require.NoError(t, err)
				require.Equal(t, c.left, items)
				hi, err := l.Len(ctx, "hi")
				require.NoError(t, err)
				require.EqualValues(t, 1, hi, "another level is untouched")
			})
		}
		ctx := guard(t)
		q := queues.NewFIFO(b, qname(t))
		_, err := q.Remove(ctx, "x", -1)
		require.ErrorIs(t, err, queues.ErrBadRange)
		l := queues.NewLevels(b, qname(t), []string{"hi"})
		_, err = l.Remove(ctx, "nope", "x", 0)
		require.ErrorIs(t, err, queues.ErrUnknownLevel)
		_, err = l.Remove(ctx, "hi", "x", -1)
		require.ErrorIs(t, err, queues.ErrBadRange)
	})
}

// TestRemoveByID: Priority.Remove, Delayed.Cancel and Scheduler.Cancel remove the one
// item listed, not another with an equal value, and report a second removal as
// absent.
func TestRemoveByID(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()

		p := queues.NewPriority(b, qname(t))
		for _, v := range []string{"x", "y", "x"} {
			require.NoError(t, errOnly(p.Push(ctx, v, 1)))
		}
		items, err := p.Items(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, items, 3)
		require.NotEqual(t, items[0].ID, items[2].ID)
		for _, want := range []bool{true, false} {
			ok, err := p.Remove(ctx, items[2].ID)
			require.NoError(t, err)
			require.Equal(t, want, ok)
		}
		left, err := p.Items(ctx, 0, 10)
		require.NoError(t, err)
		require.Equal(t, items[:2], left)

		d := queues.NewDelayed(b, qname(t), queues.WithClock(clock.Now))
		require.NoError(t, errOnly(d.Schedule(ctx, "j", clock.Now().Add(time.Hour))))
		require.NoError(t, errOnly(d.Schedule(ctx, "j", clock.Now())))
		jobs, err := d.Items(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, jobs, 2)
		for _, want := range []bool{true, false} {
			ok, err := d.Cancel(ctx, jobs[0].ID) // the due one
			require.NoError(t, err)
			require.Equal(t, want, ok)
		}
		_, ok, err := d.TryPop(ctx)
		require.NoError(t, err)
		require.False(t, ok, "the cancelled job was the only one due")
		left2, err := d.Items(ctx, 0, 10)
		require.NoError(t, err)
		require.Equal(t, jobs[1:], left2)
		ds, err := d.Stats(ctx)
		require.NoError(t, err)
		require.EqualValues(t, 1, ds.Cancelled)

		s := queues.NewScheduler(b, qname(t), queues.WithClock(clock.Now))
		require.NoError(t, errOnly(s.AddFutureJob(ctx, queues.FutureJob{Queue: "q", Func: "f"}, clock.Now())))
		future, err := s.Items(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, future, 1)
		ok, err = s.Cancel(ctx, future[0].ID)
		require.NoError(t, err)
		require.True(t, ok)
		moved, err := s.Step(ctx)
		require.NoError(t, err)
		require.Empty(t, moved, "a cancelled job is never moved")
	})
}

// TestReliableRemoveAndRequeue: Remove takes a waiting element only; Requeue puts
// back an expired lease only, in one step.
func TestReliableRemoveAndRequeue(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		q := queues.NewReliable(b, qname(t), queues.WithLease(time.Minute), queues.WithClock(clock.Now))
		for _, p := range []string{"a", "b", "c"} {
			_, err := q.Push(ctx, p)
			require.NoError(t, err)
		}
		a, ok, err := q.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		ok, err = q.Remove(ctx, a.ID)
		require.NoError(t, err)
		require.False(t, ok, "an element in processing is not removed")
		waiting, err := q.Items(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, waiting, 2)
		ok, err = q.Remove(ctx, waiting[1].ID) // c
		require.NoError(t, err)
		require.True(t, ok)

		ok, err = q.Requeue(ctx, a)
		require.NoError(t, err)
		require.False(t, ok, "a running lease is not requeued")
		clock.Advance(time.Minute)
		ok, err = q.Requeue(ctx, a)
		require.NoError(t, err)
		require.True(t, ok)
		ok, err = q.Requeue(ctx, a)
		require.NoError(t, err)
		require.False(t, ok, "requeued once")
		got, err := q.Items(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, got, 2)
		require.Equal(t, []string{a.ID, waiting[0].ID}, []string{got[0].ID, got[1].ID}, "a requeued element is served next")
		s, err := q.Stats(ctx)
		require.NoError(t, err)
		require.Equal(t, [4]int64{2, 0, 1, 1}, [4]int64{s.Depth, s.InFlight, s.Requeued, s.ExpiredLeases})
		require.EqualValues(t, 1, s.Cancelled)
	})
}

// TestReliableDead: with WithMaxDeliveries(n), the n-th failed delivery (by Nack, Reap
// or Requeue) sends an element to the dead set; Retry brings it back with fresh
// deliveries; an Ack forgets the failures.
func TestReliableDead(t *testing.T) {
	fails := map[string]func(t *testing.T, q *queues.Reliable, clock *fakeClock, d queues.Delivery){
		"nack": func(t *testing.T, q *queues.Reliable, _ *fakeClock, d queues.Delivery) {
			ok, err := q.Nack(guard(t), d)
			require.NoError(t, err)
			require.True(t, ok)
		},
		"reap": func(t *testing.T, q *queues.Reliable, clock *fakeClock, _ queues.Delivery) {
			clock.Advance(time.Minute)
			n, err := q.Reap(guard(t))
			require.NoError(t, err)
			require.EqualValues(t, 1, n)
		},
		"requeue": func(t *testing.T, q *queues.Reliable, clock *fakeClock, d queues.Delivery) {
			clock.Advance(time.Minute)
			ok, err := q.Requeue(guard(t), d)
			require.NoError(t, err)
			require.True(t, ok)
		},
	}
	each(t, func(t *testing.T, b queues.Backend) {
		for name, fail := range fails {
			t.Run("by="+name, func(t *testing.T) {
				ctx := guard(t)
				clock := newFakeClock()
				q := queues.NewReliable(b, qname(t), queues.WithLease(time.Minute), queues.WithClock(clock.Now), queues.WithMaxDeliveries(2))
				pop := func() queues.Delivery {
					t.Helper()
					d, ok, err := q.Pop(ctx, time.Second)
					require.NoError(t, err)
					require.True(t, ok)
					return d
				}
				id, err := q.Push(ctx, "x")
				require.NoError(t, err)
				fail(t, q, clock, pop()) // delivery 1 failed: back in the queue
				fail(t, q, clock, pop()) // delivery 2 failed: dead
				r, p, err := q.Len(ctx)
				require.NoError(t, err)
				require.Equal(t, [2]int64{0, 0}, [2]int64{r, p})
				dead, err := q.Dead(ctx, 0, 10)
				require.NoError(t, err)
				require.Equal(t, []queues.DeadElement{{Delivery: queues.Delivery{ID: id, Payload: "x"}, Died: clock.Now()}},
					[]queues.DeadElement{{Delivery: queues.Delivery{ID: dead[0].ID, Payload: dead[0].Payload}, Died: dead[0].Died.UTC()}})
				s, err := q.Stats(ctx)
				require.NoError(t, err)
				require.Equal(t, [3]int64{1, 1, 1}, [3]int64{s.Dead, s.DeadLettered, s.Requeued})

				for _, want := range []bool{true, false} {
					ok, err := q.Retry(ctx, dead[0].Delivery)
					require.NoError(t, err)
					require.Equal(t, want, ok)
				}
				fail(t, q, clock, pop()) // a retried element has two deliveries again
				d := pop()
				ok, err := q.Ack(ctx, d)
				require.NoError(t, err)
				require.True(t, ok)
				dead, err = q.Dead(ctx, 0, 10)
				require.NoError(t, err)
				require.Empty(t, dead)

				// An Ack forgets earlier failures: a new failure after it counts from one.
				id2, err := q.Push(ctx, "y")
				require.NoError(t, err)
				fail(t, q, clock, pop())
				require.Equal(t, id2, pop().ID)
				s, err = q.Stats(ctx)
				require.NoError(t, err)
				require.Zero(t, s.Dead)
				_, err = q.Dead(ctx, -1, 1)
				require.ErrorIs(t, err, queues.ErrBadRange)
			})
		}
	})
}

// TestReliableUnlimited: without WithMaxDeliveries nothing dies and no failure is
// recorded.
func TestReliableUnlimited(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		q := queues.NewReliable(b, qname(t))
		_, err := q.Push(ctx, "x")
		require.NoError(t, err)
		for range 5 {
			d, ok, err := q.Pop(ctx, time.Second)
			require.NoError(t, err)
			require.True(t, ok)
			ok, err = q.Nack(ctx, d)
			require.NoError(t, err)
			require.True(t, ok)
		}
		s, err := q.Stats(ctx)
		require.NoError(t, err)
		require.Equal(t, [3]int64{1, 0, 5}, [3]int64{s.Depth, s.Dead, s.Requeued})
	})
}
