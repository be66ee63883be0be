package list

import (
	"math"
	"slices"
	"unsafe"
)

// Storage layout.
//
// A List is a sequence of pages. A page is one pointer-free []byte holding whole items
// back to back in buf[lo:hi]; each item is encoded as
//
//	uvarint(len) | bytes | reversed uvarint(len)
//
// so it can be decoded walking forwards (from lo) or backwards (from hi). A 16-byte
// item takes 18 bytes. Free space sits on both sides of the live bytes: pushes at the
// front write below lo, pushes at the back above hi, and pops just move lo or hi.
//
// Pages live in l.arr[l.a:l.b], a slice with free slots at both ends, so that adding or
// dropping a page at either end is O(1) amortised; a one-slot slice is l.one, in the
// List itself (recenter chooses it). Each page records the absolute
// position of its first item (start); only differences between starts matter, so a
// push or pop at the front changes only the first page's start, and a page holding
// index i is found by binary search on start.
//
// Invariants (checked by l.check in the tests after every step):
//   - pages are never empty, except that fixFront and fixBack keep one emptied page
//     at each end of a non-empty list; an empty list has no pages;
//   - a page's live bytes fit in pageSize, unless it holds a single larger item;
//   - two neighbouring non-empty pages together hold more than pageSize/2 bytes
//     (otherwise they are merged), so pages are on average more than a quarter full;
//   - starts are consecutive: next.start == p.start + p.n;
//   - the page slice is at least a quarter used once it is larger than minSlots.

// defaultPageSize is the size in bytes of a full page buffer. See doc.go for the
// benchmark that chose it; tests make lists with smaller pages (newSized) to exercise
// splits and merges.
const defaultPageSize = 2048

// smallSlide is the number of live bytes up to which a full page slides them to make
// room at the end being pushed to, whatever that costs, rather than growing: a small
// list used as a queue slides its few bytes instead of allocating.
const smallSlide = 256

const minSlots = 1 // page slots below which the page slice is not shrunk

type page struct {
	ptr   *byte // the buffer, of size bytes (see buf): a pointer and a length
	size  uint32
	lo    int32 // live bytes are buf[lo:hi]
	hi    int32
	n     int32 // items in the page, ≥ 1
	start int   // position of the first item, relative to an arbitrary origin
}

// The page fields are 32 bits wide, so that a page slot is 32 bytes (a one-page list
// has one); maxItem keeps every offset in range.
const maxItem = math.MaxInt32 - 16

// buf returns the page's buffer.
func (p *page) buf() []byte { return unsafe.Slice(p.ptr, p.size) }

// newPage returns a page holding n items in buf[lo:hi], the first at position start.
func newPage(buf []byte, lo, hi, n, start int) page {
	p := page{lo: int32(lo), hi: int32(hi), n: int32(n), start: start}
	p.setBuf(buf)
	return p
}

// setBuf makes b the page's buffer.
func (p *page) setBuf(b []byte) { p.ptr, p.size = unsafe.SliceData(b), uint32(len(b)) }

func (p *page) used() int { return int(p.hi - p.lo) }

// uvlen returns the length of x's uvarint encoding.
func uvlen(x int) int {
	k := 1
	for x >= 0x80 {
		x >>= 7
		k++
	}
	return k
}

// encSize returns the encoded size of an item of length n. Every write of an item of
// 128 bytes or more goes through it, so it enforces maxItem.
func encSize(n int) int {
	if n < 0x80 {
		return n + 2
	}
	if n > maxItem {
		panic("list: item larger than 2 GiB")
	}
	return n + 2*uvlen(n)
}

// putItem encodes s at the start of dst, which must hold encSize(len(s)) bytes, and
// returns the number of bytes written.
func putItem(dst []byte, s string) int {
	if n := len(s); n < 0x80 {
		_ = dst[n+1]
		dst[0] = byte(n)
		copy(dst[1:], s)
		dst[n+1] = byte(n)
		return n + 2
	}
	return putLong(dst, s)
}

// putLong is putItem for items of 128 bytes or more.
func putLong(dst []byte, s string) int {
	x := uint(len(s))
	k := 0
	for x >= 0x80 {
		dst[k] = byte(x) | 0x80
		x >>= 7
		k++
	}
	dst[k] = byte(x)
	k++
	e := k + copy(dst[k:], s)
	for i := range k {
		dst[e+i] = dst[k-1-i]
	}
	return e + k
}

// fwd decodes the item starting at o: its bytes are buf[ds:de] and the next item
// starts at next.
func fwd(buf []byte, o int) (ds, de, next int) {
	x, k := 0, o
	for shift := 0; ; shift += 7 {
		c := buf[k]
		k++
		x |= int(c&0x7f) << shift
		if c < 0x80 {
			break
		}
	}
	return k, k + x, k + x + k - o
}

// bwd decodes the item ending at e: its bytes are buf[ds:de] and it starts at prev.
func bwd(buf []byte, e int) (ds, de, prev int) {
	x, k := 0, e
	for shift := 0; ; shift += 7 {
		k--
		c := buf[k]
		x |= int(c&0x7f) << shift
		if c < 0x80 {
			break
		}
	}
	return k - x, k, k - x - (e - k)
}

// offset returns the byte offset of item j (0 ≤ j < p.n) of p, walking from the
// nearer end. The complexity is O(p.n).
func (p *page) offset(j int) int {
	if j <= int(p.n)/2 {
		o := int(p.lo)
		for ; j > 0; j-- {
			_, _, o = fwd(p.buf(), o)
		}
		return o
	}
	o := int(p.hi)
	for j = int(p.n) - j; j > 0; j-- {
		_, _, o = bwd(p.buf(), o)
	}
	return o
}

// alloc returns a buffer for a page that must hold need bytes: need rounded up to its
// allocator size class, so that the page uses every byte it is charged for, but at
// most the page size; exactly need bytes for a larger single item.
func (l *List) alloc(need int) []byte {
	ps := l.pageSize()
	if need > ps {
		return make([]byte, need)
	}
	return make([]byte, min(sizeClass(need), ps))
}

// sizeClasses are the Go allocator's size classes up to 32 KiB (runtime/sizeclasses.go;
// TestSizeClasses checks them against the running allocator). A page buffer of n
// bytes is charged for the smallest class ≥ n.
var sizeClasses = [...]uint16{
	8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
	288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280,
	1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528,
	6784, 6912, 8192, 9472, 9728, 10240, 10880, 12288, 13568, 14336, 16384, 18432,
	19072, 20480, 21760, 24576, 27264, 28672, 32768,
}

// sizeClass returns the size of the allocation that make([]byte, n) is rounded up to,
// or n itself above the table.
func sizeClass(n int) int {
	i, _ := slices.BinarySearch(sizeClasses[:], uint16(min(n, math.MaxUint16)))
	if n > int(sizeClasses[len(sizeClasses)-1]) {
		return n
	}
	return int(sizeClasses[i])
}

// newBuf returns a buffer for a new page holding need bytes: a full-size one when the
// list already has pages (it is growing), a small one for a list's first page.
func (l *List) newBuf(need int) []byte {
	ps := l.pageSize()
	if need > ps {
		return make([]byte, need)
	}
	if l.spare != nil && (int(l.spareLen) == ps || l.a == l.b && int(l.spareLen) >= need) {
		return l.takeSpare()
	}
	if l.a < l.b {
		return make([]byte, ps)
	}
	return l.alloc(need)
}

// release keeps a dropped page's buffer for reuse when it is a full-size one (or when
// the list is now empty and the buffer is small), and lets the GC have it otherwise.
func (l *List) release(buf []byte) {
	ps := l.pageSize()
	if len(buf) == ps || l.a == l.b && len(buf) < ps && l.spare == nil {
		l.setSpare(buf)
	}
}

// grow returns a buffer for a page of c bytes, smaller than a full page, that must
// hold used+need: half as much again, or more if need be, rounded up to the size
// class, and never more than a page. A list's first page starts at the size class of
// its first item, so a small list costs little more than its bytes.
func (l *List) grow(c, used, need int) []byte {
	return l.alloc(min(max(used+need, c+c/2), l.pageSize()))
}

// roomBack makes room for need more bytes after p.hi, by sliding the live bytes down
// when that moves no more than it frees or at most smallSlide bytes, or by growing a
// buffer smaller than a page. It reports false when p cannot take them.
func (l *List) roomBack(p *page, need int) bool {
	used, ps := p.used(), l.pageSize()
	if used+need <= min(len(p.buf()), ps) && (int(p.lo) >= used || used <= smallSlide) {
		copy(p.buf(), p.buf()[p.lo:p.hi])
		p.lo, p.hi = 0, int32(used)
		return true
	}
	if len(p.buf()) < ps && used+need <= ps {
		nb := l.grow(len(p.buf()), used, need)
		copy(nb, p.buf()[p.lo:p.hi])
		p.setBuf(nb)
		p.lo, p.hi = 0, int32(used)
		return true
	}
	return false
}

// roomFront is roomBack's mirror image: room for need more bytes before p.lo.
func (l *List) roomFront(p *page, need int) bool {
	used, ps := p.used(), l.pageSize()
	if used+need <= min(len(p.buf()), ps) && (len(p.buf())-int(p.hi) >= used || used <= smallSlide) {
		c := len(p.buf())
		copy(p.buf()[c-used:], p.buf()[p.lo:p.hi])
		p.lo, p.hi = int32(c-used), int32(c)
		return true
	}
	if len(p.buf()) < ps && used+need <= ps {
		nb := l.grow(len(p.buf()), used, need)
		c := len(nb)
		copy(nb[c-used:], p.buf()[p.lo:p.hi])
		p.setBuf(nb)
		p.lo, p.hi = int32(c-used), int32(c)
		return true
	}
	return false
}

// insertSlot inserts pg into the page slice before absolute slot j and returns the
// slot it now occupies. Pages at either end are added in O(1) amortised time.
func (l *List) insertSlot(j int, pg page) int {
	if (j == l.b && l.b == len(l.arr)) || (j == l.a && l.a == 0) || (l.a == 0 && l.b == len(l.arr)) {
		size := 2 * (l.b - l.a + 1)
		if l.a == l.b {
			size = 1 // a list's first page: most lists in a keyspace have one
		}
		if size <= len(l.arr) {
			size = len(l.arr) // half empty: recentre in place
		}
		j = l.recenter(j, max(minSlots, size))
	}
	if l.a > 0 && (l.b == len(l.arr) || j-l.a < l.b-j) {
		copy(l.arr[l.a-1:j-1], l.arr[l.a:j])
		l.a--
		j--
	} else {
		copy(l.arr[j+1:l.b+1], l.arr[j:l.b])
		l.b++
	}
	l.arr[j] = pg
	return j
}

// recenter moves the live pages to the middle of a page slice of size slots (the
// current one, when size is its length) and returns slot j's new index.
func (l *List) recenter(j, size int) int {
	count := l.b - l.a
	off := (size - count) / 2
	if size == len(l.arr) {
		copy(l.arr[off:], l.arr[l.a:l.b])
		clear(l.arr[:off])
		clear(l.arr[off+count:])
	} else {
		arr := l.one[:]
		if size > 1 {
			arr = make([]page, size)
		}
		copy(arr[off:], l.arr[l.a:l.b])
		if size > 1 {
			l.one[0] = page{} // no longer a slot: nothing of it may keep a buffer alive
		}
		l.arr = arr
	}
	j += off - l.a
	l.a, l.b = off, off+count
	return j
}

// inline reports whether the page slice is the List's own slot (see List.one).
func (l *List) inline() bool { return len(l.arr) > 0 && &l.arr[0] == &l.one[0] }

// removeSlot removes the page at absolute slot j, shifting the shorter side.
func (l *List) removeSlot(j int) {
	if j-l.a < l.b-1-j {
		copy(l.arr[l.a+1:j+1], l.arr[l.a:j])
		l.arr[l.a] = page{}
		l.a++
	} else {
		copy(l.arr[j:l.b-1], l.arr[j+1:l.b])
		l.arr[l.b-1] = page{}
		l.b--
	}
	l.shrinkSlots()
}

// shrinkSlots halves the page slice once it is less than a quarter used, so a list
// that drains gives its memory back.
func (l *List) shrinkSlots() {
	count := l.b - l.a
	if count == 0 {
		// Keep a small slice, so that a queue that keeps emptying does not reallocate it.
		if len(l.arr) > minSlots {
			l.arr = nil
		}
		l.a, l.b = len(l.arr)/2, len(l.arr)/2
		return
	}
	if len(l.arr) > minSlots && count < len(l.arr)/4 {
		l.recenter(l.a, max(minSlots, 2*count))
	}
}

// join moves the items of page y (which follows x) into x, reusing whichever buffer
// has room, and empties y. Its buffer, if unused, is released.
func (l *List) join(x, y *page) {
	ux, uy := x.used(), y.used()
	switch {
	case len(x.buf())-int(x.hi) >= uy:
		copy(x.buf()[x.hi:], y.buf()[y.lo:y.hi])
		x.hi += int32(uy)
		l.release(y.buf())
	case int(y.lo) >= ux:
		copy(y.buf()[int(y.lo)-ux:], x.buf()[x.lo:x.hi])
		l.release(x.buf())
		x.ptr, x.size = y.ptr, y.size
		x.lo, x.hi = y.lo-int32(ux), y.hi
	case len(x.buf()) >= ux+uy:
		copy(x.buf(), x.buf()[x.lo:x.hi])
		copy(x.buf()[ux:], y.buf()[y.lo:y.hi])
		x.lo, x.hi = 0, int32(ux+uy)
		l.release(y.buf())
	default:
		nb := l.newBuf(ux + uy)
		copy(nb, x.buf()[x.lo:x.hi])
		copy(nb[ux:], y.buf()[y.lo:y.hi])
		l.release(x.buf())
		l.release(y.buf())
		x.setBuf(nb)
		x.lo, x.hi = 0, int32(ux+uy)
	}
	x.n += y.n
	*y = page{}
}

// mergeable reports whether neighbouring pages are small enough to be merged.
func (l *List) mergeable(x, y *page) bool { return x.used()+y.used() <= l.pageSize()/2 }

// fixFront restores the invariants at the front after items left it.
//
// A page emptied at the front is kept (with its free space below hi, ready for
// PushFront) while the list has other items, so that a stack oscillating across a page
// boundary does not allocate and free a page slot on every push and pop. At most one
// such empty page is kept at each end; normalize drops them.
func (l *List) fixFront() {
	if l.n == 0 {
		l.clear()
		return
	}
	for p := &l.arr[l.a]; p.n == 0 && (l.arr[l.a+1].n == 0 || len(p.buf()) > l.pageSize()); p = &l.arr[l.a] {
		l.dropEmpty(l.a)
	}
	k := l.a
	if p := &l.arr[k]; p.n == 0 {
		p.lo, p.hi = int32(len(p.buf())), int32(len(p.buf()))
		k++
	}
	if k+1 < l.b && l.arr[k+1].n > 0 && l.mergeable(&l.arr[k], &l.arr[k+1]) {
		l.join(&l.arr[k], &l.arr[k+1])
		l.removeSlot(k + 1)
	}
}

// dropEmpty removes the empty page at slot k.
func (l *List) dropEmpty(k int) {
	buf := l.arr[k].buf()
	l.removeSlot(k)
	l.release(buf)
}

// fixBack is fixFront's mirror image.
func (l *List) fixBack() {
	if l.n == 0 {
		l.clear()
		return
	}
	for p := &l.arr[l.b-1]; p.n == 0 && (l.arr[l.b-2].n == 0 || len(p.buf()) > l.pageSize()); p = &l.arr[l.b-1] {
		l.dropEmpty(l.b - 1)
	}
	k := l.b - 1
	if p := &l.arr[k]; p.n == 0 {
		p.lo, p.hi = 0, 0
		k--
	}
	if k > l.a && l.arr[k-1].n > 0 && l.mergeable(&l.arr[k-1], &l.arr[k]) {
		l.join(&l.arr[k-1], &l.arr[k])
		l.removeSlot(k)
	}
}

// normalize drops empty pages, merges small neighbours and renumbers the starts of
// every page, after an operation in the middle of the list. The complexity is
// O(pages), plus O(pageSize) per merge.
func (l *List) normalize() {
	if l.a == l.b {
		return
	}
	origin := l.arr[l.a].start
	w := l.a
	for r := l.a; r < l.b; r++ {
		p := l.arr[r]
		l.arr[r] = page{}
		switch {
		case p.n == 0:
			l.release(p.buf())
		case w > l.a && l.mergeable(&l.arr[w-1], &p):
			l.join(&l.arr[w-1], &p)
		default:
			l.arr[w] = p
			w++
		}
	}
	l.b = w
	s := origin
	for k := l.a; k < l.b; k++ {
		l.arr[k].start = s
		s += int(l.arr[k].n)
	}
	l.shrinkSlots()
}

// locate returns the absolute slot of the page holding item i (0 ≤ i < l.n) and the
// position of the item within that page. The complexity is O(log pages).
func (l *List) locate(i int) (k, j int) {
	abs := l.arr[l.a].start + i
	if last := &l.arr[l.b-1]; abs >= last.start {
		return l.b - 1, abs - last.start
	}
	lo, hi := l.a, l.b-1 // answer in [lo, hi): arr[lo].start ≤ abs < arr[hi].start
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if l.arr[m].start <= abs {
			lo = m
		} else {
			hi = m
		}
	}
	return lo, abs - l.arr[lo].start
}

// splice replaces the whole items buf[from:to] of the page at slot k with the encoded
// items ins, dn being the change in the page's item count, then restores the
// invariants. It is the slow path of every operation in the middle of the list.
func (l *List) splice(k, from, to int, ins []byte, dn int) {
	p := &l.arr[k]
	delta := len(ins) - (to - from)
	newUsed := p.used() + delta
	switch {
	case newUsed > l.pageSize() && int(p.n)+dn > 1, len(p.buf()) > l.pageSize() && len(p.buf()) != newUsed:
		// Too big for one page, or a big single item's buffer no longer needed.
		l.rebuild(k, from, to, ins, dn)
		l.n += dn
		l.normalize()
		return
	case delta <= 0 && from-int(p.lo) <= int(p.hi)-to:
		// Shrinking, fewer bytes before the gap: slide the head up.
		copy(p.buf()[from-delta:], ins)
		copy(p.buf()[int(p.lo)-delta:], p.buf()[p.lo:from])
		p.lo -= int32(delta)
	case delta <= 0 || len(p.buf())-int(p.hi) >= delta:
		// Shrinking, or growing with room at the end: slide the tail.
		copy(p.buf()[to+delta:], p.buf()[to:p.hi])
		copy(p.buf()[from:], ins)
		p.hi += int32(delta)
	case int(p.lo) >= delta:
		// Growing with room at the start: slide the head down.
		copy(p.buf()[int(p.lo)-delta:], p.buf()[p.lo:from])
		p.lo -= int32(delta)
		copy(p.buf()[from-delta:], ins)
	default:
		l.rebuild(k, from, to, ins, dn)
		l.n += dn
		l.normalize()
		return
	}
	p.n += int32(dn)
	l.n += dn
	if dn != 0 {
		l.shift(k, dn)
	}
	if delta < 0 && (k > l.a && l.arr[k-1].n > 0 && l.mergeable(&l.arr[k-1], p) ||
		k+1 < l.b && l.arr[k+1].n > 0 && l.mergeable(p, &l.arr[k+1])) {
		l.normalize()
	}
}

// shift renumbers starts after page k gained dn items: the pages up to k move dn
// down, or those after it dn up, whichever side is shorter.
func (l *List) shift(k, dn int) {
	if k-l.a < l.b-1-k {
		for j := l.a; j <= k; j++ {
			l.arr[j].start -= dn
		}
		return
	}
	for j := k + 1; j < l.b; j++ {
		l.arr[j].start += dn
	}
}

// rebuild writes the new contents of page k (its items with buf[from:to] replaced by
// ins) into fresh storage, splitting it into several pages when it no longer fits.
// Starts are left for normalize to renumber.
func (l *List) rebuild(k, from, to int, ins []byte, dn int) {
	p := &l.arr[k]
	total := p.used() - (to - from) + len(ins)
	tmp := make([]byte, 0, total)
	tmp = append(tmp, p.buf()[p.lo:from]...)
	tmp = append(tmp, ins...)
	tmp = append(tmp, p.buf()[to:p.hi]...)
	n := int(p.n) + dn
	if total <= l.pageSize() || n == 1 {
		if len(p.buf()) < total || len(p.buf()) > max(l.pageSize(), total) {
			old := p.buf()
			p.setBuf(l.alloc(total))
			l.release(old)
		}
		copy(p.buf(), tmp)
		p.lo, p.hi, p.n = 0, int32(total), int32(n)
		return
	}
	// Split into chunks of about equal size, none above pageSize unless it is a single
	// larger item; normalize merges any small leftovers.
	chunks := (total + l.pageSize() - 1) / l.pageSize()
	target := (total + chunks - 1) / chunks
	old := p.buf()
	var pages []page
	for o := 0; o < total; {
		c, cn := o, 0
		for c < total {
			_, _, next := fwd(tmp, c)
			if cn > 0 && (next-o > l.pageSize() || c-o >= target) {
				break
			}
			c, cn = next, cn+1
		}
		buf := l.alloc(c - o)
		copy(buf, tmp[o:c])
		pages = append(pages, newPage(buf, 0, c-o, cn, 0))
		o = c
	}
	l.release(old)
	l.arr[k] = pages[0]
	for _, pg := range pages[1:] {
		k = l.insertSlot(k+1, pg)
	}
}
