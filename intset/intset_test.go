package intset

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// build returns a set holding vs, added in order, checking the invariants after each.
func build(t *testing.T, vs ...int64) *Set {
	t.Helper()
	s := New()
	for _, v := range vs {
		s.Add(v)
		if err := s.check(); err != nil {
			t.Fatalf("after Add(%d): %v", v, err)
		}
	}
	return s
}

// members returns the members of s via All.
func members(s *Set) []int64 {
	return slices.Collect(s.All())
}

// sortedUnique returns vs sorted ascending without duplicates.
func sortedUnique(vs []int64) []int64 {
	vs = slices.Clone(vs)
	slices.Sort(vs)
	return slices.Compact(vs)
}

func TestSizeOfSet(t *testing.T) {
	if got := unsafe.Sizeof(Set{}); got != 24 {
		t.Errorf("unsafe.Sizeof(Set{}) = %d; want 24", got)
	}
}

func TestZeroValue(t *testing.T) {
	var s Set
	if got := s.Len(); got != 0 {
		t.Errorf("s.Len() = %d; want 0", got)
	}
	if got := s.Width(); got != 2 {
		t.Errorf("s.Width() = %d; want 2", got)
	}
	for _, v := range []int64{0, 1, -1, math.MinInt64, math.MaxInt64} {
		if got := s.Has(v); got {
			t.Errorf("s.Has(%d) = %v; want false", v, got)
		}
		if got := s.Remove(v); got {
			t.Errorf("s.Remove(%d) = %v; want false", v, got)
		}
	}
	if v, ok := s.Min(); v != 0 || ok {
		t.Errorf("s.Min() = %d, %v; want 0, false", v, ok)
	}
	if v, ok := s.Max(); v != 0 || ok {
		t.Errorf("s.Max() = %d, %v; want 0, false", v, ok)
	}
	if v, ok := s.Random(nil); v != 0 || ok {
		t.Errorf("s.Random(nil) = %d, %v; want 0, false", v, ok)
	}
	if v, ok := s.Random(rand.New(rand.NewPCG(1, 2))); v != 0 || ok {
		t.Errorf("s.Random(r) = %d, %v; want 0, false", v, ok)
	}
	for v := range s.All() {
		t.Errorf("s.All() yielded %d; want nothing", v)
	}
	if got, want := s.MemoryUsage(), int(unsafe.Sizeof(s)); got != want {
		t.Errorf("s.MemoryUsage() = %d; want %d", got, want)
	}
	if c := s.Clone(); c.Len() != 0 || c.MemoryUsage() != 24 {
		t.Errorf("s.Clone() has Len %d, MemoryUsage %d; want 0, 24", c.Len(), c.MemoryUsage())
	}
	if err := s.check(); err != nil {
		t.Error(err)
	}
}

func TestWidthOf(t *testing.T) {
	tests := []struct {
		v    int64
		want int
	}{
		{0, 2}, {1, 2}, {-1, 2},
		{math.MaxInt16, 2}, {math.MinInt16, 2},
		{math.MaxInt16 + 1, 4}, {math.MinInt16 - 1, 4},
		{math.MaxInt32, 4}, {math.MinInt32, 4},
		{math.MaxInt32 + 1, 8}, {math.MinInt32 - 1, 8},
		{math.MaxInt64, 8}, {math.MinInt64, 8},
	}
	for _, tt := range tests {
		if got := widthOf(tt.v); got != tt.want {
			t.Errorf("widthOf(%d) = %d; want %d", tt.v, got, tt.want)
		}
	}
}

func TestAddWidth(t *testing.T) {
	tests := []struct {
		name  string
		adds  []int64
		width int
	}{
		{"empty", nil, 2},
		{"zero", []int64{0}, 2},
		{"MaxInt16", []int64{math.MaxInt16}, 2},
		{"MinInt16", []int64{math.MinInt16}, 2},
		{"MaxInt16+1", []int64{math.MaxInt16 + 1}, 4},
		{"MinInt16-1", []int64{math.MinInt16 - 1}, 4},
		{"both int16 ends", []int64{math.MaxInt16, math.MinInt16}, 2},
		{"MaxInt32", []int64{math.MaxInt32}, 4},
		{"MinInt32", []int64{math.MinInt32}, 4},
		{"MaxInt32+1", []int64{math.MaxInt32 + 1}, 8},
		{"MinInt32-1", []int64{math.MinInt32 - 1}, 8},
		{"MaxInt64", []int64{math.MaxInt64}, 8},
		{"MinInt64", []int64{math.MinInt64}, 8},
		{"upgrade 2 to 4 appending", []int64{1, 2, 3, 32768}, 4},
		{"upgrade 2 to 4 prepending", []int64{1, 2, 3, -32769}, 4},
		{"upgrade 2 to 8 appending", []int64{-5, 0, 5, 1 << 31}, 8},
		{"upgrade 2 to 8 prepending", []int64{-5, 0, 5, -1<<31 - 1}, 8},
		{"upgrade 4 to 8 appending", []int64{-40000, 40000, math.MaxInt64}, 8},
		{"upgrade 4 to 8 prepending", []int64{-40000, 40000, math.MinInt64}, 8},
		{"upgrade one member", []int64{7, math.MinInt64}, 8},
		{"all boundaries", []int64{
			math.MinInt64, math.MinInt32 - 1, math.MinInt32, math.MinInt16 - 1, math.MinInt16,
			-1, 0, 1, math.MaxInt16, math.MaxInt16 + 1, math.MaxInt32, math.MaxInt32 + 1, math.MaxInt64,
		}, 8},
		{"boundaries reversed", []int64{
			math.MaxInt64, math.MaxInt32 + 1, math.MaxInt32, math.MaxInt16 + 1, math.MaxInt16,
			1, 0, -1, math.MinInt16, math.MinInt16 - 1, math.MinInt32, math.MinInt32 - 1, math.MinInt64,
		}, 8},
		{"duplicate wide add", []int64{1, 1 << 40, 1 << 40}, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := build(t, tt.adds...)
			want := sortedUnique(tt.adds)
			if got := s.Width(); got != tt.width {
				t.Errorf("s.Width() = %d; want %d", got, tt.width)
			}
			if got := s.Len(); got != len(want) {
				t.Errorf("s.Len() = %d; want %d", got, len(want))
			}
			if got := members(s); !slices.Equal(got, want) {
				t.Errorf("s.All() = %v; want %v", got, want)
			}
			for i, v := range want {
				if got := s.At(i); got != v {
					t.Errorf("s.At(%d) = %d; want %d", i, got, v)
				}
				if got := s.Has(v); !got {
					t.Errorf("s.Has(%d) = %v; want true", v, got)
				}
			}
			if len(want) > 0 {
				if v, ok := s.Min(); v != want[0] || !ok {
					t.Errorf("s.Min() = %d, %v; want %d, true", v, ok, want[0])
				}
				if v, ok := s.Max(); v != want[len(want)-1] || !ok {
					t.Errorf("s.Max() = %d, %v; want %d, true", v, ok, want[len(want)-1])
				}
			}
			if got, min := s.MemoryUsage(), 24+1+len(want)*tt.width; len(want) > 0 && got < min {
				t.Errorf("s.MemoryUsage() = %d; want at least %d", got, min)
			}
		})
	}
}

func TestAddReports(t *testing.T) {
	s := New()
	steps := []struct {
		v    int64
		want bool
	}{
		{5, true}, {5, false}, {-5, true}, {-5, false}, {0, true},
		{math.MaxInt64, true}, {math.MaxInt64, false}, {5, false},
		{math.MinInt64, true}, {math.MinInt64, false}, {0, false},
	}
	for _, st := range steps {
		if got := s.Add(st.v); got != st.want {
			t.Errorf("s.Add(%d) = %v; want %v", st.v, got, st.want)
		}
		if err := s.check(); err != nil {
			t.Fatalf("after Add(%d): %v", st.v, err)
		}
	}
	if got, want := members(s), []int64{math.MinInt64, -5, 0, 5, math.MaxInt64}; !slices.Equal(got, want) {
		t.Errorf("s.All() = %v; want %v", got, want)
	}
}

func TestHasMisses(t *testing.T) {
	tests := []struct {
		name string
		set  []int64
		miss []int64
	}{
		{"width 2", []int64{-10, 0, 10},
			[]int64{-11, -9, -1, 1, 9, 11, math.MaxInt16, math.MinInt16, 1 << 20, -1 << 20, math.MaxInt64, math.MinInt64}},
		{"width 4", []int64{-1 << 20, 0, 1 << 20},
			[]int64{1, -1, 1<<20 + 1, math.MaxInt32, math.MinInt32, math.MaxInt32 + 1, math.MinInt32 - 1, math.MaxInt64, math.MinInt64}},
		{"width 8", []int64{math.MinInt64 + 1, 0, math.MaxInt64 - 1},
			[]int64{math.MinInt64, math.MaxInt64, 1, -1, math.MaxInt32 + 1}},
		{"one member", []int64{3}, []int64{2, 4, math.MaxInt64, math.MinInt64}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := build(t, tt.set...)
			for _, v := range tt.miss {
				if got := s.Has(v); got {
					t.Errorf("s.Has(%d) = %v; want false", v, got)
				}
				if got := s.Remove(v); got {
					t.Errorf("s.Remove(%d) = %v; want false", v, got)
				}
			}
			if got := members(s); !slices.Equal(got, tt.set) {
				t.Errorf("s.All() = %v; want %v", got, tt.set)
			}
		})
	}
}

func TestRemove(t *testing.T) {
	tests := []struct {
		name    string
		set     []int64
		remove  []int64
		want    []int64
		width   int
		removed int
	}{
		{"last member resets width", []int64{math.MinInt64}, []int64{math.MinInt64}, nil, 2, 1},
		{"wide member removed keeps width", []int64{1, 2, 1 << 40}, []int64{1 << 40}, []int64{1, 2}, 8, 1},
		{"first", []int64{1, 2, 3}, []int64{1}, []int64{2, 3}, 2, 1},
		{"middle", []int64{1, 2, 3}, []int64{2}, []int64{1, 3}, 2, 1},
		{"last", []int64{1, 2, 3}, []int64{3}, []int64{1, 2}, 2, 1},
		{"all in order", []int64{1, 2, 3}, []int64{1, 2, 3}, nil, 2, 3},
		{"all reversed", []int64{70000, -70000}, []int64{70000, -70000}, nil, 2, 2},
		{"absent and present", []int64{1, 3}, []int64{2, 3, 3, 4}, []int64{1}, 2, 1},
		{"int32 ends", []int64{math.MinInt32, math.MaxInt32}, []int64{math.MaxInt32}, []int64{math.MinInt32}, 4, 1},
		{"int64 ends", []int64{math.MinInt64, math.MaxInt64}, []int64{math.MinInt64}, []int64{math.MaxInt64}, 8, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := build(t, tt.set...)
			n := 0
			for _, v := range tt.remove {
				if s.Remove(v) {
					n++
				}
				if err := s.check(); err != nil {
					t.Fatalf("after Remove(%d): %v", v, err)
				}
			}
			if n != tt.removed {
				t.Errorf("Remove reported %d removals; want %d", n, tt.removed)
			}
			if got := members(s); !slices.Equal(got, tt.want) {
				t.Errorf("s.All() = %v; want %v", got, tt.want)
			}
			if got := s.Width(); got != tt.width {
				t.Errorf("s.Width() = %d; want %d", got, tt.width)
			}
			if got := s.Len(); got != len(tt.want) {
				t.Errorf("s.Len() = %d; want %d", got, len(tt.want))
			}
		})
	}
}

func TestEmptiedSetChoosesWidthAfresh(t *testing.T) {
	s := build(t, math.MaxInt64)
	s.Remove(math.MaxInt64)
	if got := s.Width(); got != 2 {
		t.Errorf("s.Width() = %d; want 2", got)
	}
	s.Add(1)
	if got := s.Width(); got != 2 {
		t.Errorf("after Add(1): s.Width() = %d; want 2", got)
	}
	if err := s.check(); err != nil {
		t.Fatal(err)
	}
	if got := members(s); !slices.Equal(got, []int64{1}) {
		t.Errorf("s.All() = %v; want [1]", got)
	}
}

func TestRemoveAt(t *testing.T) {
	s := build(t, 10, 20, 30, 40)
	for _, tt := range []struct {
		i    int
		want []int64
	}{{1, []int64{10, 30, 40}}, {2, []int64{10, 30}}, {0, []int64{30}}, {0, nil}} {
		s.RemoveAt(tt.i)
		if err := s.check(); err != nil {
			t.Fatalf("after RemoveAt(%d): %v", tt.i, err)
		}
		if got := members(s); !slices.Equal(got, tt.want) {
			t.Errorf("after RemoveAt(%d): s.All() = %v; want %v", tt.i, got, tt.want)
		}
	}
}

// mustPanic reports whether f panics with a message containing want.
func mustPanic(t *testing.T, name, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("%s did not panic; want a panic %q", name, want)
			return
		}
		if msg := fmt.Sprint(r); !strings.Contains(msg, want) {
			t.Errorf("%s panicked with %q; want %q", name, msg, want)
		}
	}()
	f()
}

func TestIndexPanics(t *testing.T) {
	var empty Set
	s := build(t, 1, 2, 3)
	tests := []struct {
		s    *Set
		i    int
		want string
	}{
		{&empty, 0, "index out of range [0] with length 0"},
		{&empty, -1, "index out of range [-1] with length 0"},
		{s, 3, "index out of range [3] with length 3"},
		{s, -1, "index out of range [-1] with length 3"},
		{s, math.MaxInt, fmt.Sprintf("index out of range [%d] with length 3", math.MaxInt)},
		{s, math.MinInt, fmt.Sprintf("index out of range [%d] with length 3", math.MinInt)},
	}
	for _, tt := range tests {
		mustPanic(t, fmt.Sprintf("s.At(%d)", tt.i), tt.want, func() { tt.s.At(tt.i) })
		mustPanic(t, fmt.Sprintf("s.RemoveAt(%d)", tt.i), tt.want, func() { tt.s.RemoveAt(tt.i) })
	}
	if got := members(s); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Errorf("after panics: s.All() = %v; want [1 2 3]", got)
	}
}

func TestAllBreak(t *testing.T) {
	for _, vs := range [][]int64{{1, 2, 3, 4}, {1, 2, 1 << 20, 1 << 21}, {1, 2, 1 << 40, 1 << 41}} {
		s := build(t, vs...)
		var got []int64
		for v := range s.All() {
			got = append(got, v)
			if len(got) == 2 {
				break
			}
		}
		if !slices.Equal(got, vs[:2]) {
			t.Errorf("first two of s.All() = %v; want %v", got, vs[:2])
		}
	}
}

// TestAllChangedDuringIteration checks only that a set changed from the loop body
// does not make the iterator panic; the values are unspecified.
func TestAllChangedDuringIteration(t *testing.T) {
	s := build(t, 1, 2, 3, 4, 5)
	n := 0
	for v := range s.All() {
		s.Remove(v + 1)
		s.Add(v * 1 << 40)
		if n++; n > 100 {
			t.Fatal("s.All() did not end")
		}
	}
	s = build(t, 1, 2, 3, 4, 5)
	for v := range s.All() {
		s.Remove(v)
	}
	if err := s.check(); err != nil {
		t.Fatal(err)
	}
}

func TestRandomUniform(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, vs := range [][]int64{{42}, {-3, 9, 1 << 20, 1 << 50, math.MinInt64}} {
		s := build(t, vs...)
		counts := map[int64]int{}
		const draws = 20000
		for range draws {
			v, ok := s.Random(r)
			if !ok || !s.Has(v) {
				t.Fatalf("s.Random(r) = %d, %v; want a member, true", v, ok)
			}
			counts[v]++
		}
		want := float64(draws) / float64(len(vs))
		for _, v := range vs {
			// Each count is binomial with standard deviation below 71; 6 of them is
			// far beyond chance.
			if c := float64(counts[v]); math.Abs(c-want) > 6*71 {
				t.Errorf("s.Random drew %d %v times in %d; want about %.0f", v, c, draws, want)
			}
		}
		if v, ok := s.Random(nil); !ok || !s.Has(v) {
			t.Errorf("s.Random(nil) = %d, %v; want a member, true", v, ok)
		}
	}
}

func TestClone(t *testing.T) {
	s := build(t, 1, 2, 3, 1<<40)
	c := s.Clone()
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
	if got, want := members(c), members(s); !slices.Equal(got, want) {
		t.Errorf("s.Clone().All() = %v; want %v", got, want)
	}
	if got, want := c.Width(), s.Width(); got != want {
		t.Errorf("s.Clone().Width() = %d; want %d", got, want)
	}
	c.Add(4)
	c.Remove(1)
	if got, want := members(s), []int64{1, 2, 3, 1 << 40}; !slices.Equal(got, want) {
		t.Errorf("after changing the clone: s.All() = %v; want %v", got, want)
	}
	// The clone of a set with spare capacity is compact.
	big := New()
	for i := range int64(300) {
		big.Add(i)
	}
	for i := range int64(290) {
		big.Remove(i)
	}
	if c := big.Clone(); c.MemoryUsage() > 24+32 {
		t.Errorf("clone of a 10-member set: MemoryUsage() = %d; want at most %d", c.MemoryUsage(), 24+32)
	}
}

func TestMemoryUsage(t *testing.T) {
	s := New()
	for i := range int64(10) {
		s.Add(i)
	}
	// 21 bytes, grown through the size classes 8, 16, 24 (append would double to 32).
	if got := s.MemoryUsage(); got != 24+24 {
		t.Errorf("10 members of width 2: s.MemoryUsage() = %d; want %d", got, 24+24)
	}
	if got := s.Clone().MemoryUsage(); got != 24+24 {
		t.Errorf("clone of 10 members of width 2: MemoryUsage() = %d; want %d", got, 24+24)
	}
	for i := int64(10); i < 512; i++ {
		s.Add(i << 40)
	}
	if got, min := s.MemoryUsage(), 24+1+512*8; got < min || got > 2*min {
		t.Errorf("512 members of width 8: s.MemoryUsage() = %d; want between %d and %d", got, min, 2*min)
	}
	// Removals give the memory back.
	for i := int64(10); i < 512; i++ {
		s.Remove(i << 40)
		if err := s.check(); err != nil {
			t.Fatalf("after Remove(%d): %v", i<<40, err)
		}
	}
	if got := s.MemoryUsage(); got > 24+4*(1+10*8) {
		t.Errorf("back to 10 members: s.MemoryUsage() = %d; want at most %d", got, 24+4*(1+10*8))
	}
	for i := range int64(10) {
		s.Remove(i)
	}
	if got := s.MemoryUsage(); got > 24+shrinkMin {
		t.Errorf("emptied: s.MemoryUsage() = %d; want at most %d", got, 24+shrinkMin)
	}
}

// TestGrowth checks that a buffer grows to the next size class while small (at most
// classMax bytes) and by doubling after, so that a run of Adds reallocates O(log n)
// times.
func TestGrowth(t *testing.T) {
	classes := []int{8, 16, 24, 32, 48, 64}
	for _, w := range []int{2, 4, 8} {
		t.Run(fmt.Sprintf("width=%d", w), func(t *testing.T) {
			s := New()
			reallocs, prev := 0, 0
			for i := range int64(4096) {
				s.Add((i + 1) << (8*w - 16)) // every member needs width w
				need, c := len(s.b), cap(s.b)
				if c != prev {
					reallocs++
					prev = c
				}
				if need > classMax {
					continue
				}
				want := classes[slices.IndexFunc(classes, func(c int) bool { return c >= need })]
				if c != want {
					t.Fatalf("%d members of width %d (%d bytes): capacity %d; want %d", i+1, w, need, c, want)
				}
			}
			if max := 6 + bits.Len(uint(len(s.b))); reallocs > max {
				t.Errorf("4096 Adds at width %d reallocated %d times; want at most %d", w, reallocs, max)
			}
		})
	}
}

// TestNoAllocs checks that reads never allocate and that Add and Remove allocate only
// to grow.
func TestNoAllocs(t *testing.T) {
	s := New()
	for i := range int64(100) {
		s.Add(i * 1000)
	}
	r := rand.New(rand.NewPCG(1, 1))
	var sink int64
	allocs := testing.AllocsPerRun(100, func() {
		if s.Has(5000) {
			sink++
		}
		sink += s.At(3)
		v, _ := s.Random(r)
		sink += v
		for v := range s.All() {
			sink += v
		}
		s.Add(1)
		s.Remove(1)
	})
	if allocs != 0 {
		t.Errorf("reads and Add+Remove with spare capacity: %v allocations per run; want 0", allocs)
	}
	_ = sink
}

// TestPrefetch runs Prefetch on an empty set and on sets of every width, and checks
// that it changes nothing.
func TestPrefetch(t *testing.T) {
	for _, vs := range [][]int64{nil, {1, 2, 3}, {1, 1 << 20}, {1, 1 << 40}} {
		s := build(t, vs...)
		s.Prefetch()
		if err := s.check(); err != nil {
			t.Fatal(err)
		}
		if got := members(s); !slices.Equal(got, vs) && len(vs) > 0 {
			t.Fatalf("after Prefetch: %v; want %v", got, vs)
		}
	}
}
