package list

import (
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/zlite/zlite/internal/redistest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	redistest.Stop()
	os.Exit(code)
}

// from returns a list holding items, head first, built with PushBack.
func from(items ...string) *List {
	l := New()
	l.PushBack(items...)
	return l
}

func mustCheck(t *testing.T, l *List) {
	t.Helper()
	if err := l.check(); err != nil {
		t.Fatalf("invariant: %v", err)
	}
}

func TestZeroValue(t *testing.T) {
	var l List
	if n := l.Len(); n != 0 {
		t.Fatalf("Len() = %d; want 0", n)
	}
	if v, ok := l.PopFront(); ok {
		t.Fatalf("PopFront() = %q, true; want false", v)
	}
	if v, ok := l.PopBack(); ok {
		t.Fatalf("PopBack() = %q, true; want false", v)
	}
	if v, ok := l.Index(0); ok {
		t.Fatalf("Index(0) = %q, true; want false", v)
	}
	if err := l.Set(0, "x"); !errors.Is(err, ErrIndexOutOfRange) {
		t.Fatalf("Set(0) = %v; want ErrIndexOutOfRange", err)
	}
	if got := l.Range(0, -1); got == nil || len(got) != 0 {
		t.Fatalf("Range(0, -1) = %#v; want empty non-nil", got)
	}
	if got := l.Insert(true, "a", "b"); got != -1 {
		t.Fatalf("Insert = %d; want -1", got)
	}
	if got := l.Remove(0, "a"); got != 0 {
		t.Fatalf("Remove = %d; want 0", got)
	}
	l.Trim(0, -1)
	if got, err := l.Pos("a", 1, 0, 0); err != nil || len(got) != 0 {
		t.Fatalf("Pos = %v, %v; want none", got, err)
	}
	if v, ok := Move(&l, &l, true, false); ok {
		t.Fatalf("Move on empty = %q, true", v)
	}
	for range l.All() {
		t.Fatal("All() yielded on an empty list")
	}
	for range l.Backward() {
		t.Fatal("Backward() yielded on an empty list")
	}
	mustCheck(t, &l)
}

func TestPush(t *testing.T) {
	tests := []struct {
		name  string
		start []string
		front bool
		push  []string
		want  []string
	}{
		{"lpush order", nil, true, []string{"a", "b", "c"}, []string{"c", "b", "a"}},
		{"rpush order", nil, false, []string{"a", "b", "c"}, []string{"a", "b", "c"}},
		{"lpush onto existing", []string{"x"}, true, []string{"a", "b"}, []string{"b", "a", "x"}},
		{"rpush onto existing", []string{"x"}, false, []string{"a", "b"}, []string{"x", "a", "b"}},
		{"empty string", nil, false, []string{"", "a", ""}, []string{"", "a", ""}},
		{"nothing", []string{"x"}, true, nil, []string{"x"}},
		{"long item", []string{"x"}, true, []string{strings.Repeat("z", 70000)}, []string{strings.Repeat("z", 70000), "x"}},
		{"binary", nil, false, []string{"\x00\xff\x80", "\r\n"}, []string{"\x00\xff\x80", "\r\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := from(tt.start...)
			if tt.front {
				l.PushFront(tt.push...)
			} else {
				l.PushBack(tt.push...)
			}
			if got := l.Range(0, -1); !slices.Equal(got, tt.want) {
				t.Fatalf("after push: %q; want %q", got, tt.want)
			}
			if l.Len() != len(tt.want) {
				t.Fatalf("Len() = %d; want %d", l.Len(), len(tt.want))
			}
			mustCheck(t, l)
		})
	}
}

func TestPopN(t *testing.T) {
	tests := []struct {
		name  string
		front bool
		count int
		want  []string
		rest  []string
	}{
		{"front 2", true, 2, []string{"a", "b"}, []string{"c", "d"}},
		{"back 2", false, 2, []string{"d", "c"}, []string{"a", "b"}},
		{"front all and more", true, 10, []string{"a", "b", "c", "d"}, nil},
		{"back all and more", false, 10, []string{"d", "c", "b", "a"}, nil},
		{"zero", true, 0, []string{}, []string{"a", "b", "c", "d"}},
		{"negative", false, -3, []string{}, []string{"a", "b", "c", "d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := from("a", "b", "c", "d")
			var got []string
			if tt.front {
				got = l.PopFrontN(tt.count)
			} else {
				got = l.PopBackN(tt.count)
			}
			if got == nil || !slices.Equal(got, tt.want) {
				t.Fatalf("pop %d = %#v; want %q", tt.count, got, tt.want)
			}
			if rest := l.Range(0, -1); !slices.Equal(rest, tt.rest) && len(rest)+len(tt.rest) > 0 {
				t.Fatalf("left %q; want %q", rest, tt.rest)
			}
			mustCheck(t, l)
		})
	}
}

func TestIndexSet(t *testing.T) {
	items := []string{"a", "b", "c"}
	tests := []struct {
		i    int
		want string
		ok   bool
	}{
		{0, "a", true}, {2, "c", true}, {-1, "c", true}, {-3, "a", true},
		{3, "", false}, {-4, "", false}, {math.MaxInt, "", false}, {math.MinInt, "", false},
	}
	for _, tt := range tests {
		l := from(items...)
		if v, ok := l.Index(tt.i); v != tt.want || ok != tt.ok {
			t.Errorf("Index(%d) = %q, %v; want %q, %v", tt.i, v, ok, tt.want, tt.ok)
		}
		err := l.Set(tt.i, "new")
		if tt.ok {
			if v, _ := l.Index(tt.i); err != nil || v != "new" {
				t.Errorf("Set(%d) = %v, then Index = %q; want nil, new", tt.i, err, v)
			}
		} else if !errors.Is(err, ErrIndexOutOfRange) || err.Error() != "ERR index out of range" {
			t.Errorf("Set(%d) = %v; want ErrIndexOutOfRange", tt.i, err)
		} else if got := l.Range(0, -1); !slices.Equal(got, items) {
			t.Errorf("failed Set(%d) changed the list to %q", tt.i, got)
		}
		mustCheck(t, l)
	}
}

func TestRangeTrim(t *testing.T) {
	items := []string{"a", "b", "c", "d", "e"}
	tests := []struct {
		start, stop int
		want        []string
	}{
		{0, -1, items},
		{0, 0, []string{"a"}},
		{1, 3, []string{"b", "c", "d"}},
		{-2, -1, []string{"d", "e"}},
		{-100, 1, []string{"a", "b"}},
		{3, 100, []string{"d", "e"}},
		{3, 1, []string{}},
		{5, 10, []string{}},
		{-1, -2, []string{}},
		{0, -6, []string{}},
		{math.MinInt, math.MaxInt, items},
	}
	for _, tt := range tests {
		l := from(items...)
		if got := l.Range(tt.start, tt.stop); !slices.Equal(got, tt.want) {
			t.Errorf("Range(%d, %d) = %q; want %q", tt.start, tt.stop, got, tt.want)
		}
		l.Trim(tt.start, tt.stop)
		if got := l.Range(0, -1); !slices.Equal(got, tt.want) {
			t.Errorf("after Trim(%d, %d): %q; want %q", tt.start, tt.stop, got, tt.want)
		}
		mustCheck(t, l)
	}
}

func TestInsert(t *testing.T) {
	tests := []struct {
		before       bool
		pivot, value string
		wantN        int
		want         []string
	}{
		{true, "b", "x", 4, []string{"a", "x", "b", "b"}},
		{false, "b", "x", 4, []string{"a", "b", "x", "b"}},
		{true, "a", "x", 4, []string{"x", "a", "b", "b"}},
		{false, "a", "x", 4, []string{"a", "x", "b", "b"}},
		{false, "zz", "x", -1, []string{"a", "b", "b"}},
	}
	for _, tt := range tests {
		l := from("a", "b", "b")
		if n := l.Insert(tt.before, tt.pivot, tt.value); n != tt.wantN {
			t.Errorf("Insert(%v, %q, %q) = %d; want %d", tt.before, tt.pivot, tt.value, n, tt.wantN)
		}
		if got := l.Range(0, -1); !slices.Equal(got, tt.want) {
			t.Errorf("after Insert(%v, %q, %q): %q; want %q", tt.before, tt.pivot, tt.value, got, tt.want)
		}
		mustCheck(t, l)
	}
}

func TestRemove(t *testing.T) {
	items := []string{"a", "b", "a", "c", "a"}
	tests := []struct {
		count int
		value string
		n     int
		want  []string
	}{
		{0, "a", 3, []string{"b", "c"}},
		{1, "a", 1, []string{"b", "a", "c", "a"}},
		{2, "a", 2, []string{"b", "c", "a"}},
		{-1, "a", 1, []string{"a", "b", "a", "c"}},
		{-2, "a", 2, []string{"a", "b", "c"}},
		{10, "a", 3, []string{"b", "c"}},
		{0, "zz", 0, items},
		{math.MinInt, "a", 3, []string{"b", "c"}},
	}
	for _, tt := range tests {
		l := from(items...)
		if n := l.Remove(tt.count, tt.value); n != tt.n {
			t.Errorf("Remove(%d, %q) = %d; want %d", tt.count, tt.value, n, tt.n)
		}
		if got := l.Range(0, -1); !slices.Equal(got, tt.want) {
			t.Errorf("after Remove(%d, %q): %q; want %q", tt.count, tt.value, got, tt.want)
		}
		mustCheck(t, l)
	}
}

func TestPos(t *testing.T) {
	l := from("a", "b", "c", "1", "2", "3", "c", "c")
	tests := []struct {
		rank, count, maxLen int
		want                []int
		err                 error
	}{
		{1, 1, 0, []int{2}, nil},
		{1, 0, 0, []int{2, 6, 7}, nil},
		{2, 0, 0, []int{6, 7}, nil},
		{2, 1, 0, []int{6}, nil},
		{-1, 1, 0, []int{7}, nil},
		{-1, 0, 0, []int{7, 6, 2}, nil},
		{-3, 0, 0, []int{2}, nil},
		{4, 0, 0, nil, nil},
		{1, 0, 3, []int{2}, nil},
		{1, 0, 2, nil, nil},
		{-1, 0, 2, []int{7, 6}, nil},
		{math.MaxInt, 0, 0, nil, nil},
		{0, 1, 0, nil, ErrRankZero},
		{1, -1, 0, nil, ErrNegativeCount},
		{1, 0, -1, nil, ErrNegativeMaxLen},
		{math.MinInt, 1, 0, nil, ErrRankOutOfRange},
	}
	for _, tt := range tests {
		got, err := l.Pos("c", tt.rank, tt.count, tt.maxLen)
		if !errors.Is(err, tt.err) || !slices.Equal(got, tt.want) {
			t.Errorf("Pos(c, %d, %d, %d) = %v, %v; want %v, %v", tt.rank, tt.count, tt.maxLen, got, err, tt.want, tt.err)
		}
	}
}

func TestErrorTexts(t *testing.T) {
	// Redis's replies, word for word (redis-cli against Redis 7.0.15; the RANK range
	// text is from Redis 7.2's lposCommand).
	tests := []struct {
		err  error
		want string
	}{
		{ErrIndexOutOfRange, "ERR index out of range"},
		{ErrRankZero, "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"},
		{ErrRankOutOfRange, "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"},
		{ErrNegativeCount, "ERR COUNT can't be negative"},
		{ErrNegativeMaxLen, "ERR MAXLEN can't be negative"},
	}
	for _, tt := range tests {
		if tt.err.Error() != tt.want {
			t.Errorf("error text %q; want %q", tt.err.Error(), tt.want)
		}
	}
	if err := ValidatePos(1, 0, 0); err != nil {
		t.Errorf("ValidatePos(1, 0, 0) = %v; want nil", err)
	}
}

func TestMove(t *testing.T) {
	tests := []struct {
		srcFront, dstFront bool
		v                  string
		src, dst           []string
		rot                []string // the same move with src == dst
	}{
		{true, true, "a", []string{"b", "c"}, []string{"a", "x"}, []string{"a", "b", "c"}},
		{true, false, "a", []string{"b", "c"}, []string{"x", "a"}, []string{"b", "c", "a"}},
		{false, true, "c", []string{"a", "b"}, []string{"c", "x"}, []string{"c", "a", "b"}},
		{false, false, "c", []string{"a", "b"}, []string{"x", "c"}, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		src, dst := from("a", "b", "c"), from("x")
		if v, ok := Move(src, dst, tt.srcFront, tt.dstFront); v != tt.v || !ok {
			t.Errorf("Move(%v, %v) = %q, %v; want %q, true", tt.srcFront, tt.dstFront, v, ok, tt.v)
		}
		if got := src.Range(0, -1); !slices.Equal(got, tt.src) {
			t.Errorf("Move(%v, %v) left src %q; want %q", tt.srcFront, tt.dstFront, got, tt.src)
		}
		if got := dst.Range(0, -1); !slices.Equal(got, tt.dst) {
			t.Errorf("Move(%v, %v) left dst %q; want %q", tt.srcFront, tt.dstFront, got, tt.dst)
		}
		rot := from("a", "b", "c")
		Move(rot, rot, tt.srcFront, tt.dstFront)
		if got := rot.Range(0, -1); !slices.Equal(got, tt.rot) {
			t.Errorf("rotate Move(%v, %v) = %q; want %q", tt.srcFront, tt.dstFront, got, tt.rot)
		}
		mustCheck(t, src)
		mustCheck(t, dst)
		mustCheck(t, rot)
	}
	one := from("only")
	if v, ok := Move(one, one, true, false); v != "only" || !ok || one.Len() != 1 {
		t.Errorf("rotating a 1-item list: %q, %v, Len %d", v, ok, one.Len())
	}
}

func TestIterators(t *testing.T) {
	l := from("a", "b", "c")
	var got []string
	for i, v := range l.All() {
		got = append(got, v)
		if i == 1 {
			break
		}
	}
	if !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("All() with break = %q; want [a b]", got)
	}
	// Changes during iteration: the iteration goes on by index.
	got = nil
	for i, v := range l.All() {
		got = append(got, v)
		if i == 0 {
			l.PopFront() // now b c; index 1 is c
		}
	}
	if !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("All() with PopFront inside = %q; want [a c]", got)
	}
	l = from("a", "b", "c", "d")
	got = nil
	for i, v := range l.Backward() {
		got = append(got, v)
		if i == 3 {
			l.PopBackN(2) // now a b; index 2 is past the end, so go on from the tail
		}
	}
	if !slices.Equal(got, []string{"d", "b", "a"}) {
		t.Fatalf("Backward() with PopBackN inside = %q; want [d b a]", got)
	}
}

// TestDrainShrinks checks that a list that held many items gives its memory back when
// it empties, and that a drained queue keeps at most one page's worth of buffers.
func TestDrainShrinks(t *testing.T) {
	l := New()
	for i := range 100_000 {
		l.PushBack(item(i))
	}
	if l.b-l.a < 100 {
		t.Fatalf("%d pages for 100000 items; want many", l.b-l.a)
	}
	for l.Len() > 0 {
		l.PopFront()
	}
	mustCheck(t, l)
	if len(l.arr) > minSlots || int(l.spareLen) > l.pageSize() {
		t.Fatalf("drained list keeps %d page slots and a %d-byte buffer", len(l.arr), l.spareLen)
	}
	l.PushBack(item(0))
	l.PushFront(item(1))
	l.Trim(5, 10)
	if len(l.arr) > minSlots || l.Len() != 0 {
		t.Fatalf("trimmed list keeps %d page slots, %d items", len(l.arr), l.Len())
	}
}

// TestPageBoundaries runs pushes and pops across page boundaries with items of every
// encoded length class, comparing with the model at each step.
func TestPageBoundaries(t *testing.T) {
	for _, size := range []int{16, 64, 4096} {
		h := newHarness(size)
		for _, n := range []int{0, 1, 15, 16, 127, 128, 200, 16383, 16384} {
			v := strings.Repeat("x", n)
			for _, op := range []opArgs{
				{op: 0, vs: []string{v, v}}, {op: 1, vs: []string{v}}, {op: 7, x: 1, v: "s"},
				{op: 9, flag: true, pivot: v, v: "i"}, {op: 2}, {op: 3}, {op: 13, flag: true},
			} {
				if err := h.apply(op); err != nil {
					t.Fatalf("page size %d, item %d bytes, op %d: %v", size, n, op.op, err)
				}
			}
		}
		if err := h.same(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSmallList checks that a small list costs little more than its bytes: its first
// page starts at the size class of its first item and grows by half, in one page
// slot (the List's own), until it is a full page; Pages and MemoryUsage report it; and
// a small list used as a queue allocates nothing but the popped strings.
func TestSmallList(t *testing.T) {
	if got := unsafe.Sizeof(List{}); got > 96 {
		t.Fatalf("sizeof(List) = %d; want ≤ 96", got)
	}
	for _, front := range []bool{false, true} {
		l := New()
		if l.Pages() != 0 || l.MemoryUsage() != int(unsafe.Sizeof(List{})) {
			t.Fatalf("empty list: Pages() = %d, MemoryUsage() = %d", l.Pages(), l.MemoryUsage())
		}
		enc, want := 0, 0 // encoded bytes, expected buffer size
		for i := range 200 {
			v := item(i) // 16 bytes, 18 encoded
			if front {
				l.PushFront(v)
			} else {
				l.PushBack(v)
			}
			enc += 18
			if enc > want {
				want = min(sizeClass(max(enc, want+want/2)), defaultPageSize)
			}
			mustCheck(t, l)
			fixed := int(unsafe.Sizeof(List{}))
			if !l.inline() {
				fixed += len(l.arr) * int(unsafe.Sizeof(page{}))
			}
			got := l.MemoryUsage()
			switch {
			case enc <= defaultPageSize && (l.Pages() != 1 || !l.inline() || got != fixed+want):
				t.Fatalf("front=%v, %d items: %d pages in %d slots, MemoryUsage() = %d; want 1 page of %d bytes, %d", front, i+1, l.Pages(), len(l.arr), got, want, fixed+want)
			case enc > defaultPageSize && l.Pages() < 2:
				t.Fatalf("front=%v, %d items in %d bytes: %d page", front, i+1, enc, l.Pages())
			}
		}
	}
	for _, n := range []int{1, 10, 14} {
		l := New()
		for i := range n {
			l.PushBack(item(i))
		}
		v := item(n)
		if a := testing.AllocsPerRun(100, func() {
			l.PushBack(v)
			l.PopFront()
		}); a != 1 {
			t.Errorf("%d items: RPUSH+LPOP costs %v allocations; want 1 (the popped string)", n, a)
		}
	}
}

// TestSizeClasses checks the size-class table against the running allocator: append
// rounds a new slice's capacity up to the size class of its length.
func TestSizeClasses(t *testing.T) {
	for n := 1; n <= int(sizeClasses[len(sizeClasses)-1]); n++ {
		if got, want := sizeClass(n), cap(slices.Grow([]byte(nil), n)); got != want {
			t.Fatalf("sizeClass(%d) = %d; the allocator gives %d", n, got, want)
		}
	}
}

// TestSwap checks that Swap moves contents both ways, one-page lists (whose page
// slice points into the List) and longer ones, and that both stay sound and usable.
func TestSwap(t *testing.T) {
	many := make([]string, 500)
	for i := range many {
		many[i] = strings.Repeat("x", 20) + string(rune('a'+i%26))
	}
	tests := []struct {
		name string
		a, b []string
	}{
		{"empty/empty", nil, nil},
		{"one page/empty", []string{"a", "b"}, nil},
		{"one page/one page", []string{"a"}, []string{"b", "c"}},
		{"pages/one page", many, []string{"z"}},
		{"pages/pages", many, many[:300]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := from(tt.a...), from(tt.b...)
			a.Swap(b)
			for _, c := range []struct {
				l    *List
				want []string
			}{{a, tt.b}, {b, tt.a}} {
				mustCheck(t, c.l)
				if got := c.l.Range(0, -1); !slices.Equal(got, c.want) && len(got)+len(c.want) > 0 {
					t.Fatalf("after Swap: %d items %.3q; want %d %.3q", len(got), got, len(c.want), c.want)
				}
				// Still usable in place: the page slice of a one-page list is its own.
				c.l.PushBack("end")
				mustCheck(t, c.l)
				if v, _ := c.l.PopBack(); v != "end" {
					t.Fatalf("PopBack after Swap and PushBack = %q; want end", v)
				}
			}
		})
	}
}
