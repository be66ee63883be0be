package list_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/zlite/zlite/list"
)

// BenchmarkSmallList measures lists of 1 and 10 items of 14 bytes, the shape of most
// list keys in a keyspace: building one item by item from empty (the first page's
// growth path), a push+pop pair at the steady size, LINDEX of the middle and LRANGE
// of the whole list. It uses only the exported API, so the same file runs against an
// earlier version of the package for a same-run comparison.
//
//	go test -run '^$' -bench BenchmarkSmallList -benchtime 200ms -count 3 ./list/
func BenchmarkSmallList(b *testing.B) {
	for _, n := range []int{1, 10} {
		items := make([]string, n)
		for i := range items {
			items[i] = fmt.Sprintf("member:%07d", i)
		}
		build := func() *list.List {
			l := list.New()
			for _, v := range items {
				l.PushBack(v)
			}
			return l
		}
		b.Run(fmt.Sprintf("op=build/n=%d/impl=zlite", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				build()
			}
		})
		b.Run(fmt.Sprintf("op=rpush+lpop/n=%d/impl=zlite", n), func(b *testing.B) {
			l := build()
			b.ReportAllocs()
			for b.Loop() {
				l.PushBack(items[0])
				l.PopFront()
			}
		})
		b.Run(fmt.Sprintf("op=lpush+rpop/n=%d/impl=zlite", n), func(b *testing.B) {
			l := build()
			b.ReportAllocs()
			for b.Loop() {
				l.PushFront(items[0])
				l.PopBack()
			}
		})
		b.Run(fmt.Sprintf("op=index-mid/n=%d/impl=zlite", n), func(b *testing.B) {
			l := build()
			b.ReportAllocs()
			for b.Loop() {
				l.Index(n / 2)
			}
		})
		b.Run(fmt.Sprintf("op=range-all/n=%d/impl=zlite", n), func(b *testing.B) {
			l := build()
			b.ReportAllocs()
			for b.Loop() {
				l.Range(0, -1)
			}
		})
	}
}

// BenchmarkManySmallLists runs a push+pop pair on a random list among 100k lists of 10
// items, the shape of the keyspace's many-keys rows: each operation starts with cold
// cache lines (the List, its page slice, its page's bytes), so what it measures is how
// many dependent memory loads an operation needs, which a benchmark on one hot list
// (BenchmarkSmallList) hides.
//
//	go test -run '^$' -bench BenchmarkManySmallLists -benchtime 200ms -count 3 ./list/
func BenchmarkManySmallLists(b *testing.B) {
	const keys, n = 100_000, 10
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf("member:%07d", i)
	}
	ls := make([]*list.List, keys)
	for k := range ls {
		ls[k] = list.New()
		ls[k].PushBack(items...)
	}
	pick := make([]int32, 1<<16)
	r := rand.New(rand.NewPCG(3, 3))
	for i := range pick {
		pick[i] = int32(r.IntN(keys))
	}
	b.Run(fmt.Sprintf("op=lpush+rpop/keys=%d/n=%d/impl=zlite", keys, n), func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			l := ls[pick[i&(len(pick)-1)]]
			l.PushFront(items[i%n])
			if _, ok := l.PopBack(); !ok {
				b.Fatal("empty list")
			}
			i++
		}
	})
}
