package queues

import (
	"context"
	"slices"
	"time"
)

// Levels is a priority queue with a few named levels, one list each, served strictly
// in the order the levels were given by a single multi-key BRPOP ("BRPOP high medium
// low"): an element of a lower level is delivered only when every higher level is
// empty, and each level is FIFO. Use it for a few fixed classes of work (urgent,
// normal, bulk); for many or numeric priorities use [Priority].
//
// Levels is safe for concurrent use; every element is delivered to exactly one
// consumer.
type Levels struct {
	b      Backend
	name   string
	st     *counters
	levels []string
	keys   []string
	index  map[string]int
	at     where
}

// NewLevels returns the level queue called name on b with levels from highest to
// lowest priority. Level l is the list "{name}:level:l". It uses the option
// [WithStats]. It panics if name is empty, no level is given, or a level repeats.
func NewLevels(b Backend, name string, levels []string, opts ...Option) *Levels {
	checkName("Levels", name)
	if len(levels) == 0 {
		panic("queues: NewLevels without levels")
	}
	q := &Levels{b: b, name: name, st: newCounters(newConfig(opts), false), levels: levels, index: make(map[string]int, len(levels)), at: where{"levels", name}}
	for i, l := range levels {
		if _, dup := q.index[l]; dup {
			panic("queues: NewLevels with level " + l + " twice")
		}
		q.index[l] = i
		q.keys = append(q.keys, key(name, "level:"+l))
	}
	return q
}

// Names returns the queue's levels, from highest to lowest priority, as given to
// [NewLevels] (a copy). The complexity is O(number of levels).
func (q *Levels) Names() []string { return slices.Clone(q.levels) }

// Push appends values to level in order (LPUSH). It returns [ErrUnknownLevel] for a
// level not given to [NewLevels]. The complexity is O(1) per value.
func (q *Levels) Push(ctx context.Context, level string, values ...string) error {
	i, ok := q.index[level]
	if !ok {
		return q.at.failLevel("push", level, ErrUnknownLevel)
	}
	if len(values) == 0 {
		return nil
	}
	_, err := q.b.LPush(ctx, q.keys[i], values...)
	if err == nil {
		q.st.enq(int64(len(values)))
	}
	return err
}

// Pop removes and returns the oldest element of the highest non-empty level (BRPOP
// over all levels), waiting up to timeout (0: until ctx is done). Timeout and
// cancellation behave as in [FIFO.Pop]. The complexity is O(number of levels).
func (q *Levels) Pop(ctx context.Context, timeout time.Duration) (level, value string, ok bool, err error) {
	q.st.enter()
	k, v, ok, err := q.b.BRPop(ctx, timeout, q.keys...)
	q.st.leave(ok)
	if !ok || err != nil {
		return "", "", ok, err
	}
	for i, kk := range q.keys {
		if kk == k {
			return q.levels[i], v, true, nil
		}
	}
	return "", v, true, nil
}

// Len returns the number of elements queued at level (LLEN), or [ErrUnknownLevel].
// The complexity is O(1).
func (q *Levels) Len(ctx context.Context, level string) (int64, error) {
	i, ok := q.index[level]
	if !ok {
		return 0, q.at.failLevel("len", level, ErrUnknownLevel)
	}
	return q.b.LLen(ctx, q.keys[i])
}

var listLens = NewScript(`
local out = {}
for i, k in ipairs(KEYS) do out[i] = redis.call('LLEN', k) end
return out
`, func(tx Tx, keys, args []string) (any, error) {
	out := make([]any, len(keys))
	for i, k := range keys {
		n, err := tx.LLen(k)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
})

// Stats returns the depth of every level (one atomic step) and this process's
// counters; see [Stats]. The complexity is O(number of levels).
func (q *Levels) Stats(ctx context.Context) (Stats, error) {
	s := Stats{Name: q.name, Type: "levels"}
	q.st.fill(&s)
	r, err := q.b.Eval(ctx, listLens, q.keys)
	if err != nil {
		return s, err
	}
	a, err := replyArray(r)
	for i, n := range a {
		s.Levels = append(s.Levels, LevelDepth{q.levels[i], replyInt(n)})
		s.Depth += replyInt(n)
	}
	return s, err
}
