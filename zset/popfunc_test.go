package zset

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/zlite/zlite/internal/testmain"
)

// TestPopFunc pops random counts from both ends of sets of many sizes, small and
// tree, with PopMinFunc/PopMaxFunc and, on a clone, with PopMinN/PopMaxN: the entries
// passed to f (copied at once, as a caller must) and the sets left must be the same,
// with the invariants after each pop.
func TestPopFunc(t *testing.T) {
	r := rand.New(rand.NewPCG(testmain.Seed(t), 11))
	for _, n := range []int{0, 1, 2, 16, 17, 128, 129, 300, 5000} {
		for _, max := range []bool{false, true} {
			t.Run("n="+strconv.Itoa(n)+"/max="+strconv.FormatBool(max), func(t *testing.T) {
				s := New()
				for i := range n {
					// Repeated scores, so that the order also depends on the members.
					m := "m" + strconv.Itoa(r.IntN(10*n+1)) + "-" + strconv.Itoa(i)
					if _, err := s.Add(AddOptions{}, Entry{Member: m, Score: float64(r.IntN(n/4+1)) / 2}); err != nil {
						t.Fatal(err)
					}
				}
				ref := s.Clone()
				for step := 0; ; step++ {
					count := r.IntN(5)
					if r.IntN(4) == 0 {
						count = r.IntN(n + 2)
					}
					var got []Entry
					f := func(m string, sc float64) {
						got = append(got, Entry{Member: string([]byte(m)), Score: sc})
					}
					var k int
					var want []Entry
					if max {
						k, want = s.PopMaxFunc(count, f), ref.PopMaxN(count)
					} else {
						k, want = s.PopMinFunc(count, f), ref.PopMinN(count)
					}
					if k != len(got) || !slices.Equal(got, want) {
						t.Fatalf("step %d: pop of %d = %d, %v; want %d, %v", step, count, k, got, len(want), want)
					}
					if err := s.check(); err != nil {
						t.Fatalf("step %d: invariant: %v", step, err)
					}
					if a, b := s.Range(0, -1), ref.Range(0, -1); !slices.Equal(a, b) {
						t.Fatalf("step %d: set left %v; want %v", step, a, b)
					}
					if s.Len() == 0 {
						if k := s.PopMinFunc(1, f); k != 0 {
							t.Fatalf("PopMinFunc(1) of an empty set = %d; want 0", k)
						}
						break
					}
				}
			})
		}
	}
}

// BenchmarkPopFunc compares one pop from a tree of 100k members through PopMinFunc
// (the member read in place) with PopMinN(1) (a copy and a slice).
func BenchmarkPopFunc(b *testing.B) {
	const n = 100000
	for _, impl := range []string{"func", "popminn"} {
		b.Run("n=100000/impl="+impl, func(b *testing.B) {
			s := New()
			fill := func() {
				for i := range n {
					r := strconv.Itoa(i * 7919 % n)
					_, _ = s.Add(AddOptions{}, Entry{Member: "element:" + r, Score: float64(i % 1000)})
				}
			}
			var sink int
			f := func(m string, _ float64) { sink += len(m) }
			b.ReportAllocs()
			for b.Loop() {
				if s.Len() == 0 {
					b.StopTimer()
					fill()
					b.StartTimer()
				}
				if impl == "func" {
					s.PopMinFunc(1, f)
				} else {
					sink += len(s.PopMinN(1)[0].Member)
				}
			}
			_ = sink
		})
	}
}
