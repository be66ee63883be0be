package queues_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
)

// A waitlist a Ruby app keeps with
// redis.zadd("waitlist", seats, "#{Time.now.to_i} #{name}"), taken over in place: its
// parties and the Go service's are seated in the recipe's order.
func ExampleClassicWaitlist() {
	ctx := context.Background()
	db := zlite.New()
	db.ZAdd(ctx, "waitlist", zlite.Z{Score: 2, Member: "1452266753 Bob"}, zlite.Z{Score: 2, Member: "1452267102 Karen"})

	w := queues.NewClassicWaitlist(embedded.New(db), "waitlist",
		queues.WithClock(func() time.Time { return time.Unix(1452267136, 0) }))
	w.Add(ctx, "You", 2) // ZADD waitlist 2 "1452267136 You"
	for {
		p, ok, _ := w.Seat(ctx, 2, queues.Exact)
		if !ok {
			break
		}
		fmt.Println(p.Name, p.Seats)
	}
	// Output:
	// Bob 2
	// Karen 2
	// You 2
}

// A call-centre queue in the recipe's "queue:calls" sorted set, scored
// priority·10¹⁰ + (10¹⁰ − t): the highest priority first, then the earliest call.
func ExampleClassicCallQueue() {
	ctx := context.Background()
	now := time.Unix(1767323045, 0)
	q := queues.NewClassicCallQueue(embedded.New(zlite.New()), "queue:calls",
		queues.WithClock(func() time.Time { return now }))
	q.Enqueue(ctx, "c1", 1)
	now = now.Add(time.Second)
	q.Enqueue(ctx, "vip", 5)
	q.Enqueue(ctx, "c2", 1)

	pos, _, _ := q.Position(ctx, "c2") // ZREVRANK + 1
	fmt.Println("c2 is number", pos)
	for {
		c, ok, _ := q.TryDequeue(ctx) // ZPOPMAX
		if !ok {
			break
		}
		fmt.Println(c.ID, c.Priority, c.Since.UTC().Format(time.TimeOnly))
	}
	// Output:
	// c2 is number 3
	// vip 5 03:04:06
	// c1 1 03:04:05
	// c2 1 03:04:06
}

// The recipe's FIFO: redis-cli LPUSH jobs …, BRPOP jobs 0.
func ExampleNewClassicFIFO() {
	ctx := context.Background()
	db := zlite.New()
	db.LPush(ctx, "jobs", "1", "2") // written by other code
	q := queues.NewClassicFIFO(embedded.New(db), "jobs")
	q.Push(ctx, "3")
	for {
		v, ok, _ := q.Pop(ctx, 10*time.Millisecond)
		if !ok {
			break
		}
		fmt.Println(v)
	}
	// Output:
	// 1
	// 2
	// 3
}

// The recipe's levels: BRPOP a b 0 serves b only while a is empty.
func ExampleNewClassicLevels() {
	ctx := context.Background()
	db := zlite.New()
	db.LPush(ctx, "b", "1")
	db.LPush(ctx, "a", "1", "2")
	q := queues.NewClassicLevels(embedded.New(db), []string{"a", "b"})
	for range 3 {
		level, v, _, _ := q.Pop(ctx, time.Second)
		fmt.Println(level, v)
	}
	// Output:
	// a 1
	// a 2
	// b 1
}

// The recipe's timed queue: a sorted set scored by a timestamp, here in seconds,
// taken in one atomic step when due.
func ExampleClassicTimed() {
	ctx := context.Background()
	db := zlite.New()
	db.ZAdd(ctx, "seta", zlite.Z{Score: 100, Member: "a"}, zlite.Z{Score: 300, Member: "c"})
	q := queues.NewClassicTimed(embedded.New(db), "seta", time.Second,
		queues.WithClock(func() time.Time { return time.Unix(200, 0) }))
	q.Schedule(ctx, "b", time.Unix(150, 0))
	for {
		j, ok, _ := q.TryPop(ctx)
		if !ok {
			break
		}
		fmt.Println(j.Payload, j.Due.Unix())
	}
	n, _ := q.Len(ctx)
	fmt.Println(n, "not due")
	// Output:
	// a 100
	// b 150
	// 1 not due
}

// The PHP delayed queue: JSON jobs in a sorted set scored by Unix seconds, moved to
// the list each names when due.
func ExampleClassicScheduler() {
	ctx := context.Background()
	db := zlite.New()
	db.ZAdd(ctx, "job", zlite.Z{Score: 100, Member: `{"queue":"email","fun":"sendMail","parameter":{"to":"a@example.com"}}`})
	s := queues.NewClassicScheduler(embedded.New(db), "job",
		queues.WithClock(func() time.Time { return time.Unix(200, 0) }))
	s.AddFutureJob(ctx, queues.ClassicJob{Queue: "email", Fun: "remind", Parameter: json.RawMessage(`[7]`)}, time.Unix(150, 0))
	moved, _ := s.Step(ctx)
	fmt.Println(len(moved), "moved")
	for {
		v, ok, _ := s.Queue("email").Pop(ctx, 10*time.Millisecond)
		if !ok {
			break
		}
		fmt.Println(v)
	}
	// Output:
	// 2 moved
	// {"queue":"email","fun":"sendMail","parameter":{"to":"a@example.com"}}
	// {"queue":"email","fun":"remind","parameter":[7]}
}
