package zset_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/google/btree"

	"github.com/zlite/zlite/zset"
)

// The baseline: google/btree ordered by (score, member) plus a map for member lookups,
// doing the same inserts and deletes; rank is computed by iteration, as without counts.
type btItem struct {
	score  float64
	member string
}

func btLess(a, b btItem) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.member < b.member
}

type baseline struct {
	t *btree.BTreeG[btItem]
	m map[string]float64
}

func newBaseline() *baseline {
	return &baseline{t: btree.NewG(32, btLess), m: map[string]float64{}}
}

func (b *baseline) add(member string, score float64) {
	if old, ok := b.m[member]; ok {
		if old == score {
			return
		}
		b.t.Delete(btItem{old, member})
	}
	b.m[member] = score
	b.t.ReplaceOrInsert(btItem{score, member})
}

func (b *baseline) remove(member string) {
	if old, ok := b.m[member]; ok {
		delete(b.m, member)
		b.t.Delete(btItem{old, member})
	}
}

func (b *baseline) revRank(member string) (int, bool) {
	score, ok := b.m[member]
	if !ok {
		return 0, false
	}
	r := 0
	b.t.DescendGreaterThan(btItem{score, member}, func(btItem) bool { r++; return true })
	return r, true
}

func (b *baseline) rangeFrom(min float64, offset, count int) []zset.Entry {
	out := make([]zset.Entry, 0, count)
	b.t.AscendGreaterOrEqual(btItem{min, ""}, func(it btItem) bool {
		if offset > 0 {
			offset--
			return true
		}
		out = append(out, zset.Entry{Member: it.member, Score: it.score})
		return len(out) < count
	})
	return out
}

func (b *baseline) popMax() {
	if it, ok := b.t.DeleteMax(); ok {
		delete(b.m, it.member)
	}
}

// member returns the i-th benchmark member: 16 bytes.
func member(i int) string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], uint64(i)*0x9E3779B97F4A7C15)
	binary.LittleEndian.PutUint64(b[8:], uint64(i))
	return string(b[:])
}

type fixture struct {
	n      int
	z      *zset.Set
	bt     *baseline
	scores []float64
}

var (
	fixMu    sync.Mutex
	fixtures = map[int]*fixture{}
)

// getFixture builds (once per n) a zlite set and a baseline holding members 0..n-1 with
// random scores, inserted in random order. Benchmarks restore whatever they change.
func getFixture(n int) *fixture {
	fixMu.Lock()
	defer fixMu.Unlock()
	if f := fixtures[n]; f != nil {
		return f
	}
	r := rand.New(rand.NewPCG(1, uint64(n)))
	f := &fixture{n: n, z: zset.New(), bt: newBaseline(), scores: make([]float64, n)}
	for _, i := range r.Perm(n) {
		f.scores[i] = r.Float64() * 1e6
		m := member(i)
		f.z.Add(zset.AddOptions{}, zset.Entry{Member: m, Score: f.scores[i]})
		f.bt.add(m, f.scores[i])
	}
	fixtures[n] = f
	return f
}

var sizes = []int{1_000, 100_000, 1_000_000}

// run runs body for each size and implementation as op=.../n=.../impl=....
func run(b *testing.B, op string, z func(b *testing.B, f *fixture), bt func(b *testing.B, f *fixture)) {
	for _, n := range sizes {
		for _, impl := range []string{"zlite", "btree"} {
			fn := z
			if impl == "btree" {
				fn = bt
			}
			if fn == nil {
				continue
			}
			b.Run(fmt.Sprintf("op=%s/n=%d/impl=%s", op, n, impl), func(b *testing.B) {
				f := getFixture(n)
				b.ReportAllocs()
				fn(b, f)
			})
		}
	}
}

// batch is how many entries a mutating benchmark changes before it restores the set
// (with the timer stopped), so that the size stays near n.
func batch(n int) int { return min(n/10, 1000) }

func BenchmarkAdd(b *testing.B) {
	// New members: add a batch of fresh members, then remove them untimed.
	run(b, "new", func(b *testing.B, f *fixture) {
		k := batch(f.n)
		fresh := freshMembers(k)
		i := 0
		for b.Loop() {
			f.z.Add(zset.AddOptions{}, zset.Entry{Member: fresh[i], Score: float64(i) * 997})
			if i++; i == k {
				b.StopTimer()
				f.z.Remove(fresh...)
				i = 0
				b.StartTimer()
			}
		}
		f.z.Remove(fresh[:i]...)
	}, func(b *testing.B, f *fixture) {
		k := batch(f.n)
		fresh := freshMembers(k)
		i := 0
		for b.Loop() {
			f.bt.add(fresh[i], float64(i)*997)
			if i++; i == k {
				b.StopTimer()
				for _, m := range fresh {
					f.bt.remove(m)
				}
				i = 0
				b.StartTimer()
			}
		}
		for _, m := range fresh[:i] {
			f.bt.remove(m)
		}
	})
	// Updates: give existing members a new random score.
	run(b, "update", func(b *testing.B, f *fixture) {
		r := rand.New(rand.NewPCG(2, 2))
		ms := picks(f, 4096)
		i := 0
		for b.Loop() {
			f.z.Add(zset.AddOptions{}, zset.Entry{Member: ms[i&4095], Score: r.Float64() * 1e6})
			i++
		}
	}, func(b *testing.B, f *fixture) {
		r := rand.New(rand.NewPCG(2, 2))
		ms := picks(f, 4096)
		i := 0
		for b.Loop() {
			f.bt.add(ms[i&4095], r.Float64()*1e6)
			i++
		}
	})
}

func freshMembers(k int) []string {
	out := make([]string, k)
	for i := range out {
		out[i] = member(1<<40 + i)
	}
	return out
}

// picks returns k random existing members, built before timing.
func picks(f *fixture, k int) []string {
	r := rand.New(rand.NewPCG(3, uint64(f.n)))
	out := make([]string, k)
	for i := range out {
		out[i] = member(r.IntN(f.n))
	}
	return out
}

func BenchmarkRemove(b *testing.B) {
	run(b, "remove", func(b *testing.B, f *fixture) {
		ms := picks(f, batch(f.n))
		saved := make([]zset.Entry, len(ms))
		i := 0
		for b.Loop() {
			if i == 0 {
				b.StopTimer()
				for j, m := range ms {
					sc, _ := f.z.Score(m)
					saved[j] = zset.Entry{Member: m, Score: sc}
				}
				b.StartTimer()
			}
			f.z.Remove(ms[i])
			if i++; i == len(ms) {
				b.StopTimer()
				f.z.Add(zset.AddOptions{}, saved...)
				i = 0
				b.StartTimer()
			}
		}
		f.z.Add(zset.AddOptions{}, saved[:i]...)
	}, func(b *testing.B, f *fixture) {
		ms := picks(f, batch(f.n))
		saved := make([]float64, len(ms))
		i := 0
		for b.Loop() {
			if i == 0 {
				b.StopTimer()
				for j, m := range ms {
					saved[j] = f.bt.m[m]
				}
				b.StartTimer()
			}
			f.bt.remove(ms[i])
			if i++; i == len(ms) {
				b.StopTimer()
				for j, m := range ms {
					f.bt.add(m, saved[j])
				}
				i = 0
				b.StartTimer()
			}
		}
		for j, m := range ms[:i] {
			f.bt.add(m, saved[j])
		}
	})
}

func BenchmarkScore(b *testing.B) {
	run(b, "score", func(b *testing.B, f *fixture) {
		ms := picks(f, 4096)
		i := 0
		for b.Loop() {
			if _, ok := f.z.Score(ms[i&4095]); !ok {
				b.Fatal("missing member")
			}
			i++
		}
	}, func(b *testing.B, f *fixture) {
		ms := picks(f, 4096)
		i := 0
		for b.Loop() {
			if _, ok := f.bt.m[ms[i&4095]]; !ok {
				b.Fatal("missing member")
			}
			i++
		}
	})
}

func BenchmarkRevRank(b *testing.B) {
	run(b, "revrank", func(b *testing.B, f *fixture) {
		ms := picks(f, 4096)
		i := 0
		for b.Loop() {
			if _, ok := f.z.RevRank(ms[i&4095]); !ok {
				b.Fatal("missing member")
			}
			i++
		}
	}, func(b *testing.B, f *fixture) {
		ms := picks(f, 4096)
		i := 0
		for b.Loop() {
			if _, ok := f.bt.revRank(ms[i&4095]); !ok {
				b.Fatal("missing member")
			}
			i++
		}
	})
}

// BenchmarkRangeByScore reads ZRANGEBYSCORE min +inf LIMIT offset count from a random
// min (limit-*), from -inf (limit-0-1-head, as a fixed-range redis-benchmark run does)
// and from the middle of the set by offset (offset-half-10: LIMIT n/2 10 from -inf).
func BenchmarkRangeByScore(b *testing.B) {
	inf := zset.ScoreBound{Value: math.Inf(1)}
	for _, c := range []struct {
		name          string
		offset, count int
		fromMid       bool
	}{
		{"limit-0-1-head", 0, 1, false},
		{"limit-0-1", 0, 1, false},
		{"limit-0-10", 0, 10, false},
		{"limit-0-100", 0, 100, false},
		{"offset-half-10", -1, 10, true},
	} {
		run(b, c.name, func(b *testing.B, f *fixture) {
			r := rand.New(rand.NewPCG(4, 4))
			for b.Loop() {
				min, off := zset.ScoreBound{Value: r.Float64() * 5e5}, c.offset
				if c.name == "limit-0-1-head" {
					min = zset.ScoreBound{Value: math.Inf(-1)}
				}
				if c.fromMid {
					min, off = zset.ScoreBound{Value: math.Inf(-1)}, f.n/2
				}
				if got := f.z.RangeByScore(min, inf, off, c.count); len(got) != c.count {
					b.Fatalf("got %d entries", len(got))
				}
			}
		}, func(b *testing.B, f *fixture) {
			r := rand.New(rand.NewPCG(4, 4))
			for b.Loop() {
				min, off := r.Float64()*5e5, c.offset
				if c.name == "limit-0-1-head" {
					min = math.Inf(-1)
				}
				if c.fromMid {
					min, off = math.Inf(-1), f.n/2
				}
				if got := f.bt.rangeFrom(min, off, c.count); len(got) != c.count {
					b.Fatalf("got %d entries", len(got))
				}
			}
		})
	}
}

func BenchmarkPopMax(b *testing.B) {
	run(b, "popmax", func(b *testing.B, f *fixture) {
		k := batch(f.n)
		var popped []zset.Entry
		for b.Loop() {
			e, _ := f.z.PopMax()
			popped = append(popped, e)
			if len(popped) == k {
				b.StopTimer()
				f.z.Add(zset.AddOptions{}, popped...)
				popped = popped[:0]
				b.StartTimer()
			}
		}
		f.z.Add(zset.AddOptions{}, popped...)
	}, func(b *testing.B, f *fixture) {
		k := batch(f.n)
		var popped []btItem
		for b.Loop() {
			it, _ := f.bt.t.Max()
			f.bt.popMax()
			popped = append(popped, it)
			if len(popped) == k {
				b.StopTimer()
				for _, it := range popped {
					f.bt.add(it.member, it.score)
				}
				popped = popped[:0]
				b.StartTimer()
			}
		}
		for _, it := range popped {
			f.bt.add(it.member, it.score)
		}
	})
}

// BenchmarkMemory builds a fresh set of 1e6 16-byte members (random order, random scores)
// and reports the Go heap in use after a forced GC divided by n (member strings
// included) as B/elem, and the time of a forced GC with the set alive as gc-ns (also the
// ns/op of the loop).
func BenchmarkMemory(b *testing.B) {
	const n = 1_000_000
	// Drop the other benchmarks' cached sets so that only the measured one is alive.
	fixMu.Lock()
	clear(fixtures)
	fixMu.Unlock()
	for _, impl := range []string{"zlite", "btree"} {
		b.Run(fmt.Sprintf("n=%d/impl=%s", n, impl), func(b *testing.B) {
			r := rand.New(rand.NewPCG(5, 5))
			order := r.Perm(n)
			before := heapInUse()
			var z *zset.Set
			var bt *baseline
			if impl == "zlite" {
				z = zset.New()
				for _, i := range order {
					z.Add(zset.AddOptions{}, zset.Entry{Member: member(i), Score: r.Float64() * 1e6})
				}
			} else {
				bt = newBaseline()
				for _, i := range order {
					bt.add(member(i), r.Float64()*1e6)
				}
			}
			order = nil
			bytes := float64(heapInUse()-before) / n
			var gc time.Duration
			runs := 0
			for b.Loop() {
				t0 := time.Now()
				runtime.GC()
				gc += time.Since(t0)
				runs++
			}
			b.ReportMetric(bytes, "B/elem")
			b.ReportMetric(float64(gc.Nanoseconds())/float64(runs), "gc-ns")
			runtime.KeepAlive(z)
			runtime.KeepAlive(bt)
		})
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}
