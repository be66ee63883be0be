package zset

import (
	"math"
	"slices"
	"testing"
)

// FuzzOps decodes the input into a sequence of operations, runs them on a Set and on the
// naive model, compares every result and checks the invariants after each step. Each
// operation is an opcode byte followed by argument bytes; members come from a small
// alphabet (so operations collide) and scores from a table of edge values (so ties,
// ±inf, -0 and subnormals are common). A bulk opcode adds hundreds of members at once so
// that short inputs still build multi-level trees. The first byte picks the limits of
// the small encoding, so that both encodings and the conversions between them are met.
func FuzzOps(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 3, 4, 5, 1, 2, 6, 1, 7, 0, 8})
	f.Add([]byte{9, 40, 3, 2, 5, 9, 200, 4, 0, 255, 8, 8, 8, 10, 3})
	f.Add([]byte{9, 255, 9, 255, 9, 255, 6, 100, 11, 3, 1, 12, 0, 7, 10, 50})
	f.Add([]byte{13, 2, 0, 1, 1, 0, 13, 9, 3, 0, 5, 14, 1, 2, 2, 0})
	f.Add([]byte{2, 0, 0, 1, 2, 0, 0, 3, 4, 0, 32, 9, 5, 1, 1, 0, 15, 7, 1, 7, 0})
	f.Add([]byte{3, 9, 32, 1, 0, 0, 8, 15, 2, 0, 3, 5, 12, 0, 1, 15, 7, 0, 2, 200})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		lim := fuzzLimits[int(data[0])%len(fuzzLimits)]
		data = data[1:]
		s := NewWithLimits(lim)
		m := newModelLimits(lim)
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return int(b)
		}
		member := func() string {
			b := next()
			return string([]byte{"\x00ab\xff"[b&3], "abcdefgh"[b>>2&7]})[:1+b>>5&1]
		}
		score := func() float64 { return fuzzScores[next()%len(fuzzScores)] }
		sbound := func() ScoreBound {
			b := next()
			return ScoreBound{Value: fuzzScores[(b>>1)%len(fuzzScores)], Exclusive: b&1 == 1}
		}
		lbound := func() LexBound {
			b := next()
			switch b % 8 {
			case 0:
				return LexMin
			case 1:
				return LexMax
			}
			return LexBound{Member: member(), Exclusive: b&8 != 0}
		}
		equalScores := func() bool {
			for _, e := range m.ents {
				if e.Score != m.ents[0].Score {
					return false
				}
			}
			return true
		}
		for step := 0; len(data) > 0 && step < 2000; step++ {
			op := next() % 16
			switch op {
			case 0: // ZADD with flags
				fl := next()
				o := AddOptions{NX: fl&1 != 0, XX: fl&2 != 0, GT: fl&4 != 0, LT: fl&8 != 0, CH: fl&16 != 0}
				es := []Entry{{member(), score()}, {member(), score()}}[:1+fl>>5&1]
				got, err := s.Add(o, es...)
				want, werr := m.add(o, es)
				if got != want || err != werr {
					t.Fatalf("Add(%+v, %v) = %d, %v; want %d, %v", o, es, got, err, want, werr)
				}
			case 1: // ZADD INCR with flags
				fl := next()
				o := AddOptions{NX: fl&1 != 0, XX: fl&2 != 0, GT: fl&4 != 0, LT: fl&8 != 0}
				mb, d := member(), score()
				got, ok, err := s.AddIncr(o, mb, d)
				want, wok, werr := m.addIncr(o, mb, d)
				if !sameFloat(got, want) || ok != wok || err != werr {
					t.Fatalf("AddIncr(%+v, %q, %v) = %v, %v, %v; want %v, %v, %v", o, mb, d, got, ok, err, want, wok, werr)
				}
			case 2:
				mb := member()
				want := 0
				if f, ok := m.score[mb]; ok {
					m.del(mb, f)
					want = 1
				}
				if got := s.Remove(mb); got != want {
					t.Fatalf("Remove(%q) = %d; want %d", mb, got, want)
				}
			case 3:
				mb := member()
				got, ok := s.Rank(mb)
				want := slices.IndexFunc(m.ents, func(e Entry) bool { return e.Member == mb })
				if ok != (want >= 0) || ok && got != want {
					t.Fatalf("Rank(%q) = %d, %v; want %d", mb, got, ok, want)
				}
			case 4, 5:
				lo, hi := sbound(), sbound()
				off, cnt := next()%8-1, next()%8-2
				want := limit(m.filter(func(e Entry) bool { return inScore(e.Score, lo, hi) }, op == 5), off, cnt)
				got := s.RangeByScore(lo, hi, off, cnt)
				if op == 5 {
					got = s.RevRangeByScore(hi, lo, off, cnt)
				}
				if !sameEntries(got, want) {
					t.Fatalf("RangeByScore(%v, %v, %d, %d, rev %v) = %v; want %v", lo, hi, off, cnt, op == 5, got, want)
				}
				if c := s.Count(lo, hi); c != len(m.filter(func(e Entry) bool { return inScore(e.Score, lo, hi) }, false)) {
					t.Fatalf("Count(%v, %v) = %d", lo, hi, c)
				}
			case 6:
				a, b := next()-128, next()-128
				_, _, want := m.rankRange(a, b, false)
				if got := s.Range(a, b); !sameEntries(got, want) {
					t.Fatalf("Range(%d, %d) = %v; want %v", a, b, got, want)
				}
				if got := s.RangeMembers(a, b); !slices.Equal(got, entryMembers(want)) {
					t.Fatalf("RangeMembers(%d, %d) = %q; want those of %v", a, b, got, want)
				}
			case 7:
				var got Entry
				var ok bool
				max := next()&1 == 1
				if max {
					got, ok = s.PopMax()
				} else {
					got, ok = s.PopMin()
				}
				if ok != (len(m.ents) > 0) {
					t.Fatalf("Pop ok = %v with %d entries", ok, len(m.ents))
				}
				if ok {
					want := m.ents[0]
					if max {
						want = m.ents[len(m.ents)-1]
					}
					if !sameEntries([]Entry{got}, []Entry{want}) {
						t.Fatalf("Pop(max %v) = %v; want %v", max, got, want)
					}
					m.del(want.Member, want.Score)
				}
			case 8:
				a, b := next()-128, next()-128
				_, _, want := m.rankRange(a, b, false)
				want = slices.Clone(want)
				if got := s.RemRangeByRank(a, b); got != len(want) {
					t.Fatalf("RemRangeByRank(%d, %d) = %d; want %d", a, b, got, len(want))
				}
				m.removeAll(want)
			case 9: // bulk add: many distinct members with scores from a pattern
				k := next() * 4
				base := next()
				for i := range k {
					mb := string([]byte{byte(base), byte(i >> 8), byte(i)})
					f := fuzzScores[(i*7+base)%len(fuzzScores)]
					s.Add(AddOptions{}, Entry{mb, f})
					m.add(AddOptions{}, []Entry{{mb, f}})
				}
			case 10:
				lo, hi := sbound(), sbound()
				want := m.filter(func(e Entry) bool { return inScore(e.Score, lo, hi) }, false)
				if got := s.RemRangeByScore(lo, hi); got != len(want) {
					t.Fatalf("RemRangeByScore(%v, %v) = %d; want %d", lo, hi, got, len(want))
				}
				m.removeAll(want)
			case 11, 12, 13:
				lo, hi := lbound(), lbound()
				if !equalScores() {
					s.LexCount(lo, hi) // unspecified result; must not break anything
					continue
				}
				want := m.filter(func(e Entry) bool { return inLex(e.Member, lo, hi) }, false)
				switch op {
				case 11:
					if got := s.LexCount(lo, hi); got != len(want) {
						t.Fatalf("LexCount(%v, %v) = %d; want %d", lo, hi, got, len(want))
					}
				case 12:
					if got := s.RangeByLex(lo, hi, 0, -1); !sameEntries(got, want) {
						t.Fatalf("RangeByLex(%v, %v) = %v; want %v", lo, hi, got, want)
					}
				case 13:
					if got := s.RemRangeByLex(lo, hi); got != len(want) {
						t.Fatalf("RemRangeByLex(%v, %v) = %d; want %d", lo, hi, got, len(want))
					}
					m.removeAll(want)
				}
			case 14: // set every score equal, for the lexicographic operations
				f := score()
				for _, e := range slices.Clone(m.ents) {
					s.Add(AddOptions{}, Entry{e.Member, f})
					m.add(AddOptions{}, []Entry{{e.Member, f}})
				}
			case 15: // the copies: Clone keeps the encoding, a union result and Compact convert
				if len(m.ents) > 300 {
					continue // O(n log n) each: keep long inputs fast (conversions are below 300)
				}
				c := s.Clone()
				u := Union([]*Set{s}, nil, Sum)
				if c.Encoding() != s.Encoding() || !sameEntries(c.Range(0, -1), m.ents) {
					t.Fatalf("Clone: %s %v; want %s %v", c.Encoding(), c.Range(0, -1), s.Encoding(), m.ents)
				}
				if got := u.Range(0, -1); !sameEntries(got, m.ents) {
					t.Fatalf("Union of one set = %v; want %v", got, m.ents)
				}
				if next()&1 == 1 {
					s.Compact()
					if m.tree && len(m.ents) <= lim.Entries && !slices.ContainsFunc(m.ents, func(e Entry) bool { return len(e.Member) > lim.Value }) {
						m.tree = false
						for i := range m.ents {
							m.ents[i].Score += 0 // -0 becomes 0
							m.score[m.ents[i].Member] = m.ents[i].Score
						}
					}
				}
				for _, x := range []*Set{c, u} {
					if err := x.check(); err != nil {
						t.Fatalf("step %d: copy invariant: %v", step, err)
					}
				}
			}
			if s.Len() != len(m.ents) {
				t.Fatalf("step %d: Len %d; want %d", step, s.Len(), len(m.ents))
			}
			if got, want := s.Encoding(), m.encoding(); got != want {
				t.Fatalf("step %d (op %d): Encoding() = %q with %d entries; want %q", step, op, got, s.Len(), want)
			}
			if err := s.check(); err != nil {
				t.Fatalf("step %d (op %d): invariant: %v", step, op, err)
			}
		}
	})
}

// fuzzLimits are the limits FuzzOps picks from: Redis's defaults, always a tree, and two
// that make conversions frequent (members are 1 or 2 bytes), one of them past idxMin.
var fuzzLimits = []Limits{DefaultLimits, {Entries: 0, Value: 64}, {Entries: 4, Value: 1}, {Entries: 40, Value: 2}}

var fuzzScores = []float64{0, 1, 2, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 5e-324, -5e-324,
	1.7976931348623157e308, -1.7976931348623157e308, 1.5, -1, 3, 0.1, 2, 1}
