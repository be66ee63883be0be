package embedded_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
)

// A queue's keys are ordinary keys of the DB it runs on: here the FIFO "jobs" is the
// list {jobs}:items, which the DB's own commands see.
func Example() {
	ctx := context.Background()
	db := zlite.New()
	q := queues.NewFIFO(embedded.New(db), "jobs")
	q.Push(ctx, "a", "b")
	n, _ := db.LLen(ctx, "{jobs}:items")
	fmt.Println(n)
	v, ok, _ := q.Pop(ctx, time.Second)
	fmt.Println(v, ok)
	// Output:
	// 2
	// a true
}
