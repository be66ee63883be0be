package queues_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

// TestReliableRateLimit: with WithRateLimit(3, time.Second), the pops that succeed
// in each step are exactly those the sliding window allows: a delivery at t leaves
// the window at t + 1 s.
func TestReliableRateLimit(t *testing.T) {
	steps := []struct {
		advance time.Duration // clock move before the step
		try     int           // pops tried
		want    int           // pops that get an element
	}{
		{0, 2, 2},                      // t=0: 2 of 3
		{500 * time.Millisecond, 3, 1}, // t=0.5: the third
		{499 * time.Millisecond, 2, 0}, // t=0.999: window full
		{time.Millisecond, 3, 2},       // t=1: the two of t=0 left
		{499 * time.Millisecond, 1, 0}, // t=1.499: full again
		{time.Millisecond, 2, 1},       // t=1.5: the one of t=0.5 left
		{10 * time.Second, 5, 3},       // long after: a full window
		{time.Second - time.Microsecond, 1, 0},
	}
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		q := queues.NewReliable(b, qname(t), queues.WithClock(clock.Now), queues.WithRateLimit(3, time.Second))
		for i := range 20 {
			_, err := q.Push(ctx, strconv.Itoa(i))
			require.NoError(t, err)
		}
		next := 0
		for i, st := range steps {
			clock.Advance(st.advance)
			got := 0
			for range st.try {
				d, ok, err := q.Pop(ctx, 10*time.Millisecond)
				require.NoError(t, err)
				if ok {
					require.Equal(t, strconv.Itoa(next), d.Payload, "served in order")
					next++
					got++
					_, err := q.Ack(ctx, d)
					require.NoError(t, err)
				}
			}
			require.Equal(t, st.want, got, "step %d: pops served", i)
		}
		ready, processing, err := q.Len(ctx)
		require.NoError(t, err)
		require.EqualValues(t, 20-next, ready, "a refused pop puts its element back")
		require.Zero(t, processing)
		st, err := q.Stats(ctx)
		require.NoError(t, err)
		require.EqualValues(t, ready, st.RateLimited, "window full: every waiting element is held back")
		require.Contains(t, st.String(), fmt.Sprintf("rate-limited %d", ready))
		clock.Advance(time.Microsecond)
		st, err = q.Stats(ctx)
		require.NoError(t, err)
		require.Zero(t, st.RateLimited, "window open")
	})
}

// TestReliableRateLimitInteractions: pops of a paused queue take no token; a retried
// delivery takes one like any other; a limited pop sleeps until the window opens
// (here 30 ms of real time) and then delivers.
func TestReliableRateLimitInteractions(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		q := queues.NewReliable(b, qname(t), queues.WithClock(clock.Now), queues.WithRateLimit(2, time.Minute),
			queues.WithRetry(queues.RetryPolicy{Base: time.Second, Rand: half}))
		for _, p := range []string{"a", "b", "c"} {
			_, err := q.Push(ctx, p)
			require.NoError(t, err)
		}
		_, err := q.Pause(ctx)
		require.NoError(t, err)
		_, ok, err := q.Pop(ctx, 20*time.Millisecond)
		require.NoError(t, err)
		require.False(t, ok, "paused")
		_, err = q.Resume(ctx)
		require.NoError(t, err)

		d := popOne(t, ctx, q) // token 1
		require.Equal(t, "a", d.Payload)
		_, err = q.Nack(ctx, d)
		require.NoError(t, err)
		clock.Advance(2 * time.Second)
		d = popOne(t, ctx, q) // token 2: the retry, due first
		require.Equal(t, "a", d.Payload)
		require.EqualValues(t, 2, d.Attempt)
		_, ok, err = q.Pop(ctx, 20*time.Millisecond)
		require.NoError(t, err)
		require.False(t, ok, "two deliveries in the minute")

		// Real time: a window of 30 ms.
		r := queues.NewReliable(b, qname(t), queues.WithRateLimit(1, 30*time.Millisecond))
		for _, p := range []string{"x", "y"} {
			_, err := r.Push(ctx, p)
			require.NoError(t, err)
		}
		start := time.Now()
		popOne(t, ctx, r)
		d, ok, err = r.Pop(ctx, 5*time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "y", d.Payload)
		require.GreaterOrEqual(t, time.Since(start), 25*time.Millisecond, "the second pop waited for the window")
	})
}

// grantRecorder is a Backend that records the delivery time of every element a
// rate-limited lease step hands out (the fourth of the five elements of its reply,
// the time the sliding window counted).
type grantRecorder struct {
	queues.Backend
	mu    sync.Mutex
	times []int64
}

func (g *grantRecorder) Eval(ctx context.Context, s *queues.Script, keys []string, args ...string) (any, error) {
	r, err := g.Backend.Eval(ctx, s, keys, args...)
	if a, ok := r.([]any); ok && len(a) == 5 && strings.Contains(s.Lua(), "record(at)") {
		at, _ := strconv.ParseInt(toString(a[3]), 10, 64)
		g.mu.Lock()
		g.times = append(g.times, at)
		g.mu.Unlock()
	}
	return r, err
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return ""
}

// checkWindows fails unless every n+1 consecutive delivery times span at least per:
// no window (t − per, t] holds more than n deliveries.
func checkWindows(t testing.TB, times []int64, n int, per time.Duration) {
	t.Helper()
	times = slices.Clone(times)
	slices.Sort(times)
	for i := 0; i+n < len(times); i++ {
		if d := times[i+n] - times[i]; d < per.Microseconds() {
			t.Fatalf("deliveries %d..%d span %d µs < %v: more than %d in a window", i, i+n, d, per, n)
		}
	}
}

// TestReliableRateLimitConcurrent: four consumers share a limit of 10 per 50 ms on
// the real clock; every element is delivered exactly once and no window holds more
// than 10 deliveries.
func TestReliableRateLimitConcurrent(t *testing.T) {
	const (
		n, per    = 10, 50 * time.Millisecond
		elements  = 80
		consumers = 4
	)
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		rec := &grantRecorder{Backend: b}
		name := qname(t)
		for i := range elements {
			q := queues.NewReliable(rec, name)
			_, err := q.Push(ctx, strconv.Itoa(i))
			require.NoError(t, err)
		}
		var (
			mu   sync.Mutex
			seen = map[string]int{}
			wg   sync.WaitGroup
			errs = make(chan error, consumers)
		)
		start := time.Now()
		for range consumers {
			q := queues.NewReliable(rec, name, queues.WithRateLimit(n, per)) // one "process" each
			wg.Go(func() {
				for {
					d, ok, err := q.Pop(ctx, 300*time.Millisecond)
					if err != nil {
						errs <- err
						return
					}
					if !ok {
						return
					}
					mu.Lock()
					seen[d.Payload]++
					mu.Unlock()
					if _, err := q.Ack(ctx, d); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		require.Len(t, seen, elements, "lost elements")
		for p, k := range seen {
			require.Equal(t, 1, k, "element %s delivered %d times", p, k)
		}
		require.Len(t, rec.times, elements)
		checkWindows(t, rec.times, n, per)
		// 80 at 10 per 50 ms: at least 7 windows must have passed.
		require.GreaterOrEqual(t, elapsed, 7*per)
	})
}
