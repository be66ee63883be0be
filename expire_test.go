package zlite

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/zlite/zlite/internal/testmain"
)

// The expiry commands against a real redis-server. Every TTL compared is either
// absolute (EXPIREAT, then EXPIRETIME) or whole seconds far from a rounding edge
// (EXPIRE 100, then TTL), so the replies are exact on both sides.
func TestExpireCompare(t *testing.T) {
	const far = "4000000000" // 2096, in seconds
	tests := []struct {
		name string
		cmds [][]string
	}{
		{"missing key", [][]string{cmd("EXPIRE", "k", "100"), cmd("PEXPIRE", "k", "100"), cmd("EXPIREAT", "k", far),
			cmd("PEXPIREAT", "k", far), cmd("TTL", "k"), cmd("PTTL", "k"), cmd("EXPIRETIME", "k"),
			cmd("PEXPIRETIME", "k"), cmd("PERSIST", "k")}},
		{"no ttl", [][]string{cmd("RPUSH", "k", "a"), cmd("TTL", "k"), cmd("PTTL", "k"), cmd("EXPIRETIME", "k"),
			cmd("PEXPIRETIME", "k"), cmd("PERSIST", "k")}},
		{"set and read", [][]string{cmd("RPUSH", "k", "a"), cmd("EXPIRE", "k", "100"), cmd("TTL", "k"),
			cmd("EXPIREAT", "k", far), cmd("EXPIRETIME", "k"), cmd("PEXPIRETIME", "k"),
			cmd("PEXPIREAT", "k", "4000000000123"), cmd("EXPIRETIME", "k"), cmd("PEXPIRETIME", "k"),
			cmd("PERSIST", "k"), cmd("TTL", "k"), cmd("PERSIST", "k"), cmd("EXISTS", "k")}},
		{"past and zero delete", [][]string{cmd("RPUSH", "a", "x"), cmd("EXPIRE", "a", "0"), cmd("EXISTS", "a"),
			cmd("ZADD", "b", "1", "m"), cmd("PEXPIRE", "b", "-5"), cmd("TYPE", "b"),
			cmd("RPUSH", "c", "x"), cmd("EXPIREAT", "c", "1"), cmd("LLEN", "c"),
			cmd("RPUSH", "d", "x"), cmd("PEXPIREAT", "d", "-9223372036854775808"), cmd("DBSIZE")}},
		{"overflow", [][]string{cmd("RPUSH", "k", "a"),
			cmd("EXPIRE", "k", "9223372036854775807"), cmd("EXPIRE", "k", "9223372036854775"),
			cmd("EXPIRE", "k", "-9223372036854776"), cmd("EXPIREAT", "k", "9223372036854776"),
			cmd("PEXPIRE", "k", "9223372036854775807"), cmd("PEXPIREAT", "k", "9223372036854775807"),
			cmd("PEXPIREAT", "k", "9223372036854775806"), cmd("PEXPIRETIME", "k"), cmd("PERSIST", "k"),
			cmd("EXPIREAT", "k", "9223372036854775"), cmd("EXPIRETIME", "k"), cmd("PEXPIRETIME", "k"),
			cmd("EXPIRE", "nokey", "9223372036854775807")}},
		{"parse errors", [][]string{cmd("RPUSH", "k", "a"), cmd("EXPIRE", "k", "x"), cmd("EXPIRE", "k", "1.5"),
			cmd("EXPIRE", "k", " 1"), cmd("EXPIRE", "k", "x", "foo"), cmd("EXPIRE", "k", "100", "foo"),
			cmd("EXPIRE", "k", "100", "nx", "xx"), cmd("EXPIRE", "k", "100", "nx", "gt"),
			cmd("EXPIRE", "k", "100", "lt", "nx"), cmd("EXPIRE", "k", "100", "gt", "lt"),
			cmd("PEXPIRE", "k", "100", "NX", "bogus"), cmd("EXPIRE", "k", "x", "nx", "xx"),
			cmd("EXPIRE", "k"), cmd("TTL"), cmd("TTL", "a", "b"), cmd("PERSIST"), cmd("EXPIRETIME", "k", "x"),
			cmd("TTL", "k")}},
		{"nx xx gt lt", [][]string{cmd("RPUSH", "k", "a"),
			cmd("EXPIRE", "k", "100", "XX"), cmd("EXPIRE", "k", "100", "GT"), cmd("TTL", "k"),
			cmd("EXPIRE", "k", "100", "LT"), cmd("TTL", "k"), cmd("PERSIST", "k"),
			cmd("EXPIRE", "k", "100", "NX"), cmd("EXPIRE", "k", "200", "NX"), cmd("TTL", "k"),
			cmd("EXPIRE", "k", "200", "XX"), cmd("TTL", "k"), cmd("EXPIRE", "k", "100", "GT"),
			cmd("EXPIRE", "k", "300", "gt"), cmd("TTL", "k"), cmd("EXPIRE", "k", "400", "LT"),
			cmd("EXPIRE", "k", "150", "lt"), cmd("TTL", "k"), cmd("EXPIRE", "k", "120", "xx", "lt"),
			cmd("TTL", "k"), cmd("EXPIRE", "k", "500", "xx", "gt", "xx"), cmd("TTL", "k"),
			cmd("EXPIRE", "k", "-1", "LT"), cmd("EXISTS", "k"),
			cmd("RPUSH", "j", "a"), cmd("EXPIRE", "j", "-1", "GT"), cmd("EXISTS", "j"),
			cmd("EXPIRE", "j", "-1", "NX"), cmd("EXISTS", "j")}},
		{"empty key loses ttl", [][]string{cmd("RPUSH", "l", "a"), cmd("EXPIRE", "l", "100"), cmd("LPOP", "l"),
			cmd("RPUSH", "l", "b"), cmd("TTL", "l"), cmd("ZADD", "z", "1", "m"), cmd("EXPIRE", "z", "100"),
			cmd("ZREM", "z", "m"), cmd("ZADD", "z", "1", "m"), cmd("TTL", "z")}},
		{"in-place writes keep ttl", [][]string{cmd("RPUSH", "l", "a", "b"), cmd("EXPIRE", "l", "100"),
			cmd("RPUSH", "l", "c"), cmd("LSET", "l", "0", "x"), cmd("LPOP", "l"), cmd("TTL", "l"),
			cmd("LMOVE", "l", "m", "LEFT", "LEFT"), cmd("TTL", "l"), cmd("TTL", "m"),
			cmd("ZADD", "z", "1", "a"), cmd("EXPIRE", "z", "100"), cmd("ZADD", "z", "2", "b"),
			cmd("ZINCRBY", "z", "1", "a"), cmd("ZPOPMIN", "z"), cmd("TTL", "z")}},
		{"store clears ttl", [][]string{cmd("ZADD", "a", "1", "x"), cmd("ZADD", "d", "1", "y"),
			cmd("EXPIRE", "d", "100"), cmd("ZUNIONSTORE", "d", "1", "a"), cmd("TTL", "d"),
			cmd("EXPIRE", "d", "100"), cmd("ZRANGESTORE", "d", "a", "0", "-1"), cmd("TTL", "d"),
			cmd("EXPIRE", "d", "100"), cmd("ZINTERSTORE", "d", "2", "a", "nokey"), cmd("EXISTS", "d")}},
		{"rename carries ttl", [][]string{cmd("RPUSH", "a", "x"), cmd("EXPIREAT", "a", far), cmd("RPUSH", "b", "y"),
			cmd("RENAME", "a", "b"), cmd("EXPIRETIME", "b"), cmd("EXISTS", "a"), cmd("RENAME", "b", "b"),
			cmd("EXPIRETIME", "b"), cmd("RPUSH", "c", "z"), cmd("EXPIRE", "c", "100"), cmd("RENAME", "b", "c"),
			cmd("EXPIRETIME", "c"), cmd("RPUSH", "p", "q"), cmd("RENAME", "p", "c"), cmd("TTL", "c")}},
		{"renamenx", [][]string{cmd("RENAMENX", "a", "b"), cmd("RPUSH", "a", "x"), cmd("EXPIREAT", "a", far),
			cmd("RENAMENX", "a", "a"), cmd("RPUSH", "b", "y"), cmd("RENAMENX", "a", "b"), cmd("LRANGE", "b", "0", "-1"),
			cmd("RENAMENX", "a", "c"), cmd("EXPIRETIME", "c"), cmd("EXISTS", "a"), cmd("RENAMENX", "a"),
			cmd("RENAMENX", "c", "a", "x")}},
		{"copy", [][]string{cmd("COPY", "a", "b"), cmd("RPUSH", "a", "1", "2"), cmd("EXPIREAT", "a", far),
			cmd("COPY", "a", "b"), cmd("LRANGE", "b", "0", "-1"), cmd("EXPIRETIME", "b"), cmd("RPUSH", "b", "3"),
			cmd("LRANGE", "a", "0", "-1"), cmd("COPY", "a", "b"), cmd("ZADD", "z", "1", "m", "2", "n"),
			cmd("COPY", "z", "b", "REPLACE"), cmd("ZRANGE", "b", "0", "-1", "WITHSCORES"), cmd("TTL", "b"),
			cmd("ZADD", "z", "3", "o"), cmd("ZCARD", "b"), cmd("COPY", "z", "z"), cmd("COPY", "z", "z", "REPLACE"),
			cmd("COPY", "nokey", "nokey"), cmd("COPY", "a", "c", "FOO"), cmd("COPY", "a", "c", "DB"),
			cmd("COPY", "a", "c", "DB", "x"), cmd("COPY", "a", "c", "DB", "99"), cmd("COPY", "a", "c", "DB", "-1"),
			cmd("COPY", "a", "c", "DB", "4294967296"), cmd("COPY", "a", "c", "replace", "replace"),
			cmd("TYPE", "c"), cmd("COPY", "a")}},
		{"unlink touch", [][]string{cmd("RPUSH", "a", "x"), cmd("ZADD", "b", "1", "m"), cmd("TOUCH", "a", "b", "c", "a"),
			cmd("UNLINK", "a", "c", "a"), cmd("EXISTS", "a", "b"), cmd("UNLINK"), cmd("TOUCH")}},
		{"randomkey", [][]string{cmd("RANDOMKEY"), cmd("RPUSH", "a", "x"), cmd("RANDOMKEY"), cmd("RANDOMKEY", "x"),
			cmd("EXPIRE", "a", "-1"), cmd("RANDOMKEY")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { compare(t, tt.cmds...) })
	}
}

// fakeClock is an injectable clock that moves only when told to.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.UnixMilli(1_700_000_000_000)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// do runs a command on db, failing t on an error.
func do(t *testing.T, db *DB, args ...string) any {
	t.Helper()
	r, err := db.Do(context.Background(), args...)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return r
}

// TestLazyExpiry checks that a key past its time is invisible on every access path
// and is counted once as expired.
func TestLazyExpiry(t *testing.T) {
	reads := []struct {
		name string
		args []string
		want any
	}{
		{"exists", []string{"EXISTS", "k"}, int64(0)},
		{"type", []string{"TYPE", "k"}, "none"},
		{"llen", []string{"LLEN", "k"}, int64(0)},
		{"lrange", []string{"LRANGE", "k", "0", "-1"}, []any{}},
		{"ttl", []string{"TTL", "k"}, int64(-2)},
		{"pttl", []string{"PTTL", "k"}, int64(-2)},
		{"keys", []string{"KEYS", "*"}, []any{}},
		{"scan", []string{"SCAN", "0"}, []any{"0", []any{}}},
		{"dbsize", []string{"DBSIZE"}, int64(0)},
		{"randomkey", []string{"RANDOMKEY"}, nil},
		{"lpop", []string{"LPOP", "k"}, nil},
		{"blpop", []string{"BLPOP", "k", "0.01"}, nil},
		{"del", []string{"DEL", "k"}, int64(0)},
		{"rpushx", []string{"RPUSHX", "k", "y"}, int64(0)},
		{"expire", []string{"EXPIRE", "k", "100"}, int64(0)},
		{"persist", []string{"PERSIST", "k"}, int64(0)},
		{"touch", []string{"TOUCH", "k"}, int64(0)},
		{"copy", []string{"COPY", "k", "c"}, int64(0)},
	}
	for _, tt := range reads {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clk := newFakeClock()
				db := New(WithClock(clk.Now))
				do(t, db, "RPUSH", "k", "x")
				do(t, db, "PEXPIRE", "k", "1500")
				if got := do(t, db, "PTTL", "k"); got != int64(1500) {
					t.Fatalf("PTTL = %v; want 1500", got)
				}
				clk.Advance(1499 * time.Millisecond)
				if got := do(t, db, "TTL", "k"); got != int64(0) {
					t.Fatalf("TTL 1 ms before = %v; want 0 (rounded)", got)
				}
				clk.Advance(time.Millisecond)
				got, err := db.Do(context.Background(), tt.args...)
				if err != nil || canon(got, nil, false) != canon(tt.want, nil, false) {
					t.Fatalf("%q = %v, %v; want %v", tt.args, got, err, tt.want)
				}
				if n := do(t, db, "EXISTS", "k"); n != int64(0) {
					t.Fatalf("EXISTS after %q = %v; want 0", tt.args, n)
				}
				mustCheck(t, db)
				if got := db.Stats().ExpiredKeys; got != 1 {
					t.Errorf("ExpiredKeys = %d; want 1", got)
				}
			})
		})
	}
}

// TestActiveExpiry checks that write commands reclaim due keys nobody reads, at
// most activeBudget per command (per shard: one shard here), and that DBSIZE never
// counts them.
func TestActiveExpiry(t *testing.T) {
	clk := newFakeClock()
	db := New(WithClock(clk.Now), WithShards(1))
	ctx := context.Background()
	const n = 100
	for i := range n {
		k := "k" + strconv.Itoa(i)
		do(t, db, "ZADD", k, "1", "m")
		do(t, db, "PEXPIRE", k, strconv.Itoa(10+i%3))
	}
	do(t, db, "RPUSH", "stay", "x")
	do(t, db, "EXPIRE", "stay", "1000")
	mustCheck(t, db)
	clk.Advance(20 * time.Millisecond)
	live := db.keyCount
	if got := live(); got != n+1 {
		t.Fatalf("keys before any write = %d; want %d (nothing reclaimed yet)", got, n+1)
	}
	do(t, db, "RPUSH", "w", "x")
	if got := live(); got != n+2-activeBudget {
		t.Fatalf("keys after one write = %d; want %d", got, n+2-activeBudget)
	}
	mustCheck(t, db)
	for live() > 2 {
		if _, err := db.LPush(ctx, "w", "x"); err != nil {
			t.Fatal(err)
		}
	}
	mustCheck(t, db)
	st := db.Stats()
	if st.ExpiredKeys != n || st.Keys != 2 || st.Expires != 1 {
		t.Errorf("Stats: ExpiredKeys %d, Keys %d, Expires %d; want %d, 2, 1", st.ExpiredKeys, st.Keys, st.Expires, n)
	}
	if ttl, _ := db.TTL(ctx, "stay"); ttl != 1000*time.Second {
		t.Errorf("TTL(stay) = %v; want 1000s", ttl)
	}
}

// TestExpiryHeapBounded checks that re-setting one key's TTL many times, or deleting
// keys with a TTL, does not let the heap of stale refs grow without bound (the
// invariant check bounds it).
func TestExpiryHeapBounded(t *testing.T) {
	clk := newFakeClock()
	db := New(WithClock(clk.Now))
	ctx := context.Background()
	do(t, db, "RPUSH", "k", "x")
	for i := range 10000 {
		if _, err := db.Expire(ctx, "k", time.Duration(1000+i)*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	mustCheck(t, db)
	for i := range 1000 {
		k := "d" + strconv.Itoa(i)
		do(t, db, "RPUSH", k, "x")
		do(t, db, "EXPIRE", k, "1000")
	}
	for i := range 1000 {
		do(t, db, "DEL", "d"+strconv.Itoa(i))
		mustCheck(t, db)
	}
	db.inspect(func(sh *shard) {
		if h := len(sh.exp.heap); h > 2*len(sh.exp.at)+64 {
			t.Errorf("heap holds %d refs for %d keys with a TTL", h, len(sh.exp.at))
		}
	})
}

// TestExpireTyped checks the typed methods and their go-redis conventions.
func TestExpireTyped(t *testing.T) {
	clk := newFakeClock()
	db := New(WithClock(clk.Now))
	ctx := context.Background()
	mustOK := func(ok bool, err error, want bool, what string) {
		t.Helper()
		if err != nil || ok != want {
			t.Fatalf("%s = %v, %v; want %v", what, ok, err, want)
		}
	}
	ttl := func(key string, want time.Duration) {
		t.Helper()
		if got, err := db.TTL(ctx, key); err != nil || got != want {
			t.Fatalf("TTL(%q) = %v, %v; want %v", key, got, err, want)
		}
	}
	ttl("k", -2)
	ok, err := db.Expire(ctx, "k", time.Second)
	mustOK(ok, err, false, "Expire(missing)")
	db.RPush(ctx, "k", "a")
	ttl("k", -1)
	ok, err = db.ExpireXX(ctx, "k", time.Minute)
	mustOK(ok, err, false, "ExpireXX(no ttl)")
	ok, err = db.ExpireGT(ctx, "k", time.Minute)
	mustOK(ok, err, false, "ExpireGT(no ttl)")
	ok, err = db.ExpireLT(ctx, "k", time.Minute)
	mustOK(ok, err, true, "ExpireLT(no ttl)")
	ok, err = db.ExpireNX(ctx, "k", time.Hour)
	mustOK(ok, err, false, "ExpireNX(ttl)")
	ok, err = db.ExpireGT(ctx, "k", time.Hour)
	mustOK(ok, err, true, "ExpireGT(longer)")
	ttl("k", time.Hour)
	if got, _ := db.PTTL(ctx, "k"); got != time.Hour {
		t.Fatalf("PTTL = %v; want 1h", got)
	}
	ok, err = db.PExpire(ctx, "k", 1500*time.Millisecond)
	mustOK(ok, err, true, "PExpire")
	ttl("k", 2*time.Second) // 1.5 s rounds up, as Redis's TTL
	at := clk.Now().Add(time.Hour)
	ok, err = db.ExpireAt(ctx, "k", at)
	mustOK(ok, err, true, "ExpireAt")
	if got, _ := db.ExpireTime(ctx, "k"); got != time.Duration(at.Unix())*time.Second {
		t.Fatalf("ExpireTime = %v; want %v", got, time.Duration(at.Unix())*time.Second)
	}
	ok, err = db.PExpireAt(ctx, "k", at.Add(time.Millisecond))
	mustOK(ok, err, true, "PExpireAt")
	if got, _ := db.PExpireTime(ctx, "k"); got != time.Duration(at.UnixMilli()+1)*time.Millisecond {
		t.Fatalf("PExpireTime = %v", got)
	}
	var ms int64
	db.inspect(func(sh *shard) {
		if sh == &db.shards[db.shardOf("k")] {
			ms, ok = sh.expireAt("k")
		}
	})
	if !ok || ms != at.UnixMilli()+1 {
		t.Fatalf("expireAt = %d, %v; want %d, true", ms, ok, at.UnixMilli()+1)
	}
	if n, err := db.Copy(ctx, "k", "c", 0, false); err != nil || n != 1 {
		t.Fatalf("Copy = %d, %v; want 1", n, err)
	}
	if _, err := db.Copy(ctx, "k", "c", 1, true); !errors.Is(err, ErrDBIndex) {
		t.Fatalf("Copy(db 1) error = %v; want ErrDBIndex", err)
	}
	if _, err := db.Copy(ctx, "k", "k", 0, true); !errors.Is(err, ErrSameObject) {
		t.Fatalf("Copy(k, k) error = %v; want ErrSameObject", err)
	}
	ok, err = db.Persist(ctx, "c")
	mustOK(ok, err, true, "Persist")
	ttl("c", -1)
	ok, err = db.RenameNX(ctx, "k", "c")
	mustOK(ok, err, false, "RenameNX(existing)")
	ok, err = db.RenameNX(ctx, "k", "r")
	mustOK(ok, err, true, "RenameNX")
	if _, err := db.RenameNX(ctx, "k", "r"); !errors.Is(err, ErrNoSuchKey) {
		t.Fatalf("RenameNX(missing) error = %v; want ErrNoSuchKey", err)
	}
	if got, _ := db.PExpireTime(ctx, "r"); got != time.Duration(at.UnixMilli()+1)*time.Millisecond {
		t.Fatalf("PExpireTime after rename = %v", got)
	}
	if n, _ := db.Touch(ctx, "r", "c", "x"); n != 2 {
		t.Fatalf("Touch = %d; want 2", n)
	}
	k, ok, err := db.RandomKey(ctx)
	if err != nil || !ok || (k != "r" && k != "c") {
		t.Fatalf("RandomKey = %q, %v, %v", k, ok, err)
	}
	if n, _ := db.Unlink(ctx, "r", "c", "x"); n != 2 {
		t.Fatalf("Unlink = %d; want 2", n)
	}
	if _, ok, _ := db.RandomKey(ctx); ok {
		t.Fatal("RandomKey on an empty DB reported a key")
	}
	_, err = db.Do(ctx, "EXPIRE", "k", "9223372036854775807")
	var e *Error
	if !errors.Is(err, ErrInvalidExpireTime) || !errors.As(err, &e) || e.Command != "expire" ||
		err.Error() != "ERR invalid expire time in 'expire' command" {
		t.Fatalf("EXPIRE overflow error = %v", err)
	}
	mustCheck(t, db)
}

// TestExpiryWatch checks that a key's expiry marks its watches dirty, as Redis's
// EXEC fails when a watched key expired.
func TestExpiryWatch(t *testing.T) {
	clk := newFakeClock()
	db := New(WithClock(clk.Now))
	do(t, db, "RPUSH", "k", "x")
	do(t, db, "PEXPIRE", "k", "10")
	w := db.Watch("k")
	defer w.Close()
	clk.Advance(5 * time.Millisecond)
	do(t, db, "TTL", "k")
	if w.Dirty() {
		t.Fatal("watch dirty before the key expired")
	}
	clk.Advance(5 * time.Millisecond)
	do(t, db, "EXISTS", "k")
	if !w.Dirty() {
		t.Fatal("watch not dirty after the key expired")
	}
}

// TestExpiryBlocked checks that callers blocked on a key stay blocked when the key
// that was pushed expires (or is deleted by a past EXPIRE) in the same batch, and
// are served when a value is pushed, as in Redis.
func TestExpiryBlocked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := New()
		ctx := context.Background()
		type result struct {
			key, val string
			err      error
		}
		done := make(chan result, 1)
		go func() {
			k, v, _, err := db.BLPop(ctx, 0, "q")
			done <- result{k, v, err}
		}()
		synctest.Wait()
		if err := db.Update(func(tx *Tx) error {
			if _, err := tx.RPush("q", "gone"); err != nil {
				return err
			}
			_, err := tx.Expire("q", -time.Second)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		select {
		case r := <-done:
			t.Fatalf("BLPOP returned %+v after its key was deleted by EXPIRE", r)
		default:
		}
		if _, err := db.RPush(ctx, "q", "v"); err != nil {
			t.Fatal(err)
		}
		if r := <-done; r.err != nil || r.key != "q" || r.val != "v" {
			t.Fatalf("BLPOP = %+v; want q v", r)
		}
		mustCheck(t, db)
	})
}

// TestStartExpiry checks that the background cycle reclaims keys nobody touches and
// that its goroutine ends with its context (goleak in TestMain).
func TestStartExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := New() // time.Now is the bubble's fake clock
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		const n = 3*activeBudget + 5
		for i := range n {
			k := "k" + strconv.Itoa(i)
			do(t, db, "RPUSH", k, "x")
			do(t, db, "PEXPIRE", k, "50")
		}
		do(t, db, "RPUSH", "stay", "x")
		db.StartExpiry(ctx, 0)
		time.Sleep(DefaultExpiryInterval / 2) // fake time: before the first tick
		synctest.Wait()
		before := db.keyCount()
		if before != n+1 {
			t.Fatalf("keys before the first tick = %d; want %d", before, n+1)
		}
		time.Sleep(DefaultExpiryInterval)
		synctest.Wait()
		after, expired := db.keyCount(), uint64(0)
		db.inspect(func(sh *shard) { expired += sh.exp.expired })
		if after != 1 || expired != n {
			t.Fatalf("after one tick: %d keys, %d expired; want 1, %d", after, expired, n)
		}
		mustCheck(t, db)
		cancel()
		synctest.Wait()
	})
}

// TestExpireEdgeCompare holds cases the differential fuzzer found: an unknown option
// quoted up to its NUL, and EXPIRETIME's rounding of the largest time.
func TestExpireEdgeCompare(t *testing.T) {
	compare(t, cmd("RPUSH", "k", "a"), cmd("EXPIRE", "k", "100", "a\x00b"), cmd("EXPIRE", "k", "100", "a\r\nb"),
		cmd("PEXPIREAT", "k", "9223372036854775807"), cmd("EXPIRETIME", "k"), cmd("PEXPIRETIME", "k"))
}

// TestExpiryModel runs random pushes, pops, deletes, expiries, PERSIST, RENAME,
// COPY, FLUSHALL and clock moves against a map of (length, expiry time), checking
// EXISTS, LLEN and PTTL of every key and the invariants after each step. Many keys
// come and go, so the key table compacts under keys with a TTL.
func TestExpiryModel(t *testing.T) {
	type entry struct {
		n  int
		at int64 // Unix ms; 0: no TTL
	}
	r := rand.New(rand.NewPCG(testmain.Seed(t), 0))
	clk := newFakeClock()
	db := New(WithClock(clk.Now))
	ctx := context.Background()
	model := map[string]entry{}
	keys := make([]string, 40)
	for i := range keys {
		keys[i] = "k" + strconv.Itoa(i)
	}
	now := func() int64 { return clk.Now().UnixMilli() }
	// expireModel drops the model's keys whose time has come.
	expireModel := func() {
		for k, e := range model {
			if e.at != 0 && e.at <= now() {
				delete(model, k)
			}
		}
	}
	for step := range 20000 {
		k, k2 := keys[r.IntN(len(keys))], keys[r.IntN(len(keys))]
		var what string
		switch op := r.IntN(100); {
		case op < 30:
			what = "RPUSH"
			do(t, db, "RPUSH", k, "v")
			e := model[k]
			e.n++
			model[k] = e
		case op < 45:
			what = "LPOP"
			do(t, db, "LPOP", k)
			if e, ok := model[k]; ok {
				if e.n--; e.n == 0 {
					delete(model, k)
				} else {
					model[k] = e
				}
			}
		case op < 50:
			what = "DEL"
			do(t, db, "DEL", k)
			delete(model, k)
		case op < 70:
			ms := int64(r.IntN(200) - 20)
			what = "PEXPIRE " + strconv.FormatInt(ms, 10)
			do(t, db, "PEXPIRE", k, strconv.FormatInt(ms, 10))
			if e, ok := model[k]; ok {
				if ms <= 0 {
					delete(model, k)
				} else {
					e.at = now() + ms
					model[k] = e
				}
			}
		case op < 75:
			what = "PERSIST"
			do(t, db, "PERSIST", k)
			if e, ok := model[k]; ok {
				e.at = 0
				model[k] = e
			}
		case op < 80:
			what = "RENAME " + k2
			db.Do(ctx, "RENAME", k, k2)
			if e, ok := model[k]; ok && k != k2 {
				model[k2] = e
				delete(model, k)
			}
		case op < 85:
			what = "COPY " + k2
			db.Do(ctx, "COPY", k, k2, "REPLACE")
			if e, ok := model[k]; ok && k != k2 {
				model[k2] = e
			}
		case op < 86:
			what = "FLUSHALL"
			do(t, db, "FLUSHALL")
			clear(model)
		default:
			d := time.Duration(r.IntN(30)) * time.Millisecond
			what = "advance " + d.String()
			clk.Advance(d)
			expireModel()
		}
		if err := db.check(); err != nil {
			t.Fatalf("step %d (%s %s): %v", step, what, k, err)
		}
		if step%10 != 0 {
			continue
		}
		for _, key := range keys {
			e, ok := model[key]
			want := int64(-2)
			if ok && e.at == 0 {
				want = -1
			} else if ok {
				want = e.at - now()
			}
			if got := do(t, db, "PTTL", key); got != want {
				t.Fatalf("step %d (%s %s): PTTL %s = %v; want %d", step, what, k, key, got, want)
			}
			if got := do(t, db, "LLEN", key); got != int64(e.n) {
				t.Fatalf("step %d (%s %s): LLEN %s = %v; want %d", step, what, k, key, got, e.n)
			}
		}
		if got := do(t, db, "DBSIZE"); got != int64(len(model)) {
			t.Fatalf("step %d: DBSIZE = %v; want %d", step, got, len(model))
		}
	}
}

// TestExpiryFrozenInBatch checks that an Update batch sees one time, as a Redis
// script does: a key does not expire halfway through it.
func TestExpiryFrozenInBatch(t *testing.T) {
	clk := newFakeClock()
	db := New(WithClock(clk.Now))
	err := db.Update(func(tx *Tx) error {
		tx.RPush("k", "x")
		tx.PExpire("k", time.Millisecond)
		clk.Advance(time.Second)
		if n, _ := tx.Exists("k"); n != 1 {
			t.Errorf("EXISTS inside the batch = %d; want 1 (time frozen)", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := do(t, db, "EXISTS", "k"); n != int64(0) {
		t.Errorf("EXISTS after the batch = %v; want 0", n)
	}
}

// TestSetExpireAt checks the loading path of persistence: a time is set as given,
// a past one included (the key then expires on its first access, not at once), and
// a missing key is reported.
func TestSetExpireAt(t *testing.T) {
	clk := newFakeClock()
	db := New(WithClock(clk.Now))
	do(t, db, "RPUSH", "past", "x")
	do(t, db, "RPUSH", "future", "x")
	now := clk.Now().UnixMilli()
	setAt := func(key string, ms int64) (ok bool) {
		db.inspect(func(sh *shard) {
			if sh == &db.shards[db.shardOf(key)] {
				ok = sh.setExpireAt(key, ms)
			}
		})
		return ok
	}
	okPast, okFuture, okMissing := setAt("past", now-1), setAt("future", now+5000), setAt("missing", now)
	n := db.keyCount()
	if !okPast || !okFuture || okMissing {
		t.Fatalf("setExpireAt = %v, %v, %v; want true, true, false", okPast, okFuture, okMissing)
	}
	if n != 2 {
		t.Fatalf("keys after loading a past time = %d; want 2 (deleted on access only)", n)
	}
	mustCheck(t, db)
	if got := do(t, db, "PTTL", "future"); got != int64(5000) {
		t.Errorf("PTTL(future) = %v; want 5000", got)
	}
	if got := do(t, db, "EXISTS", "past"); got != int64(0) {
		t.Errorf("EXISTS(past) = %v; want 0", got)
	}
}
