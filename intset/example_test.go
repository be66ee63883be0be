package intset_test

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/zlite/zlite/intset"
)

func Example() {
	var s intset.Set // the zero value is an empty set
	added := 0
	for _, v := range []int64{30, 10, 20, 10} { // SADD k 30 10 20 10
		if s.Add(v) {
			added++
		}
	}
	fmt.Println(added)
	fmt.Println(s.Len(), s.Has(20), s.Has(25)) // SCARD k, SISMEMBER k 20, SISMEMBER k 25
	fmt.Println(slices.Collect(s.All()))       // SMEMBERS k, ascending
	// Output:
	// 3
	// 3 true false
	// [10 20 30]
}

func ExampleSet_Width() {
	s := intset.New()
	s.Add(1)
	s.Add(-32768)
	fmt.Println(s.Width(), s.MemoryUsage()) // both fit int16
	s.Add(32768)
	fmt.Println(s.Width()) // every member now takes 4 bytes
	s.Add(1 << 40)
	fmt.Println(s.Width())
	s.Remove(1 << 40)
	fmt.Println(s.Width()) // the width never shrinks...
	s.Remove(1)
	s.Remove(-32768)
	s.Remove(32768)
	fmt.Println(s.Len(), s.Width()) // ...unless the set empties
	// Output:
	// 2 32
	// 4
	// 8
	// 8
	// 0 2
}

func ExampleSet_RemoveAt() {
	// SPOP k: remove a member chosen uniformly at random.
	s := intset.New()
	for v := range int64(5) {
		s.Add(v * 100)
	}
	r := rand.New(rand.NewPCG(1, 2))
	i := r.IntN(s.Len())
	v := s.At(i)
	s.RemoveAt(i)
	fmt.Println(s.Len(), s.Has(v))
	// Output:
	// 4 false
}

func ExampleSet_Random() {
	// SRANDMEMBER k.
	s := intset.New()
	s.Add(7)
	s.Add(9)
	v, ok := s.Random(nil) // nil: math/rand/v2's global source
	fmt.Println(ok, v == 7 || v == 9)
	var empty intset.Set
	fmt.Println(empty.Random(nil))
	// Output:
	// true true
	// 0 false
}

func ExampleSet_Min() {
	s := intset.New()
	for _, v := range []int64{5, -9223372036854775808, 9223372036854775807} {
		s.Add(v)
	}
	fmt.Println(s.Min())
	fmt.Println(s.Max())
	fmt.Println(s.At(1))
	// Output:
	// -9223372036854775808 true
	// 9223372036854775807 true
	// 5
}
