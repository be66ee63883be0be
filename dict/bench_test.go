package dict

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// Benchmarks, on 13-byte fields ("field:0000042") and 8-byte values ("v0000042"):
//
//	go test -run '^$' -bench . -benchtime 1s ./dict
//	go test -run '^$' -bench 'Memory|ManyMaps' -benchtime 1x ./dict
//
// The memory benchmarks report the live heap (HeapAlloc after two GCs) per entry or
// per map, the field and value bytes included, and the time of a forced GC with the
// map alive.

var benchSizes = []int{10, 1_000_000}

func benchField(i int) string { return fmt.Sprintf("field:%07d", i) }
func benchValue(i int) string { return fmt.Sprintf("v%07d", i) }

// benchMap returns a map of n fields and the fields.
func benchMap(n int) (*Map, []string) {
	m := New()
	fields := make([]string, n)
	for i := range n {
		fields[i] = benchField(i)
		m.Set(fields[i], benchValue(i))
	}
	return m, fields
}

var sinkS string
var sinkB bool

func BenchmarkSet(b *testing.B) {
	for _, n := range benchSizes {
		m, fields := benchMap(n)
		b.Run(fmt.Sprintf("op=update/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				m.Set(fields[i%n], "w0000000") // the same length: in place
				i++
			}
		})
		b.Run(fmt.Sprintf("op=update-resize/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			vals := []string{"short", "a longer value"}
			i := 0
			for b.Loop() {
				m.Set(fields[i%n], vals[i/n&1])
				i++
			}
		})
		b.Run(fmt.Sprintf("op=add+delete/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				f := fields[i%n]
				m.Delete(f)
				m.Set(f, "v0000000")
				i++
			}
		})
		b.Run(fmt.Sprintf("op=build/n=%d", n), func(b *testing.B) {
			// Amortised insertion into maps growing from empty to n fields.
			b.ReportAllocs()
			m := New()
			i := 0
			for b.Loop() {
				if i == n {
					m, i = New(), 0
				}
				m.Set(fields[i], "v0000000")
				i++
			}
		})
	}
}

func BenchmarkGet(b *testing.B) {
	for _, n := range benchSizes {
		m, fields := benchMap(n)
		b.Run(fmt.Sprintf("op=hit/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sinkS, sinkB = m.Get(fields[i%n])
				i += 7
			}
		})
		b.Run(fmt.Sprintf("op=miss/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			missing := make([]string, 1024)
			for i := range missing {
				missing[i] = "missing:" + strconv.Itoa(i)
			}
			i := 0
			for b.Loop() {
				sinkB = m.Has(missing[i%len(missing)])
				i++
			}
		})
	}
}

// liveHeap returns the live heap after two collections.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// gcTime returns the shortest of three forced collections.
func gcTime() time.Duration {
	best := time.Duration(1<<63 - 1)
	for range 3 {
		start := time.Now()
		runtime.GC()
		best = min(best, time.Since(start))
	}
	return best
}

// BenchmarkMemory builds a table of 1M fields and reports its heap per entry, the 21
// bytes of field and value included, what MemoryUsage says, and the time of a forced
// GC with only the map alive (it has no pointers to scan: about the time of a GC of an
// empty heap, where a map[string]string of the same fields takes 80 ms).
func BenchmarkMemory(b *testing.B) {
	const n = 1_000_000
	for b.Loop() {
		before := liveHeap()
		m := New()
		for i := range n {
			m.Set(benchField(i), benchValue(i)) // garbage: the heap holds only m after
		}
		after := liveHeap()
		gc := gcTime()
		b.ReportMetric(float64(after-before)/n, "B/entry")
		b.ReportMetric(float64(m.MemoryUsage())/n, "usage-B/entry")
		b.ReportMetric(float64(gc.Microseconds()), "gc-µs")
		runtime.KeepAlive(m)
	}
}

// BenchmarkManyMaps builds 100k maps of 10 fields and reports the heap per map, held
// by value (a []Map, as a keyspace that keeps the Map in its key table) or by pointer
// (a []*Map from New: the Map is then its own 48-byte object, plus the pointer).
func BenchmarkManyMaps(b *testing.B) {
	const maps, n = 100_000, 10
	fields := make([]string, n)
	values := make([]string, n)
	for i := range n {
		fields[i], values[i] = benchField(i), benchValue(i)
	}
	b.Run("store=value", func(b *testing.B) {
		for b.Loop() {
			before := liveHeap()
			ms := make([]Map, maps)
			for j := range ms {
				for i := range n {
					ms[j].Set(fields[i], values[i])
				}
			}
			after := liveHeap()
			b.ReportMetric(float64(after-before)/maps, "B/map")
			b.ReportMetric(float64(ms[0].MemoryUsage()), "usage-B/map")
			runtime.KeepAlive(ms)
		}
	})
	b.Run("store=pointer", func(b *testing.B) {
		for b.Loop() {
			before := liveHeap()
			ms := make([]*Map, maps)
			for j := range ms {
				ms[j] = New()
				for i := range n {
					ms[j].Set(fields[i], values[i])
				}
			}
			after := liveHeap()
			b.ReportMetric(float64(after-before)/maps, "B/map")
			runtime.KeepAlive(ms)
		}
	})
}

// BenchmarkManyMapsTimestamps is [BenchmarkManyMaps] held by value for the shape of
// a job queue's metadata: 100k maps of 4 fields "<16-digit id>:t", each holding a
// 16-digit Unix-microsecond time, which the packed encoding stores as integers.
func BenchmarkManyMapsTimestamps(b *testing.B) {
	const maps, n = 100_000, 4
	for b.Loop() {
		before := liveHeap()
		ms := make([]Map, maps)
		for j := range ms {
			for i := range n {
				ms[j].Set(fmt.Sprintf("%016d:t", j*n+i), strconv.FormatInt(1796651992156622+int64(j), 10))
			}
		}
		after := liveHeap()
		b.ReportMetric(float64(after-before)/maps, "B/map")
		runtime.KeepAlive(ms)
	}
}
