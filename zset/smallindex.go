package zset

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"unsafe"
)

// A small set of more than idxMin entries carries an index after its entries, in the
// same byte slice, so that member lookups and score searches do not scan every entry:
//
//	fps    n bytes: a one-byte fingerprint (hash) of each member, in rank order
//	marks  ceil(n/8) × 4 bytes: mark j locates the entry of a rank in its window
//	       [8j-2, 8j+1] (mark 0: rank 0), below n: a little-endian uint32 holding the
//	       entry's offset in its low 30 bits and the rank minus 8j, plus 2, in its top 2
//
// Finding a member compares its fingerprint with eight at a time and decodes only the
// entries whose fingerprint matches (1 in 256 others); the entry of rank r is reached
// from mark r/8, or the one before it when that mark is past r, in at most 10
// skips; a search by score or by member binary-searches the marks and then scans at
// most 11 entries. That costs 1.5 bytes per entry, which at 100 entries of 16 bytes
// stays inside the allocator's size class the entries alone need (1792 bytes). A write
// moves the marks after it by arithmetic (an entry inserted or removed before a mark
// changes its rank by one and its offset by the entry's bytes), on the packed words; a
// mark that this takes out of its window is placed again at rank 8j by a walk of at
// most 10 entries, from its own entry or from mark j-1. The window lets a mark drift
// by up to two ranks either way, so that writes that come and go at the same place (a
// pop and a push, an add and a remove) walk no entries.

const (
	idxMin    = 16 // a set that grows past idxMin entries gains an index
	idxDrop   = 8  // an indexed set keeps it while it has more than idxDrop entries
	markStep  = 8  // mark j is at rank markStep*j + d, -markDrift <= d < markDrift
	markDrift = 2
	markSize  = 4 // uint32: offset (markOffBits) and d+markDrift (the bits above)

	markOffBits = 30 // offsets are below maxSmallBytes = 1<<30
	markOffMask = 1<<markOffBits - 1
)

// findIn reads the fingerprints a word at a time past their end, into the marks, which
// needs an indexed set to have at least 8 entries: this compiles only while it does.
const _ uint = idxDrop - 8

// trailerLen returns the bytes of the index of a small set of n entries, none unless
// indexed.
func trailerLen(n int, indexed bool) int {
	if !indexed {
		return 0
	}
	return n + (n+markStep-1)/markStep*markSize
}

// fingerprint returns the one-byte hash of m that the index keeps for it. It is our own
// hash rather than maphash's: the fingerprint of a 14-byte member is two loads and one
// multiplication, where maphash.String was about a tenth of a lookup at 128 members and
// over half of building an index (CPU profiles). It is seeded per process (fpSeed), so that
// which members collide is not known in advance; a collision costs one more member
// comparison, never a wrong result.
func fingerprint(m string) byte {
	n := len(m)
	if n > 16 {
		return longFingerprint(m)
	}
	var a, b uint64
	switch {
	case n >= 8:
		a, b = le64(m, 0), le64(m, n-8)
	case n >= 4:
		a, b = uint64(le32(m, 0)), uint64(le32(m, n-4))
	case n > 0:
		a = uint64(m[0])<<16 | uint64(m[n>>1])<<8 | uint64(m[n-1])
	}
	return fpMix(a^fpSeed, b^uint64(n)^fpK)
}

// longFingerprint is fingerprint for members of more than 16 bytes: 16 bytes at a time,
// the last 16 bytes ending the member.
func longFingerprint(m string) byte {
	n := len(m)
	h := fpSeed
	for i := 0; i < n-16; i += 16 {
		hi, lo := bits.Mul64(le64(m, i)^h^fpK, le64(m, i+8)^h)
		h = hi ^ lo
	}
	return fpMix(le64(m, n-16)^h, le64(m, n-8)^uint64(n)^fpK)
}

// fpMix folds two words into a byte through a 128-bit product.
func fpMix(a, b uint64) byte {
	hi, lo := bits.Mul64(a, b)
	return byte((hi ^ lo) >> 32)
}

// fpSeed is this process's fingerprint seed, fpK an odd constant (the fractional bits
// of the golden ratio) that keeps the product's operands from being zero for members
// of zero bytes.
var fpSeed = maphash.String(hashSeed, "zlite fingerprint") | 1

const fpK = 0x9E3779B97F4A7C15

// le64 returns the 8 bytes of m from i, little endian (one load where the architecture
// allows unaligned loads).
func le64(m string, i int) uint64 {
	return binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(m), len(m))[i:])
}

// le32 returns the 4 bytes of m from i, little endian.
func le32(m string, i int) uint32 {
	return binary.LittleEndian.Uint32(unsafe.Slice(unsafe.StringData(m), len(m))[i:])
}

// smallView is a small set's entries and, when it is indexed, the number of entries
// the index covers (0: no index). p keeps the capacity of the set's buffer, within which
// the index follows the entries (fps and marks return its parts), so that a view is
// four words, passed in registers; nothing appends to a view.
type smallView struct {
	p packed
	n int
}

// small returns the view of the small encoding.
func (s *Set) small() smallView {
	sm := s.smBytes()
	if !s.indexed() {
		return smallView{p: sm}
	}
	n := int(s.n)
	return smallView{p: sm[:len(sm)-n-(n+markStep-1)/markStep*markSize], n: n} // trailerLen(n, true), within the inlining budget
}

// fps returns the fingerprints of an indexed view.
func (v smallView) fps() []byte { return v.p[len(v.p) : len(v.p)+v.n] }

// marks returns the marks of the view's index, nil for none.
func (v smallView) marks() []byte { return indexMarks(v.p, v.n) }

// mark returns the rank and offset of mark j.
func (v smallView) mark(j int) (rank, off int) { return readMark(v.marks(), j) }

func readMark(marks []byte, j int) (rank, off int) {
	m := binary.LittleEndian.Uint32(marks[markSize*j:])
	return markStep*j + int(m>>markOffBits) - markDrift, int(m & markOffMask)
}

// writeMark sets mark j, whose rank must be within its window.
func writeMark(marks []byte, j, rank, off int) {
	binary.LittleEndian.PutUint32(marks[markSize*j:], uint32(rank-markStep*j+markDrift)<<markOffBits|uint32(off))
}

// offsetOf returns the offset of the entry at rank r (len(p) for r == the length).
func (v smallView) offsetOf(r int) int {
	switch {
	case v.n == 0:
		return v.p.offsetOf(r)
	case r >= v.n:
		return len(v.p)
	}
	// Mark j = r/8 is at a rank in [r-9, r+1]; when that is past r, mark j-1 (j > 0, as
	// mark 0 is at rank 0) is at most 10 entries before r. Marks that no write has moved
	// are at rank 8j, so that a set built in order needs no second mark.
	j := r / markStep
	rank, off := v.mark(j)
	if rank > r {
		rank, off = v.mark(j - 1)
	}
	return v.p.skipN(off, r-rank)
}

// find returns the offset, rank and score of member m.
func (v smallView) find(m string) (off, rank int, sc float64, ok bool) {
	return findIn(v.p, v.n, m)
}

// findIn is find for the entries p followed, within p's capacity, by an index of n
// entries (0: none, a linear scan). It takes the entries as one slice and the
// index as a length rather than a smallView, whose nine words a call would pass on the
// stack (the copies were a third of a lookup's time), and does the whole lookup in one
// frame: the fingerprint scan, the mark, the walk and the comparison.
func findIn(p packed, n int, m string) (int, int, float64, bool) {
	if n == 0 {
		return p.find(m)
	}
	e := len(p)
	// The fingerprints and then the marks: an indexed set has more than idxDrop = 8
	// entries, so at least 8 bytes of marks follow the fingerprints and every word
	// read below is inside idx. The bytes of the last word past the fingerprints are
	// marks, and a match among them (a rank of n or more) ends the search.
	idx := p[e : e+n+(n+markStep-1)/markStep*markSize]
	marks := idx[n:]
	pattern := uint64(fingerprint(m)) * 0x0101010101010101
	for i := 0; i < n; i += 8 {
		x := binary.LittleEndian.Uint64(idx[i:]) ^ pattern
		// The zero bytes of x are the matches. This flags every zero byte, and possibly
		// a byte above one (a borrow), which the member comparison then rejects.
		for z := (x - 0x0101010101010101) &^ x & 0x8080808080808080; z != 0; z &= z - 1 {
			r := i + bits.TrailingZeros64(z)>>3
			if r >= n {
				return 0, 0, 0, false
			}
			// The entry of rank r, from mark r/8 or the one before it (see offsetOf).
			j := r / markStep
			w := binary.LittleEndian.Uint32(marks[markSize*j:])
			rank := markStep*j + int(w>>markOffBits) - markDrift
			if rank > r {
				w = binary.LittleEndian.Uint32(marks[markSize*(j-1):])
				rank = markStep*(j-1) + int(w>>markOffBits) - markDrift
			}
			off := int(w & markOffMask)
			for ; rank < r; rank++ {
				_, off = p.memberEnd(p.scoreEnd(off))
			}
			start, end := p.memberEnd(p.scoreEnd(off))
			if string(p[start:end]) == m {
				sc, _ := p.score(off)
				return off, r, sc, true
			}
		}
	}
	return 0, 0, 0, false
}

// block returns the rank and offset at which to start a linear scan for the first entry
// for which a predicate that holds for a prefix of the order is false: the last mark
// whose entry satisfies first (below), or the start.
func (v smallView) block(below func(off int) bool) (rank, off int) {
	if v.n == 0 {
		return 0, 0
	}
	lo, hi := 0, len(v.marks())/markSize // the marks whose entry is below: [0, lo)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if _, off := v.mark(mid); below(off) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return 0, 0
	}
	return v.mark(lo - 1)
}

// countScore returns the rank and offset of the first entry whose score is above f (at
// least f unless orEqual).
func (v smallView) countScore(f float64, orEqual bool) (int, int) {
	return countScoreIn(v.p, v.n, f, orEqual)
}

// indexMarks returns the marks of the index of n entries (none for 0: no index) that
// follows the entries p within p's capacity (see Set.small).
func indexMarks(p packed, n int) []byte {
	if n == 0 {
		return nil
	}
	e := len(p) + n
	return p[e : e+(n+markStep-1)/markStep*markSize]
}

// countScoreIn is countScore for the entries p followed by an index of n entries (0:
// none). It and lowerIn take the view's parts as arguments, as findIn does, so that
// a call passes four words rather than nine.
func countScoreIn(p packed, n int, f float64, orEqual bool) (int, int) {
	r, off := 0, 0
	if marks := indexMarks(p, n); marks != nil {
		// block written out, without the call of a predicate per mark.
		lo, hi := 0, len(marks)/markSize
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			_, o := readMark(marks, mid)
			if sc, _ := p.score(o); sc < f || orEqual && sc == f {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo > 0 {
			r, off = readMark(marks, lo-1)
		}
	}
	return p.countScore(r, off, f, orEqual)
}

// lower returns the rank and offset of the first entry whose key is >= (score, m).
func (v smallView) lower(score float64, m string) (int, int) {
	return lowerIn(v.p, v.n, score, m)
}

// lowerIn is lower for the entries p followed by an index of n entries (0: none).
func lowerIn(p packed, n int, score float64, m string) (int, int) {
	r, off := 0, 0
	if marks := indexMarks(p, n); marks != nil {
		// block written out, without the call of a predicate per mark.
		lo, hi := 0, len(marks)/markSize
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			_, o := readMark(marks, mid)
			sc, next := p.score(o)
			if sc < score || sc == score && p.memberBelow(next, m) {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo > 0 {
			r, off = readMark(marks, lo-1)
		}
	}
	return p.lower(r, off, score, m)
}

// below returns the rank and offset of the first entry for which below is false.
func (v smallView) below(below func(sc float64, m string) bool) (int, int) {
	r, off := v.block(func(o int) bool {
		sc, m, _ := v.p.entry(o)
		return below(sc, m)
	})
	return v.p.below(r, off, below)
}

// buildIndex computes the index of a small set, whose bytes have room for it after
// the entries, from the entries alone; it does nothing to a set without an index.
func (s *Set) buildIndex() {
	v := s.small()
	if v.n == 0 {
		return
	}
	// One walk for both: the fingerprints, and the marks at ranks 0, 8, 16, ...
	for i, o := 0, 0; o < len(v.p); i++ {
		if i%markStep == 0 {
			writeMark(v.marks(), i/markStep, i, o)
		}
		m, next := v.p.member(v.p.scoreEnd(o))
		v.fps()[i] = fingerprint(m)
		o = next
	}
}

// moveMarks updates the marks after entries moved: those at ranks [from, to) move by
// dr ranks (-1 or 1 unless c < from) and do bytes with their entries, and those at
// ranks [c, from), whose entries were removed, go to the entry now at rank c, offset co
// (c == from for none). Marks from index old on are new (the set gained a mark) and
// hold no value yet. A mark that this takes out of its window, or to or past the last
// entry, is placed again at rank 8j, from its own entry when that is not before mark
// j-1 and otherwise from mark j-1. Only the marks from (min(c, from)-2)/8 on are read,
// and when to is below the length, only up to the first mark at or past to.
func (v smallView) moveMarks(from, to, dr, do, c, co, old int) {
	n, nm, marks := v.n, len(v.marks())/markSize, v.marks()
	j := max(min(c, from)-markDrift, 0) / markStep // the marks before j are at ranks below min(c, from)
	delta := uint32(int32(dr))<<markOffBits + uint32(int32(do))
	j = max(j, 1) // mark 0 is at rank 0, offset 0, whatever the write
	// The common case first, in a loop of few registers: marks below both ranges
	// stay, and marks that move with their entries and stay within their windows
	// (and below n) take delta.
	below := min(c, from)
	for ; j < old; j++ {
		m := binary.LittleEndian.Uint32(marks[markSize*j:])
		rk, f := markStep*j+int(m>>markOffBits)-markDrift, int(m>>markOffBits)+dr
		if rk < below {
			continue
		}
		if rk < from || rk >= to || uint(f) >= 2*markDrift || rk+dr >= n {
			break
		}
		binary.LittleEndian.PutUint32(marks[markSize*j:], m+delta)
	}
	prevR, prevO := v.mark(j - 1)
	for ; j < nm; j++ {
		lo := markStep * j
		rk, o := n, 0 // a new mark: placed from mark j-1
		if j < old {
			m := binary.LittleEndian.Uint32(marks[markSize*j:])
			rk, o = lo+int(m>>markOffBits)-markDrift, int(m&markOffMask)
			switch {
			case rk >= to:
				return // this mark and the ones after it did not move
			case rk >= from:
				rk, o = rk+dr, o+do
				if d := rk - lo; d >= -markDrift && d < markDrift && rk < n && j > 0 {
					// The common case: the mark stays within its window.
					binary.LittleEndian.PutUint32(marks[markSize*j:], m+delta)
					prevR, prevO = rk, o
					continue
				}
			case rk >= c:
				rk, o = c, co
			default:
				prevR, prevO = rk, o
				continue
			}
		}
		if d := rk - lo; d < -markDrift || d >= markDrift || rk >= n {
			if rk < prevR || rk > lo || rk >= n {
				rk, o = prevR, prevO
			}
			o, rk = v.p.skipN(o, lo-rk), lo
		}
		writeMark(marks, j, rk, o)
		prevR, prevO = rk, o
	}
}
