package bench

import (
	"fmt"
	"math/rand/v2"
	"runtime"

	"golang.org/x/exp/stats"
)

// seed makes every run draw the same data and the same command arguments.
const seed = 20261129

// window is the length of the precomputed argument sequences; batches are slices of it.
const window = 1 << 16

// dataset is the data every system is filled with for one size, and the command
// arguments drawn from it. Scores are a permutation of 0..n-1, so every score is
// distinct and the set is inserted in no particular order.
type dataset struct {
	n       int
	members []string // member i is "member:%08d"
	scores  []float64

	rand     []string  // random existing members (repeats allowed)
	mins     []float64 // random existing scores
	updates  []Z       // random existing members with new scores
	updIdx   []int     // updates[i] is member updIdx[i]
	fresh    []Z       // members not in the set, distinct
	distinct []Z       // distinct existing members with their scores
}

func memberName(i int) string { return fmt.Sprintf("member:%08d", i) }

// scoreOf returns member i's score: i*7919 mod n is a permutation of 0..n-1 for
// n not divisible by 7919 (the sizes used are powers of ten and small counts).
func scoreOf(i, n int) float64 { return float64(i * 7919 % n) }

func newDataset(n int) *dataset {
	d := &dataset{n: n, members: make([]string, n), scores: make([]float64, n)}
	for i := range n {
		d.members[i] = memberName(i)
		d.scores[i] = scoreOf(i, n)
	}
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	d.rand = make([]string, window)
	d.mins = make([]float64, window)
	d.updates = make([]Z, window)
	d.updIdx = make([]int, window)
	d.fresh = make([]Z, window)
	for i := range window {
		d.rand[i] = d.members[r.IntN(n)]
		d.mins[i] = d.scores[r.IntN(n)]
		d.updIdx[i] = r.IntN(n)
		d.updates[i] = Z{Member: d.members[d.updIdx[i]], Score: float64(r.IntN(n)) + 0.5}
		d.fresh[i] = Z{Member: fmt.Sprintf("fresh:%08d", i), Score: float64(r.IntN(n)) + 0.5}
	}
	perm := r.Perm(n)[:min(n, window)]
	d.distinct = make([]Z, len(perm))
	for i, j := range perm {
		d.distinct[i] = Z{Member: d.members[j], Score: d.scores[j]}
	}
	return d
}

// entries returns the whole set as ZADD arguments, in member order.
func (d *dataset) entries() []Z {
	zs := make([]Z, d.n)
	for i := range zs {
		zs[i] = Z{Member: d.members[i], Score: d.scores[i]}
	}
	return zs
}

// originals returns the members of updates[lo:hi] with their original scores.
func (d *dataset) originals(lo, hi int) []Z {
	out := make([]Z, 0, hi-lo)
	for _, j := range d.updIdx[lo:hi] {
		out = append(out, Z{Member: d.members[j], Score: d.scores[j]})
	}
	return out
}

// heapInUse returns the bytes of live Go heap objects after a full collection.
func heapInUse() int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// Spread is the range of the runs behind a figure.
type Spread struct{ Min, Max float64 }

// Relative returns the spread as a fraction of the figure v: (Max-Min)/v, 0 when v
// is not positive.
func (s Spread) Relative(v float64) float64 {
	if !(v > 0) {
		return 0
	}
	return (s.Max - s.Min) / v
}

// set records the figure of system name from its runs: their median, with their
// minimum and maximum as the spread. With no runs it records nothing.
func (row *Row) set(name string, runs []float64) {
	if len(runs) == 0 {
		return
	}
	q := stats.Quantiles(runs, 0, 0.5, 1)
	row.Values[name] = q[1]
	if row.Spread == nil {
		row.Spread = map[string]Spread{}
	}
	row.Spread[name] = Spread{Min: q[0], Max: q[2]}
}

// Uncertain reports whether the ratio of the [Reference]'s figure to peer's could
// point either way: both figures come from several runs and the ranges of those
// runs overlap, so that some run of one system was as good as some run of the
// other. A ratio that is not uncertain is one where every run of one system beat
// every run of the other, in rounds where they took turns. Figures without a
// spread (single measurements, such as memory) are never uncertain.
func (row *Row) Uncertain(peer string) bool {
	a, okA := row.Spread[Reference]
	b, okB := row.Spread[peer]
	if !okA || !okB || a.Max == a.Min && b.Max == b.Min {
		return false
	}
	return a.Min <= b.Max && b.Min <= a.Max
}

// anyUncertain reports whether the ratio to some peer of peers is [Row.Uncertain].
func (row *Row) anyUncertain(peers []string) bool {
	for _, p := range peers {
		if row.Uncertain(p) {
			return true
		}
	}
	return false
}
