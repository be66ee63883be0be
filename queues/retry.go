package queues

import (
	"math"
	"math/rand/v2"
	"time"
)

// RetryPolicy says when a [Reliable] element whose delivery failed (it was Nacked
// or Failed, or its lease expired) is delivered again, and how often it may fail
// before it goes to the dead set. The zero value retries at once and without limit,
// as a Reliable queue does without [WithRetry].
//
// After its n-th failed delivery an element waits
//
//	d = min(Base·2^(n−1), Max)
//
// and then d·Jitter·u more, where u in [0, 1) comes from Rand: so it is never
// delivered again before d has passed, and at most d·(1+Jitter) after the failure.
// While it waits it is in the sorted set "{name}:retry" (score: the due time), not
// in the queue; [Reliable.Pop] and [Reliable.Reap] move due elements to the head of
// the queue.
type RetryPolicy struct {
	// Base is the delay after the first failure; each further failure doubles it.
	// Zero or negative: no delay, the failed element goes straight back to the
	// head of the queue.
	Base time.Duration
	// Max caps the delay before jitter. Zero or negative: 24 hours.
	Max time.Duration
	// Jitter is the fraction of the delay added at random, clamped to [0, 1]; 0.1
	// spreads retries over 10 % of their delay.
	Jitter float64
	// MaxAttempts is how many deliveries an element gets: when the MaxAttempts-th
	// fails it goes to the dead set. Below 1: the value of [WithMaxDeliveries]
	// (unlimited by default).
	MaxAttempts int64
	// Rand returns a number in [0, 1) for the jitter; nil: math/rand/v2.Float64.
	// It is called by every failing step, from any goroutine, so it must be safe
	// for concurrent use.
	// A step that fails several elements at once (Reap) draws once and spreads the
	// elements by the golden ratio, so tests that fix Rand see fixed due times.
	Rand func() float64
}

// WithRetry gives a [Reliable] queue the retry policy p: a backoff between
// deliveries of a failed element, with jitter, and a maximum number of attempts
// before the dead set. Give every process that uses the queue the same policy.
func WithRetry(p RetryPolicy) Option {
	return func(cfg *config) { cfg.retry = p }
}

// defaultMaxDelay is the cap of a [RetryPolicy] without Max.
const defaultMaxDelay = 24 * time.Hour

// golden spreads the jitter of the elements that one step fails.
const golden = 0.6180339887498949

// normalize fills in p's defaults.
func (p RetryPolicy) normalize(maxDeliveries int64) RetryPolicy {
	if p.Base < 0 {
		p.Base = 0
	}
	if p.Max <= 0 {
		p.Max = defaultMaxDelay
	}
	p.Jitter = min(max(p.Jitter, 0), 1)
	if math.IsNaN(p.Jitter) {
		p.Jitter = 0
	}
	if p.MaxAttempts < 1 {
		p.MaxAttempts = maxDeliveries
	}
	if p.Rand == nil {
		p.Rand = rand.Float64
	}
	return p
}

// retryDue returns the due time, in Unix microseconds, of an element that failed its
// n-th delivery at now, with jitter sample u for the i-th element of its step. The
// Lua half of the failing steps (luaFail) computes the same, in the same float64
// operations, so both backends agree to the microsecond.
func retryDue(now, base, maxDelay int64, jitter, u float64, n, i int64) int64 {
	d := float64(base) * math.Pow(2, float64(n-1))
	if d > float64(maxDelay) {
		d = float64(maxDelay)
	}
	u += float64(i) * golden
	u -= math.Floor(u)
	return int64(float64(now) + d + math.Floor(d*jitter*u))
}
