package list

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/zlite/zlite/internal/testmain"
)

// opArgs are the operands of one randomized operation; each operation uses the ones
// it needs.
type opArgs struct {
	op       int
	x, y, z  int
	flag     bool
	flag2    bool
	v, pivot string
	vs       []string
}

const numOps = 17

// harness applies the same operations to two Lists and two models (the second list is
// Move's other end) and compares every result.
type harness struct {
	l, l2 *List
	m, m2 model
}

// newHarness returns a harness whose lists have pages of size bytes (0: the default).
func newHarness(size int) *harness {
	if size == 0 {
		return &harness{l: New(), l2: New()}
	}
	return &harness{l: newSized(size), l2: newSized(size)}
}

// apply runs one operation on both implementations and reports the first difference.
func (h *harness) apply(a opArgs) error {
	l, m := h.l, &h.m
	switch a.op {
	case 0:
		l.PushFront(a.vs...)
		m.pushFront(a.vs...)
	case 1:
		l.PushBack(a.vs...)
		m.pushBack(a.vs...)
	case 2:
		v, ok := l.PopFront()
		w := m.popFrontN(1)
		if ok != (len(w) == 1) || ok && v != w[0] {
			return fmt.Errorf("PopFront() = %q, %v; want %q", v, ok, w)
		}
	case 3:
		v, ok := l.PopBack()
		w := m.popBackN(1)
		if ok != (len(w) == 1) || ok && v != w[0] {
			return fmt.Errorf("PopBack() = %q, %v; want %q", v, ok, w)
		}
	case 4:
		if got, want := l.PopFrontN(a.x), m.popFrontN(a.x); !slices.Equal(got, want) {
			return fmt.Errorf("PopFrontN(%d) = %q; want %q", a.x, got, want)
		}
	case 5:
		if got, want := l.PopBackN(a.x), m.popBackN(a.x); !slices.Equal(got, want) {
			return fmt.Errorf("PopBackN(%d) = %q; want %q", a.x, got, want)
		}
	case 6:
		v, ok := l.Index(a.x)
		i, wok := m.norm(a.x)
		if ok != wok || ok && v != (*m)[i] {
			return fmt.Errorf("Index(%d) = %q, %v; want ok=%v", a.x, v, ok, wok)
		}
	case 7:
		err := l.Set(a.x, a.v)
		i, ok := m.norm(a.x)
		if ok {
			(*m)[i] = a.v
		}
		if (err == nil) != ok || err != nil && err != ErrIndexOutOfRange {
			return fmt.Errorf("Set(%d, %q) = %v; want in range %v", a.x, a.v, err, ok)
		}
	case 8:
		if got, want := l.Range(a.x, a.y), m.rangeOf(a.x, a.y); !slices.Equal(got, want) {
			return fmt.Errorf("Range(%d, %d) = %q; want %q", a.x, a.y, got, want)
		}
	case 9:
		if got, want := l.Insert(a.flag, a.pivot, a.v), m.insert(a.flag, a.pivot, a.v); got != want {
			return fmt.Errorf("Insert(%v, %q, %q) = %d; want %d", a.flag, a.pivot, a.v, got, want)
		}
	case 10:
		if got, want := l.Remove(a.x, a.v), m.remove(a.x, a.v); got != want {
			return fmt.Errorf("Remove(%d, %q) = %d; want %d", a.x, a.v, got, want)
		}
	case 11:
		l.Trim(a.x, a.y)
		m.trim(a.x, a.y)
	case 12:
		rank := a.x
		if rank == 0 {
			rank = 1
		}
		count, maxLen := max(a.y, 0), max(a.z, 0)
		got, err := l.Pos(a.v, rank, count, maxLen)
		if want := m.pos(a.v, rank, count, maxLen); err != nil || !slices.Equal(got, want) {
			return fmt.Errorf("Pos(%q, %d, %d, %d) = %v, %v; want %v", a.v, rank, count, maxLen, got, err, want)
		}
	case 13:
		// Rotate: Move with the same list at both ends.
		v, ok := Move(l, l, a.flag, a.flag2)
		if err := moveModel(m, m, a.flag, a.flag2, v, ok); err != nil {
			return err
		}
	case 14:
		// Move to or from the second list.
		src, dst, ms, md := h.l, h.l2, &h.m, &h.m2
		if a.x%2 == 1 {
			src, dst, ms, md = h.l2, h.l, &h.m2, &h.m
		}
		v, ok := Move(src, dst, a.flag, a.flag2)
		if err := moveModel(ms, md, a.flag, a.flag2, v, ok); err != nil {
			return err
		}
	case 15:
		var got []string
		for i, v := range l.All() {
			if i != len(got) {
				return fmt.Errorf("All() yielded index %d at step %d", i, len(got))
			}
			got = append(got, v)
		}
		if !slices.Equal(got, *m) {
			return fmt.Errorf("All() = %q; want %q", got, *m)
		}
	case 16:
		var got []string
		want := len(*m) - 1
		for i, v := range l.Backward() {
			if i != want-len(got) {
				return fmt.Errorf("Backward() yielded index %d at step %d", i, len(got))
			}
			got = append(got, v)
		}
		slices.Reverse(got)
		if !slices.Equal(got, *m) {
			return fmt.Errorf("Backward() = %q reversed; want %q", got, *m)
		}
	}
	if l.Len() != len(*m) || h.l2.Len() != len(h.m2) {
		return fmt.Errorf("Len() = %d, %d; want %d, %d", l.Len(), h.l2.Len(), len(*m), len(h.m2))
	}
	if err := l.check(); err != nil {
		return fmt.Errorf("invariant: %w", err)
	}
	if err := h.l2.check(); err != nil {
		return fmt.Errorf("invariant (second list): %w", err)
	}
	return nil
}

func moveModel(ms, md *model, srcFront, dstFront bool, v string, ok bool) error {
	var w []string
	if srcFront {
		w = ms.popFrontN(1)
	} else {
		w = ms.popBackN(1)
	}
	if ok != (len(w) == 1) || ok && v != w[0] {
		return fmt.Errorf("Move(%v, %v) = %q, %v; want %q", srcFront, dstFront, v, ok, w)
	}
	if ok {
		if dstFront {
			md.pushFront(v)
		} else {
			md.pushBack(v)
		}
	}
	return nil
}

// same compares the full contents of both lists with the models.
func (h *harness) same() error {
	if !h.l.equal(h.m) {
		return fmt.Errorf("contents %q; want %q", h.l.items(), h.m)
	}
	if !h.l2.equal(h.m2) {
		return fmt.Errorf("second list contents %q; want %q", h.l2.items(), h.m2)
	}
	return nil
}

// randValue draws an item: mostly a few short values (so that Pos, Remove and Insert
// find matches), sometimes longer ones, including ones needing 2-byte lengths and
// ones larger than a page.
func randValue(r *rand.Rand, pageSize int) string {
	switch k := r.IntN(100); {
	case k < 60:
		return string(rune('a' + r.IntN(6)))
	case k < 90:
		return strings.Repeat(string(rune('a'+r.IntN(3))), r.IntN(40))
	case k < 98:
		return strings.Repeat("m", 100+r.IntN(100))
	default:
		return strings.Repeat("B", pageSize+r.IntN(pageSize))
	}
}

func randOp(r *rand.Rand, n int, grow bool, pageSize int) opArgs {
	idx := func() int { return r.IntN(2*n+5) - n - 2 }
	a := opArgs{op: r.IntN(numOps), x: idx(), y: idx(), z: r.IntN(n + 3), flag: r.IntN(2) == 0, flag2: r.IntN(2) == 0, v: randValue(r, pageSize), pivot: randValue(r, pageSize)}
	if grow && r.IntN(3) == 0 {
		a.op = r.IntN(2) // extra pushes while the lists grow
	}
	switch a.op {
	case 0, 1:
		a.vs = make([]string, 1+r.IntN(4))
		for i := range a.vs {
			a.vs[i] = randValue(r, pageSize)
		}
	case 4, 5:
		a.x = r.IntN(8) - 1
	case 10:
		a.x = r.IntN(7) - 3
	case 11:
		// Mostly gentle trims, so the lists do not collapse all the time.
		if r.IntN(4) != 0 {
			a.x, a.y = r.IntN(3), -1-r.IntN(3)
		}
	case 12:
		a.x, a.y, a.z = r.IntN(7)-3, r.IntN(4), r.IntN(4)*r.IntN(n+2)
	case 15, 16:
		if r.IntN(20) != 0 { // full iterations are O(n): keep them rare
			a.op = 6
		}
	}
	return a
}

func TestModel(t *testing.T) {
	ops := 250_000
	if raceEnabled || testing.Short() {
		ops = 20_000
	}
	s := testmain.Seed(t)
	for _, size := range []int{32, 100, 256, 2048} {
		t.Run(fmt.Sprintf("pageSize=%d", size), func(t *testing.T) {
			r := rand.New(rand.NewPCG(s, uint64(size)))
			h := newHarness(size)
			per := ops / 4
			for i := range per {
				// Alternate growing and draining phases so both big and empty lists occur.
				grow := (i/2000)%2 == 0 && h.l.Len() < 3000
				a := randOp(r, h.l.Len(), grow, size)
				if err := h.apply(a); err != nil {
					t.Fatalf("op %d (%+v): %v", i, a.op, err)
				}
				if h.l.Len() < 50 || i%64 == 0 {
					if err := h.same(); err != nil {
						t.Fatalf("op %d (%+v): %v", i, a.op, err)
					}
				}
			}
		})
	}
}
