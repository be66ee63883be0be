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

// freshBase numbers the members of freshMembers, beyond any set's (a variable, so
// that 32-bit platforms build: there the conversion keeps the low bits).
var freshBase uint64 = 1 << 40

func freshMembers(k int) []string {
	out := make([]string, k)
	for i := range out {
		out[i] = member(int(freshBase) + i)
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

// The small encoding against the tree, in the same run: impl=small has Redis's default
// limits, impl=tree limits of 0 entries (always a tree, the encoding before small sets).
var encodings = []struct {
	name string
	lim  zset.Limits
}{{"small", zset.DefaultLimits}, {"tree", zset.Limits{Entries: 0, Value: 64}}}

// smallMember returns the i-th member of the many-small-sets shapes: "member:%07d", 14
// bytes, the shape of the root package's many-keys benchmarks.
func smallMember(i int) string { return fmt.Sprintf("member:%07d", i) }

// BenchmarkSmall runs the core operations on one set of n members (scores 0..n-1) in
// each encoding. Mutating operations are pairs that restore the set (add+remove,
// popmin+add, incr up and down).
func BenchmarkSmall(b *testing.B) {
	ops := []struct {
		name string
		fn   func(b *testing.B, s *zset.Set, ms []string)
	}{
		{"score", func(b *testing.B, s *zset.Set, ms []string) {
			i := 0
			for b.Loop() {
				if _, ok := s.Score(ms[i%len(ms)]); !ok {
					b.Fatal("missing member")
				}
				i += 7
			}
		}},
		{"rank", func(b *testing.B, s *zset.Set, ms []string) {
			i := 0
			for b.Loop() {
				if _, ok := s.Rank(ms[i%len(ms)]); !ok {
					b.Fatal("missing member")
				}
				i += 7
			}
		}},
		{"add-remove", func(b *testing.B, s *zset.Set, ms []string) {
			fresh := smallMember(9_999_999)
			i := 0
			for b.Loop() {
				s.Add(zset.AddOptions{}, zset.Entry{Member: fresh, Score: float64(i % (len(ms) + 1))})
				s.Remove(fresh)
				i += 7
			}
		}},
		{"update", func(b *testing.B, s *zset.Set, ms []string) {
			// A new score for a member (i/len is i's lap, different from the member's
			// score at most laps; score i%len would be the member's own, a no-op).
			i := 0
			for b.Loop() {
				s.Add(zset.AddOptions{}, zset.Entry{Member: ms[i%len(ms)], Score: float64(i / len(ms) % len(ms))})
				i += 7
			}
		}},
		{"incr", func(b *testing.B, s *zset.Set, ms []string) {
			i, d := 0, 1.0
			for b.Loop() {
				s.Incr(ms[i%len(ms)], d)
				if i++; i%len(ms) == 0 {
					d = -d
				}
			}
		}},
		{"popmin-add", func(b *testing.B, s *zset.Set, ms []string) {
			for b.Loop() {
				e, _ := s.PopMin()
				s.Add(zset.AddOptions{}, e)
			}
		}},
		{"range-all", func(b *testing.B, s *zset.Set, ms []string) {
			for b.Loop() {
				if got := s.Range(0, -1); len(got) != len(ms) {
					b.Fatalf("got %d entries", len(got))
				}
			}
		}},
		{"rangebyscore-limit-10", func(b *testing.B, s *zset.Set, ms []string) {
			i := 0
			for b.Loop() {
				s.RangeByScore(zset.ScoreBound{Value: float64(i % len(ms))}, zset.ScoreBound{Value: math.Inf(1)}, 0, 10)
				i += 7
			}
		}},
		{"revrangebyscore-limit-10", func(b *testing.B, s *zset.Set, ms []string) {
			for b.Loop() {
				s.RevRangeByScore(zset.ScoreBound{Value: math.Inf(1)}, zset.ScoreBound{Value: math.Inf(-1)}, 0, 10)
			}
		}},
		{"count", func(b *testing.B, s *zset.Set, ms []string) {
			i := 0
			for b.Loop() {
				s.Count(zset.ScoreBound{Value: float64(i % len(ms))}, zset.ScoreBound{Value: math.Inf(1)})
				i += 7
			}
		}},
		{"all", func(b *testing.B, s *zset.Set, ms []string) {
			for b.Loop() {
				for range s.All() {
				}
			}
		}},
		{"randmember-5", func(b *testing.B, s *zset.Set, ms []string) {
			r := rand.New(rand.NewPCG(6, 6))
			for b.Loop() {
				s.RandMember(r, -5)
			}
		}},
	}
	for _, op := range ops {
		for _, n := range []int{1, 10, 16, 64, 100, 128} {
			for _, enc := range encodings {
				b.Run(fmt.Sprintf("op=%s/n=%d/impl=%s", op.name, n, enc.name), func(b *testing.B) {
					s := zset.NewWithLimits(enc.lim)
					ms := make([]string, n)
					for i := range ms {
						ms[i] = smallMember(i)
						s.Add(zset.AddOptions{}, zset.Entry{Member: ms[i], Score: float64(i)})
					}
					b.ReportAllocs()
					op.fn(b, s, ms)
				})
			}
		}
	}
}

// BenchmarkManySets builds keys sets of n members each, in each encoding, with integral
// (0..n-1) or fractional scores, and reports the Go heap they hold after a forced GC
// (the sets in one []zset.Set, members included, keys not: the keyspace adds its own
// per-key cost) as B/elem and B/key, and the time of a forced GC with them alive as
// gc-ns.
func BenchmarkManySets(b *testing.B) {
	fixMu.Lock()
	clear(fixtures) // only the measured sets alive
	fixMu.Unlock()
	for _, shape := range []struct{ keys, n int }{{100_000, 1}, {100_000, 10}, {10_000, 100}} {
		for _, scores := range []string{"int", "frac"} {
			for _, enc := range encodings {
				b.Run(fmt.Sprintf("keys=%d/n=%d/scores=%s/impl=%s", shape.keys, shape.n, scores, enc.name), func(b *testing.B) {
					members := make([]string, shape.n)
					for i := range members {
						members[i] = smallMember(i)
					}
					r := rand.New(rand.NewPCG(7, 7))
					before := heapInUse()
					sets := make([]zset.Set, shape.keys)
					for k := range sets {
						sets[k].SetLimits(enc.lim)
						for i, m := range members {
							f := float64(i)
							if scores == "frac" {
								f = r.Float64() * 1e6
							}
							sets[k].Add(zset.AddOptions{}, zset.Entry{Member: m, Score: f})
						}
					}
					members = nil
					bytes := float64(heapInUse() - before)
					var gc time.Duration
					runs := 0
					for b.Loop() {
						t0 := time.Now()
						runtime.GC()
						gc += time.Since(t0)
						runs++
					}
					b.ReportMetric(bytes/float64(shape.keys*shape.n), "B/elem")
					b.ReportMetric(bytes/float64(shape.keys), "B/key")
					b.ReportMetric(float64(gc.Nanoseconds())/float64(runs), "gc-ns")
					usage := 0
					for k := range sets {
						usage += sets[k].MemoryUsage()
					}
					b.ReportMetric(float64(usage)/float64(shape.keys), "usage-B/key")
					runtime.KeepAlive(sets)
				})
			}
		}
	}
}

// BenchmarkManySetsOps runs operations on a random set among keys sets of n members, in
// each encoding: the cache behaviour of a keyspace of many small keys, where a hot-cache
// benchmark of one set (BenchmarkSmall) misleads.
func BenchmarkManySetsOps(b *testing.B) {
	ops := []struct {
		name string
		fn   func(s *zset.Set, m string, i int)
	}{
		{"score", func(s *zset.Set, m string, _ int) { s.Score(m) }},
		{"rank", func(s *zset.Set, m string, _ int) { s.Rank(m) }},
		{"update", func(s *zset.Set, m string, i int) {
			s.Add(zset.AddOptions{}, zset.Entry{Member: m, Score: float64(i & 15)})
		}},
		{"range-all", func(s *zset.Set, _ string, _ int) { s.Range(0, -1) }},
		{"popmin-add", func(s *zset.Set, _ string, _ int) {
			e, _ := s.PopMin()
			s.Add(zset.AddOptions{}, e)
		}},
	}
	for _, shape := range []struct{ keys, n int }{{100_000, 1}, {100_000, 10}, {10_000, 100}} {
		for _, enc := range encodings {
			sets := make([]zset.Set, shape.keys)
			members := make([]string, shape.n)
			for i := range members {
				members[i] = smallMember(i)
			}
			for k := range sets {
				sets[k].SetLimits(enc.lim)
				for i, m := range members {
					sets[k].Add(zset.AddOptions{}, zset.Entry{Member: m, Score: float64(i)})
				}
			}
			for _, op := range ops {
				b.Run(fmt.Sprintf("op=%s/keys=%d/n=%d/impl=%s", op.name, shape.keys, shape.n, enc.name), func(b *testing.B) {
					r := rand.New(rand.NewPCG(8, 8))
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						op.fn(&sets[r.IntN(len(sets))], members[r.IntN(len(members))], i)
						i++
					}
				})
			}
		}
	}
}
