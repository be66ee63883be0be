package queues_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
)

// A FIFO work queue: LPUSH to produce, BRPOP to consume.
func ExampleFIFO() {
	ctx := context.Background()
	q := queues.NewFIFO(embedded.New(zlite.New()), "mail")
	q.Push(ctx, "welcome@example.com", "reset@example.com")
	for {
		v, ok, _ := q.Pop(ctx, 10*time.Millisecond)
		if !ok {
			break
		}
		fmt.Println(v)
	}
	// Output:
	// welcome@example.com
	// reset@example.com
}

// Levels served strictly in order: three elements each on lists a and b, then "BRPOP a b"
// drains a before b.
func ExampleLevels() {
	ctx := context.Background()
	q := queues.NewLevels(embedded.New(zlite.New()), "tiers", []string{"a", "b"})
	for _, level := range []string{"a", "b"} {
		for _, v := range []string{"1", "2", "3"} {
			q.Push(ctx, level, v) // lpush <level> <v>
		}
	}
	for range 6 {
		level, v, _, _ := q.Pop(ctx, time.Second) // brpop a b
		fmt.Printf("1) %q 2) %q\n", level, v)
	}
	// Output:
	// 1) "a" 2) "1"
	// 1) "a" 2) "2"
	// 1) "a" 2) "3"
	// 1) "b" 2) "1"
	// 1) "b" 2) "2"
	// 1) "b" 2) "3"
}

// Priorities from 0 to 99999 on one sorted set; equal priorities leave in order.
func ExamplePriority() {
	ctx := context.Background()
	q := queues.NewPriority(embedded.New(zlite.New()), "tasks", queues.WithOrder(queues.HighestFirst))
	q.Push(ctx, "compile", 7)
	q.Push(ctx, "backup", 1)
	q.Push(ctx, "page on-call", 99999)
	q.Push(ctx, "test", 7)
	for range 4 {
		v, p, _, _ := q.Pop(ctx, time.Second)
		fmt.Println(p, v)
	}
	// Output:
	// 99999 page on-call
	// 7 compile
	// 7 test
	// 1 backup
}

// A restaurant waitlist: Bob and Karen are waiting, you arrive, and a two-seat table
// frees up.
func ExampleWaitlist() {
	ctx := context.Background()
	w := queues.NewWaitlist(embedded.New(zlite.New()), "restaurant")
	w.Add(ctx, "Bob", 4)
	w.Add(ctx, "Karen", 2)
	w.Add(ctx, "You", 2)
	pos, _, _ := w.Position(ctx, "You")
	fmt.Println("you are number", pos)
	p, _, _ := w.Seat(ctx, 2, queues.Exact)
	fmt.Println("seated:", p.Name)
	p, _, _ = w.Seat(ctx, 6, queues.Fits)
	fmt.Println("seated:", p.Name)
	list, _ := w.Items(ctx, 0, math.MaxInt64)
	fmt.Println("waiting:", list)
	// Output:
	// you are number 3
	// seated: Karen
	// seated: Bob
	// waiting: [{You 2}]
}

// fixedClock is a clock that reads a fixed time, for deterministic examples.
type fixedClock struct{ t *time.Time }

func (c fixedClock) Now() time.Time { return *c.t }

// A call centre: VIP callers first, positions, hang-ups and SLA reports.
func ExampleCallQueue() {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	q := queues.NewCallQueue(embedded.New(zlite.New()), "support", queues.WithClock(fixedClock{&now}.Now))
	q.Enqueue(ctx, "+1-555-0100", 1)
	now = now.Add(20 * time.Second)
	q.Enqueue(ctx, "+1-555-0101", 1)
	q.Enqueue(ctx, "+1-555-0199", 10) // VIP
	q.Enqueue(ctx, "+1-555-0102", 1)
	now = now.Add(20 * time.Second)

	pos, _, _ := q.Position(ctx, "+1-555-0101")
	fmt.Println("0101 is number", pos)
	q.Cancel(ctx, "+1-555-0102") // hung up
	stale, _ := q.Stale(ctx, 30*time.Second)
	for _, c := range stale {
		fmt.Println("waiting over 30s:", c.ID)
	}
	for {
		c, ok, _ := q.TryDequeue(ctx)
		if !ok {
			break
		}
		fmt.Println("operator takes", c.ID)
	}
	// Output:
	// 0101 is number 3
	// waiting over 30s: +1-555-0100
	// operator takes +1-555-0199
	// operator takes +1-555-0100
	// operator takes +1-555-0101
}

// A delayed queue: jobs become available at their due time.
func ExampleDelayed() {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	q := queues.NewDelayed(embedded.New(zlite.New()), "reminders", queues.WithClock(fixedClock{&now}.Now))
	q.Schedule(ctx, "send reminder", now.Add(time.Hour))
	q.Schedule(ctx, "retry payment", now.Add(-time.Minute)) // in the past: due now

	j, _, _ := q.TryPop(ctx)
	fmt.Println(j.Payload)
	_, ok, _ := q.TryPop(ctx)
	fmt.Println("anything else due?", ok)
	now = now.Add(time.Hour)
	j, _, _ = q.Pop(ctx, time.Second)
	fmt.Println(j.Payload, "due at", j.Due.UTC().Format(time.Kitchen))
	// Output:
	// retry payment
	// anything else due? false
	// send reminder due at 10:00AM
}

// "Redis in Action" 6.4: future jobs are moved to their work queue when due.
func ExampleScheduler() {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	s := queues.NewScheduler(embedded.New(zlite.New()), "cron", queues.WithBatch(100), queues.WithClock(fixedClock{&now}.Now))
	s.AddFutureJob(ctx, queues.FutureJob{Queue: "email", Func: "send_digest", Args: json.RawMessage(`["ann"]`)}, now.Add(time.Minute))
	_, err := s.AddFutureJob(ctx, queues.FutureJob{Func: "orphan"}, now)
	fmt.Println(err, errors.Is(err, queues.ErrNoQueue))

	moved, _ := s.Step(ctx)
	fmt.Println("moved", len(moved))
	now = now.Add(time.Minute)
	moved, _ = s.Step(ctx)
	fmt.Println("moved", len(moved), moved[0].Func)
	v, _, _ := s.Queue("email").Pop(ctx, time.Second)
	fmt.Println(v)
	// Output:
	// queues: scheduler "cron": add "orphan": job names no target queue true
	// moved 0
	// moved 1 send_digest
	// {"queue":"email","func":"send_digest","args":["ann"]}
}

// A reliable queue: a job is acknowledged when done; a job whose worker died comes
// back when its lease expires.
func ExampleReliable() {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	q := queues.NewReliable(embedded.New(zlite.New()), "work", queues.WithLease(time.Minute), queues.WithClock(fixedClock{&now}.Now))
	q.Push(ctx, "resize image 1")
	q.Push(ctx, "resize image 2")

	d, _, _ := q.Pop(ctx, time.Second)
	q.Ack(ctx, d) // done
	fmt.Println("done:", d.Payload)

	d, _, _ = q.Pop(ctx, time.Second) // this worker dies mid-job
	now = now.Add(2 * time.Minute)
	n, _ := q.Reap(ctx)
	fmt.Println("put back:", n)
	d, _, _ = q.Pop(ctx, time.Second)
	fmt.Println("redelivered:", d.Payload)
	// Output:
	// done: resize image 1
	// put back: 1
	// redelivered: resize image 2
}

// promoteDue moves the lowest-scored member of a sorted set into a list when its score
// is at most ARGV[1], and returns it (nil when none is due). The Lua runs on Redis, the
// Go function on the embedded engine; both see the same keys and arguments.
var promoteDue = queues.NewScript(`
local z = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
if #z == 0 then return false end
redis.call('ZREM', KEYS[1], z[1])
redis.call('RPUSH', KEYS[2], z[1])
return z[1]
`, func(tx queues.Tx, keys, args []string) (any, error) {
	zs, err := tx.ZRangeByScoreWithScores(keys[0], "-inf", args[0], 0, 1)
	if err != nil || len(zs) == 0 {
		return nil, err
	}
	if _, err := tx.ZRem(keys[0], zs[0].Member); err != nil {
		return nil, err
	}
	if _, err := tx.RPush(keys[1], zs[0].Member); err != nil {
		return nil, err
	}
	return zs[0].Member, nil
})

// A Script is one atomic step written twice, as Lua for Redis and as Go for the
// embedded engine; any Backend runs it with Eval.
func ExampleNewScript() {
	ctx := context.Background()
	db := zlite.New()
	db.ZAdd(ctx, "{jobs}:due", zlite.Z{Member: "report", Score: 20}, zlite.Z{Member: "backup", Score: 10})
	var b queues.Backend = embedded.New(db)
	keys := []string{"{jobs}:due", "{jobs}:ready"}
	for range 2 {
		fmt.Println(b.Eval(ctx, promoteDue, keys, "15"))
	}
	fmt.Println(b.LLen(ctx, "{jobs}:ready"))
	// Output:
	// backup <nil>
	// <nil> <nil>
	// 1 <nil>
}

// A page of a call queue in serving order, as a supervisor's screen shows it.
func ExampleCallQueue_Items() {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	q := queues.NewCallQueue(embedded.New(zlite.New()), "support", queues.WithClock(fixedClock{&now}.Now))
	for i, id := range []string{"ann", "bob", "cat", "dan", "eve"} {
		q.Enqueue(ctx, id, float64(i%2)) // bob and dan are VIPs
		now = now.Add(time.Minute)
	}
	for offset := int64(0); ; offset += 2 {
		page, _ := q.Items(ctx, offset, 2)
		if len(page) == 0 {
			break
		}
		for i, c := range page {
			fmt.Printf("%d. %s (priority %v, waiting %v)\n", offset+int64(i)+1, c.ID, c.Priority, now.Sub(c.Since))
		}
	}
	// Output:
	// 1. bob (priority 1, waiting 4m0s)
	// 2. dan (priority 1, waiting 2m0s)
	// 3. ann (priority 0, waiting 5m0s)
	// 4. cat (priority 0, waiting 3m0s)
	// 5. eve (priority 0, waiting 1m0s)
}

// A delayed queue's statistics: how many jobs wait, how many are due, how late the
// popped ones were.
func ExampleDelayed_Stats() {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	q := queues.NewDelayed(embedded.New(zlite.New()), "reminders", queues.WithClock(fixedClock{&now}.Now))
	q.Schedule(ctx, "a", now.Add(time.Second))
	q.Schedule(ctx, "b", now.Add(2*time.Second))
	q.Schedule(ctx, "c", now.Add(time.Hour))
	now = now.Add(5 * time.Second)
	q.TryPop(ctx) // "a", 4 s late

	s, _ := q.Stats(ctx)
	fmt.Println("depth", s.Depth, "due", s.Due, "oldest due for", s.OldestAge)
	fmt.Println("enqueued", s.Enqueued, "dequeued", s.Dequeued, "lateness max", s.Lateness.Max)
	// Output:
	// depth 2 due 1 oldest due for 3s
	// enqueued 3 dequeued 1 lateness max 4s
}

// A Stats prints as a short summary with this process's rates (package queuevar
// publishes its JSON form).
func ExampleStats() {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	q := queues.NewFIFO(embedded.New(zlite.New()), "mail", queues.WithClock(fixedClock{&now}.Now))
	q.Push(ctx, "a", "b", "c")
	q.Pop(ctx, time.Second)
	now = now.Add(2 * time.Second)
	s, _ := q.Stats(ctx)
	fmt.Println(s)
	// Output:
	// fifo "mail": depth 2; enqueued 3 (1.50/s), dequeued 1 (0.50/s)
}

// A reliable queue that gives up on a job after two failed deliveries: the job goes
// to the dead set, where an operator finds it and moves it back.
func ExampleWithMaxDeliveries() {
	ctx := context.Background()
	q := queues.NewReliable(embedded.New(zlite.New()), "payments", queues.WithMaxDeliveries(2))
	q.Push(ctx, "charge 42")
	for range 2 {
		d, _, _ := q.Pop(ctx, time.Second)
		q.Nack(ctx, d) // the charge was declined
	}
	dead, _ := q.Dead(ctx, 0, 10)
	fmt.Println("dead:", dead[0].Payload)
	s, _ := q.Stats(ctx)
	fmt.Println("waiting", s.Depth, "dead", s.Dead)

	ok, _ := q.Retry(ctx, dead[0].Delivery) // fixed: try again, with two deliveries
	d, _, _ := q.Pop(ctx, time.Second)
	fmt.Println(ok, "redelivered:", d.Payload)
	// Output:
	// dead: charge 42
	// waiting 0 dead 1
	// true redelivered: charge 42
}

// Cancelling a scheduled job by the id Schedule returned.
func ExampleDelayed_Cancel() {
	ctx := context.Background()
	q := queues.NewDelayed(embedded.New(zlite.New()), "reminders")
	id, _ := q.Schedule(ctx, "call mum", time.Now().Add(time.Hour))
	q.Schedule(ctx, "water plants", time.Now().Add(2*time.Hour))
	ok, _ := q.Cancel(ctx, id)
	left, _ := q.Items(ctx, 0, 10)
	fmt.Println(ok, len(left), left[0].Payload)
	// Output:
	// true 1 water plants
}

// Removing a value from a FIFO: LREM from the end served first.
func ExampleFIFO_Remove() {
	ctx := context.Background()
	q := queues.NewFIFO(embedded.New(zlite.New()), "mail")
	q.Push(ctx, "spam", "hello", "spam")
	n, _ := q.Remove(ctx, "spam", 0) // 0: every one
	items, _ := q.Items(ctx, 0, 10)
	fmt.Println(n, items)
	// Output:
	// 2 [hello]
}

// Bad input returns an *Error that names the queue and the item and matches its
// sentinel with errors.Is.
func ExampleError() {
	ctx := context.Background()
	q := queues.NewCallQueue(embedded.New(zlite.New()), "support")
	q.Enqueue(ctx, "c-17", 1)
	err := q.Enqueue(ctx, "c-17", 1)
	fmt.Println(err)
	fmt.Println(errors.Is(err, queues.ErrDuplicate))
	var qe *queues.Error
	if errors.As(err, &qe) {
		fmt.Println(qe.Type, qe.Queue, qe.Op, qe.ID)
	}
	// Output:
	// queues: callqueue "support": enqueue "c-17": id already queued
	// true
	// callqueue support enqueue c-17
}

// Every enqueue that makes an id returns it; Remove takes it.
func ExamplePriority_Remove() {
	ctx := context.Background()
	q := queues.NewPriority(embedded.New(zlite.New()), "renders") // highest first
	q.Push(ctx, "thumbnail", 1)
	id, _ := q.Push(ctx, "poster", 9)
	q.Push(ctx, "banner", 5)
	ok, _ := q.Remove(ctx, id)
	v, p, _, _ := q.Pop(ctx, time.Second)
	fmt.Println(ok, v, p)
	// Output:
	// true banner 5
}
