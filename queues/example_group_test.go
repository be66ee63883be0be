package queues_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
)

// Each customer's API allows one call a second: a customer with a backlog gets one
// call, and the other customer's call is served meanwhile rather than behind it.
func ExampleGroup() {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	q := queues.NewReliable(embedded.New(zlite.New()), "webhooks", queues.WithClock(fixedClock{&now}.Now),
		queues.WithGroupRateLimit(1, time.Second))
	for _, p := range []string{"acme 1", "acme 2", "acme 3"} {
		q.Push(ctx, p, queues.Group("acme"))
	}
	q.Push(ctx, "globex 1", queues.Group("globex"))
	for range 3 {
		d, ok, _ := q.Pop(ctx, 10*time.Millisecond)
		fmt.Println(d.Payload, ok)
	}
	ready, _, _ := q.Len(ctx)
	fmt.Println("waiting:", ready)
	now = now.Add(time.Second)
	d, ok, _ := q.Pop(ctx, 10*time.Millisecond)
	fmt.Println("a second later:", d.Payload, ok)
	// Output:
	// acme 1 true
	// globex 1 true
	//  false
	// waiting: 2
	// a second later: acme 2 true
}
