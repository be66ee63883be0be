package queues_test

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/zlite/zlite/queues"
)

// BenchmarkQueues measures, per queue type and backend:
//
//   - op=pushpop: one enqueue then one dequeue on one goroutine (throughput);
//   - op=handoff: a producer pushing while a consumer goroutine pops (pipelined
//     hand-off rate, ns per element);
//   - op=latency: from "element made available" (the producer's push call starts) to
//     "consumer has it", one element at a time, as p50/p99 metrics;
//   - op=lateness (queue=delayed): how long after its due time a delayed job reaches
//     a consumer sleeping in Pop, as p50/p99 metrics.
//
// Run: go test -run '^$' -bench . -benchtime 2000x ./queues/
func BenchmarkQueues(b *testing.B) {
	for _, bk := range backends {
		for _, wq := range workQueues {
			if wq.name == "delayed-future" {
				continue // timing is op=lateness
			}
			b.Run("op=pushpop/queue="+wq.name+"/impl="+bk.name, func(b *testing.B) {
				q := wq.make(bk.new(b), qname(b))
				ctx := context.Background()
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					i++
					if err := q.push(ctx, strconv.Itoa(i)); err != nil {
						b.Fatal(err)
					}
					if _, ok, err := q.pop(ctx); !ok || err != nil {
						b.Fatal(ok, err)
					}
				}
			})
		}
		b.Run("op=pushpop/queue=waitlist/impl="+bk.name, func(b *testing.B) {
			w := queues.NewWaitlist(bk.new(b), qname(b))
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				if err := w.Add(ctx, strconv.Itoa(i), 2); err != nil {
					b.Fatal(err)
				}
				if _, ok, err := w.Seat(ctx, 4, queues.Fits); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
		b.Run("op=pushpop/queue=scheduler/impl="+bk.name, func(b *testing.B) {
			s := queues.NewScheduler(bk.new(b), qname(b))
			work := s.Queue("q")
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.AddFutureJob(ctx, queues.FutureJob{Queue: "q", Func: "f"}, time.Time{}); err != nil {
					b.Fatal(err)
				}
				if moved, err := s.Step(ctx); len(moved) != 1 || err != nil {
					b.Fatal(moved, err)
				}
				if _, ok, err := work.Pop(ctx, 0); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
		for _, wq := range workQueues {
			if wq.name == "delayed-future" {
				continue
			}
			b.Run("op=handoff/queue="+wq.name+"/impl="+bk.name, func(b *testing.B) {
				benchHandoff(b, wq.make(bk.new(b), qname(b)))
			})
		}
		for _, wq := range workQueues {
			if wq.name == "delayed-future" {
				continue
			}
			b.Run("op=latency/queue="+wq.name+"/impl="+bk.name, func(b *testing.B) {
				benchLatency(b, wq.make(bk.new(b), qname(b)))
			})
		}
		b.Run("op=lateness/queue=delayed/impl="+bk.name, func(b *testing.B) {
			benchLateness(b, queues.NewDelayed(bk.new(b), qname(b)))
		})
	}
}

// benchHandoff pushes b.N elements while one consumer goroutine pops them; the time
// is until the consumer has the last one.
func benchHandoff(b *testing.B, q workQueue) {
	ctx := context.Background()
	b.ReportAllocs()
	done := make(chan error, 1)
	n := b.N
	b.ResetTimer()
	go func() {
		for range n {
			if _, ok, err := q.pop(ctx); !ok || err != nil {
				done <- fmt.Errorf("pop: %v %v", ok, err)
				return
			}
		}
		done <- nil
	}()
	for i := range n {
		if err := q.push(ctx, strconv.Itoa(i)); err != nil {
			b.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

// benchLatency hands one element at a time to a consumer blocked in pop and records
// the time from the start of the push to the consumer's receipt. (From the end of
// the push would be negative on Redis, where the consumer's reply can arrive first.)
func benchLatency(b *testing.B, q workQueue) {
	ctx := context.Background()
	got := make(chan time.Time)
	errc := make(chan error, 1)
	stop := make(chan struct{})
	go func() {
		for {
			v, ok, err := q.pop(ctx)
			if err != nil || !ok {
				errc <- fmt.Errorf("pop: %v %v", ok, err)
				return
			}
			if v == "stop" {
				close(stop)
				return
			}
			got <- time.Now()
		}
	}()
	var lat []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if err := q.push(ctx, "x"); err != nil {
			b.Fatal(err)
		}
		select {
		case t1 := <-got:
			lat = append(lat, t1.Sub(t0))
		case err := <-errc:
			b.Fatal(err)
		}
	}
	if err := q.push(ctx, "stop"); err != nil {
		b.Fatal(err)
	}
	<-stop
	reportPercentiles(b, lat, "ns")
}

// benchLateness schedules one job at a time 2 ms ahead for a consumer sleeping in Pop
// and records how late after its due time the consumer got it.
func benchLateness(b *testing.B, q *queues.Delayed) {
	ctx := context.Background()
	got := make(chan time.Duration)
	errc := make(chan error, 1)
	go func() {
		for {
			j, ok, err := q.Pop(ctx, 0)
			now := time.Now()
			if err != nil || !ok {
				errc <- fmt.Errorf("pop: %v %v", ok, err)
				return
			}
			if j.Payload == "stop" {
				close(got)
				return
			}
			got <- now.Sub(j.Due)
		}
	}()
	var lat []time.Duration
	for b.Loop() {
		if _, err := q.Schedule(ctx, "x", time.Now().Add(2*time.Millisecond)); err != nil {
			b.Fatal(err)
		}
		select {
		case d := <-got:
			lat = append(lat, d)
		case err := <-errc:
			b.Fatal(err)
		}
	}
	if _, err := q.Schedule(ctx, "stop", time.Time{}); err != nil {
		b.Fatal(err)
	}
	for range got {
	}
	reportPercentiles(b, lat, "ns")
}

func reportPercentiles(b *testing.B, d []time.Duration, unit string) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	at := func(p float64) float64 { return float64(d[min(len(d)-1, int(p*float64(len(d))))].Nanoseconds()) }
	b.ReportMetric(at(0.50), "p50-"+unit)
	b.ReportMetric(at(0.99), "p99-"+unit)
}

// BenchmarkQueueMemory adds one element (a 16-byte payload) per iteration to one
// queue of each type and reports the memory the elements take: the Go heap's growth
// after GC on the embedded backend, the growth of used_memory on Redis (a server no
// other test is using), divided by the number of elements added.
//
// Run: go test -run '^$' -bench BenchmarkQueueMemory -benchtime 20000x ./queues/
func BenchmarkQueueMemory(b *testing.B) {
	fills := []struct {
		name string
		fill func(ctx context.Context, bk queues.Backend, name string) func(i int) error
	}{
		{"fifo", func(ctx context.Context, bk queues.Backend, name string) func(int) error {
			q := queues.NewFIFO(bk, name)
			return func(i int) error { return q.Push(ctx, payload(i)) }
		}},
		{"priority", func(ctx context.Context, bk queues.Backend, name string) func(int) error {
			q := queues.NewPriority(bk, name)
			return func(i int) error { return errOnly(q.Push(ctx, payload(i), float64(i%100))) }
		}},
		{"callqueue", func(ctx context.Context, bk queues.Backend, name string) func(int) error {
			q := queues.NewCallQueue(bk, name)
			return func(i int) error { return q.Enqueue(ctx, payload(i), float64(i%3)) }
		}},
		{"delayed", func(ctx context.Context, bk queues.Backend, name string) func(int) error {
			q := queues.NewDelayed(bk, name)
			at := time.Now().Add(time.Hour)
			return func(i int) error { return errOnly(q.Schedule(ctx, payload(i), at.Add(time.Duration(i)))) }
		}},
		{"reliable", func(ctx context.Context, bk queues.Backend, name string) func(int) error {
			q := queues.NewReliable(bk, name)
			return func(i int) error { _, err := q.Push(ctx, payload(i)); return err }
		}},
		{"waitlist", func(ctx context.Context, bk queues.Backend, name string) func(int) error {
			q := queues.NewWaitlist(bk, name)
			return func(i int) error { return q.Add(ctx, payload(i), int64(1+i%6)) }
		}},
	}
	for _, bk := range backends {
		for _, f := range fills {
			b.Run("op=fill/queue="+f.name+"/impl="+bk.name, func(b *testing.B) {
				add := f.fill(context.Background(), bk.new(b), qname(b))
				measure := memoryMeter(b, bk.name)
				before := measure()
				i := 0
				for b.Loop() {
					if err := add(i); err != nil {
						b.Fatal(err)
					}
					i++
				}
				b.ReportMetric(float64(measure()-before)/float64(i), "B/elem")
				runtime.KeepAlive(add) // the queue's keyspace must outlive the measurement
			})
		}
	}
}

func payload(i int) string { return fmt.Sprintf("job-%012d", i) }

// BenchmarkStatsOverhead measures what Stats' in-process counters cost on the FIFO
// hand-off (a producer pushing while a consumer pops) and on push+pop in one
// goroutine. The machine may be busy, so the two variants run interleaved in one
// benchmark, in alternating blocks of statsBlock elements, and each reports its own
// time per element (on-ns/elem, off-ns/elem) and the ratio (on/off); load drift hits
// both alike.
//
// Run: go test -run '^$' -bench BenchmarkStatsOverhead -benchtime 200ms -count 3 ./queues/
func BenchmarkStatsOverhead(b *testing.B) {
	fifo := func(bk queues.Backend, name string, on bool) workQueue {
		q := queues.NewFIFO(bk, name, queues.WithStats(on))
		return workQueue{
			push: func(ctx context.Context, v string) error { return q.Push(ctx, v) },
			pop:  func(ctx context.Context) (string, bool, error) { return q.Pop(ctx, 0) },
		}
	}
	for _, bk := range backends {
		b.Run("op=handoff/queue=fifo/impl="+bk.name, func(b *testing.B) {
			be := bk.new(b)
			benchAB(b, fifo(be, qname(b), true), fifo(be, qname(b), false), true)
		})
		b.Run("op=pushpop/queue=fifo/impl="+bk.name, func(b *testing.B) {
			be := bk.new(b)
			benchAB(b, fifo(be, qname(b), true), fifo(be, qname(b), false), false)
		})
	}
}

const statsBlock = 64

// benchAB moves b.N elements through queues on and off in alternating blocks of
// statsBlock, through a consumer goroutine (handoff) or on this goroutine, timing
// each block, and reports the time per element of each queue and their ratio.
func benchAB(b *testing.B, on, off workQueue, handoff bool) {
	ctx := context.Background()
	qs := [2]workQueue{on, off}
	var spent [2]time.Duration
	var moved [2]int
	blocks := (b.N + statsBlock - 1) / statsBlock
	consumed := make(chan error)
	if handoff {
		go func() {
			for blk := range blocks {
				q := qs[blk%2]
				var err error
				for range statsBlock {
					if _, ok, e := q.pop(ctx); !ok || e != nil {
						err = fmt.Errorf("pop: %v %v", ok, e)
						break
					}
				}
				consumed <- err
			}
		}()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for blk := range blocks {
		q := qs[blk%2]
		t0 := time.Now()
		for i := range statsBlock {
			if err := q.push(ctx, strconv.Itoa(i)); err != nil {
				b.Fatal(err)
			}
			if !handoff {
				if _, ok, err := q.pop(ctx); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		}
		if handoff {
			if err := <-consumed; err != nil {
				b.Fatal(err)
			}
		}
		spent[blk%2] += time.Since(t0)
		moved[blk%2] += statsBlock
	}
	b.StopTimer()
	if moved[1] == 0 {
		return // one block: nothing to compare
	}
	onNs, offNs := float64(spent[0])/float64(moved[0]), float64(spent[1])/float64(moved[1])
	b.ReportMetric(onNs, "on-ns/elem")
	b.ReportMetric(offNs, "off-ns/elem")
	b.ReportMetric(onNs/offNs, "on/off")
}

// BenchmarkReliableFeatures measures one enqueue→dequeue→ack cycle of a [Reliable]
// queue on one goroutine with each feature on, so that the features' cost is seen
// side by side (benchstat -col /features): features=off, retry (a backoff policy:
// Pop runs the prepare step), ratelimit (a limit never reached), unique (every push
// takes a uniqueness lock, released by the Ack), all, and group (every element in
// one group under a limit never reached, [queues.WithGroupRateLimit]; the group
// has nothing waiting at each push). It reports the cycle's p50/p99 latency.
//
// Run: go test -run '^$' -bench BenchmarkReliableFeatures -benchtime 2000x ./queues/
func BenchmarkReliableFeatures(b *testing.B) {
	retry := queues.WithRetry(queues.RetryPolicy{Base: time.Second})
	rate := queues.WithRateLimit(1<<40, time.Second)
	features := []struct {
		name          string
		opts          []queues.Option
		unique, group bool
	}{
		{"off", nil, false, false},
		{"retry", []queues.Option{retry}, false, false},
		{"ratelimit", []queues.Option{rate}, false, false},
		{"unique", nil, true, false},
		{"all", []queues.Option{retry, rate}, true, false},
		{"group", []queues.Option{queues.WithGroupRateLimit(1<<40, time.Second)}, false, true},
	}
	for _, f := range features {
		for _, bk := range backends {
			b.Run("features="+f.name+"/impl="+bk.name, func(b *testing.B) {
				q := queues.NewReliable(bk.new(b), qname(b), f.opts...)
				ctx := context.Background()
				var lat []time.Duration
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					i++
					p := strconv.Itoa(i)
					var opts []queues.PushOption
					if f.unique {
						opts = append(opts, queues.Unique(p, time.Minute))
					}
					if f.group {
						opts = append(opts, queues.Group("g"))
					}
					start := time.Now()
					if _, err := q.Push(ctx, p, opts...); err != nil {
						b.Fatal(err)
					}
					d, ok, err := q.Pop(ctx, time.Second)
					if !ok || err != nil {
						b.Fatal(ok, err)
					}
					if ok, err := q.Ack(ctx, d); !ok || err != nil {
						b.Fatal(ok, err)
					}
					lat = append(lat, time.Since(start))
				}
				reportPercentiles(b, lat, "ns")
			})
		}
	}
}

// BenchmarkRateLimit runs four consumers of a queue limited to 200 deliveries per
// 100 ms for 10 s of real time per iteration, the queue filled beforehand, and
// reports the observed delivery rate over the limit ("rate/limit", 1 at
// best; never above 1 by the sliding-window guarantee).
//
// Run: go test -run '^$' -bench BenchmarkRateLimit -benchtime 1x ./queues/
func BenchmarkRateLimit(b *testing.B) {
	const (
		n, per    = 200, 100 * time.Millisecond
		run       = 10 * time.Second
		consumers = 4
	)
	limit := float64(n) / per.Seconds()
	for _, bk := range backends {
		b.Run("impl="+bk.name, func(b *testing.B) {
			be := bk.new(b)
			var delivered, elapsed float64
			for b.Loop() {
				name := qname(b)
				// The whole run's elements, and a tenth more, wait before it starts,
				// so that the producer's speed is not what is measured.
				prod := queues.NewReliable(be, name)
				for range int(limit*run.Seconds()*1.1) + 1 {
					if _, err := prod.Push(context.Background(), "job"); err != nil {
						b.Fatal(err)
					}
				}
				var mu sync.Mutex
				k := 0
				elapsed += consumeFor(run, consumers, per, func() *queues.Reliable {
					return queues.NewReliable(be, name, queues.WithRateLimit(n, per))
				}, func(queues.Delivery) { mu.Lock(); k++; mu.Unlock() })
				delivered += float64(k)
			}
			b.ReportMetric(delivered/elapsed/limit, "rate/limit")
		})
	}
}

// BenchmarkGroupRateLimit is [BenchmarkRateLimit] for [queues.WithGroupRateLimit]:
// three groups, each limited to 100 deliveries per 100 ms, their elements waiting
// before the 10 s start, four consumers. It reports the slowest group's observed
// rate over its limit ("rate/limit").
//
// Run: go test -run '^$' -bench BenchmarkGroupRateLimit -benchtime 1x ./queues/
func BenchmarkGroupRateLimit(b *testing.B) {
	const (
		n, per    = 100, 100 * time.Millisecond
		run       = 10 * time.Second
		consumers = 4
	)
	groups := []string{"a", "b", "c"}
	limit := float64(n) / per.Seconds()
	for _, bk := range backends {
		b.Run("impl="+bk.name, func(b *testing.B) {
			be := bk.new(b)
			slowest := math.Inf(1)
			for b.Loop() {
				name := qname(b)
				prod := queues.NewReliable(be, name, queues.WithGroupRateLimit(n, per))
				for range int(limit*run.Seconds()*1.1) + 1 {
					for _, g := range groups {
						if _, err := prod.Push(context.Background(), g, queues.Group(g)); err != nil {
							b.Fatal(err)
						}
					}
				}
				var mu sync.Mutex
				counts := map[string]int{}
				elapsed := consumeFor(run, consumers, per, func() *queues.Reliable {
					return queues.NewReliable(be, name, queues.WithGroupRateLimit(n, per))
				}, func(d queues.Delivery) { mu.Lock(); counts[d.Payload]++; mu.Unlock() })
				for _, g := range groups {
					slowest = min(slowest, float64(counts[g])/elapsed/limit)
				}
			}
			b.ReportMetric(slowest, "rate/limit")
		})
	}
}

// BenchmarkManyQueues is the shape of many small queues in one keyspace: 2000
// queues of each type, each holding 4 elements (16-byte payloads), then per
// iteration one push and one pop on the next queue in turn, so that successive
// operations touch different keys. It reports the memory each queue's elements
// take (B/queue, measured as in [BenchmarkQueueMemory] after the fill, the queue
// values made beforehand) and the time of a push+pop (ns/op).
//
// Run: go test -run '^$' -bench BenchmarkManyQueues -benchtime 20000x ./queues/
func BenchmarkManyQueues(b *testing.B) {
	const queuesN, depth = 2000, 4
	for _, bk := range backends {
		for _, wq := range workQueues {
			if wq.name == "delayed-future" {
				continue // its elements are not due: nothing to pop
			}
			b.Run("queue="+wq.name+"/impl="+bk.name, func(b *testing.B) {
				be := bk.new(b)
				ctx := context.Background()
				name := qname(b)
				qs := make([]workQueue, queuesN)
				for i := range qs {
					qs[i] = wq.make(be, name+":"+strconv.Itoa(i))
				}
				measure := memoryMeter(b, bk.name)
				before := measure()
				for i, q := range qs {
					for j := range depth {
						if err := q.push(ctx, payload(i*depth+j)); err != nil {
							b.Fatal(err)
						}
					}
				}
				perQueue := float64(measure()-before) / queuesN
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					q := qs[i%queuesN]
					i++
					if err := q.push(ctx, payload(queuesN*depth+i)); err != nil {
						b.Fatal(err)
					}
					if _, ok, err := q.pop(ctx); !ok || err != nil {
						b.Fatal(ok, err)
					}
				}
				b.ReportMetric(perQueue, "B/queue") // after the loop, which resets the metrics
				runtime.KeepAlive(qs)
			})
		}
	}
}

// consumeFor runs consumers goroutines, each popping (with a timeout of per) and
// acking from its own queue value made by newQ, for run of real time, calling got
// with each delivery, and returns the seconds they ran.
func consumeFor(run time.Duration, consumers int, per time.Duration, newQ func() *queues.Reliable, got func(queues.Delivery)) float64 {
	ctx, cancel := context.WithTimeout(context.Background(), run)
	defer cancel()
	var wg sync.WaitGroup
	start := time.Now()
	for range consumers {
		q := newQ()
		wg.Go(func() {
			for ctx.Err() == nil {
				d, ok, err := q.Pop(ctx, per)
				if err != nil || !ok {
					continue
				}
				got(d)
				q.Ack(context.WithoutCancel(ctx), d)
			}
		})
	}
	wg.Wait()
	return time.Since(start).Seconds()
}
