package queues

import (
	"context"
	"math"
	"time"
)

// ClassicTimed is a [Delayed] queue over the key layout of the classic timed-queue
// recipe, so that a program that already keeps timed messages that way (a sorted set
// scored by a timestamp: ZADD seta <time> <message>; consumed with ZRANGEBYSCORE seta
// 0 <now> LIMIT 0 1 and ZREM, retrying when ZREM returns 0) and a Go service can
// share one queue.
//
// # Layout
//
// One sorted set, the key given to [NewClassicTimed] verbatim: member the message
// itself, score its due time as a number of units (given to [NewClassicTimed]:
// time.Millisecond for the recipe's Java consumer, which compares with
// System.currentTimeMillis, time.Second for Unix seconds) since the Unix epoch. The
// due message with the lowest score is served first, among equal scores the one with
// the lowest bytes. Scores written here carry the time to the microsecond as a
// fraction of the unit; the recipe's consumers compare them as numbers, so they serve
// them correctly.
//
// # What the layout loses, and what ClassicTimed keeps
//
//   - The member is the message: scheduling a message that is already waiting moves
//     it to the new time (ZADD) rather than queueing it twice. [Delayed] prefixes an
//     arrival sequence, so equal payloads are separate jobs.
//   - Messages due at the same time leave in byte order, not in scheduling order.
//   - The recipe's consumer takes a message in two commands and may lose the race
//     (ZREM returns 0); [ClassicTimed.TryPop] takes it in one atomic step, so it never
//     loses a race and two consumers never get one message.
//   - There is no wake-up signal in the layout: the recipe sleeps a second when
//     nothing is due. [ClassicTimed.Pop] sleeps until the earliest due time, but at
//     most [ClassicPollInterval], so that an earlier message another program
//     schedules is served within that interval.
//   - A due time in the past is kept as given (the recipe's ZADD), not moved to now.
//     Due messages are looked for from −inf, not from the recipe's 0, which differs
//     only for times before 1970.
//
// # Redis Cluster
//
// Every step touches the one key, so the layout works on a cluster as it is.
//
// ClassicTimed is safe for concurrent use, in one process or many; each message is
// popped at most once.
type ClassicTimed struct {
	b     Backend
	key   string
	unit  int64 // microseconds per score unit
	clock nower
	at    where
}

// NewClassicTimed returns the timed queue kept in the sorted set key in the recipe's
// layout (see [ClassicTimed]), its scores counting units since the Unix epoch. It
// uses the option [WithClock]. It panics if key is empty or unit is less than a
// microsecond. The complexity is O(1).
func NewClassicTimed(b Backend, key string, unit time.Duration, opts ...Option) *ClassicTimed {
	checkName("ClassicTimed", key)
	if unit < time.Microsecond {
		panic("queues: NewClassicTimed with a unit below a microsecond")
	}
	cfg := newConfig(opts)
	return &ClassicTimed{b: b, key: key, unit: int64(unit / time.Microsecond), clock: cfg.clock, at: where{"classictimed", key}}
}

// unitScore returns t as a score of unit microseconds per unit.
func unitScore(t time.Time, unit int64) float64 {
	return float64(t.UnixMicro()) / float64(unit)
}

// unitTime returns the time a score of unit microseconds per unit stands for, to the
// microsecond.
func unitTime(score float64, unit int64) time.Time {
	return time.UnixMicro(int64(math.Round(score * float64(unit))))
}

// classicZAdd is ZADD KEYS[1] ARGV[1] ARGV[2]: 1 when the member is new.
var classicZAdd = NewScript(`
return redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
`, func(tx Tx, keys, args []string) (any, error) {
	score, _ := parseScore(args[0])
	return tx.ZAdd(keys[0], score, args[1])
})

// Schedule makes message due at at: ZADD key <at in units> message. It reports
// whether the message is new; a message already waiting is moved to at, as the
// recipe's ZADD moves it. It returns [ErrEmptyID] for an empty message. The
// complexity is O(log n).
func (q *ClassicTimed) Schedule(ctx context.Context, message string, at time.Time) (added bool, err error) {
	if message == "" {
		return false, q.at.fail("schedule", message, ErrEmptyID)
	}
	r, err := q.b.Eval(ctx, classicZAdd, []string{q.key}, fmtFloat(unitScore(at, q.unit)), message)
	return replyInt(r) == 1, err
}

// classicDuePop takes the first member of KEYS[1] scored at most ARGV[1] and replies
// {member, score}; when none is due it replies the lowest score (a string), or nil
// when the set is empty.
var classicDuePop = NewScript(`
local r = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, 1)
if #r == 0 then
  local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  if #head == 0 then return false end
  return head[2]
end
redis.call('ZREM', KEYS[1], r[1])
return r
`, func(tx Tx, keys, args []string) (any, error) {
	r, err := tx.ZRangeByScoreWithScores(keys[0], "-inf", args[0], 0, 1)
	if err != nil {
		return nil, err
	}
	if len(r) == 0 {
		head, err := tx.ZRangeWithScores(keys[0], 0, 0)
		if err != nil || len(head) == 0 {
			return nil, err
		}
		return fmtFloat(head[0].Score), nil
	}
	if _, err := tx.ZRem(keys[0], r[0].Member); err != nil {
		return nil, err
	}
	return []any{r[0].Member, fmtFloat(r[0].Score)}, nil
}).WithUndo(classicZRestore)

// tryPop runs the pop step: a due message, or the earliest due time (zero: empty).
func (q *ClassicTimed) tryPop(ctx context.Context) (Job, bool, time.Time, error) {
	r, err := q.b.Eval(ctx, classicDuePop, []string{q.key}, fmtFloat(unitScore(q.clock.Now(), q.unit)))
	if err != nil || r == nil {
		return Job{}, false, time.Time{}, err
	}
	if s, ok := r.(string); ok {
		return Job{}, false, unitTime(replyFloat(s), q.unit), nil
	}
	a, err := replyArray(r)
	if err != nil || len(a) != 2 {
		return Job{}, false, time.Time{}, err
	}
	m := replyString(a[0])
	return Job{ID: m, Payload: m, Due: unitTime(replyFloat(a[1]), q.unit)}, true, time.Time{}, nil
}

// TryPop removes and returns the due message with the lowest score (ID and Payload
// are both the message), or ok == false when none is due, in one atomic step. The
// complexity is O(log n).
func (q *ClassicTimed) TryPop(ctx context.Context) (Job, bool, error) {
	j, ok, _, err := q.tryPop(ctx)
	return j, ok, err
}

// Pop removes and returns the first message once it is due, waiting up to timeout
// (0: until ctx is done): until the earliest due time, looking again at least every
// [ClassicPollInterval]. Timeout and cancellation behave as in [FIFO.Pop]: a message
// it has taken is returned even if ctx ended meanwhile. The complexity is O(log n)
// per look.
func (q *ClassicTimed) Pop(ctx context.Context, timeout time.Duration) (Job, bool, error) {
	return waitDue(ctx, q.b, "", q.clock, timeout, func() (Job, bool, time.Time, error) { return q.tryPop(ctx) })
}

// Cancel removes message, due or not (ZREM), and reports whether it was waiting. It
// returns [ErrEmptyID] for an empty message. The complexity is O(log n).
func (q *ClassicTimed) Cancel(ctx context.Context, message string) (bool, error) {
	if message == "" {
		return false, q.at.fail("cancel", message, ErrEmptyID)
	}
	r, err := q.b.Eval(ctx, zsetRemove, []string{q.key}, message)
	return replyInt(r) > 0, err
}

// Items returns up to count waiting messages in serving order (ZRANGE … WITHSCORES),
// due or not, skipping the first offset. It returns [ErrBadRange] when offset or
// count is negative. The complexity is O(log n + k) for k messages returned.
func (q *ClassicTimed) Items(ctx context.Context, offset, count int64) ([]Job, error) {
	if err := q.at.checkRange("items", offset, count); err != nil {
		return nil, err
	}
	return unitItems(ctx, q.b, q.key, q.unit, offset, count)
}

// unitItems pages through a sorted set of members scored in units.
func unitItems(ctx context.Context, b Backend, key string, unit, offset, count int64) ([]Job, error) {
	a, err := page(ctx, b, zsetPage, []string{key}, offset, count)
	if err != nil {
		return nil, err
	}
	out := make([]Job, 0, len(a)/2)
	for i := 0; i+1 < len(a); i += 2 {
		m := replyString(a[i])
		out = append(out, Job{ID: m, Payload: m, Due: unitTime(replyFloat(a[i+1]), unit)})
	}
	return out, nil
}

// Len returns the number of waiting messages, due or not (ZCARD). The complexity is
// O(1).
func (q *ClassicTimed) Len(ctx context.Context) (int64, error) { return q.b.ZCard(ctx, q.key) }
