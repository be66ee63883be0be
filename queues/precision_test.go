package queues_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

// seedCallScore is the usual recipe's call-queue score: priority·10¹⁰ + (10¹⁰ − t),
// t in fractional Unix seconds, served by ZPOPMAX.
func seedCallScore(priority, t float64) float64 { return priority*1e10 + (1e10 - t) }

// spacing returns the gap between x and the next float64 above it.
func spacing(x float64) float64 { return math.Nextafter(x, math.Inf(1)) - x }

// TestSeedCallScorePrecision backs the numbers in the CallQueue documentation: at a
// Unix time of 1.8·10⁹ s the recipe's packed score orders calls only to the float64
// spacing at its magnitude, which grows with the priority.
func TestSeedCallScorePrecision(t *testing.T) {
	const now = 1.8e9 // Unix seconds: January 2027
	for _, tt := range []struct {
		priorities []float64
		want       float64 // seconds
	}{
		{[]float64{1, 2}, 0x1p-18},       // 3.8 µs
		{[]float64{3, 4, 5, 6}, 0x1p-17}, // 7.6 µs
		{[]float64{7, 12}, 0x1p-16},      // 15 µs
		{[]float64{99}, 0x1p-13},         // 122 µs
		{[]float64{1000}, 0x1p-9},        // 2 ms
		{[]float64{450359}, 0.5},
		{[]float64{450360}, 1},
	} {
		for _, p := range tt.priorities {
			t.Run(fmt.Sprint("priority=", p), func(t *testing.T) {
				if got := spacing(seedCallScore(p, now)); got != tt.want {
					t.Errorf("spacing(score(%v, %v)) = %v s; want %v s", p, now, got, tt.want)
				}
			})
		}
	}
	require.InDelta(t, 3.8e-6, 0x1p-18, 0.05e-6)
	require.InDelta(t, 7.6e-6, 0x1p-17, 0.05e-6)
	require.InDelta(t, 15e-6, 0x1p-16, 0.5e-6)
	require.InDelta(t, 122e-6, 0x1p-13, 0.5e-6)

	// The same holds at today's time, whatever the year, until 2059 (when the score
	// at priority 1 falls below 2³⁴).
	if p1 := spacing(seedCallScore(1, float64(time.Now().UnixMicro())/1e6)); p1 != 0x1p-18 {
		t.Errorf("spacing at priority 1 today = %v s; want 2⁻¹⁸ s", p1)
	}

	// So calls one microsecond apart tie: of 100 arrivals, 1 µs apart at priority 1,
	// at most ⌈100/3.8⌉ + 1 distinct scores remain, and Redis orders the tied ones
	// by member bytes.
	distinct := map[float64]bool{}
	for i := range 100 {
		distinct[seedCallScore(1, now+float64(i)*1e-6)] = true
	}
	if len(distinct) > 28 {
		t.Errorf("100 arrivals 1 µs apart have %d distinct scores; want at most 28", len(distinct))
	}
}

// TestCallQueueKeepsArrivalOrder: what ours keeps instead. Calls enqueued at the same
// microsecond, with ids in reverse byte order, leave in arrival order at any
// priority.
func TestCallQueueKeepsArrivalOrder(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		for _, prio := range []float64{1, 99, 450360, 1e300} {
			q := queues.NewCallQueue(b, qname(t), queues.WithClock(clock.Now))
			var want []string
			for i := 20; i > 0; i-- {
				id := fmt.Sprintf("c%02d", i)
				require.NoError(t, q.Enqueue(ctx, id, prio))
				want = append(want, id)
			}
			calls, err := q.Items(ctx, 0, 100)
			require.NoError(t, err)
			var got []string
			for _, c := range calls {
				require.Equal(t, prio, c.Priority)
				require.True(t, clock.Now().Equal(c.Since), "Since = %v; want %v", c.Since, clock.Now())
				got = append(got, c.ID)
			}
			require.Equal(t, want, got, "priority %v", prio)
		}
	})
}

// TestMicrosExact backs "stored as Unix microseconds, exact in a float64 score until
// the year 2255": 2⁵³ µs after the epoch is in 2255, and every integer up to 2⁵³ is
// a float64.
func TestMicrosExact(t *testing.T) {
	const limit = 1 << 53
	if y := time.UnixMicro(limit).UTC().Year(); y != 2255 {
		t.Errorf("time.UnixMicro(2⁵³).Year() = %d; want 2255", y)
	}
	for _, m := range []int64{limit - 1, limit} {
		if int64(float64(m)) != m {
			t.Errorf("float64(%d) is not exact", m)
		}
	}
	if int64(float64(limit+1)) == limit+1 {
		t.Errorf("float64(2⁵³+1) is exact; want it rounded")
	}
	if now := float64(time.Now().UnixMicro()); spacing(now) > 1 {
		t.Errorf("spacing of today's Unix µs = %v; want at most 1", spacing(now))
	}
}

// TestHistogramBucketWidth backs the Histogram documentation: bounds grow by
// 2^(1/4), so a percentile read from a bucket is within about 19%.
func TestHistogramBucketWidth(t *testing.T) {
	if w := math.Exp2(0.25) - 1; w < 0.189 || w > 0.190 {
		t.Errorf("2^(1/4) − 1 = %v; want about 0.19", w)
	}
	var h queues.Histogram
	for range 100 {
		h.Observe(10 * time.Millisecond)
	}
	s := h.Snapshot()
	require.InEpsilon(t, float64(10*time.Millisecond), float64(s.P50), 0.19)
}
