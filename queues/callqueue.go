package queues

import (
	"context"
	"math"
	"time"
)

// CallQueue is for serving waiting people by priority and then by arrival, as a
// call centre does: calls wait with a priority (VIP callers first), operators take
// the highest priority and, within it, the earliest call; callers see their position,
// may hang up from the middle, and supervisors list the calls waiting longer than an
// SLA.
//
// The usual Redis recipe packs priority and time into one float score, priority·10¹⁰
// + (10¹⁰ − t) with t the Unix time in fractional seconds, served by ZPOPMAX. That
// keeps arrival order only to the spacing of float64 at the score's magnitude, which
// grows with the priority: at a Unix time of 1.8·10⁹ s (2027) 3.8 µs at the recipe's
// default priority 1, 7.6 µs at priorities 3 to 6, 15 µs at 7 to 12, 122 µs at 99,
// 2 ms at 1000 and a whole second from 450360 on; calls closer together get
// equal scores and leave in reverse byte order of their ids, not in arrival order. And
// since the score mixes priority and time, the recipe finds stale calls by scanning
// the whole queue. Here each call lives in three sorted sets changed together by one
// atomic step: "{name}:calls" (score: the priority, negated for [HighestFirst]; member
// arrival sequence + id: exact arrival order within a priority at any rate and any
// finite priority), "{name}:since" (score: enqueue time in exact Unix µs, same member:
// stale calls in O(log n + k)) and "{name}:ids" (score sequence, member id: lookup by
// id).
// A token list "{name}:ready" holds as many tokens as there are calls, so that an
// operator blocks on BRPOP of a token and then takes a call with the atomic dequeue
// step; every step resets the token count to the number of calls, so a consumer that
// died between the two steps loses nothing.
//
// CallQueue is safe for concurrent use; each call is dequeued at most once.
type CallQueue struct {
	b                          Backend
	name                       string
	st                         *counters
	clock                      nower
	order                      Order
	at                         where
	calls, since, ids, meta, r string
}

// Call is a waiting or dequeued call.
type Call struct {
	ID       string    // the id given to [CallQueue.Enqueue]
	Priority float64   // served highest first, unless the queue is [LowestFirst]
	Since    time.Time // when it was enqueued
}

// NewCallQueue returns the call queue called name on b. It uses the options
// [WithOrder] ([HighestFirst] by default), [WithClock] and [WithStats]. It panics
// if name is empty.
func NewCallQueue(b Backend, name string, opts ...Option) *CallQueue {
	checkName("CallQueue", name)
	cfg := newConfig(opts)
	return &CallQueue{b: b, name: name, st: newCounters(cfg, false), clock: cfg.clock, order: cfg.order, at: where{"callqueue", name},
		calls: key(name, "calls"), since: key(name, "since"), ids: key(name, "ids"),
		meta: key(name, "meta"), r: key(name, "ready")}
}

func (q *CallQueue) keys() []string { return []string{q.calls, q.since, q.ids, q.meta, q.r} }

const luaSyncTokens = `
local function sync(set, tokens)
  local n = redis.call('ZCARD', set)
  local t = redis.call('LLEN', tokens)
  while t > n do redis.call('RPOP', tokens); t = t - 1 end
  while t < n do redis.call('LPUSH', tokens, '1'); t = t + 1 end
end
`

// syncTokens is luaSyncTokens for the embedded engine.
func syncTokens(tx Tx, set, tokens string) error {
	n, err := tx.ZCard(set)
	if err != nil {
		return err
	}
	t, err := tx.LLen(tokens)
	if err != nil {
		return err
	}
	for ; t > n; t-- {
		if _, _, err := tx.RPop(tokens); err != nil {
			return err
		}
	}
	for ; t < n; t++ {
		if _, err := tx.LPush(tokens, "1"); err != nil {
			return err
		}
	}
	return nil
}

var callEnqueue = NewScript(luaSeq+luaSyncTokens+`
if redis.call('ZSCORE', KEYS[3], ARGV[1]) then return 0 end
local s = seq(KEYS[4])
redis.call('ZADD', KEYS[1], ARGV[2], s .. ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[3], s .. ARGV[1])
redis.call('ZADD', KEYS[3], tonumber('0x' .. s), ARGV[1])
sync(KEYS[1], KEYS[5])
return 1
`, func(tx Tx, keys, args []string) (any, error) {
	if _, ok, err := tx.ZScore(keys[2], args[0]); err != nil || ok {
		return int64(0), err
	}
	s, err := nextSeq(tx, keys[3])
	if err != nil {
		return nil, err
	}
	prio, _ := parseScore(args[1])
	at, _ := parseScore(args[2])
	m := s + args[0]
	if _, err := tx.ZAdd(keys[0], prio, m); err != nil {
		return nil, err
	}
	if _, err := tx.ZAdd(keys[1], at, m); err != nil {
		return nil, err
	}
	if _, err := tx.ZAdd(keys[2], seqNumber(s), args[0]); err != nil {
		return nil, err
	}
	return int64(1), syncTokens(tx, keys[0], keys[4])
})

// Enqueue queues the call id with priority at the clock's time; the caller names
// the call, so id is what [CallQueue.Cancel] and [CallQueue.Position] take. It
// returns [ErrEmptyID], [ErrBadPriority] for a NaN or infinite priority, and
// [ErrDuplicate] when id is already waiting. The complexity is O(log n).
func (q *CallQueue) Enqueue(ctx context.Context, id string, priority float64) error {
	if id == "" {
		return q.at.fail("enqueue", id, ErrEmptyID)
	}
	if math.IsNaN(priority) || math.IsInf(priority, 0) {
		return q.at.fail("enqueue", id, ErrBadPriority)
	}
	r, err := q.b.Eval(ctx, callEnqueue, q.keys(), id, fmtFloat(q.order.score(priority)), fmtInt(micros(q.clock.Now())))
	if err != nil {
		return err
	}
	if replyInt(r) == 0 {
		return q.at.fail("enqueue", id, ErrDuplicate)
	}
	q.st.enq(1)
	return nil
}

var callDequeue = NewScript(luaSyncTokens+`
local r = redis.call('ZPOPMIN', KEYS[1])
if #r == 0 then sync(KEYS[1], KEYS[5]); return false end
local since = redis.call('ZSCORE', KEYS[2], r[1])
redis.call('ZREM', KEYS[2], r[1])
redis.call('ZREM', KEYS[3], string.sub(r[1], 17))
sync(KEYS[1], KEYS[5])
return {r[1], r[2], since}
`, func(tx Tx, keys, args []string) (any, error) {
	z, ok, err := tx.ZPopMin(keys[0])
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, syncTokens(tx, keys[0], keys[4])
	}
	id := stripSeq(z.Member)
	since, _, err := tx.ZScore(keys[1], z.Member)
	if err != nil {
		return nil, err
	}
	if _, err := tx.ZRem(keys[1], z.Member); err != nil {
		return nil, err
	}
	if _, err := tx.ZRem(keys[2], id); err != nil {
		return nil, err
	}
	return []any{z.Member, fmtFloat(z.Score), fmtFloat(since)}, syncTokens(tx, keys[0], keys[4])
}).WithUndo(callRestore)

// callRestore puts back a call that callDequeue took (its reply: member, score,
// since), unless its id was enqueued again meanwhile.
var callRestore = NewScript(luaSyncTokens+`
local id = string.sub(ARGV[1], 17)
if redis.call('ZSCORE', KEYS[3], id) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('ZADD', KEYS[3], tonumber(string.sub(ARGV[1], 1, 16), 16), id)
sync(KEYS[1], KEYS[5])
return 1
`, nil)

func (q *CallQueue) decodeCall(r any) (Call, bool, error) {
	if r == nil {
		return Call{}, false, nil
	}
	a, err := replyArray(r)
	if err != nil || len(a) != 3 {
		return Call{}, false, err
	}
	return Call{ID: stripSeq(replyString(a[0])), Priority: q.order.priority(replyFloat(a[1])),
		Since: time.UnixMicro(int64(replyFloat(a[2])))}, true, nil
}

// TryDequeue removes and returns the next call (ZPOPMIN): the highest priority
// ([WithOrder]), earliest first, or ok == false when none waits. The complexity is O(log n).
func (q *CallQueue) TryDequeue(ctx context.Context) (Call, bool, error) {
	r, err := q.b.Eval(ctx, callDequeue, q.keys())
	if err != nil {
		return Call{}, false, err
	}
	c, ok, err := q.decodeCall(r)
	if ok {
		q.st.deq(1)
	}
	return c, ok, err
}

// Dequeue is [CallQueue.TryDequeue] for an operator waiting for the next call: it
// waits up to timeout (0: until ctx is done) by BRPOP on the token list. Timeout and
// cancellation behave as in [FIFO.Pop]: a call it has taken is returned even if ctx
// ended meanwhile. The complexity is O(log n).
func (q *CallQueue) Dequeue(ctx context.Context, timeout time.Duration) (Call, bool, error) {
	if err := ctx.Err(); err != nil {
		return Call{}, false, err
	}
	q.st.enter()
	defer q.st.leave(false) // the step counts what it takes
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for {
		c, ok, err := afterWake(ctx, q.TryDequeue)
		if ok || err != nil {
			return c, ok, err
		}
		wait := time.Duration(0)
		if timeout > 0 {
			if wait = time.Until(deadline); wait <= 0 {
				return Call{}, false, nil
			}
		}
		if _, _, ok, err := q.b.BRPop(ctx, wait, q.r); err != nil || !ok {
			return Call{}, false, err
		}
	}
}

var callCancel = NewScript(luaSyncTokens+`
local s = redis.call('ZSCORE', KEYS[3], ARGV[1])
if not s then return 0 end
local m = string.format('%016x', tonumber(s)) .. ARGV[1]
redis.call('ZREM', KEYS[1], m)
redis.call('ZREM', KEYS[2], m)
redis.call('ZREM', KEYS[3], ARGV[1])
sync(KEYS[1], KEYS[5])
return 1
`, func(tx Tx, keys, args []string) (any, error) {
	s, ok, err := tx.ZScore(keys[2], args[0])
	if err != nil || !ok {
		return int64(0), err
	}
	m := seqPrefix(int64(s)) + args[0]
	for _, km := range [][2]string{{keys[0], m}, {keys[1], m}, {keys[2], args[0]}} {
		if _, err := tx.ZRem(km[0], km[1]); err != nil {
			return nil, err
		}
	}
	return int64(1), syncTokens(tx, keys[0], keys[4])
})

// Cancel removes the call id from the middle of the queue (the caller hung up) and
// reports whether it was waiting. The complexity is O(log n).
func (q *CallQueue) Cancel(ctx context.Context, id string) (bool, error) {
	if id == "" {
		return false, q.at.fail("cancel", id, ErrEmptyID)
	}
	r, err := q.b.Eval(ctx, callCancel, q.keys(), id)
	if replyInt(r) == 1 {
		q.st.cancel()
	}
	return replyInt(r) == 1, err
}

var callPosition = NewScript(`
local s = redis.call('ZSCORE', KEYS[3], ARGV[1])
if not s then return false end
return redis.call('ZRANK', KEYS[1], string.format('%016x', tonumber(s)) .. ARGV[1]) + 1
`, func(tx Tx, keys, args []string) (any, error) {
	s, ok, err := tx.ZScore(keys[2], args[0])
	if err != nil || !ok {
		return nil, err
	}
	r, ok, err := tx.ZRank(keys[0], seqPrefix(int64(s))+args[0])
	if err != nil || !ok {
		return nil, err
	}
	return r + 1, nil
})

// Position returns the 1-based place of the call id in serving order ("you are 5th
// in the queue"), or ok == false when it is not waiting. The complexity is O(log n).
func (q *CallQueue) Position(ctx context.Context, id string) (int64, bool, error) {
	if id == "" {
		return 0, false, q.at.fail("position", id, ErrEmptyID)
	}
	r, err := q.b.Eval(ctx, callPosition, q.keys(), id)
	if err != nil || r == nil {
		return 0, false, err
	}
	return replyInt(r), true, nil
}

var callStale = NewScript(`
local r = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'WITHSCORES')
local out = {}
for i = 1, #r, 2 do
  out[#out+1] = r[i]
  out[#out+1] = redis.call('ZSCORE', KEYS[1], r[i])
  out[#out+1] = r[i+1]
end
return out
`, func(tx Tx, keys, args []string) (any, error) {
	r, err := tx.ZRangeByScoreWithScores(keys[1], "-inf", args[0], 0, -1)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, 3*len(r))
	for _, z := range r {
		p, _, err := tx.ZScore(keys[0], z.Member)
		if err != nil {
			return nil, err
		}
		out = append(out, z.Member, fmtFloat(p), fmtFloat(z.Score))
	}
	return out, nil
})

// Stale returns the calls waiting longer than maxWait, longest-waiting first
// (ZRANGEBYSCORE on the enqueue-time index). It returns [ErrBadDuration] when
// maxWait < 0. The complexity is O(log n + k log n) for k calls returned.
func (q *CallQueue) Stale(ctx context.Context, maxWait time.Duration) ([]Call, error) {
	if maxWait < 0 {
		return nil, q.at.fail("stale", "", ErrBadDuration)
	}
	cutoff := micros(q.clock.Now().Add(-maxWait))
	r, err := q.b.Eval(ctx, callStale, q.keys(), "("+fmtInt(cutoff))
	if err != nil {
		return nil, err
	}
	a, err := replyArray(r)
	return q.decodeCalls(a), err
}

// decodeCalls decodes a flat reply of (member, score, since) triples.
func (q *CallQueue) decodeCalls(a []any) []Call {
	out := make([]Call, 0, len(a)/3)
	for i := 0; i+2 < len(a); i += 3 {
		c, _, _ := q.decodeCall(a[i : i+3])
		out = append(out, c)
	}
	return out
}

// Len returns the number of waiting calls (ZCARD). The complexity is O(1).
func (q *CallQueue) Len(ctx context.Context) (int64, error) { return q.b.ZCard(ctx, q.calls) }

// Stats returns the number of waiting calls, split by priority (the first
// [MaxStatsLevels], in serving order), how long the longest-waiting call has waited,
// and this process's counters (Cancelled: hang-ups); see [Stats]. The complexity is
// O(MaxStatsLevels · log n).
func (q *CallQueue) Stats(ctx context.Context) (Stats, error) {
	s := Stats{Name: q.name, Type: "callqueue", HasAge: true}
	q.st.fill(&s)
	var err error
	if s.Depth, err = q.Len(ctx); err != nil {
		return s, err
	}
	if s.Levels, err = groups(ctx, q.b, q.calls, func(score float64) string { return fmtFloat(q.order.priority(score)) }); err != nil {
		return s, err
	}
	oldest, err := page(ctx, q.b, zsetPage, []string{q.since}, 0, 1)
	if len(oldest) == 2 {
		s.OldestAge = max(q.clock.Now().Sub(time.UnixMicro(int64(replyFloat(oldest[1])))), 0)
	}
	return s, err
}
