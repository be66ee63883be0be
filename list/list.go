package list

import (
	"iter"
	"math"
	"unsafe"
)

// List is a Redis list: a sequence of strings with O(1) amortised pushes and pops at
// both ends and access by index in O(log pages + items per page), stored in packed
// pages (see the package documentation). The zero value is an empty list ready to use.
//
// A List is not safe for concurrent use and holds no lock: the caller (the keyspace)
// serialises access. A List must not be copied after first use: a one-page list's
// page slice points into the List itself. Strings passed in are copied; strings returned are fresh copies
// that stay valid whatever happens to the list afterwards.
type List struct {
	arr  []page // pages live in arr[a:b]; see page.go
	a, b int
	n    int // items in the list
	// one is the page slice of a one-slot list (arr is one[:]): most lists in a
	// keyspace have one page, and holding its slot here rather than in a separate
	// allocation spares every operation a dependent memory load, at the same size.
	one [1]page
	// spare is a page buffer kept for reuse (a queue's drained front page) of
	// spareLen bytes, stored as a pointer and a length rather than a slice to keep
	// the List at 96 bytes (the keyspace holds one per list key).
	spare    *byte
	spareLen uint16
	psize    uint16 // page size in bytes; 0 means defaultPageSize
	mods     uint32 // bumped by every change, so iterators notice changes
}

// New returns an empty list.
func New() *List { return &List{} }

// newSized returns an empty list with pages of size bytes (at most 65535), so that
// tests can exercise page splits and merges with few items.
func newSized(size int) *List { return &List{psize: uint16(size)} }

// pageSize returns the size in bytes of a full page buffer.
func (l *List) pageSize() int {
	if l.psize == 0 {
		return defaultPageSize
	}
	return int(l.psize)
}

// takeSpare returns the kept buffer, or nil, and forgets it.
func (l *List) takeSpare() []byte {
	if l.spare == nil {
		return nil
	}
	b := unsafe.Slice(l.spare, l.spareLen)
	l.spare, l.spareLen = nil, 0
	return b
}

// setSpare keeps b (at most a page) for reuse.
func (l *List) setSpare(b []byte) {
	l.spare, l.spareLen = unsafe.SliceData(b), uint16(len(b))
}

// Pages returns the number of pages holding the list's items: 0 for an empty list,
// 1 for a list whose items fit in one page (what Redis 7.2 and later report as the
// "listpack" encoding in OBJECT ENCODING; 7.0 says "quicklist" for every list). The
// complexity is O(1).
func (l *List) Pages() int { return l.b - l.a }

// MemoryUsage returns the approximate number of heap bytes the list holds: the List,
// its page slice and its page buffers (items' bytes included), as a figure for
// MEMORY USAGE or INFO. The complexity is O(pages).
func (l *List) MemoryUsage() int {
	n := int(unsafe.Sizeof(*l)) + int(l.spareLen)
	if !l.inline() {
		n += cap(l.arr) * int(unsafe.Sizeof(page{}))
	}
	for k := l.a; k < l.b; k++ {
		n += len(l.arr[k].buf())
	}
	return n
}

// Swap exchanges the contents of l and o, so that each holds what the other held:
// the way to move a list to another place (a List must not be copied). Iterators
// over either stop, as after any change. The complexity is O(1).
func (l *List) Swap(o *List) {
	li, oi := l.inline(), o.inline()
	*l, *o = *o, *l
	if oi {
		l.arr = l.one[:]
	}
	if li {
		o.arr = o.one[:]
	}
	m := max(l.mods, o.mods) + 1
	l.mods, o.mods = m, m
}

// Len returns the number of items, as LLEN does. The complexity is O(1).
func (l *List) Len() int { return l.n }

// PushFront inserts values at the head one after the other, as LPUSH does, so
// PushFront("a", "b", "c") leaves the list starting c, b, a. The complexity is O(1)
// amortised per value, plus the copy of its bytes.
func (l *List) PushFront(values ...string) {
	for _, v := range values {
		// Fast path: a short item into room before the first page's bytes, or into the
		// kept empty page (see fixFront) when the page after it is full.
		if n := len(v); n < 0x80 && l.a < l.b {
			p := &l.arr[l.a]
			if p.n == 0 {
				if q := &l.arr[l.a+1]; int(q.lo) >= n+2 || q.used()+n+2 <= l.pageSize() {
					p = nil // room in q, or room to be made: the slow path decides
				}
			}
			if p != nil && int(p.lo) >= n+2 {
				p.lo -= int32(n + 2)
				b := p.buf()[int(p.lo) : int(p.lo)+n+2]
				b[0], b[n+1] = byte(n), byte(n)
				copy(b[1:], v)
				p.n++
				p.start--
				l.n++
				continue
			}
		}
		l.pushFront(v)
	}
	l.mods++
}

// PushBack appends values at the tail in order, as RPUSH does. The complexity is O(1)
// amortised per value, plus the copy of its bytes.
func (l *List) PushBack(values ...string) {
	for _, v := range values {
		// Fast path: a short item into room after the last page's bytes, or into the
		// kept empty page when the page before it is full.
		if n := len(v); n < 0x80 && l.a < l.b {
			p := &l.arr[l.b-1]
			if p.n == 0 {
				if q := &l.arr[l.b-2]; len(q.buf())-int(q.hi) >= n+2 || q.used()+n+2 <= l.pageSize() {
					p = nil
				}
			}
			if p != nil && len(p.buf())-int(p.hi) >= n+2 {
				b := p.buf()[int(p.hi) : int(p.hi)+n+2]
				b[0], b[n+1] = byte(n), byte(n)
				copy(b[1:], v)
				p.hi += int32(n + 2)
				p.n++
				l.n++
				continue
			}
		}
		l.pushBack(v)
	}
	l.mods++
}

func (l *List) pushBack(s string) {
	need := encSize(len(s))
	if l.a < l.b {
		// Into the last page; a kept empty page (see fixFront) only when the page before
		// it is full enough, so that neighbours stay more than half a page together.
		k := l.b - 1
		if l.arr[k].n == 0 && (l.tryBack(k-1, s, need) || l.tryBack(k, s, need)) ||
			l.arr[k].n > 0 && l.tryBack(k, s, need) {
			return
		}
		if l.arr[k].n == 0 {
			l.dropEmpty(k) // too small for this item
		}
	}
	start := 0
	if l.a < l.b {
		last := &l.arr[l.b-1]
		start = last.start + int(last.n)
	}
	buf := l.newBuf(need)
	putItem(buf, s)
	l.insertSlot(l.b, newPage(buf, 0, need, 1, start))
	l.n++
}

// tryBack appends s (of encoded size need) to the page at slot k if it has room or
// can make some, and reports whether it did.
func (l *List) tryBack(k int, s string, need int) bool {
	p := &l.arr[k]
	if len(p.buf())-int(p.hi) < need && !l.roomBack(p, need) {
		return false
	}
	putItem(p.buf()[p.hi:], s)
	p.hi += int32(need)
	p.n++
	l.n++
	if k < l.b-1 {
		l.arr[l.b-1].start++ // the kept empty page after it
	}
	return true
}

func (l *List) pushFront(s string) {
	need := encSize(len(s))
	if l.a < l.b {
		k := l.a
		if l.arr[k].n == 0 && (l.tryFront(k+1, s, need) || l.tryFront(k, s, need)) ||
			l.arr[k].n > 0 && l.tryFront(k, s, need) {
			return
		}
		if l.arr[k].n == 0 {
			l.dropEmpty(k)
		}
	}
	start := 0
	if l.a < l.b {
		start = l.arr[l.a].start - 1
	}
	buf := l.newBuf(need)
	c := len(buf)
	putItem(buf[c-need:], s)
	l.insertSlot(l.a, newPage(buf, c-need, c, 1, start))
	l.n++
}

// tryFront is tryBack's mirror image: it prepends s to the page at slot k.
func (l *List) tryFront(k int, s string, need int) bool {
	p := &l.arr[k]
	if int(p.lo) < need && !l.roomFront(p, need) {
		return false
	}
	p.lo -= int32(need)
	putItem(p.buf()[p.lo:], s)
	p.n++
	p.start--
	l.n++
	if k > l.a {
		l.arr[l.a].start-- // the kept empty page before it
	}
	return true
}

// PopFront removes and returns the head, as LPOP does; it returns "", false when the
// list is empty. The complexity is O(1) amortised; the returned string is the one
// allocation.
func (l *List) PopFront() (string, bool) {
	if l.n == 0 {
		return "", false
	}
	k := l.a
	if l.arr[k].n == 0 {
		l.arr[k].start++ // the kept empty front page (see fixFront) moves along
		k++
	}
	p := &l.arr[k]
	ds, de, next := fwd(p.buf(), int(p.lo))
	v := string(p.buf()[ds:de])
	p.lo = int32(next)
	p.n--
	p.start++
	l.n--
	l.mods++
	if p.n == 0 || k+1 < l.b && l.arr[k+1].n > 0 && l.mergeable(p, &l.arr[k+1]) {
		l.fixFront()
	}
	return v, true
}

// PopBack removes and returns the tail, as RPOP does; it returns "", false when the
// list is empty. The complexity is O(1) amortised; the returned string is the one
// allocation.
func (l *List) PopBack() (string, bool) {
	if l.n == 0 {
		return "", false
	}
	k := l.b - 1
	if l.arr[k].n == 0 {
		l.arr[k].start--
		k--
	}
	p := &l.arr[k]
	ds, de, prev := bwd(p.buf(), int(p.hi))
	v := string(p.buf()[ds:de])
	p.hi = int32(prev)
	p.n--
	l.n--
	l.mods++
	if p.n == 0 || k > l.a && l.arr[k-1].n > 0 && l.mergeable(&l.arr[k-1], p) {
		l.fixBack()
	}
	return v, true
}

// popFront unlinks the head and returns its bytes, valid until the next change.
// The list must not be empty; the caller then calls fixFrontIfNeeded.
func (l *List) popFront() []byte {
	k := l.a
	if l.arr[k].n == 0 {
		l.arr[k].start++ // the kept empty front page (see fixFront) moves along
		k++
	}
	p := &l.arr[k]
	ds, de, next := fwd(p.buf(), int(p.lo))
	p.lo = int32(next)
	p.n--
	p.start++
	l.n--
	return p.buf()[ds:de]
}

func (l *List) popBack() []byte {
	k := l.b - 1
	if l.arr[k].n == 0 {
		l.arr[k].start--
		k--
	}
	p := &l.arr[k]
	ds, de, prev := bwd(p.buf(), int(p.hi))
	p.hi = int32(prev)
	p.n--
	l.n--
	return p.buf()[ds:de]
}

// fixFrontIfNeeded calls fixFront unless, as after most pops, there is nothing to do.
func (l *List) fixFrontIfNeeded() {
	if l.n > 0 {
		k := l.a
		if l.arr[k].n == 0 && len(l.arr[k].buf()) <= l.pageSize() {
			k++
		}
		p := &l.arr[k]
		if p.n > 0 && (k+1 == l.b || l.arr[k+1].n == 0 || p.used()+l.arr[k+1].used() > l.pageSize()/2) {
			return
		}
	}
	l.fixFront()
}

// fixBackIfNeeded is fixFrontIfNeeded's mirror image.
func (l *List) fixBackIfNeeded() {
	if l.n > 0 {
		k := l.b - 1
		if l.arr[k].n == 0 && len(l.arr[k].buf()) <= l.pageSize() {
			k--
		}
		p := &l.arr[k]
		if p.n > 0 && (k == l.a || l.arr[k-1].n == 0 || p.used()+l.arr[k-1].used() > l.pageSize()/2) {
			return
		}
	}
	l.fixBack()
}

// PopFrontN removes and returns up to count items from the head, in order, as
// LPOP key count does (the caller decides between a nil and an empty reply). It returns
// an empty slice when count ≤ 0 or the list is empty. The returned strings share one
// allocation. The complexity is O(count).
func (l *List) PopFrontN(count int) []string {
	return l.popN(count, true)
}

// PopBackN removes and returns up to count items from the tail, tail first, as
// RPOP key count does. It returns an empty slice when count ≤ 0 or the list is empty.
// The returned strings share one allocation. The complexity is O(count).
func (l *List) PopBackN(count int) []string {
	return l.popN(count, false)
}

func (l *List) popN(count int, front bool) []string {
	m := min(max(count, 0), l.n)
	if m == 0 {
		return []string{}
	}
	// First pass: the total size, so that one allocation holds every string.
	total, k, o := 0, l.a, 0
	if front {
		o = int(l.arr[k].lo)
	} else {
		k = l.b - 1
		o = int(l.arr[k].hi)
	}
	for range m {
		p := &l.arr[k]
		var ds, de int
		if front {
			if o == int(p.hi) {
				k++
				p = &l.arr[k]
				o = int(p.lo)
			}
			ds, de, o = fwd(p.buf(), o)
		} else {
			if o == int(p.lo) {
				k--
				p = &l.arr[k]
				o = int(p.hi)
			}
			ds, de, o = bwd(p.buf(), o)
		}
		total += de - ds
	}
	blob := make([]byte, total)
	out := make([]string, m)
	off := 0
	for i := range out {
		var b []byte
		if front {
			b = l.popFront()
		} else {
			b = l.popBack()
		}
		out[i] = blobString(blob, off, copy(blob[off:], b))
		off += len(b)
		if front {
			l.fixFrontIfNeeded()
		} else {
			l.fixBackIfNeeded()
		}
	}
	l.mods++
	return out
}

// blobString returns blob[off:off+n] as a string without copying. blob is written
// once, before any string is taken from it, and never again, so the strings are
// immutable as the language requires.
func blobString(blob []byte, off, n int) string {
	if n == 0 {
		return ""
	}
	return unsafe.String(&blob[off], n)
}

// equal reports whether b holds s. Comparing the last bytes first skips the call to
// the runtime's memequal for most non-matching items of equal length, which is what a
// scan (LPOS, LREM, LINSERT) mostly sees.
func equal(b []byte, s string) bool {
	return len(b) == len(s) && (len(s) == 0 || b[len(b)-1] == s[len(s)-1]) && string(b) == s
}

// abs converts a Redis index (negative counts from the tail) to 0..Len-1.
func (l *List) abs(i int) (int, bool) {
	if i < 0 {
		i += l.n
	}
	return i, i >= 0 && i < l.n
}

// Index returns the item at index i, as LINDEX does: 0 is the head, -1 the tail. It
// returns "", false when i is out of range. The complexity is O(log pages) to find the
// page plus O(items per page) to walk to the item (at most a few hundred for small
// items).
func (l *List) Index(i int) (string, bool) {
	i, ok := l.abs(i)
	if !ok {
		return "", false
	}
	k, j := l.locate(i)
	p := &l.arr[k]
	ds, de, _ := fwd(p.buf(), p.offset(j))
	return string(p.buf()[ds:de]), true
}

// Set replaces the item at index i (negative counts from the tail) with v, as LSET
// does. It returns [ErrIndexOutOfRange] and changes nothing when i is out of range.
// The complexity is that of [List.Index], plus O(pageSize) to move bytes when v's size
// differs, plus O(pages) when pages must be split or merged.
func (l *List) Set(i int, v string) error {
	i, ok := l.abs(i)
	if !ok {
		return ErrIndexOutOfRange
	}
	k, j := l.locate(i)
	p := &l.arr[k]
	o := p.offset(j)
	_, _, next := fwd(p.buf(), o)
	need := encSize(len(v))
	if need == next-o {
		putItem(p.buf()[o:], v)
	} else {
		enc := make([]byte, need)
		putItem(enc, v)
		l.splice(k, o, next, enc, 0)
	}
	l.mods++
	return nil
}

// clamp applies LRANGE's and LTRIM's rules to start and stop: negative values count
// from the tail, start is raised to 0, stop lowered to Len-1; ok is false when the
// range is empty.
func (l *List) clamp(start, stop int) (int, int, bool) {
	n := l.n
	if start < 0 {
		start += n
	}
	if stop < 0 {
		stop += n
	}
	start = max(start, 0)
	if start > stop || start >= n {
		return 0, 0, false
	}
	return start, min(stop, n-1), true
}

// Range returns the items from start to stop inclusive, as LRANGE does: negative
// indexes count from the tail, and out-of-range bounds are clamped, so Range(0, -1)
// is the whole list. It returns an empty slice when the range is empty. The returned
// strings share one allocation. The complexity is O(log pages + items per page) to
// find start, plus O(stop-start).
func (l *List) Range(start, stop int) []string {
	start, stop, ok := l.clamp(start, stop)
	if !ok {
		return []string{}
	}
	m := stop - start + 1
	k0, j := l.locate(start)
	o0 := l.arr[k0].offset(j)
	total := 0
	for k, o, i := k0, o0, 0; i < m; i++ {
		p := &l.arr[k]
		if o == int(p.hi) {
			k++
			p = &l.arr[k]
			o = int(p.lo)
		}
		var ds, de int
		ds, de, o = fwd(p.buf(), o)
		total += de - ds
	}
	blob := make([]byte, total)
	out := make([]string, m)
	off := 0
	for k, o, i := k0, o0, 0; i < m; i++ {
		p := &l.arr[k]
		if o == int(p.hi) {
			k++
			p = &l.arr[k]
			o = int(p.lo)
		}
		var ds, de int
		ds, de, o = fwd(p.buf(), o)
		out[i] = blobString(blob, off, copy(blob[off:], p.buf()[ds:de]))
		off += de - ds
	}
	return out
}

// Insert inserts value just before (or after) the first item equal to pivot, as
// LINSERT does, and returns the new length; it returns -1 and changes nothing when
// pivot is absent. The complexity is O(n) to find pivot, plus O(pageSize + pages) to
// insert.
func (l *List) Insert(before bool, pivot, value string) int {
	for k := l.a; k < l.b; k++ {
		p := &l.arr[k]
		for o := int(p.lo); o < int(p.hi); {
			ds, de, next := fwd(p.buf(), o)
			if equal(p.buf()[ds:de], pivot) {
				at := next
				if before {
					at = o
				}
				enc := make([]byte, encSize(len(value)))
				putItem(enc, value)
				l.splice(k, at, at, enc, 1)
				l.mods++
				return l.n
			}
			o = next
		}
	}
	return -1
}

// Remove removes items equal to value, as LREM does, and returns how many it removed:
// with count > 0 the first count of them from the head, with count < 0 the first
// -count from the tail, with count 0 all of them. The complexity is O(n).
func (l *List) Remove(count int, value string) int {
	if l.n == 0 {
		return 0
	}
	limit := count
	if count < 0 {
		limit = -count
		if count == math.MinInt {
			limit = 0 // -count overflows; Redis removes all matches then.
		}
	}
	removed := 0
	if count >= 0 {
		for k := l.a; k < l.b && (limit == 0 || removed < limit); k++ {
			removed += l.removeFwd(&l.arr[k], value, limit, removed)
		}
	} else {
		for k := l.b - 1; k >= l.a && (limit == 0 || removed < limit); k-- {
			removed += l.removeBwd(&l.arr[k], value, limit, removed)
		}
	}
	if removed > 0 {
		l.n -= removed
		l.normalize()
		l.mods++
	}
	return removed
}

// removeFwd deletes from p, head first, items equal to value until done reaches limit
// (0: no limit), compacting the page in place, and returns how many it deleted.
func (l *List) removeFwd(p *page, value string, limit, done int) int {
	w, r, del := int(p.lo), int(p.lo), 0
	for r < int(p.hi) {
		if limit > 0 && done+del == limit {
			w += copy(p.buf()[w:], p.buf()[r:p.hi])
			break
		}
		ds, de, next := fwd(p.buf(), r)
		if equal(p.buf()[ds:de], value) {
			del++
		} else {
			if w != r {
				copy(p.buf()[w:], p.buf()[r:next])
			}
			w += next - r
		}
		r = next
	}
	p.hi = int32(w)
	p.n -= int32(del)
	return del
}

// removeBwd is removeFwd's mirror image, tail first, compacting towards p.hi.
func (l *List) removeBwd(p *page, value string, limit, done int) int {
	w, r, del := int(p.hi), int(p.hi), 0
	for r > int(p.lo) {
		if limit > 0 && done+del == limit {
			w -= r - int(p.lo)
			copy(p.buf()[w:], p.buf()[p.lo:r])
			break
		}
		ds, de, prev := bwd(p.buf(), r)
		if equal(p.buf()[ds:de], value) {
			del++
		} else {
			if w != r {
				copy(p.buf()[w-(r-prev):], p.buf()[prev:r])
			}
			w -= r - prev
		}
		r = prev
	}
	p.lo = int32(w)
	p.n -= int32(del)
	return del
}

// Trim keeps only the items from start to stop inclusive, as LTRIM does, with
// LRANGE's clamping; an empty range empties the list. The complexity is O(pages
// dropped + items per page).
func (l *List) Trim(start, stop int) {
	if l.n == 0 {
		return
	}
	start, stop, ok := l.clamp(start, stop)
	if !ok {
		l.clear()
		return
	}
	back := l.n - 1 - stop
	if start > 0 {
		l.dropFront(start)
	}
	if back > 0 {
		l.dropBack(back)
	}
	l.mods++
}

// clear empties the list. It keeps one small buffer and a small page slice, so a
// queue that keeps emptying does not reallocate them, and gives back everything else.
func (l *List) clear() {
	for k := l.a; k < l.b; k++ {
		if buf := l.arr[k].buf(); l.spare == nil && len(buf) <= l.pageSize() {
			l.setSpare(buf)
		}
		l.arr[k] = page{}
	}
	l.a, l.b, l.n = 0, 0, 0
	l.shrinkSlots()
	l.mods++
}

// dropFront deletes the first m items (0 < m < l.n) without copying them out.
func (l *List) dropFront(m int) {
	l.n -= m
	for {
		p := &l.arr[l.a]
		if int(p.n) > m {
			o := int(p.lo)
			for range m {
				_, _, o = fwd(p.buf(), o)
			}
			p.lo = int32(o)
			p.n -= int32(m)
			p.start += m
			break
		}
		m -= int(p.n)
		buf := p.buf()
		l.removeSlot(l.a)
		l.release(buf)
		if m == 0 {
			break
		}
	}
	l.fixFrontIfNeeded()
}

// dropBack deletes the last m items (0 < m < l.n) without copying them out.
func (l *List) dropBack(m int) {
	l.n -= m
	for {
		p := &l.arr[l.b-1]
		if int(p.n) > m {
			o := int(p.hi)
			for range m {
				_, _, o = bwd(p.buf(), o)
			}
			p.hi = int32(o)
			p.n -= int32(m)
			break
		}
		m -= int(p.n)
		buf := p.buf()
		l.removeSlot(l.b - 1)
		l.release(buf)
		if m == 0 {
			break
		}
	}
	l.fixBackIfNeeded()
}

// Pos returns the indexes (counted from the head) of items equal to value, as LPOS
// does. rank ≥ 1 skips the first rank-1 matches from the head; rank ≤ -1 searches
// from the tail and skips the first -rank-1 matches there. count is the most indexes
// to return (0: all of them); maxLen the most items to compare (0: no limit). Without
// the COUNT option, call it with count 1. It returns nil when nothing matches, and
// the [ValidatePos] errors for bad options. The complexity is O(n), O(maxLen) with a
// limit.
func (l *List) Pos(value string, rank, count, maxLen int) ([]int, error) {
	if err := ValidatePos(rank, count, maxLen); err != nil {
		return nil, err
	}
	var out []int
	skip := rank - 1
	if rank < 0 {
		skip = -rank - 1
	}
	seen := 0
	found := func(i int) bool {
		if skip > 0 {
			skip--
			return false
		}
		out = append(out, i)
		return count > 0 && len(out) == count
	}
	if rank > 0 {
		for k := l.a; k < l.b; k++ {
			p := &l.arr[k]
			for o := int(p.lo); o < int(p.hi); seen++ {
				if maxLen > 0 && seen == maxLen {
					return out, nil
				}
				ds, de, next := fwd(p.buf(), o)
				if equal(p.buf()[ds:de], value) && found(seen) {
					return out, nil
				}
				o = next
			}
		}
		return out, nil
	}
	for k := l.b - 1; k >= l.a; k-- {
		p := &l.arr[k]
		for o := int(p.hi); o > int(p.lo); seen++ {
			if maxLen > 0 && seen == maxLen {
				return out, nil
			}
			ds, de, prev := bwd(p.buf(), o)
			if equal(p.buf()[ds:de], value) && found(l.n-1-seen) {
				return out, nil
			}
			o = prev
		}
	}
	return out, nil
}

// Move pops an item from src (its head if srcFront, else its tail) and pushes it onto
// dst (its head if dstFront, else its tail), as LMOVE and RPOPLPUSH do, and returns
// it. When src and dst are the same list this rotates it. It returns "", false and
// changes nothing when src is empty. The complexity is O(1) amortised.
func Move(src, dst *List, srcFront, dstFront bool) (string, bool) {
	var v string
	var ok bool
	if srcFront {
		v, ok = src.PopFront()
	} else {
		v, ok = src.PopBack()
	}
	if !ok {
		return "", false
	}
	if dstFront {
		dst.pushFront(v)
	} else {
		dst.pushBack(v)
	}
	dst.mods++
	return v, true
}

// All returns an iterator over the indexes and items from head to tail. Each item is
// a fresh string. If the list changes during the iteration (from the loop body), the
// iteration goes on with the item now at the next index, until that index is past the
// end. The complexity is O(1) amortised per item.
func (l *List) All() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i := 0; i < l.n; {
			k, j := l.locate(i)
			p := &l.arr[k]
			mods := l.mods
			for o := p.offset(j); o < int(p.hi) && mods == l.mods; i++ {
				ds, de, next := fwd(p.buf(), o)
				if !yield(i, string(p.buf()[ds:de])) {
					return
				}
				o = next
			}
		}
	}
}

// Backward returns an iterator over the indexes and items from tail to head. Each
// item is a fresh string. If the list changes during the iteration, the iteration goes
// on with the item now at the previous index (or the tail, if the list got shorter),
// until the index is below 0. The complexity is O(1) amortised per item.
func (l *List) Backward() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i := l.n - 1; i >= 0; {
			i = min(i, l.n-1)
			if i < 0 {
				return
			}
			k, j := l.locate(i)
			p := &l.arr[k]
			mods := l.mods
			for o := p.offset(j + 1); o > int(p.lo) && mods == l.mods; i-- {
				ds, de, prev := bwd(p.buf(), o)
				if !yield(i, string(p.buf()[ds:de])) {
					return
				}
				o = prev
			}
		}
	}
}
