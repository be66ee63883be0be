package list

import (
	"slices"
	"testing"
)

func TestPushPop(t *testing.T) {
	var l List
	l.PushFront("a", "b", "c")
	l.PushBack("d")
	if got := l.Range(0, -1); !slices.Equal(got, []string{"c", "b", "a", "d"}) {
		t.Fatalf("Range(0, -1) = %q; want [c b a d]", got)
	}
	if v, ok := l.PopBack(); v != "d" || !ok {
		t.Fatalf("PopBack() = %q, %v; want d, true", v, ok)
	}
	if v, ok := l.PopFront(); v != "c" || !ok {
		t.Fatalf("PopFront() = %q, %v; want c, true", v, ok)
	}
	if n := l.Len(); n != 2 {
		t.Fatalf("Len() = %d; want 2", n)
	}
}
