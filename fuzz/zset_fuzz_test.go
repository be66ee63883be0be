package fuzz

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/zlite/zlite/zset"
)

// zmodel is the reference sorted set: a map, sorted on every read.
type zmodel map[string]float64

func cmpEntry(a, b zset.Entry) int {
	if a.Score != b.Score { // -0 and 0 are equal scores, as in Redis
		return cmp.Compare(a.Score, b.Score)
	}
	return strings.Compare(a.Member, b.Member)
}

func (m zmodel) sorted() []zset.Entry {
	out := make([]zset.Entry, 0, len(m))
	for k, v := range m {
		out = append(out, zset.Entry{Member: k, Score: v})
	}
	slices.SortFunc(out, cmpEntry)
	return out
}

// zeroSigns copies the sign of each zero score from s: a small set stores -0 as 0, as
// Redis's listpack does, while a tree keeps -0, and which encoding held a member when
// it was written is the zset package's model test's business (TestNegativeZero and
// its encoding model). This target checks everything else exactly, the sign of every
// other score and of the scores Incr and AddIncr return included.
func (m zmodel) zeroSigns(s *zset.Set) {
	for k, v := range m {
		if v != 0 {
			continue
		}
		if sc, ok := s.Score(k); ok && sc == 0 {
			m[k] = sc
		}
	}
}

// sameScores reports whether every member has the same score, the only case in which
// lexicographic ranges are defined.
func (m zmodel) sameScores() bool {
	first, set := 0.0, false
	for _, v := range m {
		if set && v != first {
			return false
		}
		first, set = v, true
	}
	return true
}

// add applies ZADD's rules to one member; it returns whether the member is new and
// whether an existing score changed.
func (m zmodel) add(o zset.AddOptions, member string, score float64) (added, changed bool) {
	cur, ok := m[member]
	switch {
	case ok && o.NX, !ok && o.XX:
		return false, false
	case !ok:
		m[member] = score
		return true, false
	case o.GT && score <= cur, o.LT && score >= cur, score == cur:
		return false, false
	}
	m[member] = score
	return false, true
}

func validOpts(o zset.AddOptions) error {
	if o.NX && o.XX {
		return zset.ErrXXAndNX
	}
	if o.NX && (o.GT || o.LT) || o.GT && o.LT {
		return zset.ErrGTLTNX
	}
	return nil
}

// rankSpan returns Redis's clamped [lo, hi) for a rank range on n elements.
func rankSpan(start, stop, n int) (int, int) {
	if start < 0 {
		start += n
	}
	if stop < 0 {
		stop += n
	}
	start = max(start, 0)
	if start > stop || start >= n {
		return 0, 0
	}
	return start, min(stop, n-1) + 1
}

func inScore(f float64, lo, hi zset.ScoreBound) bool {
	aboveLo := f > lo.Value || !lo.Exclusive && f == lo.Value
	belowHi := f < hi.Value || !hi.Exclusive && f == hi.Value
	return aboveLo && belowHi
}

func aboveLex(m string, b zset.LexBound) bool {
	switch b.Inf {
	case -1:
		return true
	case 1:
		return false
	}
	c := strings.Compare(m, b.Member)
	return c > 0 || c == 0 && !b.Exclusive
}

func belowLex(m string, b zset.LexBound) bool {
	switch b.Inf {
	case -1:
		return false
	case 1:
		return true
	}
	c := strings.Compare(m, b.Member)
	return c < 0 || c == 0 && !b.Exclusive
}

// limit applies LIMIT offset count: a negative offset gives nothing (Redis 7.2), a
// negative count everything from offset.
func limit(es []zset.Entry, offset, count int) []zset.Entry {
	if offset < 0 || offset >= len(es) {
		return nil
	}
	es = es[offset:]
	if count >= 0 && count < len(es) {
		es = es[:count]
	}
	return es
}

func filter(es []zset.Entry, keep func(zset.Entry) bool) []zset.Entry {
	var out []zset.Entry
	for _, e := range es {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

func reversed(es []zset.Entry) []zset.Entry {
	out := slices.Clone(es)
	slices.Reverse(out)
	return out
}

// sameEntries compares entry lists exactly, the sign of zero included.
func sameEntries(a, b []zset.Entry) bool {
	return slices.EqualFunc(a, b, func(x, y zset.Entry) bool {
		return x.Member == y.Member && sameFloat(x.Score, y.Score)
	})
}

// Values the decoder picks scores from: the edges of float64.
var fuzzScores = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 3, 3, 3, -2.5, 0.1, 0.2, 0.30000000000000004,
	math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64,
	-math.SmallestNonzeroFloat64, 2.2250738585072014e-308, 1 << 53, 1<<53 + 2, 1e300, -1e-300}

var fuzzMembers = []string{"a", "b", "c", "", "\x00", "\xff", "a\x00", "ab", "é", "m1", "m10", "m2", "A"}

type zdecoder struct{ byteSource }

func (d *zdecoder) score() float64 {
	if d.intn(8) == 0 {
		var bits uint64
		for range 8 {
			bits = bits<<8 | uint64(d.intn(256))
		}
		return math.Float64frombits(bits)
	}
	return fuzzScores[d.intn(len(fuzzScores))]
}

func (d *zdecoder) member() string {
	if d.intn(10) == 0 {
		b := make([]byte, d.intn(4))
		for i := range b {
			b[i] = byte(d.intn(256))
		}
		return string(b)
	}
	return fuzzMembers[d.intn(len(fuzzMembers))]
}

func (d *zdecoder) scoreBound() zset.ScoreBound {
	f := d.score()
	if math.IsNaN(f) {
		f = 0
	}
	return zset.ScoreBound{Value: f, Exclusive: d.intn(2) == 0}
}

func (d *zdecoder) lexBound() zset.LexBound {
	switch d.intn(6) {
	case 0:
		return zset.LexMin
	case 1:
		return zset.LexMax
	}
	return zset.LexBound{Member: d.member(), Exclusive: d.intn(2) == 0}
}

func (d *zdecoder) idx() int { return d.intn(13) - 6 }

func (d *zdecoder) opts() zset.AddOptions {
	b := d.intn(64)
	if b >= 32 { // mostly no options
		return zset.AddOptions{}
	}
	return zset.AddOptions{NX: b&1 != 0, XX: b&2 != 0, GT: b&4 != 0, LT: b&8 != 0, CH: b&16 != 0}
}

// FuzzZSetOrdering runs operations decoded from the input on two zset.Sets and on
// reference models, comparing every result and the whole order after each step.
func FuzzZSetOrdering(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10"))
	f.Add([]byte("zadd leaderboard 1 alice 2 bob 2 carol inf dave -inf erin"))
	f.Add([]byte{0, 0, 13, 0, 0, 1, 0, 14, 0, 1, 1, 0, 2, 2, 3, 3, 4, 4, 5, 5})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &zdecoder{byteSource{b: data}}
		sets := [2]*zset.Set{zset.New(), {}} // New and the zero value
		models := [2]zmodel{{}, {}}
		var log []string
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("after:\n  %s\n%s", strings.Join(log, "\n  "), fmt.Sprintf(format, args...))
		}
		rnd := rand.New(rand.NewPCG(1, 2))
		for step := 0; step < 300 && !d.done(); step++ {
			i := d.intn(2)
			s, m := sets[i], models[i]
			sorted := m.sorted()
			op := d.intn(24)
			switch op {
			case 0, 1, 2, 3: // Add
				o := d.opts()
				es := make([]zset.Entry, 1+d.intn(3))
				for j := range es {
					es[j] = zset.Entry{Member: d.member(), Score: d.score()}
				}
				log = append(log, fmt.Sprintf("s%d.Add(%+v, %v)", i, o, es))
				got, err := s.Add(o, es...)
				want, werr := 0, validOpts(o)
				if werr == nil && slices.ContainsFunc(es, func(e zset.Entry) bool { return math.IsNaN(e.Score) }) {
					werr = zset.ErrNotFloat
				}
				if werr == nil {
					for _, e := range es {
						added, changed := m.add(o, e.Member, e.Score)
						if added || o.CH && changed {
							want++
						}
					}
				}
				if got != want || err != werr {
					fail("Add = %d, %v; want %d, %v", got, err, want, werr)
				}
			case 4, 5: // AddIncr
				o := d.opts()
				mem, delta := d.member(), d.score()
				if math.IsNaN(delta) {
					delta = 1
				}
				log = append(log, fmt.Sprintf("s%d.AddIncr(%+v, %q, %v)", i, o, mem, delta))
				got, ok, err := s.AddIncr(o, mem, delta)
				var want float64
				var wok bool
				werr := validOpts(o)
				if werr == nil {
					cur, exists := m[mem]
					nv := delta
					if exists {
						nv = cur + delta
					}
					switch {
					case exists && o.NX, !exists && o.XX:
					case math.IsNaN(nv):
						werr = zset.ErrNaNResult
					case exists && (o.GT && nv <= cur || o.LT && nv >= cur):
					default:
						m.add(zset.AddOptions{}, mem, nv)
						want, wok = nv, true
					}
				}
				if err != werr || ok != wok || wok && !sameFloat(got, want) {
					fail("AddIncr = %v, %v, %v; want %v, %v, %v", got, ok, err, want, wok, werr)
				}
			case 6: // Incr
				mem, delta := d.member(), d.score()
				if math.IsNaN(delta) {
					delta = -1
				}
				log = append(log, fmt.Sprintf("s%d.Incr(%q, %v)", i, mem, delta))
				got, err := s.Incr(mem, delta)
				cur, exists := m[mem]
				nv := delta
				if exists {
					nv = cur + delta
				}
				var werr error
				if math.IsNaN(nv) {
					werr = zset.ErrNaNResult
				} else {
					m.add(zset.AddOptions{}, mem, nv)
				}
				if err != werr || werr == nil && !sameFloat(got, nv) {
					fail("Incr = %v, %v; want %v, %v", got, err, nv, werr)
				}
			case 7: // Remove
				ms := []string{d.member(), d.member()}
				log = append(log, fmt.Sprintf("s%d.Remove(%q)", i, ms))
				want := 0
				for _, x := range ms {
					if _, ok := m[x]; ok {
						delete(m, x)
						want++
					}
				}
				if got := s.Remove(ms...); got != want {
					fail("Remove = %d; want %d", got, want)
				}
			case 8: // Score, Rank, RevRank, MScore
				mem := d.member()
				ws, wok := m[mem]
				if got, ok := s.Score(mem); ok != wok || !sameFloat(got, ws) {
					fail("Score(%q) = %v, %v; want %v, %v", mem, got, ok, ws, wok)
				}
				wr := slices.IndexFunc(sorted, func(e zset.Entry) bool { return e.Member == mem })
				if got, ok := s.Rank(mem); ok != wok || wok && got != wr {
					fail("Rank(%q) = %d, %v; want %d, %v", mem, got, ok, wr, wok)
				}
				if got, ok := s.RevRank(mem); ok != wok || wok && got != len(sorted)-1-wr {
					fail("RevRank(%q) = %d, %v; want %d, %v", mem, got, ok, len(sorted)-1-wr, wok)
				}
				scores, oks := s.MScore(mem, "\x00never", mem)
				if len(scores) != 3 || oks[0] != wok || oks[1] || oks[2] != wok || !sameFloat(scores[0], ws) && wok {
					fail("MScore(%q, never, %q) = %v, %v", mem, mem, scores, oks)
				}
			case 9: // At
				r := d.intn(len(sorted) + 2)
				got, ok := s.At(r)
				if ok != (r < len(sorted)) || ok && !sameEntries([]zset.Entry{got}, sorted[r:r+1]) {
					fail("At(%d) = %v, %v; want %v", r, got, ok, sorted)
				}
			case 10: // Count, Range, RevRange
				lo, hi := d.scoreBound(), d.scoreBound()
				want := len(filter(sorted, func(e zset.Entry) bool { return inScore(e.Score, lo, hi) }))
				if got := s.Count(lo, hi); got != want {
					fail("Count(%v, %v) = %d; want %d", lo, hi, got, want)
				}
				a, b := d.idx(), d.idx()
				l, h := rankSpan(a, b, len(sorted))
				if got := s.Range(a, b); !sameEntries(got, sorted[l:h]) {
					fail("Range(%d, %d) = %v; want %v", a, b, got, sorted[l:h])
				}
				rev := reversed(sorted)
				if got := s.RevRange(a, b); !sameEntries(got, rev[l:h]) {
					fail("RevRange(%d, %d) = %v; want %v", a, b, got, rev[l:h])
				}
			case 11, 12: // RangeByScore, RevRangeByScore
				lo, hi := d.scoreBound(), d.scoreBound()
				off, cnt := d.intn(5)-1, d.intn(6)-1
				in := filter(sorted, func(e zset.Entry) bool { return inScore(e.Score, lo, hi) })
				if got, want := s.RangeByScore(lo, hi, off, cnt), limit(in, off, cnt); !sameEntries(got, want) {
					fail("RangeByScore(%v, %v, %d, %d) = %v; want %v", lo, hi, off, cnt, got, want)
				}
				if got, want := s.RevRangeByScore(hi, lo, off, cnt), limit(reversed(in), off, cnt); !sameEntries(got, want) {
					fail("RevRangeByScore(%v, %v, %d, %d) = %v; want %v", hi, lo, off, cnt, got, want)
				}
			case 13: // lex ranges, defined only when all scores are equal
				if !m.sameScores() {
					continue
				}
				lo, hi := d.lexBound(), d.lexBound()
				off, cnt := d.intn(5)-1, d.intn(6)-1
				in := filter(sorted, func(e zset.Entry) bool { return aboveLex(e.Member, lo) && belowLex(e.Member, hi) })
				if got := s.LexCount(lo, hi); got != len(in) {
					fail("LexCount(%v, %v) = %d; want %d", lo, hi, got, len(in))
				}
				if got, want := s.RangeByLex(lo, hi, off, cnt), limit(in, off, cnt); !sameEntries(got, want) {
					fail("RangeByLex(%v, %v, %d, %d) = %v; want %v", lo, hi, off, cnt, got, want)
				}
				if got, want := s.RevRangeByLex(hi, lo, off, cnt), limit(reversed(in), off, cnt); !sameEntries(got, want) {
					fail("RevRangeByLex(%v, %v, %d, %d) = %v; want %v", hi, lo, off, cnt, got, want)
				}
				if d.intn(3) == 0 {
					log = append(log, fmt.Sprintf("s%d.RemRangeByLex(%v, %v)", i, lo, hi))
					for _, e := range in {
						delete(m, e.Member)
					}
					if got := s.RemRangeByLex(lo, hi); got != len(in) {
						fail("RemRangeByLex = %d; want %d", got, len(in))
					}
				}
			case 14, 15: // pops
				n := d.intn(4) - 1
				log = append(log, fmt.Sprintf("s%d.Pop(op %d, n %d)", i, op, n))
				src := sorted
				if op == 15 {
					src = reversed(sorted)
				}
				var got []zset.Entry
				var want []zset.Entry
				if n == -1 {
					var e zset.Entry
					var ok bool
					if op == 14 {
						e, ok = s.PopMin()
					} else {
						e, ok = s.PopMax()
					}
					if ok {
						got = []zset.Entry{e}
					}
					want = src[:min(1, len(src))]
				} else {
					if op == 14 {
						got = s.PopMinN(n)
					} else {
						got = s.PopMaxN(n)
					}
					want = src[:min(max(n, 0), len(src))]
				}
				for _, e := range want {
					delete(m, e.Member)
				}
				if !sameEntries(got, want) {
					fail("pop = %v; want %v", got, want)
				}
			case 16: // RemRangeByRank
				a, b := d.idx(), d.idx()
				log = append(log, fmt.Sprintf("s%d.RemRangeByRank(%d, %d)", i, a, b))
				l, h := rankSpan(a, b, len(sorted))
				for _, e := range sorted[l:h] {
					delete(m, e.Member)
				}
				if got := s.RemRangeByRank(a, b); got != h-l {
					fail("RemRangeByRank = %d; want %d", got, h-l)
				}
			case 17: // RemRangeByScore
				lo, hi := d.scoreBound(), d.scoreBound()
				log = append(log, fmt.Sprintf("s%d.RemRangeByScore(%v, %v)", i, lo, hi))
				in := filter(sorted, func(e zset.Entry) bool { return inScore(e.Score, lo, hi) })
				for _, e := range in {
					delete(m, e.Member)
				}
				if got := s.RemRangeByScore(lo, hi); got != len(in) {
					fail("RemRangeByScore = %d; want %d", got, len(in))
				}
			case 18: // RandMember
				count := d.intn(9) - 4
				got := s.RandMember(rnd, count)
				wantLen := min(count, len(sorted))
				if count < 0 {
					wantLen = -count
					if len(sorted) == 0 {
						wantLen = 0
					}
				}
				seen := map[string]bool{}
				for _, e := range got {
					sc, ok := m[e.Member]
					if !ok || !sameFloat(sc, e.Score) || count > 0 && seen[e.Member] {
						fail("RandMember(%d) = %v: %v is not a distinct entry of %v", count, got, e, sorted)
					}
					seen[e.Member] = true
				}
				if len(got) != wantLen {
					fail("RandMember(%d) = %d entries; want %d", count, len(got), wantLen)
				}
			case 19: // Clone is independent
				c := s.Clone()
				c.Add(zset.AddOptions{}, zset.Entry{Member: "\x00clone-only", Score: 1})
				if _, ok := s.Score("\x00clone-only"); ok {
					fail("adding to a Clone changed the original")
				}
				c.Remove("\x00clone-only")
				checkOrder(t, c, sorted, fail)
			case 20, 21: // Union, Inter, Diff, InterCard
				w := [2]float64{fuzzScores[d.intn(8)], fuzzScores[d.intn(8)]}
				agg := zset.Aggregate(d.intn(3))
				in := []*zset.Set{sets[i], sets[1-i]}
				mi := []zmodel{models[i], models[1-i]}
				if d.intn(4) == 0 {
					in[1], mi[1] = nil, zmodel{}
				}
				ws := w[:]
				if d.intn(3) == 0 {
					ws = nil
					w = [2]float64{1, 1}
				}
				log = append(log, fmt.Sprintf("check Union/Inter/Diff(s%d, s%d or nil=%v, weights %v, agg %d)", i, 1-i, in[1] == nil, ws, agg))
				want := union(mi, w, agg)
				checkOrder(t, zset.Union(in, ws, agg), want.sorted(), fail)
				checkOrder(t, zset.Inter(in, ws, agg), inter(mi, w, agg).sorted(), fail)
				lim := d.intn(4)
				wantCard := len(inter(mi, [2]float64{1, 1}, zset.Sum))
				if lim > 0 {
					wantCard = min(wantCard, lim)
				}
				if got := zset.InterCard(in, lim); got != wantCard {
					fail("InterCard(limit %d) = %d; want %d", lim, got, wantCard)
				}
				diff := zmodel{}
				for k, v := range mi[0] {
					if _, ok := mi[1][k]; !ok {
						diff[k] = v
					}
				}
				checkOrder(t, zset.Diff(in), diff.sorted(), fail)
			default: // formatting round trip on a decoded score
				f := d.score()
				if math.IsNaN(f) {
					continue
				}
				txt := zset.FormatScore(f)
				back, err := zset.ParseScore(txt)
				if err != nil || !sameFloat(back, f) {
					fail("ParseScore(FormatScore(%v) = %q) = %v, %v", f, txt, back, err)
				}
			}
			for j := range sets {
				models[j].zeroSigns(sets[j])
				checkOrder(t, sets[j], models[j].sorted(), fail)
			}
		}
	})
}

// checkOrder compares a set with the model's order: Len, All, Backward.
func checkOrder(t *testing.T, s *zset.Set, want []zset.Entry, fail func(string, ...any)) {
	t.Helper()
	if s.Len() != len(want) {
		fail("Len() = %d; want %d", s.Len(), len(want))
	}
	var got []zset.Entry
	for m, sc := range s.All() {
		got = append(got, zset.Entry{Member: m, Score: sc})
	}
	if !sameEntries(got, want) {
		fail("All() = %v; want %v", got, want)
	}
	got = got[:0]
	for m, sc := range s.Backward() {
		got = append(got, zset.Entry{Member: m, Score: sc})
	}
	if !sameEntries(got, reversed(want)) {
		fail("Backward() = %v; want %v", got, reversed(want))
	}
}

// weighted is Redis's weight × score, where a NaN product (0 × ±inf) counts as 0.
func weighted(w, s float64) float64 {
	v := w * s
	if math.IsNaN(v) {
		return 0
	}
	return v
}

func aggregate(agg zset.Aggregate, acc, v float64) float64 {
	switch agg {
	case zset.Min:
		if v < acc {
			return v
		}
		return acc
	case zset.Max:
		if v > acc {
			return v
		}
		return acc
	}
	if s := acc + v; !math.IsNaN(s) {
		return s
	}
	return 0
}

// bySize returns the indexes of ms from the smallest to the largest, stable: the order
// Redis combines the inputs in.
func bySize(ms []zmodel) []int {
	idx := []int{0, 1}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(len(ms[a]), len(ms[b])) })
	return idx
}

func union(ms []zmodel, w [2]float64, agg zset.Aggregate) zmodel {
	out := zmodel{}
	for _, i := range bySize(ms) {
		for _, e := range ms[i].sorted() {
			v := weighted(w[i], e.Score)
			if acc, ok := out[e.Member]; ok {
				out[e.Member] = aggregate(agg, acc, v)
			} else {
				out[e.Member] = v
			}
		}
	}
	return out
}

func inter(ms []zmodel, w [2]float64, agg zset.Aggregate) zmodel {
	order := bySize(ms)
	out := zmodel{}
	for _, e := range ms[order[0]].sorted() {
		acc := weighted(w[order[0]], e.Score)
		ok := true
		for _, j := range order[1:] {
			sc, in := ms[j][e.Member]
			if !in {
				ok = false
				break
			}
			// Redis sanitises only the first set's products: a NaN here
			// (0 × ±inf) makes a Sum NaN, hence 0, and is ignored by Min/Max.
			acc = aggregate(agg, acc, w[j]*sc)
		}
		if ok {
			out[e.Member] = acc
		}
	}
	return out
}
