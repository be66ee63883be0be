package queues

import "time"

// Option configures a queue. Every constructor takes options, in any order; an
// option a queue type does not use (a lease for a FIFO) is ignored.
type Option func(*config)

type config struct {
	clock nower
	lease time.Duration
	// maxDeliveries is how many times a Reliable element is delivered before it
	// dies; 0: unlimited.
	maxDeliveries int64
	retry         RetryPolicy // see [WithRetry]
	batch         int64
	order         Order
	stats         bool
	// rateN deliveries per ratePer at most ([WithRateLimit]); 0: no limit.
	rateN   int64
	ratePer time.Duration
	// groupN deliveries per groupPer of one group at most ([WithGroupRateLimit]);
	// 0: no groups.
	groupN   int64
	groupPer time.Duration
}

func newConfig(opts []Option) config {
	c := config{clock: systemClock{}, lease: 30 * time.Second, batch: 100, order: HighestFirst, stats: true}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithClock makes the queue read the time from now instead of time.Now: due times
// ([Delayed], [Scheduler]), enqueue times ([CallQueue]), lease deadlines
// ([Reliable]) and the ages, lateness and rates in [Stats]. A nil now means
// time.Now. It has the signature of zlite.WithClock, so one fake clock's Now method
// serves the keyspace and its queues.
func WithClock(now func() time.Time) Option {
	return func(cfg *config) {
		if now != nil {
			cfg.clock = funcClock(now)
		} else {
			cfg.clock = systemClock{}
		}
	}
}

// WithLease sets the lease of a [Reliable] queue: how long a worker may hold an
// element before [Reliable.Reap] puts it back. Zero or negative: 30 s, the default.
func WithLease(d time.Duration) Option {
	return func(cfg *config) {
		if d > 0 {
			cfg.lease = d
		}
	}
}

// WithMaxDeliveries makes a [Reliable] queue deliver an element at most n times:
// when its n-th delivery fails (it is Nacked, or its lease expires and
// [Reliable.Reap] or [Reliable.Requeue] ends it), it goes to the dead set instead of
// back to the queue ([Reliable.Dead], [Reliable.Retry]). Below 1: unlimited, the
// default. Give every process that uses the queue the same n.
func WithMaxDeliveries(n int64) Option {
	return func(cfg *config) { cfg.maxDeliveries = max(n, 0) }
}

// WithBatch sets how many due jobs a [Scheduler] moves per atomic step. Below 1:
// 100, the default.
func WithBatch(n int64) Option {
	return func(cfg *config) {
		if n >= 1 {
			cfg.batch = n
		}
	}
}

// WithOrder sets which priority a [Priority] queue or a [CallQueue] serves first:
// [HighestFirst] (the default for both: a higher number is more urgent) or
// [LowestFirst] (a min-heap: 0 before 1). Equal priorities are served in arrival
// order either way. Give every process that uses the queue the same order: it is
// stored in the scores.
func WithOrder(o Order) Option { return func(cfg *config) { cfg.order = o } }

// WithStats turns the queue's in-process counters and lateness histogram on (the
// default) or off; [Stats] then reports only what it reads from the backend. They
// cost a few atomic additions per operation (see the package documentation).
func WithStats(on bool) Option { return func(cfg *config) { cfg.stats = on } }

// WithRateLimit makes a [Reliable] queue hand out at most n elements in any window
// of length per, counted over every consumer in every process (a sliding-window
// log in the sorted set "{name}:rate"; see [Reliable]). n below 1 or per below one
// microsecond: no limit, the default. Give every process that uses the queue the
// same limit.
func WithRateLimit(n int64, per time.Duration) Option {
	return func(cfg *config) {
		if n >= 1 && per >= time.Microsecond {
			cfg.rateN, cfg.ratePer = n, per
		} else {
			cfg.rateN, cfg.ratePer = 0, 0
		}
	}
}

// WithGroupRateLimit makes a [Reliable] queue hand out at most n elements of one
// group ([Group]) in any window of length per, counted over every consumer in every
// process (a sliding-window log per group, "{name}:glog:<group>"; see [Reliable]),
// while the elements of other groups, and those without a group, are served
// meanwhile. n below 1 or per below one microsecond: no group limit, the default,
// and [Group] is ignored. It combines with [WithRateLimit]. Give every process that
// uses the queue the same limit.
func WithGroupRateLimit(n int64, per time.Duration) Option {
	return func(cfg *config) {
		if n >= 1 && per >= time.Microsecond {
			cfg.groupN, cfg.groupPer = n, per
		} else {
			cfg.groupN, cfg.groupPer = 0, 0
		}
	}
}
