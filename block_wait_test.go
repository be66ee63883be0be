package zlite

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/zlite/zlite/zset"
)

// The blocking tests run in synctest bubbles: synctest.Wait returns once every
// goroutine of the bubble is durably blocked (here: blocked in a wait), so a test
// knows a caller has queued without sleeping, and timeouts run on the fake clock.

// popResult is what a blocked BLPOP/BRPOP/BLMOVE returned.
type popResult struct {
	key, val string
	ok       bool
	err      error
}

// goBLPop starts a BLPOP in its own goroutine, waits until it is blocked (or done),
// and returns the channel that will carry its result.
func goBLPop(ctx context.Context, db *DB, timeout time.Duration, keys ...string) <-chan popResult {
	ch := make(chan popResult, 1)
	go func() {
		k, v, ok, err := db.BLPop(ctx, timeout, keys...)
		ch <- popResult{k, v, ok, err}
	}()
	synctest.Wait()
	return ch
}

func goBLMove(ctx context.Context, db *DB, src, dst string) <-chan popResult {
	ch := make(chan popResult, 1)
	go func() {
		v, ok, err := db.BLMove(ctx, src, dst, "LEFT", "RIGHT", 0)
		ch <- popResult{src, v, ok, err}
	}()
	synctest.Wait()
	return ch
}

// recv returns the result if the goroutine has finished, after letting it run.
func recv(ch <-chan popResult) (popResult, bool) {
	synctest.Wait()
	select {
	case r := <-ch:
		return r, true
	default:
		return popResult{}, false
	}
}

func mustRecv(t *testing.T, ch <-chan popResult, want popResult) {
	t.Helper()
	got, ok := recv(ch)
	if !ok {
		t.Fatalf("still blocked; want %+v", want)
	}
	if got.key != want.key || got.val != want.val || got.ok != want.ok || !errors.Is(got.err, want.err) {
		t.Fatalf("got %+v; want %+v", got, want)
	}
	if err := checkAll(); err != nil {
		t.Fatal(err)
	}
}

// checked lists the DBs of the running synctest bubble whose invariants mustRecv
// checks; tests register theirs with track.
var checked []*DB

func track(db *DB) *DB {
	checked = append(checked, db)
	return db
}

func checkAll() error {
	for _, db := range checked {
		if err := db.check(); err != nil {
			return err
		}
	}
	return nil
}

func mustBlock(t *testing.T, ch <-chan popResult) {
	t.Helper()
	if got, ok := recv(ch); ok {
		t.Fatalf("returned %+v; want still blocked", got)
	}
}

func wantList(t *testing.T, db *DB, key string, want ...string) {
	t.Helper()
	got, err := db.LRange(context.Background(), key, 0, -1)
	if err != nil || len(got) != len(want) {
		t.Fatalf("LRANGE %s = %q, %v; want %q", key, got, err, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("LRANGE %s = %q; want %q", key, got, want)
		}
	}
}

func TestBlockingFIFO(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := track(New())
		w1 := goBLPop(ctx, db, 0, "k")
		w2 := goBLPop(ctx, db, 0, "k")
		w3 := goBLPop(ctx, db, 0, "k")
		if n := db.blockedCount(); n != 3 {
			t.Fatalf("blockedCount = %d; want 3", n)
		}
		// One element wakes exactly one waiter: the first.
		db.RPush(ctx, "k", "a")
		mustRecv(t, w1, popResult{"k", "a", true, nil})
		mustBlock(t, w2)
		mustBlock(t, w3)
		// A variadic push serves in order from the final state.
		db.RPush(ctx, "k", "b", "c", "d")
		mustRecv(t, w2, popResult{"k", "b", true, nil})
		mustRecv(t, w3, popResult{"k", "c", true, nil})
		wantList(t, db, "k", "d")
		if n := db.blockedCount(); n != 0 {
			t.Fatalf("blockedCount = %d; want 0", n)
		}
	})
}

func TestBlockingVariadicLPush(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := track(New())
		w1 := goBLPop(ctx, db, 0, "k")
		// LPUSH k a b c leaves c b a; the waiter sees that final list.
		db.LPush(ctx, "k", "a", "b", "c")
		mustRecv(t, w1, popResult{"k", "c", true, nil})
		wantList(t, db, "k", "b", "a")
	})
}

func TestBlockingMultiKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := track(New())
		w1 := goBLPop(ctx, db, 0, "k1", "k2")
		w2 := goBLPop(ctx, db, 0, "k2")
		db.RPush(ctx, "k2", "x")
		mustRecv(t, w1, popResult{"k2", "x", true, nil})
		mustBlock(t, w2)
		// w1 was removed from k1 when served on k2: a push to k1 stays there.
		db.RPush(ctx, "k1", "y")
		wantList(t, db, "k1", "y")
		mustBlock(t, w2)
		db.RPush(ctx, "k2", "z")
		mustRecv(t, w2, popResult{"k2", "z", true, nil})
	})
}

func TestBlockingReadyOrderInBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := track(New())
		w := goBLPop(ctx, db, 0, "k1", "k2")
		// Keys are served in the order they became ready, not in the waiter's order.
		db.Update(func(tx *Tx) error {
			tx.RPush("k2", "b")
			tx.RPush("k1", "a")
			return nil
		})
		mustRecv(t, w, popResult{"k2", "b", true, nil})
		wantList(t, db, "k1", "a")
	})
}

func TestBlockingBatchFinalState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := track(New())
		w1 := goBLPop(ctx, db, 0, "k")
		w2 := goBLPop(ctx, db, 0, "k")
		db.Update(func(tx *Tx) error {
			tx.RPush("k", "a")
			tx.LPop("k")
			tx.RPush("k", "b")
			tx.RPush("gone", "x")
			tx.Del("gone")
			return nil
		})
		mustRecv(t, w1, popResult{"k", "b", true, nil})
		mustBlock(t, w2)
		// A push and delete inside one batch serves nobody.
		db.Update(func(tx *Tx) error {
			tx.RPush("k", "c")
			_, err := tx.Del("k")
			return err
		})
		mustBlock(t, w2)
		// Blocking commands inside a batch do not block.
		db.Update(func(tx *Tx) error {
			_, _, ok, err := tx.BLPop(0, "nothing")
			if ok || err != nil {
				t.Errorf("tx.BLPop on a missing key = %v, %v; want false, nil", ok, err)
			}
			return nil
		})
		db.RPush(ctx, "k", "d")
		mustRecv(t, w2, popResult{"k", "d", true, nil})
	})
}

func TestBlockingBLMoveChain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := track(New())
		m1 := goBLMove(ctx, db, "a", "b")
		m2 := goBLMove(ctx, db, "b", "c")
		p := goBLPop(ctx, db, 0, "c")
		db.RPush(ctx, "a", "x")
		mustRecv(t, m1, popResult{"a", "x", true, nil})
		mustRecv(t, m2, popResult{"b", "x", true, nil})
		mustRecv(t, p, popResult{"c", "x", true, nil})
		if n, _ := db.DBSize(ctx); n != 0 {
			t.Fatalf("DBSIZE = %d after the chain; want 0", n)
		}
	})
}

func TestBlockingWrongTypeDestination(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := track(New())
		db.Update(func(tx *Tx) error {
			tx.newZSet("z").Add(zset.AddOptions{}, Z{Member: "m", Score: 1})
			return nil
		})
		m := goBLMove(ctx, db, "src", "z")
		p := goBLPop(ctx, db, 0, "src")
		db.RPush(ctx, "src", "x")
		// The BLMOVE gets WRONGTYPE and consumes nothing; the element goes to the next waiter.
		mustRecv(t, m, popResult{"src", "", false, ErrWrongType})
		mustRecv(t, p, popResult{"src", "x", true, nil})
	})
}

func TestBlockingTypeMismatchSkipped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := track(New())
		zs := make(chan popResult, 1)
		go func() {
			k, z, ok, err := db.BZPopMin(ctx, 0, "k")
			zs <- popResult{k, z.Member, ok, err}
		}()
		synctest.Wait()
		l := goBLPop(ctx, db, 0, "k")
		db.RPush(ctx, "k", "x")
		mustBlock(t, zs)
		mustRecv(t, l, popResult{"k", "x", true, nil})
		// A ZADD onto the missing key and a ZREM in one batch serve nobody: the
		// batch sees its own add.
		db.Update(func(tx *Tx) error {
			tx.ZAdd("k", Z{Member: "m1", Score: 1})
			if n, err := tx.ZRem("k", "m1"); n != 1 || err != nil {
				t.Errorf("tx.ZRem after tx.ZAdd = %d, %v; want 1, nil", n, err)
			}
			return nil
		})
		mustBlock(t, zs)
		db.Do(ctx, "ZADD", "k", "2", "m2")
		mustRecv(t, zs, popResult{"k", "m2", true, nil})
	})
}

func TestBlockingTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := track(New())
		start := time.Now()
		w := goBLPop(ctx, db, 1500*time.Millisecond, "k")
		time.Sleep(1499 * time.Millisecond) // fake clock
		mustBlock(t, w)
		time.Sleep(time.Millisecond)
		mustRecv(t, w, popResult{})
		if d := time.Since(start); d != 1500*time.Millisecond {
			t.Fatalf("timed out after %v; want 1.5s", d)
		}
		// Do parses float seconds, rounded up to milliseconds.
		done := make(chan any, 1)
		go func() {
			r, _ := db.Do(ctx, "BZPOPMIN", "k", "0.0015")
			done <- r
		}()
		start = time.Now()
		synctest.Wait()
		if r := <-done; r != nil || time.Since(start) != 2*time.Millisecond {
			t.Fatalf("Do BZPOPMIN 0.0015 = %v after %v; want nil after 2ms", r, time.Since(start))
		}
		// The timed-out waiter is gone: a push stays in the list.
		db.RPush(ctx, "k", "a")
		wantList(t, db, "k", "a")
		if n := db.blockedCount(); n != 0 {
			t.Fatalf("blockedCount = %d; want 0", n)
		}
	})
}

func TestBlockingCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := track(New())
		ctx, cancel := context.WithCancel(context.Background())
		w := goBLPop(ctx, db, 0, "k")
		cancel()
		mustRecv(t, w, popResult{err: context.Canceled})
		db.RPush(context.Background(), "k", "a")
		wantList(t, db, "k", "a")
		// A done context with data ready still pops: the keys are tried before ctx
		// (see blocking.Registry.Wait).
		k, v, ok, err := db.BLPop(ctx, 0, "k")
		if k != "k" || v != "a" || !ok || err != nil {
			t.Fatalf("BLPop with cancelled ctx and data = %q %q %v %v; want k a true nil", k, v, ok, err)
		}
		// Without data it returns ctx.Err() at once.
		if _, _, _, err := db.BLPop(ctx, 0, "k"); !errors.Is(err, context.Canceled) {
			t.Fatalf("BLPop with cancelled ctx = %v; want context.Canceled", err)
		}
	})
}

// TestBlockingCancelRace cancels a waiter in the same critical section as the
// push that serves it: whichever select case the waiter sees, it must return the
// element (it has left the list), never lose it.
func TestBlockingCancelRace(t *testing.T) {
	for range 200 {
		synctest.Test(t, func(t *testing.T) {
			db := track(New())
			ctx, cancel := context.WithCancel(context.Background())
			w := goBLPop(ctx, db, 0, "k")
			db.Update(func(tx *Tx) error {
				cancel()
				_, err := tx.RPush("k", "a")
				return err
			})
			mustRecv(t, w, popResult{"k", "a", true, nil})
			if n, _ := db.Exists(context.Background(), "k"); n != 0 {
				t.Fatal("element both delivered and left in the list")
			}
		})
	}
}

func TestBlockingCounts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := track(New())
		type mres struct {
			key  string
			vals []string
			zs   []Z
		}
		lm := make(chan mres, 1)
		go func() {
			k, v, _ := db.BLMPop(ctx, 0, "RIGHT", 2, "a", "b")
			lm <- mres{key: k, vals: v}
		}()
		zm := make(chan mres, 1)
		go func() {
			k, zs, _ := db.BZMPop(ctx, 0, "MAX", 5, "z")
			zm <- mres{key: k, zs: zs}
		}()
		synctest.Wait()
		db.RPush(ctx, "b", "1", "2", "3")
		db.Do(ctx, "ZADD", "z", "1", "x", "2", "y")
		synctest.Wait()
		if r := <-lm; r.key != "b" || len(r.vals) != 2 || r.vals[0] != "3" || r.vals[1] != "2" {
			t.Fatalf("BLMPop = %+v; want b [3 2]", r)
		}
		if r := <-zm; r.key != "z" || len(r.zs) != 2 || r.zs[0].Member != "y" || r.zs[1].Member != "x" {
			t.Fatalf("BZMPop = %+v; want z [y x]", r)
		}
		if n, _ := db.DBSize(ctx); n != 1 {
			t.Fatalf("DBSIZE = %d; want 1 (b with one element)", n)
		}
	})
}

func TestBlockingRenameServes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := track(New())
		w := goBLPop(ctx, db, 0, "dst")
		db.RPush(ctx, "src", "a", "b")
		if err := db.Rename(ctx, "src", "dst"); err != nil {
			t.Fatal(err)
		}
		mustRecv(t, w, popResult{"dst", "a", true, nil})
		wantList(t, db, "dst", "b")
	})
}

// TestBlockingQueueSweep checks that the wait queues of keys nobody waits on any
// more do not accumulate in the map (of one shard: each shard keeps up to the
// sweep threshold).
func TestBlockingQueueSweep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := track(New(WithShards(1)))
		for i := range 1000 {
			c, cancel := context.WithCancel(ctx)
			w := goBLPop(c, db, 0, "k"+strconv.Itoa(i))
			cancel()
			mustRecv(t, w, popResult{err: context.Canceled})
		}
		n := db.waitStats().Queues
		if n > 200 {
			t.Fatalf("waiters map holds %d queues with nobody waiting", n)
		}
	})
}

// TestBlockingQueueCompaction checks that callers who give up do not accumulate in
// a key's wait queue.
func TestBlockingQueueCompaction(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := track(New())
		keep := goBLPop(ctx, db, 0, "k")
		for range 1000 {
			c, cancel := context.WithCancel(ctx)
			w := goBLPop(c, db, 0, "k")
			cancel()
			mustRecv(t, w, popResult{err: context.Canceled})
		}
		n := db.waitStats().Entries
		if n > 20 {
			t.Fatalf("wait queue holds %d entries for 1 live waiter", n)
		}
		db.RPush(ctx, "k", "a")
		mustRecv(t, keep, popResult{"k", "a", true, nil})
		if n := db.waitStats().Entries; n != 0 {
			t.Fatalf("queues hold %d entries after all were served", n)
		}
	})
}

// blockedCount returns the number of callers currently blocked (for tests).
func (db *DB) blockedCount() int {
	return db.waitStats().Blocked
}

// TestBlockingHandOffLeftovers covers a push onto a missing key whose waiters take
// part of it: LPUSH q a b c d e f makes the list f e d c b a, served first come first
// served; the rest stays in the list in that order, and the reply is the length after
// the push.
func TestBlockingHandOffLeftovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := track(New())
		multi := make(chan []string, 1)
		go func() {
			_, vs, _ := db.BLMPop(ctx, 0, "LEFT", 2, "q")
			multi <- vs
		}()
		synctest.Wait()
		right := make(chan popResult, 1)
		go func() {
			k, v, ok, err := db.BRPop(ctx, 0, "q")
			right <- popResult{k, v, ok, err}
		}()
		synctest.Wait()
		left := goBLPop(ctx, db, 0, "other", "q")
		if n, err := db.LPush(ctx, "q", "a", "b", "c", "d", "e", "f"); n != 6 || err != nil {
			t.Fatalf("LPUSH = %d, %v; want 6, nil", n, err)
		}
		synctest.Wait()
		if vs := <-multi; len(vs) != 2 || vs[0] != "f" || vs[1] != "e" {
			t.Fatalf("BLMPOP LEFT COUNT 2 = %q; want [f e]", vs)
		}
		mustRecv(t, right, popResult{"q", "a", true, nil})
		mustRecv(t, left, popResult{"q", "d", true, nil})
		wantList(t, db, "q", "c", "b")
		// The multi-key waiter left the queue of "other" too.
		db.RPush(ctx, "other", "x")
		wantList(t, db, "other", "x")
		if n := db.blockedCount(); n != 0 {
			t.Fatalf("blockedCount = %d; want 0", n)
		}
		if err := db.check(); err != nil {
			t.Fatal(err)
		}
	})
}
