package inspector

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/zlite/zlite/queues"
)

// The adapters from the queue types of package queues to [Queue], all in this one
// file. They use only the queues' exported methods: Len for the depths, and where a
// type can list its items (CallQueue.Stale, Waitlist.List) that list. The types do
// not yet report counters, blocked consumers, lateness or leases, so those figures
// are absent (nil groups, "n/a" on the pages) and the queues without a listing
// return errors.ErrUnsupported from Items.

// FIFO adapts a [queues.FIFO] called name.
func FIFO(name string, q *queues.FIFO) Queue {
	return lenOnly{name: name, kind: KindFIFO, len: q.Len}
}

// Priority adapts a [queues.Priority] called name.
func Priority(name string, q *queues.Priority) Queue {
	return lenOnly{name: name, kind: KindPriority, len: q.Len}
}

// Delayed adapts a [queues.Delayed] called name.
func Delayed(name string, q *queues.Delayed) Queue {
	return lenOnly{name: name, kind: KindDelayed, len: q.Len}
}

// Scheduler adapts a [queues.Scheduler] called name; its depth is the future jobs
// not yet moved to their work queues (adapt those with [FIFO]).
func Scheduler(name string, s *queues.Scheduler) Queue {
	return lenOnly{name: name, kind: KindScheduler, len: s.Len}
}

// lenOnly is a queue whose only figure is its length.
type lenOnly struct {
	name string
	kind Kind
	len  func(context.Context) (int64, error)
}

func (q lenOnly) Name() string { return q.name }
func (q lenOnly) Kind() Kind   { return q.kind }

func (q lenOnly) Stats(ctx context.Context) (Stats, error) {
	n, err := q.len(ctx)
	return Stats{Depth: n}, err
}

func (q lenOnly) Items(context.Context, int64, int64) ([]Item, error) {
	return nil, errors.ErrUnsupported
}

// Levels adapts a [queues.Levels] called name with the given levels, highest
// first, as passed to [queues.NewLevels].
func Levels(name string, q *queues.Levels, levels ...string) Queue {
	return levelsQueue{name: name, q: q, levels: levels}
}

type levelsQueue struct {
	name   string
	q      *queues.Levels
	levels []string
}

func (q levelsQueue) Name() string { return q.name }
func (q levelsQueue) Kind() Kind   { return KindLevels }

// Stats reads each level's length: one LLEN per level, not one atomic step.
func (q levelsQueue) Stats(ctx context.Context) (Stats, error) {
	var st Stats
	for _, l := range q.levels {
		n, err := q.q.Len(ctx, l)
		if err != nil {
			return st, err
		}
		st.Depth += n
		st.Levels = append(st.Levels, Level{Name: l, Depth: n})
	}
	return st, nil
}

func (q levelsQueue) Items(context.Context, int64, int64) ([]Item, error) {
	return nil, errors.ErrUnsupported
}

// Reliable adapts a [queues.Reliable] called name: waiting elements are its depth,
// elements in processing are in flight.
func Reliable(name string, q *queues.Reliable) Queue { return reliableQueue{name: name, q: q} }

type reliableQueue struct {
	name string
	q    *queues.Reliable
}

func (q reliableQueue) Name() string { return q.name }
func (q reliableQueue) Kind() Kind   { return KindReliable }

func (q reliableQueue) Stats(ctx context.Context) (Stats, error) {
	ready, processing, err := q.q.Len(ctx)
	return Stats{Depth: ready, InFlight: processing}, err
}

func (q reliableQueue) Items(context.Context, int64, int64) ([]Item, error) {
	return nil, errors.ErrUnsupported
}

// CallQueue adapts a [queues.CallQueue] called name, reading time from now (nil:
// time.Now) for the wait of the oldest call. Its items are the waiting calls in
// serving order (higher priority first, then arrival) and it supports [Canceler]
// (a hang-up). Items reads every waiting call and sorts them, O(n log n), until the
// call queue can list a page in order itself.
func CallQueue(name string, q *queues.CallQueue, now func() time.Time) Queue {
	if now == nil {
		now = time.Now
	}
	return callQueue{name: name, q: q, now: now}
}

type callQueue struct {
	name string
	q    *queues.CallQueue
	now  func() time.Time
}

func (q callQueue) Name() string { return q.name }
func (q callQueue) Kind() Kind   { return KindCall }

func (q callQueue) Stats(ctx context.Context) (Stats, error) {
	n, err := q.q.Len(ctx)
	if err != nil || n == 0 {
		return Stats{Depth: n}, err
	}
	all, err := q.q.Stale(ctx, 0) // longest-waiting first
	st := Stats{Depth: n}
	if err == nil && len(all) > 0 {
		st.Oldest = max(q.now().Sub(all[0].Since), 0)
	}
	return st, err
}

func (q callQueue) Items(ctx context.Context, offset, count int64) ([]Item, error) {
	all, err := q.q.Stale(ctx, 0)
	if err != nil {
		return nil, err
	}
	// Stale lists by arrival; a stable sort by priority gives serving order.
	slices.SortStableFunc(all, func(a, b queues.Call) int { return cmp.Compare(b.Priority, a.Priority) })
	return pageOf(all, offset, count, func(i int64, c queues.Call) Item {
		return Item{ID: c.ID, Position: i, Priority: c.Priority, Enqueued: c.Since}
	}), nil
}

func (q callQueue) Cancel(ctx context.Context, id string) (bool, error) { return q.q.Cancel(ctx, id) }

// Waitlist adapts a [queues.Waitlist] called name. Its items are the waiting
// parties in arrival order (which party a table seats depends on the table) and it
// supports [Canceler] (the party leaves).
func Waitlist(name string, w *queues.Waitlist) Queue { return waitlist{name: name, w: w} }

type waitlist struct {
	name string
	w    *queues.Waitlist
}

func (q waitlist) Name() string { return q.name }
func (q waitlist) Kind() Kind   { return KindWaitlist }

func (q waitlist) Stats(ctx context.Context) (Stats, error) {
	n, err := q.w.Len(ctx)
	return Stats{Depth: n}, err
}

func (q waitlist) Items(ctx context.Context, offset, count int64) ([]Item, error) {
	page, err := q.w.Items(ctx, offset, count)
	if err != nil {
		return nil, err
	}
	items := make([]Item, len(page))
	for i, p := range page {
		items[i] = Item{ID: p.Name, Value: strconv.FormatInt(p.Seats, 10) + " seats", Position: offset + int64(i)}
	}
	return items, nil
}

func (q waitlist) Cancel(ctx context.Context, id string) (bool, error) { return q.w.Leave(ctx, id) }

// pageOf converts all[offset:offset+count] with item (given the position).
func pageOf[T any](all []T, offset, count int64, item func(int64, T) Item) []Item {
	n := int64(len(all))
	if offset >= n {
		return nil
	}
	end := offset + min(count, n-offset)
	out := make([]Item, 0, end-offset)
	for i := offset; i < end; i++ {
		out = append(out, item(i, all[i]))
	}
	return out
}
