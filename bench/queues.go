package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/zlite/zlite/queues"
)

// queueParts are the key suffixes the queue types use ("{name}:part"), deleted after
// each measurement.
var queueParts = []string{"items", "meta", "level:high", "level:low", "seats", "arrival",
	"calls", "since", "ids", "ready", "due", "wake", "jobs", "queue:q", "processing", "leases"}

// lateness is how far in the future the delayed queue and the scheduler's jobs are
// due in the lateness workloads.
const lateness = 2 * time.Millisecond

// queueOp is one queue type's workloads: a single client's enqueue+dequeue pairs,
// and (when open is set) a hand-off through the queue from a producer to a blocked
// consumer.
type queueOp struct {
	id, title string
	pairTitle string // the commands of one pair, e.g. "Push+Pop"
	// pair enqueues and dequeues one element; i is unique within a measurement.
	pair func(ctx context.Context, q any, i int) error
	// make returns the queue called name on b.
	make func(b queues.Backend, name string) any
	// channel returns the hand-off channel through q; nil when the type has no
	// blocking consumer.
	channel func(ctx context.Context, q any) *channel
	// late says the hand-off measures lateness after the due time.
	late bool
}

func notEmpty(ok bool, err error) error {
	if err == nil && !ok {
		return errEmpty
	}
	return err
}

var queueOps = []queueOp{
	{id: "fifo", title: "FIFO", pairTitle: "Push+Pop",
		make: func(b queues.Backend, name string) any { return queues.NewFIFO(b, name) },
		pair: func(ctx context.Context, q any, i int) error {
			f := q.(*queues.FIFO)
			if err := f.Push(ctx, "v"); err != nil {
				return err
			}
			_, ok, err := f.Pop(ctx, time.Second)
			return notEmpty(ok, err)
		},
		channel: func(ctx context.Context, q any) *channel {
			f := q.(*queues.FIFO)
			return &channel{
				push: func(v string, _ time.Time) error { return f.Push(ctx, v) },
				pop: func() (string, func() error, bool, error) {
					v, ok, err := f.Pop(ctx, stallTimeout)
					return v, nil, ok, err
				},
			}
		}},
	{id: "levels", title: "Levels (2 levels)", pairTitle: "Push+Pop",
		make: func(b queues.Backend, name string) any { return queues.NewLevels(b, name, []string{"high", "low"}) },
		pair: func(ctx context.Context, q any, i int) error {
			l := q.(*queues.Levels)
			if err := l.Push(ctx, []string{"high", "low"}[i%2], "v"); err != nil {
				return err
			}
			_, _, ok, err := l.Pop(ctx, time.Second)
			return notEmpty(ok, err)
		},
		channel: func(ctx context.Context, q any) *channel {
			l := q.(*queues.Levels)
			return &channel{
				push: func(v string, _ time.Time) error { return l.Push(ctx, "low", v) },
				pop: func() (string, func() error, bool, error) {
					_, v, ok, err := l.Pop(ctx, stallTimeout)
					return v, nil, ok, err
				},
			}
		}},
	{id: "priority", title: "Priority", pairTitle: "Push+Pop",
		make: func(b queues.Backend, name string) any { return queues.NewPriority(b, name) },
		pair: func(ctx context.Context, q any, i int) error {
			p := q.(*queues.Priority)
			if _, err := p.Push(ctx, "v", float64(i%100)); err != nil {
				return err
			}
			_, _, ok, err := p.Pop(ctx, time.Second)
			return notEmpty(ok, err)
		},
		channel: func(ctx context.Context, q any) *channel {
			p := q.(*queues.Priority)
			return &channel{
				push: func(v string, _ time.Time) error { _, err := p.Push(ctx, v, 1); return err },
				pop: func() (string, func() error, bool, error) {
					v, _, ok, err := p.Pop(ctx, stallTimeout)
					return v, nil, ok, err
				},
			}
		}},
	{id: "waitlist", title: "Waitlist", pairTitle: "Add+Seat",
		make: func(b queues.Backend, name string) any { return queues.NewWaitlist(b, name) },
		pair: func(ctx context.Context, q any, i int) error {
			w := q.(*queues.Waitlist)
			if err := w.Add(ctx, "party"+strconv.Itoa(i), int64(2+i%3)); err != nil {
				return err
			}
			_, ok, err := w.Seat(ctx, 4, queues.Fits)
			return notEmpty(ok, err)
		}},
	{id: "callqueue", title: "CallQueue", pairTitle: "Enqueue+Dequeue",
		make: func(b queues.Backend, name string) any { return queues.NewCallQueue(b, name) },
		pair: func(ctx context.Context, q any, i int) error {
			c := q.(*queues.CallQueue)
			if err := c.Enqueue(ctx, "call"+strconv.Itoa(i), float64(i%10)); err != nil {
				return err
			}
			_, ok, err := c.Dequeue(ctx, time.Second)
			return notEmpty(ok, err)
		},
		channel: func(ctx context.Context, q any) *channel {
			c := q.(*queues.CallQueue)
			return &channel{
				push: func(v string, _ time.Time) error { return c.Enqueue(ctx, v, 1) },
				pop: func() (string, func() error, bool, error) {
					call, ok, err := c.Dequeue(ctx, stallTimeout)
					return call.ID, nil, ok, err
				},
			}
		}},
	{id: "reliable", title: "Reliable", pairTitle: "Push+Pop+Ack",
		make: func(b queues.Backend, name string) any {
			return queues.NewReliable(b, name, queues.WithLease(time.Minute))
		},
		pair: func(ctx context.Context, q any, i int) error {
			r := q.(*queues.Reliable)
			if _, err := r.Push(ctx, "v"); err != nil {
				return err
			}
			d, ok, err := r.Pop(ctx, time.Second)
			if err := notEmpty(ok, err); err != nil {
				return err
			}
			acked, err := r.Ack(ctx, d)
			return notEmpty(acked, err)
		},
		channel: func(ctx context.Context, q any) *channel {
			r := q.(*queues.Reliable)
			return &channel{
				push: func(v string, _ time.Time) error { _, err := r.Push(ctx, v); return err },
				pop: func() (string, func() error, bool, error) {
					d, ok, err := r.Pop(ctx, stallTimeout)
					return d.Payload, func() error {
						acked, err := r.Ack(ctx, d)
						return notEmpty(acked, err)
					}, ok, err
				},
			}
		}},
	{id: "delayed", title: "Delayed", pairTitle: "Schedule+Pop", late: true,
		make: func(b queues.Backend, name string) any { return queues.NewDelayed(b, name) },
		pair: func(ctx context.Context, q any, i int) error {
			d := q.(*queues.Delayed)
			if _, err := d.Schedule(ctx, "v", time.Now()); err != nil {
				return err
			}
			_, ok, err := d.Pop(ctx, time.Second)
			return notEmpty(ok, err)
		},
		channel: func(ctx context.Context, q any) *channel {
			d := q.(*queues.Delayed)
			return &channel{
				delay: lateness,
				push:  func(v string, due time.Time) error { _, err := d.Schedule(ctx, v, due); return err },
				pop: func() (string, func() error, bool, error) {
					j, ok, err := d.Pop(ctx, stallTimeout)
					return j.Payload, nil, ok, err
				},
			}
		}},
	{id: "scheduler", title: "Scheduler", pairTitle: "AddFutureJob+Step+Pop", late: true,
		make: func(b queues.Backend, name string) any { return queues.NewScheduler(b, name) },
		pair: func(ctx context.Context, q any, i int) error {
			s := q.(*queues.Scheduler)
			if _, err := s.AddFutureJob(ctx, queues.FutureJob{Queue: "q", Func: "f"}, time.Now()); err != nil {
				return err
			}
			if _, err := s.Step(ctx); err != nil {
				return err
			}
			_, ok, err := s.Queue("q").Pop(ctx, time.Second)
			return notEmpty(ok, err)
		},
		channel: func(ctx context.Context, q any) *channel {
			s := q.(*queues.Scheduler)
			mover, stop := context.WithCancel(ctx)
			moved := make(chan error, 1)
			go func() { moved <- s.Run(mover, nil) }()
			work := s.Queue("q")
			return &channel{
				delay: lateness,
				push: func(v string, due time.Time) error {
					_, err := s.AddFutureJob(ctx, queues.FutureJob{Queue: "q", Func: v}, due)
					return err
				},
				pop: func() (string, func() error, bool, error) {
					v, ok, err := work.Pop(ctx, stallTimeout)
					if !ok || err != nil {
						return "", nil, ok, err
					}
					var j queues.FutureJob
					if err := json.Unmarshal([]byte(v), &j); err != nil {
						return "", nil, false, fmt.Errorf("bench: scheduler job %q: %w", v, err)
					}
					return j.Func, nil, true, nil
				},
				close: func() error {
					stop()
					if err := <-moved; !errors.Is(err, context.Canceled) {
						return err
					}
					return nil
				},
			}
		}},
}

// queueRun numbers the queues of a process, so that no two measurements share keys.
var queueRun atomic.Int64

func runQueues(ctx context.Context, cfg *Config, r *Report) error {
	for _, op := range queueOps {
		tput := Row{Group: "queues", Workload: op.title + " " + op.pairTitle, ID: "queue-" + op.id, Metric: OpsPerSec, Values: map[string]float64{}}
		what := "push→blocked pop"
		if op.late {
			what = "due→pop lateness"
		}
		p50 := Row{Group: "queues", Workload: op.title + " " + what, ID: "queue-" + op.id + "-handoff", Metric: LatencyP50, Values: map[string]float64{}}
		p99 := p50
		p99.Metric, p99.Values = LatencyP99, map[string]float64{}
		var systems []System
		pairs := map[string]func(time.Duration) (float64, error){}
		var cleanups []func() error
		for _, s := range cfg.Systems {
			if b := s.QueueBackend(); b != nil {
				systems = append(systems, s)
				run, cleanup := queuePairs(ctx, op, s, b)
				pairs[s.Name()] = run
				cleanups = append(cleanups, cleanup)
				if _, err := run(cfg.Duration / 4); err != nil { // warm-up, untimed
					return fmt.Errorf("queue %s %s: %w", op.id, s.Name(), err)
				}
			}
		}
		res := map[string][]float64{}
		err := interleaved(cfg, systems, func(s System) error {
			runtime.GC() // no system pays for the garbage of the one measured before it
			v, err := pairs[s.Name()](cfg.Duration)
			res[s.Name()] = append(res[s.Name()], v)
			return err
		})
		for _, c := range cleanups {
			err = errors.Join(err, c())
		}
		if err != nil {
			return fmt.Errorf("queue %s %w", op.id, err)
		}
		for _, s := range systems {
			tput.set(s.Name(), res[s.Name()])
			cfg.progress("%-20s %-10s %s", "queue-"+op.id, s.Name(), formatValue(OpsPerSec, tput.Values[s.Name()]))
		}
		if op.channel != nil {
			lat := map[string][]handoffResult{}
			err := interleaved(cfg, systems, func(s System) error {
				q, cleanup := newQueue(ctx, op, s, s.QueueBackend())
				ch := op.channel(ctx, q)
				inner := ch.close
				ch.close = func() error {
					var err error
					if inner != nil {
						err = inner()
					}
					return errors.Join(err, cleanup())
				}
				h, err := handoff(ctx, ch, 1, 1, cfg.MinSamples, cfg.Duration/4, cfg.Duration)
				lat[s.Name()] = append(lat[s.Name()], h)
				return err
			})
			if err != nil {
				return fmt.Errorf("queue %s hand-off %w", op.id, err)
			}
			for _, s := range systems {
				hs := lat[s.Name()]
				p50.set(s.Name(), pick(hs, func(h handoffResult) float64 { return h.p50 }))
				p99.set(s.Name(), pick(hs, func(h handoffResult) float64 { return h.p99 }))
				cfg.progress("%-20s %-10s p50 %s, p99 %s", "queue-"+op.id+"-handoff", s.Name(),
					formatValue(LatencyP50, p50.Values[s.Name()]), formatValue(LatencyP99, p99.Values[s.Name()]))
			}
		}
		cfg.bar.finished()
		r.Rows = append(r.Rows, tput)
		if op.channel != nil {
			r.Rows = append(r.Rows, p50, p99)
		}
	}
	return nil
}

// newQueue returns a fresh queue of op's type on b and the function deleting its keys.
func newQueue(ctx context.Context, op queueOp, s System, b queues.Backend) (any, func() error) {
	name := fmt.Sprintf("bench:%s:%s:%d", s.Name(), op.id, queueRun.Add(1))
	keys := make([]string, len(queueParts))
	for i, p := range queueParts {
		keys[i] = "{" + name + "}:" + p
	}
	return op.make(b, name), func() error { return s.Del(ctx, keys...) }
}

// queuePairs returns a function that runs enqueue+dequeue pairs of op on a fresh
// queue on b for at least dur of work and returns pairs per second, and the function
// deleting the queue's keys.
func queuePairs(ctx context.Context, op queueOp, s System, b queues.Backend) (func(time.Duration) (float64, error), func() error) {
	q, cleanup := newQueue(ctx, op, s, b)
	i := 0
	return func(dur time.Duration) (float64, error) {
		var spent time.Duration
		ops, k := 0, 1
		for spent < dur {
			start := time.Now()
			for range k {
				if err := op.pair(ctx, q, i); err != nil {
					return 0, err
				}
				i++
			}
			t := time.Since(start)
			ops += k
			spent += t
			if t < dur/20 {
				k *= 2
			}
		}
		return float64(ops) / spent.Seconds(), nil
	}, cleanup
}
