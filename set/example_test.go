package set_test

import (
	"fmt"
	"strings"

	"github.com/zlite/zlite/set"
)

func Example() {
	var s set.Set // the zero value is an empty set, an intset
	for _, m := range []string{"3", "1", "2", "1"} {
		s.Add(m, set.DefaultLimits)
	}
	fmt.Println(s.Len(), s.Encoding(), s.Members()) // ascending, as Redis's intset

	s.Add("x", set.DefaultLimits) // not an integer: packed, in insertion order
	fmt.Println(s.Len(), s.Encoding(), s.Members())

	s.Add(strings.Repeat("m", 65), set.DefaultLimits) // longer than 64 bytes
	fmt.Println(s.Len(), s.Encoding(), s.Has("x"), s.Has("4"))
	// Output:
	// 3 intset [1 2 3]
	// 4 listpack [1 2 3 x]
	// 5 hashtable true false
}

func ExampleSet_Scan() {
	var s set.Set
	for i := range 200 {
		s.Add(fmt.Sprint("m", i), set.DefaultLimits)
	}
	n := 0
	for cursor := uint64(0); ; {
		cursor = s.Scan(cursor, 50, func(string) bool { n++; return true })
		if cursor == 0 {
			break
		}
	}
	fmt.Println(s.Encoding(), n)
	// Output:
	// hashtable 200
}
