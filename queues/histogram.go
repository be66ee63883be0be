package queues

import (
	"math"
	"sync/atomic"
	"time"
)

// Histogram is a fixed-bucket histogram of durations (the lateness of delayed jobs),
// safe for concurrent use. Observe costs a few atomic operations and allocates
// nothing, so it stays on in production; its memory is fixed (about 1 KiB).
//
// Bucket bounds grow by a factor 2^(1/4) from 1 µs to 2^32 µs (71 min): a percentile
// read from it is exact to within one bucket, about 19%, while [LatenessStats.Max]
// and the count and sum are exact. Fixed buckets rather than stored samples (which
// golang.org/x/exp/stats would need for exact percentiles) because recording must be
// O(1) and lock-free on the pop path, memory must not grow with traffic, and the
// buckets export as they are to a Prometheus histogram.
//
// The zero value is an empty histogram ready to use.
type Histogram struct {
	counts [histBuckets]atomic.Uint64
	sum    atomic.Int64 // nanoseconds
	max    atomic.Int64 // nanoseconds
}

const (
	histSub     = 4  // buckets per doubling
	histOctaves = 32 // 1 µs … 2^32 µs
	histBuckets = histOctaves*histSub + 1
)

// histBound returns the upper bound of bucket i: 2^(i/4) µs.
func histBound(i int) time.Duration {
	return time.Duration(math.Exp2(float64(i)/histSub) * float64(time.Microsecond))
}

// Observe records d; a negative d counts as 0. The complexity is O(1).
func (h *Histogram) Observe(d time.Duration) {
	d = max(d, 0)
	i := 0
	if d > time.Microsecond {
		i = min(int(math.Ceil(math.Log2(float64(d)/float64(time.Microsecond))*histSub)), histBuckets-1)
	}
	h.counts[i].Add(1)
	h.sum.Add(int64(d))
	for m := h.max.Load(); int64(d) > m && !h.max.CompareAndSwap(m, int64(d)); m = h.max.Load() {
	}
}

// LatenessStats is a snapshot of a [Histogram].
type LatenessStats struct {
	Count uint64        `json:"count"`
	Sum   time.Duration `json:"sum_ns"`
	Max   time.Duration `json:"max_ns"`
	P50   time.Duration `json:"p50_ns"` // estimated within one bucket (19%)
	P99   time.Duration `json:"p99_ns"` // estimated within one bucket (19%)
	// Buckets holds cumulative counts at the powers of two from 1 µs to 2^32 µs
	// (33 bounds, always the same ones); observations beyond the last bound are
	// counted only in Count, as in a Prometheus histogram's +Inf bucket.
	Buckets []Bucket `json:"buckets"`
}

// Bucket is one cumulative bucket of a [LatenessStats]: Count observations were at
// most UpperBound.
type Bucket struct {
	UpperBound time.Duration `json:"le_ns"`
	Count      uint64        `json:"count"`
}

// Snapshot returns the histogram's current counts and estimated percentiles.
// Concurrent observations may or may not be included. The complexity is O(buckets).
func (h *Histogram) Snapshot() LatenessStats {
	var counts [histBuckets]uint64
	var s LatenessStats
	for i := range counts {
		counts[i] = h.counts[i].Load()
		s.Count += counts[i]
	}
	s.Sum, s.Max = time.Duration(h.sum.Load()), time.Duration(h.max.Load())
	s.P50, s.P99 = histQuantile(&counts, s.Count, 0.5, s.Max), histQuantile(&counts, s.Count, 0.99, s.Max)
	s.Buckets = make([]Bucket, 0, histOctaves+1)
	var cum uint64
	for i, c := range counts {
		cum += c
		if i%histSub == 0 {
			s.Buckets = append(s.Buckets, Bucket{histBound(i), cum})
		}
	}
	return s
}

// histQuantile estimates the q-quantile by linear interpolation inside the bucket
// that holds it, capped at the exact maximum.
func histQuantile(counts *[histBuckets]uint64, total uint64, q float64, maxSeen time.Duration) time.Duration {
	if total == 0 {
		return 0
	}
	rank := q * float64(total)
	var cum float64
	for i, c := range counts {
		if c == 0 || cum+float64(c) < rank {
			cum += float64(c)
			continue
		}
		lo, hi := time.Duration(0), histBound(i)
		if i > 0 {
			lo = histBound(i - 1)
		}
		est := lo + time.Duration((rank-cum)/float64(c)*float64(hi-lo))
		return min(est, maxSeen)
	}
	return maxSeen
}
