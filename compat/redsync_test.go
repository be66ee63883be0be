package compat

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
)

// deleteScriptSHA is the SHA1 of redsync's unlock script, which it sends with
// EVALSHA, falling back to EVAL on NOSCRIPT.
const deleteScriptSHA = "e950836ed1e694540c503ef9972b8de518044d3b"

// redsyncOn returns a Redsync on the first n keyspaces of tg.
func redsyncOn(tg target, n int) *redsync.Redsync {
	var pools []redis.Pool
	for i := range n {
		pools = append(pools, goredis.NewPool(tg.node(i)))
	}
	return redsync.New(pools...)
}

// takenNodes returns the nodes of err's *redsync.ErrTaken, sorted, or nil when err
// is none.
func takenNodes(err error) []int {
	var taken *redsync.ErrTaken
	if !errors.As(err, &taken) {
		return nil
	}
	return slices.Sorted(slices.Values(taken.Nodes))
}

// valid is m.Valid, which asks every node for the key (GET) and compares its value
// with m's.
func valid(m *redsync.Mutex) (bool, error) {
	//lint:ignore SA1019 Valid is deprecated for Until, which reads no key; the test is of the GETs.
	return m.Valid()
}

// TestRedsyncLockUnlock walks a mutex through Lock, a contender's TryLock and
// Unlock, Valid, Unlock and a second Unlock.
func TestRedsyncLockUnlock(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		ctx, rdb, key := context.Background(), tg.client(), keyFor(t, "mutex")
		rs := redsyncOn(tg, 1)
		m := rs.NewMutex(key, redsync.WithExpiry(time.Hour), redsync.WithTries(1))
		before := time.Now()
		if err := m.Lock(); err != nil {
			t.Fatalf("Lock: %v", err)
		}
		if m.Value() == "" || m.Name() != key {
			t.Errorf("Value, Name = %q, %q; want a token, %q", m.Value(), m.Name(), key)
		}
		// Until is the expiry less the drift allowance (1%) and the time Lock took.
		if u := m.Until(); u.After(before.Add(time.Hour)) || u.Before(before.Add(time.Hour*99/100-slack)) {
			t.Errorf("Until = %v; want within (%v, %v]", u, before.Add(time.Hour*99/100-slack), before.Add(time.Hour))
		}
		checkGet(t, rdb, key, m.Value())
		checkTTL(t, rdb, key, time.Hour)
		if ok, err := valid(m); !ok || err != nil {
			t.Errorf("Valid = %v, %v; want true, nil", ok, err)
		}

		other := rs.NewMutex(key, redsync.WithExpiry(time.Hour), redsync.WithTries(1))
		if err := other.TryLock(); !slices.Equal(takenNodes(err), []int{0}) {
			t.Errorf("contender's TryLock = %v; want ErrTaken on node 0", err)
		}
		if ok, err := valid(other); ok || !slices.Equal(takenNodes(err), []int{0}) {
			t.Errorf("contender's Valid = %v, %v; want false, ErrTaken on node 0", ok, err)
		}
		checkGet(t, rdb, key, m.Value()) // the failed TryLock released nothing of m's

		if ok, err := m.Unlock(); !ok || err != nil {
			t.Fatalf("Unlock = %v, %v; want true, nil", ok, err)
		}
		if n, err := rdb.Exists(ctx, key).Result(); err != nil || n != 0 {
			t.Errorf("EXISTS %s after Unlock = %d, %v; want 0", key, n, err)
		}
		if ok, err := valid(m); ok || !slices.Equal(takenNodes(err), []int{0}) {
			t.Errorf("Valid after Unlock = %v, %v; want false, ErrTaken on node 0", ok, err)
		}
		if ok, err := m.Unlock(); ok || !errors.Is(err, redsync.ErrLockAlreadyExpired) {
			t.Errorf("second Unlock = %v, %v; want false, %v", ok, err, redsync.ErrLockAlreadyExpired)
		}
		if ok, err := rdb.ScriptExists(ctx, deleteScriptSHA).Result(); err != nil || !slices.Equal(ok, []bool{true}) {
			t.Errorf("SCRIPT EXISTS of the unlock script = %v, %v; want [true] (EVAL caches it under its SHA1)", ok, err)
		}

		if err := other.TryLock(); err != nil {
			t.Fatalf("contender's TryLock after Unlock: %v", err)
		}
		if ok, err := m.Unlock(); ok || !slices.Equal(takenNodes(err), []int{0}) {
			t.Errorf("Unlock of the old holder = %v, %v; want false, ErrTaken on node 0", ok, err)
		}
		checkGet(t, rdb, key, other.Value())
	})
}

// TestRedsyncExtend extends a held, an expired, and a retaken mutex, with and
// without WithSetNXOnExtend. A lock expires here by its key's deletion.
func TestRedsyncExtend(t *testing.T) {
	tests := []struct {
		name    string
		setNX   bool
		expire  bool // delete the key before Extend
		retaken bool // and let another mutex lock it
		want    bool // Extend's result; false comes with ErrTaken on node 0
		holder  string
	}{
		{name: "held", want: true, holder: "self"},
		{name: "held/setNX", setNX: true, want: true, holder: "self"},
		{name: "expired", expire: true, want: false, holder: ""},
		{name: "expired/setNX", setNX: true, expire: true, want: true, holder: "self"},
		{name: "retaken", expire: true, retaken: true, want: false, holder: "other"},
		{name: "retaken/setNX", setNX: true, expire: true, retaken: true, want: false, holder: "other"},
	}
	eachTarget(t, func(t *testing.T, tg target) {
		ctx, rdb, rs := context.Background(), tg.client(), redsyncOn(tg, 1)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				key := keyFor(t, "mutex")
				opts := []redsync.Option{redsync.WithExpiry(time.Hour), redsync.WithTries(1)}
				if tt.setNX {
					opts = append(opts, redsync.WithSetNXOnExtend())
				}
				m := rs.NewMutex(key, opts...)
				if err := m.Lock(); err != nil {
					t.Fatalf("Lock: %v", err)
				}
				// Shorten the TTL, so that Extend's PEXPIRE shows.
				if err := rdb.PExpire(ctx, key, time.Minute).Err(); err != nil {
					t.Fatal(err)
				}
				if tt.expire {
					if err := rdb.Del(ctx, key).Err(); err != nil {
						t.Fatal(err)
					}
				}
				other := rs.NewMutex(key, redsync.WithExpiry(2*time.Hour), redsync.WithTries(1))
				if tt.retaken {
					if err := other.Lock(); err != nil {
						t.Fatalf("other's Lock: %v", err)
					}
				}

				ok, err := m.Extend()
				if tt.want && (!ok || err != nil) || !tt.want && (ok || !slices.Equal(takenNodes(err), []int{0})) {
					t.Errorf("Extend = %v, %v; want %v", ok, err, tt.want)
				}
				switch tt.holder {
				case "self":
					checkGet(t, rdb, key, m.Value())
					checkTTL(t, rdb, key, time.Hour)
					if ok, err := valid(m); !ok || err != nil {
						t.Errorf("Valid = %v, %v; want true, nil", ok, err)
					}
				case "other":
					checkGet(t, rdb, key, other.Value())
					checkTTL(t, rdb, key, 2*time.Hour)
				default:
					checkGet(t, rdb, key, "")
				}
			})
		}
	})
}

// TestRedsyncQuorum runs the Redlock algorithm on three independent keyspaces, some
// of which already hold the key for someone else: the lock needs two of three.
func TestRedsyncQuorum(t *testing.T) {
	tests := []struct {
		held []int // nodes already holding the key for someone else
		want bool
	}{
		{nil, true},
		{[]int{1}, true},
		{[]int{0, 2}, false},
		{[]int{0, 1, 2}, false},
	}
	eachTarget(t, func(t *testing.T, tg target) {
		ctx, rs := context.Background(), redsyncOn(tg, 3)
		for _, tt := range tests {
			t.Run(fmt.Sprintf("held=%v", tt.held), func(t *testing.T) {
				key := keyFor(t, "mutex")
				for _, i := range tt.held {
					if err := tg.node(i).Set(ctx, key, "someone-else", time.Hour).Err(); err != nil {
						t.Fatal(err)
					}
				}
				m := rs.NewMutex(key, redsync.WithExpiry(time.Hour), redsync.WithTries(1))
				err := m.TryLock()
				switch {
				case tt.want && err != nil:
					t.Fatalf("TryLock = %v; want nil", err)
				case !tt.want && !slices.Equal(takenNodes(err), tt.held):
					t.Fatalf("TryLock = %v; want ErrTaken on nodes %v", err, tt.held)
				}
				// A failed lock releases the nodes it did take.
				for i := range 3 {
					want := ""
					if slices.Contains(tt.held, i) {
						want = "someone-else"
					} else if tt.want {
						want = m.Value()
					}
					checkGet(t, tg.node(i), key, want)
				}
				if !tt.want {
					return
				}
				// Valid holds on a quorum, and names a node that holds it for
				// another.
				ok, err := valid(m)
				var nt *redsync.ErrNodeTaken
				if !ok || len(tt.held) == 0 && err != nil ||
					len(tt.held) == 1 && (!errors.As(err, &nt) || nt.Node != tt.held[0]) {
					t.Errorf("Valid = %v, %v; want true, and node %v taken", ok, err, tt.held)
				}
				if ok, err := m.Unlock(); !ok || err != nil {
					t.Errorf("Unlock = %v, %v; want true, nil", ok, err)
				}
				for i := range 3 {
					want := ""
					if slices.Contains(tt.held, i) {
						want = "someone-else"
					}
					checkGet(t, tg.node(i), key, want)
				}
			})
		}
	})
}

// TestRedsyncContention has goroutines contend for one mutex name, each with a
// mutex of its own, on one node and on three. Released at once, each tries once:
// exactly one gets it. Then each locks it, with retries, a number of times, doing a
// read-modify-write under it: no two hold it at once and no increment is lost.
func TestRedsyncContention(t *testing.T) {
	const goroutines, rounds = 8, 20
	for _, nodes := range []int{1, 3} {
		t.Run(fmt.Sprintf("nodes=%d", nodes), func(t *testing.T) {
			eachTarget(t, func(t *testing.T, tg target) {
				ctx, rs, key := context.Background(), redsyncOn(tg, nodes), keyFor(t, "mutex")
				opts := []redsync.Option{redsync.WithExpiry(time.Hour), redsync.WithTries(1)}

				var won, refused atomic.Int64
				x := &exclusive{}
				together(goroutines, func(int) {
					switch err := rs.NewMutex(key, opts...).TryLock(); {
					case err == nil:
						won.Add(1)
					case errors.Is(err, redsync.ErrFailed) || takenNodes(err) != nil:
						// Taken on a quorum, or (three nodes) the votes split and
						// nobody has a quorum: a refusal either way.
						refused.Add(1)
					default:
						x.fail(err)
					}
				})
				if won.Load() > 1 || won.Load()+refused.Load() != goroutines || nodes == 1 && won.Load() != 1 {
					t.Errorf("%d goroutines each trying once: %d locked, %d refused; want 1 (at most 1 on 3 nodes), the rest refused",
						goroutines, won.Load(), refused.Load())
				}
				for i := range nodes {
					if err := tg.node(i).Del(ctx, key).Err(); err != nil {
						t.Fatal(err)
					}
				}

				x.counter = keyFor(t, "counter")
				opts = []redsync.Option{redsync.WithExpiry(time.Hour), redsync.WithTries(1 << 20),
					redsync.WithRetryDelayFunc(func(int) time.Duration { return time.Duration(1+rand.IntN(1000)) * time.Microsecond })}
				together(goroutines, func(g int) {
					m := rs.NewMutex(key, opts...)
					for r := range rounds {
						lctx, cancel := context.WithTimeout(ctx, time.Minute)
						err := m.LockContext(lctx)
						cancel()
						if err != nil {
							x.fail(fmt.Errorf("goroutine %d round %d: Lock: %w", g, r, err))
							return
						}
						x.section(ctx, tg.client())
						if ok, err := m.Unlock(); !ok || err != nil {
							x.fail(fmt.Errorf("goroutine %d round %d: Unlock = %v, %w", g, r, ok, err))
							return
						}
					}
				})
				x.check(t, tg.client(), goroutines*rounds)
			})
		})
	}
}
