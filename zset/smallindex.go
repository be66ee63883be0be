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
	idxStack = 128 + 128/markStep*markSize
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
	start, end := v.p.memberEnd(o + scoreLen(v.p[o]))
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
		sc, om, _ := v.p.entry(o)
		return sc < score || sc == score && om < m
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

// detach removes the index from the small bytes, leaving the entries, and returns a copy of it
// (appended to buf), or nil when there is none.
func (s *Set) detach(buf []byte) []byte {
	t := trailerLen(int(s.n))
	if t == 0 {
		return nil
	}
	sm := s.smBytes()
	e := len(sm) - t
	buf = append(buf, sm[e:]...)
	s.setSmLen(e)
	return buf
}

// attach rebuilds the index after the entries changed at rank r, offset off: delta
// entries of size bytes in all were inserted there (delta = 1, with fingerprint fp) or
// removed (delta < 0). old is what detach returned for the oldN entries before (nil:
// build the index from scratch).
func (s *Set) attach(old []byte, oldN, r, delta int, fp byte, off, size int) {
	n := int(s.n)
	if n <= idxMin {
		return
	}
	sm := s.smBytes()
	e := len(sm)
	need := e + trailerLen(n)
	if need > cap(sm) { // only after bulk appends: smInsert and smCut reserve the room
		sm = append(smAlloc(need), sm...)
		s.setSm(sm)
	}
	sm = sm[:need]
	s.setSmLen(need)
	p := packed(sm[:e])
	fps, marks := sm[e:e+n], sm[e+n:]
	if old == nil || oldN <= idxMin {
		i := 0
		for o := 0; o < len(p); i++ {
			_, m, next := p.entry(o)
			fps[i] = fingerprint(m)
			o = next
		}
		placeMarks(p, marks)
		return
	}
	oldFps, oldMarks := old[:oldN], old[oldN:]
	copy(fps, oldFps[:r])
	if delta > 0 {
		fps[r] = fp
		copy(fps[r+1:], oldFps[r:])
	} else {
		copy(fps[r:], oldFps[r-delta:])
	}
	if len(marks) != len(oldMarks) {
		placeMarks(p, marks)
		return
	}
	prev := 0
	for j := range len(marks) / markSize {
		rk, o := readMark(oldMarks, j)
		switch {
		case delta > 0 && rk > r:
			rk, o = rk+1, o+size
		case delta < 0 && rk >= r-delta:
			rk, o = rk+delta, o-size
		case delta < 0 && rk >= r:
			rk, o = r, off // its entry was removed: the entry now there
		}
		if rk >= n || rk-prev > 2*markStep {
			placeMarks(p, marks)
			return
		}
		writeMark(marks, j, rk, o)
		prev = rk
	}
	if n-prev > 2*markStep {
		placeMarks(p, marks)
	}
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
