package queues

import (
	"context"
	"time"
)

// Reliable is for work that must not be lost when a worker dies mid-job: an
// at-least-once work queue. Pop moves an element from the list "{name}:ready" into the
// list "{name}:processing" (BLMOVE, atomic) and gives it a lease in the sorted set
// "{name}:leases" (score: deadline in Unix microseconds). [Reliable.Ack] removes a
// finished element; [Reliable.Nack] puts it back at the head of the queue; and
// [Reliable.Reap], run periodically, puts back every element whose lease expired, so
// a worker that dies mid-job loses nothing ([Reliable.Requeue] does so for one
// element). [Reliable.Remove] takes a waiting element out before it is delivered.
//
// Delivery is at least once: an element is delivered again only after its lease
// expired (or after a Nack), so a worker that is merely slow may see its job run
// twice; size the lease to the work, or call [Reliable.Extend]. Reap also gives a
// lease to any element found in processing without one (a worker that died between
// BLMOVE and the lease), so such an element returns after one more lease period.
// Each element carries a unique id (the arrival sequence), so equal payloads are
// distinct deliveries.
//
// With [WithMaxDeliveries](n), an element whose n-th delivery fails (Nack, or a
// lease that expires and is reaped or requeued) goes to the dead-letter sorted set
// "{name}:dead" (score: when it died, Unix microseconds) instead of back to the
// queue; the failures so far are counted in the sorted set "{name}:failures"
// (member: the element, score: its failed deliveries), which holds only elements
// that failed at least once and not yet finished. [Reliable.Dead] lists the dead
// elements and [Reliable.Retry] moves one back. Without the option nothing dies and
// no failure is counted.
//
// Reliable is safe for concurrent use.
type Reliable struct {
	b                                             Backend
	name                                          string
	st                                            *counters
	clock                                         nower
	lease                                         time.Duration
	maxDeliveries                                 string
	at                                            where
	ready, processing, leases, meta, dead, failed string
}

// Delivery is an element handed to a worker by [Reliable.Pop].
type Delivery struct {
	ID      string // as returned by [Reliable.Push]: unique per pushed element
	Payload string // as pushed
}

func (d Delivery) elem() string { return d.ID + d.Payload }

// delivery splits a queued element into its id and payload.
func delivery(e string) Delivery {
	return Delivery{ID: seqID(e), Payload: stripSeq(e)}
}

// NewReliable returns the reliable queue called name on b. It uses the options
// [WithLease] (30 s by default), [WithMaxDeliveries] (unlimited by default),
// [WithClock] and [WithStats]. It panics if name is empty.
func NewReliable(b Backend, name string, opts ...Option) *Reliable {
	checkName("Reliable", name)
	cfg := newConfig(opts)
	return &Reliable{b: b, name: name, st: newCounters(cfg, false), clock: cfg.clock, lease: cfg.lease,
		maxDeliveries: fmtInt(cfg.maxDeliveries), at: where{"reliable", name},
		ready: key(name, "ready"), processing: key(name, "processing"), leases: key(name, "leases"),
		meta: key(name, "meta"), dead: key(name, "dead"), failed: key(name, "failures")}
}

// keys are, in order: KEYS[1] ready, [2] processing, [3] leases, [4] meta, [5] dead,
// [6] failures.
func (q *Reliable) keys() []string {
	return []string{q.ready, q.processing, q.leases, q.meta, q.dead, q.failed}
}

// luaFail defines fail(m, max, now) in a Lua script: the element m, just taken out
// of processing, failed a delivery. With max > 0 its failures are counted, and at
// the max-th it moves to the dead set (reply 2); otherwise it goes back to the head
// of the queue (reply 1). goFail is its Go half.
const luaFail = `
local function fail(m, max, now)
  if max > 0 and tonumber(redis.call('ZINCRBY', KEYS[6], 1, m)) >= max then
    redis.call('ZREM', KEYS[6], m)
    redis.call('ZADD', KEYS[5], now, m)
    return 2
  end
  redis.call('RPUSH', KEYS[1], m)
  return 1
end
`

// The replies of fail: where a failed element went.
const (
	failRequeued int64 = 1
	failDead     int64 = 2
)

func goFail(tx Tx, keys []string, m, max, now string) (int64, error) {
	if n := parseInt(max); n > 0 {
		f, err := tx.ZIncrBy(keys[5], 1, m)
		if err != nil {
			return 0, err
		}
		if f >= float64(n) {
			if _, err := tx.ZRem(keys[5], m); err != nil {
				return 0, err
			}
			at, _ := parseScore(now)
			_, err := tx.ZAdd(keys[4], at, m)
			return failDead, err
		}
	}
	_, err := tx.RPush(keys[0], m)
	return failRequeued, err
}

// countFail counts what fail replied: an element requeued or dead.
func (q *Reliable) countFail(r any) {
	switch replyInt(r) {
	case failRequeued:
		q.st.requeue(1)
	case failDead:
		q.st.die(1)
	}
}

var reliablePush = NewScript(luaSeq+`
local s = seq(KEYS[4])
redis.call('LPUSH', KEYS[1], s .. ARGV[1])
return s
`, func(tx Tx, keys, args []string) (any, error) {
	s, err := nextSeq(tx, keys[3])
	if err != nil {
		return nil, err
	}
	_, err = tx.LPush(keys[0], s+args[0])
	return s, err
})

// Push appends payload to the queue and returns the id of the new element, which
// [Delivery].ID repeats and [Reliable.Remove] takes. The complexity is O(1).
func (q *Reliable) Push(ctx context.Context, payload string) (id string, err error) {
	r, err := q.b.Eval(ctx, reliablePush, q.keys(), payload)
	if err != nil {
		return "", err
	}
	q.st.enq(1)
	return replyString(r), nil
}

var reliableLease = NewScript(`
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
return 1
`, func(tx Tx, keys, args []string) (any, error) {
	deadline, _ := parseScore(args[1])
	_, err := tx.ZAdd(keys[2], deadline, args[0])
	return int64(1), err
})

// Pop moves the oldest element into processing with a lease (BLMOVE, then ZADD),
// waiting up to timeout (0: until ctx is done). Timeout and cancellation behave as in
// [FIFO.Pop]: an element taken is leased and returned even if ctx ended meanwhile.
// If the lease cannot be written, Pop returns the delivery (ok == true) with the
// error; the element is then in processing without a lease, and [Reliable.Reap]
// leases it. The complexity is O(log n).
func (q *Reliable) Pop(ctx context.Context, timeout time.Duration) (Delivery, bool, error) {
	q.st.enter()
	e, ok, err := q.b.BLMove(ctx, q.ready, q.processing, "RIGHT", "LEFT", timeout)
	q.st.leave(ok)
	if !ok || err != nil {
		return Delivery{}, ok, err
	}
	d := delivery(e)
	deadline := micros(q.clock.Now().Add(q.lease))
	_, _, err = afterWake(ctx, func(ctx context.Context) (struct{}, bool, error) {
		_, err := q.b.Eval(ctx, reliableLease, q.keys(), e, fmtInt(deadline))
		return struct{}{}, true, err
	})
	return d, true, err
}

var reliableAck = NewScript(`
local n = redis.call('LREM', KEYS[2], 1, ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[6], ARGV[1])
return n
`, func(tx Tx, keys, args []string) (any, error) {
	n, err := tx.LRem(keys[1], 1, args[0])
	if err != nil {
		return nil, err
	}
	if _, err = tx.ZRem(keys[2], args[0]); err != nil {
		return nil, err
	}
	_, err = tx.ZRem(keys[5], args[0])
	return n, err
})

// Ack marks d done, removing it from processing, and reports whether it was there.
// It is false when d's lease expired and Reap put it back in the queue (it will be
// delivered again). If it was put back and delivered again already, Ack completes
// that delivery as well: the job is done, and the other worker's Ack reports false.
// The complexity is O(p + log n) for p elements in processing.
func (q *Reliable) Ack(ctx context.Context, d Delivery) (bool, error) {
	r, err := q.b.Eval(ctx, reliableAck, q.keys(), d.elem())
	if replyInt(r) > 0 {
		q.st.ack()
	}
	return replyInt(r) > 0, err
}

var reliableNack = NewScript(luaFail+`
if redis.call('LREM', KEYS[2], 1, ARGV[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[3], ARGV[1])
return fail(ARGV[1], tonumber(ARGV[2]), ARGV[3])
`, func(tx Tx, keys, args []string) (any, error) {
	n, err := tx.LRem(keys[1], 1, args[0])
	if err != nil || n == 0 {
		return int64(0), err
	}
	if _, err := tx.ZRem(keys[2], args[0]); err != nil {
		return nil, err
	}
	return goFail(tx, keys, args[0], args[1], args[2])
})

// Nack gives d up: it leaves processing and becomes the next element to be popped,
// or, when this was its last delivery under [WithMaxDeliveries], goes to the dead
// set. It reports whether d was in processing. The complexity is O(p + log n) for p
// elements in processing.
func (q *Reliable) Nack(ctx context.Context, d Delivery) (bool, error) {
	r, err := q.b.Eval(ctx, reliableNack, q.keys(), d.elem(), q.maxDeliveries, fmtInt(micros(q.clock.Now())))
	q.countFail(r)
	return replyInt(r) > 0, err
}

var reliableRequeue = NewScript(luaFail+`
local deadline = redis.call('ZSCORE', KEYS[3], ARGV[1])
if not deadline or tonumber(deadline) > tonumber(ARGV[3]) then return 0 end
redis.call('ZREM', KEYS[3], ARGV[1])
if redis.call('LREM', KEYS[2], 1, ARGV[1]) == 0 then return 0 end
return fail(ARGV[1], tonumber(ARGV[2]), ARGV[3])
`, func(tx Tx, keys, args []string) (any, error) {
	deadline, ok, err := tx.ZScore(keys[2], args[0])
	if err != nil || !ok || deadline > float64(parseInt(args[2])) {
		return int64(0), err
	}
	if _, err := tx.ZRem(keys[2], args[0]); err != nil {
		return nil, err
	}
	n, err := tx.LRem(keys[1], 1, args[0])
	if err != nil || n == 0 {
		return int64(0), err
	}
	return goFail(tx, keys, args[0], args[1], args[2])
})

// Requeue does for d alone what [Reliable.Reap] does for every expired lease, in one
// atomic step: if d's lease has expired, d leaves processing and goes back to the
// head of the queue (or to the dead set, as for [Reliable.Nack]). It reports whether
// it did; it does nothing to a lease still running, so a worker that extended its
// lease in time keeps it. The complexity is O(p + log n) for p elements in
// processing.
func (q *Reliable) Requeue(ctx context.Context, d Delivery) (bool, error) {
	r, err := q.b.Eval(ctx, reliableRequeue, q.keys(), d.elem(), q.maxDeliveries, fmtInt(micros(q.clock.Now())))
	if replyInt(r) > 0 {
		q.st.expire(1)
	}
	q.countFail(r)
	return replyInt(r) > 0, err
}

var reliableExtend = NewScript(`
if not redis.call('ZSCORE', KEYS[3], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
return 1
`, func(tx Tx, keys, args []string) (any, error) {
	if _, ok, err := tx.ZScore(keys[2], args[0]); err != nil || !ok {
		return int64(0), err
	}
	deadline, _ := parseScore(args[1])
	_, err := tx.ZAdd(keys[2], deadline, args[0])
	return int64(1), err
})

// Extend renews d's lease for another lease period from now, and reports whether d
// still held a lease. The complexity is O(log n).
func (q *Reliable) Extend(ctx context.Context, d Delivery) (bool, error) {
	deadline := micros(q.clock.Now().Add(q.lease))
	r, err := q.b.Eval(ctx, reliableExtend, q.keys(), d.elem(), fmtInt(deadline))
	return replyInt(r) > 0, err
}

var reliableReap = NewScript(luaFail+`
local n = {0, 0}
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])) do
  redis.call('ZREM', KEYS[3], m)
  if redis.call('LREM', KEYS[2], 1, m) > 0 then
    local r = fail(m, tonumber(ARGV[3]), ARGV[1])
    n[r] = n[r] + 1
  end
end
for _, m in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
  if not redis.call('ZSCORE', KEYS[3], m) then redis.call('ZADD', KEYS[3], ARGV[2], m) end
end
return n
`, func(tx Tx, keys, args []string) (any, error) {
	expired, err := tx.ZRangeByScoreWithScores(keys[2], "-inf", args[0], 0, -1)
	if err != nil {
		return nil, err
	}
	var requeued, dead int64
	for _, z := range expired {
		if _, err := tx.ZRem(keys[2], z.Member); err != nil {
			return nil, err
		}
		k, err := tx.LRem(keys[1], 1, z.Member)
		if err != nil {
			return nil, err
		}
		if k > 0 {
			r, err := goFail(tx, keys, z.Member, args[2], args[0])
			if err != nil {
				return nil, err
			}
			if r == failDead {
				dead++
			} else {
				requeued++
			}
		}
	}
	inFlight, err := tx.LRange(keys[1], 0, -1)
	if err != nil {
		return nil, err
	}
	lease, _ := parseScore(args[1])
	for _, m := range inFlight {
		_, ok, err := tx.ZScore(keys[2], m)
		if err != nil {
			return nil, err
		}
		if !ok {
			if _, err := tx.ZAdd(keys[2], lease, m); err != nil {
				return nil, err
			}
		}
	}
	return []any{requeued, dead}, nil
})

// Reap puts every element whose lease has expired back at the head of the queue (or
// in the dead set, when that was its last delivery under [WithMaxDeliveries]) and
// returns how many expired leases it ended; elements in processing without a lease
// get one. Run it periodically (say every lease/2). The complexity is O(p log n)
// for p elements in processing.
func (q *Reliable) Reap(ctx context.Context) (int64, error) {
	now := q.clock.Now()
	r, err := q.b.Eval(ctx, reliableReap, q.keys(), fmtInt(micros(now)), fmtInt(micros(now.Add(q.lease))), q.maxDeliveries)
	a, _ := replyArray(r)
	if len(a) != 2 {
		return 0, err
	}
	requeued, dead := replyInt(a[0]), replyInt(a[1])
	q.st.expire(requeued + dead)
	q.st.requeue(requeued)
	q.st.die(dead)
	return requeued + dead, err
}

// reliableRemove removes the waiting element whose id is ARGV[1], looking from the
// end served first, and forgets its failures.
var reliableRemove = NewScript(`
local l = redis.call('LRANGE', KEYS[1], 0, -1)
for i = #l, 1, -1 do
  if string.sub(l[i], 1, 16) == ARGV[1] then
    redis.call('LREM', KEYS[1], -1, l[i])
    redis.call('ZREM', KEYS[6], l[i])
    return 1
  end
end
return 0
`, func(tx Tx, keys, args []string) (any, error) {
	l, err := tx.LRange(keys[0], 0, -1)
	if err != nil {
		return nil, err
	}
	for i := len(l) - 1; i >= 0; i-- {
		if seqID(l[i]) != args[0] {
			continue
		}
		if _, err := tx.LRem(keys[0], -1, l[i]); err != nil {
			return nil, err
		}
		_, err := tx.ZRem(keys[5], l[i])
		return int64(1), err
	}
	return int64(0), nil
})

// Remove takes the waiting element id (as returned by [Reliable.Push] and listed by
// [Reliable.Items]) out of the queue, so that it is never delivered, and reports
// whether it was waiting; an element in processing is not removed (Ack it). It
// returns [ErrEmptyID] for an empty id. The complexity is O(n) for n waiting
// elements (one pass over the list, as LREM makes).
func (q *Reliable) Remove(ctx context.Context, id string) (bool, error) {
	if id == "" {
		return false, q.at.fail("remove", id, ErrEmptyID)
	}
	r, err := q.b.Eval(ctx, reliableRemove, q.keys(), id)
	if replyInt(r) > 0 {
		q.st.cancel()
	}
	return replyInt(r) > 0, err
}

// DeadElement is an element in the dead set of a [Reliable] queue and when it died.
type DeadElement struct {
	Delivery
	Died time.Time
}

// Dead returns up to count dead elements, the earliest to die first, skipping the
// first offset. It returns [ErrBadRange] when offset or count is negative. The
// complexity is O(log n + k).
func (q *Reliable) Dead(ctx context.Context, offset, count int64) ([]DeadElement, error) {
	if err := q.at.checkRange("dead", offset, count); err != nil {
		return nil, err
	}
	var out []DeadElement
	err := q.timedPage(ctx, q.dead, offset, count, func(d Delivery, t time.Time) {
		out = append(out, DeadElement{d, t})
	})
	return out, err
}

var reliableRetry = NewScript(`
if redis.call('ZREM', KEYS[5], ARGV[1]) == 0 then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[1])
return 1
`, func(tx Tx, keys, args []string) (any, error) {
	n, err := tx.ZRem(keys[4], args[0])
	if err != nil || n == 0 {
		return int64(0), err
	}
	_, err = tx.RPush(keys[0], args[0])
	return int64(1), err
})

// Retry moves the dead element d (as listed by [Reliable.Dead]) back to the head of
// the queue, with its failures forgotten (it gets [WithMaxDeliveries] deliveries
// again), and reports whether it was dead. The complexity is O(log n).
func (q *Reliable) Retry(ctx context.Context, d Delivery) (bool, error) {
	r, err := q.b.Eval(ctx, reliableRetry, q.keys(), d.elem())
	if replyInt(r) > 0 {
		q.st.requeue(1)
	}
	return replyInt(r) > 0, err
}

// Len returns the number of elements waiting (LLEN ready) and in processing (LLEN
// processing): two O(1) commands, not one atomic step.
func (q *Reliable) Len(ctx context.Context) (ready, processing int64, err error) {
	if ready, err = q.b.LLen(ctx, q.ready); err != nil {
		return 0, 0, err
	}
	processing, err = q.b.LLen(ctx, q.processing)
	return ready, processing, err
}

// Stats returns the number of waiting elements, the number in processing, the
// number of dead elements, and this process's counters (Requeued: by Nack, Reap,
// Requeue and Retry; ExpiredLeases: by Reap and Requeue; DeadLettered: moved to the
// dead set; Cancelled: by Remove); see [Stats]. It is three O(1) commands, not one
// atomic step.
func (q *Reliable) Stats(ctx context.Context) (Stats, error) {
	s := Stats{Name: q.name, Type: "reliable"}
	q.st.fill(&s)
	var err error
	if s.Depth, s.InFlight, err = q.Len(ctx); err != nil {
		return s, err
	}
	s.Dead, err = q.b.ZCard(ctx, q.dead)
	return s, err
}
