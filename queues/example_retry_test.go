package queues_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
)

// A reliable queue that retries a failing job after 1 s, then 2 s, and gives up
// after its third attempt: the job goes to the dead set with its attempts and last
// error, where an operator finds it and requeues it.
func ExampleWithRetry() {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	q := queues.NewReliable(embedded.New(zlite.New()), "payments", queues.WithClock(fixedClock{&now}.Now),
		queues.WithRetry(queues.RetryPolicy{Base: time.Second, Max: time.Minute, MaxAttempts: 3}))
	q.Push(ctx, "charge 42")
	for range 3 {
		d, _, _ := q.Pop(ctx, time.Second)
		fmt.Println("attempt", d.Attempt, d.Payload)
		q.Fail(ctx, d, errors.New("card declined"))
		if r, _ := q.Retrying(ctx, 0, 1); len(r) > 0 {
			fmt.Println("  retry in", r[0].Deadline.Sub(now))
			now = r[0].Deadline
		}
	}
	dead, _ := q.Dead(ctx, 0, 10)
	fmt.Printf("dead: %s after %d attempts: %s\n", dead[0].Payload, dead[0].Attempt, dead[0].LastError)

	n, _ := q.RetryAll(ctx) // fixed: try again, with three attempts
	d, _, _ := q.Pop(ctx, time.Second)
	fmt.Println(n, "requeued; attempt", d.Attempt, d.Payload)
	// Output:
	// attempt 1 charge 42
	//   retry in 1s
	// attempt 2 charge 42
	//   retry in 2s
	// attempt 3 charge 42
	// dead: charge 42 after 3 attempts: card declined
	// 1 requeued; attempt 1 charge 42
}
