package list

import (
	"fmt"
	"slices"
)

// check verifies every structural invariant listed in page.go and returns the first
// violation.
func (l *List) check() error {
	if l.a < 0 || l.a > l.b || l.b > len(l.arr) {
		return fmt.Errorf("slots a=%d b=%d len=%d", l.a, l.b, len(l.arr))
	}
	for k := range l.arr {
		if (k < l.a || k >= l.b) && l.arr[k].ptr != nil {
			return fmt.Errorf("dead slot %d still holds a buffer", k)
		}
	}
	if len(l.arr) == 1 != l.inline() {
		return fmt.Errorf("a page slice of %d slots; inline %v", len(l.arr), l.inline())
	}
	if !l.inline() && l.one[0] != (page{}) {
		return fmt.Errorf("the unused inline slot holds %+v", l.one[0])
	}
	if l.spare != nil && (l.spareLen == 0 || int(l.spareLen) > l.pageSize()) {
		return fmt.Errorf("kept buffer of %d bytes; page size %d", l.spareLen, l.pageSize())
	}
	count := l.b - l.a
	if len(l.arr) > minSlots && count < len(l.arr)/4 {
		return fmt.Errorf("%d pages in %d slots: not shrunk", count, len(l.arr))
	}
	total := 0
	for k := l.a; k < l.b; k++ {
		p := &l.arr[k]
		if p.n < 1 && (l.n == 0 || k != l.a && k != l.b-1) {
			return fmt.Errorf("page %d of %d is empty (list length %d)", k-l.a, count, l.n)
		}
		if p.lo < 0 || p.lo > p.hi || int(p.hi) > len(p.buf()) {
			return fmt.Errorf("page %d: lo=%d hi=%d cap=%d", k-l.a, int(p.lo), int(p.hi), len(p.buf()))
		}
		if p.used() > l.pageSize() && p.n > 1 {
			return fmt.Errorf("page %d: %d bytes in %d items exceed the page size %d", k-l.a, p.used(), int(p.n), l.pageSize())
		}
		if len(p.buf()) > l.pageSize() && len(p.buf()) != p.used() {
			return fmt.Errorf("page %d: oversized buffer %d for %d bytes", k-l.a, len(p.buf()), p.used())
		}
		n, o := 0, int(p.lo)
		for o < int(p.hi) {
			_, _, o = fwd(p.buf(), o)
			n++
		}
		if o != int(p.hi) || n != int(p.n) {
			return fmt.Errorf("page %d: forward decode found %d items ending at %d; want %d ending at %d", k-l.a, n, o, int(p.n), int(p.hi))
		}
		n, o = 0, int(p.hi)
		for o > int(p.lo) {
			_, _, o = bwd(p.buf(), o)
			n++
		}
		if o != int(p.lo) || n != int(p.n) {
			return fmt.Errorf("page %d: backward decode found %d items ending at %d; want %d ending at %d", k-l.a, n, o, int(p.n), int(p.lo))
		}
		if k > l.a {
			q := &l.arr[k-1]
			if p.start != q.start+int(q.n) {
				return fmt.Errorf("page %d: start %d; want %d", k-l.a, p.start, q.start+int(q.n))
			}
			if q.n > 0 && p.n > 0 && l.mergeable(q, p) {
				return fmt.Errorf("pages %d and %d hold %d+%d bytes: should be merged", k-1-l.a, k-l.a, q.used(), p.used())
			}
		}
		total += int(p.n)
	}
	if total != l.n {
		return fmt.Errorf("pages hold %d items; Len() = %d", total, l.n)
	}
	return nil
}

// items returns the list's contents by walking the pages directly.
func (l *List) items() []string {
	var out []string
	for k := l.a; k < l.b; k++ {
		p := &l.arr[k]
		for o := int(p.lo); o < int(p.hi); {
			ds, de, next := fwd(p.buf(), o)
			out = append(out, string(p.buf()[ds:de]))
			o = next
		}
	}
	return out
}

// equal reports whether the list holds exactly want, without copying items out.
func (l *List) equal(want []string) bool {
	if l.n != len(want) {
		return false
	}
	i := 0
	for k := l.a; k < l.b; k++ {
		p := &l.arr[k]
		for o := int(p.lo); o < int(p.hi); i++ {
			ds, de, next := fwd(p.buf(), o)
			if string(p.buf()[ds:de]) != want[i] {
				return false
			}
			o = next
		}
	}
	return true
}

// model is the reference implementation: a plain slice with Redis's rules spelled out.
type model []string

func (m *model) pushFront(vs ...string) {
	for _, v := range vs {
		*m = slices.Insert(*m, 0, v)
	}
}

func (m *model) pushBack(vs ...string) { *m = append(*m, vs...) }

func (m *model) popFrontN(count int) []string {
	c := min(max(count, 0), len(*m))
	out := slices.Clone((*m)[:c])
	*m = slices.Clone((*m)[c:])
	return out
}

func (m *model) popBackN(count int) []string {
	c := min(max(count, 0), len(*m))
	out := []string{}
	for range c {
		out = append(out, (*m)[len(*m)-1])
		*m = (*m)[:len(*m)-1]
	}
	return out
}

func (m model) norm(i int) (int, bool) {
	if i < 0 {
		i += len(m)
	}
	return i, i >= 0 && i < len(m)
}

func (m model) rng(start, stop int) (int, int, bool) {
	n := len(m)
	if start < 0 {
		start += n
	}
	if stop < 0 {
		stop += n
	}
	if start < 0 {
		start = 0
	}
	if start > stop || start >= n {
		return 0, 0, false
	}
	if stop >= n {
		stop = n - 1
	}
	return start, stop, true
}

func (m model) rangeOf(start, stop int) []string {
	s, e, ok := m.rng(start, stop)
	if !ok {
		return []string{}
	}
	return slices.Clone(m[s : e+1])
}

func (m *model) trim(start, stop int) {
	s, e, ok := m.rng(start, stop)
	if !ok {
		*m = nil
		return
	}
	*m = slices.Clone((*m)[s : e+1])
}

func (m *model) insert(before bool, pivot, v string) int {
	i := slices.Index(*m, pivot)
	if i < 0 {
		return -1
	}
	if !before {
		i++
	}
	*m = slices.Insert(*m, i, v)
	return len(*m)
}

func (m *model) remove(count int, v string) int {
	removed := 0
	if count >= 0 {
		var out []string
		for _, x := range *m {
			if x == v && (count == 0 || removed < count) {
				removed++
				continue
			}
			out = append(out, x)
		}
		*m = out
		return removed
	}
	for i := len(*m) - 1; i >= 0 && removed < -count; i-- {
		if (*m)[i] == v {
			*m = slices.Delete(*m, i, i+1)
			removed++
		}
	}
	return removed
}

func (m model) pos(v string, rank, count, maxLen int) []int {
	var out []int
	n := len(m)
	skip := rank - 1
	if rank < 0 {
		skip = -rank - 1
	}
	for seen := 0; seen < n && (maxLen == 0 || seen < maxLen); seen++ {
		i := seen
		if rank < 0 {
			i = n - 1 - seen
		}
		if m[i] != v {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		out = append(out, i)
		if count > 0 && len(out) == count {
			break
		}
	}
	return out
}
