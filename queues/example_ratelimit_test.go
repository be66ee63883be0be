package queues_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
)

// An API allows two calls a second: consumers of a rate-limited queue get two jobs,
// then nothing until the window moves on.
func ExampleWithRateLimit() {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	q := queues.NewReliable(embedded.New(zlite.New()), "api-calls", queues.WithClock(fixedClock{&now}.Now),
		queues.WithRateLimit(2, time.Second))
	for _, p := range []string{"call 1", "call 2", "call 3"} {
		q.Push(ctx, p)
	}
	for range 3 {
		d, ok, _ := q.Pop(ctx, 10*time.Millisecond)
		fmt.Println(d.Payload, ok)
	}
	now = now.Add(time.Second)
	d, ok, _ := q.Pop(ctx, 10*time.Millisecond)
	fmt.Println("a second later:", d.Payload, ok)
	// Output:
	// call 1 true
	// call 2 true
	//  false
	// a second later: call 3 true
}
