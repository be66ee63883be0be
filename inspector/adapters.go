package inspector

import (
	"context"
	"strconv"
	"time"

	"github.com/zlite/zlite/queues"
)

// The adapters from the queue types of package queues to [Queue], all in this one
// file. Each reads its figures from the type's Stats (one call per page; see its
// complexity there) and its items from the type's paged Items, so a page of k items
// costs what the queue's Items costs for k, never a read of the whole queue.
//
// The counters (and so the throughput) are those of the queue value given to the
// adapter: give it the value your producers and consumers use. A queue made with
// queues.WithStats(false) reports zero counters.
//
// Actions exist where the queue type offers the operation: cancelling a call
// ([queues.CallQueue.Cancel]) or a party ([queues.Waitlist.Leave]), and requeueing
// an expired lease ([queues.Reliable.Nack] of that element). Package queues has no
// operation that removes a waiting item from the other types, and no dead-letter
// list, so no adapter implements [DeadMover].

// statsFunc is the Stats method of a queue type.
type statsFunc func(context.Context) (queues.Stats, error)

// base is what every adapter shares: the name, the kind, and the figures from the
// queue type's Stats, each level named by label.
type base struct {
	name  string
	kind  Kind
	stats statsFunc
	label func(level string) string
}

func (q base) Name() string { return q.name }
func (q base) Kind() Kind   { return q.kind }

// Stats converts the queue type's [queues.Stats].
func (q base) Stats(ctx context.Context) (Stats, error) {
	s, err := q.stats(ctx)
	return fromQueues(s, q.label), err
}

func fromQueues(s queues.Stats, label func(string) string) Stats {
	st := Stats{Depth: s.Depth, Due: s.Due, InFlight: s.InFlight, Oldest: s.OldestAge, HasOldest: s.HasAge,
		Activity: &Activity{Blocked: s.Blocked, Enqueued: s.Enqueued, Dequeued: s.Dequeued, Acked: s.Acked,
			Requeued: s.Requeued, Expired: s.ExpiredLeases, Cancelled: s.Cancelled}}
	for _, l := range s.Levels {
		st.Levels = append(st.Levels, Level{Name: label(l.Level), Depth: l.Depth})
	}
	if l := s.Lateness; l != nil {
		st.Lateness = &Lateness{Count: int64(l.Count), P50: l.P50, P99: l.P99, Max: l.Max}
	}
	return st
}

func asIs(level string) string { return level }

func priorityLabel(p string) string { return "priority " + p }

func seatsLabel(n string) string {
	if n == "1" {
		return "1 seat"
	}
	return n + " seats"
}

// itemsOf converts one page of a queue type's items read at offset.
func itemsOf[T any](offset int64, page []T, err error, item func(T) Item) ([]Item, error) {
	if err != nil || len(page) == 0 {
		return nil, err
	}
	out := make([]Item, len(page))
	for i, v := range page {
		out[i] = item(v)
		out[i].Position = offset + int64(i) + 1
	}
	return out, nil
}

// FIFO adapts a [queues.FIFO] called name; its items are the waiting values, oldest
// first. Use it for the work queues of a [queues.Scheduler] too ([queues.Scheduler.Queue]).
func FIFO(name string, q *queues.FIFO) Queue { return fifo{base{name, KindFIFO, q.Stats, asIs}, q} }

type fifo struct {
	base
	q *queues.FIFO
}

func (q fifo) Items(ctx context.Context, offset, count int64) ([]Item, error) {
	page, err := q.q.Items(ctx, offset, count)
	return itemsOf(offset, page, err, func(v string) Item { return Item{Value: v} })
}

// Levels adapts a [queues.Levels] called name. Its items are the values of every
// level in serving order: the first level's, oldest first, then the next level's.
// A page reads the depth of every level (one step) and then the levels it spans, so
// a page that straddles two levels is read in two steps.
func Levels(name string, q *queues.Levels) Queue {
	return levels{base{name, KindLevels, q.Stats, asIs}, q}
}

type levels struct {
	base
	q *queues.Levels
}

func (q levels) Items(ctx context.Context, offset, count int64) ([]Item, error) {
	s, err := q.q.Stats(ctx)
	if err != nil {
		return nil, err
	}
	var out []Item
	var before int64 // items in the levels served before this one
	for _, l := range s.Levels {
		if count == 0 {
			break
		}
		if offset-before >= l.Depth {
			before += l.Depth
			continue
		}
		skip := max(offset-before, 0)
		page, err := q.q.Items(ctx, l.Level, skip, count)
		it, err := itemsOf(before+skip, page, err, func(v string) Item { return Item{Value: v, Level: l.Level} })
		if err != nil {
			return nil, err
		}
		out = append(out, it...)
		count -= int64(len(it))
		before += l.Depth
	}
	return out, nil
}

// Priority adapts a [queues.Priority] called name; its items are the waiting values
// with their priorities in serving order.
func Priority(name string, q *queues.Priority) Queue {
	return priority{base{name, KindPriority, q.Stats, priorityLabel}, q}
}

type priority struct {
	base
	q *queues.Priority
}

func (q priority) Items(ctx context.Context, offset, count int64) ([]Item, error) {
	page, err := q.q.Items(ctx, offset, count)
	return itemsOf(offset, page, err, func(v queues.Item) Item { return Item{Value: v.Value, Priority: v.Priority} })
}

// CallQueue adapts a [queues.CallQueue] called name. Its items are the waiting calls
// in serving order (higher priority first, then arrival), at the Position that
// [queues.CallQueue.Position] reports, with their enqueue time; it supports
// [Canceler] (a hang-up).
func CallQueue(name string, q *queues.CallQueue) Queue {
	return callQueue{base{name, KindCall, q.Stats, priorityLabel}, q}
}

type callQueue struct {
	base
	q *queues.CallQueue
}

func (q callQueue) Items(ctx context.Context, offset, count int64) ([]Item, error) {
	page, err := q.q.Items(ctx, offset, count)
	return itemsOf(offset, page, err, func(c queues.Call) Item {
		return Item{ID: c.ID, Priority: c.Priority, Enqueued: c.Since}
	})
}

func (q callQueue) Cancel(ctx context.Context, id string) (bool, error) { return q.q.Cancel(ctx, id) }

// Waitlist adapts a [queues.Waitlist] called name. Its items are the waiting
// parties in arrival order (which party a table seats depends on the table's size)
// and it supports [Canceler] (the party leaves).
func Waitlist(name string, w *queues.Waitlist) Queue {
	return waitlist{base{name, KindWaitlist, w.Stats, seatsLabel}, w}
}

type waitlist struct {
	base
	w *queues.Waitlist
}

func (q waitlist) Items(ctx context.Context, offset, count int64) ([]Item, error) {
	page, err := q.w.Items(ctx, offset, count)
	return itemsOf(offset, page, err, func(p queues.Party) Item {
		return Item{ID: p.Name, Value: seatsLabel(strconv.FormatInt(p.Seats, 10))}
	})
}

func (q waitlist) Cancel(ctx context.Context, id string) (bool, error) { return q.w.Leave(ctx, id) }

// Delayed adapts a [queues.Delayed] called name; its items are the scheduled jobs
// in due order, due or not, with their due times.
func Delayed(name string, q *queues.Delayed) Queue {
	return dueQueue{base{name, KindDelayed, q.Stats, asIs}, q.Items}
}

// Scheduler adapts a [queues.Scheduler] called name; its items are the future jobs
// not yet moved, in due order, each shown as its JSON. Adapt the work queues it
// moves jobs into with [FIFO] ([queues.Scheduler.Queue]).
func Scheduler(name string, s *queues.Scheduler) Queue {
	return dueQueue{base{name, KindScheduler, s.Stats, asIs}, s.Items}
}

type dueQueue struct {
	base
	items func(ctx context.Context, offset, count int64) ([]queues.Job, error)
}

func (q dueQueue) Items(ctx context.Context, offset, count int64) ([]Item, error) {
	page, err := q.items(ctx, offset, count)
	return itemsOf(offset, page, err, func(j queues.Job) Item { return Item{Value: j.Payload, Due: j.Due} })
}

// Reliable adapts a [queues.Reliable] called name, reading the time from now (nil:
// time.Now; give the clock the queue was made with) to tell running leases from
// expired ones. Its items are the waiting elements in serving order, then the
// elements in processing, the earliest-expiring lease first, each with its lease
// expiry; it supports [LeaseRequeuer].
func Reliable(name string, q *queues.Reliable, now func() time.Time) Queue {
	if now == nil {
		now = time.Now
	}
	return reliable{base{name, KindReliable, q.Stats, asIs}, q, now}
}

type reliable struct {
	base
	q   *queues.Reliable
	now func() time.Time
}

// Items reads the number of waiting elements, then the page of them and of the
// leases it spans: two or three steps, not one atomic snapshot.
func (q reliable) Items(ctx context.Context, offset, count int64) ([]Item, error) {
	ready, _, err := q.q.Len(ctx)
	if err != nil {
		return nil, err
	}
	var out []Item
	if offset < ready {
		page, err := q.q.Items(ctx, offset, min(count, ready-offset))
		if out, err = itemsOf(offset, page, err, func(d queues.Delivery) Item {
			return Item{ID: d.ID, Value: d.Payload}
		}); err != nil {
			return nil, err
		}
	}
	if count -= int64(len(out)); count == 0 {
		return out, nil
	}
	from := max(offset, ready) - ready
	now := q.now()
	leases, err := q.q.InFlight(ctx, from, count)
	more, err := itemsOf(ready+from, leases, err, func(l queues.Lease) Item {
		st := StateLeased
		if !l.Deadline.After(now) {
			st = StateExpired
		}
		return Item{ID: l.ID, Value: l.Payload, State: st, LeaseExpiry: l.Deadline}
	})
	return append(out, more...), err
}

// leasePage is how many leases RequeueExpired reads per step.
const leasePage = 100

// RequeueExpired puts the element id back at the head of the queue
// ([queues.Reliable.Nack]) if its lease has expired, and reports whether it did.
// It looks for id among the expired leases only (they come first), so it costs
// O(log n + e) for e expired leases, plus the Nack. The check and the Nack are two
// steps: a worker that extends the lease between them loses it.
func (q reliable) RequeueExpired(ctx context.Context, id string) (bool, error) {
	now := q.now()
	for off := int64(0); ; off += leasePage {
		leases, err := q.q.InFlight(ctx, off, leasePage)
		if err != nil {
			return false, err
		}
		for _, l := range leases {
			if l.Deadline.After(now) {
				return false, nil
			}
			if l.ID == id {
				return q.q.Nack(ctx, l.Delivery)
			}
		}
		if len(leases) < leasePage {
			return false, nil
		}
	}
}
