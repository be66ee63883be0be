package queues

import (
	"context"
	"encoding/json"
	"strconv"
	"time"
)

// Scheduler is for running jobs later on ordinary work queues, the delay scheduler
// of "Redis in Action" 6.4: AddFutureJob stores a job — JSON naming a target queue, a function and its arguments — in the
// sorted set "{name}:jobs" scored by due time; a mover transfers every due job, in
// batches, into its target work queue, the list "{name}:queue:<queue>" (read it with
// [Scheduler.Queue]).
//
// Each batch is one atomic step (ZRANGEBYSCORE … LIMIT, then LPUSH and ZREM per job),
// so a job is moved exactly once even with several movers running. Movers sleep until
// the earliest due time or a wake token, as consumers of [Delayed] do. The Lua half
// decodes the job with cjson and writes target lists whose names it builds; they
// share the scheduler's hash tag, which Redis Cluster accepts for keys of one slot.
//
// Scheduler is safe for concurrent use.
type Scheduler struct {
	b                   Backend
	st                  *counters
	clock               nower
	batch               int64
	name                string
	at                  where
	jobs, meta, wakeKey string
}

// FutureJob is a scheduler job: Queue names the target work queue, Func the function
// a worker runs, Args its arguments as JSON (empty: none). Its JSON form is
// {"queue":…,"func":…,"args":…}.
type FutureJob struct {
	Queue string          `json:"queue"`
	Func  string          `json:"func"`
	Args  json.RawMessage `json:"args,omitempty"`
}

// NewScheduler returns the scheduler called name on b. It uses the options
// [WithBatch] (100 jobs per atomic step by default), [WithClock] and [WithStats]. It
// panics if name is empty.
func NewScheduler(b Backend, name string, opts ...Option) *Scheduler {
	checkName("Scheduler", name)
	cfg := newConfig(opts)
	return &Scheduler{b: b, st: newCounters(cfg, true), clock: cfg.clock, batch: cfg.batch, name: name, at: where{"scheduler", name},
		jobs: key(name, "jobs"), meta: key(name, "meta"), wakeKey: key(name, "wake")}
}

func (s *Scheduler) keys() []string { return []string{s.jobs, s.meta, s.wakeKey} }

// Queue returns the work queue the scheduler moves jobs naming queue into; its
// elements are the jobs' JSON. Each call returns a new [FIFO] value with its own
// [Stats] counters (its name is "<scheduler>:queue:<queue>"); keep one per consumer
// loop.
func (s *Scheduler) Queue(queue string) *FIFO {
	name := s.name + ":queue:" + queue
	return &FIFO{b: s.b, name: name, key: key(s.name, "queue:"+queue), st: newCounters(config{clock: s.clock, stats: s.st != nil}, false), at: where{"fifo", name}}
}

var schedulerAdd = NewScript(luaSchedule, goSchedule)

// AddFutureJob schedules job to be moved to its queue at at (a time in the past
// means now) and returns its id, which [Scheduler.Cancel] takes and
// [Scheduler.Items] lists. It returns [ErrNoQueue] when job names no queue and
// [ErrBadJob] when it names no function or its Args are not valid JSON. The
// complexity is O(log n).
func (s *Scheduler) AddFutureJob(ctx context.Context, job FutureJob, at time.Time) (id string, err error) {
	if job.Queue == "" {
		return "", s.at.fail("add", job.Func, ErrNoQueue)
	}
	if job.Func == "" || (len(job.Args) > 0 && !json.Valid(job.Args)) {
		return "", s.at.fail("add", job.Func, ErrBadJob)
	}
	data, err := json.Marshal(job)
	if err != nil {
		return "", s.at.fail("add", job.Func, ErrBadJob)
	}
	r, err := s.b.Eval(ctx, schedulerAdd, s.keys(), string(data), fmtInt(dueMicros(at, s.clock.Now())))
	if err != nil {
		return "", err
	}
	s.st.enq(1)
	return replyString(r), nil
}

var schedulerMove = NewScript(`
local r = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for i = 1, #r, 2 do
  local m = r[i]
  local j = string.sub(m, 17)
  redis.call('LPUSH', ARGV[3] .. cjson.decode(j).queue, j)
  redis.call('ZREM', KEYS[1], m)
  out[#out+1] = j
  out[#out+1] = r[i+1]
end
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if #r > 0 and #head > 0 and redis.call('LLEN', KEYS[3]) == 0 then
  redis.call('LPUSH', KEYS[3], '1')
end
out[#out+1] = head[2] or ''
return out
`, func(tx Tx, keys, args []string) (any, error) {
	count, _ := strconv.ParseInt(args[1], 10, 64)
	r, err := tx.ZRangeByScoreWithScores(keys[0], "-inf", args[0], 0, count)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, 2*len(r)+1)
	for _, z := range r {
		j := stripSeq(z.Member)
		var job FutureJob
		_ = json.Unmarshal([]byte(j), &job) // written by AddFutureJob: valid
		if _, err := tx.LPush(args[2]+job.Queue, j); err != nil {
			return nil, err
		}
		if _, err := tx.ZRem(keys[0], z.Member); err != nil {
			return nil, err
		}
		out = append(out, j, fmtFloat(z.Score))
	}
	head, err := tx.ZRangeWithScores(keys[0], 0, 0)
	if err != nil {
		return nil, err
	}
	if len(r) > 0 && len(head) > 0 {
		if err := wake(tx, keys[2]); err != nil {
			return nil, err
		}
	}
	if len(head) == 0 {
		return append(out, ""), nil
	}
	return append(out, fmtFloat(head[0].Score)), nil
})

// moveBatch moves up to s.batch due jobs; it returns them and the next due time
// (zero when no job is left). The reply is job, due, job, due…, next due.
func (s *Scheduler) moveBatch(ctx context.Context) ([]FutureJob, time.Time, error) {
	now := s.clock.Now()
	r, err := s.b.Eval(ctx, schedulerMove, s.keys(),
		fmtInt(micros(now)), fmtInt(s.batch), key(s.name, "queue:"))
	if err != nil {
		return nil, time.Time{}, err
	}
	a, err := replyArray(r)
	if err != nil || len(a) == 0 {
		return nil, time.Time{}, err
	}
	var next time.Time
	if n := replyString(a[len(a)-1]); n != "" {
		next = time.UnixMicro(int64(replyFloat(n)))
	}
	moved := make([]FutureJob, 0, len(a)/2)
	for i := 0; i+1 < len(a); i += 2 {
		var job FutureJob
		if err := json.Unmarshal([]byte(replyString(a[i])), &job); err != nil {
			return moved, next, err
		}
		moved = append(moved, job)
		s.st.late(now.Sub(time.UnixMicro(int64(replyFloat(a[i+1])))))
	}
	s.st.deq(int64(len(moved)))
	return moved, next, nil
}

// Step moves every job due now into its queue, in atomic batches, and returns the
// jobs it moved in due order. The complexity is O(k (log n + size of a job)) for k
// jobs moved.
func (s *Scheduler) Step(ctx context.Context) ([]FutureJob, error) {
	var all []FutureJob
	for {
		moved, _, err := s.moveBatch(ctx)
		all = append(all, moved...)
		if err != nil || int64(len(moved)) < s.batch {
			return all, err
		}
	}
}

// Run moves due jobs until ctx is done, calling report (if not nil) with each
// non-empty batch it moved, and sleeping until the next due time or until an earlier
// job is added. It returns ctx.Err(), or the first backend error.
func (s *Scheduler) Run(ctx context.Context, report func([]FutureJob)) error {
	for {
		_, _, err := waitDue(ctx, s.b, s.wakeKey, s.clock, 0, func() (struct{}, bool, time.Time, error) {
			moved, next, err := s.moveBatch(ctx)
			if len(moved) > 0 && report != nil {
				report(moved)
			}
			return struct{}{}, len(moved) > 0, next, err
		})
		if err != nil {
			return err
		}
	}
}

// Len returns the number of future jobs not yet moved (ZCARD). The complexity is O(1).
func (s *Scheduler) Len(ctx context.Context) (int64, error) { return s.b.ZCard(ctx, s.jobs) }

// Stats returns the number of future jobs, how many are due, how long the earliest
// has been due, this process's counters (Dequeued: jobs moved) and the lateness of
// the moves; see [Stats]. The complexity is O(log n).
func (s *Scheduler) Stats(ctx context.Context) (Stats, error) {
	st := Stats{Name: s.name, Type: "scheduler"}
	s.st.fill(&st)
	err := dueStats(ctx, s.b, s.jobs, s.clock.Now(), &st)
	return st, err
}
