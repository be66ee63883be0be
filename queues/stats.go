package queues

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Stats is a snapshot of one queue: what it holds, read from the backend when
// [FIFO.Stats] (and the Stats method of every other queue type) is called, and what
// this process did with it, counted in memory by the queue value.
//
// The backend figures (Depth, Levels, Due, InFlight, OldestAge) are the queue's,
// shared by every process using it; each is read by its own step, so together they
// are not one atomic snapshot. The counters and Lateness count only the operations
// made through this queue value since it was created (as Prometheus client counters
// do: a collector sums them over processes); they are zero with [WithStats](false).
//
// Its String method is a one- or two-line summary for logs; its JSON form (the
// field tags) holds everything, and is what package
// github.com/zlite/zlite/queues/queuevar publishes on /debug/vars (package queues
// does not import expvar, whose import registers /debug/vars on
// http.DefaultServeMux).
type Stats struct {
	Name string `json:"name"` // the queue's name
	Type string `json:"type"` // "fifo", "levels", "priority", "waitlist", "callqueue", "delayed", "scheduler" or "reliable"

	// Depth is the number of items waiting: queued and not yet taken (for a
	// delayed queue and a scheduler, due or not; for a reliable queue, not in
	// processing).
	Depth int64 `json:"depth"`
	// Levels splits Depth by level in serving order: the levels of a [Levels]
	// queue, the distinct priorities of a [Priority] queue or [CallQueue], the
	// party sizes of a [Waitlist]. Priorities and sizes are listed up to
	// [MaxStatsLevels], the first ones served.
	Levels []LevelDepth `json:"levels,omitempty"`
	// Due is the number of waiting jobs already due ([Delayed], [Scheduler]).
	Due int64 `json:"due,omitempty"`
	// InFlight is the number of elements in processing ([Reliable]).
	InFlight int64 `json:"in_flight,omitempty"`
	// Dead is the number of elements in the dead set ([Reliable] with
	// [WithMaxDeliveries]).
	Dead int64 `json:"dead,omitempty"`
	// Retrying is the number of elements waiting out a retry delay ([Reliable]
	// with [WithRetry]); they are not in Depth.
	Retrying int64 `json:"retrying,omitempty"`
	// Paused reports that the queue is paused ([Reliable.Pause]).
	Paused bool `json:"paused,omitempty"`
	// RateLimited is the number of waiting elements held back by the rate limit
	// ([Reliable] with [WithRateLimit]): all of Depth while the window admits no
	// delivery, else 0; with [WithGroupRateLimit], else the elements of the groups
	// last found over their own limit.
	RateLimited int64 `json:"rate_limited,omitempty"`
	// OldestAge is how long the oldest item has waited, where the queue records
	// when items arrived or became due: a [CallQueue] (time since enqueue) and a
	// [Delayed] queue or [Scheduler] (time since the earliest job became due, zero
	// while none is due). HasAge is false for the other types, which store no
	// times (their formats are the plain Redis lists and sets of the recipes).
	OldestAge time.Duration `json:"oldest_age_ns"`
	HasAge    bool          `json:"has_age"`

	// Blocked is the number of this process's callers waiting now in a blocking
	// pop (Pop, Dequeue) of this queue value.
	Blocked int64 `json:"blocked"`

	Enqueued      int64 `json:"enqueued"`                 // items added (pushed, scheduled, enqueued)
	Dequeued      int64 `json:"dequeued"`                 // items taken (popped, seated, dequeued, moved)
	Acked         int64 `json:"acked,omitempty"`          // Reliable: Acks that finished an element
	Requeued      int64 `json:"requeued,omitempty"`       // Reliable: elements put back by Nack or Reap
	ExpiredLeases int64 `json:"expired_leases,omitempty"` // Reliable: elements Reap found with an expired lease
	Cancelled     int64 `json:"cancelled,omitempty"`      // removed before being served (Cancel, Leave, Remove)
	DeadLettered  int64 `json:"dead_lettered,omitempty"`  // Reliable: elements moved to the dead set

	// Uptime is how long this queue value has counted (since its constructor
	// ran), by the queue's clock ([WithClock]): the counters divided by it are
	// this process's rates. Zero with [WithStats](false).
	Uptime time.Duration `json:"uptime_ns,omitempty"`

	// Lateness is the due→delivered delay of the jobs this process took
	// ([Delayed]: from due time to Pop; [Scheduler]: to the move into the work
	// queue); nil for the other types.
	Lateness *LatenessStats `json:"lateness,omitempty"`
}

// LevelDepth is the depth of one level, priority or party size of a queue.
type LevelDepth struct {
	Level string `json:"level"`
	Depth int64  `json:"depth"`
}

// MaxStatsLevels bounds the distinct priorities or party sizes that
// [Stats].Levels lists, so that a Stats call costs O(MaxStatsLevels · log n).
const MaxStatsLevels = 16

// String returns a short summary of s for a log line: the depth and what the
// backend reports, then this process's counters with their rates over Uptime, and,
// when jobs were delivered late, a second line with the lateness percentiles and
// maximum, for example
//
//	delayed "mail": depth 12, due 2, oldest 1.5s, blocked 1; enqueued 120 (2.00/s), dequeued 108 (1.80/s)
//	  lateness p50 1.2ms, p99 8.1ms, max 12ms over 108 jobs
//
// Zero counters are left out. Marshal s as JSON for every field.
func (s Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %q: depth %d", s.Type, s.Name, s.Depth)
	if len(s.Levels) > 0 {
		b.WriteString(" (")
		for i, l := range s.Levels {
			if i == 3 {
				fmt.Fprintf(&b, " …%d more", len(s.Levels)-3)
				break
			}
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%s:%d", l.Level, l.Depth)
		}
		b.WriteByte(')')
	}
	for _, f := range []struct {
		name string
		n    int64
	}{{"due", s.Due}, {"in flight", s.InFlight}, {"retrying", s.Retrying}, {"dead", s.Dead}, {"rate-limited", s.RateLimited}} {
		if f.n != 0 {
			fmt.Fprintf(&b, ", %s %d", f.name, f.n)
		}
	}
	if s.Paused {
		b.WriteString(", paused")
	}
	if s.HasAge && s.OldestAge > 0 {
		fmt.Fprintf(&b, ", oldest %v", roundDuration(s.OldestAge))
	}
	if s.Blocked != 0 {
		fmt.Fprintf(&b, ", blocked %d", s.Blocked)
	}
	sep := "; "
	for _, c := range []struct {
		name string
		n    int64
	}{{"enqueued", s.Enqueued}, {"dequeued", s.Dequeued}, {"acked", s.Acked}, {"requeued", s.Requeued},
		{"expired leases", s.ExpiredLeases}, {"cancelled", s.Cancelled}, {"dead-lettered", s.DeadLettered}} {
		if c.n == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s%s %d", sep, c.name, c.n)
		if s.Uptime > 0 {
			fmt.Fprintf(&b, " (%s/s)", formatRate(float64(c.n)/s.Uptime.Seconds()))
		}
		sep = ", "
	}
	if l := s.Lateness; l != nil && l.Count > 0 {
		fmt.Fprintf(&b, "\n  lateness p50 %v, p99 %v, max %v over %d jobs",
			roundDuration(l.P50), roundDuration(l.P99), roundDuration(l.Max), l.Count)
	}
	return b.String()
}

// roundDuration rounds d to three significant digits (1.23s, 45.6ms, 789µs).
func roundDuration(d time.Duration) time.Duration {
	r := time.Duration(1)
	for r*1000 <= d && r < time.Hour {
		r *= 10
	}
	return d.Round(r)
}

// formatRate formats a rate per second with three significant digits at most.
func formatRate(r float64) string {
	switch {
	case r >= 100:
		return strconv.FormatFloat(r, 'f', 0, 64)
	case r >= 10:
		return strconv.FormatFloat(r, 'f', 1, 64)
	}
	return strconv.FormatFloat(r, 'f', 2, 64)
}

// StatsReader is what every queue type implements: a [Stats] snapshot.
type StatsReader interface {
	Stats(ctx context.Context) (Stats, error)
}

// counters are a queue value's in-process statistics. A nil *counters (stats off)
// counts nothing. Fields written by producers and by consumers sit on separate cache
// lines, so the FIFO hand-off does not bounce one line between them.
//
// A blocking pop costs two atomic additions, not three: entered at its start, and
// taken or empty at its end. Blocked is entered − taken − empty and Dequeued is
// taken + dequeued (the items taken by other paths: TryDequeue, Seat, Step…).
type counters struct {
	enqueued  paddedInt
	entered   paddedInt
	taken     paddedInt
	empty     atomic.Int64
	dequeued  atomic.Int64
	acked     atomic.Int64
	requeued  atomic.Int64
	expired   atomic.Int64
	cancelled atomic.Int64
	died      atomic.Int64
	lateness  *Histogram
	clock     nower
	start     time.Time
}

type paddedInt struct {
	atomic.Int64
	_ [56]byte
}

func newCounters(cfg config, lateness bool) *counters {
	if !cfg.stats {
		return nil
	}
	c := &counters{clock: cfg.clock, start: cfg.clock.Now()}
	if lateness {
		c.lateness = &Histogram{}
	}
	return c
}

// The counting methods do nothing on a nil *counters (stats off).

func (c *counters) enq(n int64) {
	if c != nil {
		c.enqueued.Add(n)
	}
}

func (c *counters) deq(n int64) {
	if c != nil {
		c.dequeued.Add(n)
	}
}

func (c *counters) ack() {
	if c != nil {
		c.acked.Add(1)
	}
}

func (c *counters) requeue(n int64) {
	if c != nil {
		c.requeued.Add(n)
	}
}

func (c *counters) expire(n int64) {
	if c != nil {
		c.expired.Add(n)
	}
}

func (c *counters) cancel() { c.cancelN(1) }

func (c *counters) cancelN(n int64) {
	if c != nil {
		c.cancelled.Add(n)
	}
}

func (c *counters) die(n int64) {
	if c != nil {
		c.died.Add(n)
	}
}

// enter counts a caller entering a blocking pop, and leave counts it out, with the
// item it took if taken. No defer and no closure: this is the hand-off's hot path.
func (c *counters) enter() {
	if c != nil {
		c.entered.Add(1)
	}
}

func (c *counters) leave(taken bool) {
	switch {
	case c == nil:
	case taken:
		c.taken.Add(1)
	default:
		c.empty.Add(1)
	}
}

func (c *counters) late(d time.Duration) {
	if c != nil && c.lateness != nil {
		c.lateness.Observe(d)
	}
}

// fill copies the counters into s.
func (c *counters) fill(s *Stats) {
	if c == nil {
		return
	}
	// Exits before entries: a pop counted out is already counted in, so Blocked
	// is never negative.
	taken, empty := c.taken.Load(), c.empty.Load()
	s.Blocked = c.entered.Load() - taken - empty
	s.Enqueued, s.Dequeued = c.enqueued.Load(), taken+c.dequeued.Load()
	s.Acked, s.Requeued, s.ExpiredLeases, s.Cancelled = c.acked.Load(), c.requeued.Load(), c.expired.Load(), c.cancelled.Load()
	s.DeadLettered = c.died.Load()
	s.Uptime = max(c.clock.Now().Sub(c.start), 0)
	if c.lateness != nil {
		l := c.lateness.Snapshot()
		s.Lateness = &l
	}
}

// zsetGroups returns, for the sorted set KEYS[1], up to ARGV[1] distinct scores from
// the lowest with the number of members at each: score, count, score, count… Counts
// are differences of ranks, so each group costs O(log n).
var zsetGroups = NewScript(`
local out, min = {}, '-inf'
for _ = 1, tonumber(ARGV[1]) do
  local r = redis.call('ZRANGEBYSCORE', KEYS[1], min, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
  if #r == 0 then break end
  out[#out+1] = r[2]
  out[#out+1] = redis.call('ZCOUNT', KEYS[1], r[2], r[2])
  min = '(' .. r[2]
end
return out
`, func(tx Tx, keys, args []string) (any, error) {
	var out []any
	min := "-inf"
	for range parseInt(args[0]) {
		r, err := tx.ZRangeByScoreWithScores(keys[0], min, "+inf", 0, 1)
		if err != nil || len(r) == 0 {
			return out, err
		}
		first, _, err := tx.ZRank(keys[0], r[0].Member)
		if err != nil {
			return nil, err
		}
		min = "(" + fmtFloat(r[0].Score)
		end, err := tx.ZCard(keys[0])
		if err != nil {
			return nil, err
		}
		next, err := tx.ZRangeByScoreWithScores(keys[0], min, "+inf", 0, 1)
		if err != nil {
			return nil, err
		}
		if len(next) > 0 {
			if end, _, err = tx.ZRank(keys[0], next[0].Member); err != nil {
				return nil, err
			}
		}
		out = append(out, fmtFloat(r[0].Score), end-first)
	}
	return out, nil
})

// groups returns the depth of the sorted set key per distinct score, the lowest
// first, naming each by label(score).
func groups(ctx context.Context, b Backend, key string, label func(score float64) string) ([]LevelDepth, error) {
	r, err := b.Eval(ctx, zsetGroups, []string{key}, fmtInt(MaxStatsLevels))
	if err != nil {
		return nil, err
	}
	a, err := replyArray(r)
	out := make([]LevelDepth, 0, len(a)/2)
	for i := 0; i+1 < len(a); i += 2 {
		out = append(out, LevelDepth{label(replyFloat(a[i])), replyInt(a[i+1])})
	}
	return out, err
}

// zsetCountUpTo counts the members of the sorted set KEYS[1] scored at most ARGV[1]
// (ZCOUNT -inf ARGV[1]), in O(log n).
var zsetCountUpTo = NewScript(`
return redis.call('ZCOUNT', KEYS[1], '-inf', ARGV[1])
`, func(tx Tx, keys, args []string) (any, error) {
	next, err := tx.ZRangeByScoreWithScores(keys[0], "("+args[0], "+inf", 0, 1)
	if err != nil {
		return nil, err
	}
	if len(next) == 0 {
		return tx.ZCard(keys[0])
	}
	r, _, err := tx.ZRank(keys[0], next[0].Member)
	return r, err
})

// dueStats fills the figures of a sorted set scored by due time (a delayed queue's
// jobs, a scheduler's future jobs): Depth, Due and OldestAge.
func dueStats(ctx context.Context, b Backend, key string, now time.Time, s *Stats) error {
	var err error
	if s.Depth, err = b.ZCard(ctx, key); err != nil {
		return err
	}
	r, err := b.Eval(ctx, zsetCountUpTo, []string{key}, fmtInt(micros(now)))
	if err != nil {
		return err
	}
	s.Due = replyInt(r)
	s.HasAge = true
	head, err := dueItems(ctx, b, key, 0, 1)
	if len(head) == 1 && !head[0].Due.After(now) {
		s.OldestAge = now.Sub(head[0].Due)
	}
	return err
}

var (
	_ StatsReader = (*FIFO)(nil)
	_ StatsReader = (*Levels)(nil)
	_ StatsReader = (*Priority)(nil)
	_ StatsReader = (*Waitlist)(nil)
	_ StatsReader = (*CallQueue)(nil)
	_ StatsReader = (*Delayed)(nil)
	_ StatsReader = (*Scheduler)(nil)
	_ StatsReader = (*Reliable)(nil)
)
