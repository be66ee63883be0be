package dict

import (
	stdmaps "maps"
	"strconv"
	"testing"
)

// TestPrefetch runs Prefetch on maps of every shape it distinguishes (empty, packed,
// a table) and checks that it changes nothing.
func TestPrefetch(t *testing.T) {
	build := func(n int) *Map {
		m := New()
		for i := range n {
			m.Set("f"+strconv.Itoa(i), "v")
		}
		return m
	}
	for _, tc := range []struct {
		name string
		m    *Map
	}{
		{"empty", New()},
		{"packed", build(10)},
		{"table", build(200)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, enc := stdmaps.Collect(tc.m.All()), tc.m.Encoding()
			tc.m.Prefetch()
			if err := tc.m.check(); err != nil {
				t.Fatal(err)
			}
			if got := stdmaps.Collect(tc.m.All()); !stdmaps.Equal(got, before) || tc.m.Encoding() != enc {
				t.Fatalf("after Prefetch: %d fields, %s; want %d, %s", len(got), tc.m.Encoding(), len(before), enc)
			}
		})
	}
}
