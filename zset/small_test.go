package zset

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// filled returns a set with limits lim holding members m000, m001, ... with scores 0, 1, ...
func filled(t *testing.T, lim Limits, n int) *Set {
	t.Helper()
	s := NewWithLimits(lim)
	for i := range n {
		if _, err := s.Add(AddOptions{}, Entry{fmt.Sprintf("m%03d", i), float64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	mustCheck(t, s)
	return s
}

// TestConversionBoundaries checks where each write converts a small set to the tree, on
// both sides of each limit, as Redis's zsetAdd decides it: before adding a member that
// would make the set longer than Entries or that is longer than Value bytes.
func TestConversionBoundaries(t *testing.T) {
	long := strings.Repeat("x", 65)
	edge := strings.Repeat("y", 64)
	tests := []struct {
		name  string
		lim   Limits
		build func(t *testing.T, s *Set)
		want  string
	}{
		{"127 entries", DefaultLimits, func(t *testing.T, s *Set) { addN(s, 127) }, "listpack"},
		{"128 entries", DefaultLimits, func(t *testing.T, s *Set) { addN(s, 128) }, "listpack"},
		{"129 entries", DefaultLimits, func(t *testing.T, s *Set) { addN(s, 129) }, "skiplist"},
		{"128 entries, updates", DefaultLimits, func(t *testing.T, s *Set) { addN(s, 128); addN(s, 128) }, "listpack"},
		{"64-byte member", DefaultLimits, func(t *testing.T, s *Set) { s.Add(AddOptions{}, Entry{edge, 1}) }, "listpack"},
		{"65-byte member", DefaultLimits, func(t *testing.T, s *Set) { s.Add(AddOptions{}, Entry{long, 1}) }, "skiplist"},
		{"65-byte member with XX", DefaultLimits, func(t *testing.T, s *Set) { s.Add(AddOptions{XX: true}, Entry{long, 1}) }, "listpack"},
		{"129th by Incr", DefaultLimits, func(t *testing.T, s *Set) { addN(s, 128); s.Incr("new", 1) }, "skiplist"},
		{"Incr on the 128th", DefaultLimits, func(t *testing.T, s *Set) { addN(s, 128); s.Incr("m127", 1) }, "listpack"},
		{"65-byte member by AddIncr", DefaultLimits, func(t *testing.T, s *Set) { s.AddIncr(AddOptions{}, long, 1) }, "skiplist"},
		{"stays a tree when shrunk", DefaultLimits, func(t *testing.T, s *Set) { addN(s, 129); s.PopMaxN(100) }, "skiplist"},
		{"65-byte member removed: still a tree", DefaultLimits, func(t *testing.T, s *Set) {
			s.Add(AddOptions{}, Entry{"a", 1}, Entry{long, 2})
			s.Remove(long)
		}, "skiplist"},
		{"emptied tree is small again", DefaultLimits, func(t *testing.T, s *Set) { addN(s, 200); s.RemRangeByRank(0, -1); addN(s, 3) }, "listpack"},
		{"emptied by pops", DefaultLimits, func(t *testing.T, s *Set) { addN(s, 200); s.PopMinN(300) }, "listpack"},
		{"entries 0: always a tree", Limits{Entries: 0, Value: 64}, func(t *testing.T, s *Set) { addN(s, 1) }, "skiplist"},
		{"entries 0, emptied", Limits{Entries: 0, Value: 64}, func(t *testing.T, s *Set) { addN(s, 1); s.PopMin() }, "skiplist"},
		{"custom: 4 entries", Limits{Entries: 4, Value: 64}, func(t *testing.T, s *Set) { addN(s, 4) }, "listpack"},
		{"custom: 5 entries", Limits{Entries: 4, Value: 64}, func(t *testing.T, s *Set) { addN(s, 5) }, "skiplist"},
		{"custom: 2-byte members", Limits{Entries: 128, Value: 2}, func(t *testing.T, s *Set) { s.Add(AddOptions{}, Entry{"ab", 1}) }, "listpack"},
		{"custom: 3-byte member", Limits{Entries: 128, Value: 2}, func(t *testing.T, s *Set) { s.Add(AddOptions{}, Entry{"abc", 1}) }, "skiplist"},
		{"SetLimits below the size", DefaultLimits, func(t *testing.T, s *Set) { addN(s, 10); s.SetLimits(Limits{Entries: 9, Value: 64}) }, "skiplist"},
		{"SetLimits below a member", DefaultLimits, func(t *testing.T, s *Set) { addN(s, 10); s.SetLimits(Limits{Entries: 128, Value: 3}) }, "skiplist"},
		{"SetLimits raised: a tree stays", DefaultLimits, func(t *testing.T, s *Set) {
			addN(s, 200)
			s.PopMaxN(150)
			s.SetLimits(Limits{Entries: 1000, Value: 64})
		}, "skiplist"},
		{"huge limits are capped", Limits{Entries: math.MaxInt, Value: -5}, func(t *testing.T, s *Set) { s.Add(AddOptions{}, Entry{"", 1}) }, "listpack"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewWithLimits(tt.lim)
			tt.build(t, s)
			if got := s.Encoding(); got != tt.want {
				t.Errorf("Encoding() = %q with %d entries; want %q", got, s.Len(), tt.want)
			}
			mustCheck(t, s)
		})
	}
	if l := NewWithLimits(Limits{Entries: math.MaxInt, Value: -5}).Limits(); l != (Limits{Entries: math.MaxUint16, Value: 0}) {
		t.Errorf("Limits() = %+v; want capped to {65535, 0}", l)
	}
	if l := new(Set).Limits(); l != DefaultLimits {
		t.Errorf("zero Set: Limits() = %+v; want %+v", l, DefaultLimits)
	}
}

// addN adds (or updates) members m000 .. m(n-1) with scores 0 .. n-1.
func addN(s *Set, n int) {
	for i := range n {
		s.Add(AddOptions{}, Entry{fmt.Sprintf("m%03d", i), float64(i)})
	}
}

// TestResultEncodings checks the encodings of results: set operations give a small set
// when it fits (Redis converts a stored result) and a tree otherwise, Clone keeps the
// encoding (Redis's COPY), Compact converts a tree that fits.
func TestResultEncodings(t *testing.T) {
	small := filled(t, DefaultLimits, 100)
	bigger := filled(t, DefaultLimits, 129)
	long := New()
	long.Add(AddOptions{}, Entry{strings.Repeat("z", 65), 1})
	tests := []struct {
		name string
		s    *Set
		want string
		len  int
	}{
		{"union that fits", Union([]*Set{small, small}, nil, Sum), "listpack", 100},
		{"union over 128", Union([]*Set{small, bigger}, nil, Sum), "skiplist", 129},
		{"union with a 65-byte member", Union([]*Set{small, long}, nil, Sum), "skiplist", 101},
		{"inter of trees that fits", Inter([]*Set{bigger, small}, nil, Max), "listpack", 100},
		{"diff of a tree that fits (removal path)", Diff([]*Set{bigger, filled(t, DefaultLimits, 120)}), "listpack", 9},
		{"diff of a tree that fits (lookup path)", Diff([]*Set{bigger, filled(t, DefaultLimits, 1)}), "listpack", 128},
		{"diff over 128", Diff([]*Set{bigger, New()}), "skiplist", 129},
		{"union with tree limits", Union([]*Set{filled(t, Limits{Entries: 0, Value: 64}, 3)}, nil, Sum), "skiplist", 3},
		{"empty inter", Inter([]*Set{small, nil}, nil, Sum), "listpack", 0},
		{"clone of small", small.Clone(), "listpack", 100},
		{"clone of tree", bigger.Clone(), "skiplist", 129},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.Encoding(); got != tt.want || tt.s.Len() != tt.len {
				t.Errorf("Encoding() = %q, Len() = %d; want %q, %d", got, tt.s.Len(), tt.want, tt.len)
			}
			mustCheck(t, tt.s)
		})
	}
	shrunk := bigger.Clone()
	shrunk.PopMaxN(1)
	shrunk.Compact()
	if got := shrunk.Encoding(); got != "listpack" || !slices.Equal(shrunk.Range(0, -1), filled(t, DefaultLimits, 128).Range(0, -1)) {
		t.Errorf("Compact on 128 members: Encoding() = %q; want listpack with the same entries", got)
	}
	mustCheck(t, shrunk)
	long.Compact()
	if got := long.Encoding(); got != "skiplist" {
		t.Errorf("Compact with a 65-byte member: Encoding() = %q; want skiplist", got)
	}
}

// TestNegativeZero pins the -0 rules, checked against redis-server 7.0.15 (and the same
// code in 7.2+, whose zzlInsertAt stores every integral score as an integer): a small set
// stores -0 as 0, so ZSCORE replies 0 (and keeps replying 0 after the set becomes a
// tree); a set already a tree keeps -0; ZINCRBY replies with the sum it computed (-0)
// whatever it stores; a set operation's result keeps -0 (Redis replies to ZUNION from
// the skiplist it built) until Compact stores it small (ZUNIONSTORE).
func TestNegativeZero(t *testing.T) {
	long := strings.Repeat("x", 65)
	tests := []struct {
		name  string
		build func() (*Set, float64) // the set and Incr's reply, or NaN
		want  float64                // ZSCORE a
	}{
		{"ZADD z -0 a", func() (*Set, float64) {
			s := New()
			s.Add(AddOptions{}, Entry{"a", nZero})
			return s, math.NaN()
		}, 0},
		{"small then a 65-byte member", func() (*Set, float64) {
			s := New()
			s.Add(AddOptions{}, Entry{"a", nZero}, Entry{long, 1})
			return s, math.NaN()
		}, 0},
		{"65-byte member first", func() (*Set, float64) {
			s := New()
			s.Add(AddOptions{}, Entry{long, 1}, Entry{"a", nZero})
			return s, math.NaN()
		}, nZero},
		{"over 128 members", func() (*Set, float64) {
			s := New()
			addN(s, 130)
			s.Add(AddOptions{}, Entry{"a", nZero})
			return s, math.NaN()
		}, nZero},
		{"ZINCRBY inc -0 a", func() (*Set, float64) {
			s := New()
			f, _ := s.Incr("a", nZero)
			return s, f
		}, 0},
		{"ZINCRBY on a tree", func() (*Set, float64) {
			s := NewWithLimits(Limits{})
			f, _ := s.Incr("a", nZero)
			return s, f
		}, nZero},
		{"ZUNION result", func() (*Set, float64) {
			s := NewWithLimits(Limits{})
			s.Add(AddOptions{}, Entry{"a", 0})
			return Union([]*Set{s}, []float64{-1}, Sum), math.NaN()
		}, nZero},
		{"ZUNIONSTORE result", func() (*Set, float64) {
			s := NewWithLimits(Limits{})
			s.Add(AddOptions{}, Entry{"a", 0})
			u := Union([]*Set{s}, []float64{-1}, Sum)
			u.SetLimits(DefaultLimits)
			u.Compact()
			return u, math.NaN()
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, incr := tt.build()
			if !math.IsNaN(incr) && !sameFloat(incr, nZero) {
				t.Errorf("Incr reply = %v; want -0", incr)
			}
			got, ok := s.Score("a")
			if !ok || !sameFloat(got, tt.want) {
				t.Errorf("Score(a) = %v, %v (encoding %s); want %v", got, ok, s.Encoding(), FormatScore(tt.want))
			}
			mustCheck(t, s)
		})
	}
}

// TestScoreEncoding checks that every kind of score reads back exactly, with the size
// the format promises.
func TestScoreEncoding(t *testing.T) {
	tests := []struct {
		f    float64
		size int
	}{
		{0, 1}, {1, 1}, {-1, 1}, {111, 1}, {-112, 1}, {112, 2}, {-113, 2}, {127, 2}, {1e6, 4},
		{1.7e12, 7}, {1 << 62, 9}, {-(1 << 62), 9}, {1<<62 + 1024, 9}, {1.5, 5}, {-0.25, 5},
		{math.Inf(1), 5}, {math.Inf(-1), 5}, {0.1, 9}, {5e-324, 9}, {math.MaxFloat64, 9},
		{-math.MaxFloat64, 9}, {1e300, 9}, {123.456, 9},
	}
	for _, tt := range tests {
		b := appendScoreBytes(nil, tt.f)
		got, next := packed(b).score(0)
		if !sameFloat(got, tt.f) || next != len(b) || len(b) != tt.size || scoreLen(b[0]) != len(b) {
			t.Errorf("score %v: %d bytes %x read as %v (next %d, scoreLen %d); want %d bytes", tt.f, len(b), b, got, next, scoreLen(b[0]), tt.size)
		}
	}
}

// TestSetSize pins the size of a Set: the keyspace holds one per key.
func TestSetSize(t *testing.T) {
	if size := unsafe.Sizeof(Set{}); size > 24 {
		t.Errorf("unsafe.Sizeof(Set{}) = %d; want at most 24", size)
	}
	s := New()
	s.Add(AddOptions{}, Entry{"member:0000001", 1})
	if got := s.MemoryUsage(); got > 24+16 {
		t.Errorf("one-member set: MemoryUsage() = %d; want at most 40", got)
	}
	big := filled(t, DefaultLimits, 1000)
	if got := big.MemoryUsage(); got < 1000*16 || got > 1000*200 {
		t.Errorf("1000-member tree: MemoryUsage() = %d; want between 16 and 200 bytes per member", got)
	}
}

// TestCapClasses checks the capacity classes of small buffers against the allocator: up
// to 32 KiB each is a size class (growing to one wastes nothing), the index of every class
// fits Set.capc, and they reach past the largest small set.
func TestCapClasses(t *testing.T) {
	if n := len(capClasses); n > treeClass || capClasses[n-1] < maxSmallBytes+maxSmallBytes/8 {
		t.Fatalf("%d classes up to %d", n, capClasses[n-1])
	}
	for i, c := range capClasses {
		if i > 0 && c <= capClasses[i-1] {
			t.Fatalf("class %d = %d after %d", i, c, capClasses[i-1])
		}
		if c > 0 && c < 32768 {
			if got := cap(slices.Grow([]byte(nil), int(c))); got != int(c) {
				t.Errorf("class %d: %d bytes grow to a capacity of %d", i, c, got)
			}
			if got := cap(slices.Grow([]byte(nil), int(c)+1)); got != int(capClasses[i+1]) {
				t.Errorf("class %d: %d bytes grow to a capacity of %d, not the next class %d", i, c+1, got, capClasses[i+1])
			}
		}
	}
	for _, tc := range []struct{ need, floor, ceil int }{
		{0, 0, 0}, {1, 0, 8}, {16, 16, 16}, {17, 16, 24}, {32767, 28672, 32768}, {40000, 32768, 40960},
	} {
		if got := int(capClasses[capClass(tc.need)]); got != tc.floor {
			t.Errorf("capClass(%d) = %d; want %d", tc.need, got, tc.floor)
		}
		if got := cap(smAlloc(tc.need)); got != tc.ceil {
			t.Errorf("cap(smAlloc(%d)) = %d; want %d", tc.need, got, tc.ceil)
		}
	}
}

// TestSmallFitsBytes checks the byte bound of the small encoding (Redis's lpSafeToAdd):
// an entry that would take the bytes past maxSmallBytes does not fit, whatever the limits.
func TestSmallFitsBytes(t *testing.T) {
	s := NewWithLimits(Limits{Entries: 1000, Value: 1000})
	if !s.smallFits(1000) {
		t.Fatal("an empty set has no room for a 1000-byte member")
	}
	s.smLen = maxSmallBytes - maxEntryExtra - 10 // only smallFits reads it; s is not used after
	if s.smallFits(10) == s.smallFits(11) {
		t.Errorf("smallFits(10) = %v, smallFits(11) = %v at %d bytes", s.smallFits(10), s.smallFits(11), s.smLen)
	}
}

// TestIterateWhileConverting changes the encoding from inside an iterator's loop body.
func TestIterateWhileConverting(t *testing.T) {
	s := filled(t, DefaultLimits, 120)
	var got []string
	for m := range s.All() {
		got = append(got, m)
		if m == "m010" {
			for i := range 20 { // past 128: the set becomes a tree
				s.Add(AddOptions{}, Entry{fmt.Sprintf("n%03d", i), 1000 + float64(i)})
			}
		}
		if m == "m100" {
			s.Remove("m101", "m102")
		}
	}
	if s.Encoding() != "skiplist" || len(got) != 120-2+20 || got[118] != "n000" {
		t.Errorf("iteration across a conversion yielded %d members (encoding %s)", len(got), s.Encoding())
	}
	got = got[:0]
	s = filled(t, DefaultLimits, 50)
	for m := range s.Backward() {
		got = append(got, m)
		if m == "m040" {
			s.SetLimits(Limits{}) // to a tree
			s.Remove("m039")
		}
	}
	if len(got) != 49 || got[48] != "m000" || s.Encoding() != "skiplist" {
		t.Errorf("backward iteration across a conversion yielded %d members", len(got))
	}
}

// TestHostileCounts runs every count, offset and rank argument at its extremes on both
// encodings: nothing panics, results are what Redis returns, and no call allocates more
// than its result needs (a caller-chosen count never sizes an allocation).
func TestHostileCounts(t *testing.T) {
	const big, small = math.MaxInt, math.MinInt
	inf, ninf := ScoreBound{Value: math.Inf(1)}, ScoreBound{Value: math.Inf(-1)}
	calls := []struct {
		name string
		fn   func(s *Set) int // returns the result's length
		want int              // for a 20-member set
	}{
		{"RandMember(MaxInt)", func(s *Set) int { return len(s.RandMember(nil, big)) }, 20},
		{"RandMember(-3)", func(s *Set) int { return len(s.RandMember(nil, -3)) }, 3},
		{"RandMember(19)", func(s *Set) int { return len(s.RandMember(nil, 19)) }, 19},
		{"Range(MinInt, MaxInt)", func(s *Set) int { return len(s.Range(small, big)) }, 20},
		{"Range(MaxInt, MinInt)", func(s *Set) int { return len(s.Range(big, small)) }, 0},
		{"RevRange(MinInt, MaxInt)", func(s *Set) int { return len(s.RevRange(small, big)) }, 20},
		{"RangeByScore LIMIT MaxInt MaxInt", func(s *Set) int { return len(s.RangeByScore(ninf, inf, big, big)) }, 0},
		{"RangeByScore LIMIT 5 MaxInt", func(s *Set) int { return len(s.RangeByScore(ninf, inf, 5, big)) }, 15},
		{"RangeByScore LIMIT MinInt 1", func(s *Set) int { return len(s.RangeByScore(ninf, inf, small, 1)) }, 0},
		{"RevRangeByScore LIMIT MaxInt MaxInt", func(s *Set) int { return len(s.RevRangeByScore(inf, ninf, big, big)) }, 0},
		{"RevRangeByScore LIMIT 18 MaxInt", func(s *Set) int { return len(s.RevRangeByScore(inf, ninf, 18, big)) }, 2},
		{"RevRangeByScore LIMIT 0 MinInt", func(s *Set) int { return len(s.RevRangeByScore(inf, ninf, 0, small)) }, 20},
		{"RangeByLex LIMIT MaxInt MaxInt", func(s *Set) int { return len(s.RangeByLex(LexMin, LexMax, big, big)) }, 0},
		{"RevRangeByLex LIMIT 19 MaxInt", func(s *Set) int { return len(s.RevRangeByLex(LexMax, LexMin, 19, big)) }, 1},
		{"At(MaxInt)", func(s *Set) int { _, ok := s.At(big); return btoi(ok) }, 0},
		{"At(MinInt)", func(s *Set) int { _, ok := s.At(small); return btoi(ok) }, 0},
		{"PopMinN(MaxInt)", func(s *Set) int { return len(s.PopMinN(big)) }, 20},
		{"PopMaxN(MinInt)", func(s *Set) int { return len(s.PopMaxN(small)) }, 0},
		{"RemRangeByRank(MinInt, MaxInt)", func(s *Set) int { return s.RemRangeByRank(small, big) }, 20},
		{"InterCard(MaxInt)", func(s *Set) int { return InterCard([]*Set{s, s}, big) }, 20},
	}
	for _, enc := range []Limits{DefaultLimits, {Entries: 0, Value: 64}} {
		for _, c := range calls {
			t.Run(fmt.Sprintf("entries=%d/%s", enc.Entries, c.name), func(t *testing.T) {
				s := filled(t, enc, 20)
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				got := c.fn(s)
				runtime.ReadMemStats(&after)
				allocated := after.TotalAlloc - before.TotalAlloc
				if got != c.want {
					t.Errorf("%s = %d entries; want %d", c.name, got, c.want)
				}
				if allocated > 64<<10 {
					t.Errorf("%s allocated %d bytes for %d entries", c.name, allocated, got)
				}
			})
		}
	}
	// A negative count is as many independent picks: MinInt must not overflow to a
	// negative length (it is 2^63 picks, which the command layer bounds; here a huge
	// count is only started).
	if got := len(NewWithLimits(DefaultLimits).RandMember(nil, small)); got != 0 {
		t.Errorf("RandMember(MinInt) on an empty set = %d entries; want 0", got)
	}
}

// TestRescore moves entries of an indexed small set (member m%03d at score i) to new
// scores: in place, up and down across marks, to either end, and with a score whose
// encoding has another length, checking the invariants (index included) and the order.
func TestRescore(t *testing.T) {
	tests := []struct {
		name   string
		member int
		score  float64
		rank   int // expected rank afterwards
	}{
		{"same slot, new score", 20, 21, 20},
		{"up one", 20, 22, 21}, // ties order by member: m020 < m022
		{"up across marks", 3, 37, 36},
		{"to the end", 0, 100, 39},
		{"down across marks", 37, 2, 3},
		{"to the start", 39, -5, 0},
		{"longer encoding", 10, 1000, 39},
		{"fraction", 10, 10.25, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := filled(t, DefaultLimits, 40)
			m := fmt.Sprintf("m%03d", tc.member)
			if _, err := s.Add(AddOptions{}, Entry{m, tc.score}); err != nil {
				t.Fatal(err)
			}
			if err := s.check(); err != nil {
				t.Fatal(err)
			}
			if r, _ := s.Rank(m); r != tc.rank {
				t.Errorf("rank %d; want %d", r, tc.rank)
			}
			if sc, _ := s.Score(m); sc != tc.score {
				t.Errorf("score %v; want %v", sc, tc.score)
			}
			for i := range 40 {
				if i == tc.member {
					continue
				}
				if sc, ok := s.Score(fmt.Sprintf("m%03d", i)); !ok || sc != float64(i) {
					t.Fatalf("m%03d: score %v, %v", i, sc, ok)
				}
			}
		})
	}
}

// TestMarkWindows drives the marks of an indexed small set out of their windows in each
// direction: runs of inserts and removals at one place (the head, a mark's rank, the
// middle, the tail), removals of ranges, and rescores across marks, on sets past the
// default limits so that there are many marks, checking the invariants and every rank
// after each step.
func TestMarkWindows(t *testing.T) {
	lim := Limits{Entries: 1000, Value: 64}
	tests := []struct {
		name string
		step func(s *Set, i int)
	}{
		{"push at head", func(s *Set, i int) { s.Add(AddOptions{}, Entry{fmt.Sprintf("h%04d", i), float64(-1 - i)}) }},
		{"pop at head", func(s *Set, i int) { s.PopMin() }},
		{"push at rank 8", func(s *Set, i int) { s.Add(AddOptions{}, Entry{fmt.Sprintf("m007x%04d", 9999-i), 7}) }},
		{"remove at rank 8", func(s *Set, i int) {
			if e, ok := s.At(8); ok {
				s.Remove(e.Member)
			}
		}},
		{"add-remove in the middle", func(s *Set, i int) {
			m := fmt.Sprintf("x%04d", i)
			s.Add(AddOptions{}, Entry{m, float64(s.Len() / 2)})
			if i%3 != 0 {
				s.Remove(m)
			}
		}},
		{"pop at tail", func(s *Set, i int) { s.PopMax() }},
		{"remove ranges", func(s *Set, i int) { s.RemRangeByRank(i%7, i%7+i%19) }},
		{"rescore up", func(s *Set, i int) {
			if e, ok := s.At(i % max(s.Len(), 1)); ok {
				s.Add(AddOptions{}, Entry{e.Member, e.Score + float64(i%40)})
			}
		}},
		{"rescore down", func(s *Set, i int) {
			if e, ok := s.At(i % max(s.Len(), 1)); ok {
				s.Add(AddOptions{}, Entry{e.Member, e.Score - float64(i%40)})
			}
		}},
	}
	for _, tc := range tests {
		for _, n := range []int{17, 24, 25, 100, 300} {
			t.Run(fmt.Sprintf("%s/n=%d", tc.name, n), func(t *testing.T) {
				s := filled(t, lim, n)
				for i := range 2 * n {
					tc.step(s, i)
					if err := s.check(); err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					r := 0
					for m := range s.All() {
						if got, ok := s.Rank(m); !ok || got != r {
							t.Fatalf("step %d: s.Rank(%q) = %d, %v; want %d, true", i, m, got, ok, r)
						}
						r++
					}
				}
			})
		}
	}
}

// TestIndexHysteresis walks a set up past idxMin, down to idxDrop and up again, and
// checks at each size whether it is indexed (gained past idxMin, kept down to
// idxDrop+1), its invariants, every score and rank, and a clone of it.
func TestIndexHysteresis(t *testing.T) {
	s := New()
	var want []string // the members in order
	step := func(i int, wantIdx bool) {
		t.Helper()
		if got := s.indexed(); got != wantIdx {
			t.Fatalf("step %d, %d entries: indexed() = %v; want %v", i, s.Len(), got, wantIdx)
		}
		for _, c := range []*Set{s, s.Clone()} {
			if err := c.check(); err != nil {
				t.Fatalf("step %d, %d entries: %v", i, s.Len(), err)
			}
			if c.indexed() != s.indexed() {
				t.Fatalf("step %d: clone indexed() = %v; want %v", i, c.indexed(), s.indexed())
			}
			for r, m := range want {
				if got, ok := c.Rank(m); !ok || got != r {
					t.Fatalf("step %d: s.Rank(%q) = %d, %v; want %d, true", i, m, got, ok, r)
				}
				if got, ok := c.Score(m); !ok || got != float64(r) {
					t.Fatalf("step %d: s.Score(%q) = %v, %v; want %d, true", i, m, got, ok, r)
				}
			}
			if _, ok := c.Score("absent"); ok {
				t.Fatalf("step %d: s.Score(absent) found", i)
			}
		}
	}
	add := func(i int) {
		m := fmt.Sprintf("m%03d", len(want))
		s.Add(AddOptions{}, Entry{m, float64(len(want))})
		want = append(want, m)
	}
	pop := func() {
		s.PopMax()
		want = want[:len(want)-1]
	}
	i := 0
	for ; s.Len() < idxMin+1; i++ {
		add(i)
		step(i, s.Len() > idxMin)
	}
	for ; s.Len() > idxDrop; i++ {
		pop()
		step(i, s.Len() > idxDrop)
	}
	for ; s.Len() <= idxMin+1; i++ {
		add(i)
		step(i, s.Len() > idxMin)
	}
	// Back and forth across idxMin and within the kept range: the index stays.
	for ; i < 100; i++ {
		if i%2 == 0 {
			pop()
		} else {
			add(i)
		}
		step(i, true)
	}
}

// TestFingerprintLengths looks up members of every length from 0 to 70 bytes (each of
// the fingerprint's paths: under 4, 4-7, 8-16 and longer, one and more 16-byte blocks)
// in an indexed set, and absent members of the same lengths that differ from a present
// one in one byte.
func TestFingerprintLengths(t *testing.T) {
	s := NewWithLimits(Limits{Entries: 200, Value: 70})
	member := func(k int, c byte) string {
		b := []byte(strings.Repeat("ab", k)[:k])
		if k > 0 {
			b[k/2] = c
		}
		return string(b)
	}
	for k := 0; k <= 70; k++ {
		s.Add(AddOptions{}, Entry{member(k, 'x'), float64(k)})
	}
	mustCheck(t, s)
	if !s.indexed() {
		t.Fatalf("a set of %d entries is not indexed", s.Len())
	}
	for k := 0; k <= 70; k++ {
		m := member(k, 'x')
		if got, ok := s.Score(m); !ok || got != float64(k) {
			t.Errorf("s.Score(%q) = %v, %v; want %d, true", m, got, ok, k)
		}
		if r, ok := s.Rank(m); !ok || r != k {
			t.Errorf("s.Rank(%q) = %d, %v; want %d, true", m, r, ok, k)
		}
		if a := member(k, 'y'); k > 0 {
			if got, ok := s.Score(a); ok {
				t.Errorf("s.Score(%q) = %v, true; want absent", a, got)
			}
		}
	}
}

// TestSmallLengthsAndResults stores members whose lengths take one, two and three
// uvarint bytes (0, 127, 128, 16383, 16384, 65535) with scores of every width in a small
// set, and checks every read that walks the entries against the members as added, and
// that the results of ranges (views of one copy of the entries) are unchanged after
// the set is emptied and refilled.
func TestSmallLengthsAndResults(t *testing.T) {
	lengths := []int{0, 1, 127, 128, 16383, 16384, 65535}
	scores := []float64{-3, 200, 1 << 40, 1.5, math.Pi, math.Inf(1), math.Inf(-1)}
	s := NewWithLimits(Limits{Entries: 128, Value: math.MaxUint16})
	var want []Entry
	for i, n := range lengths {
		e := Entry{Member: strings.Repeat(string(rune('a'+i)), n), Score: scores[i]}
		s.Add(AddOptions{}, e)
		want = append(want, e)
	}
	slices.SortFunc(want, cmpEntry)
	if s.Encoding() != "listpack" {
		t.Fatalf("Encoding() = %q; want listpack", s.Encoding())
	}
	mustCheck(t, s)
	members := func(es []Entry) []string {
		var ms []string
		for _, e := range es {
			ms = append(ms, e.Member)
		}
		return ms
	}
	reversed := slices.Clone(want)
	slices.Reverse(reversed)
	tests := []struct {
		name      string
		got, want []string
	}{
		{"RangeMembers all", s.RangeMembers(0, -1), members(want)},
		{"RangeMembers middle", s.RangeMembers(2, 4), members(want[2:5])},
		{"RevRangeMembers all", s.RevRangeMembers(0, -1), members(reversed)},
		{"RevRangeMembers head", s.RevRangeMembers(0, 1), members(reversed[:2])},
		{"Range all", members(s.Range(0, -1)), members(want)},
		{"RevRange tail", members(s.RevRange(5, -1)), members(reversed[5:])},
		{"RangeByScore", members(s.RangeByScore(ScoreBound{Value: math.Inf(-1)}, ScoreBound{Value: math.Pi}, 1, 3)), members(want[1:4])},
	}
	for i, e := range want {
		if r, ok := s.Rank(e.Member); !ok || r != i {
			t.Errorf("Rank(%d bytes) = %d, %v; want %d", len(e.Member), r, ok, i)
		}
		if sc, ok := s.Score(e.Member); !ok || sc != e.Score {
			t.Errorf("Score(%d bytes) = %v, %v; want %v", len(e.Member), sc, ok, e.Score)
		}
	}
	scores2 := s.Range(0, -1)
	s.PopMinN(len(lengths))
	for i := range lengths {
		s.Add(AddOptions{}, Entry{Member: strings.Repeat("z", 100+i), Score: float64(i)})
	}
	for _, tt := range tests {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s after the set changed: %d members, lengths %v; want lengths %v", tt.name, len(tt.got), lens(tt.got), lens(tt.want))
		}
	}
	if !slices.Equal(scores2, want) {
		t.Errorf("Range(0, -1) after the set changed differs from the entries added")
	}
}

func lens(ms []string) []int {
	var n []int
	for _, m := range ms {
		n = append(n, len(m))
	}
	return n
}
