package zlite

import (
	"context"
	"testing"
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

// BenchmarkStatsOverhead measures the cost of Stats's counters on the cheapest
// commands: the counters are always on; latency=on adds two clock reads per command.
// Compare latency=off with BenchmarkOverhead's impl=typed of a build before the
// counters for the cost of counting.
func BenchmarkStatsOverhead(b *testing.B) {
	ctx := context.Background()
	for _, lat := range []struct {
		name string
		opts []Option
	}{{"off", nil}, {"on", []Option{WithLatencyTracking()}}} {
		b.Run("op=ZSCORE/latency="+lat.name, func(b *testing.B) {
			db := New(lat.opts...)
			ms, _ := benchNames()
			for i, m := range ms {
				db.ZAdd(ctx, "k", Z{Member: m, Score: float64(i)})
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				db.ZScore(ctx, "k", ms[i%len(ms)])
				i++
			}
		})
		b.Run("op=LPUSH+RPOP/latency="+lat.name, func(b *testing.B) {
			db := New(lat.opts...)
			db.LPush(ctx, "k", "base")
			b.ReportAllocs()
			for b.Loop() {
				db.LPush(ctx, "k", "v")
				db.RPop(ctx, "k")
			}
		})
	}
}
