package zset

import (
	"encoding/binary"
	"math"
	"math/bits"
	"unsafe"
)

// The small encoding (Redis's listpack idea, our own layout): a set of at most
// Limits.Entries members, none longer than Limits.Value bytes, is one []byte holding its
// entries back to back in (score, member) order, nothing else. An entry is
//
//	score   1 to 9 bytes, see below
//	length  the member's length as a uvarint (1 byte up to 127)
//	member  the member's bytes
//
// The score's first byte t says how it is stored:
//
//	0x00-0xDF  the integer zigzag⁻¹(t), -112..111, in t itself
//	0xE0-0xE7  an integer in [-2^62, 2^62]: zigzag(i) in the next t-0xDF bytes, little endian
//	0xF0       a float32 that holds the score exactly (1.5, ±inf), 4 bytes
//	0xF1       any other float64, 8 bytes
//
// so a small integral score costs one byte and a 14-byte member with it 16 bytes. As in
// Redis's listpack, -0 is integral and stored as the integer 0: a small set reads a -0
// back as 0 (see the package doc). Every operation is a linear scan from the start,
// which at the default 128 entries touches at most a few KiB of contiguous memory. The
// bytes hold no pointers, and the slice is sized to its contents: grown to the
// allocator's size class of the need (the classes are 16 bytes apart up to 256 bytes and
// about 12% apart above, so growth is geometric), shrunk when half empty.

const (
	tagIntMax  = 0xDF // the largest tag that is itself a zigzag integer
	tagIntN    = 0xE0 // tagIntN+k-1: a zigzag integer in k bytes, 1 <= k <= 8
	tagFloat32 = 0xF0
	tagFloat64 = 0xF1

	maxIntScore   = 1 << 62 // integral scores within ±maxIntScore are stored as integers
	maxEntryExtra = 9 + binary.MaxVarintLen64
)

// packed is the byte form of a small set. Its methods only read.
type packed []byte

func zigzag(i int64) uint64   { return uint64(i<<1) ^ uint64(i>>63) }
func unzigzag(z uint64) int64 { return int64(z>>1) ^ -int64(z&1) }

// appendScore appends the encoding of f (not NaN) to dst.
func appendScoreBytes(dst []byte, f float64) []byte {
	if f >= -maxIntScore && f <= maxIntScore && f == math.Trunc(f) {
		z := zigzag(int64(f)) // -0 becomes 0
		if z <= tagIntMax {
			return append(dst, byte(z))
		}
		k := (bits.Len64(z) + 7) / 8
		dst = append(dst, byte(tagIntN+k-1))
		for ; k > 0; k-- {
			dst = append(dst, byte(z))
			z >>= 8
		}
		return dst
	}
	if g := float32(f); float64(g) == f {
		return binary.LittleEndian.AppendUint32(append(dst, tagFloat32), math.Float32bits(g))
	}
	return binary.LittleEndian.AppendUint64(append(dst, tagFloat64), math.Float64bits(f))
}

// score decodes the score at off and returns it with the offset of the member's length.
func (p packed) score(off int) (float64, int) {
	if t := p[off]; t <= tagIntMax {
		return float64(unzigzag(uint64(t))), off + 1
	}
	return p.wideScore(off)
}

// wideScore is score for the tags above tagIntMax.
func (p packed) wideScore(off int) (float64, int) {
	t := p[off]
	switch {
	case t < tagFloat32:
		k := int(t-tagIntN) + 1
		var z uint64
		for i := k; i > 0; i-- {
			z = z<<8 | uint64(p[off+i])
		}
		return float64(unzigzag(z)), off + 1 + k
	case t == tagFloat32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(p[off+1:]))), off + 5
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(p[off+1:])), off + 9
}

// scoreLen returns the length of the score encoding whose tag is t.
func scoreLen(t byte) int { return int(scoreSizes[t]) }

// scoreEnd returns the offset of the member's length after the score at off. A
// one-byte integer, the common case, is a branch rather than a table load, so that a
// walk over entries waits on one load per entry (the length), not three.
func (p packed) scoreEnd(off int) int {
	if t := p[off]; t > tagIntMax {
		return off + int(scoreSizes[t])
	}
	return off + 1
}

// scoreSizes maps a tag to the length of its score encoding.
var scoreSizes = func() (t [256]uint8) {
	for i := range t {
		switch {
		case i <= tagIntMax:
			t[i] = 1
		case i < tagFloat32:
			t[i] = uint8(i-tagIntN) + 2
		case i == tagFloat32:
			t[i] = 5
		default:
			t[i] = 9
		}
	}
	return t
}()

// memberEnd returns the offset of the member's bytes whose length is at off, and the
// offset of the entry after them. The uvarint is decoded in line, at most three bytes:
// a small set's members are at most Limits.Value ≤ 65535 bytes long. Its cost is
// within the inlining budget, so the walks over entries make no call per entry.
func (p packed) memberEnd(off int) (start, end int) {
	n := uint(p[off])
	if n >= 0x80 {
		off++
		n = n&0x7f | uint(p[off])<<7
		if n >= 0x4000 {
			off++
			n = n&0x3fff | uint(p[off])<<14
		}
	}
	return off + 1, off + 1 + int(n)
}

// member returns the member whose length is at off, as a view of p, and the offset of
// the next entry.
//
// Safety: the view shares p's memory. It is valid only while those bytes are not
// overwritten, that is until the set's next change (which may move entries within the
// same array) for a view of a set's small bytes, and forever for a view of an immutable
// copy (Set.snapshot, packed.clone). Nothing that outlives the change may keep it.
func (p packed) member(off int) (string, int) {
	start, end := p.memberEnd(off)
	return unsafe.String(unsafe.SliceData(p[start:end]), end-start), end
}

// memberBelow reports whether the member whose length is at off is below m.
func (p packed) memberBelow(off int, m string) bool {
	start, end := p.memberEnd(off)
	return string(p[start:end]) < m
}

// entry decodes the entry at off and returns the offset of the next one.
func (p packed) entry(off int) (sc float64, m string, next int) {
	sc, off = p.score(off)
	m, next = p.member(off)
	return sc, m, next
}

// skip returns the offset of the entry after the one at off.
func (p packed) skip(off int) int {
	_, end := p.memberEnd(p.scoreEnd(off))
	return end
}

// offsetOf returns the offset of the entry at rank r (len(p) for r == the length).
func (p packed) offsetOf(r int) int { return p.skipN(0, r) }

// skipN returns the offset of the entry k after the one at off, with skip written out
// for one-byte lengths (the walk to an entry from the mark before it).
func (p packed) skipN(off, k int) int {
	for ; k > 0; k-- {
		_, off = p.memberEnd(p.scoreEnd(off))
	}
	return off
}

// find returns the offset, rank and score of member m. It compares lengths first and
// then the last byte, which tells apart most members of the same length (numbered ids)
// before a full comparison.
func (p packed) find(m string) (off, rank int, sc float64, ok bool) {
	return p.findFrom(0, 0, m)
}

// findFrom is find from the entry of the given rank at off.
func (p packed) findFrom(off, rank int, m string) (int, int, float64, bool) {
	var last byte
	if m != "" {
		last = m[len(m)-1]
	}
	for off < len(p) {
		// The hot loop of a small set: scoreEnd and memberEnd are inlined, so that a
		// step is a few instructions without a call.
		start, end := p.memberEnd(p.scoreEnd(off))
		if end-start == len(m) && (m == "" || p[end-1] == last && string(p[start:end]) == m) {
			sc, _ := p.score(off)
			return off, rank, sc, true
		}
		off = end
		rank++
	}
	return 0, 0, 0, false
}

// countScore returns the rank and offset of the first entry whose score is above f (at
// least f unless orEqual), scanning from the entry of the given rank at off.
func (p packed) countScore(rank, off int, f float64, orEqual bool) (int, int) {
	for off < len(p) {
		var sc float64
		next := off + 1
		if t := p[off]; t <= tagIntMax {
			sc = float64(unzigzag(uint64(t)))
		} else {
			sc, next = p.wideScore(off)
		}
		if sc > f || sc == f && !orEqual {
			break
		}
		_, off = p.memberEnd(next)
		rank++
	}
	return rank, off
}

// below returns the rank and offset of the first entry for which below is false,
// scanning from the entry of the given rank at off.
func (p packed) below(rank, off int, below func(sc float64, m string) bool) (int, int) {
	for off < len(p) {
		sc, m, next := p.entry(off)
		if !below(sc, m) {
			return rank, off
		}
		off = next
		rank++
	}
	return rank, off
}

// lower returns the rank and offset of the first entry whose key is >= (score, m),
// scanning from the entry of the given rank at off.
func (p packed) lower(rank, off int, score float64, m string) (int, int) {
	for off < len(p) {
		var sc float64
		next := off + 1
		if t := p[off]; t <= tagIntMax {
			sc = float64(unzigzag(uint64(t)))
		} else {
			sc, next = p.wideScore(off)
		}
		if sc > score {
			break
		}
		start, end := p.memberEnd(next)
		if sc == score && string(p[start:end]) >= m {
			break
		}
		off = end
		rank++
	}
	return rank, off
}

// clone returns a copy of the entries in p[off:end], whose members the results of a
// range are views of (see member): one allocation and one copy for the whole range,
// rather than one copy per member, at the cost of the scores and lengths, which the
// copy holds too (2 bytes a member for small integer scores, up to 12).
func (p packed) clone(off, end int) packed {
	q := make(packed, end-off)
	copy(q, p[off:end])
	return q
}

// result returns the index of the first of k results, and the step to the next: the
// results of a range fill their slice from the end when reverse is set.
func result(k int, reverse bool) (i, step int) {
	if reverse {
		return k - 1, -1
	}
	return 0, 1
}

// collect decodes the k entries in p[off:end], in order or reversed, with their
// members views of one copy of those entries.
func (p packed) collect(off, end, k int, reverse bool) []Entry {
	q := p.clone(off, end)
	out := make([]Entry, k)
	i, step := result(k, reverse)
	for o := 0; o < len(q); i += step {
		var e Entry
		e.Score, e.Member, o = q.entry(o)
		out[i] = e
	}
	return out
}

// members returns the members of the k entries in p[off:end], in order or reversed,
// as views of one copy of those entries.
func (p packed) members(off, end, k int, reverse bool) []string {
	q := p.clone(off, end)
	out := make([]string, k)
	i, step := result(k, reverse)
	for o := 0; o < len(q); i += step {
		out[i], o = q.member(q.scoreEnd(o))
	}
	return out
}

// smallFits reports whether a new entry with a member of n bytes may be stored in the
// set's small encoding: within its limits and maxSmallBytes.
func (s *Set) smallFits(n int) bool {
	lim := s.Limits()
	return int(s.n) < lim.Entries && n <= lim.Value && int(s.smLen&^smIndexed)+maxEntryExtra+n <= maxSmallBytes
}

// smInsert stores (m, score), which must be absent, at its place.
func (s *Set) smInsert(m string, score float64) {
	rank, off := s.small().lower(score, m)
	var hdr [maxEntryExtra]byte
	h := appendScoreBytes(hdr[:0], score)
	h = binary.AppendUvarint(h, uint64(len(m)))
	s.smSplice(rank, off, off, 0, h, m)
}

// smCut removes the k entries of ranks rank.. in the bytes [lo, hi).
func (s *Set) smCut(rank, lo, hi, k int) {
	if k > 0 {
		s.smSplice(rank, lo, hi, k, nil, "")
	}
}

// smSplice replaces the bytes [lo, hi) of the entries, which hold the del entries of
// ranks rank.., with the entry whose score encoding and member length are h and whose
// member is m, or with nothing when h is empty: callers either insert one entry (del
// 0, lo == hi) or remove entries (h empty). It moves the index
// with the bytes, in place when the buffer keeps its size class: the entries and the
// fingerprints before the change move by one copy, the fingerprints and marks after
// it by another, and the marks after the change follow by arithmetic (see moveMarks
// for when they are placed again).
func (s *Set) smSplice(rank, lo, hi, del int, h []byte, m string) {
	ins := 0
	if len(h) > 0 {
		ins = 1
	}
	n, n2 := int(s.n), int(s.n)-del+ins
	sm := s.smBytes()
	had := s.indexed()
	// A set gains an index past idxMin entries and drops it at idxDrop or fewer, so that
	// a set that comes and goes across one size does not build an index each time.
	has := n2 > idxMin || had && n2 > idxDrop
	e := len(sm) - trailerLen(n, had)
	k := len(h) + len(m)
	d1 := k - (hi - lo) // the shift of the entries after the change
	e2 := e + d1
	need := e2 + trailerLen(n2, has)
	var b []byte
	moved := need > cap(sm) || cap(sm) > smallSlack && need < cap(sm)/2
	if moved {
		// A new buffer, of the size class of the need: growth, or a set that lost half
		// its bytes giving them back.
		b = smAlloc(need)[:need]
		copy(b, sm[:lo])
	} else {
		b = sm[:max(need, len(sm))]
	}
	// The bytes that move: a, the entries after the change and, when the set keeps an
	// index, the fingerprints before it (contiguous, they move by d1); z, the
	// fingerprints after it and the marks that both counts have (they move by d2).
	// Whichever moves toward the end goes first, so neither overwrites the other's bytes
	// before they are copied.
	keep := had && has
	nm := (trailerLen(n, had) - n) / markSize
	nm2 := (trailerLen(n2, has) - n2) / markSize
	aEnd, zLo, zHi := e, e+rank+del, e+n
	if keep {
		aEnd = e + rank
		zHi = e + n + markSize*min(nm, nm2)
	}
	d2 := d1 + ins - del
	moveZ := func() {
		if keep {
			copy(b[zLo+d2:], sm[zLo:zHi])
		}
	}
	if d1 > 0 {
		moveZ()
	}
	copy(b[lo+k:], sm[hi:aEnd])
	if d1 <= 0 {
		moveZ()
	}
	b = b[:need]
	if ins == 1 {
		copy(b[lo+copy(b[lo:], h):], m)
	}
	if moved {
		s.setSm(b)
	} else {
		s.setSmLen(need)
	}
	s.n = uint16(n2)
	s.setIndexed(has)
	switch {
	case !has:
	case !had:
		s.buildIndex()
	default:
		v := s.small()
		if ins == 1 {
			v.fps()[rank] = fingerprint(m)
		}
		// A mark past the change moves with its entry; one on a removed entry goes to
		// the entry now there; one at rank itself stays on an insertion (on the new
		// entry, so that mark 0 stays at rank 0). A mark the set gained is placed.
		if del > 0 {
			v.moveMarks(rank+del, n, -del, d1, rank, lo, min(nm, nm2))
		} else {
			v.moveMarks(rank+1, n, 1, d1, rank+1, 0, min(nm, nm2))
		}
	}
}

// smallSlack is the capacity a small set keeps whatever its length, so that a queue
// drained after every push refills without allocating.
const smallSlack = 64

// smDeleteRanks removes the entries at ranks [lo, hi).
func (s *Set) smDeleteRanks(lo, hi int) {
	if lo >= hi {
		return
	}
	v := s.small()
	a := v.offsetOf(lo)
	b := a
	for range hi - lo {
		b = v.p.skip(b)
	}
	s.smCut(lo, a, b, hi-lo)
}

// snapshot returns an immutable copy of the small encoding. Views into it (members from
// packed.member) stay valid after the set changes, so iterators and random picks can
// hand them to callers without a copy each.
func (s *Set) snapshot() packed {
	p := s.small().p
	if len(p) == 0 {
		return nil
	}
	str := string(p)
	// Safety: the bytes of str are never written; only read through this slice.
	return packed(unsafe.Slice(unsafe.StringData(str), len(str)))
}

// toTree converts the set to the tree encoding, for good.
func (s *Set) toTree() {
	e := new(engine)
	p := s.small().p
	for off := 0; off < len(p); {
		sc, m, next := p.entry(off)
		e.insert(m, sc) // copies m
		off = next
	}
	s.setTree(e)
}

// Compact converts a tree-encoded set that fits its limits back to the small encoding,
// as Redis's zsetConvertToListpackIfNeeded does for the destination of ZUNIONSTORE,
// ZINTERSTORE and ZDIFFSTORE (and for nothing else: a set that outgrew its limits stays
// a tree while it has members). A -0 score becomes 0 on the way, as in Redis. It does
// nothing to a small set or one that does not fit. The complexity is O(n) when it
// converts, at most O(Limits.Entries) otherwise.
func (s *Set) Compact() {
	s.toSmallIfFits(false)
}

// toSmallIfFits converts a tree-encoded set that fits the limits to the small encoding;
// with keepNegZero, not one that holds a -0 score, which the small encoding would read
// back as 0 (the results of set operations: Redis replies to ZUNION from the skiplist
// it built, -0 included, and converts only a stored result, see Compact).
func (s *Set) toSmallIfFits(keepNegZero bool) {
	if s.tree() == nil || s.tree().n > s.Limits().Entries {
		return
	}
	total := 0
	for m, f := range s.All() {
		total += maxEntryExtra + len(m)
		if len(m) > s.Limits().Value || total > maxSmallBytes || keepNegZero && f == 0 && math.Signbit(f) {
			return
		}
	}
	s.mods++
	e := s.tree()
	s.setTree(nil)
	var c cursor
	if e.n > 0 {
		e.seek(&c, 0)
		for {
			s.smAppend(e.sl.member(c.l.hs[c.i]), c.l.sc[c.i])
			if !c.next() {
				break
			}
		}
	}
	s.smFit()
}

// smAppend appends (m, score), which must order after every entry, without a scan.
// Callers that append many entries finish with smFit.
func (s *Set) smAppend(m string, score float64) {
	sm := appendScoreBytes(s.smBytes(), score)
	sm = binary.AppendUvarint(sm, uint64(len(m)))
	s.setSm(append(sm, m...))
	s.n++
}

// smFit ends a run of smAppend calls: it builds the index and gives back the capacity
// that the appends left beyond the size class.
func (s *Set) smFit() {
	sm := s.smBytes()
	idx := s.n > idxMin
	sm = append(sm, make([]byte, trailerLen(int(s.n), idx))...)
	if cap(sm) > len(sm)+len(sm)/8+16 {
		sm = append(smAlloc(len(sm)), sm...)
	}
	s.setSm(sm)
	s.setIndexed(idx)
	s.buildIndex()
}

// smRescore gives the small-set entry of member m, of the given rank at off, a new
// score. m must not be a view of the small bytes (callers pass the caller's string).
// When the new score's encoding has the old one's length, the entry moves within the
// bytes it shares with the entries it passes, and the index follows by arithmetic;
// otherwise it is cut and inserted again.
func (s *Set) smRescore(rank, off int, m string, score float64) {
	v := s.small()
	var hdr [maxEntryExtra]byte
	h := appendScoreBytes(hdr[:0], score)
	k := scoreLen(v.p[off])
	if len(h) != k {
		s.smCut(rank, off, v.p.skip(off), 1)
		s.smInsert(m, score)
		return
	}
	size := v.p.skip(off) - off
	r2, o2 := v.lower(score, m) // counts the entry itself if it orders below (score, m)
	switch {
	case r2 > rank+1: // up: the entries of ranks rank+1..r2-1 move down by size bytes
		copy(v.p[off:], v.p[off+size:o2])
		v.putEntry(o2-size, h, m)
		v.moveIndex(rank, r2-1, -size)
	case r2 < rank: // down: the entries of ranks r2..rank-1 move up by size bytes
		copy(v.p[o2+size:], v.p[o2:off])
		v.putEntry(o2, h, m)
		v.moveIndex(rank, r2, size)
	default:
		copy(v.p[off:], h) // in place: only the score changes
	}
}

// putEntry writes the entry of score encoding h and member m at off, over bytes of its size.
func (v smallView) putEntry(off int, h []byte, m string) {
	off += copy(v.p[off:], h)
	off += binary.PutUvarint(v.p[off:], uint64(len(m)))
	copy(v.p[off:], m)
}

// moveIndex updates the index after the entry of rank from moved to rank to, the entries
// it passed moving by shift bytes (negative: toward the start) and one rank.
func (v smallView) moveIndex(from, to, shift int) {
	if v.n == 0 {
		return
	}
	fp := v.fps()[from]
	lo, hi, d := from+1, to, -1 // ranks of the marks that move, and by how much
	if to < from {
		copy(v.fps()[to+1:from+1], v.fps()[to:from])
		lo, hi, d = to+1, from, 1
	} else {
		copy(v.fps()[from:to], v.fps()[from+1:to+1])
	}
	v.fps()[to] = fp
	v.moveMarks(lo, hi+1, d, shift, lo, 0, len(v.marks())/markSize)
}
