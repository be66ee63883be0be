package queues

import (
	"context"
	"time"
)

// luaWindow defines window(now, n, per) in a Lua script, the sliding-window log of
// [WithRateLimit]. The step's time is now, or the latest logged delivery if that
// is later (clocks of several processes, or a now read before another step ran),
// so that logged times never decrease in step order. It drops the deliveries of
// "{name}:rate" at or before that time − per and returns 0 when fewer than n
// remain (a delivery may happen now), else the time (Unix microseconds) at which
// one more may happen: when the oldest delivery that must leave the window does;
// and the step's time. logWindow(k, now, n, per) is the same over the log k (a
// group's, [WithGroupRateLimit]). goWindow and goLogWindow are their Go halves.
const luaWindow = `
local function logWindow(k, now, n, per)
  local last = redis.call('ZRANGE', k, -1, -1, 'WITHSCORES')
  if last[2] and tonumber(last[2]) > now then now = tonumber(last[2]) end
  redis.call('ZREMRANGEBYSCORE', k, '-inf', string.format('%.0f', now - per))
  local c = redis.call('ZCARD', k)
  if c < n then return 0, now end
  local z = redis.call('ZRANGE', k, c - n, c - n, 'WITHSCORES')
  return tonumber(z[2]) + per, now
end
local function window(now, n, per)
  return logWindow(KEYS[8], now, n, per)
end
`

func goWindow(tx Tx, keys []string, now, n, per int64) (next, at int64, err error) {
	return goLogWindow(tx, keys[7], now, n, per)
}

func goLogWindow(tx Tx, k string, now, n, per int64) (next, at int64, err error) {
	last, err := tx.ZRangeWithScores(k, -1, -1)
	if err != nil {
		return 0, 0, err
	}
	if len(last) > 0 && int64(last[0].Score) > now {
		now = int64(last[0].Score)
	}
	old, err := tx.ZRangeByScoreWithScores(k, "-inf", fmtInt(now-per), 0, -1)
	if err != nil {
		return 0, 0, err
	}
	for _, z := range old {
		if _, err := tx.ZRem(k, z.Member); err != nil {
			return 0, 0, err
		}
	}
	c, err := tx.ZCard(k)
	if err != nil || c < n {
		return 0, now, err
	}
	z, err := tx.ZRangeWithScores(k, c-n, c-n)
	if err != nil || len(z) == 0 {
		return 0, now, err
	}
	return int64(z[0].Score) + per, now, nil
}

// luaRecord defines record(now): log a delivery at now in "{name}:rate", under a
// member made unique by the counter "rseq" of "{name}:meta"; logRecord(k, now)
// logs it in the log k. goRecord and goLogRecord are their Go halves.
const luaRecord = `
local function logRecord(k, now)
  local s = redis.call('ZINCRBY', KEYS[4], 1, 'rseq')
  redis.call('ZADD', k, string.format('%.0f', now), string.format('%016x', tonumber(s)))
end
local function record(now) logRecord(KEYS[8], now) end
`

func goRecord(tx Tx, keys []string, now int64) error {
	return goLogRecord(tx, keys, keys[7], now)
}

func goLogRecord(tx Tx, keys []string, k string, now int64) error {
	s, err := tx.ZIncrBy(keys[3], 1, "rseq")
	if err != nil {
		return err
	}
	_, err = tx.ZAdd(k, float64(now), seqPrefix(int64(s)))
	return err
}

// rateArgs are the rate-limit arguments of the lease and prepare steps: n and per
// in microseconds ("0", "0" without a limit).
func (q *Reliable) rateArgs() (n, per string) {
	return fmtInt(q.rateN), fmtInt(q.ratePer.Microseconds())
}

// limited reports whether the queue has a rate limit ([WithRateLimit]).
func (q *Reliable) limited() bool { return q.rateN > 0 }

// untilMicros is the time of a Unix-microsecond reply, zero for 0 or "".
func untilMicros(v any) time.Time {
	if n := int64(replyFloat(v)); n > 0 {
		return time.UnixMicro(n)
	}
	return time.Time{}
}

// reliableWindowFull replies 1 when the rate limit ARGV[2] per ARGV[3] µs admits no
// delivery at ARGV[1], else 0, reading the log without changing it.
var reliableWindowFull = NewScript(`
local n = redis.call('ZCOUNT', KEYS[8], '(' .. string.format('%.0f', tonumber(ARGV[1]) - tonumber(ARGV[3])), '+inf')
if n >= tonumber(ARGV[2]) then return 1 end
return 0
`, func(tx Tx, keys, args []string) (any, error) {
	in, err := tx.ZRangeByScoreWithScores(keys[7], "("+fmtInt(parseInt(args[0])-parseInt(args[2])), "+inf", 0, -1)
	if err != nil || int64(len(in)) < parseInt(args[1]) {
		return int64(0), err
	}
	return int64(1), nil
})

// windowFull reports whether the rate limit admits no delivery now. The
// complexity is O(log m + n) for the n deliveries of the window.
func (q *Reliable) windowFull(ctx context.Context) (bool, error) {
	n, per := q.rateArgs()
	r, err := q.b.Eval(ctx, reliableWindowFull, q.keys(), fmtInt(micros(q.clock.Now())), n, per)
	return replyInt(r) == 1, err
}
