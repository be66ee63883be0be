package queues

import (
	"context"
	"time"
)

// DeadElement is an element in the dead set of a [Reliable] queue and when it died.
// Its Delivery carries the element's attempts (Attempt: the number of deliveries
// that failed), its last error and its enqueue time.
type DeadElement struct {
	Delivery
	Died time.Time
}

// reliableInfo replies, for each id in ARGV, its failures, enqueue time, last
// error and group ("" for none), as a flat array.
var reliableInfo = NewScript(luaInfo+`
local out = {}
for _, id in ipairs(ARGV) do
  for _, v in ipairs(info(id)) do out[#out + 1] = v end
  out[#out + 1] = redis.call('HGET', KEYS[6], id .. ':g') or ''
end
return out
`, func(tx Tx, keys, args []string) (any, error) {
	out := make([]any, 0, infoStride*len(args))
	for _, id := range args {
		v, err := goInfo(tx, keys, id)
		if err != nil {
			return nil, err
		}
		g, _, err := tx.HGet(keys[5], id+":g")
		if err != nil {
			return nil, err
		}
		out = append(append(out, v...), g)
	}
	return out, nil
})

// infoStride is the number of values reliableInfo replies per id.
const infoStride = 4

// withInfo fills in the metadata of the deliveries ds (in place), in one step.
func (q *Reliable) withInfo(ctx context.Context, ds []*Delivery) error {
	if len(ds) == 0 {
		return nil
	}
	ids := make([]string, len(ds))
	for i, d := range ds {
		ids[i] = d.ID
	}
	r, err := q.b.Eval(ctx, reliableInfo, q.keys(), ids...)
	if err != nil {
		return err
	}
	a, err := replyArray(r)
	for i, d := range ds {
		if v := a[min(infoStride*i, len(a)):min(infoStride*(i+1), len(a))]; len(v) == infoStride {
			*d = d.withInfo(v)
			d.Group = replyString(v[3])
		}
	}
	return err
}

// Dead returns up to count dead elements, the earliest to die first, skipping the
// first offset, with their attempts, last error and enqueue time. It returns
// [ErrBadRange] when offset or count is negative. It is two steps (the page, then
// the metadata of its k elements), so an element retried in between is listed with
// its attempts already forgotten. The complexity is O(log n + k).
func (q *Reliable) Dead(ctx context.Context, offset, count int64) ([]DeadElement, error) {
	if err := q.at.checkRange("dead", offset, count); err != nil {
		return nil, err
	}
	var out []DeadElement
	err := q.timedPage(ctx, q.dead, offset, count, func(d Delivery, t time.Time) {
		out = append(out, DeadElement{d, t})
	})
	if err != nil {
		return out, err
	}
	ds := make([]*Delivery, len(out))
	for i := range out {
		ds[i] = &out[i].Delivery
	}
	err = q.withInfo(ctx, ds)
	for i := range out {
		// The last delivery failed: it was the element's Attempt-th, not the next.
		out[i].Attempt = max(out[i].Attempt-1, 1)
	}
	return out, err
}

var reliableRetry = NewScript(`
if redis.call('ZREM', KEYS[5], ARGV[1]) == 0 then return 0 end
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[6], string.sub(ARGV[1], 1, 16) .. ':a')
return 1
`, func(tx Tx, keys, args []string) (any, error) {
	n, err := tx.ZRem(keys[4], args[0])
	if err != nil || n == 0 {
		return int64(0), err
	}
	if _, err = tx.RPush(keys[0], args[0]); err != nil {
		return nil, err
	}
	_, err = tx.HDel(keys[5], seqID(args[0])+":a")
	return int64(1), err
})

// Retry moves the dead element d (as listed by [Reliable.Dead]) back to the head of
// the queue, with its attempts forgotten (it gets all its attempts again; its last
// error and enqueue time are kept), and reports whether it was dead. The complexity
// is O(log n).
func (q *Reliable) Retry(ctx context.Context, d Delivery) (bool, error) {
	r, err := q.b.Eval(ctx, reliableRetry, q.keys(), d.elem())
	if replyInt(r) > 0 {
		q.st.requeue(1)
	}
	return replyInt(r) > 0, err
}

var reliableRetryAll = NewScript(`
local dead = redis.call('ZRANGE', KEYS[5], 0, -1)
for i = #dead, 1, -1 do
  redis.call('RPUSH', KEYS[1], dead[i])
  redis.call('HDEL', KEYS[6], string.sub(dead[i], 1, 16) .. ':a')
end
redis.call('DEL', KEYS[5])
return #dead
`, func(tx Tx, keys, args []string) (any, error) {
	dead, err := tx.ZRangeWithScores(keys[4], 0, -1)
	if err != nil {
		return nil, err
	}
	for i := len(dead) - 1; i >= 0; i-- {
		m := dead[i].Member
		if _, err := tx.ZRem(keys[4], m); err != nil {
			return nil, err
		}
		if _, err := tx.RPush(keys[0], m); err != nil {
			return nil, err
		}
		if _, err := tx.HDel(keys[5], seqID(m)+":a"); err != nil {
			return nil, err
		}
	}
	return int64(len(dead)), nil
})

// RetryAll moves every dead element back to the head of the queue in one atomic
// step, as [Reliable.Retry] does for one, the earliest to die served first, and
// returns how many it moved. The complexity is O(n log n) for n dead elements.
func (q *Reliable) RetryAll(ctx context.Context) (int64, error) {
	r, err := q.b.Eval(ctx, reliableRetryAll, q.keys())
	q.st.requeue(replyInt(r))
	return replyInt(r), err
}

var reliableDeleteDead = NewScript(luaForget+`
if redis.call('ZREM', KEYS[5], ARGV[1]) == 0 then return 0 end
forget(string.sub(ARGV[1], 1, 16))
return 1
`, func(tx Tx, keys, args []string) (any, error) {
	n, err := tx.ZRem(keys[4], args[0])
	if err != nil || n == 0 {
		return int64(0), err
	}
	return int64(1), goForget(tx, keys, seqID(args[0]))
})

// DeleteDead drops the dead element d (as listed by [Reliable.Dead]) and its
// metadata for good, and reports whether it was dead. The complexity is O(log n).
func (q *Reliable) DeleteDead(ctx context.Context, d Delivery) (bool, error) {
	r, err := q.b.Eval(ctx, reliableDeleteDead, q.keys(), d.elem())
	return replyInt(r) > 0, err
}
