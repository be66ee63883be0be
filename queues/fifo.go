package queues

import (
	"context"
	"time"
)

// FIFO is for handing work from producers to consumers in arrival order (send this
// e-mail, resize that image): one list, producers LPUSH, consumers BRPOP. An element
// is delivered at most once; use [Reliable] when a consumer that dies mid-job must not
// lose it.
//
// A FIFO is safe for concurrent use by any number of producers and consumers, in one
// process or (on Redis) many; every element is delivered to exactly one consumer.
type FIFO struct {
	b    Backend
	name string
	key  string
	st   *counters
	at   where
}

// NewFIFO returns the FIFO queue called name on b. Its list is the key "{name}:items".
// It uses the option [WithStats]. It panics if name is empty.
func NewFIFO(b Backend, name string, opts ...Option) *FIFO {
	checkName("FIFO", name)
	return &FIFO{b: b, name: name, key: key(name, "items"), st: newCounters(newConfig(opts), false), at: where{"fifo", name}}
}

// Push appends values to the queue in order (LPUSH). Pushing nothing does nothing.
// The complexity is O(1) per value.
func (q *FIFO) Push(ctx context.Context, values ...string) error {
	if len(values) == 0 {
		return nil
	}
	_, err := q.b.LPush(ctx, q.key, values...)
	if err == nil {
		q.st.enq(int64(len(values)))
	}
	return err
}

// Pop removes and returns the oldest element (BRPOP), waiting up to timeout (0: until
// ctx is done) for one to arrive. It returns ok == false when the timeout passed with
// the queue empty, and ctx.Err() when ctx ended first; an element already taken is
// returned even if ctx ended meanwhile. The complexity is O(1).
func (q *FIFO) Pop(ctx context.Context, timeout time.Duration) (string, bool, error) {
	q.st.enter()
	_, v, ok, err := q.b.BRPop(ctx, timeout, q.key)
	q.st.leave(ok)
	return v, ok, err
}

// Len returns the number of queued elements (LLEN). The complexity is O(1).
func (q *FIFO) Len(ctx context.Context) (int64, error) { return q.b.LLen(ctx, q.key) }

// Stats returns the queue's depth (LLEN) and this process's counters; see [Stats].
// The complexity is O(1).
func (q *FIFO) Stats(ctx context.Context) (Stats, error) {
	s := Stats{Name: q.name, Type: "fifo"}
	q.st.fill(&s)
	var err error
	s.Depth, err = q.Len(ctx)
	return s, err
}
