package inspector

import (
	"context"
	"strconv"
	"strings"
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
// Every adapter implements [Canceler], with the cost of the queue type's removal:
// O(log n) by id for the sorted sets (a call, a party, a priority item, a delayed
// job, a future job) and O(n) by value for the lists (FIFO, Levels, the waiting
// elements of a reliable queue: LREM). The reliable queue also implements
// [LeaseRequeuer] ([queues.Reliable.Requeue], one atomic step that acts only on an
// expired lease) and [DeadMover] ([queues.Reliable.Retry]). An item's ID is what its
// action needs: the value itself for a FIFO, the level's index and the value for
// Levels, the queue's own id for the other sorted sets (the one Push, Schedule or
// AddFutureJob returned: its member), and the element id for a reliable queue
// (acted on by id for a cancel; for a requeue or a retry found by reading pages of
// its expired leases or dead elements, then acted on by id and payload, so a change
// in between makes the action report false, never act on another item).

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
	st := Stats{Depth: s.Depth, Due: s.Due, InFlight: s.InFlight, Dead: s.Dead, Oldest: s.OldestAge, HasOldest: s.HasAge,
		Activity: &Activity{Blocked: s.Blocked, Enqueued: s.Enqueued, Dequeued: s.Dequeued, Acked: s.Acked,
			Requeued: s.Requeued, Expired: s.ExpiredLeases, DeadLettered: s.DeadLettered, Cancelled: s.Cancelled},
		Retrying: s.Retrying, Paused: s.Paused}
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
// first, and it supports [Canceler]. Use it for the work queues of a
// [queues.Scheduler] too ([queues.Scheduler.Queue]).
func FIFO(name string, q *queues.FIFO) Queue { return fifo{base{name, KindFIFO, q.Stats, asIs}, q} }

type fifo struct {
	base
	q *queues.FIFO
}

func (q fifo) Items(ctx context.Context, offset, count int64) ([]Item, error) {
	page, err := q.q.Items(ctx, offset, count)
	return itemsOf(offset, page, err, func(v string) Item { return Item{ID: v, Value: v} })
}

// Cancel removes the waiting element equal to id served first ([queues.FIFO.Remove],
// O(n)).
func (q fifo) Cancel(ctx context.Context, id string) (bool, error) {
	n, err := q.q.Remove(ctx, id, 1)
	return n > 0, err
}

// Levels adapts a [queues.Levels] called name. Its items are the values of every
// level in serving order: the first level's, oldest first, then the next level's.
// A page reads the depth of every level (one step) and then the levels it spans, so
// a page that straddles two levels is read in two steps. It supports [Canceler].
func Levels(name string, q *queues.Levels) Queue {
	return levelQueue{base{name, KindLevels, q.Stats, asIs}, q, q.Names()}
}

type levelQueue struct {
	base
	q      *queues.Levels
	levels []string // q's levels, for the ids
}

// levelID is the id of value at level: "<index of level>:<value>". The complexity
// is O(number of levels).
func (q levelQueue) levelID(level, value string) string {
	for i, l := range q.levels {
		if l == level {
			return strconv.Itoa(i) + ":" + value
		}
	}
	return ""
}

// Cancel removes the waiting element that id names, the one served first among
// equal values at its level ([queues.Levels.Remove], O(n) for n at that level).
func (q levelQueue) Cancel(ctx context.Context, id string) (bool, error) {
	i, value, ok := strings.Cut(id, ":")
	n, err := strconv.Atoi(i)
	if !ok || err != nil || n < 0 || n >= len(q.levels) {
		return false, nil
	}
	removed, err := q.q.Remove(ctx, q.levels[n], value, 1)
	return removed > 0, err
}

func (q levelQueue) Items(ctx context.Context, offset, count int64) ([]Item, error) {
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
		it, err := itemsOf(before+skip, page, err, func(v string) Item {
			return Item{ID: q.levelID(l.Level, v), Value: v, Level: l.Level}
		})
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
// with their priorities in serving order, and it supports [Canceler].
func Priority(name string, q *queues.Priority) Queue {
	return priority{base{name, KindPriority, q.Stats, priorityLabel}, q}
}

type priority struct {
	base
	q *queues.Priority
}

func (q priority) Items(ctx context.Context, offset, count int64) ([]Item, error) {
	page, err := q.q.Items(ctx, offset, count)
	return itemsOf(offset, page, err, func(v queues.Item) Item {
		return Item{ID: v.ID, Value: v.Value, Priority: v.Priority}
	})
}

// Cancel removes the item id names ([queues.Priority.Remove], O(log n)); the
// queue's own ids are the inspector's.
func (q priority) Cancel(ctx context.Context, id string) (bool, error) {
	if id == "" {
		return false, nil
	}
	return q.q.Remove(ctx, id)
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
// in due order, due or not, with their due times, and it supports [Canceler]
// ([queues.Delayed.Cancel], O(log n)).
func Delayed(name string, q *queues.Delayed) Queue {
	return dueQueue{base{name, KindDelayed, q.Stats, asIs}, q.Items, q.Cancel}
}

// Scheduler adapts a [queues.Scheduler] called name; its items are the future jobs
// not yet moved, in due order, each shown as its JSON, and it supports [Canceler]
// ([queues.Scheduler.Cancel], O(log n)). Adapt the work queues it moves jobs into
// with [FIFO] ([queues.Scheduler.Queue]).
func Scheduler(name string, s *queues.Scheduler) Queue {
	return dueQueue{base{name, KindScheduler, s.Stats, asIs}, s.Items, s.Cancel}
}

type dueQueue struct {
	base
	items  func(ctx context.Context, offset, count int64) ([]queues.Job, error)
	cancel func(ctx context.Context, id string) (bool, error)
}

func (q dueQueue) Items(ctx context.Context, offset, count int64) ([]Item, error) {
	page, err := q.items(ctx, offset, count)
	return itemsOf(offset, page, err, func(j queues.Job) Item {
		return Item{ID: j.ID, Value: j.Payload, Due: j.Due}
	})
}

func (q dueQueue) Cancel(ctx context.Context, id string) (bool, error) {
	if id == "" {
		return false, nil
	}
	return q.cancel(ctx, id)
}

// Reliable adapts a [queues.Reliable] called name, reading the time from now (nil:
// time.Now; give the clock the queue was made with) to tell running leases from
// expired ones. Its items are the waiting elements as [queues.Reliable.Items]
// lists them (the ungrouped ones in serving order, then each group's), then the
// elements in processing, the earliest-expiring lease first, each with its lease
// expiry, then those waiting out a retry delay, the first due first, each with the
// time of its next attempt as Due, then the dead elements (made with
// [queues.WithMaxDeliveries]), the earliest to die first; it supports [Canceler] (a waiting element), [LeaseRequeuer],
// [DeadMover], [DeadLetters] and [Pauser] ([queues.Reliable.Pause], [queues.Reliable.Resume]).
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

// Items reads the number of waiting, leased, retrying and dead elements, then the
// page of those it spans: two to five steps, not one atomic snapshot.
func (q reliable) Items(ctx context.Context, offset, count int64) ([]Item, error) {
	s, err := q.q.Stats(ctx)
	if err != nil {
		return nil, err
	}
	now := q.now()
	parts := []struct {
		n    int64
		read func(offset, count int64) ([]Item, error)
	}{
		{s.Depth, func(offset, count int64) ([]Item, error) {
			page, err := q.q.Items(ctx, offset, count)
			return itemsOf(0, page, err, func(d queues.Delivery) Item { return deliveryItem(d, "") })
		}},
		{s.InFlight, func(offset, count int64) ([]Item, error) {
			page, err := q.q.InFlight(ctx, offset, count)
			return itemsOf(0, page, err, func(l queues.Lease) Item {
				st := StateLeased
				if !l.Deadline.After(now) {
					st = StateExpired
				}
				it := deliveryItem(l.Delivery, st)
				it.LeaseExpiry = l.Deadline
				return it
			})
		}},
		{s.Retrying, func(offset, count int64) ([]Item, error) {
			page, err := q.q.Retrying(ctx, offset, count)
			return itemsOf(0, page, err, func(l queues.Lease) Item {
				it := deliveryItem(l.Delivery, StateRetrying)
				it.Due = l.Deadline
				return it
			})
		}},
		{s.Dead, func(offset, count int64) ([]Item, error) {
			page, err := q.q.Dead(ctx, offset, count)
			return itemsOf(0, page, err, deadItem)
		}},
	}
	var out []Item
	var before int64 // items in the parts listed before this one
	for i, p := range parts {
		if count == 0 {
			break
		}
		last := i == len(parts)-1 // read to its end, whatever its count said
		if !last && offset-before >= p.n {
			before += p.n
			continue
		}
		skip, c := max(offset-before, 0), count
		if !last {
			c = min(count, p.n-skip)
		}
		it, err := p.read(skip, c)
		if err != nil {
			return nil, err
		}
		for j := range it {
			it[j].Position = before + skip + int64(j) + 1
		}
		out = append(out, it...)
		count -= int64(len(it))
		before += p.n
	}
	return out, nil
}

// deliveryItem is d as an Item in state st.
func deliveryItem(d queues.Delivery, st ItemState) Item {
	return Item{ID: d.ID, Value: d.Payload, State: st, Group: d.Group, Attempt: d.Attempt, LastError: d.LastError, Enqueued: d.Enqueued}
}

func deadItem(d queues.DeadElement) Item {
	it := deliveryItem(d.Delivery, StateDead)
	it.Died = d.Died
	return it
}

// DeadItems returns a page of the dead elements, the earliest to die first
// ([queues.Reliable.Dead], O(log n + count)).
func (q reliable) DeadItems(ctx context.Context, offset, count int64) ([]Item, error) {
	page, err := q.q.Dead(ctx, offset, count)
	return itemsOf(offset, page, err, deadItem)
}

// RetryAllDead moves every dead element back to the head of the queue in one
// atomic step ([queues.Reliable.RetryAll], O(d log d) for d dead).
func (q reliable) RetryAllDead(ctx context.Context) (int64, error) { return q.q.RetryAll(ctx) }

// DeleteDead drops the dead element id for good ([queues.Reliable.DeleteDead]). It
// looks for id among the dead elements, O(log n + d) for d dead.
func (q reliable) DeleteDead(ctx context.Context, id string) (bool, error) {
	d, ok, err := find(ctx, q.q.Dead, func(d queues.DeadElement) (bool, bool) { return d.ID == id, false })
	if !ok || err != nil {
		return false, err
	}
	return q.q.DeleteDead(ctx, d.Delivery)
}

// findPage is how many elements a lookup by id reads per step.
const findPage = 100

// find reads pages of list from the start until match says it found id (ok) or
// says to stop (stop), and returns what it found.
func find[T any](ctx context.Context, list func(ctx context.Context, offset, count int64) ([]T, error),
	match func(T) (found, stop bool)) (T, bool, error) {
	var zero T
	for off := int64(0); ; off += findPage {
		page, err := list(ctx, off, findPage)
		if err != nil {
			return zero, false, err
		}
		for _, v := range page {
			if found, stop := match(v); found || stop {
				return v, found, nil
			}
		}
		if len(page) < findPage {
			return zero, false, nil
		}
	}
}

// Cancel removes the waiting element id ([queues.Reliable.Remove], O(n) for n
// waiting).
func (q reliable) Cancel(ctx context.Context, id string) (bool, error) {
	if id == "" {
		return false, nil
	}
	return q.q.Remove(ctx, id)
}

// RequeueExpired puts the element id back at the head of the queue if its lease has
// expired ([queues.Reliable.Requeue], one atomic step that checks the expiry
// itself, so a lease extended meanwhile is left alone), and reports whether it did.
// It looks for id among the expired leases only (they come first), so it costs
// O(log n + e) for e expired leases, plus the Requeue.
func (q reliable) RequeueExpired(ctx context.Context, id string) (bool, error) {
	now := q.now()
	l, ok, err := find(ctx, q.q.InFlight, func(l queues.Lease) (bool, bool) {
		return l.ID == id && !l.Deadline.After(now), l.Deadline.After(now)
	})
	if !ok || err != nil {
		return false, err
	}
	return q.q.Requeue(ctx, l.Delivery)
}

// MoveDeadBack puts the dead element id back at the head of the queue with fresh
// deliveries ([queues.Reliable.Retry], O(log n)). It looks for id among the dead
// elements, the earliest to die first, O(log n + d) for d dead.
func (q reliable) MoveDeadBack(ctx context.Context, id string) (bool, error) {
	d, ok, err := find(ctx, q.q.Dead, func(d queues.DeadElement) (bool, bool) { return d.ID == id, false })
	if !ok || err != nil {
		return false, err
	}
	return q.q.Retry(ctx, d.Delivery)
}

// Pause pauses the queue ([queues.Reliable.Pause]): consumers get nothing until
// [queues.Reliable.Resume]. It reports whether the queue was running. O(log n).
func (q reliable) Pause(ctx context.Context) (bool, error) { return q.q.Pause(ctx) }

// Resume resumes a paused queue ([queues.Reliable.Resume]) and reports whether it
// was paused. O(log n).
func (q reliable) Resume(ctx context.Context) (bool, error) { return q.q.Resume(ctx) }

// Paused reports whether the queue is paused ([queues.Reliable.Paused]). O(log n).
func (q reliable) Paused(ctx context.Context) (bool, error) { return q.q.Paused(ctx) }
