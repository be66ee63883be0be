package list_test

import (
	"fmt"
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
