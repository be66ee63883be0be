package zlite

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zlite/zlite/internal/gendb"
)

// TestSharedReadsMarked checks that the commands whose generated methods share their
// shard's lock are the ones the command table marks shared (reads of one key), so
// that Do and the typed methods lock them alike.
func TestSharedReadsMarked(t *testing.T) {
	for name := range gendb.SharedReads {
		c, ok := commands[name]
		require.True(t, ok, "gendb.SharedReads names %q, which is not a command", name)
		require.True(t, c.shared, "%s is in gendb.SharedReads but not marked shared (a write, or not one key)", name)
	}
	for name, c := range commands {
		if c.shared {
			require.False(t, c.write, "%s is shared and a write", name)
			require.Equal(t, keySpec{}, c.keys, "%s is shared but names keys other than args[1]", name)
		}
	}
	for _, name := range []string{"zadd", "lpush", "del", "exists", "zunion", "blpop", "expire", "keys"} {
		if c, ok := commands[name]; ok {
			require.False(t, c.shared, "%s must not be shared", name)
		}
	}
}

// TestSharedReadsRunTogether checks that a read of a key without a TTL shares the
// shard with another read holding it (an exclusive lock would wait for the holder,
// and the test would hang), and that a read of a key with a TTL, or with latency
// tracking on, takes the shard exclusively.
func TestSharedReadsRunTogether(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1_700_000_000, 0)
	db := New(WithClock(func() time.Time { return now }))
	_, err := db.ZAdd(ctx, "z", Z{Member: "a", Score: 1})
	require.NoError(t, err)
	_, err = db.ZAdd(ctx, "t", Z{Member: "a", Score: 1})
	require.NoError(t, err)
	_, err = db.PExpire(ctx, "t", 10*time.Millisecond)
	require.NoError(t, err)

	var held Tx
	tx := db.rlockKey(&held, "z")
	require.True(t, tx.shared, "a read of a key without a TTL is shared")
	require.Equal(t, uint64(1), tx.home.mu.state.Load(), "one reader inside, no writer")
	s, ok, err := db.ZScore(ctx, "z", "a") // while the read above holds the shard
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 1.0, s)
	r, err := db.Do(ctx, "ZRANGE", "z", "0", "-1")
	require.NoError(t, err)
	require.Equal(t, []any{"a"}, r)
	require.NoError(t, tx.finish(statZScore, 0, nil))

	var rt Tx
	tx = db.rlockKey(&rt, "t")
	require.False(t, tx.shared, "a read of a key with a TTL is exclusive (it may delete the key)")
	require.NoError(t, tx.finish(statZScore, 0, nil))

	timed := New(WithLatencyTracking())
	rt = Tx{}
	tx = timed.rlockKey(&rt, "z")
	require.False(t, tx.shared, "with latency tracking, reads are exclusive")
	require.NoError(t, tx.finish(statZScore, 0, nil))

	// The TTL key, once due, is deleted by the read, as in Redis.
	now = now.Add(time.Second)
	sh := &db.shards[db.shardOf("t")]
	_, ok = sh.keys.find("t")
	require.True(t, ok, "the due key is still in the table before the read")
	_, ok, err = db.ZScore(ctx, "t", "a")
	require.NoError(t, err)
	require.False(t, ok)
	_, ok = sh.keys.find("t")
	require.False(t, ok, "the read deleted the due key")
}

// sharedReadCalls are calls of every shared command on keys of every kind: a small
// sorted set, one with a member index (more than 16 members), a large one, a list, a
// missing key and keys of the wrong type.
var sharedReadCalls = [][]string{
	{"ZSCORE", "small", "m3"}, {"ZSCORE", "big", "m150"}, {"ZSCORE", "nokey", "m"}, {"ZSCORE", "list", "m"},
	{"ZMSCORE", "small", "m1", "nope", "m2"}, {"ZMSCORE", "big", "m1", "m199"},
	{"ZRANK", "small", "m4"}, {"ZRANK", "big", "m170", "WITHSCORE"}, {"ZREVRANK", "big", "m2"},
	{"ZCARD", "small"}, {"ZCARD", "big"}, {"ZCARD", "list"},
	{"ZCOUNT", "big", "(10", "+inf"}, {"ZLEXCOUNT", "small", "[m1", "(m5"},
	{"ZRANGE", "small", "0", "-1", "WITHSCORES"}, {"ZRANGE", "big", "(5", "50", "BYSCORE", "LIMIT", "2", "10"},
	{"ZRANGE", "big", "[m1", "+", "BYLEX", "REV", "LIMIT", "0", "3"}, {"ZREVRANGE", "big", "0", "20"},
	{"ZRANGEBYSCORE", "big", "-inf", "+inf", "LIMIT", "100", "5"}, {"ZREVRANGEBYSCORE", "small", "+inf", "-inf", "WITHSCORES"},
	{"ZRANGEBYLEX", "big", "-", "+", "LIMIT", "0", "4"}, {"ZREVRANGEBYLEX", "small", "+", "-"},
	{"ZRANDMEMBER", "big", "5", "WITHSCORES"}, {"ZRANDMEMBER", "small", "-20"}, {"ZRANDMEMBER", "nokey"},
	{"ZSCORE", "mid", "m77"}, {"ZRANK", "mid", "m40"}, {"ZRANGE", "mid", "(2", "4", "BYSCORE", "REV", "LIMIT", "1", "9"},
	{"ZRANGEBYLEX", "mid", "[m3", "(m5"}, {"ZCOUNT", "mid", "1", "3"}, {"ZMSCORE", "mid", "m1", "x", "m99"},
	{"ZSCAN", "big", "0", "COUNT", "7"}, {"ZSCAN", "small", "0", "MATCH", "m1*"},
	{"TYPE", "small"}, {"TYPE", "list"}, {"TYPE", "nokey"},
	{"TTL", "small"}, {"PTTL", "nokey"}, {"EXPIRETIME", "list"}, {"PEXPIRETIME", "big"},
	{"LLEN", "list"}, {"LLEN", "small"}, {"LINDEX", "list", "-3"}, {"LRANGE", "list", "2", "40"},
	{"LPOS", "list", "v7", "RANK", "-1", "COUNT", "0"}, {"LPOS", "list", "v1", "MAXLEN", "10"},
}

// TestSharedReadsConcurrent runs every shared command from several goroutines at once
// on the same keys, through Do and the typed methods: under -race, any write a
// shared read makes (to the key table, a set's or list's internals, a counter, the
// shard's Tx) is reported. Each deterministic reply must equal the reply of the same
// command run alone.
func TestSharedReadsConcurrent(t *testing.T) {
	ctx := context.Background()
	db := New()
	for i := range 200 {
		m := fmt.Sprintf("m%d", i)
		if i < 10 {
			_, err := db.ZAdd(ctx, "small", Z{Member: m, Score: float64(i % 4)})
			require.NoError(t, err)
		}
		if i < 100 {
			_, err := db.ZAdd(ctx, "mid", Z{Member: m, Score: float64(i % 7)})
			require.NoError(t, err)
		}
		_, err := db.ZAdd(ctx, "big", Z{Member: m, Score: float64(i / 3)})
		require.NoError(t, err)
		_, err = db.RPush(ctx, "list", fmt.Sprintf("v%d", i%13))
		require.NoError(t, err)
	}
	seen := map[string]bool{}
	want := make([]any, len(sharedReadCalls))
	for i, args := range sharedReadCalls {
		seen[strings.ToLower(args[0])] = true
		r, err := db.Do(ctx, args...)
		if err != nil {
			r = err.Error()
		}
		want[i] = r
	}
	for name, c := range commands {
		if c.shared {
			require.True(t, seen[name], "sharedReadCalls has no call of %s", name)
		}
	}
	before := db.Stats().Command["zscore"].Calls

	const goroutines, rounds = 4, 20
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			for range rounds {
				for i, args := range sharedReadCalls {
					r, err := db.Do(ctx, args...)
					if err != nil {
						r = err.Error()
					}
					if args[0] != "ZRANDMEMBER" && fmt.Sprint(r) != fmt.Sprint(want[i]) {
						errs <- fmt.Errorf("goroutine %d: %q = %v; alone it was %v", g, args, r, want[i])
						return
					}
				}
				// The typed methods, generated with the shared lock.
				if s, ok, err := db.ZScore(ctx, "big", "m99"); err != nil || !ok || s != 33 {
					errs <- fmt.Errorf("ZScore(big, m99) = %v, %v, %v; want 33, true", s, ok, err)
					return
				}
				if r, _, err := db.ZRank(ctx, "small", "m9"); err != nil || r != 5 {
					errs <- fmt.Errorf("ZRank(small, m9) = %v, %v; want 5", r, err)
					return
				}
				if vs, err := db.LRange(ctx, "list", 0, 2); err != nil || len(vs) != 3 {
					errs <- fmt.Errorf("LRange(list, 0, 2) = %v, %v; want 3 values", vs, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// The counters of shared reads are exact (atomic adds).
	n := 0
	for _, args := range sharedReadCalls {
		if args[0] == "ZSCORE" {
			n++
		}
	}
	got := db.Stats().Command["zscore"].Calls - before
	require.Equal(t, uint64(goroutines*rounds*(n+1)), got)
}

// TestSharedViews checks that Views share their shards with each other and with
// reads of one key when no key has a TTL, and hold them exclusively otherwise; and
// that concurrent Views, through every read command including those over the whole
// keyspace, with a writer beside them, see consistent replies (and, under -race, write
// nothing).
func TestSharedViews(t *testing.T) {
	ctx := context.Background()
	db := New()
	for i := range 50 {
		_, err := db.ZAdd(ctx, "big", Z{Member: fmt.Sprintf("m%d", i), Score: float64(i)})
		require.NoError(t, err)
		_, err = db.RPush(ctx, "list", fmt.Sprintf("v%d", i))
		require.NoError(t, err)
	}
	require.NoError(t, db.View(func(tx *Tx) error {
		require.True(t, tx.shared, "a View without TTLs is shared")
		// A read of one key, and another View, get in beside it.
		s, ok, err := db.ZScore(ctx, "big", "m7")
		require.NoError(t, err)
		require.True(t, ok && s == 7)
		return db.ViewKeys([]string{"list"}, func(tx *Tx) error {
			require.True(t, tx.shared)
			return nil
		})
	}))

	calls := [][]string{
		{"ZSCORE", "big", "m3"}, {"ZRANGE", "big", "0", "-1", "WITHSCORES"}, {"LRANGE", "list", "0", "-1"},
		{"KEYS", "*"}, {"DBSIZE"}, {"EXISTS", "big", "list", "nokey"}, {"TYPE", "list"},
		{"SCAN", "0", "COUNT", "100"}, {"ZCARD", "big"}, {"LLEN", "list"},
	}
	want := make([]string, len(calls))
	require.NoError(t, db.View(func(tx *Tx) error {
		for i, args := range calls {
			r, err := tx.Do(args...)
			want[i] = fmt.Sprint(r, err)
		}
		return nil
	}))
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 4 {
		wg.Go(func() {
			for range 200 {
				err := db.View(func(tx *Tx) error {
					for i, args := range calls {
						r, err := tx.Do(args...)
						if args[0] == "KEYS" || args[0] == "SCAN" || args[0] == "DBSIZE" {
							continue // the writer's key comes and goes
						}
						if got := fmt.Sprint(r, err); got != want[i] {
							return fmt.Errorf("%q = %s; alone it was %s", args, got, want[i])
						}
					}
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 2000 {
			if _, err := db.LPush(ctx, "w", "x"); err != nil {
				errs <- err
				return
			}
			if i%2 == 0 {
				db.RPop(ctx, "w")
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	_, err := db.PExpire(ctx, "list", time.Hour)
	require.NoError(t, err)
	require.NoError(t, db.View(func(tx *Tx) error {
		require.False(t, tx.shared, "a View over a key with a TTL is exclusive (it may delete the key)")
		return nil
	}))
	require.NoError(t, db.ViewKeys([]string{"big"}, func(tx *Tx) error {
		if db.shardOf("big") != db.shardOf("list") {
			require.True(t, tx.shared, "a View of shards without TTLs stays shared")
		}
		return nil
	}))
}
