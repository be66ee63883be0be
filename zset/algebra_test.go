package zset

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/zlite/zlite/internal/testmain"
)

var (
	inf    = math.Inf(1)
	negInf = math.Inf(-1)
	negZ   = math.Copysign(0, -1)
)

// setOf builds a set from entries; a nil argument list gives an empty set.
func setOf(t testing.TB, entries ...Entry) *Set {
	t.Helper()
	s := New()
	if _, err := s.Add(AddOptions{}, entries...); err != nil {
		t.Fatal(err)
	}
	return s
}

func entriesOf(s *Set) []Entry {
	var out []Entry
	for m, score := range s.All() {
		out = append(out, Entry{Member: m, Score: score})
	}
	return out
}

// identicalEntries compares members, order and score bits (so 0 and -0 differ).
func identicalEntries(a, b []Entry) bool {
	return slices.EqualFunc(a, b, func(x, y Entry) bool { return x.Member == y.Member && sameBits(x.Score, y.Score) })
}

func TestSetAlgebra(t *testing.T) {
	e := func(m string, f float64) Entry { return Entry{Member: m, Score: f} }
	named := map[string][]Entry{
		"a":    {e("m", 1), e("x", 2)},
		"b":    {e("m", 3), e("y", 4)},
		"c":    {e("m", 5), e("x", 6), e("z", 7)},
		"pinf": {e("m", inf)},
		"ninf": {e("m", negInf)},
		// Union over P, Q, R (sizes 1, 2, 3) sums inf + 5 + -inf; over P, S, T, inf + -inf + 5.
		"P":     {e("m", inf)},
		"Q":     {e("m", 5), e("q", 0)},
		"R":     {e("m", negInf), e("q", 0), e("r", 0)},
		"S":     {e("m", negInf), e("s", 0)},
		"T":     {e("m", 5), e("t", 0), e("u", 0)},
		"fin":   {e("m", 5), e("x", 1)},
		"infs":  {e("m", inf), e("x", 2)},
		"zeros": {e("m", 0), e("n", 1)},
		"zero":  {e("m", 0)},
		"empty": nil,
		"three": {e("m", 1), e("x", 2), e("y", 3)},
		"x9":    {e("x", 9)},
		"ten": {e("m0", 0), e("m1", 1), e("m2", 2), e("m3", 3), e("m4", 4), e("m5", 5),
			e("m6", 6), e("m7", 7), e("m8", 8), e("m9", 9)},
		"m0":    {e("m0", 100)},
		"m5":    {e("m5", 100), e("zz", 1)},
		"m1":    {e("m", 1)},
		"m2":    {e("m", 2)},
		"m3":    {e("m", 3)},
		"mxyz":  {e("m", 1), e("x", 1), e("y", 1)},
		"mxz":   {e("m", 2), e("x", 2), e("z", 2)},
		"onlyx": {e("x", 1)},
	}
	tests := []struct {
		name    string
		op      string   // union, inter, diff
		sets    []string // "" is a nil *Set (a missing key)
		weights []float64
		agg     Aggregate
		want    []Entry
	}{
		{name: "union sum", op: "union", sets: []string{"a", "b"}, want: []Entry{e("x", 2), e("m", 4), e("y", 4)}},
		{name: "union min", op: "union", sets: []string{"a", "b"}, agg: Min, want: []Entry{e("m", 1), e("x", 2), e("y", 4)}},
		{name: "union max", op: "union", sets: []string{"a", "b"}, agg: Max, want: []Entry{e("x", 2), e("m", 3), e("y", 4)}},
		{name: "union weights", op: "union", sets: []string{"a", "b"}, weights: []float64{2, -1},
			want: []Entry{e("y", -4), e("m", -1), e("x", 4)}},
		{name: "union three sets", op: "union", sets: []string{"m1", "m2", "m3"}, want: []Entry{e("m", 6)}},
		{name: "union missing key", op: "union", sets: []string{"a", ""}, want: []Entry{e("m", 1), e("x", 2)}},
		{name: "union only missing", op: "union", sets: []string{"", ""}, want: nil},
		{name: "union no sets", op: "union", sets: nil, want: nil},
		{name: "union inf + -inf is 0", op: "union", sets: []string{"pinf", "ninf"}, want: []Entry{e("m", 0)}},
		{name: "union inf + 5 + -inf: NaN is 0", op: "union", sets: []string{"R", "Q", "P"}, want: []Entry{e("m", 0), e("q", 0), e("r", 0)}},
		{name: "union inf + -inf + 5: 0 + 5", op: "union", sets: []string{"T", "S", "P"}, want: []Entry{e("s", 0), e("t", 0), e("u", 0), e("m", 5)}},
		{name: "union 0 weight times inf is 0", op: "union", sets: []string{"infs"}, weights: []float64{0}, want: []Entry{e("m", 0), e("x", 0)}},
		{name: "union inf weight", op: "union", sets: []string{"a", "m1"}, weights: []float64{inf, negInf}, want: []Entry{e("m", 0), e("x", inf)}},
		{name: "union negative zero", op: "union", sets: []string{"zeros"}, weights: []float64{-1}, want: []Entry{e("n", -1), e("m", negZ)}},
		{name: "union min keeps first zero", op: "union", sets: []string{"zeros", "zero"}, weights: []float64{-1, 1}, agg: Min,
			want: []Entry{e("n", -1), e("m", 0)}},
		{name: "union max keeps first zero", op: "union", sets: []string{"zero", "zeros"}, weights: []float64{-1, 1}, agg: Max,
			want: []Entry{e("m", negZ), e("n", 1)}},

		{name: "inter sum", op: "inter", sets: []string{"a", "c"}, want: []Entry{e("m", 6), e("x", 8)}},
		{name: "inter min", op: "inter", sets: []string{"a", "c"}, agg: Min, want: []Entry{e("m", 1), e("x", 2)}},
		{name: "inter max", op: "inter", sets: []string{"c", "a"}, agg: Max, want: []Entry{e("m", 5), e("x", 6)}},
		{name: "inter weights", op: "inter", sets: []string{"a", "c"}, weights: []float64{10, 0.5}, want: []Entry{e("m", 12.5), e("x", 23)}},
		{name: "inter three", op: "inter", sets: []string{"a", "b", "c"}, want: []Entry{e("m", 9)}},
		{name: "inter missing key", op: "inter", sets: []string{"a", ""}, want: nil},
		{name: "inter empty set", op: "inter", sets: []string{"empty", "a"}, want: nil},
		{name: "inter no sets", op: "inter", sets: nil, want: nil},
		{name: "inter single", op: "inter", sets: []string{"a"}, weights: []float64{-2}, want: []Entry{e("x", -4), e("m", -2)}},
		{name: "inter same set twice", op: "inter", sets: []string{"a", "a"}, want: []Entry{e("m", 2), e("x", 4)}},
		{name: "inter inf + -inf is 0", op: "inter", sets: []string{"pinf", "ninf"}, want: []Entry{e("m", 0)}},
		// The smallest set comes first (equal sizes keep their order): a NaN weighted score
		// there is 0, but in a later set it makes the Sum NaN, which is 0.
		{name: "inter NaN in later set zeroes the sum", op: "inter", sets: []string{"fin", "infs"}, weights: []float64{1, 0},
			want: []Entry{e("m", 0), e("x", 1)}},
		{name: "inter NaN in first set is 0", op: "inter", sets: []string{"infs", "fin"}, weights: []float64{0, 1},
			want: []Entry{e("x", 1), e("m", 5)}},
		{name: "inter NaN ignored by min", op: "inter", sets: []string{"fin", "infs"}, weights: []float64{1, 0}, agg: Min,
			want: []Entry{e("x", 0), e("m", 5)}},
		{name: "inter NaN ignored by max", op: "inter", sets: []string{"fin", "infs"}, weights: []float64{1, 0}, agg: Max,
			want: []Entry{e("x", 1), e("m", 5)}},
		{name: "inter smallest first", op: "inter", sets: []string{"zeros", "zero"}, weights: []float64{-1, 1}, agg: Min,
			want: []Entry{e("m", 0)}},

		{name: "diff", op: "diff", sets: []string{"three", "x9", ""}, want: []Entry{e("m", 1), e("y", 3)}},
		{name: "diff keeps first scores", op: "diff", sets: []string{"c", "onlyx"}, want: []Entry{e("m", 5), e("z", 7)}},
		{name: "diff single", op: "diff", sets: []string{"a"}, want: []Entry{e("m", 1), e("x", 2)}},
		{name: "diff same set", op: "diff", sets: []string{"a", "a"}, want: nil},
		{name: "diff first missing", op: "diff", sets: []string{"", "a"}, want: nil},
		{name: "diff no sets", op: "diff", sets: nil, want: nil},
		{name: "diff by removal", op: "diff", sets: []string{"ten", "m0", "m5"},
			want: []Entry{e("m1", 1), e("m2", 2), e("m3", 3), e("m4", 4), e("m6", 6), e("m7", 7), e("m8", 8), e("m9", 9)}},
		{name: "diff to empty", op: "diff", sets: []string{"m1", "m2", "mxyz"}, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sets := make([]*Set, len(tc.sets))
			seen := map[string]*Set{}
			for i, name := range tc.sets {
				if name == "" {
					continue
				}
				if seen[name] == nil {
					seen[name] = setOf(t, named[name]...)
				}
				sets[i] = seen[name]
			}
			var got *Set
			switch tc.op {
			case "union":
				got = Union(sets, tc.weights, tc.agg)
			case "inter":
				got = Inter(sets, tc.weights, tc.agg)
			case "diff":
				got = Diff(sets)
			}
			if g := entriesOf(got); !identicalEntries(g, tc.want) {
				t.Errorf("%s(%q, %v, %v) = %v; want %v", tc.op, tc.sets, tc.weights, tc.agg, g, tc.want)
			}
			for name, s := range seen {
				if !identicalEntries(entriesOf(s), entriesOf(setOf(t, named[name]...))) {
					t.Errorf("input %s changed to %v", name, entriesOf(s))
				}
			}
			if tc.op == "inter" {
				for limit := range 4 {
					want := len(tc.want)
					if limit > 0 {
						want = min(limit, want)
					}
					if n := InterCard(sets, limit); n != want {
						t.Errorf("InterCard(%q, %d) = %d; want %d", tc.sets, limit, n, want)
					}
				}
			}
		})
	}
}

func TestInterCard(t *testing.T) {
	a := setOf(t, Entry{"m", 1}, Entry{"x", 1}, Entry{"y", 1})
	b := setOf(t, Entry{"m", 2}, Entry{"x", 2}, Entry{"z", 2})
	tests := []struct {
		sets  []*Set
		limit int
		want  int
	}{
		{[]*Set{a, b}, 0, 2},
		{[]*Set{a, b}, 1, 1},
		{[]*Set{a, b}, 2, 2},
		{[]*Set{a, b}, 3, 2},
		{[]*Set{a, b}, -1, 2},
		{[]*Set{a}, 0, 3},
		{[]*Set{a, a}, 0, 3},
		{[]*Set{a, nil}, 0, 0},
		{[]*Set{nil}, 0, 0},
		{nil, 0, 0},
	}
	for _, tc := range tests {
		if got := InterCard(tc.sets, tc.limit); got != tc.want {
			t.Errorf("InterCard(%d sets, %d) = %d; want %d", len(tc.sets), tc.limit, got, tc.want)
		}
	}
}

func TestUnionWeightsLengthPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Union with 1 weight for 2 sets did not panic")
		}
	}()
	Union([]*Set{New(), New()}, []float64{1}, Sum)
}

// TestSetAlgebraRedis runs random ZUNION, ZINTER, ZDIFF (WITHSCORES) and ZINTERCARD
// commands on a real Redis and compares the members, their order and the score texts
// with Union, Inter, Diff and InterCard. The inputs mix small sets (listpack) and large
// ones (skiplist), equal sizes (where the aggregation order is the given order), missing
// keys, a key given twice, edge scores (±inf, huge values) and weights (0, ±inf, -1).
func TestSetAlgebraRedis(t *testing.T) {
	c := redisClient(t)
	ctx := context.Background()
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	format := FormatScore
	if strings.Contains(info, "redis_version:7.0.") || strings.Contains(info, "redis_version:6.") {
		format = FormatScore70
	}
	seed := testmain.Seed(t)
	rng := rand.New(rand.NewPCG(seed, 2))
	scores := []float64{inf, negInf, 0, 1, -1, 2.5, 3, 1e308, -1e308, 0.1, 7}
	weights := []float64{1, 1, 1, 0, -1, 2, 0.5, inf, negInf, 1e10}
	members := make([]string, 300)
	for i := range members {
		members[i] = fmt.Sprintf("m%03d", i)
	}
	rounds := 300
	if testing.Short() || raceEnabled {
		rounds = 60
	}
	for round := range rounds {
		k := 1 + rng.IntN(4)
		keys := make([]string, k)
		sets := make([]*Set, k)
		args := func(cmd string) []any {
			a := []any{cmd, k}
			for _, key := range keys {
				a = append(a, key)
			}
			return a
		}
		sizes := []int{0, 1, 3, 3, 5, 20, 200}
		for i := range k {
			keys[i] = fmt.Sprintf("zset:algebra:%d", i)
			c.Del(ctx, keys[i])
			if rng.IntN(8) == 0 && i > 0 { // the same key twice
				keys[i], sets[i] = keys[i-1], sets[i-1]
				continue
			}
			n := sizes[rng.IntN(len(sizes))]
			if n == 0 {
				continue // a missing key
			}
			s := New()
			zadd := []any{"ZADD", keys[i]}
			span := 5 + rng.IntN(len(members)-5)
			for range n {
				m := members[rng.IntN(span)]
				f := scores[rng.IntN(len(scores))]
				if rng.IntN(3) == 0 {
					f = float64(rng.IntN(2000)-1000) / 8
				}
				if _, err := s.Add(AddOptions{}, Entry{Member: m, Score: f}); err != nil {
					t.Fatal(err)
				}
				zadd = append(zadd, FormatScore(f), m)
			}
			if err := c.Do(ctx, zadd...).Err(); err != nil {
				t.Fatal(err)
			}
			sets[i] = s
		}
		var w []float64
		wargs := []any{}
		if rng.IntN(2) == 0 {
			wargs = append(wargs, "WEIGHTS")
			for range k {
				f := weights[rng.IntN(len(weights))]
				w = append(w, f)
				wargs = append(wargs, FormatScore(f))
			}
		}
		agg := Aggregate(rng.IntN(3))
		aggArgs := []any{"AGGREGATE", []string{"SUM", "MIN", "MAX"}[agg]}

		check := func(name string, got *Set, cmd []any) {
			reply, err := c.Do(ctx, cmd...).StringSlice()
			if err != nil {
				t.Fatalf("round %d: %q: %v", round, cmd, err)
			}
			var ours []string
			for m, f := range got.All() {
				ours = append(ours, m, format(f))
			}
			if !slices.Equal(ours, reply) {
				t.Fatalf("round %d: %s on %v weights %v: ours %q; Redis %q for %q",
					round, name, dump(sets), w, ours, reply, cmd)
			}
		}
		cmd := append(append(append(args("ZUNION"), wargs...), aggArgs...), "WITHSCORES")
		check("Union", Union(sets, w, agg), cmd)
		cmd = append(append(append(args("ZINTER"), wargs...), aggArgs...), "WITHSCORES")
		check("Inter", Inter(sets, w, agg), cmd)
		check("Diff", Diff(sets), append(args("ZDIFF"), "WITHSCORES"))
		limit := rng.IntN(4)
		rn, err := c.Do(ctx, append(args("ZINTERCARD"), "LIMIT", limit)...).Int()
		if err != nil {
			t.Fatal(err)
		}
		if n := InterCard(sets, limit); n != rn {
			t.Fatalf("round %d: InterCard(%v, %d) = %d; Redis %d", round, dump(sets), limit, n, rn)
		}
	}
	for i := range 4 {
		c.Del(ctx, fmt.Sprintf("zset:algebra:%d", i))
	}
}

func dump(sets []*Set) []string {
	var out []string
	for _, s := range sets {
		if s == nil {
			out = append(out, "nil")
			continue
		}
		var b strings.Builder
		for m, f := range s.All() {
			fmt.Fprintf(&b, "%s:%s ", m, FormatScore(f))
		}
		out = append(out, b.String())
	}
	return out
}

func BenchmarkSetAlgebra(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		x, y := New(), New()
		for i := range n {
			x.Add(AddOptions{}, Entry{Member: fmt.Sprintf("member:%08d", i), Score: rng.Float64()})
			y.Add(AddOptions{}, Entry{Member: fmt.Sprintf("member:%08d", i+n/2), Score: rng.Float64()})
		}
		sets := []*Set{x, y}
		b.Run(fmt.Sprintf("op=Union/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Union(sets, nil, Sum)
			}
		})
		b.Run(fmt.Sprintf("op=Inter/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Inter(sets, nil, Sum)
			}
		})
		b.Run(fmt.Sprintf("op=Diff/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Diff(sets)
			}
		})
		b.Run(fmt.Sprintf("op=InterCard/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				InterCard(sets, 0)
			}
		})
	}
}
