package metrics_test

import (
	"context"
	"encoding/json"
	"expvar"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/metrics"
)

// TestDBVar: the Var's JSON, read from /debug/vars, decodes back into the DB's
// Stats, with snake_case names and a latency only when it is tracked.
func TestDBVar(t *testing.T) {
	var ns atomic.Int64 // a latency clock at which every command lasts 1 µs
	clock := func() time.Time { return time.Unix(0, ns.Add(int64(time.Microsecond))) }
	ctx := context.Background()
	tracked := zlite.New(zlite.WithLatencyClock(clock))
	plain := zlite.New()
	for _, db := range []*zlite.DB{tracked, plain} {
		_, err := db.ZAdd(ctx, "z", zlite.Z{Score: 1, Member: "a"}, zlite.Z{Score: 2, Member: "b"})
		require.NoError(t, err)
		_, err = db.RPush(ctx, "l", "x")
		require.NoError(t, err)
	}
	expvar.Publish("zlite_test_tracked", metrics.DBVar(tracked))
	expvar.Publish("zlite_test_plain", metrics.DBVar(plain))

	rec := httptest.NewRecorder()
	expvar.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/debug/vars", nil))
	var vars map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &vars))

	for _, tc := range []struct {
		name string
		db   *zlite.DB
	}{{"zlite_test_tracked", tracked}, {"zlite_test_plain", plain}} {
		t.Run(tc.name, func(t *testing.T) {
			raw, ok := vars[tc.name]
			require.True(t, ok, "%s not in /debug/vars", tc.name)
			var got zlite.Stats
			require.NoError(t, json.Unmarshal(raw, &got))
			require.Equal(t, tc.db.Stats(), got)
			require.Equal(t, int64(2), got.Types["zset"].Elements)
			require.Equal(t, int64(1), got.Types["zset"].Encodings["listpack"])
			require.Equal(t, uint64(1), got.Command["zadd"].Calls)

			var doc struct {
				Keys    int64 `json:"keys"`
				Command map[string]map[string]json.RawMessage
			}
			require.NoError(t, json.Unmarshal(raw, &doc))
			require.Equal(t, int64(2), doc.Keys)
			_, hasLatency := doc.Command["zadd"]["latency"]
			require.Equal(t, tc.db == tracked, hasLatency, "latency in %s", raw)
		})
	}
	h := tracked.Stats().Command["zadd"].Latency
	require.Equal(t, time.Microsecond, h.Sum)
	require.Equal(t, 1024*time.Nanosecond, h.Quantile(0.5))
}
