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

// A welcome mail is queued at most once per user per hour: a second push with the
// same key is refused and names the job already queued; once that job is done
// (Ack) the key is free again.
func ExampleUnique() {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	q := queues.NewReliable(embedded.New(zlite.New()), "mail", queues.WithClock(fixedClock{&now}.Now))
	id, _ := q.Push(ctx, "welcome alice", queues.Unique("welcome:alice", time.Hour))
	fmt.Println("queued", id)

	dup, err := q.Push(ctx, "welcome alice", queues.Unique("welcome:alice", time.Hour))
	fmt.Println(errors.Is(err, queues.ErrDuplicate), dup == id)
	fmt.Println(err)

	d, _, _ := q.Pop(ctx, time.Second)
	q.Ack(ctx, d)
	id, err = q.Push(ctx, "welcome alice", queues.Unique("welcome:alice", time.Hour))
	fmt.Println("after ack:", id, err)
	// Output:
	// queued 0000000000000001
	// true true
	// queues: reliable "mail": push "welcome:alice": id already queued
	// after ack: 0000000000000002 <nil>
}
