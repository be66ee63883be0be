package queues_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
)

// The timing tests run on the embedded backend inside a synctest bubble: time.Now
// and the keyspace's timers use the bubble's fake clock, which jumps to the next
// timer once every goroutine is blocked, so due times are checked exactly, with no
// real sleeping. (Goroutines blocked on network I/O are not durably blocked, so the
// Redis backend cannot run in a bubble.)

// countingBackend counts compound steps, to show that waiting is not polling.
type countingBackend struct {
	queues.Backend
	evals atomic.Int64
}

func (c *countingBackend) Eval(ctx context.Context, s *queues.Script, keys []string, args ...string) (any, error) {
	c.evals.Add(1)
	return c.Backend.Eval(ctx, s, keys, args...)
}

type arrival struct {
	payload string
	at      time.Time
}

func TestDelayedWakesExactlyAtDueTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		b := &countingBackend{Backend: embedded.New(zlite.New())}
		q := queues.NewDelayed(b, "d")
		start := time.Now()
		got := make(chan arrival)
		exited := make(chan struct{})
		for range 2 { // two consumers: the watch is handed from one to the other
			go func() {
				defer func() { exited <- struct{}{} }()
				for {
					j, ok, err := q.Pop(ctx, 0)
					if err != nil || !ok {
						return
					}
					got <- arrival{j.Payload, time.Now()}
				}
			}()
		}
		require.NoError(t, errOnly(q.Schedule(ctx, "in1h", start.Add(time.Hour))))
		synctest.Wait() // both consumers sleep until start+1h
		// An earlier job re-arms a sleeper; jobs due at the same instant go to both.
		require.NoError(t, errOnly(q.Schedule(ctx, "in1m", start.Add(time.Minute))))
		require.NoError(t, errOnly(q.Schedule(ctx, "in1h-2", start.Add(time.Hour))))
		synctest.Wait()
		before := b.evals.Load()
		require.Equal(t, arrival{"in1m", start.Add(time.Minute)}, <-got)
		// The two consumers take the two jobs due at start+1h at the same instant, so
		// the order in which they report them is theirs to race for.
		require.ElementsMatch(t, []arrival{{"in1h", start.Add(time.Hour)}, {"in1h-2", start.Add(time.Hour)}},
			[]arrival{<-got, <-got})
		// Waiting an hour took a handful of steps, not a polling loop.
		require.LessOrEqual(t, b.evals.Load()-before, int64(12))
		synctest.Wait()
		n, err := q.Len(ctx)
		require.NoError(t, err)
		require.Zero(t, n)
		cancel()
		<-exited
		<-exited
	})
}

func TestSchedulerRunMovesAtDueTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		s := queues.NewScheduler(embedded.New(zlite.New()), "s")
		start := time.Now()
		got := make(chan arrival, 4)
		done := make(chan error)
		go func() {
			done <- s.Run(ctx, func(js []queues.FutureJob) {
				for _, j := range js {
					got <- arrival{j.Func, time.Now()}
				}
			})
		}()
		require.NoError(t, errOnly(s.AddFutureJob(ctx, queues.FutureJob{Queue: "q", Func: "b"}, start.Add(30*time.Second))))
		require.NoError(t, errOnly(s.AddFutureJob(ctx, queues.FutureJob{Queue: "q", Func: "a"}, start.Add(10*time.Second))))
		require.Equal(t, arrival{"a", start.Add(10 * time.Second)}, <-got)
		require.Equal(t, arrival{"b", start.Add(30 * time.Second)}, <-got)
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
		n, err := s.Queue("q").Len(context.Background())
		require.NoError(t, err)
		require.EqualValues(t, 2, n)
	})
}

// TestBlockingTimeouts: every blocking pop gives up exactly at its timeout.
func TestBlockingTimeouts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		b := embedded.New(zlite.New())
		pops := map[string]func() (bool, error){
			"fifo": func() (bool, error) { _, ok, err := queues.NewFIFO(b, "f").Pop(ctx, 3*time.Second); return ok, err },
			"levels": func() (bool, error) {
				_, _, ok, err := queues.NewLevels(b, "l", []string{"a", "b"}).Pop(ctx, 3*time.Second)
				return ok, err
			},
			"priority": func() (bool, error) {
				_, _, ok, err := queues.NewPriority(b, "p").Pop(ctx, 3*time.Second)
				return ok, err
			},
			"callqueue": func() (bool, error) {
				_, ok, err := queues.NewCallQueue(b, "c").Dequeue(ctx, 3*time.Second)
				return ok, err
			},
			"delayed": func() (bool, error) {
				q := queues.NewDelayed(b, "d")
				if _, err := q.Schedule(ctx, "later", time.Now().Add(time.Hour)); err != nil {
					return false, err
				}
				_, ok, err := q.Pop(ctx, 3*time.Second)
				return ok, err
			},
			"reliable": func() (bool, error) {
				_, ok, err := queues.NewReliable(b, "r").Pop(ctx, 3*time.Second)
				return ok, err
			},
		}
		for name, pop := range pops {
			start := time.Now()
			ok, err := pop()
			require.NoError(t, err, name)
			require.False(t, ok, name)
			require.Equal(t, 3*time.Second, time.Since(start), name)
		}
	})
}
