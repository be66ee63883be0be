package prom_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/metrics/prom"
)

// stepClock is a latency clock that moves on by step at every reading, so that
// every timed command lasts exactly step.
type stepClock struct {
	ns   atomic.Int64
	step time.Duration
}

func (c *stepClock) now() time.Time {
	return time.Unix(0, c.ns.Add(int64(c.step)))
}

// series gathers reg (which must pass Prometheus's lint) and returns every sample
// by `name{label="value",...}` (labels sorted), with a histogram as its
// _count, _sum and _bucket samples.
func series(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	problems, err := testutil.GatherAndLint(reg)
	require.NoError(t, err)
	require.Empty(t, problems)
	mfs, err := reg.Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			key := func(suffix string, extra ...string) string {
				var ls []string
				for _, l := range m.GetLabel() {
					ls = append(ls, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
				}
				ls = append(ls, extra...)
				sort.Strings(ls)
				return mf.GetName() + suffix + "{" + strings.Join(ls, ",") + "}"
			}
			switch mf.GetType() {
			case dto.MetricType_GAUGE:
				out[key("")] = m.GetGauge().GetValue()
			case dto.MetricType_COUNTER:
				out[key("")] = m.GetCounter().GetValue()
			case dto.MetricType_HISTOGRAM:
				h := m.GetHistogram()
				out[key("_count")] = float64(h.GetSampleCount())
				out[key("_sum")] = h.GetSampleSum()
				for _, b := range h.GetBucket() {
					out[key("_bucket", fmt.Sprintf("le=%q", fmt.Sprint(b.GetUpperBound())))] = float64(b.GetCumulativeCount())
				}
			}
		}
	}
	return out
}

// TestDBCollector: the collector reports what the keyspace holds (checked with
// ZCARD, LLEN and OBJECT ENCODING), the keys with a TTL and those expired, the
// blocked callers, the commands run and their latency, under names that pass Prometheus's lint; a type or encoding whose keys
// went away reads 0.
func TestDBCollector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		clk := &stepClock{step: time.Microsecond}
		db := zlite.New(zlite.WithLatencyClock(clk.now))
		big := make([]zlite.Z, 200) // beyond the 128 entries of a listpack
		for i := range big {
			big[i] = zlite.Z{Score: float64(i), Member: fmt.Sprintf("member-%03d", i)}
		}
		_, err := db.ZAdd(ctx, "big", big...)
		require.NoError(t, err)
		_, err = db.ZAdd(ctx, "small", zlite.Z{Score: 1, Member: "a"}, zlite.Z{Score: 2, Member: "b"})
		require.NoError(t, err)
		_, err = db.RPush(ctx, "l1", "a", "b", "c")
		require.NoError(t, err)
		_, err = db.RPush(ctx, "l2", "d", "e")
		require.NoError(t, err)
		_, err = db.RPush(ctx, "tmp", "t")
		require.NoError(t, err)
		for k, ttl := range map[string]time.Duration{"tmp": time.Second, "l1": time.Hour} {
			ok, err := db.Expire(ctx, k, ttl)
			require.NoError(t, err)
			require.True(t, ok)
		}
		time.Sleep(2 * time.Second) // the bubble's clock: tmp's time comes
		n, err := db.Exists(ctx, "tmp")
		require.NoError(t, err)
		require.Zero(t, n)
		bctx, cancel := context.WithCancel(ctx) // ends the caller if the test fails
		defer cancel()
		done := make(chan string, 1)
		go func() {
			_, v, _, _ := db.BLPop(bctx, 0, "q")
			done <- v
		}()
		synctest.Wait() // the caller is blocked

		// The keyspace's own view, by the commands (each counted and timed too).
		var zsetElems, listElems int64
		encodings := map[string]float64{}
		for _, k := range []string{"big", "small"} {
			n, err := db.ZCard(ctx, k)
			require.NoError(t, err)
			zsetElems += n
			enc, ok := db.ObjectEncoding(ctx, k)
			require.True(t, ok)
			encodings[enc]++
		}
		for _, k := range []string{"l1", "l2"} {
			n, err := db.LLen(ctx, k)
			require.NoError(t, err)
			listElems += n
		}
		require.Equal(t, map[string]float64{"listpack": 1, "skiplist": 1}, encodings)

		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(prom.NewDBCollector(db))
		got := series(t, reg)
		st := db.Stats() // nothing ran since the scrape: the same figures
		for name, want := range map[string]float64{
			`zlite_keys{type="zset"}`:                                 2,
			`zlite_keys{type="list"}`:                                 2,
			`zlite_keys_by_encoding{encoding="listpack",type="zset"}`: encodings["listpack"],
			`zlite_keys_by_encoding{encoding="skiplist",type="zset"}`: encodings["skiplist"],
			`zlite_elements{type="zset"}`:                             float64(zsetElems),
			`zlite_elements{type="list"}`:                             float64(listElems),
			`zlite_memory_bytes{type="zset"}`:                         float64(st.Types["zset"].Bytes),
			`zlite_memory_bytes{type="list"}`:                         float64(st.Types["list"].Bytes),
			`zlite_blocked_clients{}`:                                 1,
			`zlite_commands_total{command="zadd"}`:                    2,
			`zlite_expiring_keys{}`:                                   1,
			`zlite_expired_keys_total{}`:                              1,
			`zlite_commands_total{command="rpush"}`:                   3,
			`zlite_commands_total{command="zcard"}`:                   2,
			`zlite_commands_total{command="object"}`:                  2,
			`zlite_commands_total{command="llen"}`:                    2,
			// Every timed call lasted 1 µs: in the bucket [512 ns, 1024 ns).
			`zlite_commands_total{command="expire"}`:                                 2,
			`zlite_command_duration_seconds_count{command="zadd"}`:                   2,
			`zlite_command_duration_seconds_sum{command="zadd"}`:                     2e-6,
			`zlite_command_duration_seconds_bucket{command="zadd",le="5.12e-07"}`:    0,
			`zlite_command_duration_seconds_bucket{command="zadd",le="1.024e-06"}`:   2,
			`zlite_command_duration_seconds_bucket{command="zadd",le="1.073741824"}`: 2,
			`zlite_command_duration_seconds_bucket{command="llen",le="6.4e-08"}`:     0,
			`zlite_command_duration_seconds_count{command="llen"}`:                   2,
		} {
			v, ok := got[name]
			require.True(t, ok, "%s not reported", name)
			require.InDelta(t, want, v, 1e-12, name)
		}
		require.Greater(t, got[`zlite_memory_bytes{type="zset"}`], float64(200*len("member-000")))
		require.Greater(t, got[`zlite_memory_bytes{type="list"}`], 0.0)
		_, ok := got[`zlite_command_duration_seconds_bucket{command="zadd",le="3.2e-08"}`]
		require.False(t, ok, "bucket below 64 ns reported")

		// The small set goes: its encoding reads 0 rather than vanishing.
		_, err = db.Del(ctx, "small")
		require.NoError(t, err)
		got = series(t, reg)
		require.Equal(t, 1.0, got[`zlite_keys{type="zset"}`])
		v, ok := got[`zlite_keys_by_encoding{encoding="listpack",type="zset"}`]
		require.True(t, ok, "emptied encoding not reported")
		require.Equal(t, 0.0, v)
		require.Equal(t, float64(zsetElems-2), got[`zlite_elements{type="zset"}`])

		_, err = db.RPush(ctx, "q", "x")
		require.NoError(t, err)
		require.Equal(t, "x", <-done)
		require.Equal(t, 0.0, series(t, reg)[`zlite_blocked_clients{}`])
	})
}

// TestDBCollectorNoLatency: without latency tracking, the commands are counted but
// no duration histogram is reported; an empty keyspace reports no type.
func TestDBCollectorNoLatency(t *testing.T) {
	db := zlite.New()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(prom.NewDBCollector(db))
	require.Equal(t, map[string]float64{
		`zlite_blocked_clients{}`: 0, `zlite_expiring_keys{}`: 0, `zlite_expired_keys_total{}`: 0,
	}, series(t, reg))

	_, err := db.LPush(context.Background(), "l", "a")
	require.NoError(t, err)
	got := series(t, reg)
	require.Equal(t, 1.0, got[`zlite_commands_total{command="lpush"}`])
	require.Equal(t, 1.0, got[`zlite_keys{type="list"}`])
	for name := range got {
		require.NotContains(t, name, "zlite_command_duration_seconds")
	}
}
