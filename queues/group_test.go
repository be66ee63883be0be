package queues_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

// popAll pops until a pop finds nothing and returns the payloads, acking each.
func popAll(t *testing.T, ctx context.Context, q *queues.Reliable) []string {
	t.Helper()
	var got []string
	for {
		d, ok, err := q.Pop(ctx, 10*time.Millisecond)
		require.NoError(t, err)
		if !ok {
			return got
		}
		got = append(got, d.Payload)
		_, err = q.Ack(ctx, d)
		require.NoError(t, err)
	}
}

// countGroups counts payloads "<group>/<i>" by group ("" for an ungrouped "<i>").
func countGroups(ps []string) map[string]int {
	c := map[string]int{}
	for _, p := range ps {
		g, _, ok := strings.Cut(p, "/")
		if !ok {
			g = ""
		}
		c[g]++
	}
	return c
}

// pushGroup pushes n elements "<g>/<i>" with Group(g), or ungrouped "<i>" for g == "".
func pushGroup(t *testing.T, ctx context.Context, q *queues.Reliable, g string, n int) {
	t.Helper()
	for i := range n {
		var err error
		if g == "" {
			_, err = q.Push(ctx, fmt.Sprint(i))
		} else {
			_, err = q.Push(ctx, fmt.Sprintf("%s/%d", g, i), queues.Group(g))
		}
		require.NoError(t, err)
	}
}

// TestReliableGroupRateLimit: with WithGroupRateLimit(2, time.Second), each step
// serves exactly what every group's sliding window allows (a delivery at t leaves
// the window at t + 1 s), in arrival order within a group, and ungrouped elements
// are not limited.
func TestReliableGroupRateLimit(t *testing.T) {
	steps := []struct {
		advance time.Duration
		want    map[string]int // pops served per group ("": ungrouped)
	}{
		{0, map[string]int{"a": 2, "b": 2, "": 3}},
		{500 * time.Millisecond, map[string]int{}},
		{500*time.Millisecond - time.Microsecond, map[string]int{}},
		{time.Microsecond, map[string]int{"a": 2, "b": 2}},
		{10 * time.Second, map[string]int{"a": 2, "b": 1}},
	}
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		q := queues.NewReliable(b, qname(t), queues.WithClock(clock.Now), queues.WithGroupRateLimit(2, time.Second))
		pushGroup(t, ctx, q, "a", 10)
		pushGroup(t, ctx, q, "b", 5)
		pushGroup(t, ctx, q, "", 3)
		next := map[string]int{}
		for i, st := range steps {
			clock.Advance(st.advance)
			got := popAll(t, ctx, q)
			for _, p := range got {
				g, n, ok := strings.Cut(p, "/")
				if !ok {
					g, n = "", p
				}
				require.Equal(t, fmt.Sprint(next[g]), n, "step %d: group %q served in order", i, g)
				next[g]++
			}
			require.Equal(t, st.want, countGroups(got), "step %d: pops served per group", i)
		}
		ready, processing, err := q.Len(ctx)
		require.NoError(t, err)
		require.EqualValues(t, 4, ready, "a/6 … a/9 wait")
		require.Zero(t, processing)
	})
}

// TestReliableGroupFairness: a group with 100 waiting elements over its limit does
// not hold back another group's element, nor an ungrouped one, and the Pop that
// serves them does not wait.
func TestReliableGroupFairness(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		q := queues.NewReliable(b, qname(t), queues.WithClock(clock.Now), queues.WithGroupRateLimit(1, time.Hour))
		pushGroup(t, ctx, q, "a", 100)
		d, ok, err := q.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "a/0", d.Payload)
		_, ok, err = q.Pop(ctx, 10*time.Millisecond)
		require.NoError(t, err)
		require.False(t, ok, "a is over its limit")

		pushGroup(t, ctx, q, "b", 1)
		pushGroup(t, ctx, q, "", 1)
		start := time.Now()
		var got []string
		for range 2 {
			d, ok, err := q.Pop(ctx, 5*time.Second)
			require.NoError(t, err)
			require.True(t, ok)
			got = append(got, d.Payload)
		}
		require.Less(t, time.Since(start), 2*time.Second, "b and the ungrouped element are served at once")
		slices.Sort(got)
		require.Equal(t, []string{"0", "b/0"}, got)

		st, err := q.Stats(ctx)
		require.NoError(t, err)
		require.EqualValues(t, 99, st.Depth, "Depth counts grouped elements")
		require.EqualValues(t, 99, st.RateLimited, "a's elements are held back")
		require.EqualValues(t, 3, st.InFlight)
	})
}

// TestReliableGroupNack: a Nacked, Failed or reaped element goes back to the head of
// its group, and its redelivery counts against the group's limit; Remove takes a
// grouped element out.
func TestReliableGroupNack(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		q := queues.NewReliable(b, qname(t), queues.WithClock(clock.Now), queues.WithLease(time.Minute),
			queues.WithGroupRateLimit(2, time.Second))
		pushGroup(t, ctx, q, "a", 3)
		d, ok, err := q.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "a/0", d.Payload)
		ok, err = q.Nack(ctx, d)
		require.NoError(t, err)
		require.True(t, ok)
		ready, _, err := q.Len(ctx)
		require.NoError(t, err)
		require.EqualValues(t, 3, ready)

		d, ok, err = q.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "a/0", d.Payload, "back at the head of its group")
		require.EqualValues(t, 2, d.Attempt)
		_, ok, err = q.Pop(ctx, 10*time.Millisecond)
		require.NoError(t, err)
		require.False(t, ok, "the redelivery counted: a is full")

		ok, err = q.Fail(ctx, d, errors.New("boom"))
		require.NoError(t, err)
		require.True(t, ok)
		clock.Advance(time.Second)
		d, ok, err = q.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "a/0", d.Payload)
		require.Equal(t, "boom", d.LastError)

		// The lease expires; Reap puts a/0 back at the head of a.
		clock.Advance(2 * time.Minute)
		n, err := q.Reap(ctx)
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		d, ok, err = q.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "a/0", d.Payload)
		require.EqualValues(t, 4, d.Attempt)
		require.Equal(t, "lease expired", d.LastError)
		_, err = q.Ack(ctx, d)
		require.NoError(t, err)

		// Remove a/1; a/2 is served next, and then nothing is left.
		ok, err = q.Remove(ctx, d.ID)
		require.NoError(t, err)
		require.False(t, ok, "a/0 is done")
		id, err := q.Push(ctx, "a/3", queues.Group("a"))
		require.NoError(t, err)
		ok, err = q.Remove(ctx, id)
		require.NoError(t, err)
		require.True(t, ok)
		clock.Advance(time.Second)
		require.Equal(t, []string{"a/1", "a/2"}, popAll(t, ctx, q))
		ready, processing, err := q.Len(ctx)
		require.NoError(t, err)
		require.Zero(t, ready)
		require.Zero(t, processing)
	})
}

// TestReliableGroupRetryDead: an element retried from the dead set and one waiting
// out a retry delay return to their group.
func TestReliableGroupRetryDead(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		q := queues.NewReliable(b, qname(t), queues.WithClock(clock.Now), queues.WithMaxDeliveries(2),
			queues.WithRetry(queues.RetryPolicy{Base: time.Second, MaxAttempts: 2}),
			queues.WithGroupRateLimit(1, time.Minute))
		pushGroup(t, ctx, q, "a", 2)
		d, ok, err := q.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		_, err = q.Nack(ctx, d)
		require.NoError(t, err)
		clock.Advance(time.Minute)
		d, ok, err = q.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "a/0", d.Payload, "the due retry went back to the head of a")
		_, err = q.Nack(ctx, d)
		require.NoError(t, err)
		dead, err := q.Dead(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, dead, 1)
		ok, err = q.Retry(ctx, dead[0].Delivery)
		require.NoError(t, err)
		require.True(t, ok)
		_, ok, err = q.Pop(ctx, 10*time.Millisecond)
		require.NoError(t, err)
		require.False(t, ok, "a is over its limit: the retried element waits in a")
		clock.Advance(time.Minute)
		require.Equal(t, []string{"a/0"}, popAll(t, ctx, q))
		clock.Advance(time.Minute)
		require.Equal(t, []string{"a/1"}, popAll(t, ctx, q))
	})
}

// TestReliableGroupOptions: Group needs a name; a queue without a group limit
// ignores it; Pause stops grouped deliveries too; Unique applies to grouped pushes.
func TestReliableGroupOptions(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		q := queues.NewReliable(b, qname(t), queues.WithGroupRateLimit(5, time.Minute))
		_, err := q.Push(ctx, "x", queues.Group(""))
		require.ErrorIs(t, err, queues.ErrEmptyID)

		plain := queues.NewReliable(b, qname(t))
		_, err = plain.Push(ctx, "x", queues.Group("a"))
		require.NoError(t, err)
		require.Equal(t, []string{"x"}, popAll(t, ctx, plain), "no group limit: pushed as ungrouped")

		id, err := q.Push(ctx, "a/0", queues.Group("a"), queues.Unique("k", time.Hour))
		require.NoError(t, err)
		dup, err := q.Push(ctx, "a/1", queues.Group("a"), queues.Unique("k", time.Hour))
		require.ErrorIs(t, err, queues.ErrDuplicate)
		require.Equal(t, id, dup)

		_, err = q.Pause(ctx)
		require.NoError(t, err)
		_, ok, err := q.Pop(ctx, 150*time.Millisecond)
		require.NoError(t, err)
		require.False(t, ok, "paused")
		_, err = q.Resume(ctx)
		require.NoError(t, err)
		require.Equal(t, []string{"a/0"}, popAll(t, ctx, q))
		_, err = q.Push(ctx, "a/2", queues.Group("a"), queues.Unique("k", time.Hour))
		require.NoError(t, err, "Ack released the lock")
	})
}

// TestReliableGroupSleeps: a Pop whose only waiting elements are in a full group
// sleeps until the group's window reopens, then delivers.
func TestReliableGroupSleeps(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		q := queues.NewReliable(b, qname(t), queues.WithGroupRateLimit(1, 300*time.Millisecond))
		pushGroup(t, ctx, q, "a", 2)
		start := time.Now()
		for range 2 {
			d, ok, err := q.Pop(ctx, 5*time.Second)
			require.NoError(t, err)
			require.True(t, ok)
			_, err = q.Ack(ctx, d)
			require.NoError(t, err)
		}
		require.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond)
	})
}

// TestReliableGroupConcurrent: several consumers and groups, real time: every
// element is delivered exactly once, and no n+1 deliveries of one group fit in one
// window. A delivery happened between the call of its Pop and its return, so a set
// of n+1 deliveries spanning less than per is caught as one whose latest return is
// less than per after its earliest call.
func TestReliableGroupConcurrent(t *testing.T) {
	const (
		consumers = 4
		perGroup  = 9
		n         = 3
		per       = 100 * time.Millisecond
	)
	groups := []string{"a", "b", "c"}
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		q := queues.NewReliable(b, qname(t), queues.WithGroupRateLimit(n, per))
		for _, g := range groups {
			pushGroup(t, ctx, q, g, perGroup)
		}
		pushGroup(t, ctx, q, "", 10)
		total := len(groups)*perGroup + 10

		type span struct{ call, ret time.Time }
		var (
			mu    sync.Mutex
			seen  = map[string]int{}
			spans = map[string][]span{}
			errs  []error
			wg    sync.WaitGroup
		)
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		start := time.Now()
		for range consumers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					call := time.Now()
					d, ok, err := q.Pop(ctx, 50*time.Millisecond)
					ret := time.Now()
					if err != nil {
						if ctx.Err() == nil {
							mu.Lock()
							errs = append(errs, err)
							mu.Unlock()
						}
						return
					}
					if !ok {
						continue
					}
					if _, err := q.Ack(context.WithoutCancel(ctx), d); err != nil {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
					}
					mu.Lock()
					seen[d.Payload]++
					if g, _, grouped := strings.Cut(d.Payload, "/"); grouped {
						spans[g] = append(spans[g], span{call, ret})
					}
					if len(seen) == total {
						cancel()
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		require.Empty(t, errs)
		require.Len(t, seen, total, "none lost")
		for p, c := range seen {
			require.Equal(t, 1, c, "%q delivered once", p)
		}
		require.GreaterOrEqual(t, elapsed, (perGroup/n-1)*per, "a group's 9 deliveries need 2 more windows")
		for _, g := range groups {
			ss := spans[g]
			require.Len(t, ss, perGroup)
			for i, s := range ss {
				// The n deliveries other than i that called no earlier and returned
				// first: with s, the tightest set of n+1 whose earliest call is s's.
				var rets []time.Time
				for j, o := range ss {
					if j != i && !o.call.Before(s.call) {
						rets = append(rets, o.ret)
					}
				}
				if len(rets) < n {
					continue
				}
				slices.SortFunc(rets, func(x, y time.Time) int { return x.Compare(y) })
				last := rets[n-1]
				if s.ret.After(last) {
					last = s.ret
				}
				require.GreaterOrEqual(t, last.Sub(s.call), per, "group %s: %d deliveries within one window", g, n+1)
			}
		}
		ready, processing, err := q.Len(context.Background())
		require.NoError(t, err)
		require.Zero(t, ready)
		require.Zero(t, processing)
	})
}

// TestReliableGroupOrder: an ungrouped element is served before a grouped one that
// arrived after it, and after one that arrived before it, as long as the group may
// be served.
func TestReliableGroupOrder(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		q := queues.NewReliable(b, qname(t), queues.WithGroupRateLimit(100, time.Minute))
		for _, p := range []string{"0", "a/0", "1", "a/1", "2"} {
			var opts []queues.PushOption
			if strings.HasPrefix(p, "a/") {
				opts = append(opts, queues.Group("a"))
			}
			_, err := q.Push(ctx, p, opts...)
			require.NoError(t, err)
		}
		require.Equal(t, []string{"0", "a/0", "1", "a/1", "2"}, popAll(t, ctx, q))
	})
}

// TestReliableGroupListing: Items lists the ungrouped elements, then each group's,
// every page a slice of the whole listing; each listing and each delivery says the
// element's group.
func TestReliableGroupListing(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		q := queues.NewReliable(b, qname(t), queues.WithClock(clock.Now),
			queues.WithRetry(queues.RetryPolicy{Base: time.Second, MaxAttempts: 2}),
			queues.WithGroupRateLimit(1, time.Minute))
		pushGroup(t, ctx, q, "", 2)
		pushGroup(t, ctx, q, "a", 3)
		pushGroup(t, ctx, q, "b", 2)
		want := []string{"0", "1", "a/0", "a/1", "a/2", "b/0", "b/1"}
		all, err := q.Items(ctx, 0, 100)
		require.NoError(t, err)
		var got []string
		for _, d := range all {
			got = append(got, d.Payload)
			g, _, _ := strings.Cut(d.Payload, "/")
			if g == d.Payload {
				g = ""
			}
			require.Equal(t, g, d.Group, d.Payload)
		}
		require.Equal(t, want, got)
		for offset := range int64(len(want) + 2) {
			for count := range int64(len(want) + 2) {
				page, err := q.Items(ctx, offset, count)
				require.NoError(t, err)
				lo, hi := min(offset, int64(len(all))), min(offset+count, int64(len(all)))
				require.Equal(t, all[lo:hi], slices.Clip(page), "offset %d count %d", offset, count)
			}
		}

		for _, p := range []string{"0", "1"} {
			d := popOne(t, ctx, q)
			require.Equal(t, p, d.Payload)
			require.Empty(t, d.Group)
			_, err = q.Ack(ctx, d)
			require.NoError(t, err)
		}
		// a/0 in processing, waiting out a retry, then dead: each listing says its group.
		d := popOne(t, ctx, q)
		require.Equal(t, "a/0", d.Payload)
		require.Equal(t, "a", d.Group)
		leases, err := q.InFlight(ctx, 0, 10)
		require.NoError(t, err)
		require.Equal(t, []string{"a"}, leaseGroups(leases))
		_, err = q.Fail(ctx, d, errors.New("boom"))
		require.NoError(t, err)
		leases, err = q.Retrying(ctx, 0, 10)
		require.NoError(t, err)
		require.Equal(t, []string{"a"}, leaseGroups(leases))
		clock.Advance(time.Minute)
		_, err = q.Fail(ctx, popOne(t, ctx, q), errors.New("boom"))
		require.NoError(t, err)
		dead, err := q.Dead(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, dead, 1)
		require.Equal(t, "a", dead[0].Group)
	})
}

// leaseGroups is the group of each lease.
func leaseGroups(ls []queues.Lease) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Group)
	}
	return out
}

// TestReliableGroupWakes: a Pop waiting with no timeout is woken by a grouped push
// to a group with nothing waiting, by a grouped element's Nack and by Reap; it
// does not poll, so without the wake-up it would wait until guard's deadline.
func TestReliableGroupWakes(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		q := queues.NewReliable(b, qname(t), queues.WithClock(clock.Now), queues.WithLease(time.Minute),
			queues.WithGroupRateLimit(3, time.Hour))
		popWoken := func(do func()) queues.Delivery {
			t.Helper()
			got := make(chan queues.Delivery, 1)
			go func() {
				d, _, err := q.Pop(ctx, 0)
				if err != nil {
					t.Error(err)
				}
				got <- d
			}()
			waitEntered(t, ctx, q.Stats, 1)
			do()
			return <-got
		}
		d := popWoken(func() {
			_, err := q.Push(ctx, "a/0", queues.Group("a"))
			require.NoError(t, err)
		})
		require.Equal(t, "a/0", d.Payload)
		require.Equal(t, "a", d.Group)
		d = popWoken(func() {
			_, err := q.Nack(ctx, d)
			require.NoError(t, err)
		})
		require.Equal(t, "a/0", d.Payload)
		require.EqualValues(t, 2, d.Attempt)
		d = popWoken(func() {
			clock.Advance(2 * time.Minute)
			n, err := q.Reap(ctx)
			require.NoError(t, err)
			require.EqualValues(t, 1, n)
		})
		require.Equal(t, "a/0", d.Payload)
		require.EqualValues(t, 3, d.Attempt)
		ready, processing, err := q.Len(ctx)
		require.NoError(t, err)
		require.Equal(t, [2]int64{0, 1}, [2]int64{ready, processing})
	})
}
