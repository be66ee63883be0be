package intset

import (
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math/bits"
	"math/rand/v2"
	"slices"
	"unsafe"
)

// Set is a set of int64 members in Redis's intset encoding: the members sorted
// ascending in one []byte, each stored little-endian at the set's width (2, 4 or 8
// bytes), after a one-byte header holding that width. The zero value is an empty set
// ready to use; an empty set holds no header and its width is 2.
//
// A Set is 24 bytes (one slice header); see the package documentation for its layout,
// costs and concurrency contract.
type Set struct {
	// b is empty for an empty set, else b[0] is the width w (2, 4 or 8) and
	// b[1+i*w:1+(i+1)*w] holds the i-th smallest member, little-endian.
	b []byte
}

// header is the number of bytes before the first member: the width byte.
const header = 1

// shrinkMin is the capacity in bytes up to which a buffer is never reallocated
// smaller; above it, a buffer a quarter full or less is reallocated at about twice
// its length, so that a set that grew large and shrank gives its memory back.
const shrinkMin = 64

// classMax is the size up to which a buffer grows to the allocator's next size class
// that holds it (8, 16, 24, 32, 48, 64 bytes) rather than as append grows it
// (doubling): 10 members of 2 bytes take 21 bytes, a 24-byte allocation, where
// doubling would give 32. So a set reallocates at most 6 times up to classMax bytes
// and doubles after, O(log n) reallocations in all.
const classMax = 64

// grow returns b with room for n more bytes (see classMax).
func grow(b []byte, n int) []byte {
	need := len(b) + n
	if need <= cap(b) {
		return b
	}
	if need > classMax {
		return slices.Grow(b, n)
	}
	// Grown from nothing, a slice's capacity is exactly the size class of need.
	return append(slices.Grow([]byte(nil), need), b...)
}

// New returns an empty set, the same as new(Set). The complexity is O(1).
func New() *Set { return new(Set) }

// widthOf returns the smallest width, in bytes, that holds v: 2, 4 or 8.
func widthOf(v int64) int {
	switch {
	case v == int64(int16(v)):
		return 2
	case v == int64(int32(v)):
		return 4
	}
	return 8
}

// load returns the i-th member of the members d stored at width w.
func load(d []byte, w, i int) int64 {
	switch w {
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(d[2*i:])))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(d[4*i:])))
	}
	return int64(binary.LittleEndian.Uint64(d[8*i:]))
}

// store writes v, which must fit width w, as the i-th member of d.
func store(d []byte, w, i int, v int64) {
	switch w {
	case 2:
		binary.LittleEndian.PutUint16(d[2*i:], uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(d[4*i:], uint32(v))
	default:
		binary.LittleEndian.PutUint64(d[8*i:], uint64(v))
	}
}

// Width reports the number of bytes each member takes: 2, 4 or 8, Redis's
// INTSET_ENC_INT16, INTSET_ENC_INT32 and INTSET_ENC_INT64. It is the smallest width
// that held every member added since the set was last empty: as in Redis, the width
// grows when a member needs more and never shrinks, except that an emptied set (like
// the zero value) has width 2 again. The complexity is O(1).
func (s *Set) Width() int {
	if len(s.b) == 0 {
		return 2
	}
	return int(s.b[0])
}

// Len returns the number of members, as SCARD does; 0 for an empty set. The
// complexity is O(1).
func (s *Set) Len() int {
	if len(s.b) == 0 {
		return 0
	}
	return (len(s.b) - header) >> bits.TrailingZeros8(s.b[0])
}

// Has reports whether v is a member, as SISMEMBER does (and SMISMEMBER for each of
// its members); false for an empty set. The complexity is O(log n): a binary search.
func (s *Set) Has(v int64) bool {
	if len(s.b) == 0 || widthOf(v) > int(s.b[0]) {
		return false
	}
	_, ok := s.search(v)
	return ok
}

// search returns the index of v in the non-empty set s, whose width must hold v, and
// whether v is there; if not, the index is where v would go.
func (s *Set) search(v int64) (int, bool) {
	d := s.b[header:]
	switch s.b[0] {
	case 2:
		return searchAt(d, int16(v))
	case 4:
		return searchAt(d, int32(v))
	}
	return searchAt(d, v)
}

// searchAt is search over members of type T, the set's width. Like Redis's
// intsetSearch, it looks at the last member first, so that adding members in
// ascending order costs O(1) per search.
func searchAt[T int16 | int32 | int64](d []byte, v T) (int, bool) {
	w := int(unsafe.Sizeof(v))
	n := len(d) / w
	if last := T(load(d, w, n-1)); v >= last {
		return n - 1 + btoi(v > last), v == last
	}
	lo, hi := 0, n-1
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch x := T(load(d, w, m)); {
		case x < v:
			lo = m + 1
		case x > v:
			hi = m
		default:
			return m, true
		}
	}
	return lo, false
}

// btoi is 1 for true, 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Add adds v, as SADD does, and reports whether it was not already a member. Adding
// to an empty set makes it a one-member set of the smallest width that holds v;
// adding a member wider than the set's width first rewrites every member at the new
// width (Redis's intsetUpgradeAndAdd). The buffer grows to the next allocation size
// class up to 64 bytes, then as append grows a slice, so its reallocations are
// amortised. The complexity is O(n): O(log n) to find the place, then a shift of the
// members after it.
func (s *Set) Add(v int64) bool {
	vw := widthOf(v)
	if len(s.b) == 0 {
		s.b = grow(s.b[:0], header+vw)[:header+vw]
		s.b[0] = byte(vw)
		store(s.b[header:], vw, 0, v)
		return true
	}
	w := int(s.b[0])
	if vw > w {
		s.upgrade(v, vw)
		return true
	}
	i, ok := s.search(v)
	if ok {
		return false
	}
	n := len(s.b)
	s.b = grow(s.b, w)[:n+w]
	at := header + i*w
	copy(s.b[at+w:], s.b[at:n])
	store(s.b[header:], w, i, v)
	return true
}

// upgrade adds v, which needs width nw, more than the width of the non-empty set s,
// rewriting every member at width nw. Since v does not fit the old width, it is
// smaller than every member if negative and larger than every member otherwise.
func (s *Set) upgrade(v int64, nw int) {
	w := int(s.b[0])
	n := s.Len()
	size := header + (n+1)*nw
	s.b = grow(s.b, size-len(s.b))[:size]
	d := s.b[header:]
	off := btoi(v < 0)
	// From the last member down, each is written at or after where it was read, past
	// every member not yet read.
	for i := n - 1; i >= 0; i-- {
		store(d, nw, i+off, load(d, w, i))
	}
	store(d, nw, (1-off)*n, v)
	s.b[0] = byte(nw)
}

// Remove removes v, as SREM does, and reports whether it was a member; false for an
// empty set. The width is kept, as in Redis, unless the set becomes empty. The
// complexity is O(n): O(log n) to find v, then a shift of the members after it.
func (s *Set) Remove(v int64) bool {
	if len(s.b) == 0 || widthOf(v) > int(s.b[0]) {
		return false
	}
	i, ok := s.search(v)
	if !ok {
		return false
	}
	s.removeAt(i)
	return true
}

// RemoveAt removes the i-th smallest member (0 is the smallest), as SPOP does with a
// random index. It panics if i is out of range, as indexing a slice does, and so on
// any i for an empty set. The complexity is O(n): a shift of the members after i.
func (s *Set) RemoveAt(i int) {
	if n := s.Len(); uint(i) >= uint(n) {
		panicIndex(i, n)
	}
	s.removeAt(i)
}

// removeAt removes the i-th member, which must exist, then resets an emptied set and
// gives back most of a buffer that is a quarter full or less.
func (s *Set) removeAt(i int) {
	w := int(s.b[0])
	at := header + i*w
	copy(s.b[at:], s.b[at+w:])
	s.b = s.b[:len(s.b)-w]
	if len(s.b) == header {
		s.b = s.b[:0]
	}
	if c := cap(s.b); c > shrinkMin && len(s.b) <= c/4 {
		// An emptied set cannot get here: its buffer was at most 1+8 bytes, so (by
		// this rule) at most 36 bytes of capacity. slices.Grow allocates through append, whose capacity is the allocation's
		// size class, so MemoryUsage stays exact.
		s.b = append(slices.Grow([]byte(nil), 2*len(s.b)), s.b...)
	}
}

// panicIndex panics as an out-of-range slice index does.
func panicIndex(i, n int) {
	panic(fmt.Sprintf("intset: index out of range [%d] with length %d", i, n))
}

// At returns the i-th smallest member (0 is the smallest), as SRANDMEMBER and SPOP
// use with a random index. It panics if i is out of range, as indexing a slice does,
// and so on any i for an empty set. The complexity is O(1).
func (s *Set) At(i int) int64 {
	n := s.Len()
	if uint(i) >= uint(n) {
		panicIndex(i, n)
	}
	return load(s.b[header:], int(s.b[0]), i)
}

// Min returns the smallest member and true, or 0 and false for an empty set. No
// Redis command returns it; it lets the caller compare the ranges of sets (before an
// intersection, say) without a scan. The complexity is O(1).
func (s *Set) Min() (int64, bool) {
	if len(s.b) == 0 {
		return 0, false
	}
	return load(s.b[header:], int(s.b[0]), 0), true
}

// Max returns the largest member and true, or 0 and false for an empty set, like
// Redis's intsetMax. The complexity is O(1).
func (s *Set) Max() (int64, bool) {
	n := s.Len()
	if n == 0 {
		return 0, false
	}
	return load(s.b[header:], int(s.b[0]), n-1), true
}

// All returns an iterator over the members in ascending order, as SMEMBERS and SSCAN
// list an intset, and as SINTER, SUNION and SDIFF read one. It yields nothing for an
// empty set. The set must not be changed during the iteration (from the loop body or
// elsewhere): the iterator reads the buffer the set had when the iteration began, so
// a change made meanwhile may or may not be seen and the values yielded are then
// unspecified, though the iterator does not panic. The complexity is O(1) per member
// yielded.
func (s *Set) All() iter.Seq[int64] {
	return func(yield func(int64) bool) {
		b := s.b
		if len(b) == 0 {
			return
		}
		d := b[header:]
		switch b[0] {
		case 2:
			for ; len(d) >= 2; d = d[2:] {
				if !yield(int64(int16(binary.LittleEndian.Uint16(d)))) {
					return
				}
			}
		case 4:
			for ; len(d) >= 4; d = d[4:] {
				if !yield(int64(int32(binary.LittleEndian.Uint32(d)))) {
					return
				}
			}
		default:
			for ; len(d) >= 8; d = d[8:] {
				if !yield(int64(binary.LittleEndian.Uint64(d))) {
					return
				}
			}
		}
	}
}

// Random returns a member chosen uniformly at random and true, or 0 and false for an
// empty set, as SRANDMEMBER without a count and SPOP do (SPOP then removes it: pick an
// index with r.IntN(s.Len()), read it with At and remove it with RemoveAt). It draws
// from r, or from math/rand/v2's global source if r is nil; a *rand.Rand is not safe
// for concurrent use, the global source is. The complexity is O(1).
func (s *Set) Random(r *rand.Rand) (int64, bool) {
	n := s.Len()
	if n == 0 {
		return 0, false
	}
	var i int
	if r == nil {
		i = rand.IntN(n)
	} else {
		i = r.IntN(n)
	}
	return load(s.b[header:], int(s.b[0]), i), true
}

// MemoryUsage returns the heap bytes the set holds, counting its buffer by capacity
// and the Set itself, for MEMORY USAGE; an empty set that has never held members
// counts just the Set. The capacity is that of the allocation (append rounds it up to
// the allocator's size class), so the figure is what the heap holds for the set when
// it is allocated on its own, as New does. The complexity is O(1).
func (s *Set) MemoryUsage() int {
	return int(unsafe.Sizeof(*s)) + cap(s.b)
}

// Bytes returns the set's buffer, for a container that keeps sets in less room than
// a Set takes (a pointer and two 32-bit lengths, say): [FromBytes] of it, with its
// capacity, is the same set again. The buffer stays the set's: it must not be
// changed but through a Set made by FromBytes, which replaces it. The complexity is
// O(1).
func (s *Set) Bytes() []byte { return s.b }

// FromBytes returns the set whose buffer is b, as [Set.Bytes] returned it; b must
// be such a buffer, of a set not changed since (b's capacity included: the set grows
// into it). The complexity is O(1).
func FromBytes(b []byte) Set { return Set{b: b} }

// Clone returns a copy of s that shares no memory with it, as COPY and a set-algebra
// *STORE command with one source (SUNIONSTORE dst src) produce. The copy has the same
// members and width, and a buffer sized to its length (rounded up to the allocator's
// size class) whatever the spare capacity of s; the clone of an empty set is the zero
// Set. The complexity is O(n).
func (s *Set) Clone() *Set {
	if len(s.b) == 0 {
		return new(Set)
	}
	return &Set{b: slices.Clone(s.b)}
}

// check verifies the invariants of s and reports the first one broken: an empty set
// has no header; otherwise the width is 2, 4 or 8, the members after the header fill
// a whole number of widths, there is at least one, and they are strictly ascending;
// a buffer above shrinkMin is more than a quarter full. Every member fits the width
// by construction (it is read back sign-extended from width bytes); whether the width
// is the smallest that fits cannot be checked here, since downgrades are not done (a
// set keeps the width of a wide member it no longer holds), so the model test checks
// Width against the widths of the members added since the set was last empty.
func (s *Set) check() error {
	if len(s.b) == 0 {
		if c := cap(s.b); c > shrinkMin {
			return fmt.Errorf("empty set keeps %d bytes of capacity; want at most %d", c, shrinkMin)
		}
		return nil
	}
	w := int(s.b[0])
	if w != 2 && w != 4 && w != 8 {
		return fmt.Errorf("width %d; want 2, 4 or 8", w)
	}
	size := len(s.b) - header
	if size%w != 0 {
		return fmt.Errorf("%d bytes of members at width %d", size, w)
	}
	if size == 0 {
		return errors.New("header without members: an emptied set must drop its header")
	}
	if n := s.Len(); n != size/w {
		return fmt.Errorf("Len() = %d; want %d", n, size/w)
	}
	if c := cap(s.b); c > shrinkMin && len(s.b) <= c/4 {
		return fmt.Errorf("%d bytes in a buffer of %d: not shrunk", len(s.b), c)
	}
	d := s.b[header:]
	prev := load(d, w, 0)
	for i := 1; i < size/w; i++ {
		x := load(d, w, i)
		if x <= prev {
			return fmt.Errorf("member %d is %d, member %d is %d: not strictly ascending", i-1, prev, i, x)
		}
		prev = x
	}
	return nil
}
