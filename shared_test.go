package zlite

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zlite/zlite/internal/serverapi"

	"github.com/stretchr/testify/require"
)

// TestSharedReadsMarked checks which commands the command table marks shared (a
// pipeline of them runs under its shard's lock shared with other reads): reads of
// one key only.
func TestSharedReadsMarked(t *testing.T) {
	for name, c := range commands {
		if c.shared {
			require.False(t, c.write, "%s is shared and a write", name)
			require.Equal(t, keySpec{}, c.keys, "%s is shared but names keys other than args[1]", name)
		}
	}
	for _, name := range []string{"zscore", "zrange", "lrange", "ttl", "type"} {
		require.True(t, commands[name].shared, "%s must be shared", name)
	}
	for _, name := range []string{"zadd", "lpush", "del", "exists", "zunion", "blpop", "expire", "keys"} {
		require.False(t, commands[name].shared, "%s must not be shared", name)
	}
}

// TestSharedReadsRunTogether checks that a batch of reads of shards without a TTL
// shares them with another (an exclusive lock would wait for the holder, and the
// test would hang), and that a batch over a key with a TTL takes its shard
// exclusively and deletes the key once it is due, as Redis's reads do.
func TestSharedReadsRunTogether(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1_700_000_000, 0)
	db := New(WithClock(func() time.Time { return now }))
	ks := keysInShards(db, 2)
	z, tk := ks[0], ks[1]
	_, err := db.ZAdd(ctx, z, Z{Member: "a", Score: 1})
	require.NoError(t, err)
	_, err = db.ZAdd(ctx, tk, Z{Member: "a", Score: 1})
	require.NoError(t, err)
	_, err = db.PExpire(ctx, tk, 10*time.Millisecond)
	require.NoError(t, err)

	require.NoError(t, db.ViewKeys([]string{z}, func(tx *Tx) error {
		require.True(t, tx.shared, "a View of a shard without TTLs is shared")
		readers, writer := tx.home.mu.Holders()
		require.Equal(t, 1, readers, "one reader inside")
		require.False(t, writer, "no writer")
		res := make([]serverapi.Result, 2)
		doPipelined(ctx, db, [][]string{{"ZSCORE", z, "a"}, {"ZRANGE", z, "0", "-1"}}, res, nil)
		require.Equal(t, []serverapi.Result{{Value: "1"}, {Value: []any{"a"}}}, res)
		return nil
	}))
	require.NoError(t, db.ViewKeys([]string{tk}, func(tx *Tx) error {
		require.False(t, tx.shared, "a View of a key with a TTL is exclusive (it may delete the key)")
		return nil
	}))

	now = now.Add(time.Second)
	sh := &db.shards[db.shardOf(tk)]
	_, ok := sh.keys.Find(tk)
	require.True(t, ok, "the due key is still in the table before the read")
	require.NoError(t, db.ViewKeys([]string{tk}, func(tx *Tx) error {
		_, ok, err := tx.ZScore(tk, "a")
		require.NoError(t, err)
		require.False(t, ok)
		return nil
	}))
	_, ok = sh.keys.Find(tk)
	require.False(t, ok, "the read deleted the due key")
}

// sharedReadCalls are calls of every shared command on keys of every kind: a small
// sorted set, one with a member index (more than 16 members), a large one, a list, a
// string, a missing key and keys of the wrong type.
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
	{"GET", "str"}, {"GET", "list"}, {"GET", "nokey"}, {"STRLEN", "str"}, {"STRLEN", "small"},
	{"GETRANGE", "str", "2", "-3"}, {"SUBSTR", "str", "-5", "-1"}, {"GETRANGE", "list", "0", "1"},
	{"GETBIT", "str", "13"}, {"GETBIT", "list", "1"}, {"BITCOUNT", "str"}, {"BITCOUNT", "str", "3", "-2", "BIT"}, {"BITPOS", "str", "0"}, {"BITPOS", "str", "1", "2", "-1"},
	{"HGET", "hash", "f3"}, {"HGET", "bighash", "f150"}, {"HMGET", "hash", "f1", "nope"}, {"HEXISTS", "bighash", "f9"}, {"HLEN", "hash"},
	{"HSTRLEN", "bighash", "f42"}, {"HGETALL", "hash"}, {"HKEYS", "bighash"}, {"HVALS", "hash"}, {"HGET", "list", "f"},
	{"HRANDFIELD", "bighash", "-5", "WITHVALUES"}, {"HRANDFIELD", "hash", "3"}, {"HRANDFIELD", "bighash"},
	{"HSCAN", "bighash", "0", "COUNT", "20"}, {"HSCAN", "hash", "0", "MATCH", "f1*"},
	{"SISMEMBER", "ints", "7"}, {"SISMEMBER", "bigset", "m77"}, {"SMISMEMBER", "set", "m1", "x"}, {"SCARD", "bigset"},
	{"SMEMBERS", "ints"}, {"SMEMBERS", "set"}, {"SRANDMEMBER", "bigset", "-4"}, {"SRANDMEMBER", "set", "2"}, {"SRANDMEMBER", "ints"},
	{"SSCAN", "bigset", "0", "COUNT", "15"}, {"SSCAN", "ints", "0"}, {"SCARD", "list"},
	{"BITFIELD_RO", "str", "GET", "u8", "3", "GET", "i5", "#7"}, {"BITFIELD_RO", "nokey", "GET", "i64", "0"},
}

// TestSharedReadsConcurrent runs every shared command from several goroutines at once
// on the same keys, in pipelines of reads and in Views, which share their shards:
// under -race, any write a shared read makes (to the key table, a set's or list's
// internals, a counter, the shard's Tx) is reported. Each deterministic reply must
// equal the reply of the same command run alone.
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
	_, err := db.Append(ctx, "str", "a string of some length")
	require.NoError(t, err)
	for i := range 1000 {
		f := fmt.Sprintf("f%d", i)
		if i < 10 {
			_, err = db.HSet(ctx, "hash", f, "v")
			require.NoError(t, err)
			_, err = db.SAdd(ctx, "set", fmt.Sprintf("m%d", i))
			require.NoError(t, err)
			_, err = db.SAdd(ctx, "ints", fmt.Sprint(i))
			require.NoError(t, err)
		}
		_, err = db.HSet(ctx, "bighash", f, fmt.Sprint(i))
		require.NoError(t, err)
		_, err = db.SAdd(ctx, "bigset", fmt.Sprintf("m%d", i))
		require.NoError(t, err)
	}
	seen := map[string]bool{}
	want := make([]string, len(sharedReadCalls))
	for i, args := range sharedReadCalls {
		seen[strings.ToLower(args[0])] = true
		r, err := db.Do(ctx, args...)
		want[i] = fmt.Sprint(serverapi.Result{Value: r, Err: err})
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
	check := func(args []string, got, want string) error {
		if !strings.Contains(args[0], "RAND") && got != want {
			return fmt.Errorf("%q = %v; alone it was %v", args, got, want)
		}
		return nil
	}
	for range goroutines {
		wg.Go(func() {
			res := make([]serverapi.Result, 2)
			for range rounds {
				for i, args := range sharedReadCalls {
					doPipelined(ctx, db, [][]string{args, args}, res, nil)
					for _, r := range res {
						if err := check(args, fmt.Sprint(r), want[i]); err != nil {
							errs <- err
							return
						}
					}
				}
				err := db.View(func(tx *Tx) error {
					for i, args := range sharedReadCalls {
						r, err := tx.Do(args...)
						if err := check(args, fmt.Sprint(serverapi.Result{Value: r, Err: err}), want[i]); err != nil {
							return err
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
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// The counters of shared reads are exact (atomic adds): each ZSCORE ran twice in
	// its pipeline and once in the View of every round.
	n := 0
	for _, args := range sharedReadCalls {
		if args[0] == "ZSCORE" {
			n++
		}
	}
	got := db.Stats().Command["zscore"].Calls - before
	require.Equal(t, uint64(goroutines*rounds*3*n), got)
}

// TestSharedViews checks that Views share their shards with each other and with
// pipelines of reads when no key has a TTL, and hold them exclusively otherwise; and
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
		// A pipeline of reads, and another View, get in beside it.
		res := make([]serverapi.Result, 2)
		doPipelined(ctx, db, [][]string{{"ZSCORE", "big", "m7"}, {"ZCARD", "big"}}, res, nil)
		require.Equal(t, []serverapi.Result{{Value: "7"}, {Value: int64(50)}}, res)
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
