package zset

import "unsafe"

// engine is the storage behind Set: the B+tree of handles (tree.go), the slab of entries
// (slab.go) and the member index (index.go).
type engine struct {
	root  *inner // nil while the tree is the single leaf leaf0
	leaf0 *leaf
	sl    slab
	ix    index
	n     int
}

// lookup returns member m's score.
func (e *engine) lookup(m string) (float64, bool) {
	h, ok := e.ix.find(&e.sl, m)
	if !ok {
		return 0, false
	}
	return e.sl.score(h), true
}

// find returns member m's handle.
func (e *engine) find(m string) (uint32, bool) { return e.ix.find(&e.sl, m) }

// insert adds member m, which must be absent.
func (e *engine) insert(m string, score float64) {
	h := e.sl.alloc(m, score)
	e.ix.insert(h, m)
	e.treeInsert(h, score, m)
	e.n++
}

// update changes the score of the entry with handle h.
func (e *engine) update(h uint32, score float64) {
	p := e.sl.at(h)
	old := p.sc
	p.sc = score
	m := e.sl.member(h)
	if !e.treeRescore(old, m, score, true) {
		e.treeInsert(h, score, m)
	}
}

// delete removes the entry with handle h.
func (e *engine) delete(h uint32) {
	e.treeDelete(e.sl.score(h), e.sl.member(h))
	e.drop(h)
	e.n--
	e.compact()
}

// pop removes and returns the entry at rank r.
func (e *engine) pop(r int) Entry {
	var out Entry
	e.delRank(r, 1, func(h uint32) {
		out = Entry{Member: e.sl.own(h), Score: e.sl.score(h)}
		e.drop(h)
	})
	e.n--
	e.compact()
	return out
}

// drop removes handle h from the index and frees its slot.
func (e *engine) drop(h uint32) {
	e.ix.remove(h, e.sl.member(h))
	e.sl.release(h)
}

// deleteRange removes the entries at ranks [lo, hi).
func (e *engine) deleteRange(lo, hi int) {
	if lo >= hi {
		return
	}
	for k := hi - lo; k > 0; {
		k -= e.delRank(lo, k, e.drop)
	}
	e.n -= hi - lo
	e.compact()
}

// compact releases storage after deletions. An emptied set drops everything, except a
// small one, which keeps its (cleared) leaf, slot chunk, arena chunk and table so that a
// queue drained after every push refills without allocating. Otherwise, when less than a
// quarter of the slots are in use, the slab is rebuilt: handles renumbered in key order,
// members copied into fresh chunks. That is O(n) and happens only after the set has
// shrunk fourfold.
func (e *engine) compact() {
	if e.n == 0 {
		if e.root == nil && e.sl.capacity() <= smallKeep && len(e.ix.tab) <= 2*smallKeep &&
			len(e.sl.bytes) == 1 && cap(e.sl.bytes[0]) <= smallKeepBytes {
			// The kept arena chunk is refilled from offset 0: any member view into it
			// (slab.viewAt) taken before this point now reads other bytes. That is why
			// views never outlive a change to the set and results are copies.
			s := &e.sl
			*s = slab{slots: append(s.slots[:0], s.slots[0][:0]), bytes: append(s.bytes[:0], s.bytes[0][:0]),
				live: append(s.live[:0], 0), cur: 1}
			clear(e.ix.tab)
			return
		}
		*e = engine{}
		return
	}
	if c := e.sl.capacity(); c <= slabChunk || e.n*4 >= c {
		return
	}
	old := e.sl
	e.sl = slab{}
	e.eachLeaf(func(l *leaf) {
		for i, h := range l.hs[:l.n] {
			l.hs[i] = e.sl.alloc(old.member(h), l.sc[i])
		}
	})
	e.ix = index{tab: make([]uint64, indexSize(e.n)), n: e.n}
	for h := range e.sl.used {
		e.ix.put(hashOf(e.sl.member(h))<<32 | uint64(h+1))
	}
}

// smallKeep and smallKeepBytes bound the slots and arena bytes an emptied set keeps.
const (
	smallKeep      = 128
	smallKeepBytes = 4 << 10
)

// indexSize returns the table size for n members: a power of two at most 3/4 full.
func indexSize(n int) int {
	size := 8
	for size*3 < n*4 {
		size *= 2
	}
	return size
}

// at returns the entry at rank i, 0 <= i < n.
func (e *engine) at(i int) Entry {
	var c cursor
	e.seek(&c, i)
	return Entry{Member: e.sl.own(c.l.hs[c.i]), Score: c.l.sc[c.i]}
}

// countScoreBelow returns the number of entries with a score below f (at most f when
// orEqual).
func (e *engine) countScoreBelow(f float64, orEqual bool) int {
	if orEqual {
		return e.countBelow(func(sc float64, _ uint32) bool { return sc <= f })
	}
	return e.countBelow(func(sc float64, _ uint32) bool { return sc < f })
}

// countLexBelow returns the number of entries with a member below m (at most m when
// orEqual), assuming the members are sorted.
func (e *engine) countLexBelow(m string, orEqual bool) int {
	if orEqual {
		return e.countBelow(func(_ float64, h uint32) bool { return e.sl.member(h) <= m })
	}
	return e.countBelow(func(_ float64, h uint32) bool { return e.sl.member(h) < m })
}

// span returns up to count entries (all when count < 0) from the cursor, which is at
// rank start, upwards (downwards when reverse) while in accepts them (nil: all). The
// members are copied out in batches (see slab.copyOut).
func (e *engine) span(c *cursor, start, count int, reverse bool, in func(sc float64, h uint32) bool) []Entry {
	if start < 0 || start >= e.n || count == 0 {
		return nil
	}
	avail := e.n - start
	if reverse {
		avail = start + 1
	}
	if count > 0 {
		avail = min(avail, count)
	}
	// A rank range holds avail entries; a score or lex range (in) may hold few of
	// them, so it starts small rather than at a size the set's length chooses.
	capacity := min(avail, 1024)
	if in != nil {
		capacity = min(avail, 16)
	}
	out := make([]Entry, 0, capacity)
	var hs [viewBatch]uint32
	nb := 0
	for {
		h, sc := c.l.hs[c.i], c.l.sc[c.i]
		if in != nil && !in(sc, h) {
			break
		}
		out = append(out, Entry{Score: sc})
		hs[nb] = h
		if nb++; nb == viewBatch {
			e.sl.copyOut(hs[:nb], out[len(out)-nb:])
			nb = 0
		}
		if len(out) == count || reverse && !c.prev() || !reverse && !c.next() {
			break
		}
	}
	e.sl.copyOut(hs[:nb], out[len(out)-nb:])
	return out
}

// collect returns the entries at ranks [lo, hi), ascending or descending.
func (e *engine) collect(lo, hi int, reverse bool) []Entry {
	if lo >= hi {
		return nil
	}
	var c cursor
	if reverse {
		e.seek(&c, hi-1)
		return e.span(&c, hi-1, hi-lo, true, nil)
	}
	e.seek(&c, lo)
	return e.span(&c, lo, hi-lo, false, nil)
}

// rangeUp returns up to count entries (all when count < 0) from rank start upwards while
// in accepts them; c is positioned at start.
func (e *engine) rangeUp(c *cursor, start, count int, in func(sc float64, h uint32) bool) []Entry {
	return e.span(c, start, count, false, in)
}

// walk yields entries from rank pos upwards (downwards when reverse) while in accepts
// them, until done or until *mods moves (the loop body changed the set); then it returns
// the last entry yielded, so that the caller finds its place again by key (Set.walk).
func (e *engine) walk(reverse bool, pos int, in func(string, float64) bool, yield func(string, float64) bool, mods *uint32) (m string, f float64, done bool) {
	if pos < 0 || pos >= e.n {
		return "", 0, true
	}
	var c cursor
	e.seek(&c, pos)
	before := *mods
	for {
		m, f := e.sl.own(c.l.hs[c.i]), c.l.sc[c.i]
		if !in(m, f) || !yield(m, f) {
			return "", 0, true
		}
		if *mods != before {
			return m, f, false
		}
		if reverse && !c.prev() || !reverse && !c.next() {
			return "", 0, true
		}
	}
}

// clone returns an independent copy of the engine. The complexity is O(n).
func (e *engine) clone() engine {
	c := *e
	c.sl = e.sl.clone()
	c.ix.tab = append([]uint64(nil), e.ix.tab...)
	if e.root != nil {
		c.root = cloneInner(e.root)
	}
	if e.leaf0 != nil {
		l := *e.leaf0
		c.leaf0 = &l
	}
	return c
}

// memoryUsage returns the bytes of heap the engine holds, by capacity: the engine itself,
// the tree's nodes, the slot chunks, the arena chunks and the index. The complexity is
// O(number of nodes).
func (e *engine) memoryUsage() int {
	size := int(unsafe.Sizeof(*e))
	if e.leaf0 != nil {
		size += int(unsafe.Sizeof(leaf{}))
	}
	if e.root != nil {
		var walk func(x *inner)
		walk = func(x *inner) {
			size += int(unsafe.Sizeof(inner{})) + 8 // 8: the allocation header of an object with pointers over 512 bytes
			for i := range int(x.n) {
				if x.leafKids {
					size += int(unsafe.Sizeof(leaf{}))
				} else {
					walk(x.kids[i])
				}
			}
		}
		walk(e.root)
	}
	sl := &e.sl
	size += cap(sl.slots)*int(unsafe.Sizeof([]slot{})) + cap(sl.bytes)*int(unsafe.Sizeof([]byte{}))
	for _, c := range sl.slots {
		size += cap(c) * int(unsafe.Sizeof(slot{}))
	}
	for _, b := range sl.bytes {
		size += cap(b)
	}
	size += 4*cap(sl.live) + 4*cap(sl.spare) + 8*cap(e.ix.tab)
	return size
}
