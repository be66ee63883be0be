package queues

import (
	"context"
	"math"
	"strconv"
	"time"
)

// Paging through a queue in serving order: every queue type has an Items method
// (offset, count) that returns one page in one atomic step, for inspectors and
// "you are 5th" screens. Pages are read independently: a queue that changes between
// two calls may show an item on both pages or on neither.

// page runs the read step s over the ranks [offset, offset+count) and returns its
// reply array; nothing is read when count is 0. The exported callers check the range
// first ([where.checkRange]), so that the error names the queue; a negative one here
// reads nothing.
func page(ctx context.Context, b Backend, s *Script, keys []string, offset, count int64) ([]any, error) {
	if offset < 0 || count <= 0 {
		return nil, nil
	}
	stop := int64(math.MaxInt64)
	if count <= math.MaxInt64-offset {
		stop = offset + count - 1
	}
	r, err := b.Eval(ctx, s, keys, fmtInt(offset), fmtInt(stop))
	if err != nil {
		return nil, err
	}
	return replyArray(r)
}

func parseInt(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// zsetPage reads ranks ARGV[1]..ARGV[2] of the sorted set KEYS[1] with their scores,
// as a flat array member, score, member, score…
var zsetPage = NewScript(`
return redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[2], 'WITHSCORES')
`, func(tx Tx, keys, args []string) (any, error) {
	zs, err := tx.ZRangeWithScores(keys[0], parseInt(args[0]), parseInt(args[1]))
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, 2*len(zs))
	for _, z := range zs {
		out = append(out, z.Member, fmtFloat(z.Score))
	}
	return out, nil
})

// listPage reads the list KEYS[1] in the order BRPOP serves it (from its right end),
// skipping ARGV[1] elements and stopping after the one at serving rank ARGV[2].
var listPage = NewScript(`
local n = redis.call('LLEN', KEYS[1])
local first, last = tonumber(ARGV[1]), tonumber(ARGV[2])
if first >= n then return {} end
if last >= n then last = n - 1 end
local r = redis.call('LRANGE', KEYS[1], n - 1 - last, n - 1 - first)
local out = {}
for i = #r, 1, -1 do out[#out+1] = r[i] end
return out
`, func(tx Tx, keys, args []string) (any, error) {
	n, err := tx.LLen(keys[0])
	if err != nil {
		return nil, err
	}
	first, last := parseInt(args[0]), parseInt(args[1])
	if first >= n {
		return []any{}, nil
	}
	last = min(last, n-1)
	r, err := tx.LRange(keys[0], n-1-last, n-1-first)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(r))
	for i, v := range r {
		out[len(r)-1-i] = v
	}
	return out, nil
})

// listItems returns one page of the list key in serving order.
func listItems(ctx context.Context, b Backend, key string, offset, count int64) ([]string, error) {
	a, err := page(ctx, b, listPage, []string{key}, offset, count)
	if err != nil || len(a) == 0 {
		return nil, err
	}
	out := make([]string, len(a))
	for i, v := range a {
		out[i] = replyString(v)
	}
	return out, nil
}

// Removing waiting items: every queue type can take an item out before it is
// served, each in one atomic step, at the cost its data structure allows: by id in
// O(log n) from the sorted sets ([Priority.Remove], [Delayed.Cancel],
// [Scheduler.Cancel], [CallQueue.Cancel], [Waitlist.Leave]), by id in O(n) from a
// reliable queue ([Reliable.Remove]) and by value in O(n) from the other lists
// ([FIFO.Remove], [Levels.Remove]: LREM, which walks the list).

// listRemove is LREM KEYS[1] ARGV[1] ARGV[2].
var listRemove = NewScript(`
return redis.call('LREM', KEYS[1], ARGV[1], ARGV[2])
`, func(tx Tx, keys, args []string) (any, error) {
	return tx.LRem(keys[0], parseInt(args[0]), args[1])
})

// removeValue removes up to count elements equal to value from the list key, those
// served first (count 0: all), and returns how many it removed. The caller has
// checked that count ≥ 0.
func removeValue(ctx context.Context, b Backend, key, value string, count int64) (int64, error) {
	// A negative LREM count removes from the right end, the one BRPOP serves.
	r, err := b.Eval(ctx, listRemove, []string{key}, fmtInt(-count), value)
	return replyInt(r), err
}

// Remove takes up to count elements equal to value out of the queue, those that
// would be served first (count 0: every one), and returns how many it removed. It
// returns [ErrBadRange] for a negative count. The complexity is O(n) (LREM).
func (q *FIFO) Remove(ctx context.Context, value string, count int64) (int64, error) {
	if count < 0 {
		return 0, q.at.fail("remove", value, ErrBadRange)
	}
	n, err := removeValue(ctx, q.b, q.key, value, count)
	q.st.cancelN(n)
	return n, err
}

// Remove takes up to count elements equal to value out of level, those that would
// be served first (count 0: every one), and returns how many it removed; it returns
// [ErrUnknownLevel] or, for a negative count, [ErrBadRange]. The complexity is O(n)
// for n elements at level (LREM).
func (q *Levels) Remove(ctx context.Context, level, value string, count int64) (int64, error) {
	i, ok := q.index[level]
	if !ok {
		return 0, q.at.failLevel("remove", level, ErrUnknownLevel)
	}
	if count < 0 {
		return 0, &Error{Type: q.at.typ, Queue: q.name, Op: "remove", ID: value, Level: level, Err: ErrBadRange}
	}
	n, err := removeValue(ctx, q.b, q.keys[i], value, count)
	q.st.cancelN(n)
	return n, err
}

// zsetRemove removes the member ARGV[1] from the sorted set KEYS[1] (ZREM).
var zsetRemove = NewScript(`
return redis.call('ZREM', KEYS[1], ARGV[1])
`, func(tx Tx, keys, args []string) (any, error) {
	return tx.ZRem(keys[0], args[0])
})

// removeMember removes member from the sorted set key and reports whether it was
// there, counting it in st.
func removeMember(ctx context.Context, b Backend, st *counters, key, member string) (bool, error) {
	r, err := b.Eval(ctx, zsetRemove, []string{key}, member)
	if replyInt(r) > 0 {
		st.cancel()
	}
	return replyInt(r) > 0, err
}

// Remove takes the waiting item id (as returned by [Priority.Push] and listed by
// [Priority.Items]) out of the queue and reports whether it was there. It returns
// [ErrEmptyID] for an empty id. The complexity is O(log n).
func (q *Priority) Remove(ctx context.Context, id string) (bool, error) {
	if id == "" {
		return false, q.at.fail("remove", id, ErrEmptyID)
	}
	return removeMember(ctx, q.b, q.st, q.items, id)
}

// Cancel takes the scheduled job id (as returned by [Delayed.Schedule] and listed
// by [Delayed.Items]) out of the queue, due or not, and reports whether it was
// there. It returns [ErrEmptyID] for an empty id. The complexity is O(log n).
func (q *Delayed) Cancel(ctx context.Context, id string) (bool, error) {
	if id == "" {
		return false, q.at.fail("cancel", id, ErrEmptyID)
	}
	return removeMember(ctx, q.b, q.st, q.due, id)
}

// Cancel takes the future job id (as returned by [Scheduler.AddFutureJob] and
// listed by [Scheduler.Items]) out of the scheduler before it is moved, and reports
// whether it was there. It returns [ErrEmptyID] for an empty id. The complexity is
// O(log n).
func (s *Scheduler) Cancel(ctx context.Context, id string) (bool, error) {
	if id == "" {
		return false, s.at.fail("cancel", id, ErrEmptyID)
	}
	return removeMember(ctx, s.b, s.st, s.jobs, id)
}

// Item is a value waiting in a [Priority] queue, with its priority and its id (as
// returned by [Priority.Push]: its member, the arrival sequence followed by the
// value; unique per pushed value), which [Priority.Remove] takes.
type Item struct {
	ID       string
	Value    string
	Priority float64
}

// Items returns up to count waiting values in serving order (oldest first),
// skipping the first offset. It returns [ErrBadRange] when offset or count is
// negative. The complexity is O(log n + k) for k values returned on the embedded
// backend and O(min(offset, n−offset) + k) on Redis, whose LRANGE walks from the
// nearer end.
func (q *FIFO) Items(ctx context.Context, offset, count int64) ([]string, error) {
	if err := q.at.checkRange("items", offset, count); err != nil {
		return nil, err
	}
	return listItems(ctx, q.b, q.key, offset, count)
}

// Items returns up to count values waiting at level in serving order, skipping the
// first offset, or [ErrUnknownLevel]. The complexity is as for [FIFO.Items].
func (q *Levels) Items(ctx context.Context, level string, offset, count int64) ([]string, error) {
	i, ok := q.index[level]
	if !ok {
		return nil, q.at.failLevel("items", level, ErrUnknownLevel)
	}
	if err := q.at.checkRange("items", offset, count); err != nil {
		return nil, err
	}
	return listItems(ctx, q.b, q.keys[i], offset, count)
}

// reliableWaitingPage reads ranks ARGV[1]..ARGV[2] of the waiting elements: the
// ungrouped ones in the order BLMOVE serves them, then those of each group's list
// in the order "{name}:groups" holds the groups, each list in serving order.
var reliableWaitingPage = NewScript(luaRequeue+`
local first, last = tonumber(ARGV[1]), tonumber(ARGV[2])
local out, before = {}, 0
local function take(k)
  local n = redis.call('LLEN', k)
  if first < before + n then
    local a, b = math.max(first - before, 0), math.min(last - before, n - 1)
    local r = redis.call('LRANGE', k, n - 1 - b, n - 1 - a)
    for i = #r, 1, -1 do out[#out + 1] = r[i] end
  end
  before = before + n
end
take(KEYS[1])
for _, g in ipairs(redis.call('ZRANGE', KEYS[11], 0, -1)) do
  if before > last then break end
  take(gkey('g:', g))
end
return out
`, func(tx Tx, keys, args []string) (any, error) {
	first, last := parseInt(args[0]), parseInt(args[1])
	out := []any{}
	var before int64
	take := func(k string) error {
		n, err := tx.LLen(k)
		if err != nil || first >= before+n {
			before += n
			return err
		}
		a, b := max(first-before, 0), min(last-before, n-1)
		r, err := tx.LRange(k, n-1-b, n-1-a)
		for i := len(r) - 1; i >= 0; i-- {
			out = append(out, r[i])
		}
		before += n
		return err
	}
	if err := take(keys[0]); err != nil {
		return nil, err
	}
	gs, err := tx.ZRangeWithScores(keys[10], 0, -1)
	for _, g := range gs {
		if err != nil || before > last {
			break
		}
		err = take(groupKey(keys, "g:", g.Member))
	}
	return out, err
})

// Items returns up to count waiting elements, skipping the first offset, with
// their metadata ([Delivery]): the ungrouped ones in serving order, then, with
// [WithGroupRateLimit], each group's elements in serving order, the groups in the
// order Pop looks at them (which changes as groups are served); elements in
// processing are listed by [Reliable.InFlight] and those waiting out a retry delay
// by [Reliable.Retrying]. It is two steps, the page and then its metadata. The
// complexity is as for [FIFO.Items], plus O(k) for the metadata, plus with groups
// O(g log g) for the g groups with waiting elements.
func (q *Reliable) Items(ctx context.Context, offset, count int64) ([]Delivery, error) {
	if err := q.at.checkRange("items", offset, count); err != nil {
		return nil, err
	}
	a, err := page(ctx, q.b, reliableWaitingPage, q.keys(), offset, count)
	out := make([]Delivery, len(a))
	ds := make([]*Delivery, len(a))
	for i, e := range a {
		out[i] = delivery(replyString(e))
		ds[i] = &out[i]
	}
	if err != nil {
		return out, err
	}
	return out, q.withInfo(ctx, ds)
}

// Lease is an element in processing and the time its lease expires.
type Lease struct {
	Delivery
	Deadline time.Time
}

// InFlight returns up to count elements in processing, the earliest-expiring lease
// first, skipping the first offset. An element whose worker died before leasing it
// is not listed until [Reliable.Reap] leases it. The complexity is O(log n + k).
func (q *Reliable) InFlight(ctx context.Context, offset, count int64) ([]Lease, error) {
	if err := q.at.checkRange("inflight", offset, count); err != nil {
		return nil, err
	}
	return q.timedLeases(ctx, q.leases, offset, count)
}

// Retrying returns up to count elements waiting out a retry delay ([WithRetry]),
// the first due first, skipping the first offset; each Lease's Deadline is when the
// element is due again, and its Delivery has the metadata of the next attempt. It
// returns [ErrBadRange] when offset or count is negative. It is two steps, as
// [Reliable.Items]. The complexity is O(log n + k).
func (q *Reliable) Retrying(ctx context.Context, offset, count int64) ([]Lease, error) {
	if err := q.at.checkRange("retrying", offset, count); err != nil {
		return nil, err
	}
	return q.timedLeases(ctx, q.retries, offset, count)
}

// timedLeases reads a page of the leases or the retry set, with metadata.
func (q *Reliable) timedLeases(ctx context.Context, key string, offset, count int64) ([]Lease, error) {
	var out []Lease
	err := q.timedPage(ctx, key, offset, count, func(d Delivery, t time.Time) {
		out = append(out, Lease{d, t})
	})
	if err != nil {
		return out, err
	}
	ds := make([]*Delivery, len(out))
	for i := range out {
		ds[i] = &out[i].Delivery
	}
	return out, q.withInfo(ctx, ds)
}

// timedPage reads a page of the sorted set key, whose members are deliveries and
// whose scores are Unix microseconds (the leases, the dead set), calling each in order.
func (q *Reliable) timedPage(ctx context.Context, key string, offset, count int64, each func(Delivery, time.Time)) error {
	a, err := page(ctx, q.b, zsetPage, []string{key}, offset, count)
	for i := 0; i+1 < len(a); i += 2 {
		each(delivery(replyString(a[i])), time.UnixMicro(int64(replyFloat(a[i+1]))))
	}
	return err
}

// Items returns up to count waiting values in serving order with their priorities,
// skipping the first offset. The complexity is O(log n + k).
func (q *Priority) Items(ctx context.Context, offset, count int64) ([]Item, error) {
	if err := q.at.checkRange("items", offset, count); err != nil {
		return nil, err
	}
	a, err := page(ctx, q.b, zsetPage, []string{q.items}, offset, count)
	out := make([]Item, 0, len(a)/2)
	for i := 0; i+1 < len(a); i += 2 {
		m := replyString(a[i])
		out = append(out, Item{m, stripSeq(m), q.priority(replyFloat(a[i+1]))})
	}
	return out, err
}

// Items returns up to count scheduled jobs in due order, due or not, skipping the
// first offset. The complexity is O(log n + k).
func (q *Delayed) Items(ctx context.Context, offset, count int64) ([]Job, error) {
	if err := q.at.checkRange("items", offset, count); err != nil {
		return nil, err
	}
	return dueItems(ctx, q.b, q.due, offset, count)
}

// Items returns up to count future jobs not yet moved, in due order, skipping the
// first offset; each Job's Payload is the job's JSON form. The complexity is
// O(log n + k).
func (s *Scheduler) Items(ctx context.Context, offset, count int64) ([]Job, error) {
	if err := s.at.checkRange("items", offset, count); err != nil {
		return nil, err
	}
	return dueItems(ctx, s.b, s.jobs, offset, count)
}

func dueItems(ctx context.Context, b Backend, key string, offset, count int64) ([]Job, error) {
	a, err := page(ctx, b, zsetPage, []string{key}, offset, count)
	out := make([]Job, 0, len(a)/2)
	for i := 0; i+1 < len(a); i += 2 {
		m := replyString(a[i])
		out = append(out, Job{ID: m, Payload: stripSeq(m), Due: time.UnixMicro(int64(replyFloat(a[i+1])))})
	}
	return out, err
}

var callItems = NewScript(`
local r = redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[2], 'WITHSCORES')
local out = {}
for i = 1, #r, 2 do
  out[#out+1] = r[i]
  out[#out+1] = r[i+1]
  out[#out+1] = redis.call('ZSCORE', KEYS[2], r[i])
end
return out
`, func(tx Tx, keys, args []string) (any, error) {
	zs, err := tx.ZRangeWithScores(keys[0], parseInt(args[0]), parseInt(args[1]))
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, 3*len(zs))
	for _, z := range zs {
		since, _, err := tx.ZScore(keys[1], z.Member)
		if err != nil {
			return nil, err
		}
		out = append(out, z.Member, fmtFloat(z.Score), fmtFloat(since))
	}
	return out, nil
})

// Items returns up to count waiting calls in serving order (highest priority,
// then earliest), skipping the first offset: the call at offset i has
// [CallQueue.Position] i+1. The complexity is O(log n + k log n).
func (q *CallQueue) Items(ctx context.Context, offset, count int64) ([]Call, error) {
	if err := q.at.checkRange("items", offset, count); err != nil {
		return nil, err
	}
	a, err := page(ctx, q.b, callItems, q.keys(), offset, count)
	return q.decodeCalls(a), err
}
