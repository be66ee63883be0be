package zset

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
)

// A small set of more than idxMin entries carries an index after its entries, in the
// same byte slice, so that member lookups and score searches do not scan every entry:
//
//	fps    n bytes: a one-byte fingerprint (hash) of each member, in rank order
//	marks  ceil(n/8) × 6 bytes: the rank (uint16) and offset (uint32) of some entries,
//	       little endian, in rank order: the first at rank 0, no two more than 16 apart,
//	       none past the last entry
//
// Finding a member compares its fingerprint with eight at a time and decodes only the
// entries whose fingerprint matches (1 in 256 others), each reached from the mark before
// it in at most 16 skips; a search by score or by member binary-searches the marks and
// then scans at most 16 entries. That costs 1.75 bytes per entry, which at 100 entries
// of 16 bytes stays inside the allocator's size class the entries alone need (1792
// bytes). A write moves the marks after it by arithmetic (an entry inserted or removed
// before a mark changes its rank by one and its offset by the entry's bytes); only when
// the number of marks changes (every 8 entries) or a gap grows past 16 are they placed
// again at ranks 0, 8, 16, ... by one walk over the entries.

const (
	idxMin   = 16 // sets of up to idxMin entries have no index
	markStep = 8  // entries per mark when placed; gaps may grow to 2*markStep
	markSize = 6  // uint16 rank, uint32 offset
)

// trailerLen returns the bytes of the index of a small set of n entries.
func trailerLen(n int) int {
	if n <= idxMin {
		return 0
	}
	return n + (n+markStep-1)/markStep*markSize
}

func fingerprint(m string) byte { return byte(maphash.String(hashSeed, m)) }

// smallView is a small set's entries and, above idxMin entries, its index.
type smallView struct {
	p     packed
	fps   []byte
	marks []byte
}

// small returns the view of the small encoding.
func (s *Set) small() smallView {
	n := int(s.n)
	sm := s.smBytes()
	if n <= idxMin {
		return smallView{p: sm}
	}
	e := len(sm) - trailerLen(n)
	return smallView{p: sm[:e:e], fps: sm[e : e+n], marks: sm[e+n:]}
}

// mark returns the rank and offset of mark j.
func (v smallView) mark(j int) (rank, off int) { return readMark(v.marks, j) }

func readMark(marks []byte, j int) (rank, off int) {
	return int(binary.LittleEndian.Uint16(marks[markSize*j:])), int(binary.LittleEndian.Uint32(marks[markSize*j+2:]))
}

func writeMark(marks []byte, j, rank, off int) {
	binary.LittleEndian.PutUint16(marks[markSize*j:], uint16(rank))
	binary.LittleEndian.PutUint32(marks[markSize*j+2:], uint32(off))
}

// offsetOf returns the offset of the entry at rank r (len(p) for r == the length).
func (v smallView) offsetOf(r int) int {
	switch {
	case v.fps == nil:
		return v.p.offsetOf(r)
	case r >= len(v.fps):
		return len(v.p)
	}
	// The last mark at or before r: marks start at ranks 0, 8, 16, ... and drift by a
	// rank per write until placed again, so mark r/8 is at most a few marks off. Mark 0
	// is at rank 0.
	nm := len(v.marks) / markSize
	j := min(r/markStep, nm-1)
	rank, off := v.mark(j)
	for rank > r {
		j--
		rank, off = v.mark(j)
	}
	for j+1 < nm {
		rk, o := v.mark(j + 1)
		if rk > r {
			break
		}
		j, rank, off = j+1, rk, o
	}
	return v.p.skipN(off, r-rank)
}

// find returns the offset, rank and score of member m.
func (v smallView) find(m string) (off, rank int, sc float64, ok bool) {
	if v.fps == nil {
		return v.p.find(m)
	}
	fp := fingerprint(m)
	pattern := uint64(fp) * 0x0101010101010101
	n := len(v.fps)
	i := 0
	for ; i+8 <= n; i += 8 {
		x := binary.LittleEndian.Uint64(v.fps[i:]) ^ pattern
		// The zero bytes of x are the matches. This flags every zero byte, and possibly
		// a byte above one (a borrow), which the member comparison then rejects.
		for z := (x - 0x0101010101010101) & ^x & 0x8080808080808080; z != 0; z &= z - 1 {
			if off, sc, ok := v.at(i+bits.TrailingZeros64(z)/8, m); ok {
				return off, i + bits.TrailingZeros64(z)/8, sc, true
			}
		}
	}
	for ; i < n; i++ {
		if v.fps[i] == fp {
			if off, sc, ok := v.at(i, m); ok {
				return off, i, sc, true
			}
		}
	}
	return 0, 0, 0, false
}

// at returns the offset and score of the entry of rank r if its member is m.
func (v smallView) at(r int, m string) (int, float64, bool) {
	o := v.offsetOf(r)
	start, end := v.p.memberEnd(v.p.scoreEnd(o))
	if string(v.p[start:end]) != m {
		return 0, 0, false
	}
	sc, _ := v.p.score(o)
	return o, sc, true
}

// block returns the rank and offset at which to start a linear scan for the first entry
// for which a predicate that holds for a prefix of the order is false: the last mark
// whose entry satisfies first (below), or the start.
func (v smallView) block(below func(off int) bool) (rank, off int) {
	if v.fps == nil {
		return 0, 0
	}
	lo, hi := 0, len(v.marks)/markSize // the marks whose entry is below: [0, lo)
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
	r, off := v.block(func(o int) bool {
		sc, _ := v.p.score(o)
		return sc < f || orEqual && sc == f
	})
	return v.p.countScore(r, off, f, orEqual)
}

// lower returns the rank and offset of the first entry whose key is >= (score, m).
func (v smallView) lower(score float64, m string) (int, int) {
	r, off := v.block(func(o int) bool {
		sc, next := v.p.score(o)
		if sc != score {
			return sc < score
		}
		om, _ := v.p.member(next)
		return om < m
	})
	return v.p.lower(r, off, score, m)
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
// the entries, from the entries alone; a set of up to idxMin entries has none.
func (s *Set) buildIndex() {
	v := s.small()
	if v.fps == nil {
		return
	}
	i := 0
	for o := 0; o < len(v.p); i++ {
		_, m, next := v.p.entry(o)
		v.fps[i] = fingerprint(m)
		o = next
	}
	placeMarks(v.p, v.marks)
}

// moveMarks updates the marks after entries moved: those at ranks [from, to) move by
// dr ranks and do bytes with their entries, and those at ranks [c, from), whose
// entries were removed, go to the entry now at rank c, offset co (c == from for
// none). It places the marks again when that leaves a gap past 2*markStep or a mark
// past the last entry. Only the marks from the last one below min(c, from) on are
// read.
func (v smallView) moveMarks(from, to, dr, do, c, co int) {
	n, prev := len(v.fps), 0
	j := v.markBefore(min(c, from))
	if j > 0 {
		prev, _ = v.mark(j - 1)
	}
	for ; j < len(v.marks)/markSize; j++ {
		rk, o := readMark(v.marks, j)
		switch {
		case rk >= from && rk < to:
			rk, o = rk+dr, o+do
			writeMark(v.marks, j, rk, o)
		case rk >= c && rk < from:
			rk, o = c, co
			writeMark(v.marks, j, rk, o)
		}
		if rk >= n || rk-prev > 2*markStep {
			placeMarks(v.p, v.marks)
			return
		}
		prev = rk
	}
	if n-prev > 2*markStep {
		placeMarks(v.p, v.marks)
	}
}

// markBefore returns the last mark at a rank below r, or mark 0: the marks before it
// are all at lower ranks.
func (v smallView) markBefore(r int) int {
	// Marks start at ranks 0, 8, 16, ... and drift by a rank per write until placed
	// again, so mark r/8 is at most a few marks off.
	j := min(r/markStep, len(v.marks)/markSize-1)
	for ; j > 0; j-- {
		if rk, _ := v.mark(j); rk < r {
			break
		}
	}
	return j
}

// placeMarks sets the marks at ranks 0, 8, 16, ... of the entries p.
func placeMarks(p packed, marks []byte) {
	off := 0
	for j := range len(marks) / markSize {
		writeMark(marks, j, j*markStep, off)
		for range markStep {
			if off < len(p) {
				off = p.skip(off)
			}
		}
	}
}
