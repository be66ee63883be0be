package queues

import (
	"context"
	"time"
)

// Reliable is for work that must not be lost when a worker dies mid-job: an
// at-least-once work queue. Pop moves an element from the list "{name}:ready" into the
// list "{name}:processing" (BLMOVE, atomic) and gives it a lease in the sorted set
// "{name}:leases" (score: deadline in Unix microseconds). [Reliable.Ack] removes a
// finished element; [Reliable.Nack] (or [Reliable.Fail], with a reason) puts it back
// at the head of the queue; and [Reliable.Reap], run periodically, puts back every
// element whose lease expired, so a worker that dies mid-job loses nothing
// ([Reliable.Requeue] does so for one element). [Reliable.Remove] takes a waiting
// element out before it is delivered.
//
// Delivery is at least once: an element is delivered again only after its lease
// expired (or after a Nack), so a worker that is merely slow may see its job run
// twice; size the lease to the work, or call [Reliable.Extend]. Among live
// consumers that Ack within their lease, every element is delivered exactly once:
// each step that moves an element is atomic, so an element is always in exactly one
// of ready, processing, retry or dead (or finished). Reap also gives a lease to any
// element found in processing without one (a worker that died between BLMOVE and the
// lease), so such an element returns after one more lease period. Each element
// carries a unique id (the arrival sequence), so equal payloads are distinct
// deliveries.
//
// # Attempts, retries and the dead set
//
// Every failed delivery (a Nack or Fail, or a lease that expires and is reaped or
// requeued) counts as an attempt. The hash "{name}:info" keeps, per live or dead
// element id, its failed deliveries ("<id>:a"), its enqueue time ("<id>:t", Unix
// microseconds) and the last failure's reason ("<id>:e"; "lease expired" for an
// expiry), and [Delivery] reports them. With [WithRetry] a failed element waits out
// an exponential backoff with jitter in the sorted set "{name}:retry" (score: due
// time) before it is delivered again; without it, it goes straight back to the
// head of the queue. With a maximum number of attempts ([RetryPolicy].MaxAttempts
// or [WithMaxDeliveries]) an element whose last attempt fails goes to the dead set
// "{name}:dead" (score: when it died) instead. [Reliable.Dead] lists the dead
// elements with their attempts, last error and enqueue time; [Reliable.Retry] and
// [Reliable.RetryAll] move them back with their attempts forgotten, and
// [Reliable.DeleteDead] drops one.
//
// # Pausing
//
// [Reliable.Pause] sets the member "paused" of the sorted set "{name}:meta", so
// every process sees it: pushes go on, but pops take nothing until
// [Reliable.Resume]; a Pop waiting meanwhile keeps waiting until the queue is
// resumed or its timeout ends. It waits on the list "{name}:running", which Pause
// empties and Resume gives one element: a BLMOVE of that list onto itself, which
// every waiting Pop makes, returns for all of them as soon as Resume pushes it,
// and at once while the queue runs. An element taken by
// a pop that was already blocked when the queue was paused is put back at the head
// of the queue in the same step that would have leased it, so nothing is lost.
//
// # Unique jobs
//
// A push with [Unique](key, ttl) takes a lock on key for ttl: the sorted set
// "{name}:unique" holds each locked key scored by its expiry (Unix microseconds),
// the hash "{name}:unique:ids" the id holding it, and "{name}:info" the element's
// key ("<id>:u"). While the lock holds, a push with the same key is refused: it
// returns the holder's id and an [*Error] matching [ErrDuplicate]. The lock ends
// when ttl passes, or as soon as its element leaves the queue for good: Ack,
// Remove and DeleteDead release it (so a finished job may be pushed again at once;
// unlike asynq, which keeps the lock until its TTL). Nack, retries, the dead set,
// Retry and RetryAll keep it. Expiry needs no per-field TTL (Redis 7.0 has no
// HEXPIRE): every push with a key first drops up to 64 expired locks, and releasing
// a lock checks that it still names the element, as an expired lock may have
// passed to a newer element.
//
// # Rate limit
//
// With [WithRateLimit](n, per) Pop hands out at most n elements in any window of
// length per, counted over every consumer of the queue in every process: the
// sliding-window log "{name}:rate" holds one member per delivery, scored by its
// time, and the step that leases an element drops the deliveries at or before
// t − per and leases only if fewer than n remain, so any n+1 deliveries span at
// least per, and with enough waiting work and consumers the long-run rate is n/per.
// The step's time t is the caller's clock, or the latest logged delivery if that is
// later, so the logged times never decrease and the bound holds even for clocks
// read out of order. A Pop that finds no delivery allowed takes nothing and sleeps
// exactly until the oldest delivery in the window leaves it (no polling); an
// element it took meanwhile is put back at the head of the queue in the same step,
// as for a pause. Retried deliveries count like any other; a paused queue's pops
// take no token. The log holds at most n live members (plus those of the last
// window not yet dropped), so memory is O(n).
//
// # Groups
//
// With [WithGroupRateLimit](n, per) a push may name a group ([Group]): no window of
// length per holds more than n deliveries of one group, counted over every consumer
// in every process, and a group over its limit holds back only its own elements.
// Ungrouped elements wait in "{name}:ready" as before and only the queue-wide
// limit applies to them. A grouped element waits in its group's list
// "{name}:g:<group>" (served in arrival order), and "{name}:info" keeps its group
// ("<id>:g"). The sorted set "{name}:groups" holds each group with waiting elements,
// scored by when it may next be served: when it started waiting, when it was last
// served, or, when its window was found full, when the window reopens. Each group's
// deliveries are logged in "{name}:glog:<group>" as the queue-wide ones are in
// "{name}:rate". Pop first runs one step that takes the lowest-scored group scored
// no later than now; if its log admits a delivery it leases the group's oldest
// element and rescores the group by the delivery time (so among groups that may
// be served, the least recently served goes first), else it rescores the group by
// its window's reopening and looks at the next. When no group may be served, Pop
// waits on "{name}:ready" until the earliest group reopens. A grouped element whose
// group has nothing waiting (is not in "{name}:groups") is pushed to
// "{name}:ready" instead of its group's list, so that it wakes a waiting Pop, and
// the step that would lease it moves it to its group; so a Pop sees a grouped push
// at once, at the cost of two more steps for such an element.
//
// A grouped element that fails (Nack, Fail, Reap, Requeue) goes back to the head of
// its group, or to the retry or dead set as any other; a due retry goes back to the
// head of its group, and so does an element that [Reliable.Retry] or
// [Reliable.RetryAll] put in "{name}:ready" (each through "{name}:ready" when its
// group has nothing waiting, as a push).
// Remove finds a grouped element in its group's list; Len and Stats count the
// elements of every group as waiting, and [Stats].RateLimited counts those of the
// groups found over their limit. [Reliable.Items] lists only the elements of
// "{name}:ready". Pause stops grouped deliveries too, and [Unique] works with
// groups unchanged. The steps build the keys of a group from its name, which on a
// Redis Cluster is allowed only because they share the queue's hash tag and so its
// slot. A group's log keeps at most n live members once the group is served again,
// so memory is O(n) per group served; an empty group leaves "{name}:groups".
//
// # Costs
//
// Push, Ack, Extend and the dead-set methods on one element are one step of O(log n)
// (Ack, Nack and Requeue O(p + log n) for p elements in processing, as LREM walks the
// list). Pop is one BLMOVE and one step; with [WithRetry], or while the queue is
// paused, one more step before the BLMOVE moves the due retries (O(k log n) for k
// due). The listings cost their page plus one step reading k ids' metadata. With
// [WithRateLimit], Pop always runs the step before the BLMOVE, and both steps cost
// O(log n + k) more for the n deliveries in the window and the k it drops. With
// [WithGroupRateLimit], Pop runs one more step, O(log n + h log g) for g waiting
// groups of which h are found over their limit, and Len is one step of
// O(g log g).
//
// Reliable is safe for concurrent use.
type Reliable struct {
	b                                                    Backend
	name                                                 string
	st                                                   *counters
	clock                                                nower
	lease                                                time.Duration
	policy                                               RetryPolicy
	maxAttempts                                          string
	at                                                   where
	rateN                                                int64
	ratePer                                              time.Duration
	groupN                                               int64
	groupPer                                             time.Duration
	ready, processing, leases, meta, dead, info, retries string
	rate, unique, uniqueIDs, groups, running             string
}

// Delivery is an element handed to a worker by [Reliable.Pop], or listed by
// [Reliable.Items], [Reliable.InFlight] and [Reliable.Dead].
type Delivery struct {
	ID      string // as returned by [Reliable.Push]: unique per pushed element
	Payload string // as pushed
	// Attempt is the number of this delivery, 1 for the first: one more than the
	// element's failed deliveries so far. In the dead set it is the number of the
	// delivery that failed last.
	Attempt int64
	// Enqueued is when the element was pushed (zero for an element pushed before
	// the queue kept it).
	Enqueued time.Time
	// LastError is the reason the last failed delivery gave ([Reliable.Fail]),
	// "lease expired" for an expiry, "" when none failed or none gave one.
	LastError string
	// Group is the element's group ([Group]) on a queue with
	// [WithGroupRateLimit], "" for an ungrouped element.
	Group string
}

func (d Delivery) elem() string { return d.ID + d.Payload }

// delivery splits a queued element into its id and payload.
func delivery(e string) Delivery {
	return Delivery{ID: seqID(e), Payload: stripSeq(e), Attempt: 1}
}

// withInfo fills d's metadata from the reply of luaInfo: failures, enqueue time,
// last error.
func (d Delivery) withInfo(a []any) Delivery {
	if len(a) < 3 {
		return d
	}
	d.Attempt = replyInt(a[0]) + 1
	if t := replyInt(a[1]); t != 0 {
		d.Enqueued = time.UnixMicro(t)
	}
	d.LastError = replyString(a[2])
	return d
}

// leaseExpired is the reason recorded for a lease that expired.
const leaseExpired = "lease expired"

// NewReliable returns the reliable queue called name on b. It uses the options
// [WithLease] (30 s by default), [WithRetry] (retry at once, unlimited by default),
// [WithMaxDeliveries], [WithRateLimit], [WithGroupRateLimit], [WithClock] and
// [WithStats]. It panics if name is empty.
func NewReliable(b Backend, name string, opts ...Option) *Reliable {
	checkName("Reliable", name)
	cfg := newConfig(opts)
	p := cfg.retry.normalize(cfg.maxDeliveries)
	return &Reliable{b: b, name: name, st: newCounters(cfg, false), clock: cfg.clock, lease: cfg.lease,
		policy: p, maxAttempts: fmtInt(p.MaxAttempts), at: where{"reliable", name},
		ready: key(name, "ready"), processing: key(name, "processing"), leases: key(name, "leases"),
		meta: key(name, "meta"), dead: key(name, "dead"), info: key(name, "info"), retries: key(name, "retry"),
		rateN: cfg.rateN, ratePer: cfg.ratePer, groupN: cfg.groupN, groupPer: cfg.groupPer,
		rate: key(name, "rate"), unique: key(name, "unique"), uniqueIDs: key(name, "unique:ids"),
		groups: key(name, "groups"), running: key(name, "running")}
}

// keys are, in order: KEYS[1] ready, [2] processing, [3] leases, [4] meta, [5] dead,
// [6] info, [7] retry, [8] rate, [9] unique, [10] unique:ids, [11] groups. The
// steps build the keys of each group's list and log from KEYS[11] (groupKey).
func (q *Reliable) keys() []string {
	return []string{q.ready, q.processing, q.leases, q.meta, q.dead, q.info, q.retries,
		q.rate, q.unique, q.uniqueIDs, q.groups}
}

// failArgs are the first seven arguments of every step that may fail an element:
// ARGV[1] max attempts, [2] now, [3] base delay, [4] max delay (µs), [5] jitter,
// [6] jitter sample, [7] reason.
func (q *Reliable) failArgs(now time.Time, reason string, more ...string) []string {
	p := q.policy
	return append([]string{q.maxAttempts, fmtInt(micros(now)), fmtInt(p.Base.Microseconds()),
		fmtInt(p.Max.Microseconds()), fmtFloat(p.Jitter), fmtFloat(p.Rand()), reason}, more...)
}

// luaFail defines fail(m, i) in a Lua script: the element m, just taken out of
// processing, failed a delivery; i is its index among the elements this step fails,
// for the jitter. Its failures are counted and the reason kept; at the last attempt
// it moves to the dead set (reply 2); with a backoff it goes to the retry set
// (reply 3); otherwise back to the head of the queue, or of its group (reply 1).
// goFail is its Go half; retryDue computes the same due time.
const luaFail = luaRequeue + `
local function fail(m, i)
  local id = string.sub(m, 1, 16)
  local n = redis.call('HINCRBY', KEYS[6], id .. ':a', 1)
  if ARGV[7] ~= '' then redis.call('HSET', KEYS[6], id .. ':e', ARGV[7]) end
  local max = tonumber(ARGV[1])
  if max > 0 and n >= max then
    redis.call('ZADD', KEYS[5], ARGV[2], m)
    return 2
  end
  local base = tonumber(ARGV[3])
  if base > 0 then
    local d = base * 2 ^ (n - 1)
    local cap = tonumber(ARGV[4])
    if d > cap then d = cap end
    local u = tonumber(ARGV[6]) + i * 0.6180339887498949
    u = u - math.floor(u)
    local due = tonumber(ARGV[2]) + d + math.floor(d * tonumber(ARGV[5]) * u)
    redis.call('ZADD', KEYS[7], string.format('%.0f', due), m)
    return 3
  end
  requeue(m, ARGV[2])
  return 1
end
`

// The replies of fail: where a failed element went.
const (
	failRequeued int64 = 1
	failDead     int64 = 2
	failDelayed  int64 = 3
)

func goFail(tx Tx, keys, args []string, m string, i int64) (int64, error) {
	id := seqID(m)
	n, err := tx.HIncrBy(keys[5], id+":a", 1)
	if err != nil {
		return 0, err
	}
	if args[6] != "" {
		if _, err := tx.HSet(keys[5], id+":e", args[6]); err != nil {
			return 0, err
		}
	}
	now := parseInt(args[1])
	if maxAttempts := parseInt(args[0]); maxAttempts > 0 && n >= maxAttempts {
		_, err := tx.ZAdd(keys[4], float64(now), m)
		return failDead, err
	}
	if base := parseInt(args[2]); base > 0 {
		jitter, _ := parseScore(args[4])
		u, _ := parseScore(args[5])
		due := retryDue(now, base, parseInt(args[3]), jitter, u, n, i)
		_, err := tx.ZAdd(keys[6], float64(due), m)
		return failDelayed, err
	}
	return failRequeued, goRequeue(tx, keys, m, args[1])
}

// countFail counts what fail replied: an element requeued (now or after a delay) or
// dead.
func (q *Reliable) countFail(r any) {
	switch replyInt(r) {
	case failRequeued, failDelayed:
		q.st.requeue(1)
	case failDead:
		q.st.die(1)
	}
}

// Push appends payload to the queue and returns the id of the new element, which
// [Delivery].ID repeats and [Reliable.Remove] takes. It records the enqueue time.
// With [Unique] it refuses a duplicate: it returns the id of the element already
// holding the key and an [*Error] matching [ErrDuplicate], and pushes nothing.
// With [Group] (on a queue with [WithGroupRateLimit]) the element waits in its
// group's list. The complexity is O(1), with [Unique] O(log n) for n locks (plus
// the expired locks it drops, at most 64), with [Group] O(log g) for g groups.
func (q *Reliable) Push(ctx context.Context, payload string, opts ...PushOption) (id string, err error) {
	now := q.clock.Now()
	ukey, expiry, group, err := q.pushArgs(now, opts)
	if err != nil {
		return "", err
	}
	r, err := q.b.Eval(ctx, reliablePush, q.keys(), payload, fmtInt(micros(now)), ukey, expiry, group)
	if err != nil {
		return "", err
	}
	if a, ok := r.([]any); ok && len(a) == 1 {
		return replyString(a[0]), q.duplicate(ukey)
	}
	q.st.enq(1)
	return replyString(r), nil
}

// luaInfo defines info(id): the element's failures, enqueue time and last error.
const luaInfo = `
local function info(id)
  local v = redis.call('HMGET', KEYS[6], id .. ':a', id .. ':t', id .. ':e')
  return {v[1] or '0', v[2] or '0', v[3] or ''}
end
`

func goInfo(tx Tx, keys []string, id string) ([]any, error) {
	out := []any{"0", "0", ""}
	for i, f := range []string{":a", ":t", ":e"} {
		v, ok, err := tx.HGet(keys[5], id+f)
		if err != nil {
			return nil, err
		}
		if ok {
			out[i] = v
		}
	}
	return out, nil
}

// reliableLease leases the element ARGV[1] just moved into processing until
// ARGV[2] and replies with its metadata, the delivery time (ARGV[5], or the rate
// limit's step time) and its group ("" for none). If the queue is paused it puts
// the element back at the head of the queue and replies 0; if the rate limit
// (ARGV[3] per ARGV[4] µs, at ARGV[5]) allows no delivery now, it puts it back and
// replies when one is allowed. An element of a group (one that came through
// "{name}:ready" to wake a Pop: see group.go) is delivered as its group's when the
// group has nothing else waiting and its limit (ARGV[6] per ARGV[7] µs) admits a
// delivery; otherwise it moves to its group's list (place) and the step replies 0.
var reliableLease = NewScript(luaInfo+luaWindow+luaRecord+luaRequeue+`
if redis.call('ZSCORE', KEYS[4], 'paused') then
  redis.call('LREM', KEYS[2], 1, ARGV[1])
  redis.call('RPUSH', KEYS[1], ARGV[1])
  return 0
end
local now = tonumber(ARGV[5])
local n = tonumber(ARGV[3])
local at = now
if n > 0 then
  local nx, t = window(now, n, tonumber(ARGV[4]))
  if nx > 0 then
    redis.call('LREM', KEYS[2], 1, ARGV[1])
    redis.call('RPUSH', KEYS[1], ARGV[1])
    return nx
  end
  at = t
end
local g = redis.call('HGET', KEYS[6], string.sub(ARGV[1], 1, 16) .. ':g')
local gt
if g then
  local gnx = 1
  if redis.call('LLEN', gkey('g:', g)) == 0 then
    gnx, gt = logWindow(gkey('glog:', g), at, tonumber(ARGV[6]), tonumber(ARGV[7]))
  end
  if gnx > 0 then
    redis.call('LREM', KEYS[2], 1, ARGV[1])
    place(ARGV[1], g, ARGV[5])
    return 0
  end
  logRecord(gkey('glog:', g), gt)
end
if n > 0 then record(at) end
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
local r = info(string.sub(ARGV[1], 1, 16))
r[4] = string.format('%.0f', gt or at)
r[5] = g or ''
return r
`, func(tx Tx, keys, args []string) (any, error) {
	putBack := func(r int64) (any, error) {
		if _, err := tx.LRem(keys[1], 1, args[0]); err != nil {
			return nil, err
		}
		_, err := tx.RPush(keys[0], args[0])
		return r, err
	}
	if _, paused, err := tx.ZScore(keys[3], "paused"); err != nil {
		return nil, err
	} else if paused {
		return putBack(0)
	}
	now, n := parseInt(args[4]), parseInt(args[2])
	at := now
	if n > 0 {
		nx, t, err := goWindow(tx, keys, now, n, parseInt(args[3]))
		if err != nil {
			return nil, err
		}
		if nx > 0 {
			return putBack(nx)
		}
		at = t
	}
	g, grouped, err := tx.HGet(keys[5], seqID(args[0])+":g")
	if err != nil {
		return nil, err
	}
	t := at
	if grouped {
		served, gt, err := goGroupAdmits(tx, keys, g, at, parseInt(args[5]), parseInt(args[6]))
		if err != nil {
			return nil, err
		}
		if !served {
			if _, err := tx.LRem(keys[1], 1, args[0]); err != nil {
				return nil, err
			}
			return int64(0), goPlace(tx, keys, args[0], g, args[4])
		}
		t = gt
	}
	if n > 0 {
		if err := goRecord(tx, keys, at); err != nil {
			return nil, err
		}
	}
	deadline, _ := parseScore(args[1])
	if _, err := tx.ZAdd(keys[2], deadline, args[0]); err != nil {
		return nil, err
	}
	r, err := goInfo(tx, keys, seqID(args[0]))
	return append(r, fmtInt(t), g), err
})

// goGroupAdmits reports whether an element of group g may be delivered at at by
// the lease step: g has nothing waiting and its log admits a delivery under n per
// per µs; if so it logs the delivery, at the time it returns.
func goGroupAdmits(tx Tx, keys []string, g string, at, n, per int64) (bool, int64, error) {
	waiting, err := tx.LLen(groupKey(keys, "g:", g))
	if err != nil || waiting > 0 {
		return false, 0, err
	}
	nx, t, err := goLogWindow(tx, groupKey(keys, "glog:", g), at, n, per)
	if err != nil || nx > 0 {
		return false, 0, err
	}
	return true, t, goLogRecord(tx, keys, groupKey(keys, "glog:", g), t)
}

// reliablePrepare moves the retries due at ARGV[1] to the head of the queue (or of
// their groups), the earliest due served first, and replies {paused (0 or 1), the
// number moved, the next retry's due time or "", and, under the rate limit ARGV[2]
// per ARGV[3] µs, when the next delivery is allowed (0: now)}.
var reliablePrepare = NewScript(luaWindow+luaRequeue+`
local due = redis.call('ZRANGEBYSCORE', KEYS[7], '-inf', ARGV[1])
for i = #due, 1, -1 do
  redis.call('ZREM', KEYS[7], due[i])
  requeue(due[i], ARGV[1])
end
local p = 0
if redis.call('ZSCORE', KEYS[4], 'paused') then p = 1 end
local nx = redis.call('ZRANGE', KEYS[7], 0, 0, 'WITHSCORES')
local tok = 0
local n = tonumber(ARGV[2])
if n > 0 then tok = window(tonumber(ARGV[1]), n, tonumber(ARGV[3])) end
return {p, #due, nx[2] or '', tok}
`, func(tx Tx, keys, args []string) (any, error) {
	due, err := tx.ZRangeByScoreWithScores(keys[6], "-inf", args[0], 0, -1)
	if err != nil {
		return nil, err
	}
	for i := len(due) - 1; i >= 0; i-- {
		if _, err := tx.ZRem(keys[6], due[i].Member); err != nil {
			return nil, err
		}
		if err := goRequeue(tx, keys, due[i].Member, args[0]); err != nil {
			return nil, err
		}
	}
	p := int64(0)
	if _, paused, err := tx.ZScore(keys[3], "paused"); err != nil {
		return nil, err
	} else if paused {
		p = 1
	}
	next := ""
	nx, err := tx.ZRangeWithScores(keys[6], 0, 0)
	if err != nil {
		return nil, err
	}
	if len(nx) > 0 {
		next = fmtInt(int64(nx[0].Score))
	}
	var tok int64
	if n := parseInt(args[1]); n > 0 {
		if tok, _, err = goWindow(tx, keys, parseInt(args[0]), n, parseInt(args[2])); err != nil {
			return nil, err
		}
	}
	return []any{p, int64(len(due)), next, tok}, nil
})

// prepare runs reliablePrepare: whether the queue is paused, when the next retry is
// due and when the rate limit next allows a delivery (zero: none, now).
func (q *Reliable) prepare(ctx context.Context) (paused bool, next, token time.Time, err error) {
	n, per := q.rateArgs()
	r, err := q.b.Eval(ctx, reliablePrepare, q.keys(), fmtInt(micros(q.clock.Now())), n, per)
	a, _ := replyArray(r)
	if err != nil || len(a) != 4 {
		return false, time.Time{}, time.Time{}, err
	}
	if s := replyString(a[2]); s != "" {
		next = time.UnixMicro(int64(replyFloat(a[2])))
	}
	return replyInt(a[0]) == 1, next, untilMicros(a[3]), nil
}

// retrying reports whether failed elements wait out a delay.
func (q *Reliable) retrying() bool { return q.policy.Base > 0 }

// Pop moves the oldest element into processing with a lease (BLMOVE, then one step
// that leases it and reads its metadata), waiting up to timeout (0: until ctx is
// done). Timeout and cancellation behave as in [FIFO.Pop]: an element taken is
// leased and returned even if ctx ended meanwhile. If the lease cannot be written,
// Pop returns the delivery (ok == true) with the error; the element is then in
// processing without a lease, and [Reliable.Reap] leases it.
//
// With [WithRetry], Pop first moves the due retries to the head of the queue and
// waits no longer than until the next retry is due (nor than one lease, so that a
// retry another process schedules meanwhile is seen). While the queue is paused Pop
// takes nothing and waits for [Reliable.Resume] within timeout. With
// [WithRateLimit], while the limit allows no delivery Pop takes nothing and waits,
// within timeout, until it does. With [WithGroupRateLimit], Pop first runs one
// step that serves the least recently served group whose limit admits a delivery,
// or takes the oldest ungrouped element when every group is over its limit, and
// otherwise waits for a push until the earliest group's window reopens (on Redis,
// in the last 100 ms before the reopening it sleeps, as Redis times out blocked
// clients up to 100 ms late, so a push then waits for the reopening). The
// complexity is
// O(log n), plus O(k log n) for k due retries, plus with groups O(h log g) for g
// waiting groups of which h are found over their limit.
func (q *Reliable) Pop(ctx context.Context, timeout time.Duration) (Delivery, bool, error) {
	if err := ctx.Err(); err != nil {
		return Delivery{}, false, err
	}
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	q.st.enter()
	d, ok, err := q.pop(ctx, timeout, deadline)
	q.st.leave(ok)
	return d, ok, err
}

func (q *Reliable) pop(ctx context.Context, timeout time.Duration, deadline time.Time) (Delivery, bool, error) {
	prepare := q.retrying() || q.limited()
	for first := true; ; first = false {
		var wait time.Duration // 0: forever
		if timeout > 0 {
			// The first round always looks, however short the timeout.
			if wait = time.Until(deadline); wait <= 0 && !first {
				return Delivery{}, false, nil
			}
			wait = max(wait, time.Millisecond)
		}
		full := true // wait is all that is left of timeout
		limit := func(d time.Duration) {
			d = max(d, time.Millisecond)
			if wait == 0 || d < wait {
				wait, full = d, false
			}
		}
		if prepare {
			paused, next, token, err := q.prepare(ctx)
			if err != nil {
				return Delivery{}, false, err
			}
			if paused {
				// Wait for Resume, which puts the element of "{name}:running"
				// back (see Pausing).
				_, resumed, err := q.b.BLMove(ctx, q.running, q.running, "RIGHT", "LEFT", wait)
				if err != nil {
					return Delivery{}, false, err
				}
				if !resumed && full {
					return Delivery{}, false, nil
				}
				continue
			}
			if !token.IsZero() {
				// Rate-limited: sleep exactly until the earliest delivery the
				// limit allows, which is no spin.
				limit(token.Sub(q.clock.Now()))
				if err := sleepCtx(ctx, wait); err != nil {
					return Delivery{}, false, err
				}
				if full {
					return Delivery{}, false, nil
				}
				continue
			}
			prepare = q.retrying() || q.limited()
			if !next.IsZero() {
				limit(next.Sub(q.clock.Now()))
			}
			if prepare {
				limit(q.lease)
			}
		}
		var e string // an ungrouped element moved into processing
		if q.grouped() {
			g, paused, next, err := q.popGroup(ctx)
			if g.ok || err != nil {
				return g.d, g.ok, err
			}
			if paused {
				// The prepare step sleeps while the queue is paused.
				prepare = true
				continue
			}
			// An ungrouped element older than every group that may be served,
			// or taken while every group is held, was moved as BLMOVE moves it,
			// and is leased below. Otherwise nothing may be served now: wait on
			// the ungrouped list until the earliest group reopens (an element
			// for a group not waiting comes through that list: see group.go).
			// The backend's blocking timeout may fire late (redis-server checks
			// them on its cron, 1/hz s): within that of the reopening, sleep to
			// it instead, so that Pop looks again when the window reopens.
			e = g.ready
			if e == "" && !next.IsZero() {
				if until, late := next.Sub(q.clock.Now()), resolution(q.b); until > late {
					limit(until - late)
				} else {
					limit(until)
					if err := sleepCtx(ctx, wait); err != nil {
						return Delivery{}, false, err
					}
					if full {
						return Delivery{}, false, nil
					}
					continue
				}
			}
		}
		if e == "" {
			var ok bool
			var err error
			e, ok, err = q.b.BLMove(ctx, q.ready, q.processing, "RIGHT", "LEFT", wait)
			if err != nil {
				return Delivery{}, false, err
			}
			if !ok {
				if full {
					return Delivery{}, false, nil
				}
				continue
			}
		}
		d := delivery(e)
		now := q.clock.Now()
		n, per := q.rateArgs()
		r, _, err := afterWake(ctx, func(ctx context.Context) (any, bool, error) {
			r, err := q.b.Eval(ctx, reliableLease, q.keys(), e, fmtInt(micros(now.Add(q.lease))), n, per, fmtInt(micros(now)),
				fmtInt(q.groupN), fmtInt(q.groupPer.Microseconds()))
			return r, true, err
		})
		if err != nil {
			return d, true, err
		}
		a, _ := replyArray(r)
		if a == nil { // paused or rate-limited: the element is back at the head of the queue, or in its group
			prepare = true
			continue
		}
		d = d.withInfo(a)
		if len(a) > 4 {
			d.Group = replyString(a[4])
		}
		return d, true, nil
	}
}

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

var reliableAck = NewScript(luaForget+`
local n = redis.call('LREM', KEYS[2], 1, ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
if n > 0 then forget(string.sub(ARGV[1], 1, 16)) end
return n
`, func(tx Tx, keys, args []string) (any, error) {
	n, err := tx.LRem(keys[1], 1, args[0])
	if err != nil {
		return nil, err
	}
	if _, err = tx.ZRem(keys[2], args[0]); err != nil {
		return nil, err
	}
	if n > 0 {
		err = goForget(tx, keys, seqID(args[0]))
	}
	return n, err
})

// Ack marks d done, removing it from processing and forgetting its metadata, and
// reports whether it was there. It is false when d's lease expired and Reap put it
// back in the queue (it will be delivered again). If it was put back and delivered
// again already, Ack completes that delivery as well: the job is done, and the other
// worker's Ack reports false. The complexity is O(p + log n) for p elements in
// processing.
func (q *Reliable) Ack(ctx context.Context, d Delivery) (bool, error) {
	r, err := q.b.Eval(ctx, reliableAck, q.keys(), d.elem())
	if replyInt(r) > 0 {
		q.st.ack()
	}
	return replyInt(r) > 0, err
}

var reliableNack = NewScript(luaFail+`
if redis.call('LREM', KEYS[2], 1, ARGV[8]) == 0 then return 0 end
redis.call('ZREM', KEYS[3], ARGV[8])
return fail(ARGV[8], 0)
`, func(tx Tx, keys, args []string) (any, error) {
	n, err := tx.LRem(keys[1], 1, args[7])
	if err != nil || n == 0 {
		return int64(0), err
	}
	if _, err := tx.ZRem(keys[2], args[7]); err != nil {
		return nil, err
	}
	return goFail(tx, keys, args, args[7], 0)
})

// Nack gives d up: it leaves processing and becomes the next element to be popped
// (with [WithRetry]: once its backoff has passed), or, when this was its last
// attempt, goes to the dead set. It reports whether d was in processing. It is
// [Reliable.Fail] without a reason. The complexity is O(p + log n) for p elements in
// processing.
func (q *Reliable) Nack(ctx context.Context, d Delivery) (bool, error) {
	return q.Fail(ctx, d, nil)
}

// Fail is [Reliable.Nack] that records why the delivery failed: cause's text becomes
// the element's LastError (a nil cause keeps the previous one).
func (q *Reliable) Fail(ctx context.Context, d Delivery, cause error) (bool, error) {
	reason := ""
	if cause != nil {
		reason = cause.Error()
	}
	r, err := q.b.Eval(ctx, reliableNack, q.keys(), q.failArgs(q.clock.Now(), reason, d.elem())...)
	q.countFail(r)
	return replyInt(r) > 0, err
}

var reliableRequeue = NewScript(luaFail+`
local deadline = redis.call('ZSCORE', KEYS[3], ARGV[8])
if not deadline or tonumber(deadline) > tonumber(ARGV[2]) then return 0 end
redis.call('ZREM', KEYS[3], ARGV[8])
if redis.call('LREM', KEYS[2], 1, ARGV[8]) == 0 then return 0 end
return fail(ARGV[8], 0)
`, func(tx Tx, keys, args []string) (any, error) {
	deadline, ok, err := tx.ZScore(keys[2], args[7])
	if err != nil || !ok || deadline > float64(parseInt(args[1])) {
		return int64(0), err
	}
	if _, err := tx.ZRem(keys[2], args[7]); err != nil {
		return nil, err
	}
	n, err := tx.LRem(keys[1], 1, args[7])
	if err != nil || n == 0 {
		return int64(0), err
	}
	return goFail(tx, keys, args, args[7], 0)
})

// Requeue does for d alone what [Reliable.Reap] does for every expired lease, in one
// atomic step: if d's lease has expired, d leaves processing and goes back to the
// head of the queue (or to the retry or dead set, as for [Reliable.Nack], with the
// reason "lease expired"). It reports whether it did; it does nothing to a lease
// still running, so a worker that extended its lease in time keeps it. The
// complexity is O(p + log n) for p elements in processing.
func (q *Reliable) Requeue(ctx context.Context, d Delivery) (bool, error) {
	r, err := q.b.Eval(ctx, reliableRequeue, q.keys(), q.failArgs(q.clock.Now(), leaseExpired, d.elem())...)
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
local i = 0
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[2])) do
  redis.call('ZREM', KEYS[3], m)
  if redis.call('LREM', KEYS[2], 1, m) > 0 then
    local r = fail(m, i)
    i = i + 1
    if r == 2 then n[2] = n[2] + 1 else n[1] = n[1] + 1 end
  end
end
for _, m in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
  if not redis.call('ZSCORE', KEYS[3], m) then redis.call('ZADD', KEYS[3], ARGV[8], m) end
end
return n
`, func(tx Tx, keys, args []string) (any, error) {
	expired, err := tx.ZRangeByScoreWithScores(keys[2], "-inf", args[1], 0, -1)
	if err != nil {
		return nil, err
	}
	var requeued, dead, i int64
	for _, z := range expired {
		if _, err := tx.ZRem(keys[2], z.Member); err != nil {
			return nil, err
		}
		k, err := tx.LRem(keys[1], 1, z.Member)
		if err != nil {
			return nil, err
		}
		if k > 0 {
			r, err := goFail(tx, keys, args, z.Member, i)
			if err != nil {
				return nil, err
			}
			i++
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
	lease, _ := parseScore(args[7])
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
// in the retry or dead set, as for [Reliable.Nack], with the reason "lease expired")
// and returns how many expired leases it ended; elements in processing without a
// lease get one. With [WithRetry] it then moves the due retries to the head of the
// queue, as Pop does. Run it periodically (say every lease/2). The complexity is
// O(p log n) for p elements in processing, plus O(k log n) for k due retries.
func (q *Reliable) Reap(ctx context.Context) (int64, error) {
	now := q.clock.Now()
	r, err := q.b.Eval(ctx, reliableReap, q.keys(), q.failArgs(now, leaseExpired, fmtInt(micros(now.Add(q.lease))))...)
	a, _ := replyArray(r)
	if len(a) != 2 {
		return 0, err
	}
	requeued, dead := replyInt(a[0]), replyInt(a[1])
	q.st.expire(requeued + dead)
	q.st.requeue(requeued)
	q.st.die(dead)
	if err == nil && q.retrying() {
		_, _, _, err = q.prepare(ctx)
	}
	return requeued + dead, err
}

// reliableRemove removes the waiting element whose id is ARGV[1], looking from the
// end served first, or else from its group's list, and forgets its metadata.
var reliableRemove = NewScript(luaForget+luaRequeue+luaRemoveGrouped+`
local l = redis.call('LRANGE', KEYS[1], 0, -1)
for i = #l, 1, -1 do
  if string.sub(l[i], 1, 16) == ARGV[1] then
    redis.call('LREM', KEYS[1], -1, l[i])
    forget(ARGV[1])
    return 1
  end
end
return removeGrouped(ARGV[1])
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
		return int64(1), goForget(tx, keys, args[0])
	}
	return goRemoveGrouped(tx, keys, args[0])
})

// Remove takes the waiting element id (as returned by [Reliable.Push] and listed by
// [Reliable.Items]) out of the queue, so that it is never delivered, and reports
// whether it was waiting; an element in processing is not removed (Ack it), nor one
// waiting out a retry delay. It returns [ErrEmptyID] for an empty id. The complexity
// is O(n) for n waiting elements (one pass over the list, as LREM makes, and one
// over the element's group's list).
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

// reliablePause pauses the queue (ARGV[1] "1": the member "paused" of KEYS[1]
// "{name}:meta", the list KEYS[2] "{name}:running" emptied) or resumes it (the
// member removed, the list given its one element), and replies whether that
// changed the state.
var reliablePause = NewScript(`
if ARGV[1] == '1' then
  redis.call('RPOP', KEYS[2])
  return redis.call('ZADD', KEYS[1], 1, 'paused')
end
if redis.call('LLEN', KEYS[2]) == 0 then redis.call('RPUSH', KEYS[2], 'running') end
return redis.call('ZREM', KEYS[1], 'paused')
`, func(tx Tx, keys, args []string) (any, error) {
	if args[0] == "1" {
		if _, _, err := tx.RPop(keys[1]); err != nil {
			return nil, err
		}
		return tx.ZAdd(keys[0], 1, "paused")
	}
	n, err := tx.LLen(keys[1])
	if err != nil {
		return nil, err
	}
	if n == 0 {
		if _, err := tx.RPush(keys[1], "running"); err != nil {
			return nil, err
		}
	}
	return tx.ZRem(keys[0], "paused")
})

// Pause stops the queue's consumers, in every process, from taking elements until
// [Reliable.Resume]; pushes, Acks, Nacks and Reap go on. It reports whether the queue
// was running. The complexity is O(log n).
func (q *Reliable) Pause(ctx context.Context) (bool, error) {
	r, err := q.b.Eval(ctx, reliablePause, []string{q.meta, q.running}, "1")
	return replyInt(r) > 0, err
}

// Resume ends a [Reliable.Pause] and reports whether the queue was paused. It wakes
// the waiting pops at once. The complexity is O(log n).
func (q *Reliable) Resume(ctx context.Context) (bool, error) {
	r, err := q.b.Eval(ctx, reliablePause, []string{q.meta, q.running}, "0")
	return replyInt(r) > 0, err
}

// Len returns the number of elements waiting (LLEN ready) and in processing (LLEN
// processing): two O(1) commands, not one atomic step. Elements waiting out a retry
// delay are in neither. With [WithGroupRateLimit] the waiting elements include
// those of every group's list, read in one step of O(g log g) for g groups.
func (q *Reliable) Len(ctx context.Context) (ready, processing int64, err error) {
	ready, _, err = q.waiting(ctx)
	if err != nil {
		return 0, 0, err
	}
	processing, err = q.b.LLen(ctx, q.processing)
	return ready, processing, err
}

// Stats returns the number of waiting elements, the number in processing, the
// number waiting out a retry delay, the number of dead elements, whether the queue
// is paused, and this process's counters (Requeued: by Nack, Fail, Reap, Requeue,
// Retry and RetryAll, delayed or not; ExpiredLeases: by Reap and Requeue;
// DeadLettered: moved to the dead set; Cancelled: by Remove), and with
// [WithRateLimit] how many waiting elements the limit holds back (RateLimited;
// with [WithGroupRateLimit], those of the groups found over their limit);
// see [Stats]. It is five O(1) or O(log n) commands (six with a rate limit, the
// sixth O(log n + k) for the k deliveries in the window), not one atomic step.
func (q *Reliable) Stats(ctx context.Context) (Stats, error) {
	s := Stats{Name: q.name, Type: "reliable"}
	q.st.fill(&s)
	held, err := q.fillLen(ctx, &s)
	if err != nil {
		return s, err
	}
	if s.Retrying, err = q.b.ZCard(ctx, q.retries); err != nil {
		return s, err
	}
	if s.Dead, err = q.b.ZCard(ctx, q.dead); err != nil {
		return s, err
	}
	s.RateLimited = held
	if s.Paused, err = q.Paused(ctx); err != nil || !q.limited() {
		return s, err
	}
	full, err := q.windowFull(ctx)
	if full {
		s.RateLimited = s.Depth
	}
	return s, err
}

// fillLen sets s's Depth and InFlight and returns how many waiting elements their
// groups' limits hold back.
func (q *Reliable) fillLen(ctx context.Context, s *Stats) (held int64, err error) {
	if s.Depth, held, err = q.waiting(ctx); err != nil {
		return 0, err
	}
	s.InFlight, err = q.b.LLen(ctx, q.processing)
	return held, err
}

// waiting returns the number of waiting elements and, with groups, how many of
// them wait in groups over their limit.
func (q *Reliable) waiting(ctx context.Context) (ready, held int64, err error) {
	if q.grouped() {
		return q.depth(ctx)
	}
	ready, err = q.b.LLen(ctx, q.ready)
	return ready, 0, err
}

var reliablePaused = NewScript(`
if redis.call('ZSCORE', KEYS[4], 'paused') then return 1 end
return 0
`, func(tx Tx, keys, args []string) (any, error) {
	_, ok, err := tx.ZScore(keys[3], "paused")
	if ok {
		return int64(1), err
	}
	return int64(0), err
})

// Paused reports whether the queue is paused ([Reliable.Pause]). O(log n).
func (q *Reliable) Paused(ctx context.Context) (bool, error) {
	r, err := q.b.Eval(ctx, reliablePaused, q.keys())
	return replyInt(r) == 1, err
}
