package queues

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// ClassicScheduler is a [Scheduler] over the key layout of the classic delayed-job
// recipe ("Redis in Action" 6.4, as PHP applications often write it: addFutureJob
// stores each job as JSON in a sorted set scored by its execution time, and getQueue
// moves every due job to the list its JSON names), so that such an application and a
// Go service can share the jobs.
//
// # Layout
//
// One sorted set, the key given to [NewClassicScheduler] verbatim: member the job's
// JSON, an object {"queue": …, "fun": …, "parameter": …} ([ClassicJob]), score its
// execution time in Unix seconds (fractional: the time to the microsecond, which the
// recipe's "score <= time()" compares correctly). A due job is moved, member
// unchanged, to the list named by its "queue" field, verbatim, with LPUSH; workers
// take jobs from the right end (BRPOP, RPOP: [ClassicScheduler.Queue]), so each list
// is FIFO in due order. Jobs other code added are moved here in due order (lowest
// score first, equal scores by member bytes) and read by [ClassicJob]'s decoding;
// jobs added here are moved and decoded by the recipe's code.
//
// # What the layout loses, and what ClassicScheduler keeps
//
//   - The member is the job's JSON: two identical jobs are one member, the later
//     ZADD's time winning. [Scheduler] prefixes an arrival sequence. PHP's
//     json_encode escapes "/" and non-ASCII characters by default and Go's encoder
//     does not, so the same job written by both may be two members.
//   - Jobs due at the same second (or microsecond) are moved in byte order of their
//     JSON, not in the order they were added.
//   - The recipe's getQueue reads the first job, then pushes and removes it in
//     separate commands, so two movers may both push one job. Here each job is moved
//     by one atomic step that checks it is still there and still due: two movers, Go
//     or PHP, never move a job twice through ClassicScheduler, and a job a PHP mover
//     took is gone before ClassicScheduler looks.
//   - There is no wake-up signal in the layout: [ClassicScheduler.Run] sleeps until
//     the earliest due time, but at most [ClassicPollInterval], so that an earlier job
//     another program adds is moved within that interval.
//   - A member that is not such JSON (or names no queue) cannot be moved: it stays in
//     the set, [ClassicScheduler.Step] passes over it and reports it with
//     [ErrBadJob], and [ClassicScheduler.Cancel] takes it out. A job whose queue
//     names a key of another type is not moved either: Step returns Redis's WRONGTYPE
//     error for it, having changed nothing.
//
// # Redis Cluster
//
// A move touches the sorted set and the target list, both declared to Redis. On a
// cluster they must hash to one slot: name the sorted set and every queue with a
// common hash tag ("{jobs}delayed", "{jobs}email"). The recipe's plain names work on a
// single node (or Sentinel) only; a cluster refuses the move with CROSSSLOT.
//
// ClassicScheduler is safe for concurrent use, in one process or many.
type ClassicScheduler struct {
	b     Backend
	key   string
	clock nower
	at    where
}

// ClassicJob is a job of a [ClassicScheduler], in the recipe's JSON: Queue names the
// list the job is moved to, Fun the function a worker runs, Parameter its argument as
// JSON (empty: null).
type ClassicJob struct {
	Queue     string          `json:"queue"`
	Fun       string          `json:"fun"`
	Parameter json.RawMessage `json:"parameter"`
}

// NewClassicScheduler returns the scheduler kept in the sorted set key in the
// recipe's layout (see [ClassicScheduler]). It uses the option [WithClock]. It panics
// if key is empty. The complexity is O(1).
func NewClassicScheduler(b Backend, key string, opts ...Option) *ClassicScheduler {
	checkName("ClassicScheduler", key)
	cfg := newConfig(opts)
	return &ClassicScheduler{b: b, key: key, clock: cfg.clock, at: where{"classicscheduler", key}}
}

// Queue returns the list jobs naming queue are moved to, as a [FIFO] over that key
// ([NewClassicFIFO]): its elements are the jobs' JSON, oldest first. The complexity is
// O(1).
func (s *ClassicScheduler) Queue(queue string) *FIFO { return NewClassicFIFO(s.b, queue) }

// AddFutureJob schedules job to be moved to its queue at at (kept as given, a past
// time included), as the recipe's addFutureJob does: ZADD key <at in Unix seconds>
// <job JSON>. It returns the job's id, its member, which [ClassicScheduler.Cancel]
// takes. It returns [ErrNoQueue] when job names no queue and [ErrBadJob] when it
// names no function or its Parameter is not valid JSON. The complexity is O(log n).
func (s *ClassicScheduler) AddFutureJob(ctx context.Context, job ClassicJob, at time.Time) (id string, err error) {
	if job.Queue == "" {
		return "", s.at.fail("add", job.Fun, ErrNoQueue)
	}
	if job.Fun == "" || (len(job.Parameter) > 0 && !json.Valid(job.Parameter)) {
		return "", s.at.fail("add", job.Fun, ErrBadJob)
	}
	if len(job.Parameter) == 0 {
		job.Parameter = json.RawMessage("null")
	}
	data, err := json.Marshal(job)
	if err != nil {
		return "", s.at.fail("add", job.Fun, ErrBadJob)
	}
	m := string(data)
	if _, err := s.b.Eval(ctx, classicZAdd, []string{s.key}, fmtFloat(unitScore(at, 1e6)), m); err != nil {
		return "", err
	}
	return m, nil
}

// decodeClassicJob decodes a member, ok == false when it is not a job with a queue.
func decodeClassicJob(m string) (ClassicJob, bool) {
	var j ClassicJob
	if err := json.Unmarshal([]byte(m), &j); err != nil || j.Queue == "" {
		return ClassicJob{}, false
	}
	return j, true
}

// classicMove moves the member ARGV[1] from the sorted set KEYS[1] to the head of
// the list KEYS[2] (LPUSH) if it is still there and scored at most ARGV[2]: 1 when
// moved, 0 otherwise.
var classicMove = NewScript(`
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not s or tonumber(s) > tonumber(ARGV[2]) then return 0 end
redis.call('LPUSH', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
`, func(tx Tx, keys, args []string) (any, error) {
	s, ok, err := tx.ZScore(keys[0], args[0])
	if err != nil || !ok {
		return int64(0), err
	}
	if now, _ := parseScore(args[1]); s > now {
		return int64(0), nil
	}
	// LPUSH first: it is the write that can fail (WRONGTYPE), and Redis does not
	// roll a script back.
	if _, err := tx.LPush(keys[1], args[0]); err != nil {
		return nil, err
	}
	if _, err := tx.ZRem(keys[0], args[0]); err != nil {
		return nil, err
	}
	return int64(1), nil
})

// classicDueAt reads the member at offset ARGV[2] among those of KEYS[1] scored at
// most ARGV[1]: {member, score}; when there is none, the lowest score of a member
// that is not due (a string), or nil.
var classicDueAt = NewScript(`
local r = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', tonumber(ARGV[2]), 1)
if #r > 0 then return r end
local head = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
if #head == 0 then return false end
return head[2]
`, func(tx Tx, keys, args []string) (any, error) {
	r, err := tx.ZRangeByScoreWithScores(keys[0], "-inf", args[0], parseInt(args[1]), 1)
	if err != nil {
		return nil, err
	}
	if len(r) > 0 {
		return []any{r[0].Member, fmtFloat(r[0].Score)}, nil
	}
	head, err := tx.ZRangeByScoreWithScores(keys[0], "("+args[0], "+inf", 0, 1)
	if err != nil || len(head) == 0 {
		return nil, err
	}
	return fmtFloat(head[0].Score), nil
})

// step moves every job due now, one atomic move each, and returns them in due order,
// the next due time (zero: none) and, for members that are not jobs, an error.
func (s *ClassicScheduler) step(ctx context.Context) ([]ClassicJob, time.Time, error) {
	now := fmtFloat(unitScore(s.clock.Now(), 1e6))
	var moved []ClassicJob
	var bad error
	skip := int64(0) // malformed members passed over, all due
	for {
		r, err := s.b.Eval(ctx, classicDueAt, []string{s.key}, now, fmtInt(skip))
		if err != nil {
			return moved, time.Time{}, err
		}
		if r == nil {
			return moved, time.Time{}, bad
		}
		if next, ok := r.(string); ok {
			return moved, unitTime(replyFloat(next), 1e6), bad
		}
		a, err := replyArray(r)
		if err != nil || len(a) != 2 {
			return moved, time.Time{}, err
		}
		m := replyString(a[0])
		j, ok := decodeClassicJob(m)
		if !ok {
			if bad == nil {
				bad = s.at.fail("step", m, ErrBadJob)
			}
			skip++
			continue
		}
		r, err = s.b.Eval(ctx, classicMove, []string{s.key, j.Queue}, m, now)
		if err != nil {
			return moved, time.Time{}, err
		}
		if replyInt(r) == 1 {
			moved = append(moved, j)
		}
		// Moved here or by another mover meanwhile: either way it is gone; look again.
	}
}

// Step moves every job due now to its queue, each in one atomic step, and returns
// the jobs it moved in due order. A member that is not a job is left in place and
// reported, after the jobs are moved, by an error wrapping [ErrBadJob] that names the
// first such member. The complexity is O(k (log n + size of a job)) for k jobs moved.
func (s *ClassicScheduler) Step(ctx context.Context) ([]ClassicJob, error) {
	moved, _, err := s.step(ctx)
	return moved, err
}

// Run moves due jobs until ctx is done, calling report (if not nil) with each
// non-empty batch it moved, and sleeping until the next due time but at most
// [ClassicPollInterval]. It returns ctx.Err(), or the first backend error; members
// that are not jobs are passed over (see [ClassicScheduler.Step]). The complexity per
// job moved is that of Step.
func (s *ClassicScheduler) Run(ctx context.Context, report func([]ClassicJob)) error {
	for {
		_, _, err := waitDue(ctx, s.b, "", s.clock, 0, func() (struct{}, bool, time.Time, error) {
			moved, next, err := s.step(ctx)
			if len(moved) > 0 && report != nil {
				report(moved)
			}
			if errors.Is(err, ErrBadJob) {
				err = nil // reported by Step; Run passes over such members
			}
			return struct{}{}, len(moved) > 0, next, err
		})
		if err != nil {
			return err
		}
	}
}

// Cancel takes the job id (its member, as returned by
// [ClassicScheduler.AddFutureJob] and listed by [ClassicScheduler.Items]) out before
// it is moved (ZREM), and reports whether it was there. It returns [ErrEmptyID] for
// an empty id. The complexity is O(log n).
func (s *ClassicScheduler) Cancel(ctx context.Context, id string) (bool, error) {
	if id == "" {
		return false, s.at.fail("cancel", id, ErrEmptyID)
	}
	r, err := s.b.Eval(ctx, zsetRemove, []string{s.key}, id)
	return replyInt(r) > 0, err
}

// Items returns up to count jobs not yet moved, in due order, skipping the first
// offset; a [Job]'s ID and Payload are both the member (the job's JSON, which
// [ClassicJob] decodes). It returns [ErrBadRange] when offset or count is negative.
// The complexity is O(log n + k) for k jobs returned.
func (s *ClassicScheduler) Items(ctx context.Context, offset, count int64) ([]Job, error) {
	if err := s.at.checkRange("items", offset, count); err != nil {
		return nil, err
	}
	return unitItems(ctx, s.b, s.key, 1e6, offset, count)
}

// Len returns the number of jobs not yet moved, due or not (ZCARD). The complexity is
// O(1).
func (s *ClassicScheduler) Len(ctx context.Context) (int64, error) { return s.b.ZCard(ctx, s.key) }
