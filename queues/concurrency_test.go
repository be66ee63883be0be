package queues_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

// workQueue is a queue type reduced to push and a blocking pop, for the concurrency
// tests.
type workQueue struct {
	push func(ctx context.Context, v string) error
	pop  func(ctx context.Context) (string, bool, error)
}

var workQueues = []struct {
	name string
	make func(b queues.Backend, name string) workQueue
}{
	{"fifo", func(b queues.Backend, name string) workQueue {
		q := queues.NewFIFO(b, name)
		return workQueue{
			push: func(ctx context.Context, v string) error { return q.Push(ctx, v) },
			pop:  func(ctx context.Context) (string, bool, error) { return q.Pop(ctx, 0) },
		}
	}},
	{"levels", func(b queues.Backend, name string) workQueue {
		q := queues.NewLevels(b, name, []string{"high", "mid", "low"})
		levels := []string{"high", "mid", "low"}
		return workQueue{
			push: func(ctx context.Context, v string) error { return q.Push(ctx, levels[rand.IntN(3)], v) },
			pop: func(ctx context.Context) (string, bool, error) {
				_, v, ok, err := q.Pop(ctx, 0)
				return v, ok, err
			},
		}
	}},
	{"priority", func(b queues.Backend, name string) workQueue {
		q := queues.NewPriority(b, name, queues.WithOrder(queues.HighestFirst))
		return workQueue{
			push: func(ctx context.Context, v string) error { return errOnly(q.Push(ctx, v, float64(rand.IntN(100000)))) },
			pop: func(ctx context.Context) (string, bool, error) {
				v, _, ok, err := q.Pop(ctx, 0)
				return v, ok, err
			},
		}
	}},
	{"callqueue", func(b queues.Backend, name string) workQueue {
		q := queues.NewCallQueue(b, name)
		return workQueue{
			push: func(ctx context.Context, v string) error { return q.Enqueue(ctx, v, float64(rand.IntN(3))) },
			pop: func(ctx context.Context) (string, bool, error) {
				c, ok, err := q.Dequeue(ctx, 0)
				return c.ID, ok, err
			},
		}
	}},
	{"delayed", func(b queues.Backend, name string) workQueue {
		q := queues.NewDelayed(b, name)
		return workQueue{
			push: func(ctx context.Context, v string) error { return errOnly(q.Schedule(ctx, v, time.Time{})) },
			pop: func(ctx context.Context) (string, bool, error) {
				j, ok, err := q.Pop(ctx, 0)
				return j.Payload, ok, err
			},
		}
	}},
	{"delayed-future", func(b queues.Backend, name string) workQueue {
		// Due within the next 3 ms: consumers sleep until due times and are re-armed.
		q := queues.NewDelayed(b, name)
		return workQueue{
			push: func(ctx context.Context, v string) error {
				return errOnly(q.Schedule(ctx, v, time.Now().Add(time.Duration(rand.IntN(3000))*time.Microsecond)))
			},
			pop: func(ctx context.Context) (string, bool, error) {
				j, ok, err := q.Pop(ctx, 0)
				return j.Payload, ok, err
			},
		}
	}},
	{"reliable", func(b queues.Backend, name string) workQueue {
		q := queues.NewReliable(b, name, queues.WithLease(time.Hour))
		return workQueue{
			push: func(ctx context.Context, v string) error { _, err := q.Push(ctx, v); return err },
			pop: func(ctx context.Context) (string, bool, error) {
				d, ok, err := q.Pop(ctx, 0)
				if !ok || err != nil {
					return "", ok, err
				}
				// Ack with a live context: the element was taken, so it must be finished.
				acked, err := q.Ack(context.WithoutCancel(ctx), d)
				if err == nil && !acked {
					err = fmt.Errorf("Ack(%v) found nothing", d)
				}
				return d.Payload, true, err
			},
		}
	}},
}

// TestConcurrentExactlyOnce: many producers and consumers, consumers' pops cancelled
// by short deadlines and by the producers at random moments; every element pushed
// is delivered exactly once — nothing lost to a cancellation, nothing duplicated.
func TestConcurrentExactlyOnce(t *testing.T) {
	producers, perProducer, consumers := 4, 250, 8
	if raceEnabled || testing.Short() {
		perProducer = 60
	}
	for _, wq := range workQueues {
		t.Run("queue="+wq.name, func(t *testing.T) {
			each(t, func(t *testing.T, b queues.Backend) {
				ctx := guard(t)
				q := wq.make(b, qname(t))
				total := producers * perProducer
				var got, cancelled atomic.Int64
				var mu sync.Mutex
				var delivered []string
				errs := make(chan error, producers+consumers)
				// Each consumer publishes the cancel function of its current pop, and
				// producers cancel a consumer's pop after each push, so cancellations
				// race with deliveries throughout, not only at the end.
				cancels := make([]atomic.Pointer[context.CancelFunc], consumers)
				var wg sync.WaitGroup
				for c := range consumers {
					wg.Go(func() {
						r := rand.New(rand.NewPCG(uint64(c), 1))
						for got.Load() < int64(total) && ctx.Err() == nil {
							cctx, cancel := context.WithTimeout(ctx, time.Duration(r.IntN(2000))*time.Microsecond)
							cancels[c].Store(&cancel)
							v, ok, err := q.pop(cctx)
							cancel()
							if ok {
								mu.Lock()
								delivered = append(delivered, v)
								mu.Unlock()
								got.Add(1)
							}
							if err != nil && cctx.Err() == nil {
								errs <- err
								return
							}
							if err != nil {
								cancelled.Add(1)
							}
						}
					})
				}
				for p := range producers {
					wg.Go(func() {
						for i := range perProducer {
							if err := q.push(ctx, fmt.Sprintf("p%d-%d", p, i)); err != nil {
								errs <- err
								return
							}
							if cancel := cancels[(p+i)%consumers].Load(); cancel != nil {
								(*cancel)()
							}
							runtime.Gosched() // let consumers drain the queue and block
						}
					})
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					require.NoError(t, err)
				}
				require.NoError(t, ctx.Err(), "deadlock guard: %d of %d delivered", got.Load(), total)
				var want []string
				for p := range producers {
					for i := range perProducer {
						want = append(want, fmt.Sprintf("p%d-%d", p, i))
					}
				}
				sort.Strings(want)
				sort.Strings(delivered)
				require.Equal(t, want, delivered)
				require.Positive(t, cancelled.Load(), "no pop was cancelled: the test did not test cancellation")
				t.Logf("%d pops ended by cancellation", cancelled.Load())
			})
		})
	}
}

// TestCancelledBlockingPopsTakeNothing: every blocking pop given a done context
// returns its error and leaves the element queued.
func TestCancelledBlockingPopsTakeNothing(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		done, cancel := context.WithCancel(ctx)
		cancel()
		name := qname(t)
		fifo := queues.NewFIFO(b, name+"-fifo")
		levels := queues.NewLevels(b, name+"-levels", []string{"a"})
		prio := queues.NewPriority(b, name+"-prio")
		calls := queues.NewCallQueue(b, name+"-calls")
		delayed := queues.NewDelayed(b, name+"-delayed")
		require.NoError(t, fifo.Push(ctx, "x"))
		require.NoError(t, levels.Push(ctx, "a", "x"))
		require.NoError(t, errOnly(prio.Push(ctx, "x", 1)))
		require.NoError(t, calls.Enqueue(ctx, "x", 1))
		require.NoError(t, errOnly(delayed.Schedule(ctx, "x", time.Time{})))
		pops := map[string]func() error{
			"fifo":      func() error { _, _, err := fifo.Pop(done, 0); return err },
			"levels":    func() error { _, _, _, err := levels.Pop(done, 0); return err },
			"priority":  func() error { _, _, _, err := prio.Pop(done, 0); return err },
			"callqueue": func() error { _, _, err := calls.Dequeue(done, 0); return err },
			"delayed":   func() error { _, _, err := delayed.Pop(done, 0); return err },
		}
		for name, pop := range pops {
			require.ErrorIs(t, pop(), context.Canceled, name)
		}
		for name, n := range map[string]func() (int64, error){
			"fifo": func() (int64, error) { return fifo.Len(ctx) }, "levels": func() (int64, error) { return levels.Len(ctx, "a") },
			"priority": func() (int64, error) { return prio.Len(ctx) }, "callqueue": func() (int64, error) { return calls.Len(ctx) },
			"delayed": func() (int64, error) { return delayed.Len(ctx) },
		} {
			got, err := n()
			require.NoError(t, err)
			require.EqualValues(t, 1, got, name)
		}
	})
}
