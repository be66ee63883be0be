package zset_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/zlite/zlite/zset"
)

func Example() {
	var s zset.Set // the zero value is an empty set
	s.Add(zset.AddOptions{},
		zset.Entry{Member: "alice", Score: 30},
		zset.Entry{Member: "bob", Score: 10},
		zset.Entry{Member: "carol", Score: 20})
	rank, _ := s.Rank("carol")
	fmt.Println(s.Len(), rank)
	for member, score := range s.All() {
		fmt.Println(member, score)
	}
	// Output:
	// 3 1
	// bob 10
	// carol 20
	// alice 30
}

func ExampleSet_Add() {
	s := zset.New()
	n, _ := s.Add(zset.AddOptions{}, zset.Entry{Member: "a", Score: 1}, zset.Entry{Member: "b", Score: 2})
	fmt.Println("added", n)
	// GT only raises scores, but still adds new members; CH counts changes too.
	n, _ = s.Add(zset.AddOptions{GT: true, CH: true},
		zset.Entry{Member: "a", Score: 5}, // raised
		zset.Entry{Member: "b", Score: 0}, // not lowered
		zset.Entry{Member: "c", Score: 1}) // added
	fmt.Println("changed", n)
	_, err := s.Add(zset.AddOptions{NX: true, XX: true}, zset.Entry{Member: "a", Score: 1})
	fmt.Println(err)
	_, err = s.Add(zset.AddOptions{}, zset.Entry{Member: "d", Score: math.NaN()})
	fmt.Println(err)
	fmt.Println(s.Range(0, -1))
	// Output:
	// added 2
	// changed 2
	// ERR XX and NX options at the same time are not compatible
	// ERR value is not a valid float
	// [{c 1} {b 2} {a 5}]
}

func ExampleSet_AddIncr() {
	s := zset.New()
	s.Add(zset.AddOptions{}, zset.Entry{Member: "a", Score: 10})
	f, ok, _ := s.AddIncr(zset.AddOptions{GT: true}, "a", -1) // would lower: nil reply
	fmt.Println(f, ok)
	f, ok, _ = s.AddIncr(zset.AddOptions{}, "a", 2.5)
	fmt.Println(f, ok)
	_, err := s.Incr("x", math.Inf(1))
	fmt.Println(err)
	_, err = s.Incr("x", math.Inf(-1))
	fmt.Println(err)
	// Output:
	// 0 false
	// 12.5 true
	// <nil>
	// ERR resulting score is not a number (NaN)
}

func ExampleSet_Rank() {
	s := zset.New()
	s.Add(zset.AddOptions{}, zset.Entry{Member: "a", Score: 1}, zset.Entry{Member: "b", Score: 2},
		zset.Entry{Member: "c", Score: 2})
	r, _ := s.Rank("b")
	rr, _ := s.RevRank("b")
	e, _ := s.At(2)
	_, ok := s.Rank("missing")
	fmt.Println(r, rr, e, ok)
	// Output: 1 1 {c 2} false
}

func ExampleSet_RankScore() {
	s := zset.New()
	s.Add(zset.AddOptions{}, zset.Entry{Member: "a", Score: 1}, zset.Entry{Member: "b", Score: 2.5})
	r, score, ok := s.RankScore("b")
	fmt.Println(r, score, ok)
	// Output: 1 2.5 true
}

func ExampleSet_RangeByScore() {
	s := zset.New()
	for i := range 10 {
		s.Add(zset.AddOptions{}, zset.Entry{Member: fmt.Sprint("m", i), Score: float64(i)})
	}
	// ZRANGEBYSCORE key (2 +inf LIMIT 1 3
	fmt.Println(s.RangeByScore(zset.ScoreBound{Value: 2, Exclusive: true}, zset.ScoreBound{Value: math.Inf(1)}, 1, 3))
	// ZREVRANGEBYSCORE key 5 -inf LIMIT 0 2
	fmt.Println(s.RevRangeByScore(zset.ScoreBound{Value: 5}, zset.ScoreBound{Value: math.Inf(-1)}, 0, 2))
	// ZCOUNT key 3 (6
	fmt.Println(s.Count(zset.ScoreBound{Value: 3}, zset.ScoreBound{Value: 6, Exclusive: true}))
	// Output:
	// [{m4 4} {m5 5} {m6 6}]
	// [{m5 5} {m4 4}]
	// 3
}

func ExampleSet_RangeByLex() {
	s := zset.New()
	for _, m := range []string{"apple", "banana", "blueberry", "cherry"} {
		s.Add(zset.AddOptions{}, zset.Entry{Member: m, Score: 0})
	}
	// ZRANGEBYLEX key [b (c
	for _, e := range s.RangeByLex(zset.LexBound{Member: "b"}, zset.LexBound{Member: "c", Exclusive: true}, 0, -1) {
		fmt.Println(e.Member)
	}
	fmt.Println(s.LexCount(zset.LexMin, zset.LexBound{Member: "b"}))
	// Output:
	// banana
	// blueberry
	// 1
}

func ExampleSet_PopMin() {
	s := zset.New()
	s.Add(zset.AddOptions{}, zset.Entry{Member: "low", Score: 1}, zset.Entry{Member: "mid", Score: 5},
		zset.Entry{Member: "high", Score: 9})
	e, ok := s.PopMin()
	fmt.Println(e, ok)
	fmt.Println(s.PopMaxN(5))
	_, ok = s.PopMax()
	fmt.Println(ok)
	// Output:
	// {low 1} true
	// [{high 9} {mid 5}]
	// false
}

func ExampleSet_RemRangeByRank() {
	s := zset.New()
	for i := range 6 {
		s.Add(zset.AddOptions{}, zset.Entry{Member: fmt.Sprint(i), Score: float64(i)})
	}
	fmt.Println(s.RemRangeByRank(0, 1), s.RemRangeByScore(zset.ScoreBound{Value: 4}, zset.ScoreBound{Value: math.Inf(1)}))
	fmt.Println(s.Range(0, -1))
	// Output:
	// 2 2
	// [{2 2} {3 3}]
}

func ExampleSet_RandMember() {
	s := zset.New()
	s.Add(zset.AddOptions{}, zset.Entry{Member: "a", Score: 1}, zset.Entry{Member: "b", Score: 2})
	r := rand.New(rand.NewPCG(1, 2))
	fmt.Println(len(s.RandMember(r, 5)))  // distinct: at most Len
	fmt.Println(len(s.RandMember(r, -5))) // with repeats: exactly 5
	// Output:
	// 2
	// 5
}

func ExampleSet_ScoreRange() {
	s := zset.New()
	for i := range 5 {
		s.Add(zset.AddOptions{}, zset.Entry{Member: fmt.Sprint("job", i), Score: float64(i)})
	}
	// The loop body may change the set: here it removes every member it sees.
	for member, score := range s.ScoreRange(zset.ScoreBound{Value: 1}, zset.ScoreBound{Value: 3}) {
		fmt.Println(member, score)
		s.Remove(member)
	}
	fmt.Println(s.Len())
	// Output:
	// job1 1
	// job2 2
	// job3 3
	// 2
}

func ExampleSet_Clone() {
	s := zset.New()
	s.Add(zset.AddOptions{}, zset.Entry{Member: "a", Score: 1})
	c := s.Clone()
	c.Add(zset.AddOptions{}, zset.Entry{Member: "b", Score: 2})
	fmt.Println(s.Len(), c.Len())
	// Output: 1 2
}

func ExampleSet_RevLexRange() {
	s := zset.New()
	for _, m := range []string{"alpha", "bravo", "charlie", "delta"} {
		s.Add(zset.AddOptions{}, zset.Entry{Member: m, Score: 0})
	}
	// ZREVRANGEBYLEX key (d - : the max bound comes first.
	upper, _ := zset.ParseLexBound("(d")
	for member := range s.RevLexRange(upper, zset.LexMin) {
		fmt.Println(member)
	}
	// Output:
	// charlie
	// bravo
	// alpha
}

func ExampleSet_Backward() {
	s := zset.New()
	s.Add(zset.AddOptions{}, zset.Entry{Member: "a", Score: 1}, zset.Entry{Member: "b", Score: 2},
		zset.Entry{Member: "c", Score: 2})
	for member, score := range s.Backward() { // ZREVRANGE key 0 -1 WITHSCORES
		fmt.Println(member, score)
	}
	// Output:
	// c 2
	// b 2
	// a 1
}
