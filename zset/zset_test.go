package zset

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

var (
	pInf  = math.Inf(1)
	nInf  = math.Inf(-1)
	nZero = math.Copysign(0, -1)
)

func incl(f float64) ScoreBound { return ScoreBound{Value: f} }
func excl(f float64) ScoreBound { return ScoreBound{Value: f, Exclusive: true} }
func lexIncl(m string) LexBound { return LexBound{Member: m} }
func lexExcl(m string) LexBound { return LexBound{Member: m, Exclusive: true} }

// build builds a set from alternating member, score pairs.
func build(t *testing.T, es ...Entry) *Set {
	t.Helper()
	s := New()
	if _, err := s.Add(AddOptions{}, es...); err != nil {
		t.Fatal(err)
	}
	return s
}

func mustCheck(t *testing.T, s *Set) {
	t.Helper()
	if err := s.check(); err != nil {
		t.Fatalf("invariant: %v", err)
	}
}

func allOf(s *Set) []Entry {
	var out []Entry
	for m, f := range s.All() {
		out = append(out, Entry{m, f})
	}
	return out
}

func TestAdd(t *testing.T) {
	base := []Entry{{"a", 1}, {"b", 2}}
	tests := []struct {
		name  string
		opt   AddOptions
		add   []Entry
		want  int
		err   error
		after []Entry // full content afterwards, ascending
	}{
		{"new members", AddOptions{}, []Entry{{"c", 3}, {"d", 0}}, 2, nil, []Entry{{"d", 0}, {"a", 1}, {"b", 2}, {"c", 3}}},
		{"update is not counted", AddOptions{}, []Entry{{"a", 5}}, 0, nil, []Entry{{"b", 2}, {"a", 5}}},
		{"CH counts updates", AddOptions{CH: true}, []Entry{{"a", 5}, {"b", 2}, {"c", 1}}, 2, nil, []Entry{{"c", 1}, {"b", 2}, {"a", 5}}},
		{"CH counts each change of a repeated member", AddOptions{CH: true}, []Entry{{"a", 2}, {"a", 3}, {"a", 4}}, 3, nil, []Entry{{"b", 2}, {"a", 4}}},
		{"duplicates: last wins, added once", AddOptions{}, []Entry{{"x", 9}, {"x", -1}}, 1, nil, []Entry{{"x", -1}, {"a", 1}, {"b", 2}}},
		{"NX skips existing", AddOptions{NX: true}, []Entry{{"a", 9}, {"c", 3}}, 1, nil, []Entry{{"a", 1}, {"b", 2}, {"c", 3}}},
		{"XX never adds", AddOptions{XX: true, CH: true}, []Entry{{"a", 9}, {"c", 3}}, 1, nil, []Entry{{"b", 2}, {"a", 9}}},
		{"GT updates only upwards", AddOptions{GT: true, CH: true}, []Entry{{"a", 0}, {"b", 3}}, 1, nil, []Entry{{"a", 1}, {"b", 3}}},
		{"GT still adds new members", AddOptions{GT: true}, []Entry{{"c", -5}}, 1, nil, []Entry{{"c", -5}, {"a", 1}, {"b", 2}}},
		{"LT updates only downwards", AddOptions{LT: true, CH: true}, []Entry{{"a", 0}, {"b", 3}}, 1, nil, []Entry{{"a", 0}, {"b", 2}}},
		{"XX GT", AddOptions{XX: true, GT: true, CH: true}, []Entry{{"a", 7}, {"z", 1}}, 1, nil, []Entry{{"b", 2}, {"a", 7}}},
		{"equal score is no change", AddOptions{CH: true}, []Entry{{"a", 1}}, 0, nil, base},
		{"-0 over 0 is no change", AddOptions{CH: true}, []Entry{{"z", 0}, {"z", nZero}}, 1, nil, []Entry{{"z", 0}, {"a", 1}, {"b", 2}}},
		{"infinities", AddOptions{}, []Entry{{"p", pInf}, {"n", nInf}}, 2, nil, []Entry{{"n", nInf}, {"a", 1}, {"b", 2}, {"p", pInf}}},
		{"NX and XX", AddOptions{NX: true, XX: true}, []Entry{{"c", 1}}, 0, ErrXXAndNX, base},
		{"NX and GT", AddOptions{NX: true, GT: true}, []Entry{{"c", 1}}, 0, ErrGTLTNX, base},
		{"NX and LT", AddOptions{NX: true, LT: true}, []Entry{{"c", 1}}, 0, ErrGTLTNX, base},
		{"GT and LT", AddOptions{GT: true, LT: true}, []Entry{{"c", 1}}, 0, ErrGTLTNX, base},
		{"XX NX GT reports XX and NX first", AddOptions{NX: true, XX: true, GT: true}, []Entry{{"c", 1}}, 0, ErrXXAndNX, base},
		{"NaN anywhere changes nothing", AddOptions{}, []Entry{{"c", 1}, {"a", 7}, {"d", math.NaN()}}, 0, ErrNotFloat, base},
		{"no entries", AddOptions{}, nil, 0, nil, base},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := build(t, base...)
			got, err := s.Add(tt.opt, tt.add...)
			if got != tt.want || !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
				t.Fatalf("Add(%+v, %v) = %d, %v; want %d, %v", tt.opt, tt.add, got, err, tt.want, tt.err)
			}
			if all := allOf(s); !sameEntries(all, tt.after) {
				t.Fatalf("content %v; want %v", all, tt.after)
			}
			mustCheck(t, s)
		})
	}
}

func TestAddIncr(t *testing.T) {
	tests := []struct {
		name   string
		opt    AddOptions
		member string
		delta  float64
		want   float64
		ok     bool
		err    error
		score  float64 // member's score afterwards (NaN: absent)
	}{
		{"existing", AddOptions{}, "a", 2.5, 3.5, true, nil, 3.5},
		{"new member gets delta", AddOptions{}, "n", -4, -4, true, nil, -4},
		{"new member with -0: replies -0, a small set stores 0", AddOptions{}, "n", nZero, nZero, true, nil, 0},
		{"NX on existing: nil", AddOptions{NX: true}, "a", 1, 0, false, nil, 1},
		{"NX on new", AddOptions{NX: true}, "n", 1, 1, true, nil, 1},
		{"XX on new: nil", AddOptions{XX: true}, "n", 1, 0, false, nil, math.NaN()},
		{"GT not greater: nil", AddOptions{GT: true}, "a", -1, 0, false, nil, 1},
		{"GT zero delta: nil", AddOptions{GT: true}, "a", 0, 0, false, nil, 1},
		{"GT greater", AddOptions{GT: true}, "a", 1, 2, true, nil, 2},
		{"LT less", AddOptions{LT: true}, "a", -1, 0, true, nil, 0},
		{"LT not less: nil", AddOptions{LT: true}, "a", 1, 0, false, nil, 1},
		{"inf minus inf is NaN", AddOptions{}, "i", nInf, 0, false, ErrNaNResult, pInf},
		{"inf plus inf", AddOptions{}, "i", pInf, pInf, true, nil, pInf},
		{"NaN delta", AddOptions{}, "a", math.NaN(), 0, false, ErrNotFloat, 1},
		{"bad options", AddOptions{GT: true, LT: true}, "a", 1, 0, false, ErrGTLTNX, 1},
		{"NX XX", AddOptions{NX: true, XX: true}, "a", 1, 0, false, ErrXXAndNX, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := build(t, Entry{"a", 1}, Entry{"i", pInf})
			got, ok, err := s.AddIncr(tt.opt, tt.member, tt.delta)
			if !sameFloat(got, tt.want) || ok != tt.ok || !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
				t.Fatalf("AddIncr(%+v, %q, %v) = %v, %v, %v; want %v, %v, %v", tt.opt, tt.member, tt.delta, got, ok, err, tt.want, tt.ok, tt.err)
			}
			sc, present := s.Score(tt.member)
			if present != !math.IsNaN(tt.score) || present && !sameFloat(sc, tt.score) {
				t.Fatalf("Score(%q) = %v, %v; want %v", tt.member, sc, present, tt.score)
			}
			mustCheck(t, s)
		})
	}
}

func TestIncr(t *testing.T) {
	s := New()
	if f, err := s.Incr("a", 1.5); f != 1.5 || err != nil {
		t.Fatalf("Incr(a, 1.5) = %v, %v; want 1.5, nil", f, err)
	}
	if f, err := s.Incr("a", -3); f != -1.5 || err != nil {
		t.Fatalf("Incr(a, -3) = %v, %v; want -1.5, nil", f, err)
	}
	if f, err := s.Incr("b", pInf); f != pInf || err != nil {
		t.Fatalf("Incr(b, pInf) = %v, %v; want pInf, nil", f, err)
	}
	if _, err := s.Incr("b", nInf); !errors.Is(err, ErrNaNResult) {
		t.Fatalf("Incr(b, -pInf) error %v; want ErrNaNResult", err)
	}
	if _, err := s.Incr("c", math.NaN()); !errors.Is(err, ErrNotFloat) {
		t.Fatalf("Incr(c, NaN) error %v; want ErrNotFloat", err)
	}
	if want := []Entry{{"a", -1.5}, {"b", pInf}}; !sameEntries(allOf(s), want) {
		t.Fatalf("content %v; want %v", allOf(s), want)
	}
	if ErrNaNResult.Error() != "ERR resulting score is not a number (NaN)" {
		t.Fatalf("ErrNaNResult text %q", ErrNaNResult)
	}
}

func TestRemoveScoreMScore(t *testing.T) {
	s := build(t, Entry{"a", 1}, Entry{"", 2}, Entry{"\x00", 3}, Entry{"\xff", 4})
	if n := s.Remove("a", "a", "missing", "\x00"); n != 2 {
		t.Fatalf("Remove = %d; want 2", n)
	}
	tests := []struct {
		m     string
		score float64
		ok    bool
	}{{"a", 0, false}, {"", 2, true}, {"\x00", 0, false}, {"\xff", 4, true}, {"\xff\x00", 0, false}}
	ms := make([]string, len(tests))
	for i, tt := range tests {
		ms[i] = tt.m
		if f, ok := s.Score(tt.m); f != tt.score || ok != tt.ok {
			t.Errorf("Score(%q) = %v, %v; want %v, %v", tt.m, f, ok, tt.score, tt.ok)
		}
	}
	fs, oks := s.MScore(ms...)
	for i, tt := range tests {
		if fs[i] != tt.score || oks[i] != tt.ok {
			t.Errorf("MScore[%d] (%q) = %v, %v; want %v, %v", i, tt.m, fs[i], oks[i], tt.score, tt.ok)
		}
	}
	if fs, oks := s.MScore(); len(fs) != 0 || len(oks) != 0 {
		t.Errorf("MScore() = %v, %v; want empty", fs, oks)
	}
	if s.Len() != 2 {
		t.Errorf("Len = %d; want 2", s.Len())
	}
	mustCheck(t, s)
}

// five is a b c d e with scores 1 2 2 3 pInf: ties broken by member.
func five(t *testing.T) *Set {
	return build(t, Entry{"e", pInf}, Entry{"c", 2}, Entry{"a", 1}, Entry{"d", 3}, Entry{"b", 2})
}

func TestRankAt(t *testing.T) {
	s := five(t)
	for i, m := range []string{"a", "b", "c", "d", "e"} {
		if r, ok := s.Rank(m); r != i || !ok {
			t.Errorf("Rank(%q) = %d, %v; want %d, true", m, r, ok, i)
		}
		if r, ok := s.RevRank(m); r != 4-i || !ok {
			t.Errorf("RevRank(%q) = %d, %v; want %d, true", m, r, ok, 4-i)
		}
		if e, ok := s.At(i); e.Member != m || !ok {
			t.Errorf("At(%d) = %v, %v; want %q", i, e, ok, m)
		}
	}
	if _, ok := s.Rank("x"); ok {
		t.Error("Rank(x) found a missing member")
	}
	if _, ok := s.RevRank("x"); ok {
		t.Error("RevRank(x) found a missing member")
	}
	for _, i := range []int{-1, 5, 100} {
		if e, ok := s.At(i); ok {
			t.Errorf("At(%d) = %v, true; want false", i, e)
		}
	}
}

func TestCount(t *testing.T) {
	s := five(t)
	s.Add(AddOptions{}, Entry{"z", nZero}, Entry{"y", nInf})
	tests := []struct {
		min, max ScoreBound
		want     int
	}{
		{incl(nInf), incl(pInf), 7},
		{incl(2), incl(2), 2},
		{excl(2), incl(3), 1},
		{incl(1), excl(2), 1},
		{excl(2), excl(2), 0},
		{incl(3), incl(1), 0},
		{incl(0), incl(0), 1}, // -0 == 0
		{excl(nZero), incl(1), 1},
		{incl(pInf), incl(pInf), 1},
		{excl(nInf), excl(pInf), 5},
		{incl(nInf), incl(nInf), 1},
		{incl(math.NaN()), incl(pInf), 0},
	}
	for _, tt := range tests {
		if got := s.Count(tt.min, tt.max); got != tt.want {
			t.Errorf("Count(%v, %v) = %d; want %d", tt.min, tt.max, got, tt.want)
		}
	}
}

// lexSet holds members with equal scores, binary ones included.
func lexSet(t *testing.T) *Set {
	s := New()
	for _, m := range []string{"b", "", "a", "\x00", "ab", "\xff", "a\x00", "c"} {
		s.Add(AddOptions{}, Entry{m, 0})
	}
	return s
}

// lexOrder is lexSet's content in memcmp order.
var lexOrder = []string{"", "\x00", "a", "a\x00", "ab", "b", "c", "\xff"}

func membersOf(es []Entry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.Member)
	}
	return out
}

func TestLex(t *testing.T) {
	tests := []struct {
		name     string
		min, max LexBound
		want     []string
	}{
		{"all", LexMin, LexMax, lexOrder},
		{"inclusive", lexIncl("a"), lexIncl("b"), []string{"a", "a\x00", "ab", "b"}},
		{"exclusive", lexExcl("a"), lexExcl("b"), []string{"a\x00", "ab"}},
		{"empty member bound", lexIncl(""), lexIncl(""), []string{""}},
		{"above empty", lexExcl(""), lexExcl("a"), []string{"\x00"}},
		{"to +", lexIncl("c"), LexMax, []string{"c", "\xff"}},
		{"from -", LexMin, lexExcl("\x00"), []string{""}},
		{"min above max", lexIncl("c"), lexIncl("a"), nil},
		{"+ as min", LexMax, LexMax, nil},
		{"- as max", LexMin, LexMin, nil},
		{"equal exclusive", lexExcl("a"), lexIncl("a"), nil},
		{"absent bounds", lexIncl("aa"), lexIncl("bb"), []string{"ab", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := lexSet(t)
			want := tt.want
			if want == nil {
				want = []string{}
			}
			if got := s.LexCount(tt.min, tt.max); got != len(want) {
				t.Errorf("LexCount = %d; want %d", got, len(want))
			}
			if got := membersOf(s.RangeByLex(tt.min, tt.max, 0, -1)); !slices.Equal(got, want) {
				t.Errorf("RangeByLex = %q; want %q", got, want)
			}
			rev := slices.Clone(want)
			slices.Reverse(rev)
			if got := membersOf(s.RevRangeByLex(tt.max, tt.min, 0, -1)); !slices.Equal(got, rev) {
				t.Errorf("RevRangeByLex = %q; want %q", got, rev)
			}
			var it []string
			for m := range s.LexRange(tt.min, tt.max) {
				it = append(it, m)
			}
			if !slices.Equal(it, tt.want) {
				t.Errorf("LexRange yields %q; want %q", it, tt.want)
			}
			it = nil
			for m := range s.RevLexRange(tt.max, tt.min) {
				it = append(it, m)
			}
			if len(it) != len(rev) || len(it) > 0 && !slices.Equal(it, rev) {
				t.Errorf("RevLexRange yields %q; want %q", it, rev)
			}
			if got := s.RemRangeByLex(tt.min, tt.max); got != len(want) {
				t.Errorf("RemRangeByLex = %d; want %d", got, len(want))
			}
			if s.Len() != len(lexOrder)-len(want) {
				t.Errorf("Len after RemRangeByLex = %d", s.Len())
			}
			mustCheck(t, s)
		})
	}
	s := lexSet(t)
	if got := membersOf(s.RangeByLex(LexMin, LexMax, 2, 3)); !slices.Equal(got, lexOrder[2:5]) {
		t.Errorf("RangeByLex LIMIT 2 3 = %q; want %q", got, lexOrder[2:5])
	}
	if got := membersOf(s.RevRangeByLex(LexMax, LexMin, 1, 2)); !slices.Equal(got, []string{"c", "b"}) {
		t.Errorf("RevRangeByLex LIMIT 1 2 = %q; want [c b]", got)
	}
	if got := s.RangeByLex(LexMin, LexMax, -1, 2); len(got) != 0 {
		t.Errorf("RangeByLex LIMIT -1 2 = %q; want empty", membersOf(got))
	}
}

func TestRange(t *testing.T) {
	tests := []struct {
		start, stop int
		want        string // members, ZRANGE
		rev         string // members, ZREVRANGE
	}{
		{0, -1, "abcde", "edcba"},
		{0, 0, "a", "e"},
		{1, 3, "bcd", "dcb"},
		{-2, -1, "de", "ba"},
		{-100, 1, "ab", "ed"},
		{3, 100, "de", "ba"},
		{4, 4, "e", "a"},
		{5, 10, "", ""},
		{3, 2, "", ""},
		{-1, -2, "", ""},
		{-100, -50, "", ""},
		{0, -6, "", ""},
	}
	s := five(t)
	for _, tt := range tests {
		want := strings.Split(tt.want, "")
		if got := membersOf(s.Range(tt.start, tt.stop)); !slices.Equal(got, want) {
			t.Errorf("Range(%d, %d) = %q; want %q", tt.start, tt.stop, got, want)
		}
		rev := strings.Split(tt.rev, "")
		if got := membersOf(s.RevRange(tt.start, tt.stop)); !slices.Equal(got, rev) {
			t.Errorf("RevRange(%d, %d) = %q; want %q", tt.start, tt.stop, got, rev)
		}
		c := five(t)
		if got := c.RemRangeByRank(tt.start, tt.stop); got != len(want) {
			t.Errorf("RemRangeByRank(%d, %d) = %d; want %d", tt.start, tt.stop, got, len(want))
		}
		for _, m := range want {
			if _, ok := c.Score(m); ok {
				t.Errorf("RemRangeByRank(%d, %d) left %q", tt.start, tt.stop, m)
			}
		}
		mustCheck(t, c)
	}
	if got := New().Range(0, -1); len(got) != 0 {
		t.Errorf("empty Range = %v", got)
	}
}

func revString(s string) string {
	b := []byte(s)
	slices.Reverse(b)
	return string(b)
}

func TestRangeByScore(t *testing.T) {
	tests := []struct {
		name          string
		min, max      ScoreBound
		offset, count int
		want          string
	}{
		{"all", incl(nInf), incl(pInf), 0, -1, "abcde"},
		{"ties by member", incl(2), incl(2), 0, -1, "bc"},
		{"exclusive min", excl(1), incl(3), 0, -1, "bcd"},
		{"exclusive max", incl(1), excl(3), 0, -1, "abc"},
		{"both exclusive, equal", excl(2), excl(2), 0, -1, ""},
		{"min above max", incl(3), incl(2), 0, -1, ""},
		{"+pInf only", incl(pInf), incl(pInf), 0, -1, "e"},
		{"exclusive +pInf", incl(3), excl(pInf), 0, -1, "d"},
		{"LIMIT 0 1", incl(nInf), incl(pInf), 0, 1, "a"},
		{"LIMIT 1 2", incl(nInf), incl(pInf), 1, 2, "bc"},
		{"LIMIT 3 -1", incl(nInf), incl(pInf), 3, -1, "de"},
		{"LIMIT 3 -5", incl(nInf), incl(pInf), 3, -5, "de"},
		{"LIMIT 5 1", incl(nInf), incl(pInf), 5, 1, ""},
		{"LIMIT 0 0", incl(nInf), incl(pInf), 0, 0, ""},
		{"negative offset", incl(nInf), incl(pInf), -1, 2, ""},
		{"LIMIT inside bounds", incl(2), incl(3), 1, 10, "cd"},
		{"NaN bound", incl(math.NaN()), incl(pInf), 0, -1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := five(t)
			want := strings.Split(tt.want, "")
			if got := membersOf(s.RangeByScore(tt.min, tt.max, tt.offset, tt.count)); !slices.Equal(got, want) {
				t.Errorf("RangeByScore = %q; want %q", got, want)
			}
			// REV walks the same range downwards, and LIMIT applies to that walk.
			all := strings.Split(revString(strings.Join(membersOf(s.RangeByScore(tt.min, tt.max, 0, -1)), "")), "")
			rev := limitStrings(all, tt.offset, tt.count)
			if got := membersOf(s.RevRangeByScore(tt.max, tt.min, tt.offset, tt.count)); !slices.Equal(got, rev) {
				t.Errorf("RevRangeByScore = %q; want %q", got, rev)
			}
		})
	}
}

func limitStrings(s []string, offset, count int) []string {
	if len(s) == 1 && s[0] == "" {
		s = nil
	}
	if offset < 0 || offset >= len(s) {
		return []string{}
	}
	s = s[offset:]
	if count >= 0 && count < len(s) {
		s = s[:count]
	}
	return s
}

func TestRemRangeByScore(t *testing.T) {
	tests := []struct {
		min, max ScoreBound
		left     string
	}{
		{incl(2), incl(2), "ade"},
		{excl(1), excl(pInf), "ae"},
		{incl(nInf), incl(pInf), ""},
		{incl(5), incl(4), "abcde"},
		{incl(pInf), incl(pInf), "abcd"},
	}
	for _, tt := range tests {
		s := five(t)
		got := s.RemRangeByScore(tt.min, tt.max)
		if left := strings.Join(membersOf(allOf(s)), ""); left != tt.left || got != 5-len(tt.left) {
			t.Errorf("RemRangeByScore(%v, %v) = %d leaving %q; want %d leaving %q", tt.min, tt.max, got, left, 5-len(tt.left), tt.left)
		}
		mustCheck(t, s)
	}
}

func TestPop(t *testing.T) {
	s := five(t)
	if e, ok := s.PopMin(); e != (Entry{"a", 1}) || !ok {
		t.Fatalf("PopMin = %v, %v; want {a 1}, true", e, ok)
	}
	if e, ok := s.PopMax(); e != (Entry{"e", pInf}) || !ok {
		t.Fatalf("PopMax = %v, %v; want {e +Inf}, true", e, ok)
	}
	if got := s.PopMaxN(0); len(got) != 0 {
		t.Fatalf("PopMaxN(0) = %v; want empty", got)
	}
	if got := s.PopMinN(-1); len(got) != 0 {
		t.Fatalf("PopMinN(-1) = %v; want empty", got)
	}
	if got := s.PopMaxN(2); !sameEntries(got, []Entry{{"d", 3}, {"c", 2}}) {
		t.Fatalf("PopMaxN(2) = %v; want [{d 3} {c 2}]", got)
	}
	if got := s.PopMinN(5); !sameEntries(got, []Entry{{"b", 2}}) {
		t.Fatalf("PopMinN(5) = %v; want [{b 2}]", got)
	}
	if e, ok := s.PopMin(); ok {
		t.Fatalf("PopMin on empty = %v, true", e)
	}
	if e, ok := s.PopMax(); ok {
		t.Fatalf("PopMax on empty = %v, true", e)
	}
	if got := s.PopMinN(3); len(got) != 0 {
		t.Fatalf("PopMinN on empty = %v", got)
	}
	mustCheck(t, s)
}

func TestRandMember(t *testing.T) {
	s := five(t)
	r := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		count, want int
		distinct    bool
	}{{0, 0, true}, {3, 3, true}, {5, 5, true}, {9, 5, true}, {-3, 3, false}, {-20, 20, false}}
	for _, tt := range tests {
		for _, rr := range []*rand.Rand{r, nil} {
			got := s.RandMember(rr, tt.count)
			if len(got) != tt.want {
				t.Fatalf("RandMember(%d) returned %d; want %d", tt.count, len(got), tt.want)
			}
			seen := map[string]bool{}
			for _, e := range got {
				if f, ok := s.Score(e.Member); !ok || f != e.Score {
					t.Fatalf("RandMember(%d) returned %v, not in the set", tt.count, e)
				}
				if tt.distinct && seen[e.Member] {
					t.Fatalf("RandMember(%d) repeated %q", tt.count, e.Member)
				}
				seen[e.Member] = true
			}
		}
	}
	if got := New().RandMember(r, 3); len(got) != 0 {
		t.Fatalf("RandMember on empty = %v", got)
	}
	// Every member is reachable: 2000 single picks over 5 members.
	hits := map[string]int{}
	for range 2000 {
		hits[s.RandMember(r, 1)[0].Member]++
	}
	for _, m := range []string{"a", "b", "c", "d", "e"} {
		if hits[m] < 200 {
			t.Errorf("member %q picked %d times out of 2000", m, hits[m])
		}
	}
}

func TestIterators(t *testing.T) {
	s := five(t)
	if got := strings.Join(membersOf(allOf(s)), ""); got != "abcde" {
		t.Fatalf("All = %q; want abcde", got)
	}
	var back []string
	for m := range s.Backward() {
		back = append(back, m)
	}
	if got := strings.Join(back, ""); got != "edcba" {
		t.Fatalf("Backward = %q; want edcba", got)
	}
	var sr []string
	for m := range s.ScoreRange(excl(1), incl(3)) {
		sr = append(sr, m)
	}
	if got := strings.Join(sr, ""); got != "bcd" {
		t.Fatalf("ScoreRange((1, 3) = %q; want bcd", got)
	}
	sr = nil
	for m := range s.RevScoreRange(incl(2), incl(nInf)) {
		sr = append(sr, m)
	}
	if got := strings.Join(sr, ""); got != "cba" {
		t.Fatalf("RevScoreRange(2, -pInf) = %q; want cba", got)
	}
	for range s.ScoreRange(incl(math.NaN()), incl(pInf)) {
		t.Fatal("ScoreRange with a NaN bound yielded")
	}
	for range s.RevScoreRange(incl(pInf), incl(math.NaN())) {
		t.Fatal("RevScoreRange with a NaN bound yielded")
	}
	if got := New().RangeByScore(incl(nInf), incl(pInf), 0, -1); len(got) != 0 {
		t.Fatalf("RangeByScore on an empty set = %v", got)
	}
	// Early break.
	n := 0
	for range s.All() {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Fatalf("break after 2 saw %d", n)
	}
}

func TestIterateWhileModifying(t *testing.T) {
	t.Run("remove current and next", func(t *testing.T) {
		s := five(t)
		var got []string
		for m := range s.All() {
			got = append(got, m)
			if m == "b" {
				s.Remove("b", "c")
			}
		}
		if strings.Join(got, "") != "abde" {
			t.Fatalf("yielded %q; want abde", got)
		}
	})
	t.Run("add ahead and behind", func(t *testing.T) {
		s := five(t)
		var got []string
		for m := range s.All() {
			got = append(got, m)
			if m == "c" {
				s.Add(AddOptions{}, Entry{"0", 0}, Entry{"cc", 2.5})
			}
		}
		if strings.Join(got, "") != "abccdce"[:2]+"c"+"cc"+"de" {
			t.Fatalf("yielded %q; want a b c cc d e", got)
		}
	})
	t.Run("pop everything while walking backward", func(t *testing.T) {
		s := five(t)
		var got []string
		for m := range s.Backward() {
			got = append(got, m)
			s.PopMax()
		}
		if strings.Join(got, "") != "edcba" || s.Len() != 0 {
			t.Fatalf("yielded %q, Len %d; want edcba, 0", got, s.Len())
		}
	})
	t.Run("rescore the current member upwards", func(t *testing.T) {
		s := five(t)
		var got []string
		for m := range s.All() {
			got = append(got, m)
			if m == "a" {
				s.Add(AddOptions{}, Entry{"a", 10})
			}
		}
		// a moves behind d: the walk continues after a's old place and meets it again.
		if strings.Join(got, "") != "abcdae" {
			t.Fatalf("yielded %q; want abcdae", got)
		}
	})
}

func TestCloneIndependent(t *testing.T) {
	s := five(t)
	c := s.Clone()
	c.Add(AddOptions{}, Entry{"x", 0})
	c.Remove("a")
	s.Incr("e", nInf) // NaN: error, no change
	s.Add(AddOptions{}, Entry{"b", 100})
	if got := strings.Join(membersOf(allOf(s)), ""); got != "acdeb"[:4]+"b" && got != "acdbe" {
		t.Fatalf("original = %q", got)
	}
	if got := strings.Join(membersOf(allOf(c)), ""); got != "xbcde" {
		t.Fatalf("clone = %q; want xbcde", got)
	}
	mustCheck(t, s)
	mustCheck(t, c)
	if e := New().Clone(); e.Len() != 0 {
		t.Fatal("clone of empty is not empty")
	}
}

func TestZeroValue(t *testing.T) {
	var s Set
	if s.Len() != 0 || s.Range(0, -1) != nil || s.Count(incl(nInf), incl(pInf)) != 0 {
		t.Fatal("zero Set is not empty")
	}
	if _, ok := s.Score("a"); ok {
		t.Fatal("zero Set has a member")
	}
	if n := s.RemRangeByRank(0, -1); n != 0 {
		t.Fatalf("RemRangeByRank on zero Set = %d", n)
	}
	if n, err := s.Add(AddOptions{}, Entry{"a", 1}); n != 1 || err != nil {
		t.Fatalf("Add on zero Set = %d, %v", n, err)
	}
	mustCheck(t, &s)
}

// TestLargeAndDrain grows a set through several tree levels, drains it in different ways
// and checks that storage is released.
func TestLargeAndDrain(t *testing.T) {
	n := 100_000
	if raceEnabled {
		n = 20_000
	}
	r := rand.New(rand.NewPCG(9, 9))
	s := New()
	for _, i := range r.Perm(n) {
		s.Add(AddOptions{}, Entry{string(rune('a'+i%26)) + string(make([]byte, i%5)) + intStr(i), float64(i % 1000)})
	}
	mustCheck(t, s)
	fill := leafFill(s)
	if fill < 0.80 {
		t.Errorf("random inserts left leaves %.0f%% full; want >= 80%%", fill*100)
	}
	capBefore := s.tree().sl.capacity()
	// Drain both ends in batches: the edge nodes underflow next to full siblings.
	for range 40 {
		lo, hi := s.PopMinN(n/200), s.PopMaxN(n/400)
		if len(lo) != n/200 || len(hi) != n/400 || lo[0].Score > hi[0].Score {
			t.Fatalf("PopMinN/PopMaxN returned %d/%d entries", len(lo), len(hi))
		}
		mustCheck(t, s)
	}
	// Remove 90% at random ranks through several paths.
	for s.Len() > n/10 {
		switch r.IntN(3) {
		case 0:
			s.PopMin()
		case 1:
			e, _ := s.At(r.IntN(s.Len()))
			s.Remove(e.Member)
		default:
			k := r.IntN(s.Len())
			s.RemRangeByRank(k, k+r.IntN(50))
		}
	}
	mustCheck(t, s)
	if c := s.tree().sl.capacity(); c*2 > capBefore {
		t.Errorf("slab capacity %d after shrinking to %d (was %d)", c, s.Len(), capBefore)
	}
	if len(s.tree().ix.tab) > 4*indexSize(s.Len()) {
		t.Errorf("index size %d for %d members", len(s.tree().ix.tab), s.Len())
	}
	s.RemRangeByScore(incl(nInf), incl(pInf))
	mustCheck(t, s)
	if s.tree() != nil || s.p != nil {
		t.Error("a drained set keeps storage")
	}
}

func intStr(i int) string {
	b := []byte{}
	for {
		b = append(b, byte('0'+i%10))
		if i /= 10; i == 0 {
			return string(b)
		}
	}
}

// leafFill returns the average fill of the leaves.
func leafFill(s *Set) float64 {
	leaves, total := 0, 0
	s.tree().eachLeaf(func(l *leaf) {
		leaves++
		total += int(l.n)
	})
	return float64(total) / float64(leaves*leafCap)
}

// TestQueueCycleDoesNotAllocate checks that a small set emptied by every pop (a queue
// drained as it is fed) reuses its storage, so that only the popped member's copy is
// allocated, and that reads and score updates do not allocate at all.
func TestQueueCycleDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under -race")
	}
	s := New()
	job := []Entry{{"job", 1}}
	s.Add(AddOptions{}, job...)
	s.PopMin()
	if a := testing.AllocsPerRun(100, func() {
		s.Add(AddOptions{}, job...)
		s.PopMin()
	}); a > 1 {
		t.Errorf("push+pop on an emptied set: %v allocations; want at most 1 (the popped member)", a)
	}
	mustCheck(t, s)
	for i := range 1000 {
		s.Add(AddOptions{}, Entry{intStr(i), float64(i)})
	}
	i := 0
	if a := testing.AllocsPerRun(100, func() {
		i++
		s.Score("500")
		s.Rank("500")
		s.RevRank("7")
		s.Add(AddOptions{}, Entry{"500", float64(i % 7)})
		s.Count(incl(3), incl(300))
	}); a != 0 {
		t.Errorf("Score/Rank/Add-update/Count: %v allocations; want 0", a)
	}
	mustCheck(t, s)
}

// TestResultsAreCopies checks that returned members stay intact when the set changes
// afterwards: members live in reused byte chunks, and results must not be views of them.
func TestResultsAreCopies(t *testing.T) {
	calls := []struct {
		name string
		get  func(s *Set) []string
	}{
		{"Range", func(s *Set) []string { return membersOf(s.Range(0, -1)) }},
		{"RevRange", func(s *Set) []string { return membersOf(s.RevRange(0, -1)) }},
		{"RangeByScore", func(s *Set) []string { return membersOf(s.RangeByScore(incl(nInf), incl(pInf), 0, -1)) }},
		{"RevRangeByScore", func(s *Set) []string { return membersOf(s.RevRangeByScore(incl(pInf), incl(nInf), 0, 2)) }},
		{"RangeByLex", func(s *Set) []string { return membersOf(s.RangeByLex(LexMin, LexMax, 0, -1)) }},
		{"RevRangeByLex", func(s *Set) []string { return membersOf(s.RevRangeByLex(LexMax, LexMin, 1, -1)) }},
		{"At", func(s *Set) []string { e, _ := s.At(1); return []string{e.Member} }},
		{"PopMin", func(s *Set) []string { e, _ := s.PopMin(); return []string{e.Member} }},
		{"PopMax", func(s *Set) []string { e, _ := s.PopMax(); return []string{e.Member} }},
		{"PopMinN", func(s *Set) []string { return membersOf(s.PopMinN(2)) }},
		{"PopMaxN", func(s *Set) []string { return membersOf(s.PopMaxN(3)) }},
		{"RandMember", func(s *Set) []string { return membersOf(s.RandMember(nil, -4)) }},
		{"All", func(s *Set) []string {
			var out []string
			for m := range s.All() {
				out = append(out, m)
			}
			return out
		}},
		{"Backward", func(s *Set) []string {
			var out []string
			for m := range s.Backward() {
				out = append(out, m)
			}
			return out
		}},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			s := New()
			for _, m := range []string{"alpha", "bravo", "charlie"} {
				s.Add(AddOptions{}, Entry{m, 0})
			}
			got := c.get(s)
			want := slices.Clone(got)
			for i := range want {
				want[i] = string([]byte(want[i])) // detach from whatever got points to
			}
			// Empty the set (it keeps and reuses its chunks) and refill it.
			s.RemRangeByRank(0, -1)
			for _, m := range []string{"xxxxx", "yyyyy", "zzzzzzz", "wwwww"} {
				s.Add(AddOptions{}, Entry{m, 1})
			}
			for i := range got {
				if got[i] != want[i] || !strings.Contains("alpha bravo charlie", got[i]) {
					t.Fatalf("result %d changed to %q after the set changed", i, got[i])
				}
			}
		})
	}
}

func arenaBytes(s *Set) int {
	t := 0
	for _, b := range s.tree().sl.bytes {
		t += cap(b)
	}
	return t
}

// TestArenaReclaimed churns members through a set of stable size and checks that the
// bytes deleted members leave behind are reclaimed, for shared chunks and for members
// big enough to get chunks of their own.
func TestArenaReclaimed(t *testing.T) {
	s := New()
	const n = 5000
	member := func(i int) string { return strings.Repeat(intStr(i), 1+32/len(intStr(i))) }
	for i := range n {
		s.Add(AddOptions{}, Entry{member(i), float64(i)})
	}
	peak := 0
	for round := 1; round <= 20; round++ {
		for i := range n {
			s.Remove(member((round-1)*n + i))
			s.Add(AddOptions{}, Entry{member(round*n + i), float64(i)})
		}
		peak = max(peak, arenaBytes(s))
	}
	mustCheck(t, s)
	live := 0
	for _, l := range s.tree().sl.live {
		live += int(l)
	}
	if peak > 3*live+2*arenaChunk {
		t.Errorf("arena peaked at %d bytes for %d live bytes", peak, live)
	}
	// Big members: each gets a chunk, freed and reused.
	big := strings.Repeat("B", bigMember+1)
	for i := range 50 {
		s.Add(AddOptions{}, Entry{big + intStr(i), 1e9})
	}
	mustCheck(t, s)
	chunks := len(s.tree().sl.bytes)
	for i := range 50 {
		s.Remove(big + intStr(i))
		s.Add(AddOptions{}, Entry{big + intStr(i+100), 2e9})
	}
	mustCheck(t, s)
	if len(s.tree().sl.bytes) > chunks+1 {
		t.Errorf("big members: %d chunks after churn, %d before", len(s.tree().sl.bytes), chunks)
	}
	if got, ok := s.Score(big + intStr(120)); !ok || got != 2e9 {
		t.Errorf("Score(big member) = %v, %v; want 2e9, true", got, ok)
	}
	if e, _ := s.PopMax(); e.Member != big+intStr(149) {
		t.Errorf("PopMax = %q...; want the last big member", e.Member[len(e.Member)-3:])
	}
	mustCheck(t, s)
}

// TestRangeRemovalRebalances removes large runs from the middle of a big set, which
// empties whole leaves and makes inner nodes underflow next to siblings of every size,
// so that merges and borrows in both directions happen at every level.
func TestRangeRemovalRebalances(t *testing.T) {
	n := 60_000
	if raceEnabled {
		n = 15_000
	}
	r := rand.New(rand.NewPCG(11, 12))
	for round := range 3 {
		s := New()
		for i := range n {
			s.Add(AddOptions{}, Entry{intStr(i), r.Float64()})
		}
		want := n
		for s.Len() > 100 {
			k, stop := r.IntN(s.Len()), 0
			switch r.IntN(3) {
			case 0:
				k = 0 // the leftmost nodes borrow from their right siblings
			case 1:
				k = max(0, s.Len()-1-r.IntN(n/20)) // the rightmost from their left ones
			}
			stop = k + r.IntN(n/20)
			got := s.RemRangeByRank(k, stop)
			want -= min(stop, want-1) - k + 1
			if got <= 0 || s.Len() != want {
				t.Fatalf("round %d: RemRangeByRank(%d, %d) = %d, Len %d; want Len %d", round, k, stop, got, s.Len(), want)
			}
			mustCheck(t, s)
		}
	}
}
