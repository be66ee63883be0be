package queues

import (
	"context"
	"time"
)

// Delayed is for work that must not start before a given time (send the reminder
// in an hour, retry in 30 s): Schedule a payload for a time, and Pop returns it once
// it is due. Jobs
// live in the sorted set "{name}:due", scored by due time in Unix microseconds, the
// member being the arrival sequence followed by the payload (jobs due at the same
// microsecond leave in scheduling order; equal payloads may be scheduled many times).
//
// The usual recipe polls ZRANGEBYSCORE 0 now LIMIT 0 1 + ZREM and sleeps a second
// when nothing is due. Here an atomic step pops one due job or returns the earliest due
// time, and a consumer with nothing due blocks on the wake list "{name}:wake" (BRPOP)
// with a timeout that ends exactly at the earliest due time. Schedule pushes a wake
// token when the new job becomes the earliest, and a consumer that took a job pushes
// one while jobs remain, handing the watch to the next sleeper; so consumers sleep
// exactly until the next due time or until an earlier job arrives, with no polling.
// On the embedded engine the wake-up is the keyspace's timer at the due time. On
// Redis it is BRPOP's timeout, which a server checks only about every 1/hz seconds
// (100 ms by default); so a consumer whose next due time is nearer than that
// resolution sleeps on a client-side timer instead and then looks again (an earlier
// job scheduled during that short sleep waits for its end).
//
// Delayed is safe for concurrent use; two consumers never get the same job.
type Delayed struct {
	b                   Backend
	name                string
	st                  *counters
	clock               nower
	at                  where
	due, meta, wakeList string
}

// Job is a job of a [Delayed] queue or a [Scheduler]. Its ID is the job's member in
// the sorted set (the arrival sequence followed by the payload): unique per
// scheduled job, and enough to cancel it in O(log n).
type Job struct {
	ID      string    // as returned by [Delayed.Schedule] or [Scheduler.AddFutureJob]
	Payload string    // as given to [Delayed.Schedule]
	Due     time.Time // when it became due, to the microsecond (a past time: when scheduled)
}

// NewDelayed returns the delayed queue called name on b. It uses the options
// [WithClock] and [WithStats]. It panics if name is empty.
func NewDelayed(b Backend, name string, opts ...Option) *Delayed {
	checkName("Delayed", name)
	cfg := newConfig(opts)
	return &Delayed{b: b, name: name, st: newCounters(cfg, true), clock: cfg.clock, at: where{"delayed", name}, due: key(name, "due"), meta: key(name, "meta"), wakeList: key(name, "wake")}
}

func (q *Delayed) keys() []string { return []string{q.due, q.meta, q.wakeList} }

// luaSchedule adds ARGV[1] due at ARGV[2] to KEYS[1], pushes a wake token onto
// KEYS[3] when it became the earliest job, and returns the new member (the job's id).
const luaSchedule = luaSeq + `
local m = seq(KEYS[2]) .. ARGV[1]
redis.call('ZADD', KEYS[1], ARGV[2], m)
local head = redis.call('ZRANGE', KEYS[1], 0, 0)
if head[1] == m and redis.call('LLEN', KEYS[3]) == 0 then redis.call('LPUSH', KEYS[3], '1') end
return m
`

func goSchedule(tx Tx, keys, args []string) (any, error) {
	s, err := nextSeq(tx, keys[1])
	if err != nil {
		return nil, err
	}
	m := s + args[0]
	at, _ := parseScore(args[1])
	if _, err := tx.ZAdd(keys[0], at, m); err != nil {
		return nil, err
	}
	head, err := tx.ZRangeWithScores(keys[0], 0, 0)
	if err != nil {
		return nil, err
	}
	if len(head) == 1 && head[0].Member == m {
		if err := wake(tx, keys[2]); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// wake pushes a wake token onto list unless one is already waiting there.
func wake(tx Tx, list string) error {
	n, err := tx.LLen(list)
	if err == nil && n == 0 {
		_, err = tx.LPush(list, "1")
	}
	return err
}

var delayedSchedule = NewScript(luaSchedule, goSchedule)

// dueMicros returns at in microseconds, or now when at is earlier: a due time in the
// past means due now.
func dueMicros(at, now time.Time) int64 {
	if at.Before(now) {
		at = now
	}
	return micros(at)
}

// Schedule queues payload to become due at at (a time in the past means now) and
// returns the job's id, which [Delayed.Cancel] takes and [Job].ID repeats. The
// complexity is O(log n).
func (q *Delayed) Schedule(ctx context.Context, payload string, at time.Time) (id string, err error) {
	r, err := q.b.Eval(ctx, delayedSchedule, q.keys(), payload, fmtInt(dueMicros(at, q.clock.Now())))
	if err != nil {
		return "", err
	}
	q.st.enq(1)
	return replyString(r), nil
}

var delayedPop = NewScript(`
local r = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if #r == 0 then return false end
if tonumber(r[2]) > tonumber(ARGV[1]) then return r[2] end
redis.call('ZREM', KEYS[1], r[1])
if redis.call('ZCARD', KEYS[1]) > 0 and redis.call('LLEN', KEYS[3]) == 0 then
  redis.call('LPUSH', KEYS[3], '1')
end
return r
`, func(tx Tx, keys, args []string) (any, error) {
	r, err := tx.ZRangeWithScores(keys[0], 0, 0)
	if err != nil || len(r) == 0 {
		return nil, err
	}
	now, _ := parseScore(args[0])
	if r[0].Score > now {
		return fmtFloat(r[0].Score), nil
	}
	if _, err := tx.ZRem(keys[0], r[0].Member); err != nil {
		return nil, err
	}
	if n, err := tx.ZCard(keys[0]); err != nil || n == 0 {
		return []any{r[0].Member, fmtFloat(r[0].Score)}, err
	}
	return []any{r[0].Member, fmtFloat(r[0].Score)}, wake(tx, keys[2])
}).WithUndo(delayedRestore)

// delayedRestore puts back a job that delayedPop took (its reply: member, due time)
// and wakes a sleeper, as scheduling it did.
var delayedRestore = NewScript(`
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
if redis.call('LLEN', KEYS[3]) == 0 then redis.call('LPUSH', KEYS[3], '1') end
return 1
`, nil)

// tryPop runs the pop step: a due job, or the earliest due time (zero when empty).
func (q *Delayed) tryPop(ctx context.Context) (Job, bool, time.Time, error) {
	now := q.clock.Now()
	r, err := q.b.Eval(ctx, delayedPop, q.keys(), fmtInt(micros(now)))
	if err != nil || r == nil {
		return Job{}, false, time.Time{}, err
	}
	if s, ok := r.(string); ok {
		return Job{}, false, time.UnixMicro(int64(replyFloat(s))), nil
	}
	a, err := replyArray(r)
	if err != nil || len(a) != 2 {
		return Job{}, false, time.Time{}, err
	}
	m := replyString(a[0])
	j := Job{ID: m, Payload: stripSeq(m), Due: time.UnixMicro(int64(replyFloat(a[1])))}
	q.st.deq(1)
	q.st.late(now.Sub(j.Due))
	return j, true, time.Time{}, nil
}

// TryPop removes and returns the earliest job if it is due, or ok == false. The
// complexity is O(log n).
func (q *Delayed) TryPop(ctx context.Context) (Job, bool, error) {
	j, ok, _, err := q.tryPop(ctx)
	return j, ok, err
}

// Pop removes and returns the earliest job once it is due, waiting up to timeout (0:
// until ctx is done). Timeout and cancellation behave as in [FIFO.Pop]: a job it has
// taken is returned even if ctx ended meanwhile. The complexity is O(log n).
func (q *Delayed) Pop(ctx context.Context, timeout time.Duration) (Job, bool, error) {
	q.st.enter()
	defer q.st.leave(false) // the step counts what it takes
	return waitDue(ctx, q.b, q.wakeList, q.clock, timeout, func() (Job, bool, time.Time, error) {
		var next time.Time
		j, ok, err := afterWake(ctx, func(ctx context.Context) (Job, bool, error) {
			j, ok, n, err := q.tryPop(ctx)
			next = n
			return j, ok, err
		})
		return j, ok, next, err
	})
}

// afterWake runs step, which follows a wake or token that a blocking pop may have
// consumed, so it must run even when ctx ended meanwhile: it resets the tokens, and
// without it a sleeper could miss its wake-up. When ctx ended before the backend sent
// the step (a Backend then returns ctx.Err() itself and runs nothing), it runs once
// more without ctx's cancellation. A backend that gives up waiting for the step's
// reply undoes what the step took ([Script.WithUndo]), so nothing is lost either way.
func afterWake[T any](ctx context.Context, step func(context.Context) (T, bool, error)) (T, bool, error) {
	v, ok, err := step(ctx)
	if err != nil && err == ctx.Err() {
		return step(context.WithoutCancel(ctx))
	}
	return v, ok, err
}

// waitDue runs try until it yields, sleeping on the wake list until the next due time
// it reports (forever when it reports none) or a wake token, within timeout (0: none).
// Without a wake list ("", the classic layouts: nothing signals their pushes) it
// sleeps until the next due time but at most [ClassicPollInterval].
func waitDue[T any](ctx context.Context, b Backend, wakeList string, clock nower, timeout time.Duration,
	try func() (T, bool, time.Time, error)) (T, bool, error) {
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, false, err
	}
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for {
		v, ok, next, err := try()
		if ok || err != nil {
			return v, ok, err
		}
		var wait time.Duration // 0: until woken
		if !next.IsZero() {
			wait = max(next.Sub(clock.Now()), time.Microsecond)
		}
		if wakeList == "" && (wait == 0 || wait > ClassicPollInterval) {
			wait = ClassicPollInterval
		}
		if timeout > 0 {
			left := time.Until(deadline)
			if left <= 0 {
				return v, false, nil
			}
			if wait == 0 || left < wait {
				wait = left
			}
		}
		if wakeList == "" || (wait > 0 && wait < resolution(b)) {
			// No wake list, or the backend would time out late: sleep here,
			// then look again.
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return v, false, ctx.Err()
			}
			continue
		}
		if _, _, _, err := b.BRPop(ctx, wait, wakeList); err != nil {
			return v, false, err
		}
	}
}

// resolution returns how late b's blocking timeouts may fire: a Backend may say so
// with a method TimeoutResolution() time.Duration (redisq does: Redis checks
// timeouts of blocked clients about every 1/hz seconds). Zero means exact.
func resolution(b Backend) time.Duration {
	if r, ok := b.(interface{ TimeoutResolution() time.Duration }); ok {
		return r.TimeoutResolution()
	}
	return 0
}

// Len returns the number of scheduled jobs, due or not (ZCARD). The complexity is O(1).
func (q *Delayed) Len(ctx context.Context) (int64, error) { return q.b.ZCard(ctx, q.due) }

// Stats returns the number of scheduled jobs, how many are due, how long the
// earliest has been due, this process's counters and the lateness of the jobs it
// popped (now − due, at the pop); see [Stats]. The complexity is O(log n).
func (q *Delayed) Stats(ctx context.Context) (Stats, error) {
	s := Stats{Name: q.name, Type: "delayed"}
	q.st.fill(&s)
	err := dueStats(ctx, q.b, q.due, q.clock.Now(), &s)
	return s, err
}
