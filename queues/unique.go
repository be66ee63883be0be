package queues

import "time"

// PushOption configures one [Reliable.Push].
type PushOption func(*pushConfig)

type pushConfig struct {
	uniqueKey string
	uniqueTTL time.Duration
	group     string // [Group]
	grouped   bool
}

// Unique makes a [Reliable.Push] deduplicated by key for ttl: while an element
// pushed with key is in the queue (waiting, in processing, waiting out a retry
// delay, or dead) and ttl has not passed since it was pushed, another push with key
// is refused with an error matching [ErrDuplicate] and returns the id of the element
// already queued. The lock ends when ttl passes, or earlier when the element is
// finished ([Reliable.Ack]), removed ([Reliable.Remove]) or deleted from the dead set
// ([Reliable.DeleteDead]): a finished job may be pushed again at once. A dead
// element keeps its lock, as [Reliable.Retry] may bring it back.
//
// An empty key makes Push fail with [ErrEmptyID], a ttl below one microsecond with
// [ErrBadDuration].
func Unique(key string, ttl time.Duration) PushOption {
	return func(c *pushConfig) { c.uniqueKey, c.uniqueTTL = key, ttl }
}

// uniquePrune is how many expired uniqueness locks one push removes, at most, so
// that a push costs O(log n) amortized however many locks expired meanwhile.
const uniquePrune = 64

// luaUnique defines unique(now, k) in a Lua script: it drops up to uniquePrune
// locks expired at now (a lock's score is its expiry; it is expired when the score
// is at most now), and k's own lock if expired, and returns the id holding the
// lock k, or false. goUnique is its Go half.
const luaUnique = `
local function unique(now, k)
  local old = redis.call('ZRANGEBYSCORE', KEYS[9], '-inf', now, 'LIMIT', 0, 64)
  for _, u in ipairs(old) do
    redis.call('ZREM', KEYS[9], u)
    redis.call('HDEL', KEYS[10], u)
  end
  local e = redis.call('ZSCORE', KEYS[9], k)
  if not e then return false end
  if tonumber(e) <= tonumber(now) then
    redis.call('ZREM', KEYS[9], k)
    redis.call('HDEL', KEYS[10], k)
    return false
  end
  return redis.call('HGET', KEYS[10], k)
end
`

func goUnique(tx Tx, keys []string, now, k string) (string, bool, error) {
	old, err := tx.ZRangeByScoreWithScores(keys[8], "-inf", now, 0, uniquePrune)
	if err != nil {
		return "", false, err
	}
	for _, z := range old {
		if _, err := tx.ZRem(keys[8], z.Member); err != nil {
			return "", false, err
		}
		if _, err := tx.HDel(keys[9], z.Member); err != nil {
			return "", false, err
		}
	}
	e, ok, err := tx.ZScore(keys[8], k)
	if err != nil || !ok {
		return "", false, err
	}
	if int64(e) <= parseInt(now) {
		if _, err := tx.ZRem(keys[8], k); err != nil {
			return "", false, err
		}
		_, err := tx.HDel(keys[9], k)
		return "", false, err
	}
	return tx.HGet(keys[9], k)
}

// reliablePush pushes ARGV[1] at ARGV[2] and replies its id. With a uniqueness key
// ARGV[3] (expiring at ARGV[4]) it replies {id} of the element holding that key
// instead, pushing nothing, or takes the lock for the new element. With a group
// ARGV[5] the element goes to the tail of the group's list when the group waits in
// "{name}:groups", else to the tail of the queue, so that it wakes a blocked Pop,
// whose lease step places it in its group (see group.go).
var reliablePush = NewScript(luaSeq+luaUnique+luaRequeue+`
if ARGV[3] ~= '' then
  local id = unique(ARGV[2], ARGV[3])
  if id then return {id} end
end
local s = seq(KEYS[4])
local g = ARGV[5] or ''
if g == '' then
  redis.call('LPUSH', KEYS[1], s .. ARGV[1])
else
  redis.call('HSET', KEYS[6], s .. ':g', g)
  if redis.call('ZSCORE', KEYS[11], g) then
    redis.call('LPUSH', gkey('g:', g), s .. ARGV[1])
  else
    redis.call('LPUSH', KEYS[1], s .. ARGV[1])
  end
end
redis.call('HSET', KEYS[6], s .. ':t', ARGV[2])
if ARGV[3] ~= '' then
  redis.call('ZADD', KEYS[9], ARGV[4], ARGV[3])
  redis.call('HSET', KEYS[10], ARGV[3], s)
  redis.call('HSET', KEYS[6], s .. ':u', ARGV[3])
end
return s
`, func(tx Tx, keys, args []string) (any, error) {
	if args[2] != "" {
		id, ok, err := goUnique(tx, keys, args[1], args[2])
		if err != nil {
			return nil, err
		}
		if ok {
			return []any{id}, nil
		}
	}
	s, err := nextSeq(tx, keys[3])
	if err != nil {
		return nil, err
	}
	if len(args) < 5 || args[4] == "" {
		if _, err = tx.LPush(keys[0], s+args[0]); err != nil {
			return nil, err
		}
	} else {
		if _, err = tx.HSet(keys[5], s+":g", args[4]); err != nil {
			return nil, err
		}
		_, listed, err := tx.ZScore(keys[10], args[4])
		if err != nil {
			return nil, err
		}
		l := keys[0]
		if listed {
			l = groupKey(keys, "g:", args[4])
		}
		if _, err = tx.LPush(l, s+args[0]); err != nil {
			return nil, err
		}
	}
	if _, err = tx.HSet(keys[5], s+":t", args[1]); err != nil {
		return nil, err
	}
	if args[2] != "" {
		expiry, _ := parseScore(args[3])
		if _, err := tx.ZAdd(keys[8], expiry, args[2]); err != nil {
			return nil, err
		}
		if _, err := tx.HSet(keys[9], args[2], s); err != nil {
			return nil, err
		}
		if _, err := tx.HSet(keys[5], s+":u", args[2]); err != nil {
			return nil, err
		}
	}
	return s, nil
})

// luaForget defines forget(id): drop an element's metadata, and its uniqueness lock
// if it still holds one (a lock that expired may have passed to a newer element).
const luaForget = `
local function forget(id)
  local u = redis.call('HGET', KEYS[6], id .. ':u')
  if u and redis.call('HGET', KEYS[10], u) == id then
    redis.call('ZREM', KEYS[9], u)
    redis.call('HDEL', KEYS[10], u)
  end
  redis.call('HDEL', KEYS[6], id .. ':a', id .. ':t', id .. ':e', id .. ':u', id .. ':g')
end
`

func goForget(tx Tx, keys []string, id string) error {
	u, ok, err := tx.HGet(keys[5], id+":u")
	if err != nil {
		return err
	}
	if ok {
		holder, held, err := tx.HGet(keys[9], u)
		if err != nil {
			return err
		}
		if held && holder == id {
			if _, err := tx.ZRem(keys[8], u); err != nil {
				return err
			}
			if _, err := tx.HDel(keys[9], u); err != nil {
				return err
			}
		}
	}
	_, err = tx.HDel(keys[5], id+":a", id+":t", id+":e", id+":u", id+":g")
	return err
}

// pushArgs checks the push options and returns the uniqueness arguments of
// reliablePush: the key and the lock's expiry (Unix microseconds), or "" and "";
// and the element's group, "" for none (or on a queue without a group limit).
func (q *Reliable) pushArgs(now time.Time, opts []PushOption) (key, expiry, group string, err error) {
	var c pushConfig
	for _, o := range opts {
		o(&c)
	}
	if c.grouped && c.group == "" {
		return "", "", "", q.at.fail("push", "", ErrEmptyID)
	}
	if q.grouped() {
		group = c.group
	}
	if c.uniqueKey == "" && c.uniqueTTL == 0 {
		return "", "", group, nil
	}
	if c.uniqueKey == "" {
		return "", "", "", q.at.fail("push", "", ErrEmptyID)
	}
	if c.uniqueTTL < time.Microsecond {
		return "", "", "", q.at.fail("push", c.uniqueKey, ErrBadDuration)
	}
	return c.uniqueKey, fmtInt(micros(now.Add(c.uniqueTTL))), group, nil
}

// duplicate is the error of a push refused because the element id holds key.
func (q *Reliable) duplicate(key string) error {
	return q.at.fail("push", key, ErrDuplicate)
}
