package zset

import (
	"encoding/binary"
	"fmt"
	"math"
)

// check verifies every structural invariant of s, in either encoding, and returns the
// first violation.
func (s *Set) check() error {
	if s.tree() == nil {
		return s.checkSmall()
	}
	if s.smLen != 0 || s.n != 0 {
		return fmt.Errorf("tree set keeps small bytes (%d, n %d)", s.smLen, s.n)
	}
	if s.tree().n == 0 && s.Limits().Entries > 0 {
		return fmt.Errorf("emptied tree kept (limits %+v)", s.Limits())
	}
	return s.tree().check()
}

// checkSmall verifies the small encoding: entries strictly in order, canonical score
// encodings (no -0, no NaN), the count, the limits and the capacity bound.
func (s *Set) checkSmall() error {
	v, lim, sm := s.small(), s.Limits(), s.smBytes()
	p := v.p
	var offs []int // of each rank, when indexed
	if s.n > idxMin && !s.indexed() || s.n <= idxDrop && s.indexed() {
		return fmt.Errorf("small set of %d entries: indexed %v", s.n, s.indexed())
	}
	if len(sm) != len(p)+trailerLen(int(s.n), s.indexed()) {
		return fmt.Errorf("small set: %d bytes for %d of entries and the index of %d", len(sm), len(p), s.n)
	}
	if (s.p == nil) != (s.capc == 0) || s.capc >= uint8(nCapClasses) {
		return fmt.Errorf("small set: buffer %p of capacity class %d", s.p, s.capc)
	}
	n := 0
	var prev Entry
	for off := 0; off < len(p); n++ {
		sc, m, next := p.entry(off)
		if v.n != 0 && n < v.n {
			if v.fps()[n] != fingerprint(m) {
				return fmt.Errorf("entry %d: fingerprint %x; want %x", n, v.fps()[n], fingerprint(m))
			}
			offs = append(offs, off)
		}
		if next > len(p) {
			return fmt.Errorf("entry %d runs past the bytes", n)
		}
		if math.IsNaN(sc) || sc == 0 && math.Signbit(sc) {
			return fmt.Errorf("entry %d: score %v stored", n, sc)
		}
		enc := appendScoreBytes(nil, sc)
		if string(p[off:off+len(enc)]) != string(enc) {
			return fmt.Errorf("entry %d: score %v encoded as %x, canonically %x", n, sc, p[off:off+len(enc)], enc)
		}
		if len(m) > lim.Value {
			return fmt.Errorf("entry %d: member of %d bytes over the limit %d", n, len(m), lim.Value)
		}
		if n > 0 && (sc < prev.Score || sc == prev.Score && m <= prev.Member) {
			return fmt.Errorf("order: (%v,%q) after (%v,%q)", sc, m, prev.Score, prev.Member)
		}
		prev = Entry{m, sc}
		off = next
	}
	if n != int(s.n) {
		return fmt.Errorf("small set holds %d entries, n = %d", n, s.n)
	}
	if v.n != 0 {
		for j := range len(v.marks()) / markSize {
			rk, off := v.mark(j)
			switch {
			case j == 0 && rk != 0, rk < markStep*j-markDrift, rk >= markStep*j+markDrift, rk >= n:
				return fmt.Errorf("mark %d at rank %d (n %d)", j, rk, n)
			case off != offs[rk]:
				return fmt.Errorf("mark %d: rank %d at offset %d; want %d", j, rk, off, offs[rk])
			}
		}
	}
	if n > lim.Entries {
		return fmt.Errorf("small set of %d entries over the limit %d", n, lim.Entries)
	}
	if cap(sm) > smallSlack && len(sm)*2 < cap(sm) {
		return fmt.Errorf("small set: %d bytes in a capacity of %d", len(sm), cap(sm))
	}
	return nil
}

// check verifies every structural invariant of the tree and returns the first violation:
// ordering, cached scores, subtree counts and smallest keys, uniform depth, node fill,
// index ⇔ tree agreement and free-list sanity.
func (e *engine) check() error {
	seen := make([]bool, e.sl.used)
	var prevSet bool
	var prevSc float64
	var prevH uint32
	visitLeaf := func(l *leaf, root bool) error {
		if l.n < 0 || l.n > leafCap {
			return fmt.Errorf("leaf size %d", l.n)
		}
		if !root && l.n < leafMin {
			return fmt.Errorf("leaf underfull: %d < %d", l.n, leafMin)
		}
		for i, h := range l.hs[:l.n] {
			if h >= e.sl.used {
				return fmt.Errorf("handle %d beyond slab (%d)", h, e.sl.used)
			}
			if seen[h] {
				return fmt.Errorf("handle %d twice in the tree", h)
			}
			seen[h] = true
			if got := e.sl.score(h); math.Float64bits(got) != math.Float64bits(l.sc[i]) {
				return fmt.Errorf("cached score %v != slab score %v", l.sc[i], got)
			}
			if math.IsNaN(l.sc[i]) {
				return fmt.Errorf("NaN stored")
			}
			if prevSet && e.cmpKey(l.sc[i], e.sl.member(h), prevSc, prevH) <= 0 {
				return fmt.Errorf("order: (%v,%q) after (%v,%q)", l.sc[i], e.sl.member(h), prevSc, e.sl.member(prevH))
			}
			prevSet, prevSc, prevH = true, l.sc[i], h
		}
		return nil
	}
	// walk returns the subtree size, its depth and its smallest key's handle.
	var walk func(x *inner, root bool) (int, int, error)
	walk = func(x *inner, root bool) (int, int, error) {
		if x.n > innerCap || (root && x.n < 2) || (!root && x.n < innerMin) {
			return 0, 0, fmt.Errorf("inner fill %d (root %v)", x.n, root)
		}
		total, depth := 0, -1
		for i := range int(x.n) {
			var size, d int
			var minH uint32
			var minSc float64
			if x.leafKids {
				if x.kids[i] != nil {
					return 0, 0, fmt.Errorf("inner kid set in a leaf-parent")
				}
				l := x.leaves[i]
				if err := visitLeaf(l, false); err != nil {
					return 0, 0, err
				}
				size, d = int(l.n), 0
				minH, minSc = l.hs[0], l.sc[0]
			} else {
				if x.leaves[i] != nil {
					return 0, 0, fmt.Errorf("leaf set in an inner-parent")
				}
				var err error
				if size, d, err = walk(x.kids[i], false); err != nil {
					return 0, 0, err
				}
				minH, minSc = x.kids[i].hs[0], x.kids[i].sc[0]
			}
			if int(x.cnt[i]) != size {
				return 0, 0, fmt.Errorf("count %d != subtree size %d", x.cnt[i], size)
			}
			if x.hs[i] != minH || math.Float64bits(x.sc[i]) != math.Float64bits(minSc) {
				return 0, 0, fmt.Errorf("stale smallest key for child %d", i)
			}
			if depth >= 0 && d != depth {
				return 0, 0, fmt.Errorf("uneven depth")
			}
			depth = d
			total += size
		}
		for i := int(x.n); i < innerCap; i++ {
			if x.kids[i] != nil || x.leaves[i] != nil {
				return 0, 0, fmt.Errorf("stale child pointer past n")
			}
		}
		return total, depth + 1, nil
	}
	total := 0
	switch {
	case e.root != nil:
		if e.leaf0 != nil {
			return fmt.Errorf("both root and leaf0 set")
		}
		var err error
		if total, _, err = walk(e.root, true); err != nil {
			return err
		}
	case e.leaf0 != nil:
		if err := visitLeaf(e.leaf0, true); err != nil {
			return err
		}
		total = int(e.leaf0.n)
	}
	if total != e.n {
		return fmt.Errorf("tree holds %d, n = %d", total, e.n)
	}
	if e.n == 0 && (e.root != nil || e.sl.capacity() > smallKeep || len(e.ix.tab) > 2*smallKeep || e.sl.used != 0) {
		return fmt.Errorf("empty set keeps storage: slab %d, index %d", e.sl.capacity(), len(e.ix.tab))
	}
	// Slab: live + free = used, free slots are not in the tree; the arena's accounting
	// matches the members.
	free := 0
	for f := e.sl.free; f != 0; {
		h := f - 1
		if h >= e.sl.used {
			return fmt.Errorf("free handle %d beyond slab", h)
		}
		if seen[h] {
			return fmt.Errorf("free handle %d in the tree", h)
		}
		if e.sl.at(h).loc&freeSlot == 0 {
			return fmt.Errorf("free slot %d not marked free", h)
		}
		free++
		if free > int(e.sl.used) {
			return fmt.Errorf("free list cycle")
		}
		f = uint32(e.sl.at(h).loc)
	}
	if free != int(e.sl.nfree) || int(e.sl.used)-free != e.n {
		return fmt.Errorf("slab: used %d, free %d (counted %d), n %d", e.sl.used, e.sl.nfree, free, e.n)
	}
	live := make([]int, len(e.sl.bytes))
	for h, in := range seen {
		if !in {
			continue
		}
		loc := e.sl.at(uint32(h)).loc
		c, off := int(loc>>32), int(uint32(loc))
		if loc&freeSlot != 0 || c >= len(e.sl.bytes) || e.sl.bytes[c] == nil || off < 4 || off >= len(e.sl.bytes[c]) {
			return fmt.Errorf("handle %d: member outside the arena", h)
		}
		n := len(e.sl.member(uint32(h)))
		if off+uvarintLen(n)+n > len(e.sl.bytes[c]) {
			return fmt.Errorf("handle %d: member runs past its chunk", h)
		}
		if owner := binary.LittleEndian.Uint32(e.sl.bytes[c][off-4:]); owner != uint32(h) {
			return fmt.Errorf("handle %d: record owned by %d", h, owner)
		}
		if n > bigMember && (c+1 == e.sl.cur || len(e.sl.bytes[c]) != 4+uvarintLen(n)+n) {
			return fmt.Errorf("big member not alone in its chunk")
		}
		live[c] += 4 + uvarintLen(n) + n
	}
	if len(e.sl.live) != len(e.sl.bytes) {
		return fmt.Errorf("arena: %d live counts for %d chunks", len(e.sl.live), len(e.sl.bytes))
	}
	for c, b := range e.sl.bytes {
		if live[c] != int(e.sl.live[c]) {
			return fmt.Errorf("arena chunk %d: live %d, counted %d", c, e.sl.live[c], live[c])
		}
		if b != nil && live[c] == 0 && c+1 != e.sl.cur {
			return fmt.Errorf("arena chunk %d empty but kept", c)
		}
	}
	spare := map[uint32]bool{}
	for _, c := range e.sl.spare {
		if spare[c] || e.sl.bytes[c] != nil {
			return fmt.Errorf("arena spare chunk %d reused or listed twice", c)
		}
		spare[c] = true
	}
	// Index ⇔ tree.
	slots := 0
	for _, v := range e.ix.tab {
		if v == 0 {
			continue
		}
		slots++
		h := uint32(v) - 1
		if !seen[h] {
			return fmt.Errorf("index holds handle %d not in the tree", h)
		}
		if v>>32 != hashOf(e.sl.member(h)) {
			return fmt.Errorf("index slot for handle %d has a wrong hash", h)
		}
	}
	if slots != e.n || e.ix.n != e.n {
		return fmt.Errorf("index holds %d (n %d), set %d", slots, e.ix.n, e.n)
	}
	if len(e.ix.tab) > 0 && e.ix.n*4 > len(e.ix.tab)*3 {
		return fmt.Errorf("index overfull")
	}
	for h, in := range seen {
		if !in {
			continue
		}
		if got, ok := e.ix.find(&e.sl, e.sl.member(uint32(h))); !ok || got != uint32(h) {
			return fmt.Errorf("index finds %d, %v for handle %d", got, ok, h)
		}
	}
	return nil
}
