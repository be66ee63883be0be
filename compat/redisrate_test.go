package compat

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
)

// rateStep is one call of a limiter and the result it must give. retryAfter and
// resetAfter are the values the call would return at the instant the sequence
// starts: the result must be at most that and more than that less [slack]
// (retryAfter -1 means exactly -1: allowed).
type rateStep struct {
	op                     string // "allow", "allowN", "atMost" or "reset"
	n                      int
	allowed, remaining     int
	retryAfter, resetAfter time.Duration
	ttl                    time.Duration // of the limiter's key afterwards; 0: no key
}

// runRate runs steps on key with limit, comparing every field of every result.
func runRate(t *testing.T, tg target, key string, limit redis_rate.Limit, steps []rateStep) {
	t.Helper()
	ctx, rdb := context.Background(), tg.client()
	limiter := redis_rate.NewLimiter(rdb)
	for i, s := range steps {
		var (
			res *redis_rate.Result
			err error
		)
		switch s.op {
		case "allow":
			res, err = limiter.Allow(ctx, key, limit)
		case "allowN":
			res, err = limiter.AllowN(ctx, key, limit, s.n)
		case "atMost":
			res, err = limiter.AllowAtMost(ctx, key, limit, s.n)
		case "reset":
			err = limiter.Reset(ctx, key)
		default:
			t.Fatalf("step %d: unknown op %q", i, s.op)
		}
		if err != nil {
			t.Fatalf("step %d: %s(%d): %v", i, s.op, s.n, err)
		}
		if res != nil {
			if res.Allowed != s.allowed || res.Remaining != s.remaining || res.Limit != limit {
				t.Errorf("step %d: %s(%d) Allowed, Remaining, Limit = %d, %d, %v; want %d, %d, %v",
					i, s.op, s.n, res.Allowed, res.Remaining, res.Limit, s.allowed, s.remaining, limit)
			}
			checkAfter(t, fmt.Sprintf("step %d: %s(%d) RetryAfter", i, s.op, s.n), res.RetryAfter, s.retryAfter)
			checkAfter(t, fmt.Sprintf("step %d: %s(%d) ResetAfter", i, s.op, s.n), res.ResetAfter, s.resetAfter)
		}
		rkey := "rate:" + key
		if s.ttl == 0 {
			if n, err := rdb.Exists(ctx, rkey).Result(); err != nil || n != 0 {
				t.Errorf("step %d: EXISTS %s = %d, %v; want 0", i, rkey, n, err)
			}
			continue
		}
		// The script sets the key with EX ceil(reset_after): whole seconds.
		if ttl, err := rdb.TTL(ctx, rkey).Result(); err != nil || ttl > s.ttl || ttl <= s.ttl-slack {
			t.Errorf("step %d: TTL %s = %v, %v; want in (%v, %v]", i, rkey, ttl, err, s.ttl-slack, s.ttl)
		}
	}
}

// checkAfter fails t unless got is exactly -1 when want is, else in (want-slack,
// want].
func checkAfter(t *testing.T, what string, got, want time.Duration) {
	t.Helper()
	if want == -1 && got != -1 || want != -1 && (got > want || got <= want-slack) {
		t.Errorf("%s = %v; want %v (or up to %v less)", what, got, want, slack)
	}
}

// TestRedisRateSequence runs Allow, AllowN, AllowAtMost and Reset on one key of
// 10 per hour (an event every 6 minutes, a burst of 10), checking every field.
func TestRedisRateSequence(t *testing.T) {
	const m = time.Minute
	steps := []rateStep{
		{op: "allow", allowed: 1, remaining: 9, retryAfter: -1, resetAfter: 6 * m, ttl: 6 * m},
		{op: "allowN", n: 3, allowed: 3, remaining: 6, retryAfter: -1, resetAfter: 24 * m, ttl: 24 * m},
		// 7 do not fit: denied, nothing changes; the 7th would be free in 6 minutes.
		{op: "allowN", n: 7, retryAfter: 6 * m, resetAfter: 24 * m, ttl: 24 * m},
		// At most 7: the 6 that fit.
		{op: "atMost", n: 7, allowed: 6, remaining: 0, retryAfter: -1, resetAfter: 60 * m, ttl: 60 * m},
		{op: "allow", retryAfter: 6 * m, resetAfter: 60 * m, ttl: 60 * m},
		{op: "atMost", n: 1, retryAfter: 6 * m, resetAfter: 60 * m, ttl: 60 * m},
		// A cost of 0 is allowed, with the whole remaining count, and sets nothing.
		{op: "allowN", n: 0, allowed: 0, remaining: 0, retryAfter: -1, resetAfter: 60 * m, ttl: 60 * m},
		{op: "reset"},
		{op: "allowN", n: 0, allowed: 0, remaining: 10, retryAfter: -1, resetAfter: 0},
		{op: "allowN", n: 11, retryAfter: 6 * m, resetAfter: 0}, // more than the burst: never
		{op: "allowN", n: 10, allowed: 10, remaining: 0, retryAfter: -1, resetAfter: 60 * m, ttl: 60 * m},
		{op: "reset"},
		{op: "atMost", n: 4, allowed: 4, remaining: 6, retryAfter: -1, resetAfter: 24 * m, ttl: 24 * m},
	}
	eachTarget(t, func(t *testing.T, tg target) {
		runRate(t, tg, keyFor(t, "user"), redis_rate.PerHour(10), steps)
	})
}

// TestRedisRateLimits takes the whole burst of several limits one event at a time,
// then checks the next event is denied until one emission interval has passed.
func TestRedisRateLimits(t *testing.T) {
	tests := []struct {
		name  string
		limit redis_rate.Limit
	}{
		{"PerHour(1)", redis_rate.PerHour(1)},
		{"PerHour(5)", redis_rate.PerHour(5)},
		{"PerHour(60)", redis_rate.PerHour(60)},
		{"rate 2 burst 5 per hour", redis_rate.Limit{Rate: 2, Burst: 5, Period: time.Hour}},
		{"rate 3 burst 1 per day", redis_rate.Limit{Rate: 3, Burst: 1, Period: 24 * time.Hour}},
	}
	eachTarget(t, func(t *testing.T, tg target) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				l := tt.limit
				interval := l.Period / time.Duration(l.Rate)
				var steps []rateStep
				for i := 1; i <= l.Burst; i++ {
					after := time.Duration(i) * interval
					steps = append(steps, rateStep{op: "allow", allowed: 1, remaining: l.Burst - i,
						retryAfter: -1, resetAfter: after, ttl: after})
				}
				full := time.Duration(l.Burst) * interval
				steps = append(steps,
					rateStep{op: "allow", retryAfter: interval, resetAfter: full, ttl: full},
					rateStep{op: "atMost", n: l.Burst, retryAfter: interval, resetAfter: full, ttl: full})
				runRate(t, tg, keyFor(t, "user"), l, steps)
			})
		}
	})
}

// TestRedisRateKeys checks that limiters on different keys do not share a budget.
func TestRedisRateKeys(t *testing.T) {
	const m = time.Minute
	limit := redis_rate.PerHour(3)
	eachTarget(t, func(t *testing.T, tg target) {
		a, b := keyFor(t, "a"), keyFor(t, "b")
		runRate(t, tg, a, limit, []rateStep{
			{op: "allowN", n: 3, allowed: 3, remaining: 0, retryAfter: -1, resetAfter: 60 * m, ttl: 60 * m},
			{op: "allow", retryAfter: 20 * m, resetAfter: 60 * m, ttl: 60 * m},
		})
		runRate(t, tg, b, limit, []rateStep{
			{op: "allow", allowed: 1, remaining: 2, retryAfter: -1, resetAfter: 20 * m, ttl: 20 * m},
			{op: "reset"},
		})
		runRate(t, tg, a, limit, []rateStep{
			{op: "allow", retryAfter: 20 * m, resetAfter: 60 * m, ttl: 60 * m},
		})
	})
}

// TestRedisRateConcurrent has goroutines spend one budget at once: the script runs
// atomically, so exactly the burst is allowed, whatever the interleaving.
func TestRedisRateConcurrent(t *testing.T) {
	const goroutines, calls, burst = 8, 10, 50
	eachTarget(t, func(t *testing.T, tg target) {
		ctx, limiter, key := context.Background(), redis_rate.NewLimiter(tg.client()), keyFor(t, "user")
		var allowed, denied, failed atomic.Int64
		together(goroutines, func(int) {
			for range calls {
				res, err := limiter.Allow(ctx, key, redis_rate.PerHour(burst))
				switch {
				case err != nil:
					failed.Add(1)
				case res.Allowed == 1 && res.RetryAfter == -1:
					allowed.Add(1)
				case res.Allowed == 0 && res.RetryAfter > 0:
					denied.Add(1)
				default:
					failed.Add(1)
				}
			}
		})
		if allowed.Load() != burst || denied.Load() != goroutines*calls-burst || failed.Load() != 0 {
			t.Errorf("%d Allow calls on PerHour(%d): %d allowed, %d denied, %d failed; want %d, %d, 0",
				goroutines*calls, burst, allowed.Load(), denied.Load(), failed.Load(), burst, goroutines*calls-burst)
		}
	})
}
