package queues

import (
	"context"
	"strings"
	"time"
)

// Group makes a [Reliable.Push] put the element in the group g, for a queue with
// [WithGroupRateLimit]: the group's elements are served in arrival order, at most n
// of them in any window of length per, and a group over its limit holds back only
// its own elements. The element keeps its group through Nack, Fail, retries, Reap,
// Requeue and Retry. On a queue without a group limit the option is ignored and the
// element is pushed as without it. An empty g makes Push fail with [ErrEmptyID].
// It adds O(log g) to Push for g groups with waiting elements.
func Group(g string) PushOption {
	return func(c *pushConfig) { c.group, c.grouped = g, true }
}

// grouped reports whether the queue limits deliveries per group
// ([WithGroupRateLimit]).
func (q *Reliable) grouped() bool { return q.groupN > 0 }

// groupKey is the key of part ("g:" its list, "glog:" its delivery log) of group g,
// built from KEYS[11] "{name}:groups", so that it has the queue's hash tag.
func groupKey(keys []string, part, g string) string {
	return strings.TrimSuffix(keys[10], "groups") + part + g
}

// Waking consumers: a Pop blocks on "{name}:ready" only while no waiting group may
// be served, and no longer than until the earliest group's score in
// "{name}:groups", so an element added to a group listed there needs no wake-up.
// An element whose group is not listed (a push or requeue to a group with nothing
// waiting) goes through "{name}:ready" instead, which wakes a blocked Pop, and
// the lease step then places it in its group (place).

// luaRequeue defines gkey(part, g), groupKey's Lua half; place(m, g, now): put the
// element m in the list of its group g, at the tail when it is newer than the
// list's tail (a push), else at the head (a requeue), and have g wait in
// "{name}:groups" (scored now unless it was there already); and requeue(m, now):
// put m back at the head of its group's list when it has a group ("<id>:g" in
// "{name}:info") listed in "{name}:groups", else at the head of the queue.
// goPlace and goRequeue are their Go halves.
const luaRequeue = `
local function gkey(part, g) return string.sub(KEYS[11], 1, -7) .. part .. g end
local function place(m, g, now)
  local l = gkey('g:', g)
  local t = redis.call('LINDEX', l, 0)
  if t and string.sub(m, 1, 16) > string.sub(t, 1, 16) then
    redis.call('LPUSH', l, m)
  else
    redis.call('RPUSH', l, m)
  end
  if not redis.call('ZSCORE', KEYS[11], g) then redis.call('ZADD', KEYS[11], now, g) end
end
local function requeue(m, now)
  local g = redis.call('HGET', KEYS[6], string.sub(m, 1, 16) .. ':g')
  if g and redis.call('ZSCORE', KEYS[11], g) then
    place(m, g, now)
  else
    redis.call('RPUSH', KEYS[1], m)
  end
end
`

func goPlace(tx Tx, keys []string, m, g, now string) error {
	l := groupKey(keys, "g:", g)
	t, err := tx.LRange(l, 0, 0)
	if err != nil {
		return err
	}
	if len(t) > 0 && seqID(m) > seqID(t[0]) {
		_, err = tx.LPush(l, m)
	} else {
		_, err = tx.RPush(l, m)
	}
	if err != nil {
		return err
	}
	return goGroupWaits(tx, keys, g, now)
}

func goRequeue(tx Tx, keys []string, m, now string) error {
	g, ok, err := tx.HGet(keys[5], seqID(m)+":g")
	if err != nil {
		return err
	}
	if ok {
		_, listed, err := tx.ZScore(keys[10], g)
		if err != nil {
			return err
		}
		if listed {
			return goPlace(tx, keys, m, g, now)
		}
	}
	_, err = tx.RPush(keys[0], m)
	return err
}

// goGroupWaits adds g to "{name}:groups" scored now unless it is there already.
func goGroupWaits(tx Tx, keys []string, g, now string) error {
	if _, ok, err := tx.ZScore(keys[10], g); err != nil || ok {
		return err
	}
	score, _ := parseScore(now)
	_, err := tx.ZAdd(keys[10], score, g)
	return err
}

// reliableGroupPop serves the waiting group with the lowest score at most ARGV[1]
// (now) whose log admits a delivery under ARGV[3] per ARGV[4] µs: it moves the
// group's oldest element into processing with a lease until ARGV[2], logs the
// delivery (and in "{name}:rate" under the queue-wide limit ARGV[5] per ARGV[6] µs),
// rescores the group by the delivery time (least recently served first) or drops it
// when it has no more elements, and replies {failures, enqueue time, last error,
// delivery time, element, group}. A group whose window is full is rescored by the time it
// reopens, and the next group is looked at. When the oldest ungrouped element
// arrived before the head of the group to be served, or when no waiting group may
// be served (or none waits), it moves the oldest ungrouped element into processing
// instead, as the BLMOVE of Pop would, and replies {element}: so grouped elements
// that may be served do not starve ungrouped ones, and a Pop need not block to
// find an ungrouped element while the groups are held. Otherwise it takes nothing
// and replies -1 when the queue is paused, the time at which a delivery may happen
// (the queue-wide window's reopening, or the lowest group score) or 0 when no
// grouped element waits. reliableGroupUndo puts back what it took.
var reliableGroupPop = NewScript(luaInfo+luaWindow+luaRecord+luaRequeue+`
if redis.call('ZSCORE', KEYS[4], 'paused') then return -1 end
local now = tonumber(ARGV[1])
local at = now
local qn = tonumber(ARGV[5])
if qn > 0 then
  local nx, t = window(now, qn, tonumber(ARGV[6]))
  if nx > 0 then return nx end
  at = t
end
local gn, gper = tonumber(ARGV[3]), tonumber(ARGV[4])
while true do
  local h = redis.call('ZRANGE', KEYS[11], 0, 0, 'WITHSCORES')
  if not h[1] or tonumber(h[2]) > now then
    local e = redis.call('RPOP', KEYS[1])
    if not e then return tonumber(h[2] or 0) end
    redis.call('LPUSH', KEYS[2], e)
    return {e}
  end
  local g = h[1]
  local nx, t = logWindow(gkey('glog:', g), at, gn, gper)
  if nx > 0 then
    redis.call('ZADD', KEYS[11], string.format('%.0f', nx), g)
  else
    local l = gkey('g:', g)
    local e = redis.call('LINDEX', KEYS[1], -1)
    local m = redis.call('LINDEX', l, -1)
    if e and m and string.sub(e, 1, 16) < string.sub(m, 1, 16) then
      redis.call('RPOP', KEYS[1])
      redis.call('LPUSH', KEYS[2], e)
      return {e}
    end
    m = redis.call('RPOP', l)
    if m then
      redis.call('LPUSH', KEYS[2], m)
      redis.call('ZADD', KEYS[3], ARGV[2], m)
      logRecord(gkey('glog:', g), t)
      if qn > 0 then record(at) end
      if redis.call('LLEN', l) == 0 then
        redis.call('ZREM', KEYS[11], g)
      else
        redis.call('ZADD', KEYS[11], string.format('%.0f', t), g)
      end
      local r = info(string.sub(m, 1, 16))
      r[4] = string.format('%.0f', t)
      r[5] = m
      r[6] = g
      return r
    end
    redis.call('ZREM', KEYS[11], g)
  end
end
`, func(tx Tx, keys, args []string) (any, error) {
	if _, paused, err := tx.ZScore(keys[3], "paused"); err != nil || paused {
		return int64(-1), err
	}
	now := parseInt(args[0])
	at := now
	qn := parseInt(args[4])
	if qn > 0 {
		nx, t, err := goWindow(tx, keys, now, qn, parseInt(args[5]))
		if err != nil || nx > 0 {
			return nx, err
		}
		at = t
	}
	gn, gper := parseInt(args[2]), parseInt(args[3])
	for {
		h, err := tx.ZRangeWithScores(keys[10], 0, 0)
		if err != nil {
			return nil, err
		}
		if len(h) == 0 || int64(h[0].Score) > now {
			var next int64 // when the first group may be served; 0: none waits
			if len(h) > 0 {
				next = int64(h[0].Score)
			}
			e, ok, err := tx.RPop(keys[0])
			if err != nil || !ok {
				return next, err
			}
			_, err = tx.LPush(keys[1], e)
			return []any{e}, err
		}
		g := h[0].Member
		nx, t, err := goLogWindow(tx, groupKey(keys, "glog:", g), at, gn, gper)
		if err != nil {
			return nil, err
		}
		if nx > 0 {
			if _, err := tx.ZAdd(keys[10], float64(nx), g); err != nil {
				return nil, err
			}
			continue
		}
		l := groupKey(keys, "g:", g)
		if e, ok, err := goOlderReady(tx, keys, l); err != nil || ok {
			return []any{e}, err
		}
		m, ok, err := tx.RPop(l)
		if err != nil {
			return nil, err
		}
		if !ok {
			if _, err := tx.ZRem(keys[10], g); err != nil {
				return nil, err
			}
			continue
		}
		return goGroupDeliver(tx, keys, args, g, l, m, t, at, qn > 0)
	}
}).WithUndo(reliableGroupUndo)

// goOlderReady moves the oldest ungrouped element into processing, as BLMOVE
// does, if it arrived before the head of the group list l (or was put back at the
// head of the queue), and returns it.
func goOlderReady(tx Tx, keys []string, l string) (string, bool, error) {
	e, err := tx.LRange(keys[0], -1, -1)
	if err != nil || len(e) == 0 {
		return "", false, err
	}
	m, err := tx.LRange(l, -1, -1)
	if err != nil || len(m) == 0 || seqID(e[0]) >= seqID(m[0]) {
		return "", false, err
	}
	if _, _, err := tx.RPop(keys[0]); err != nil {
		return "", false, err
	}
	_, err = tx.LPush(keys[1], e[0])
	return e[0], true, err
}

// goGroupDeliver is the delivery of reliableGroupPop: m, just popped from the list
// l of group g, is leased, logged at t (and at at in the queue-wide log when
// limited) and its group rescored.
func goGroupDeliver(tx Tx, keys, args []string, g, l, m string, t, at int64, limited bool) (any, error) {
	if _, err := tx.LPush(keys[1], m); err != nil {
		return nil, err
	}
	deadline, _ := parseScore(args[1])
	if _, err := tx.ZAdd(keys[2], deadline, m); err != nil {
		return nil, err
	}
	if err := goLogRecord(tx, keys, groupKey(keys, "glog:", g), t); err != nil {
		return nil, err
	}
	if limited {
		if err := goRecord(tx, keys, at); err != nil {
			return nil, err
		}
	}
	n, err := tx.LLen(l)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		_, err = tx.ZRem(keys[10], g)
	} else {
		_, err = tx.ZAdd(keys[10], float64(t), g)
	}
	if err != nil {
		return nil, err
	}
	r, err := goInfo(tx, keys, seqID(m))
	return append(r, fmtInt(t), m, g), err
}

// reliableGroupUndo puts back what reliableGroupPop took when its reply was lost:
// ARGV[5] leaves processing and its lease and goes back to the head of its group;
// an ungrouped ARGV[1], of a reply {element}, back to the head of the queue.
var reliableGroupUndo = NewScript(luaRequeue+`
if #ARGV == 1 then
  if redis.call('LREM', KEYS[2], 1, ARGV[1]) == 0 then return 0 end
  redis.call('RPUSH', KEYS[1], ARGV[1])
  return 1
end
if redis.call('LREM', KEYS[2], 1, ARGV[5]) == 0 then return 0 end
redis.call('ZREM', KEYS[3], ARGV[5])
requeue(ARGV[5], ARGV[4])
return 1
`, func(tx Tx, keys, args []string) (any, error) {
	if len(args) == 1 {
		n, err := tx.LRem(keys[1], 1, args[0])
		if err != nil || n == 0 {
			return int64(0), err
		}
		_, err = tx.RPush(keys[0], args[0])
		return int64(1), err
	}
	if len(args) < 5 {
		return int64(0), nil
	}
	n, err := tx.LRem(keys[1], 1, args[4])
	if err != nil || n == 0 {
		return int64(0), err
	}
	if _, err := tx.ZRem(keys[2], args[4]); err != nil {
		return nil, err
	}
	return int64(1), goRequeue(tx, keys, args[4], args[3])
})

// groupTake is what reliableGroupPop took: a grouped delivery (ok), or an
// ungrouped element moved into processing but not yet leased (ready).
type groupTake struct {
	d     Delivery
	ok    bool
	ready string
}

// popGroup runs reliableGroupPop: what it took, or whether the queue is paused, or
// when a grouped delivery may next happen (zero: no grouped element waits).
func (q *Reliable) popGroup(ctx context.Context) (g groupTake, paused bool, next time.Time, err error) {
	now := q.clock.Now()
	n, per := q.rateArgs()
	r, err := q.b.Eval(ctx, reliableGroupPop, q.keys(), fmtInt(micros(now)), fmtInt(micros(now.Add(q.lease))),
		fmtInt(q.groupN), fmtInt(q.groupPer.Microseconds()), n, per)
	if err != nil {
		// Nothing was taken, or the backend gave up waiting for the reply and
		// put back what the step took ([Script.WithUndo]).
		return groupTake{}, false, time.Time{}, err
	}
	if a, isArray := r.([]any); isArray {
		switch len(a) {
		case 6:
			d := delivery(replyString(a[4])).withInfo(a)
			d.Group = replyString(a[5])
			return groupTake{d: d, ok: true}, false, time.Time{}, nil
		case 1:
			return groupTake{ready: replyString(a[0])}, false, time.Time{}, nil
		}
	}
	if replyInt(r) == -1 {
		return groupTake{}, true, time.Time{}, nil
	}
	return groupTake{}, false, untilMicros(r), nil
}

// reliableDepth replies {waiting elements: ungrouped and in every group's list,
// those of them in groups scored after ARGV[1] (held back by their group's limit)}.
var reliableDepth = NewScript(luaRequeue+`
local d = redis.call('LLEN', KEYS[1])
local held = 0
local gs = redis.call('ZRANGE', KEYS[11], 0, -1, 'WITHSCORES')
for i = 1, #gs, 2 do
  local n = redis.call('LLEN', gkey('g:', gs[i]))
  d = d + n
  if tonumber(gs[i + 1]) > tonumber(ARGV[1]) then held = held + n end
end
return {d, held}
`, func(tx Tx, keys, args []string) (any, error) {
	d, err := tx.LLen(keys[0])
	if err != nil {
		return nil, err
	}
	gs, err := tx.ZRangeWithScores(keys[10], 0, -1)
	if err != nil {
		return nil, err
	}
	var held int64
	now := parseInt(args[0])
	for _, z := range gs {
		n, err := tx.LLen(groupKey(keys, "g:", z.Member))
		if err != nil {
			return nil, err
		}
		d += n
		if int64(z.Score) > now {
			held += n
		}
	}
	return []any{d, held}, nil
})

// depth returns the number of waiting elements, grouped or not, and how many of
// them wait in groups over their limit.
func (q *Reliable) depth(ctx context.Context) (ready, held int64, err error) {
	r, err := q.b.Eval(ctx, reliableDepth, q.keys(), fmtInt(micros(q.clock.Now())))
	a, _ := replyArray(r)
	if err != nil || len(a) != 2 {
		return 0, 0, err
	}
	return replyInt(a[0]), replyInt(a[1]), nil
}

// luaRemoveGrouped defines removeGrouped(id): remove the element id from the list
// of its group, if it has one and waits there, dropping the group from
// "{name}:groups" when its list empties, and forget its metadata; reply 1 if it did.
// It needs luaForget and luaRequeue. goRemoveGrouped is its Go half.
const luaRemoveGrouped = `
local function removeGrouped(id)
  local g = redis.call('HGET', KEYS[6], id .. ':g')
  if not g then return 0 end
  local k = gkey('g:', g)
  local l = redis.call('LRANGE', k, 0, -1)
  for i = #l, 1, -1 do
    if string.sub(l[i], 1, 16) == id then
      redis.call('LREM', k, -1, l[i])
      if redis.call('LLEN', k) == 0 then redis.call('ZREM', KEYS[11], g) end
      forget(id)
      return 1
    end
  end
  return 0
end
`

func goRemoveGrouped(tx Tx, keys []string, id string) (int64, error) {
	g, ok, err := tx.HGet(keys[5], id+":g")
	if err != nil || !ok {
		return 0, err
	}
	k := groupKey(keys, "g:", g)
	l, err := tx.LRange(k, 0, -1)
	if err != nil {
		return 0, err
	}
	for i := len(l) - 1; i >= 0; i-- {
		if seqID(l[i]) != id {
			continue
		}
		if _, err := tx.LRem(k, -1, l[i]); err != nil {
			return 0, err
		}
		n, err := tx.LLen(k)
		if err != nil {
			return 0, err
		}
		if n == 0 {
			if _, err := tx.ZRem(keys[10], g); err != nil {
				return 0, err
			}
		}
		return 1, goForget(tx, keys, id)
	}
	return 0, nil
}
