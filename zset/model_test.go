package zset

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/zlite/zlite/internal/testmain"
)

// model is the naive reference: a map and a sorted slice, everything by linear scans. It
// also follows Redis's rules for the encoding (tree is true for the skiplist), because
// the small encoding stores -0 as 0.
type model struct {
	score map[string]float64
	ents  []Entry
	lim   Limits
	tree  bool
}

func cmpEntry(a, b Entry) int {
	if c := cmp.Compare(a.Score, b.Score); c != 0 && !(a.Score == b.Score) {
		return c
	}
	return cmp.Compare(a.Member, b.Member)
}

func newModelLimits(l Limits) *model {
	return &model{score: map[string]float64{}, lim: l, tree: l.Entries == 0}
}

// set stores member's score. A new member that would take a small set past its limits
// makes it a tree (Redis's zsetAdd); a small set stores -0 as 0 (listpack).
func (m *model) set(member string, f float64) {
	if old, ok := m.score[member]; ok {
		m.remove(member, old)
	} else if len(m.ents)+1 > m.lim.Entries || len(member) > m.lim.Value {
		m.tree = true
	}
	if !m.tree && f == 0 {
		f = 0
	}
	m.score[member] = f
	e := Entry{member, f}
	i, _ := slices.BinarySearchFunc(m.ents, e, cmpEntry)
	m.ents = slices.Insert(m.ents, i, e)
}

// del removes member, whose score is f. An emptied set is small again (Redis deletes
// the key; the next write creates a listpack).
func (m *model) del(member string, f float64) {
	m.remove(member, f)
	m.emptied()
}

func (m *model) emptied() {
	if len(m.ents) == 0 && m.lim.Entries > 0 {
		m.tree = false
	}
}

func (m *model) encoding() string {
	if m.tree {
		return "skiplist"
	}
	return "listpack"
}

func (m *model) remove(member string, f float64) {
	i, ok := slices.BinarySearchFunc(m.ents, Entry{member, f}, cmpEntry)
	if !ok {
		panic("model: missing " + member)
	}
	m.ents = slices.Delete(m.ents, i, i+1)
	delete(m.score, member)
}

// add follows ZADD's documented rules.
func (m *model) add(o AddOptions, es []Entry) (int, error) {
	if o.NX && o.XX {
		return 0, ErrXXAndNX
	}
	if btoi(o.NX)+btoi(o.GT)+btoi(o.LT) > 1 {
		return 0, ErrGTLTNX
	}
	for _, e := range es {
		if math.IsNaN(e.Score) {
			return 0, ErrNotFloat
		}
	}
	added, changed := 0, 0
	for _, e := range es {
		cur, ok := m.score[e.Member]
		switch {
		case !ok && o.XX:
		case !ok:
			m.set(e.Member, e.Score)
			added++
		case o.NX, o.GT && !(e.Score > cur), o.LT && !(e.Score < cur), e.Score == cur:
		default:
			m.set(e.Member, e.Score)
			changed++
		}
	}
	if o.CH {
		return added + changed, nil
	}
	return added, nil
}

func (m *model) addIncr(o AddOptions, member string, d float64) (float64, bool, error) {
	if o.NX && o.XX {
		return 0, false, ErrXXAndNX
	}
	if btoi(o.NX)+btoi(o.GT)+btoi(o.LT) > 1 {
		return 0, false, ErrGTLTNX
	}
	if math.IsNaN(d) {
		return 0, false, ErrNotFloat
	}
	cur, ok := m.score[member]
	if !ok {
		if o.XX {
			return 0, false, nil
		}
		m.set(member, d)
		return d, true, nil
	}
	if o.NX {
		return 0, false, nil
	}
	f := cur + d
	if math.IsNaN(f) {
		return 0, false, ErrNaNResult
	}
	if o.GT && !(f > cur) || o.LT && !(f < cur) {
		return 0, false, nil
	}
	if f != cur {
		m.set(member, f)
	}
	return f, true, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func inScore(f float64, min, max ScoreBound) bool {
	lo := f > min.Value || !min.Exclusive && f == min.Value
	hi := f < max.Value || !max.Exclusive && f == max.Value
	return lo && hi
}

func inLex(s string, min, max LexBound) bool {
	lo := min.Inf < 0 || min.Inf == 0 && (s > min.Member || !min.Exclusive && s == min.Member)
	hi := max.Inf > 0 || max.Inf == 0 && (s < max.Member || !max.Exclusive && s == max.Member)
	return lo && hi
}

func limit(es []Entry, offset, count int) []Entry {
	if offset < 0 || offset >= len(es) {
		return nil
	}
	es = es[offset:]
	if count >= 0 && count < len(es) {
		es = es[:count]
	}
	return es
}

func (m *model) filter(keep func(Entry) bool, reverse bool) []Entry {
	var out []Entry
	for _, e := range m.ents {
		if keep(e) {
			out = append(out, e)
		}
	}
	if reverse {
		slices.Reverse(out)
	}
	return out
}

// rankRange follows ZRANGE's index rules.
func (m *model) rankRange(start, stop int, reverse bool) (lo, hi int, out []Entry) {
	n := len(m.ents)
	if start < 0 {
		start = n + start
	}
	if stop < 0 {
		stop = n + stop
	}
	start = max(start, 0)
	if start > stop || start >= n {
		return 0, 0, nil
	}
	stop = min(stop, n-1)
	es := slices.Clone(m.ents)
	if reverse {
		slices.Reverse(es)
	}
	return start, stop + 1, es[start : stop+1]
}

func (m *model) removeAll(es []Entry) {
	for _, e := range es {
		m.del(e.Member, e.Score)
	}
}

var edgeScores = []float64{
	math.Inf(-1), math.Inf(1), math.Copysign(0, -1), 0, 5e-324, -5e-324,
	1.7976931348623157e308, -1.7976931348623157e308, 1, 1, 2, 2, 3, 1.5, -1, 0.1,
}

func sameEntries(a, b []Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Member != b[i].Member || math.Float64bits(a[i].Score) != math.Float64bits(b[i].Score) {
			return false
		}
	}
	return true
}

// entryMembers returns the members of es, in order.
func entryMembers(es []Entry) []string {
	ms := make([]string, len(es))
	for i, e := range es {
		ms[i] = e.Member
	}
	return ms
}

func sameFloat(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// TestModel runs random operation sequences against the naive model, comparing every
// result, the encoding and the invariants after each step, with the default limits (the
// zero Set), always a tree, limits that make conversions frequent, and a small encoding
// that holds large sets.
func TestModel(t *testing.T) {
	ops := 60_000
	if raceEnabled || testing.Short() {
		ops = 10_000
	}
	for _, lim := range []Limits{DefaultLimits, {Entries: 0, Value: 64}, {Entries: 16, Value: 3}, {Entries: 2000, Value: 64}} {
		t.Run(fmt.Sprintf("entries=%d/value=%d", lim.Entries, lim.Value), func(t *testing.T) {
			testModel(t, lim, ops)
		})
	}
}

func testModel(t *testing.T, lim Limits, ops int) {
	r := rand.New(rand.NewPCG(testmain.Seed(t), 7))
	// Phases vary the member pool (set size), whether scores are all equal (lexicographic
	// operations are only specified then) and the score spread.
	type phase struct {
		pool    int
		lexOnly bool
		grow    bool // mostly skip the operations that remove many entries
	}
	phases := []phase{{40, false, false}, {400, true, false}, {3000, false, false}, {200, false, false},
		{6000, false, true}, {6000, false, false}, {60, true, false}, {1500, false, false}}
	per := ops / len(phases)
	s := &Set{}
	if lim != DefaultLimits {
		s = NewWithLimits(lim)
	}
	m := newModelLimits(lim)
	step, maxLen, deep := 0, 0, 0
	for _, ph := range phases {
		if ph.lexOnly {
			// Lexicographic ranges are specified only when all scores are equal.
			if got, want := s.RemRangeByScore(ScoreBound{Value: math.Inf(-1)}, ScoreBound{Value: math.Inf(1)}), len(m.ents); got != want {
				t.Fatalf("RemRangeByScore(-inf, +inf) = %d; want %d", got, want)
			}
			m = newModelLimits(lim)
		}
		pool := makePool(r, ph.pool)
		if ph.grow {
			// One large ZADD so that even a short run builds a three-level tree.
			bulk := make([]Entry, 0, 6000)
			for i := range cap(bulk) {
				bulk = append(bulk, Entry{fmt.Sprintf("bulk%05d", i), float64(r.IntN(1000))})
			}
			got, err := s.Add(AddOptions{}, bulk...)
			want, _ := m.add(AddOptions{}, bulk)
			if got != want || err != nil {
				t.Fatalf("bulk Add = %d, %v; want %d", got, err, want)
			}
		}
		mem := func() string { return pool[r.IntN(len(pool))] }
		score := func() float64 {
			if ph.lexOnly {
				return edgeScores[2+r.IntN(2)] // -0 or 0: equal scores
			}
			switch r.IntN(4) {
			case 0:
				return edgeScores[r.IntN(len(edgeScores))]
			case 1:
				return float64(r.IntN(50))
			default:
				return r.NormFloat64() * 100
			}
		}
		sbound := func() ScoreBound {
			return ScoreBound{Value: score(), Exclusive: r.IntN(2) == 0}
		}
		lbound := func() LexBound {
			switch r.IntN(8) {
			case 0:
				return LexMin
			case 1:
				return LexMax
			}
			return LexBound{Member: mem(), Exclusive: r.IntN(2) == 0}
		}
		lim := func() (int, int) {
			if r.IntN(3) == 0 {
				return 0, -1
			}
			return r.IntN(12) - 1, r.IntN(20) - 2
		}
		rk := func() int { return r.IntN(2*len(m.ents)+10) - len(m.ents) - 5 }
		for range per {
			step++
			desc := ""
			op := r.IntN(30)
			if ph.grow && (op >= 8 && op <= 10 || op >= 21 && op <= 25 || op == 29) && r.IntN(50) > 0 {
				op = 0
			}
			fail := func(format string, args ...any) {
				t.Helper()
				t.Fatalf("step %d (%s): "+format, append([]any{step, desc}, args...)...)
			}
			switch op {
			case 0, 1, 2, 3, 4, 5:
				o := AddOptions{}
				if r.IntN(2) == 0 {
					o = AddOptions{NX: r.IntN(4) == 0, XX: r.IntN(4) == 0, GT: r.IntN(4) == 0, LT: r.IntN(4) == 0, CH: r.IntN(2) == 0}
				}
				es := make([]Entry, 1+r.IntN(4))
				for i := range es {
					es[i] = Entry{mem(), score()}
					if r.IntN(500) == 0 {
						es[i].Score = math.NaN()
					}
				}
				desc = fmt.Sprintf("Add(%+v, %v)", o, es)
				got, err := s.Add(o, es...)
				want, werr := m.add(o, es)
				if got != want || !errors.Is(err, werr) || (err == nil) != (werr == nil) {
					fail("got %d, %v; want %d, %v", got, err, want, werr)
				}
			case 6:
				o := AddOptions{NX: r.IntN(4) == 0, XX: r.IntN(4) == 0, GT: r.IntN(4) == 0, LT: r.IntN(4) == 0}
				mb, d := mem(), score()
				desc = fmt.Sprintf("AddIncr(%+v, %q, %v)", o, mb, d)
				got, ok, err := s.AddIncr(o, mb, d)
				want, wok, werr := m.addIncr(o, mb, d)
				if !sameFloat(got, want) || ok != wok || !errors.Is(err, werr) || (err == nil) != (werr == nil) {
					fail("got %v, %v, %v; want %v, %v, %v", got, ok, err, want, wok, werr)
				}
			case 7:
				mb, d := mem(), score()
				desc = fmt.Sprintf("Incr(%q, %v)", mb, d)
				got, err := s.Incr(mb, d)
				want, _, werr := m.addIncr(AddOptions{}, mb, d)
				if !sameFloat(got, want) || !errors.Is(err, werr) || (err == nil) != (werr == nil) {
					fail("got %v, %v; want %v, %v", got, err, want, werr)
				}
			case 8, 9, 10:
				ms := make([]string, 1+r.IntN(4))
				want := 0
				for i := range ms {
					ms[i] = mem()
				}
				desc = fmt.Sprintf("Remove(%q)", ms)
				for _, x := range ms {
					if f, ok := m.score[x]; ok {
						m.del(x, f)
						want++
					}
				}
				if got := s.Remove(ms...); got != want {
					fail("got %d; want %d", got, want)
				}
			case 11:
				ms := []string{mem(), mem(), mem()}
				desc = fmt.Sprintf("MScore(%q)", ms)
				fs, oks := s.MScore(ms...)
				for i, x := range ms {
					f, ok := m.score[x]
					if oks[i] != ok || !sameFloat(fs[i], f) {
						fail("%q: got %v, %v; want %v, %v", x, fs[i], oks[i], f, ok)
					}
					if g, gok := s.Score(x); gok != ok || !sameFloat(g, f) {
						fail("Score(%q) = %v, %v; want %v, %v", x, g, gok, f, ok)
					}
				}
			case 12:
				x := mem()
				desc = fmt.Sprintf("Rank(%q)", x)
				want, wok := -1, false
				var wantScore float64
				for i, e := range m.ents {
					if e.Member == x {
						want, wok, wantScore = i, true, e.Score
					}
				}
				got, ok := s.Rank(x)
				rev, rok := s.RevRank(x)
				if ok != wok || ok && (got != want || rev != len(m.ents)-1-want || !rok) {
					fail("got %d, %v / rev %d; want %d, %v", got, ok, rev, want, wok)
				}
				r, sc, sok := s.RankScore(x)
				if sok != wok || sok && (r != want || sc != wantScore) {
					fail("RankScore = %d, %v, %v; want %d, %v, %v", r, sc, sok, want, wantScore, wok)
				}
			case 13:
				i := rk()
				desc = fmt.Sprintf("At(%d)", i)
				got, ok := s.At(i)
				if wok := i >= 0 && i < len(m.ents); ok != wok || ok && !sameEntries([]Entry{got}, m.ents[i:i+1]) {
					fail("got %v, %v", got, ok)
				}
			case 14:
				lo, hi := sbound(), sbound()
				desc = fmt.Sprintf("Count(%v, %v)", lo, hi)
				want := len(m.filter(func(e Entry) bool { return inScore(e.Score, lo, hi) }, false))
				if got := s.Count(lo, hi); got != want {
					fail("got %d; want %d", got, want)
				}
			case 15:
				if !ph.lexOnly {
					continue
				}
				lo, hi := lbound(), lbound()
				desc = fmt.Sprintf("LexCount(%v, %v)", lo, hi)
				want := len(m.filter(func(e Entry) bool { return inLex(e.Member, lo, hi) }, false))
				if got := s.LexCount(lo, hi); got != want {
					fail("got %d; want %d", got, want)
				}
			case 16:
				a, b := rk(), rk()
				rev := r.IntN(2) == 0
				desc = fmt.Sprintf("Range(%d, %d, rev %v)", a, b, rev)
				_, _, want := m.rankRange(a, b, rev)
				got, members := s.Range(a, b), s.RangeMembers(a, b)
				if rev {
					got, members = s.RevRange(a, b), s.RevRangeMembers(a, b)
				}
				if !sameEntries(got, want) {
					fail("got %v; want %v", got, want)
				}
				if !slices.Equal(members, entryMembers(want)) {
					fail("members %q; want those of %v", members, want)
				}
			case 17, 18:
				lo, hi := sbound(), sbound()
				off, cnt := lim()
				rev := op == 18
				desc = fmt.Sprintf("RangeByScore(%v, %v, %d, %d, rev %v)", lo, hi, off, cnt, rev)
				want := limit(m.filter(func(e Entry) bool { return inScore(e.Score, lo, hi) }, rev), off, cnt)
				got := s.RangeByScore(lo, hi, off, cnt)
				if rev {
					got = s.RevRangeByScore(hi, lo, off, cnt)
				}
				if !sameEntries(got, want) {
					fail("got %v; want %v", got, want)
				}
				if off == 0 && cnt == -1 {
					var it []Entry
					seq := s.ScoreRange(lo, hi)
					if rev {
						seq = s.RevScoreRange(hi, lo)
					}
					for k, v := range seq {
						it = append(it, Entry{k, v})
					}
					if !sameEntries(it, want) {
						fail("iterator got %v; want %v", it, want)
					}
				}
			case 19, 20:
				if !ph.lexOnly {
					continue
				}
				lo, hi := lbound(), lbound()
				off, cnt := lim()
				rev := op == 20
				desc = fmt.Sprintf("RangeByLex(%v, %v, %d, %d, rev %v)", lo, hi, off, cnt, rev)
				want := limit(m.filter(func(e Entry) bool { return inLex(e.Member, lo, hi) }, rev), off, cnt)
				got := s.RangeByLex(lo, hi, off, cnt)
				if rev {
					got = s.RevRangeByLex(hi, lo, off, cnt)
				}
				if !sameEntries(got, want) {
					fail("got %v; want %v", got, want)
				}
				if off == 0 && cnt == -1 {
					var it []Entry
					seq := s.LexRange(lo, hi)
					if rev {
						seq = s.RevLexRange(hi, lo)
					}
					for k, v := range seq {
						it = append(it, Entry{k, v})
					}
					if !sameEntries(it, want) {
						fail("iterator got %v; want %v", it, want)
					}
				}
			case 21:
				max := r.IntN(2) == 0
				desc = fmt.Sprintf("Pop(max %v)", max)
				var got Entry
				var ok bool
				if max {
					got, ok = s.PopMax()
				} else {
					got, ok = s.PopMin()
				}
				if ok != (len(m.ents) > 0) {
					fail("ok %v with %d entries", ok, len(m.ents))
				}
				if ok {
					want := m.ents[0]
					if max {
						want = m.ents[len(m.ents)-1]
					}
					if !sameEntries([]Entry{got}, []Entry{want}) {
						fail("got %v; want %v", got, want)
					}
					m.del(want.Member, want.Score)
				}
			case 22:
				k := r.IntN(8) - 1
				max := r.IntN(2) == 0
				desc = fmt.Sprintf("PopN(%d, max %v)", k, max)
				var want []Entry
				if k > 0 {
					_, _, want = m.rankRange(0, k-1, max)
				}
				want = slices.Clone(want)
				var got []Entry
				if max {
					got = s.PopMaxN(k)
				} else {
					got = s.PopMinN(k)
				}
				if !sameEntries(got, want) {
					fail("got %v; want %v", got, want)
				}
				m.removeAll(want)
			case 23:
				a, b := rk(), rk()
				if r.IntN(3) > 0 {
					b = a + r.IntN(4)
				}
				desc = fmt.Sprintf("RemRangeByRank(%d, %d)", a, b)
				_, _, want := m.rankRange(a, b, false)
				want = slices.Clone(want)
				if got := s.RemRangeByRank(a, b); got != len(want) {
					fail("got %d; want %d", got, len(want))
				}
				m.removeAll(want)
			case 24:
				lo, hi := sbound(), sbound()
				if r.IntN(2) == 0 {
					hi = lo
					hi.Exclusive = false
				}
				desc = fmt.Sprintf("RemRangeByScore(%v, %v)", lo, hi)
				want := m.filter(func(e Entry) bool { return inScore(e.Score, lo, hi) }, false)
				if got := s.RemRangeByScore(lo, hi); got != len(want) {
					fail("got %d; want %d", got, len(want))
				}
				m.removeAll(want)
			case 25:
				if !ph.lexOnly {
					continue
				}
				lo, hi := lbound(), lbound()
				desc = fmt.Sprintf("RemRangeByLex(%v, %v)", lo, hi)
				want := m.filter(func(e Entry) bool { return inLex(e.Member, lo, hi) }, false)
				if got := s.RemRangeByLex(lo, hi); got != len(want) {
					fail("got %d; want %d", got, len(want))
				}
				m.removeAll(want)
			case 26:
				k := r.IntN(20) - 10
				desc = fmt.Sprintf("RandMember(%d)", k)
				got := s.RandMember(r, k)
				want := abs(k)
				if k > 0 {
					want = min(k, len(m.ents))
				}
				if len(m.ents) == 0 {
					want = 0
				}
				if len(got) != want {
					fail("got %d entries; want %d", len(got), want)
				}
				seen := map[string]bool{}
				for _, e := range got {
					if f, ok := m.score[e.Member]; !ok || !sameFloat(f, e.Score) {
						fail("%v not in the set", e)
					}
					if k > 0 && seen[e.Member] {
						fail("%q repeated", e.Member)
					}
					seen[e.Member] = true
				}
			case 27:
				rev := r.IntN(2) == 0
				desc = fmt.Sprintf("All(rev %v)", rev)
				seq := s.All()
				want := slices.Clone(m.ents)
				if rev {
					seq = s.Backward()
					slices.Reverse(want)
				}
				var got []Entry
				for k, v := range seq {
					got = append(got, Entry{k, v})
				}
				if !sameEntries(got, want) || s.Len() != len(m.ents) {
					fail("got %d entries, Len %d; want %d", len(got), s.Len(), len(want))
				}
			case 28:
				if r.IntN(50) != 0 {
					continue
				}
				desc = "Clone"
				c := s.Clone()
				if err := c.check(); err != nil {
					fail("clone: %v", err)
				}
				c.Add(AddOptions{}, Entry{"clone-only", 1})
				c.PopMin()
				if s.Len() != len(m.ents) {
					fail("clone changes affected the original")
				}
				var got []Entry
				for k, v := range c.All() {
					if k != "clone-only" {
						got = append(got, Entry{k, v})
					}
				}
				if len(got) > 0 && len(m.ents) > 0 && !sameEntries(got, m.ents[1:]) && !sameEntries(got, m.ents) {
					fail("clone content differs")
				}
			case 29:
				// Drain now and then so that shrinking and emptying are exercised.
				if r.IntN(400) != 0 {
					continue
				}
				desc = "drain"
				k := len(m.ents)
				if r.IntN(2) == 0 {
					k -= r.IntN(len(m.ents)/8 + 1)
				}
				s.RemRangeByRank(0, k-1)
				m.ents = slices.Clone(m.ents[k:])
				m.score = map[string]float64{}
				for _, e := range m.ents {
					m.score[e.Member] = e.Score
				}
				m.emptied()
			}
			if s.Len() != len(m.ents) {
				t.Fatalf("step %d (%s): Len %d; want %d", step, desc, s.Len(), len(m.ents))
			}
			if got, want := s.Encoding(), m.encoding(); got != want {
				t.Fatalf("step %d (%s): Encoding() = %q with %d entries; want %q", step, desc, got, s.Len(), want)
			}
			if err := s.check(); err != nil {
				t.Fatalf("step %d (%s): invariant: %v", step, desc, err)
			}
			maxLen = max(maxLen, s.Len())
			if s.tree() != nil && s.tree().root != nil && !s.tree().root.leafKids {
				deep++
			}
		}
	}
	t.Logf("%d steps, largest set %d, %d steps with a tree of height > 2", step, maxLen, deep)
	if deep == 0 {
		t.Errorf("the sets never grew a third level; the test does not reach the inner-node paths")
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// makePool returns n distinct members, binary ones included.
func makePool(r *rand.Rand, n int) []string {
	seen := map[string]bool{}
	pool := []string{"", "\x00", "\xff\xfe", "a\x00b", "a", "b", "ab", "é"}
	for _, p := range pool {
		seen[p] = true
	}
	alpha := "ab\x00\xffz"
	for len(pool) < n {
		b := make([]byte, r.IntN(7))
		for i := range b {
			b[i] = alpha[r.IntN(len(alpha))]
		}
		switch r.IntN(40) {
		case 0: // about the small encoding's default member limit: 63 to 66 bytes
			b = append(b, make([]byte, 63+r.IntN(4)-len(b))...)
		case 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13:
			b = fmt.Appendf(b, "%d", r.IntN(1e6))
		}
		if !seen[string(b)] {
			seen[string(b)] = true
			pool = append(pool, string(b))
		}
	}
	return pool[:n]
}
