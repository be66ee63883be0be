package zlite

import (
	"slices"
	"testing"
	"time"
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
	slices.Sort(ratios)
	b.ReportMetric(quantile(ratios, 0.5), "x")
	b.ReportMetric(quantile(ratios, 0.25), "x-q1")
	b.ReportMetric(quantile(ratios, 0.75), "x-q3")
}

// quantile returns the q-quantile of the sorted, non-empty xs, interpolating
// linearly between the two nearest ranks.
func quantile(xs []float64, q float64) float64 {
	pos := q * float64(len(xs)-1)
	i := int(pos)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (pos-float64(i))*(xs[i+1]-xs[i])
}

func TestQuantile(t *testing.T) {
	for _, tt := range []struct {
		xs   []float64
		q    float64
		want float64
	}{
		{[]float64{7}, 0.5, 7},
		{[]float64{1, 2, 3, 4, 5}, 0.5, 3},
		{[]float64{1, 2, 3, 4, 5}, 0.25, 2},
		{[]float64{1, 2, 3, 4}, 0.5, 2.5},
		{[]float64{1, 2, 3, 4}, 0.25, 1.75},
		{[]float64{1, 2, 3, 4}, 1, 4},
		{[]float64{1, 2, 3, 4}, 0, 1},
	} {
		if got := quantile(tt.xs, tt.q); got != tt.want {
			t.Errorf("quantile(%v, %v) = %v, want %v", tt.xs, tt.q, got, tt.want)
		}
	}
}
