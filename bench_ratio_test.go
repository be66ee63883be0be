package zlite

import (
	"testing"
	"time"

	"golang.org/x/exp/stats"
)

// sliceTime is the wall time reportRatios aims at for each slice of its first side.
const sliceTime = 10 * time.Millisecond

// reportRatios compares two ways of doing the same work within one run, for a host
// whose speed drifts by 2x over minutes: one iteration of b runs a for n operations,
// then c for the same n, and takes the ratio of their wall times, with n chosen
// first so that a's slice takes about sliceTime. It reports the median ratio (a's
// time over c's) as x and the quartiles as x-q1 and x-q3; ns/op is the time of a
// pair of slices. Run it with -benchtime Nx for N pairs.
func reportRatios(b *testing.B, a, c func(n int) time.Duration) {
	n := 1000
	for a(n) < sliceTime {
		n *= 2
	}
	ratios := make([]float64, 0, b.N)
	b.ResetTimer()
	for range b.N {
		ta := a(n)
		ratios = append(ratios, float64(ta)/float64(c(n)))
	}
	b.StopTimer()
	q := stats.Quantiles(ratios, 0.25, 0.5, 0.75)
	b.ReportMetric(q[1], "x")
	b.ReportMetric(q[0], "x-q1")
	b.ReportMetric(q[2], "x-q3")
}
