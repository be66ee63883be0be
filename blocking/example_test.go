package blocking_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/zlite/zlite/blocking"
)

// queues is a tiny set of named FIFO queues of strings whose Pop blocks, built on
// blocking alone: a waiter asks for one item, and Push hands it over directly.
type queues struct {
	mu    sync.Mutex
	items map[string][]string
	reg   blocking.Registry[string] // a waiter's Req receives its item
}

func (q *queues) Push(key, item string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	// Hand the item to the first waiter on key, if any; otherwise store it.
	handed := false
	q.reg.Serve(key, func(_ string, w *blocking.Waiter[string]) (served, exhausted bool) {
		w.Req, handed = item, true
		return true, true
	})
	if !handed {
		q.items[key] = append(q.items[key], item)
	}
}

func (q *queues) Pop(ctx context.Context, key string) (string, error) {
	w := q.reg.NewWaiter([]string{key})
	defer w.Release()
	q.mu.Lock()
	if s := q.items[key]; len(s) > 0 {
		q.items[key] = s[1:]
		q.mu.Unlock()
		return s[0], nil
	}
	_, err := q.reg.Wait(ctx, &q.mu, w, 0) // unlocks q.mu
	return w.Req, err
}

func Example() {
	q := &queues{items: map[string][]string{}}
	got := make(chan string)
	go func() {
		item, _ := q.Pop(context.Background(), "jobs") // blocks until the Push
		got <- item
	}()
	q.Push("jobs", "a") // to the waiter if it is blocked, else stored for it
	fmt.Println(<-got)
	// Output: a
}
