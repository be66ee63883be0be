package zset

import (
	"strconv"
	"testing"
)

// TestMoveByCopy checks what the Set doc promises: a Set copied by value (and the
// original dropped) works as the original did, small or tree, including writes that
// reallocate its buffer or convert it.
func TestMoveByCopy(t *testing.T) {
	for _, n := range []int{0, 1, 10, 200} {
		t.Run("n="+strconv.Itoa(n), func(t *testing.T) {
			src := New()
			for i := range n {
				src.Add(AddOptions{}, Entry{Member: "m" + strconv.Itoa(i), Score: float64(i)})
			}
			dst := *src
			*src = Set{}
			for i := n; i < n+150; i++ { // past the small encoding's limit
				dst.Add(AddOptions{}, Entry{Member: "m" + strconv.Itoa(i), Score: float64(i)})
				if err := dst.check(); err != nil {
					t.Fatalf("after adding m%d to the moved set: %v", i, err)
				}
			}
			if dst.Len() != n+150 {
				t.Fatalf("dst.Len() = %d; want %d", dst.Len(), n+150)
			}
			for i := range n + 150 {
				if r, ok := dst.Rank("m" + strconv.Itoa(i)); !ok || r != i {
					t.Fatalf("dst.Rank(%q) = %d, %v; want %d, true", "m"+strconv.Itoa(i), r, ok, i)
				}
			}
		})
	}
}
