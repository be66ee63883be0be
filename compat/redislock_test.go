package compat

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bsm/redislock"
)

// TestRedislockObtainRelease walks one lock through its life: obtained, refused to
// a second caller, released, refused a second release, and obtained again.
func TestRedislockObtainRelease(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx, rdb, key := context.Background(), tg.client(), keyFor(t, "lock")
		locker := redislock.New(rdb)

		lock, err := locker.Obtain(ctx, key, time.Hour, &redislock.Options{Metadata: "owner=a"})
		if err != nil {
			t.Fatalf("Obtain(%q, 1h): %v", key, err)
		}
		if lock.Key() != key || len(lock.Token()) != 22 || lock.Metadata() != "owner=a" {
			t.Errorf("lock Key, Token, Metadata = %q, %q, %q; want %q, 22 characters, %q",
				lock.Key(), lock.Token(), lock.Metadata(), key, "owner=a")
		}
		checkGet(t, rdb, key, lock.Token()+"owner=a")
		checkTTL(t, rdb, key, time.Hour)
		if ttl, err := lock.TTL(ctx); err != nil || ttl > time.Hour || ttl <= time.Hour-slack {
			t.Errorf("lock.TTL = %v, %v; want in (%v, 1h]", ttl, err, time.Hour-slack)
		}

		if other, err := locker.Obtain(ctx, key, time.Hour, nil); !errors.Is(err, redislock.ErrNotObtained) {
			t.Errorf("second Obtain = %v, %v; want %v", other, err, redislock.ErrNotObtained)
		}
		checkGet(t, rdb, key, lock.Token()+"owner=a") // the refused caller changed nothing

		if err := lock.Release(ctx); err != nil {
			t.Fatalf("Release: %v", err)
		}
		if n, err := rdb.Exists(ctx, key).Result(); err != nil || n != 0 {
			t.Errorf("EXISTS %s after Release = %d, %v; want 0", key, n, err)
		}
		if err := lock.Release(ctx); !errors.Is(err, redislock.ErrLockNotHeld) {
			t.Errorf("second Release = %v; want %v", err, redislock.ErrLockNotHeld)
		}
		if ttl, err := lock.TTL(ctx); err != nil || ttl != 0 {
			t.Errorf("TTL after Release = %v, %v; want 0, nil", ttl, err)
		}
		if err := lock.Refresh(ctx, time.Hour, nil); !errors.Is(err, redislock.ErrNotObtained) {
			t.Errorf("Refresh after Release = %v; want %v", err, redislock.ErrNotObtained)
		}

		again, err := locker.Obtain(ctx, key, time.Hour, nil)
		if err != nil {
			t.Fatalf("Obtain after Release: %v", err)
		}
		if again.Token() == lock.Token() {
			t.Errorf("the new lock has the old token %q; want a new random one", again.Token())
		}
		if err := lock.Release(ctx); !errors.Is(err, redislock.ErrLockNotHeld) {
			t.Errorf("old lock's Release while another holds the key = %v; want %v", err, redislock.ErrLockNotHeld)
		}
		checkGet(t, rdb, key, again.Token())
		if err := again.Release(ctx); err != nil {
			t.Errorf("Release of the new lock: %v", err)
		}
	})
}

// TestRedislockRefresh checks that Refresh sets the lock's TTL to the new value,
// longer or shorter, and that it fails, changing nothing, once another holds the
// key.
func TestRedislockRefresh(t *testing.T) {
	tests := []struct {
		name         string
		ttl, refresh time.Duration
	}{
		{"longer", time.Minute, time.Hour},
		{"shorter", time.Hour, time.Minute},
		{"same", 30 * time.Minute, 30 * time.Minute},
	}
	eachTarget(t, func(t *testing.T, tg target) {
		ctx, rdb := context.Background(), tg.client()
		locker := redislock.New(rdb)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				key := keyFor(t, "lock")
				lock, err := locker.Obtain(ctx, key, tt.ttl, nil)
				if err != nil {
					t.Fatalf("Obtain(%v): %v", tt.ttl, err)
				}
				checkTTL(t, rdb, key, tt.ttl)
				if err := lock.Refresh(ctx, tt.refresh, nil); err != nil {
					t.Fatalf("Refresh(%v): %v", tt.refresh, err)
				}
				checkTTL(t, rdb, key, tt.refresh)
				if ttl, err := lock.TTL(ctx); err != nil || ttl > tt.refresh || ttl <= tt.refresh-slack {
					t.Errorf("TTL after Refresh(%v) = %v, %v; want in (%v, %v]", tt.refresh, ttl, err, tt.refresh-slack, tt.refresh)
				}

				// The lock expires (its key is deleted) and another caller takes it.
				if err := rdb.Del(ctx, key).Err(); err != nil {
					t.Fatal(err)
				}
				other, err := locker.Obtain(ctx, key, 2*time.Hour, nil)
				if err != nil {
					t.Fatalf("Obtain by another after expiry: %v", err)
				}
				if err := lock.Refresh(ctx, tt.refresh, nil); !errors.Is(err, redislock.ErrNotObtained) {
					t.Errorf("Refresh of the expired lock = %v; want %v", err, redislock.ErrNotObtained)
				}
				checkTTL(t, rdb, key, 2*time.Hour)
				checkGet(t, rdb, key, other.Token())
			})
		}
	})
}

// TestRedislockToken runs Obtain with caller-chosen tokens on one key: the obtain
// script's second branch (GETRANGE of the held value against the token) lets a
// caller whose token prefixes the value take the lock again, resetting its TTL
// and value, and refuses every other caller.
func TestRedislockToken(t *testing.T) {
	steps := []struct {
		token, metadata string
		ttl             time.Duration
		want            error  // from Obtain
		value           string // of the key afterwards
		pttl            time.Duration
	}{
		{"tok-1", "m1", time.Minute, nil, "tok-1m1", time.Minute},
		{"tok-1", "m2", time.Hour, nil, "tok-1m2", time.Hour}, // the holder again: SET without NX
		{"tok-2", "", 2 * time.Hour, redislock.ErrNotObtained, "tok-1m2", time.Hour},
		{"tok-10", "", 2 * time.Hour, redislock.ErrNotObtained, "tok-1m2", time.Hour}, // GETRANGE 0 5 is "tok-1m"
		{"tok", "x", 3 * time.Hour, nil, "tokx", 3 * time.Hour},                       // GETRANGE 0 2 is "tok"
		{"TOK", "", time.Hour, redislock.ErrNotObtained, "tokx", 3 * time.Hour},
	}
	eachTarget(t, func(t *testing.T, tg target) {
		ctx, rdb, key := context.Background(), tg.client(), keyFor(t, "lock")
		locker := redislock.New(rdb)
		for i, s := range steps {
			lock, err := locker.Obtain(ctx, key, s.ttl, &redislock.Options{Token: s.token, Metadata: s.metadata})
			if !errors.Is(err, s.want) {
				t.Fatalf("step %d: Obtain(token %q, %v) = %v; want %v", i, s.token, s.ttl, err, s.want)
			}
			if err == nil && (lock.Token() != s.token || lock.Metadata() != s.metadata) {
				t.Errorf("step %d: Token, Metadata = %q, %q; want %q, %q", i, lock.Token(), lock.Metadata(), s.token, s.metadata)
			}
			checkGet(t, rdb, key, s.value)
			checkTTL(t, rdb, key, s.pttl)
		}
	})
}

// TestRedislockWrongType obtains a lock on a key that holds a list: SET NX fails,
// then GETRANGE raises Redis's WRONGTYPE error inside the script, and Obtain
// returns it with the script's SHA1 and the line (5) where it was raised.
func TestRedislockWrongType(t *testing.T) {
	want := regexp.MustCompile(`^WRONGTYPE Operation against a key holding the wrong kind of value script: [0-9a-f]{40}, on @user_script:5\.$`)
	eachTarget(t, func(t *testing.T, tg target) {
		ctx, rdb, key := context.Background(), tg.client(), keyFor(t, "list")
		if err := rdb.RPush(ctx, key, "a").Err(); err != nil {
			t.Fatal(err)
		}
		_, err := redislock.Obtain(ctx, rdb, key, time.Hour, nil)
		if err == nil || !want.MatchString(err.Error()) {
			t.Errorf("Obtain on a list = %v; want an error matching %s", err, want)
		}
		if typ, err := rdb.Type(ctx, key).Result(); err != nil || typ != "list" {
			t.Errorf("TYPE %s = %q, %v; want list", key, typ, err)
		}
	})
}

// TestRedislockRetry checks that a contended Obtain retries as its RetryStrategy
// says, then gives up with ErrNotObtained, and that a caller's context deadline
// ends the retries with the context's error.
func TestRedislockRetry(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx, rdb, key := context.Background(), tg.client(), keyFor(t, "lock")
		locker := redislock.New(rdb)
		held, err := locker.Obtain(ctx, key, time.Hour, nil)
		if err != nil {
			t.Fatalf("Obtain: %v", err)
		}
		retry := &countingRetry{s: redislock.LimitRetry(redislock.LinearBackoff(time.Millisecond), 3)}
		if _, err := locker.Obtain(ctx, key, time.Hour, &redislock.Options{RetryStrategy: retry}); !errors.Is(err, redislock.ErrNotObtained) {
			t.Errorf("contended Obtain with 3 retries = %v; want %v", err, redislock.ErrNotObtained)
		}
		if n := retry.n.Load(); n != 4 {
			t.Errorf("NextBackoff called %d times; want 4 (3 retries, then 0)", n)
		}

		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := locker.Obtain(cctx, key, time.Hour, &redislock.Options{RetryStrategy: redislock.LinearBackoff(time.Millisecond)}); !errors.Is(err, context.Canceled) {
			t.Errorf("Obtain with a cancelled context = %v; want %v", err, context.Canceled)
		}
		checkGet(t, rdb, key, held.Token())
	})
}

// countingRetry counts the calls of a RetryStrategy.
type countingRetry struct {
	s redislock.RetryStrategy
	n atomic.Int64
}

func (r *countingRetry) NextBackoff() time.Duration {
	r.n.Add(1)
	return r.s.NextBackoff()
}

// TestRedislockContention has goroutines contend for one lock. Released at once,
// each tries once: exactly one obtains it. Then each obtains it, with retries, a
// number of times, doing a read-modify-write under it: no two hold it at once and
// no increment is lost.
func TestRedislockContention(t *testing.T) {
	const goroutines, rounds = 8, 25
	eachTarget(t, func(t *testing.T, tg target) {
		ctx, rdb, key := context.Background(), tg.client(), keyFor(t, "lock")
		locker := redislock.New(rdb)

		var won, refused atomic.Int64
		x := &exclusive{}
		together(goroutines, func(int) {
			switch _, err := locker.Obtain(ctx, key, time.Hour, nil); {
			case err == nil:
				won.Add(1)
			case errors.Is(err, redislock.ErrNotObtained):
				refused.Add(1)
			default:
				x.fail(err)
			}
		})
		if won.Load() != 1 || refused.Load() != goroutines-1 {
			t.Errorf("%d goroutines each trying once: %d obtained, %d refused; want 1, %d", goroutines, won.Load(), refused.Load(), goroutines-1)
		}
		if err := rdb.Del(ctx, key).Err(); err != nil {
			t.Fatal(err)
		}

		x.counter = keyFor(t, "counter")
		together(goroutines, func(g int) {
			for r := range rounds {
				octx, cancel := context.WithTimeout(ctx, time.Minute)
				lock, err := locker.Obtain(octx, key, time.Hour, &redislock.Options{RetryStrategy: redislock.LinearBackoff(time.Millisecond)})
				cancel()
				if err != nil {
					x.fail(fmt.Errorf("goroutine %d round %d: Obtain: %w", g, r, err))
					return
				}
				x.section(ctx, rdb)
				if err := lock.Release(ctx); err != nil {
					x.fail(fmt.Errorf("goroutine %d round %d: Release: %w", g, r, err))
					return
				}
			}
		})
		x.check(t, rdb, goroutines*rounds)
	})
}
