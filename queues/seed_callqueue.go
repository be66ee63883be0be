package queues

import (
	"context"
	"math"
	"slices"
	"time"
)

// ClassicCallMultiplier is the classic call-queue recipe's PRIORITY_MULTIPLIER: a
// call's score is priority·ClassicCallMultiplier + (ClassicCallMultiplier − t), t
// being its enqueue time in fractional Unix seconds.
const ClassicCallMultiplier = 10_000_000_000

// ClassicCallMaxPriority is the largest priority (in absolute value) that
// [ClassicCallQueue.Enqueue] accepts: the last at which the packed score still holds
// the enqueue time to half a second. Above it the float64 spacing of the score is a
// second or more, and calls a second apart may tie.
const ClassicCallMaxPriority = 450359

// ClassicPollInterval bounds how long a waiting consumer of a classic layout that has
// no wake-up signal ([ClassicTimed], [ClassicScheduler]) sleeps before it looks again, so that an item another
// program wrote in the layout is seen within this interval.
const ClassicPollInterval = 100 * time.Millisecond

// ClassicCallQueue is a [CallQueue] over the key layout of the classic call-centre
// recipe, so that an application that already queues calls that way (in Ruby:
// r.zadd("queue:calls", priority * 10_000_000_000 + (10_000_000_000 -
// Time.now.to_f), call_id), served by ZPOPMAX) and a Go service can share one
// queue.
//
// # Layout
//
// One sorted set, the key given to [NewClassicCallQueue] verbatim: member the call
// id, score priority·10¹⁰ + (10¹⁰ − t) with t the enqueue time in fractional Unix
// seconds ([ClassicCallMultiplier]). The highest score is served first (ZPOPMAX): the
// highest priority, within it the earliest call. Position is ZREVRANK + 1,
// cancelling is ZREM, and the enqueue time is decoded from the score as the recipe's
// stale_calls does: t = 10¹⁰ − (score mod 10¹⁰), priority = ⌊score / 10¹⁰⌋.
// ClassicCallQueue reads and writes exactly that, computing the score with the same
// float64 operations as the recipe.
//
// # What the layout loses, and what ClassicCallQueue keeps
//
//   - Arrival order only to the float64 spacing of the score, which grows with the
//     priority: at a Unix time of 1.8·10⁹ s, 3.8 µs (2⁻¹⁸ s) at priorities 1 and 2,
//     7.6 µs at 3 to 6, 15 µs at 7 to 12, 122 µs at 99, 2 ms at 1000, half a second
//     at [ClassicCallMaxPriority]. Calls closer together get equal scores and leave
//     in reverse byte order of their ids. [CallQueue] keeps an arrival sequence.
//   - The decoded enqueue time ([Call].Since) is off by less than that spacing (the
//     score rounds twice, 10¹⁰ − t and then the sum): at most 3.1 µs at priority 1,
//     4.8 µs at 3 to 6, 8.4 µs at 7 to 12, measured over a second of arrivals.
//   - Priorities are whole numbers in [−ClassicCallMaxPriority,
//     ClassicCallMaxPriority]: a fraction would be read back as part of the time;
//     and the decoding holds for enqueue times before 10¹⁰ s (the year 2286).
//   - No time index: [ClassicCallQueue.Stale] scans the queue (O(n)), as the recipe
//     does.
//   - ZADD of an id already waiting moves it (the recipe's enqueue); Enqueue here
//     refuses it with [ErrDuplicate] instead, so a call keeps its place.
//
// Dequeuing is ZPOPMAX, atomic in the recipe too: a call goes to one operator, Go or
// Ruby. [ClassicCallQueue.Dequeue] blocks with BZPOPMAX on the key itself, so a call
// the recipe's code enqueues wakes a Go operator at once.
//
// # Redis Cluster
//
// Every step touches the one key, so the layout works on a cluster as it is.
//
// ClassicCallQueue is safe for concurrent use, in one process or many; each call is
// dequeued at most once.
type ClassicCallQueue struct {
	b     Backend
	key   string
	clock nower
	at    where
}

// NewClassicCallQueue returns the call queue kept in the sorted set key in the
// recipe's layout (see [ClassicCallQueue]). It uses the option [WithClock]. It panics
// if key is empty. The complexity is O(1).
func NewClassicCallQueue(b Backend, key string, opts ...Option) *ClassicCallQueue {
	checkName("ClassicCallQueue", key)
	cfg := newConfig(opts)
	return &ClassicCallQueue{b: b, key: key, clock: cfg.clock, at: where{"classiccallqueue", key}}
}

// ClassicCallScore returns the recipe's score of a call of priority enqueued at t:
// priority·10¹⁰ + (10¹⁰ − t), t in fractional Unix seconds, with the recipe's float64
// operations (Ruby's Time#to_f is the Unix time in nanoseconds divided by 10⁹). The
// complexity is O(1).
func ClassicCallScore(priority int64, t time.Time) float64 {
	secs := float64(t.UnixNano()) / 1e9
	if t.Year() < 1678 || t.Year() > 2261 { // outside UnixNano's range
		secs = float64(t.Unix()) + float64(t.Nanosecond())/1e9
	}
	return float64(priority)*ClassicCallMultiplier + (ClassicCallMultiplier - secs)
}

// ClassicCallDecode returns the priority and enqueue time the recipe's score holds,
// decoded as the recipe's stale_calls does (score mod 10¹⁰, with Ruby's floored
// modulo), the time rounded to the microsecond. The complexity is O(1).
func ClassicCallDecode(score float64) (priority int64, since time.Time) {
	r := math.Mod(score, ClassicCallMultiplier)
	if r < 0 {
		r += ClassicCallMultiplier
	}
	priority = int64(math.Round((score - r) / ClassicCallMultiplier))
	secs := ClassicCallMultiplier - r
	return priority, time.UnixMicro(int64(math.Round(secs * 1e6)))
}

func (q *ClassicCallQueue) call(id string, score float64) Call {
	p, since := ClassicCallDecode(score)
	return Call{ID: id, Priority: float64(p), Since: since}
}

// Enqueue queues the call id with priority at the clock's time, scored as the recipe
// scores it ([ClassicCallScore]). It returns [ErrEmptyID], [ErrBadPriority] when
// |priority| > [ClassicCallMaxPriority], and [ErrDuplicate] when id is already
// waiting. The complexity is O(log n).
func (q *ClassicCallQueue) Enqueue(ctx context.Context, id string, priority int64) error {
	if id == "" {
		return q.at.fail("enqueue", id, ErrEmptyID)
	}
	if priority > ClassicCallMaxPriority || priority < -ClassicCallMaxPriority {
		return q.at.fail("enqueue", id, ErrBadPriority)
	}
	r, err := q.b.Eval(ctx, classicZAddNew, []string{q.key}, fmtFloat(ClassicCallScore(priority, q.clock.Now())), id)
	if err != nil {
		return err
	}
	if replyInt(r) == 0 {
		return q.at.fail("enqueue", id, ErrDuplicate)
	}
	return nil
}

// classicZPopMax is ZPOPMAX KEYS[1]: {member, score}, or nil when empty.
var classicZPopMax = NewScript(`
local r = redis.call('ZPOPMAX', KEYS[1])
if #r == 0 then return false end
return r
`, func(tx Tx, keys, args []string) (any, error) {
	r, err := tx.ZRangeWithScores(keys[0], -1, -1)
	if err != nil || len(r) == 0 {
		return nil, err
	}
	if _, err := tx.ZRem(keys[0], r[0].Member); err != nil {
		return nil, err
	}
	return []any{r[0].Member, fmtFloat(r[0].Score)}, nil
}).WithUndo(classicZRestore)

// TryDequeue removes and returns the next call (ZPOPMAX): the highest priority,
// within it the earliest (to the score's precision), or ok == false when none
// waits. The complexity is O(log n).
func (q *ClassicCallQueue) TryDequeue(ctx context.Context) (Call, bool, error) {
	r, err := q.b.Eval(ctx, classicZPopMax, []string{q.key})
	if err != nil || r == nil {
		return Call{}, false, err
	}
	a, err := replyArray(r)
	if err != nil || len(a) != 2 {
		return Call{}, false, err
	}
	return q.call(replyString(a[0]), replyFloat(a[1])), true, nil
}

// Dequeue is [ClassicCallQueue.TryDequeue] for an operator waiting for the next
// call: it waits up to timeout (0: until ctx is done), by BZPOPMAX on the key.
// Timeout and cancellation behave as in [FIFO.Pop]: a call it
// has taken is returned even if ctx ended meanwhile. The complexity is O(log n).
func (q *ClassicCallQueue) Dequeue(ctx context.Context, timeout time.Duration) (Call, bool, error) {
	if err := ctx.Err(); err != nil {
		return Call{}, false, err
	}
	_, z, ok, err := q.b.BZPopMax(ctx, timeout, q.key)
	if !ok || err != nil {
		return Call{}, false, err
	}
	return q.call(z.Member, z.Score), true, nil
}

// classicRevRank is ZREVRANK KEYS[1] ARGV[1] + 1, or nil.
var classicRevRank = NewScript(`
local r = redis.call('ZREVRANK', KEYS[1], ARGV[1])
if not r then return false end
return r + 1
`, func(tx Tx, keys, args []string) (any, error) {
	r, ok, err := tx.ZRank(keys[0], args[0])
	if err != nil || !ok {
		return nil, err
	}
	n, err := tx.ZCard(keys[0])
	return n - r, err
})

// Position returns the 1-based place of the call id in serving order (the recipe's
// ZREVRANK + 1), or ok == false when it is not waiting. It returns [ErrEmptyID] for
// an empty id. The complexity is O(log n).
func (q *ClassicCallQueue) Position(ctx context.Context, id string) (int64, bool, error) {
	if id == "" {
		return 0, false, q.at.fail("position", id, ErrEmptyID)
	}
	r, err := q.b.Eval(ctx, classicRevRank, []string{q.key}, id)
	if err != nil || r == nil {
		return 0, false, err
	}
	return replyInt(r), true, nil
}

// Cancel removes the call id from the queue (the caller hung up: ZREM) and reports
// whether it was waiting. It returns [ErrEmptyID] for an empty id. The complexity is
// O(log n).
func (q *ClassicCallQueue) Cancel(ctx context.Context, id string) (bool, error) {
	if id == "" {
		return false, q.at.fail("cancel", id, ErrEmptyID)
	}
	r, err := q.b.Eval(ctx, zsetRemove, []string{q.key}, id)
	return replyInt(r) > 0, err
}

// all reads the whole set in one atomic step, in ascending score order.
func (q *ClassicCallQueue) all(ctx context.Context) ([]Z, error) {
	a, err := page(ctx, q.b, zsetPage, []string{q.key}, 0, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	out := make([]Z, 0, len(a)/2)
	for i := 0; i+1 < len(a); i += 2 {
		out = append(out, Z{Member: replyString(a[i]), Score: replyFloat(a[i+1])})
	}
	return out, nil
}

// Stale returns the calls whose decoded enqueue time is before now − maxWait (the
// recipe's stale_calls test, timestamp < cutoff), longest-waiting first and, among
// equal times, in serving order. It reads the whole queue in one atomic step, as the
// layout has no time index. It returns [ErrBadDuration] when maxWait < 0. The
// complexity is O(n log n).
func (q *ClassicCallQueue) Stale(ctx context.Context, maxWait time.Duration) ([]Call, error) {
	if maxWait < 0 {
		return nil, q.at.fail("stale", "", ErrBadDuration)
	}
	now := q.clock.Now()
	cutoff := float64(now.UnixNano())/1e9 - maxWait.Seconds()
	all, err := q.all(ctx)
	if err != nil {
		return nil, err
	}
	var out []Call
	for i := len(all) - 1; i >= 0; i-- { // serving order
		z := all[i]
		r := math.Mod(z.Score, ClassicCallMultiplier)
		if r < 0 {
			r += ClassicCallMultiplier
		}
		if ClassicCallMultiplier-r < cutoff {
			out = append(out, q.call(z.Member, z.Score))
		}
	}
	slices.SortStableFunc(out, func(x, y Call) int { return x.Since.Compare(y.Since) })
	return out, nil
}

// classicRevPage reads ranks ARGV[1]..ARGV[2] of KEYS[1] in descending order
// (ZREVRANGE … WITHSCORES), as a flat array member, score, member, score…
var classicRevPage = NewScript(`
return redis.call('ZREVRANGE', KEYS[1], ARGV[1], ARGV[2], 'WITHSCORES')
`, func(tx Tx, keys, args []string) (any, error) {
	n, err := tx.ZCard(keys[0])
	if err != nil {
		return nil, err
	}
	first, last := parseInt(args[0]), min(parseInt(args[1]), n-1)
	if first > last {
		return []any{}, nil
	}
	zs, err := tx.ZRangeWithScores(keys[0], n-1-last, n-1-first)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, 2*len(zs))
	for i := len(zs) - 1; i >= 0; i-- {
		out = append(out, zs[i].Member, fmtFloat(zs[i].Score))
	}
	return out, nil
})

// Items returns up to count waiting calls in serving order (ZREVRANGE), skipping the
// first offset: the call at offset i has Position i+1. It returns [ErrBadRange] when
// offset or count is negative. The complexity is O(log n + k) for k calls returned.
func (q *ClassicCallQueue) Items(ctx context.Context, offset, count int64) ([]Call, error) {
	if err := q.at.checkRange("items", offset, count); err != nil {
		return nil, err
	}
	a, err := page(ctx, q.b, classicRevPage, []string{q.key}, offset, count)
	if err != nil {
		return nil, err
	}
	out := make([]Call, 0, len(a)/2)
	for i := 0; i+1 < len(a); i += 2 {
		out = append(out, q.call(replyString(a[i]), replyFloat(a[i+1])))
	}
	return out, nil
}

// Len returns the number of waiting calls (ZCARD). The complexity is O(1).
func (q *ClassicCallQueue) Len(ctx context.Context) (int64, error) { return q.b.ZCard(ctx, q.key) }
