package list_test

import (
	"fmt"

	"github.com/zlite/zlite/list"
)

// A FIFO work queue: producers RPUSH, consumers LPOP.
func Example() {
	var q list.List
	q.PushBack("job1", "job2", "job3") // RPUSH
	job, ok := q.PopFront()            // LPOP
	fmt.Println(job, ok, q.Len())
	// Output: job1 true 2
}

func ExampleList_PushFront() {
	l := list.New()
	l.PushFront("a", "b", "c") // LPUSH list a b c
	fmt.Println(l.Range(0, -1))
	// Output: [c b a]
}

func ExampleList_Range() {
	l := list.New()
	l.PushBack("a", "b", "c", "d", "e")
	fmt.Println(l.Range(1, 2), l.Range(-2, -1), l.Range(3, 100), l.Range(4, 1))
	// Output: [b c] [d e] [d e] []
}

func ExampleList_Pos() {
	l := list.New()
	l.PushBack("a", "b", "c", "1", "2", "3", "c", "c")
	first, _ := l.Pos("c", 1, 1, 0)    // LPOS list c
	all, _ := l.Pos("c", 1, 0, 0)      // LPOS list c COUNT 0
	fromEnd, _ := l.Pos("c", -1, 2, 0) // LPOS list c RANK -1 COUNT 2
	_, err := l.Pos("c", 0, 1, 0)      // LPOS list c RANK 0
	fmt.Println(first, all, fromEnd)
	fmt.Println(err)
	// Output:
	// [2] [2 6 7] [7 6]
	// ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list
}

func ExampleList_Remove() {
	l := list.New()
	l.PushBack("a", "b", "a", "c", "a")
	fmt.Println(l.Remove(-2, "a"), l.Range(0, -1)) // LREM list -2 a
	// Output: 2 [a b c]
}

func ExampleList_Insert() {
	l := list.New()
	l.PushBack("a", "c")
	fmt.Println(l.Insert(true, "c", "b"), l.Insert(true, "zz", "x"), l.Range(0, -1))
	// Output: 3 -1 [a b c]
}

func ExampleList_Set() {
	l := list.New()
	l.PushBack("a", "b")
	fmt.Println(l.Set(-1, "B"), l.Set(5, "x"), l.Range(0, -1))
	// Output: <nil> ERR index out of range [a B]
}

// Move with the same list at both ends rotates it, as RPOPLPUSH list list does.
func ExampleMove() {
	l := list.New()
	l.PushBack("a", "b", "c")
	v, _ := list.Move(l, l, false, true)
	fmt.Println(v, l.Range(0, -1))
	// Output: c [c a b]
}

func ExampleList_All() {
	l := list.New()
	l.PushBack("x", "y")
	for i, v := range l.All() {
		fmt.Println(i, v)
	}
	for i, v := range l.Backward() {
		fmt.Println(i, v)
	}
	// Output:
	// 0 x
	// 1 y
	// 1 y
	// 0 x
}

func ExampleList_Index() {
	l := list.New()
	l.PushBack("a", "b", "c")
	fmt.Println(l.Index(0))  // LINDEX list 0
	fmt.Println(l.Index(-1)) // LINDEX list -1
	fmt.Println(l.Index(3))  // out of range
	// Output:
	// a true
	// c true
	//  false
}

func ExampleList_Trim() {
	l := list.New()
	l.PushBack("a", "b", "c", "d", "e")
	l.Trim(1, -2) // LTRIM list 1 -2
	fmt.Println(l.Range(0, -1))
	l.Trim(5, 10) // an empty range empties the list
	fmt.Println(l.Len())
	// Output:
	// [b c d]
	// 0
}

func ExampleList_PopFrontN() {
	l := list.New()
	l.PushBack("a", "b", "c")
	fmt.Println(l.PopFrontN(2)) // LPOP list 2
	fmt.Println(l.PopBackN(5))  // RPOP list 5: what there is
	fmt.Println(l.PopFrontN(1), l.Len())
	// Output:
	// [a b]
	// [c]
	// [] 0
}

func ExampleValidatePos() {
	fmt.Println(list.ValidatePos(0, 0, 0))  // LPOS list v RANK 0
	fmt.Println(list.ValidatePos(1, -1, 0)) // LPOS list v COUNT -1
	fmt.Println(list.ValidatePos(-2, 3, 10))
	// Output:
	// ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list
	// ERR COUNT can't be negative
	// <nil>
}
