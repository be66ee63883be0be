package zset_test

import (
	"errors"
	"fmt"
	"math"

	"github.com/zlite/zlite/zset"
)

func ExampleParseScore() {
	for _, arg := range []string{"1.5", "-inf", "0x10", "1e-3", "nan", " 1", "1e400"} {
		f, err := zset.ParseScore(arg)
		fmt.Printf("%q: %v %v\n", arg, f, err)
	}
	// Output:
	// "1.5": 1.5 <nil>
	// "-inf": -Inf <nil>
	// "0x10": 16 <nil>
	// "1e-3": 0.001 <nil>
	// "nan": 0 ERR value is not a valid float
	// " 1": 0 ERR value is not a valid float
	// "1e400": 0 ERR value is not a valid float
}

func ExampleParseScoreBound() {
	s := zset.New()
	s.Add(zset.AddOptions{}, zset.Entry{Member: "a", Score: 1}, zset.Entry{Member: "b", Score: 2},
		zset.Entry{Member: "c", Score: 3})
	lo, _ := zset.ParseScoreBound("(1")
	hi, _ := zset.ParseScoreBound("+inf")
	fmt.Println(s.Count(lo, hi)) // ZCOUNT key (1 +inf
	_, err := zset.ParseScoreBound("one")
	fmt.Println(errors.Is(err, zset.ErrMinMaxNotFloat), err)
	// Output:
	// 2
	// true ERR min or max is not a float
}

func ExampleParseLexBound() {
	s := zset.New()
	for _, m := range []string{"apple", "banana", "cherry"} {
		s.Add(zset.AddOptions{}, zset.Entry{Member: m})
	}
	lo, _ := zset.ParseLexBound("(apple")
	hi, _ := zset.ParseLexBound("+")
	for _, e := range s.RangeByLex(lo, hi, 0, -1) { // ZRANGEBYLEX key (apple +
		fmt.Println(e.Member)
	}
	_, err := zset.ParseLexBound("apple")
	fmt.Println(err)
	// Output:
	// banana
	// cherry
	// ERR min or max not valid string range item
}

func ExampleFormatScore() {
	for _, f := range []float64{3, -0.5, 0.1, 1.0 / 3, 1e21, 1.5e-7, math.Copysign(0, -1), math.Inf(1)} {
		fmt.Printf("%s  (Redis 7.0: %s)\n", zset.FormatScore(f), zset.FormatScore70(f))
	}
	// Output:
	// 3  (Redis 7.0: 3)
	// -0.5  (Redis 7.0: -0.5)
	// 0.1  (Redis 7.0: 0.10000000000000001)
	// 0.3333333333333333  (Redis 7.0: 0.33333333333333331)
	// 1e+21  (Redis 7.0: 1e+21)
	// 1.5e-7  (Redis 7.0: 1.4999999999999999e-07)
	// -0  (Redis 7.0: -0)
	// inf  (Redis 7.0: inf)
}

func ExampleAppendScore() {
	reply := []byte("$")
	reply = zset.AppendScore(reply, 2.5)
	fmt.Println(string(reply))
	// Output: $2.5
}

// scores builds a set from alternating members and scores.
func scores(pairs ...any) *zset.Set {
	s := zset.New()
	for i := 0; i < len(pairs); i += 2 {
		s.Add(zset.AddOptions{}, zset.Entry{Member: pairs[i].(string), Score: pairs[i+1].(float64)})
	}
	return s
}

func printSet(s *zset.Set) {
	sep := ""
	for m, f := range s.All() {
		fmt.Print(sep, m, "=", zset.FormatScore(f))
		sep = " "
	}
	fmt.Println()
}

func ExampleUnion() {
	a := scores("x", 1.0, "y", 2.0)
	b := scores("y", 10.0, "z", math.Inf(1))
	printSet(zset.Union([]*zset.Set{a, b}, nil, zset.Sum))                // ZUNION 2 a b
	printSet(zset.Union([]*zset.Set{a, b}, []float64{2, 0}, zset.Max))    // WEIGHTS 2 0 AGGREGATE MAX: 0 × inf is 0
	printSet(zset.Union([]*zset.Set{a, nil}, []float64{-1, 1}, zset.Sum)) // a missing key is an empty set
	// Output:
	// x=1 y=12 z=inf
	// z=0 x=2 y=4
	// y=-2 x=-1
}

func ExampleInter() {
	a := scores("x", 1.0, "y", 2.0, "z", 3.0)
	b := scores("y", 10.0, "z", 20.0)
	printSet(zset.Inter([]*zset.Set{a, b}, nil, zset.Sum))               // ZINTER 2 a b
	printSet(zset.Inter([]*zset.Set{a, b}, []float64{1, 0.5}, zset.Min)) // WEIGHTS 1 0.5 AGGREGATE MIN
	fmt.Println(zset.InterCard([]*zset.Set{a, b}, 1))                    // ZINTERCARD 2 a b LIMIT 1
	// Output:
	// y=12 z=23
	// y=2 z=3
	// 1
}

func ExampleDiff() {
	a := scores("x", 1.0, "y", 2.0, "z", 3.0)
	b := scores("y", 10.0)
	printSet(zset.Diff([]*zset.Set{a, b, nil})) // ZDIFF 3 a b missing
	// Output:
	// x=1 z=3
}
