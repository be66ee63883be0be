package list

import (
	"slices"
	"strconv"
	"testing"
)

// TestPrefetch runs Prefetch on lists of every shape it distinguishes, the kept
// emptied pages at either end included, and checks that it changes nothing.
func TestPrefetch(t *testing.T) {
	items := func(n int) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = "item-" + strconv.Itoa(i)
		}
		return s
	}
	for _, tc := range []struct {
		name  string
		build func() *List
	}{
		{"empty", New},
		{"emptied", func() *List { l := New(); l.PushBack("a"); l.PopFront(); return l }},
		{"one item", func() *List { l := New(); l.PushBack("a"); return l }},
		{"many pages", func() *List { l := newSized(64); l.PushBack(items(200)...); return l }},
		{"emptied page at the front", func() *List {
			l := newSized(64)
			l.PushBack(items(200)...)
			for l.arr[l.a].n > 0 {
				l.PopFront()
			}
			return l
		}},
		{"emptied page at the back", func() *List {
			l := newSized(64)
			l.PushBack(items(200)...)
			for l.arr[l.b-1].n > 0 {
				l.PopBack()
			}
			return l
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := tc.build()
			before, mods := l.Range(0, -1), l.mods
			l.Prefetch()
			if err := l.check(); err != nil {
				t.Fatal(err)
			}
			if got := l.Range(0, -1); !slices.Equal(got, before) || l.mods != mods {
				t.Fatalf("after Prefetch: %d items, mods %d; want %d, %d", len(got), l.mods, len(before), mods)
			}
		})
	}
}
