package zlite

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

func TestStats(t *testing.T) {
	ctx := context.Background()
	// A fake clock: each reading is 100 ns after the previous one, so every command
	// run by a typed method or Do lasts exactly 100 ns.
	var now time.Time
	clock := func() time.Time { now = now.Add(100 * time.Nanosecond); return now }
	db := New(WithLatencyClock(clock))

	db.ZAdd(ctx, "z", Z{Member: "a", Score: 1}, Z{Member: "b", Score: 2})
	db.ZAddNX(ctx, "z", Z{Member: "c", Score: 3})
	db.RPush(ctx, "l1", "x", "y")
	db.RPush(ctx, "l2", "x")
	db.ZScore(ctx, "z", "a")
	db.Do(ctx, "zscore", "z", "b")
	db.Do(ctx, "ZSCORE", "z", "x", "extra") // an arity error is not counted
	db.Do(ctx, "nosuchcommand")             // an unknown command does not
	db.Update(func(tx *Tx) error {
		tx.Do("LPUSH", "l2", "w")
		return nil
	})

	st := db.Stats()
	require.Equal(t, int64(3), st.Keys)
	require.Equal(t, int64(0), st.Blocked)
	require.Equal(t, int64(1), st.Types["zset"].Keys)
	require.Equal(t, int64(3), st.Types["zset"].Elements)
	require.Equal(t, map[string]int64{"listpack": 1}, st.Types["zset"].Encodings)
	require.Positive(t, st.Types["zset"].Bytes, "zset.Set reports its MemoryUsage")
	require.Equal(t, int64(2), st.Types["list"].Keys)
	require.Equal(t, int64(4), st.Types["list"].Elements)
	require.Equal(t, uint64(2), st.Command["zadd"].Calls, "ZAdd and ZAddNX are ZADD")
	require.Equal(t, uint64(2), st.Command["rpush"].Calls)
	require.Equal(t, uint64(2), st.Command["zscore"].Calls, "typed and Do")
	require.Equal(t, uint64(1), st.Command["lpush"].Calls, "Tx.Do")
	require.Equal(t, uint64(7), st.Commands)
	require.NotContains(t, st.Command, "nosuchcommand")
	calls := db.CommandCalls()
	require.Equal(t, map[string]uint64{"zadd": 2, "rpush": 2, "zscore": 2, "lpush": 1}, calls,
		"CommandCalls counts as Stats does")

	h := st.Command["zadd"].Latency
	require.Equal(t, uint64(2), h.Count())
	require.Equal(t, 200*time.Nanosecond, h.Sum)
	require.Equal(t, uint64(2), h.Counts[7], "100 ns is in [64, 128) ns")
	require.Equal(t, 128*time.Nanosecond, h.Quantile(0.99))
}

func TestStatsNoLatencyByDefault(t *testing.T) {
	ctx := context.Background()
	db := New()
	db.LPush(ctx, "l", "a")
	db.RPop(ctx, "l")
	st := db.Stats()
	require.Equal(t, uint64(1), st.Command["lpush"].Calls)
	require.Equal(t, uint64(1), st.Command["rpop"].Calls)
	require.Zero(t, st.Command["rpop"].Latency.Count())
	require.Empty(t, st.Types)
}

func TestHistogram(t *testing.T) {
	tests := []struct {
		d      time.Duration
		bucket int
	}{
		{-5, 0}, {0, 0}, {1, 1}, {2, 2}, {3, 2}, {4, 3}, {127, 7}, {128, 8},
		{time.Hour, LatencyBuckets - 1}, {1<<63 - 1, LatencyBuckets - 1},
	}
	for _, tt := range tests {
		var h Histogram
		h.record(tt.d)
		require.Equal(t, uint64(1), h.Counts[tt.bucket], "record(%v)", tt.d)
		require.True(t, tt.d < BucketBound(tt.bucket) || tt.bucket == LatencyBuckets-1, "%v < BucketBound(%d)", tt.d, tt.bucket)
	}
	var h Histogram
	require.Zero(t, h.Quantile(0.5))
	for range 99 {
		h.record(10)
	}
	h.record(1000)
	require.Equal(t, 16*time.Nanosecond, h.Quantile(0.5))
	require.Equal(t, 16*time.Nanosecond, h.Quantile(0.99))
	require.Equal(t, 1024*time.Nanosecond, h.Quantile(1))
}

// The typed methods as they were before the counters, for BenchmarkStatsOverhead's
// same-run baseline.
func (db *DB) zscoreUncounted(key, member string) (float64, bool, error) {
	tx := db.lockKey(key)
	defer tx.unlock()
	return tx.ZScore(key, member)
}

func (db *DB) lpushUncounted(key string, values ...string) (int64, error) {
	tx := db.lockKey(key)
	defer tx.unlock()
	return tx.LPush(key, values...)
}

func (db *DB) rpopUncounted(key string) (string, bool, error) {
	tx := db.lockKey(key)
	defer tx.unlock()
	return tx.RPop(key)
}

// BenchmarkStatsOverhead measures the cost of Stats's counters on the cheapest
// commands, in one run: stats=none is the typed method without counting (as before
// Stats), stats=counters the generated method as it is by default, and
// stats=latency the same with WithLatencyTracking (two clock reads more).
func BenchmarkStatsOverhead(b *testing.B) {
	ctx := context.Background()
	ms, _ := benchNames()
	for _, mode := range []string{"none", "counters", "latency"} {
		var opts []Option
		if mode == "latency" {
			opts = append(opts, WithLatencyTracking())
		}
		b.Run("op=ZSCORE/stats="+mode, func(b *testing.B) {
			db := New(opts...)
			for i, m := range ms {
				db.ZAdd(ctx, "k", Z{Member: m, Score: float64(i)})
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if mode == "none" {
					db.zscoreUncounted("k", ms[i%len(ms)])
				} else {
					db.ZScore(ctx, "k", ms[i%len(ms)])
				}
				i++
			}
		})
		b.Run("op=LPUSH+RPOP/stats="+mode, func(b *testing.B) {
			db := New(opts...)
			db.LPush(ctx, "k", "base")
			b.ReportAllocs()
			for b.Loop() {
				if mode == "none" {
					db.lpushUncounted("k", "v")
					db.rpopUncounted("k")
				} else {
					db.LPush(ctx, "k", "v")
					db.RPop(ctx, "k")
				}
			}
		})
	}
}

func TestStatsBlocked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := New()
		done := make(chan string)
		go func() {
			_, v, _, _ := db.BLPop(ctx, 0, "q")
			done <- v
		}()
		synctest.Wait() // the caller is blocked
		st := db.Stats()
		require.Equal(t, int64(1), st.Blocked)
		db.RPush(ctx, "q", "x")
		require.Equal(t, "x", <-done)
		require.Equal(t, int64(0), db.Stats().Blocked)
		st = db.Stats()
		require.Equal(t, uint64(1), st.Command["rpush"].Calls)
		require.Equal(t, uint64(1), st.Command["blpop"].Calls, "typed blocking methods count too")
		db.Do(ctx, "BRPOP", "q", "0.001")
		require.Equal(t, uint64(1), db.Stats().Command["brpop"].Calls)
	})
}

// TestStatsConcurrent reads Stats while other goroutines run commands (run it with
// -race): every command is counted once.
func TestStatsConcurrent(t *testing.T) {
	ctx := context.Background()
	db := New(WithLatencyTracking())
	const workers, ops = 4, 200
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			key := "k" + strconv.Itoa(w)
			for i := range ops {
				if i%2 == 0 {
					db.LPush(ctx, key, "v")
				} else {
					db.Do(ctx, "RPOP", key)
				}
			}
		})
	}
	for range 10 {
		_ = db.Stats()
	}
	wg.Wait()
	st := db.Stats()
	require.Equal(t, uint64(workers*ops), st.Commands)
	require.Equal(t, uint64(workers*ops/2), st.Command["lpush"].Latency.Count())
}

// TestPendingCalls checks the counts a shard keeps on its lock's line (pendingCalls):
// runs of one, two and three interleaved commands, and a slot that fills up, all add
// up exactly in calls once flushed.
func TestPendingCalls(t *testing.T) {
	tests := []struct {
		name  string
		stats []int // run in turn, rounds times
	}{
		{"one", []int{3}},
		{"two", []int{3, 5}},
		{"three", []int{3, 5, 0}},
		{"counter zero", []int{0, 0, 7}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sh := &New(WithShards(1)).shards[0]
			want := make([]uint64, len(sh.calls))
			for range 1000 {
				for _, s := range tc.stats {
					sh.count(s)
					want[s]++
				}
			}
			sh.flushCalls()
			require.Equal(t, want, sh.calls)
			require.Equal(t, pendingCalls{}, sh.pending)
		})
	}
	t.Run("full slot", func(t *testing.T) {
		sh := &New(WithShards(1)).shards[0]
		sh.pending[0] = 4<<pendingShift | (pendingMax - 1)
		for range 3 {
			sh.count(4)
		}
		sh.flushCalls()
		require.Equal(t, uint64(pendingMax+2), sh.calls[4])
	})
}
