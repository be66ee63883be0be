package zset

import (
	"slices"
	"strconv"
	"testing"
)

// TestPrefetch runs Prefetch on sets of every shape it distinguishes and checks that
// it changes nothing.
func TestPrefetch(t *testing.T) {
	filled := func(n int) func() *Set {
		return func() *Set {
			s := New()
			for i := range n {
				s.Add(AddOptions{}, Entry{Member: "member-" + strconv.Itoa(i), Score: float64(i)})
			}
			return s
		}
	}
	entries := func(s *Set) (es []Entry) {
		for m, sc := range s.All() {
			es = append(es, Entry{Member: m, Score: sc})
		}
		return es
	}
	emptied := func(n int) func() *Set {
		return func() *Set {
			s := filled(n)()
			s.PopMinN(n)
			return s
		}
	}
	for _, tc := range []struct {
		name  string
		build func() *Set
		tree  bool
	}{
		{"empty", New, false},
		{"one member", filled(1), false},
		{"indexed small", filled(10), false},
		{"small past 256 bytes", filled(100), false},
		{"tree", filled(200), true},
		{"emptied small", emptied(10), false},
		{"emptied tree", emptied(200), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.build()
			if got := s.tree() != nil; got != tc.tree {
				t.Fatalf("tree encoding %v; want %v", got, tc.tree)
			}
			before, mods := entries(s), s.mods
			s.Prefetch()
			if err := s.check(); err != nil {
				t.Fatal(err)
			}
			if got := entries(s); !slices.Equal(got, before) || s.mods != mods {
				t.Fatalf("after Prefetch: %d members, mods %d; want %d, %d", len(got), s.mods, len(before), mods)
			}
		})
	}
}
