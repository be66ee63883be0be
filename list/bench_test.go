package list

import (
	"container/list"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"
)

// Benchmarks compare the List with container/list and with a plain []string used as a
// queue, on 16-byte items:
//
//	go test -run '^$' -bench . -benchtime 1s ./list/
//
// Sub-benchmarks are named op=…/n=…/impl=… so that `benchstat -col /impl` lines the
// implementations up.

var benchSizes = []int{1_000, 1_000_000}

// item returns the i-th 16-byte benchmark item.
func item(i int) string {
	b := make([]byte, 0, 16)
	b = append(b, "item:"...)
	s := strconv.Itoa(i)
	for range 11 - len(s) {
		b = append(b, '0')
	}
	return string(append(b, s...))
}

// impl is one implementation under benchmark, holding n items 0..n-1.
type impl struct {
	name  string
	build func(n int) any
	ops   map[string]func(b *testing.B, s any, n int)
}

var sink string
var sinkN int

// zliteImpl is the List with pages of pageSize bytes (0: the default).
func zliteImpl(pageSize int) impl {
	return impl{
		name: "zlite",
		build: func(n int) any {
			l := New()
			if pageSize != 0 {
				l = newSized(pageSize)
			}
			for i := range n {
				l.PushBack(item(i))
			}
			return l
		},
		ops: map[string]func(b *testing.B, s any, n int){
			"lpush+lpop": func(b *testing.B, s any, n int) {
				l, v := s.(*List), item(n)
				for b.Loop() {
					l.PushFront(v)
					sink, _ = l.PopFront()
				}
			},
			"rpush+rpop": func(b *testing.B, s any, n int) {
				l, v := s.(*List), item(n)
				for b.Loop() {
					l.PushBack(v)
					sink, _ = l.PopBack()
				}
			},
			"rpush+lpop": func(b *testing.B, s any, n int) {
				l, v := s.(*List), item(n)
				for b.Loop() {
					l.PushBack(v)
					sink, _ = l.PopFront()
				}
			},
			"lpush+rpop": func(b *testing.B, s any, n int) {
				l, v := s.(*List), item(n)
				for b.Loop() {
					l.PushFront(v)
					sink, _ = l.PopBack()
				}
			},
			"index-mid": func(b *testing.B, s any, n int) {
				l := s.(*List)
				for b.Loop() {
					sink, _ = l.Index(n / 2)
				}
			},
			"range100-mid": func(b *testing.B, s any, n int) {
				l := s.(*List)
				for b.Loop() {
					sinkN += len(l.Range(n/2, n/2+99))
				}
			},
			"pos-mid": func(b *testing.B, s any, n int) {
				l, v := s.(*List), item(n/2)
				for b.Loop() {
					r, _ := l.Pos(v, 1, 1, 0)
					sinkN += r[0]
				}
			},
		},
	}
}

func containerListImpl() impl {
	walk := func(l *list.List, i int) *list.Element {
		e := l.Front()
		for range i {
			e = e.Next()
		}
		return e
	}
	return impl{
		name: "containerlist",
		build: func(n int) any {
			l := list.New()
			for i := range n {
				l.PushBack(item(i))
			}
			return l
		},
		ops: map[string]func(b *testing.B, s any, n int){
			"lpush+lpop": func(b *testing.B, s any, n int) {
				l, v := s.(*list.List), item(n)
				for b.Loop() {
					l.PushFront(v)
					sink = l.Remove(l.Front()).(string)
				}
			},
			"rpush+rpop": func(b *testing.B, s any, n int) {
				l, v := s.(*list.List), item(n)
				for b.Loop() {
					l.PushBack(v)
					sink = l.Remove(l.Back()).(string)
				}
			},
			"rpush+lpop": func(b *testing.B, s any, n int) {
				l, v := s.(*list.List), item(n)
				for b.Loop() {
					l.PushBack(v)
					sink = l.Remove(l.Front()).(string)
				}
			},
			"lpush+rpop": func(b *testing.B, s any, n int) {
				l, v := s.(*list.List), item(n)
				for b.Loop() {
					l.PushFront(v)
					sink = l.Remove(l.Back()).(string)
				}
			},
			"index-mid": func(b *testing.B, s any, n int) {
				l := s.(*list.List)
				for b.Loop() {
					sink = walk(l, n/2).Value.(string)
				}
			},
			"range100-mid": func(b *testing.B, s any, n int) {
				l := s.(*list.List)
				for b.Loop() {
					out := make([]string, 0, 100)
					for e := walk(l, n/2); e != nil && len(out) < 100; e = e.Next() {
						out = append(out, e.Value.(string))
					}
					sinkN += len(out)
				}
			},
			"pos-mid": func(b *testing.B, s any, n int) {
				l, v := s.(*list.List), item(n/2)
				for b.Loop() {
					i := 0
					for e := l.Front(); e != nil && e.Value.(string) != v; e = e.Next() {
						i++
					}
					sinkN += i
				}
			},
		},
	}
}

// sliceQueue is the plain-slice baseline: append at the back, reslice at the front.
type sliceQueue struct{ s []string }

func sliceImpl() impl {
	return impl{
		name: "slice",
		build: func(n int) any {
			q := &sliceQueue{}
			for i := range n {
				q.s = append(q.s, item(i))
			}
			return q
		},
		ops: map[string]func(b *testing.B, s any, n int){
			"rpush+rpop": func(b *testing.B, s any, n int) {
				q, v := s.(*sliceQueue), item(n)
				for b.Loop() {
					q.s = append(q.s, v)
					sink = q.s[len(q.s)-1]
					q.s = q.s[:len(q.s)-1]
				}
			},
			"rpush+lpop": func(b *testing.B, s any, n int) {
				q, v := s.(*sliceQueue), item(n)
				for b.Loop() {
					q.s = append(q.s, v)
					sink = q.s[0]
					q.s[0] = ""
					q.s = q.s[1:]
				}
			},
			"index-mid": func(b *testing.B, s any, n int) {
				q := s.(*sliceQueue)
				for b.Loop() {
					sink = q.s[n/2]
				}
			},
			"range100-mid": func(b *testing.B, s any, n int) {
				q := s.(*sliceQueue)
				for b.Loop() {
					sinkN += len(slices.Clone(q.s[n/2 : min(n/2+100, n)]))
				}
			},
			"pos-mid": func(b *testing.B, s any, n int) {
				q, v := s.(*sliceQueue), item(n/2)
				for b.Loop() {
					sinkN += slices.Index(q.s, v)
				}
			},
		},
	}
}

var benchOps = []string{"lpush+lpop", "rpush+rpop", "rpush+lpop", "lpush+rpop", "index-mid", "range100-mid", "pos-mid"}

func BenchmarkList(b *testing.B) {
	impls := []impl{zliteImpl(0), containerListImpl(), sliceImpl()}
	for _, op := range benchOps {
		for _, n := range benchSizes {
			for _, im := range impls {
				f, ok := im.ops[op]
				if !ok {
					continue // a slice has no O(1) push at the front
				}
				b.Run(fmt.Sprintf("op=%s/n=%d/impl=%s", op, n, im.name), func(b *testing.B) {
					s := im.build(n)
					b.ReportAllocs()
					f(b, s, n)
					runtime.KeepAlive(s)
				})
			}
		}
	}
	for _, n := range benchSizes {
		for _, im := range impls {
			b.Run(fmt.Sprintf("op=mem/n=%d/impl=%s", n, im.name), func(b *testing.B) {
				benchMem(b, n, im.build)
			})
		}
	}
}

// benchMem builds a structure of n items per iteration and reports the Go heap it
// holds after a GC (items' bytes included) per item, and the time a forced GC takes
// while it is alive (the best of five, in the last iteration).
func benchMem(b *testing.B, n int, build func(int) any) {
	var perElem, gcNs float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s := build(n)
		runtime.GC()
		runtime.ReadMemStats(&after)
		// The best of five forced collections, as the machine may be busy.
		gcNs = math.Inf(1)
		for range 5 {
			t := time.Now()
			runtime.GC()
			gcNs = min(gcNs, float64(time.Since(t).Nanoseconds()))
		}
		perElem = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
		runtime.KeepAlive(s)
	}
	b.ReportMetric(perElem, "B/elem")
	b.ReportMetric(gcNs, "gc-ns")
}

// BenchmarkPageSize is the study behind defaultPageSize (see doc.go): the List at n = 1e6
// with each candidate page size.
func BenchmarkPageSize(b *testing.B) {
	const n = 1_000_000
	for _, size := range []int{512, 1024, 2048, 4096, 8192, 16384} {
		z := zliteImpl(size)
		for _, op := range []string{"rpush+lpop", "index-mid", "range100-mid"} {
			b.Run(fmt.Sprintf("op=%s/pagesize=%d/impl=zlite", op, size), func(b *testing.B) {
				s := z.build(n)
				b.ReportAllocs()
				z.ops[op](b, s, n)
			})
		}
		b.Run(fmt.Sprintf("op=mem/pagesize=%d/impl=zlite", size), func(b *testing.B) {
			benchMem(b, n, z.build)
		})
	}
}
