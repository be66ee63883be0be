package intset

import (
	"fmt"
	"runtime"
	"testing"
)

// sized returns a set of n members, the even numbers from 0, so that odd numbers are
// misses; with wide, the members are shifted into width 8.
func sized(n int, wide bool) (*Set, int64) {
	s := New()
	var shift int64 = 1
	if wide {
		shift = 1 << 33
	}
	for i := range int64(n) {
		s.Add(2 * i * shift)
	}
	return s, shift
}

// BenchmarkAdd measures SADD of a new member into a set of n members, in the middle
// or at the end, then SREM of it so that the set keeps its size: one op is an Add and
// a Remove.
func BenchmarkAdd(b *testing.B) {
	for _, n := range []int{10, 512} {
		for _, wide := range []bool{false, true} {
			b.Run(fmt.Sprintf("n=%d/width=%d", n, map[bool]int{false: 2, true: 8}[wide]), func(b *testing.B) {
				s, shift := sized(n, wide)
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					v := int64(2*(i%n)+1) * shift
					s.Add(v)
					s.Remove(v)
					i++
				}
			})
		}
	}
}

// BenchmarkAddDuplicate measures SADD of a member already there: a search.
func BenchmarkAddDuplicate(b *testing.B) {
	for _, n := range []int{10, 512} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s, _ := sized(n, false)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				s.Add(int64(2 * (i % n)))
				i++
			}
		})
	}
}

// BenchmarkBuild measures n Adds in ascending order into an empty set, allocations
// included.
func BenchmarkBuild(b *testing.B) {
	for _, n := range []int{10, 512} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s := New()
				for i := range int64(n) {
					s.Add(i)
				}
			}
		})
	}
}

// BenchmarkHas measures SISMEMBER, alternating hits and misses.
func BenchmarkHas(b *testing.B) {
	for _, n := range []int{10, 512} {
		for _, wide := range []bool{false, true} {
			b.Run(fmt.Sprintf("n=%d/width=%d", n, map[bool]int{false: 2, true: 8}[wide]), func(b *testing.B) {
				s, shift := sized(n, wide)
				b.ReportAllocs()
				i, hits := 0, 0
				for b.Loop() {
					if s.Has(int64(i%(2*n)) * shift) {
						hits++
					}
					i += 7
				}
				if hits == 0 {
					b.Fatal("no hits")
				}
			})
		}
	}
}

// heapAlloc returns the live heap bytes after a collection.
func heapAlloc() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkMemory measures the heap held by 100k sets of 10 members, each made by New
// and 10 Adds (or, for compact, cloned after), and reports it per set (B/set, from
// HeapAlloc after a GC) next to what MemoryUsage claims (B/set-reported). The slice of
// pointers to the sets is allocated before the first measurement, so it is not counted.
func BenchmarkMemory(b *testing.B) {
	const n, members = 100_000, 10
	for _, tc := range []struct {
		name    string
		member  func(set, j int) int64
		compact bool
	}{
		{"width=2", func(set, j int) int64 { return int64(j) }, false},
		{"width=2/cloned", func(set, j int) int64 { return int64(j) }, true},
		{"width=4", func(set, j int) int64 { return int64(set*members+j) + 1<<20 }, false},
		{"width=8", func(set, j int) int64 { return int64(set*members+j) << 32 }, false},
		{"width=8/cloned", func(set, j int) int64 { return int64(set*members+j) << 32 }, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var measured, reported float64
			for b.Loop() {
				sets := make([]*Set, n)
				before := heapAlloc()
				total := 0
				for i := range sets {
					s := New()
					for j := range members {
						s.Add(tc.member(i, j))
					}
					if tc.compact {
						s = s.Clone()
					}
					sets[i] = s
				}
				after := heapAlloc()
				for _, s := range sets {
					total += s.MemoryUsage()
				}
				runtime.KeepAlive(sets)
				measured = float64(after-before) / float64(n)
				reported = float64(total) / float64(n)
			}
			b.ReportMetric(measured, "B/set")
			b.ReportMetric(reported, "B/set-reported")
		})
	}
}
