package zlite

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestShardOfTag checks that keys with one hash tag, and the tag itself, share a
// shard.
func TestShardOfTag(t *testing.T) {
	db := New()
	require.Equal(t, db.shardOf("{q}:a"), db.shardOf("{q}:b"), "keys with one tag share a shard")
	require.Equal(t, db.shardOf("q"), db.shardOf("{q}:b"), "a key and its tag share a shard")
}

func TestWithShards(t *testing.T) {
	for _, tt := range []struct{ n, want int }{{-1, 1}, {0, 1}, {1, 1}, {3, 4}, {16, 16}, {17, 32}, {64, 64}, {1000, MaxShards}} {
		db := New(WithShards(tt.n))
		require.Len(t, db.shards, tt.want, "WithShards(%d)", tt.n)
		require.Equal(t, uint64(tt.want-1), db.shardMask)
		require.Equal(t, tt.want, popcount(db.all))
	}
	require.Len(t, New().shards, DefaultShards)
}

func popcount(m uint64) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// keysInShards returns n keys of distinct shards of db.
func keysInShards(db *DB, n int) []string {
	var keys []string
	seen := map[int]bool{}
	for i := 0; len(keys) < n; i++ {
		k := "k" + strconv.Itoa(i)
		if s := db.shardOf(k); !seen[s] {
			seen[s] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// TestShardsRunInParallel checks that a command on a key of another shard runs
// while a batch holds the first key's shard: with one lock it would wait for the
// batch, which waits for it, and the test would hang.
func TestShardsRunInParallel(t *testing.T) {
	db := New()
	ks := keysInShards(db, 2)
	ctx := context.Background()
	err := db.UpdateKeys(ks[:1], func(tx *Tx) error {
		if _, err := tx.ZAdd(ks[0], Z{Member: "a", Score: 1}); err != nil {
			return err
		}
		done := make(chan error)
		go func() {
			_, err := db.ZAdd(ctx, ks[1], Z{Member: "b", Score: 2})
			done <- err
		}()
		return <-done
	})
	require.NoError(t, err)
	n, err := db.Exists(ctx, ks...)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
}

func TestUpdateKeysUndeclared(t *testing.T) {
	db := New()
	ks := keysInShards(db, 2)
	var got any
	func() {
		defer func() { got = recover() }()
		db.UpdateKeys(ks[:1], func(tx *Tx) error {
			tx.ZAdd(ks[1], Z{Member: "a", Score: 1})
			return nil
		})
	}()
	err, ok := got.(error)
	require.True(t, ok, "UpdateKeys on an undeclared key: recovered %v; want an error", got)
	require.ErrorIs(t, err, ErrUndeclaredKey)
	require.ErrorContains(t, err, strconv.Quote(ks[1]))
	// The locks were released on the way out, and nothing was written.
	n, err := db.Exists(context.Background(), ks...)
	require.NoError(t, err)
	require.Zero(t, n)
	// A key of the same tag as a declared one is in its shard: allowed.
	require.NoError(t, db.UpdateKeys([]string{"{t}"}, func(tx *Tx) error {
		_, err := tx.RPush("{t}:other", "x")
		return err
	}))
	require.NoError(t, db.ViewKeys([]string{"{t}"}, func(tx *Tx) error {
		n, err := tx.LLen("{t}:other")
		require.EqualValues(t, 1, n)
		return err
	}))
}

// TestScanAcrossShards checks SCAN's guarantee over many shards: every key present
// for the whole scan is returned exactly once, whatever is added or deleted between
// calls.
func TestScanAcrossShards(t *testing.T) {
	db := New()
	ctx := context.Background()
	const n = 2000
	for i := range n {
		_, err := db.RPush(ctx, fmt.Sprintf("stay%d", i), "x")
		require.NoError(t, err)
		_, err = db.RPush(ctx, fmt.Sprintf("gone%d", i), "x")
		require.NoError(t, err)
	}
	seen := map[string]int{}
	cursor, calls := uint64(0), 0
	for {
		keys, next, err := db.Scan(ctx, cursor, "", 37)
		require.NoError(t, err)
		for _, k := range keys {
			seen[k]++
		}
		// Churn between calls: delete some keys, add others.
		_, err = db.Del(ctx, fmt.Sprintf("gone%d", calls))
		require.NoError(t, err)
		_, err = db.RPush(ctx, fmt.Sprintf("new%d", calls), "x")
		require.NoError(t, err)
		calls++
		if cursor = next; cursor == 0 {
			break
		}
		require.Less(t, calls, 10*n, "SCAN does not end")
	}
	for i := range n {
		k := fmt.Sprintf("stay%d", i)
		require.Equal(t, 1, seen[k], "key %s returned %d times", k, seen[k])
	}
	for k, c := range seen {
		require.Equal(t, 1, c, "key %s returned %d times", k, c)
	}
	keys, err := db.Keys(ctx, "stay*")
	require.NoError(t, err)
	require.Len(t, keys, n)
	size, err := db.DBSize(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 2*n, size) // n stay, n-calls gone, calls new
}

// TestGlobalWaitersFIFO checks first blocked, first served across the queues of a
// shard and the global ones: a caller blocked on keys of two shards waits in the
// global queues, and while it does every command locks every shard; callers blocked
// before it on one of its keys are served first, and once it is served the keyspace
// goes back to locking shards.
func TestGlobalWaitersFIFO(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := track(New())
		ks := keysInShards(db, 2)
		a, b := ks[0], ks[1]
		first := goBLPop(ctx, db, 0, a)    // a's shard's queue
		cross := goBLPop(ctx, db, 0, b, a) // the global queue
		second := goBLPop(ctx, db, 0, a)   // global too: the global queue is not empty
		third := goBLMove(ctx, db, a, b)   // also global (two shards)
		require.Equal(t, 3, db.gwaits.Blocked())
		require.Equal(t, db.all, db.lockKey(a).held, "a command locks every shard while callers wait in the global queues")
		db.release(db.all)

		_, err := db.RPush(ctx, a, "1", "2", "3")
		require.NoError(t, err)
		mustRecv(t, first, popResult{a, "1", true, nil})
		mustRecv(t, cross, popResult{a, "2", true, nil})
		mustRecv(t, second, popResult{a, "3", true, nil})
		mustBlock(t, third)
		_, err = db.RPush(ctx, a, "4")
		require.NoError(t, err)
		mustRecv(t, third, popResult{a, "4", true, nil})
		require.Zero(t, db.gwaits.Blocked())
		tx := db.lockKey(a)
		require.Equal(t, uint64(1)<<db.shardOf(a), tx.held, "back to one shard per key")
		require.NoError(t, tx.unlock())
		v, err := db.LRange(ctx, b, 0, -1)
		require.NoError(t, err)
		require.Equal(t, []string{"4"}, v, "BLMOVE pushed onto its destination")
	})
}

// TestGlobalWaiterGivesUp checks that a caller waiting in the global queues that
// times out or is cancelled leaves the keyspace locking by shard again.
func TestGlobalWaiterGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := track(New())
		ks := keysInShards(db, 2)
		ctx, cancel := context.WithCancel(context.Background())
		w := goBLPop(ctx, db, 0, ks...)
		require.Equal(t, 1, db.gwaits.Blocked())
		cancel()
		mustRecv(t, w, popResult{err: context.Canceled})
		require.Zero(t, db.gwaits.Blocked())
		single := goBLPop(context.Background(), db, 0, ks[0])
		require.Zero(t, db.gwaits.Blocked(), "a one-shard caller waits in its shard")
		_, err := db.LPush(context.Background(), ks[0], "x")
		require.NoError(t, err)
		mustRecv(t, single, popResult{ks[0], "x", true, nil})
	})
}

// TestDoKeySpecs checks that Do locks the shards of every key a command names,
// numkeys forms included: each command below reaches a key in a second shard,
// which would panic with ErrUndeclaredKey if its shard were not locked.
func TestDoKeySpecs(t *testing.T) {
	db := New()
	ctx := context.Background()
	ks := keysInShards(db, 3)
	a, b, c := ks[0], ks[1], ks[2]
	cmds := [][]string{
		{"ZADD", a, "1", "m", "2", "m2"}, {"ZADD", b, "2", "n"}, {"RPUSH", c, "x", "y"},
		{"ZUNIONSTORE", c + "u", "2", a, b},
		{"ZINTERCARD", "2", a, b},
		{"ZUNION", "2", a, b},
		{"ZDIFFSTORE", c + "d", "2", a, b},
		{"ZRANGESTORE", c + "r", a, "0", "-1"},
		{"ZMPOP", "2", c + "none", b, "MIN"},
		{"LMPOP", "2", a + "none", c, "LEFT"},
		{"LMOVE", c, a + "l", "LEFT", "RIGHT"},
		{"BLMPOP", "0.01", "2", a + "none", c, "LEFT"},
		{"BZPOPMIN", c + "none", a, "0.01"},
		{"COPY", a, b + "c"},
		{"RENAME", a, b + "r"},
		{"DEL", b, c, a},
		{"EXISTS", a, b, c},
		{"DBSIZE"}, {"KEYS", "*"}, {"SCAN", "0"}, {"RANDOMKEY"},
	}
	for _, args := range cmds {
		_, err := db.Do(ctx, args...)
		require.NoError(t, err, "%q", args)
	}
	keys, err := db.Keys(ctx, "*")
	require.NoError(t, err)
	slices.Sort(keys)
	want := []string{a + "l", b + "c", b + "r", c + "d", c + "r", c + "u"}
	slices.Sort(want)
	require.Equal(t, want, keys)
	// A numkeys that is not a count of the keys that follow locks every shard and
	// fails as in Redis.
	_, err = db.Do(ctx, "ZUNION", "5", a, b)
	require.True(t, err != nil && !errors.Is(err, ErrUndeclaredKey), "ZUNION 5 with 2 keys: %v", err)
}

// TestPopReqLayout keeps a blocking pop's request small: it is copied into its waiter
// and back, and cleared, at every block (see popReq).
func TestPopReqLayout(t *testing.T) {
	require.LessOrEqual(t, unsafe.Sizeof(popReq{}), uintptr(184), "keep popReq's one-byte fields together")
}

// TestShardLayout checks what [shard]'s doc says of its cache lines: whole lines, the
// lock word, cur and the pending counts on the first, and the shards of a DB starting
// on a line.
func TestShardLayout(t *testing.T) {
	var sh shard
	require.Zero(t, unsafe.Sizeof(sh)%cacheLine, "adjust shardPad: shardData is %d bytes", unsafe.Sizeof(sh.shardData))
	require.Less(t, unsafe.Offsetof(sh.pending)+unsafe.Sizeof(sh.pending)-1, uintptr(cacheLine))
	require.Less(t, unsafe.Offsetof(sh.cur), uintptr(cacheLine))
	for _, n := range []int{1, 2, DefaultShards} {
		db := New(WithShards(n))
		require.Zero(t, uintptr(unsafe.Pointer(&db.shards[0]))%cacheLine, "%d shards", n)
	}
}
