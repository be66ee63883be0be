package queues

import (
	"context"
	"math"
	"time"
)

// Order says which priority a [Priority] queue or a [CallQueue] serves first; see
// [WithOrder]. The zero value is [HighestFirst], the default.
type Order int

const (
	// HighestFirst serves the highest priority value first (9 before 1), the
	// default.
	HighestFirst Order = iota
	// LowestFirst serves the lowest priority value first (a min-heap: 0 before 1).
	LowestFirst
)

// Priority is for work whose urgency is a number (any finite float64 priority, e.g.
// 0–99999): one sorted set, FIFO among equal priorities, with a blocking Pop by
// BZPOPMIN. (An older recipe keeps a list sorted by binary search with LSET because
// "sorted sets cannot block"; Redis ≥ 5 can, and so can the embedded engine.)
//
// The member is the arrival sequence followed by the value, the score the priority
// (negated for [HighestFirst]), so equal priorities leave in arrival order whatever
// the rate. Push returns the item's id (its member: the arrival sequence followed by
// the value), which [Priority.Remove] takes. Priority is safe for concurrent use;
// every element is delivered once.
type Priority struct {
	b          Backend
	name       string
	st         *counters
	order      Order
	at         where
	items, seq string
}

// NewPriority returns the priority queue called name on b. Its keys are
// "{name}:items" and "{name}:meta". It uses the options [WithOrder] ([HighestFirst]
// by default) and [WithStats]. It panics if name is empty.
func NewPriority(b Backend, name string, opts ...Option) *Priority {
	checkName("Priority", name)
	cfg := newConfig(opts)
	return &Priority{b: b, name: name, st: newCounters(cfg, false), order: cfg.order, at: where{"priority", name}, items: key(name, "items"), seq: key(name, "meta")}
}

var priorityPush = NewScript(luaSeq+`
local m = seq(KEYS[2]) .. ARGV[2]
redis.call('ZADD', KEYS[1], ARGV[1], m)
return m
`, func(tx Tx, keys, args []string) (any, error) {
	s, err := nextSeq(tx, keys[1])
	if err != nil {
		return nil, err
	}
	score, _ := parseScore(args[0])
	m := s + args[1]
	if _, err := tx.ZAdd(keys[0], score, m); err != nil {
		return nil, err
	}
	return m, nil
})

// Push queues value with priority and returns its id, which [Priority.Remove]
// takes and [Priority.Items] lists. It returns [ErrBadPriority] for a NaN or
// infinite priority. Equal values may be queued many times, each with its own id.
// The complexity is O(log n).
func (q *Priority) Push(ctx context.Context, value string, priority float64) (id string, err error) {
	if math.IsNaN(priority) || math.IsInf(priority, 0) {
		return "", q.at.fail("push", "", ErrBadPriority)
	}
	r, err := q.b.Eval(ctx, priorityPush, []string{q.items, q.seq}, fmtFloat(q.score(priority)), value)
	if err != nil {
		return "", err
	}
	q.st.enq(1)
	return replyString(r), nil
}

// Pop removes and returns the first value in priority order with its priority
// (BZPOPMIN), waiting up to timeout (0: until ctx is done). Timeout and cancellation
// behave as in [FIFO.Pop]. The complexity is O(log n).
func (q *Priority) Pop(ctx context.Context, timeout time.Duration) (value string, priority float64, ok bool, err error) {
	q.st.enter()
	_, z, ok, err := q.b.BZPopMin(ctx, timeout, q.items)
	q.st.leave(ok)
	if !ok || err != nil {
		return "", 0, ok, err
	}
	return stripSeq(z.Member), q.priority(z.Score), true, nil
}

// score returns the score that stands for priority: the sorted set is served from
// its lowest score.
func (q *Priority) score(priority float64) float64 { return q.order.score(priority) }

// priority returns the priority a member's score stands for.
func (q *Priority) priority(score float64) float64 { return q.order.priority(score) }

// score returns the score of priority in a sorted set served lowest score first.
func (o Order) score(priority float64) float64 {
	if o == HighestFirst {
		priority = -priority
	}
	return priority + 0 // + 0 turns a negated 0 back into 0
}

// priority returns the priority that score stands for.
func (o Order) priority(score float64) float64 { return o.score(score) }

// Len returns the number of queued values (ZCARD). The complexity is O(1).
func (q *Priority) Len(ctx context.Context) (int64, error) { return q.b.ZCard(ctx, q.items) }

// Stats returns the queue's depth, split by priority (the first [MaxStatsLevels]
// served), and this process's counters; see [Stats]. The complexity is
// O(MaxStatsLevels · log n).
func (q *Priority) Stats(ctx context.Context) (Stats, error) {
	s := Stats{Name: q.name, Type: "priority"}
	q.st.fill(&s)
	var err error
	if s.Depth, err = q.Len(ctx); err != nil {
		return s, err
	}
	s.Levels, err = groups(ctx, q.b, q.items, func(score float64) string { return fmtFloat(q.priority(score)) })
	return s, err
}
