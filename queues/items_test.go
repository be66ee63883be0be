package queues_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

// pager is one queue type seen through its Items method: fill it, read a page as
// strings, and pop everything in serving order.
type pager struct {
	name  string
	fill  func(ctx context.Context, t *testing.T, b queues.Backend, name string) pagerQueue
	items int // how many fill queues
}

type pagerQueue struct {
	page  func(ctx context.Context, offset, count int64) ([]string, error)
	drain func(ctx context.Context, t *testing.T) []string
}

var pagers = []pager{
	{"fifo", func(ctx context.Context, t *testing.T, b queues.Backend, name string) pagerQueue {
		q := queues.NewFIFO(b, name)
		require.NoError(t, q.Push(ctx, "a", "b", "c", "d", "e"))
		return pagerQueue{q.Items, func(ctx context.Context, t *testing.T) (out []string) {
			for {
				v, ok, err := q.Pop(ctx, time.Millisecond)
				require.NoError(t, err)
				if !ok {
					return out
				}
				out = append(out, v)
			}
		}}
	}, 5},
	{"levels", func(ctx context.Context, t *testing.T, b queues.Backend, name string) pagerQueue {
		q := queues.NewLevels(b, name, []string{"hi", "lo"})
		require.NoError(t, q.Push(ctx, "lo", "x"))
		require.NoError(t, q.Push(ctx, "hi", "a", "b", "c", "d", "e"))
		return pagerQueue{func(ctx context.Context, offset, count int64) ([]string, error) {
			return q.Items(ctx, "hi", offset, count)
		}, func(ctx context.Context, t *testing.T) (out []string) {
			for range 5 {
				_, v, ok, err := q.Pop(ctx, time.Second)
				require.NoError(t, err)
				require.True(t, ok)
				out = append(out, v)
			}
			return out
		}}
	}, 5},
	{"priority", func(ctx context.Context, t *testing.T, b queues.Backend, name string) pagerQueue {
		q := queues.NewPriority(b, name, queues.WithOrder(queues.HighestFirst))
		for i, v := range []string{"c", "a", "d", "b", "e"} {
			require.NoError(t, errOnly(q.Push(ctx, v, float64([]int{3, 5, 3, 4, 1}[i]))))
		}
		return pagerQueue{func(ctx context.Context, offset, count int64) ([]string, error) {
			items, err := q.Items(ctx, offset, count)
			var out []string
			for _, it := range items {
				out = append(out, fmt.Sprint(it.Value, it.Priority))
			}
			return out, err
		}, func(ctx context.Context, t *testing.T) (out []string) {
			for range 5 {
				v, p, ok, err := q.Pop(ctx, time.Second)
				require.NoError(t, err)
				require.True(t, ok)
				out = append(out, fmt.Sprint(v, p))
			}
			return out
		}}
	}, 5},
	{"callqueue", func(ctx context.Context, t *testing.T, b queues.Backend, name string) pagerQueue {
		clock := newFakeClock()
		q := queues.NewCallQueue(b, name, queues.WithClock(clock.Now))
		for i, id := range []string{"c", "a", "d", "b", "e"} {
			require.NoError(t, q.Enqueue(ctx, id, float64([]int{3, 5, 3, 4, 1}[i])))
			clock.Advance(time.Second)
		}
		show := func(c queues.Call) string { return fmt.Sprint(c.ID, c.Priority, c.Since.UTC().Format(time.TimeOnly)) }
		return pagerQueue{func(ctx context.Context, offset, count int64) ([]string, error) {
			calls, err := q.Items(ctx, offset, count)
			var out []string
			for _, c := range calls {
				out = append(out, show(c))
			}
			return out, err
		}, func(ctx context.Context, t *testing.T) (out []string) {
			for range 5 {
				c, ok, err := q.TryDequeue(ctx)
				require.NoError(t, err)
				require.True(t, ok)
				out = append(out, show(c))
			}
			return out
		}}
	}, 5},
	{"waitlist", func(ctx context.Context, t *testing.T, b queues.Backend, name string) pagerQueue {
		w := queues.NewWaitlist(b, name)
		for i, p := range []string{"a", "b", "c", "d", "e"} {
			require.NoError(t, w.Add(ctx, p, int64(i+1)))
		}
		show := func(p queues.Party) string { return fmt.Sprint(p.Name, p.Seats) }
		return pagerQueue{func(ctx context.Context, offset, count int64) ([]string, error) {
			ps, err := w.Items(ctx, offset, count)
			var out []string
			for _, p := range ps {
				out = append(out, show(p))
			}
			return out, err
		}, func(ctx context.Context, t *testing.T) (out []string) {
			for range 5 {
				p, ok, err := w.Seat(ctx, 10, queues.Fits)
				require.NoError(t, err)
				require.True(t, ok)
				out = append(out, show(p))
			}
			return out
		}}
	}, 5},
	{"delayed", func(ctx context.Context, t *testing.T, b queues.Backend, name string) pagerQueue {
		clock := newFakeClock()
		q := queues.NewDelayed(b, name, queues.WithClock(clock.Now))
		for i, v := range []string{"c", "a", "d", "b", "e"} {
			require.NoError(t, errOnly(q.Schedule(ctx, v, clock.Now().Add(time.Duration([]int{3, 1, 4, 2, 5}[i])*time.Second))))
		}
		show := func(j queues.Job) string { return fmt.Sprint(j.Payload, j.Due.UTC().Format(time.TimeOnly)) }
		return pagerQueue{func(ctx context.Context, offset, count int64) ([]string, error) {
			js, err := q.Items(ctx, offset, count)
			var out []string
			for _, j := range js {
				out = append(out, show(j))
			}
			return out, err
		}, func(ctx context.Context, t *testing.T) (out []string) {
			clock.Advance(time.Minute)
			for range 5 {
				j, ok, err := q.TryPop(ctx)
				require.NoError(t, err)
				require.True(t, ok)
				out = append(out, show(j))
			}
			return out
		}}
	}, 5},
	{"reliable", func(ctx context.Context, t *testing.T, b queues.Backend, name string) pagerQueue {
		q := queues.NewReliable(b, name)
		for _, v := range []string{"a", "b", "c", "d", "e"} {
			_, err := q.Push(ctx, v)
			require.NoError(t, err)
		}
		return pagerQueue{func(ctx context.Context, offset, count int64) ([]string, error) {
			ds, err := q.Items(ctx, offset, count)
			var out []string
			for _, d := range ds {
				out = append(out, d.ID+d.Payload)
			}
			return out, err
		}, func(ctx context.Context, t *testing.T) (out []string) {
			for range 5 {
				d, ok, err := q.Pop(ctx, time.Second)
				require.NoError(t, err)
				require.True(t, ok)
				out = append(out, d.ID+d.Payload)
			}
			return out
		}}
	}, 5},
}

// TestItems: every queue type lists its items in the order it serves them, one
// page at a time, on both backends; out-of-range pages are empty and negative
// arguments are refused.
func TestItems(t *testing.T) {
	for _, p := range pagers {
		t.Run("queue="+p.name, func(t *testing.T) {
			each(t, func(t *testing.T, b queues.Backend) {
				ctx := guard(t)
				q := p.fill(ctx, t, b, qname(t))
				all, err := q.page(ctx, 0, math.MaxInt64)
				require.NoError(t, err)
				require.Len(t, all, p.items)
				for _, tc := range []struct{ offset, count int64 }{
					{0, 2}, {2, 2}, {4, 2}, {1, 3}, {5, 1}, {100, 3}, {3, math.MaxInt64},
				} {
					got, err := q.page(ctx, tc.offset, tc.count)
					require.NoError(t, err)
					want := all[min(int(tc.offset), len(all)):min(int(tc.offset)+int(min(tc.count, 100)), len(all))]
					if len(want) == 0 {
						want = nil
					}
					require.Equal(t, want, got, "Items(%d, %d)", tc.offset, tc.count)
				}
				got, err := q.page(ctx, 0, 0)
				require.NoError(t, err)
				require.Empty(t, got)
				_, err = q.page(ctx, -1, 1)
				require.ErrorIs(t, err, queues.ErrBadRange)
				_, err = q.page(ctx, 0, -1)
				require.ErrorIs(t, err, queues.ErrBadRange)
				require.Equal(t, all, q.drain(ctx, t), "Items order is serving order")
			})
		})
	}
}

// TestReliableInFlight: popped elements are listed with their lease deadlines,
// earliest first.
func TestReliableInFlight(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		q := queues.NewReliable(b, qname(t), queues.WithLease(time.Minute), queues.WithClock(clock.Now))
		for _, v := range []string{"a", "b"} {
			_, err := q.Push(ctx, v)
			require.NoError(t, err)
		}
		var want []queues.Lease
		for range 2 {
			d, ok, err := q.Pop(ctx, time.Second)
			require.NoError(t, err)
			require.True(t, ok)
			want = append(want, queues.Lease{Delivery: d, Deadline: clock.Now().Add(time.Minute)})
			clock.Advance(time.Second)
		}
		got, err := q.InFlight(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, got, 2)
		for i := range got {
			require.Equal(t, want[i].Delivery, got[i].Delivery)
			require.True(t, want[i].Deadline.Equal(got[i].Deadline), "deadline %v, want %v", got[i].Deadline, want[i].Deadline)
		}
	})
}
