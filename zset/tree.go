package zset

// The order-statistic B+tree of the tree encoding. Leaves hold handles and a copy of each
// entry's score, so a descent compares scores without touching the slab and reads a
// member only on equal scores. Inner nodes hold, per child, its subtree size and its
// smallest key (score and handle). Neither leaves nor handles contain pointers.
//
// Invariants (checked by engine.check in invariants_test.go after every step of the
// randomized tests):
//
//   - Order: the leaves, left to right, hold the entries in strictly increasing
//     (score, member) order; each cached score equals the slab's score for its handle.
//   - Root shape: an empty or one-leaf tree has root == nil and the leaf (possibly nil
//     or empty) in leaf0; otherwise leaf0 is nil and the root is an inner node with at
//     least 2 children (shrinkRoot removes single-child roots).
//   - Fill: a leaf other than leaf0 holds leafMin..leafCap entries; an inner node other
//     than the root holds innerMin..innerCap children. Insertion shares entries with a
//     sibling before splitting; removal merges with or borrows from a sibling (fixChild).
//   - Depth: every leaf is at the same depth; an inner node's children are all leaves
//     (leafKids, only leaves[] set) or all inner nodes (only kids[] set), and the slots
//     at and past n are nil.
//   - Counts: cnt[i] is the number of entries in child i's subtree, so ranks are found by
//     summing counts on the way down.
//   - Smallest keys: (sc[i], hs[i]) is the smallest key of child i's subtree (its
//     leftmost leaf's first entry), kept up to date by refresh after every change to
//     the child; descents pick the last child whose smallest key is <= the key sought.
//   - Size: n in the engine equals the root's total count (or leaf0's length), and
//     equals the number of live slab slots and index entries.

const (
	leafCap  = 84 // 8 + 84*12 = 1016 bytes: the 1024-byte size class
	leafMin  = leafCap / 4
	innerCap = 63 // 8 + 63*32 = 2024 bytes + 8-byte header: the 2048-byte size class
	innerMin = innerCap / 4
	maxDepth = 24
)

type leaf struct {
	n  int32
	hs [leafCap]uint32
	sc [leafCap]float64
}

type inner struct {
	n        int32
	leafKids bool
	cnt      [innerCap]uint32
	hs       [innerCap]uint32 // smallest key of each child: handle
	sc       [innerCap]float64
	kids     [innerCap]*inner // children when !leafKids
	leaves   [innerCap]*leaf  // children when leafKids
}

// cmpKey compares the key (score, m) with the entry (sc, h).
func (e *engine) cmpKey(score float64, m string, sc float64, h uint32) int {
	switch {
	case score < sc:
		return -1
	case score > sc:
		return 1
	}
	o := e.sl.member(h)
	switch {
	case m < o:
		return -1
	case m > o:
		return 1
	}
	return 0
}

// leafLower returns the first position in l whose key is >= (score, m).
func (e *engine) leafLower(l *leaf, score float64, m string) int {
	lo, hi := 0, int(l.n)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if e.cmpKey(score, m, l.sc[mid], l.hs[mid]) > 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// childFor returns the child of x whose range holds (score, m): the last child whose
// smallest key is <= the key, or 0.
func (e *engine) childFor(x *inner, score float64, m string) int {
	lo, hi := 1, int(x.n)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if e.cmpKey(score, m, x.sc[mid], x.hs[mid]) >= 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo - 1
}

// refresh recomputes child i's smallest key.
func (x *inner) refresh(i int) {
	if x.leafKids {
		l := x.leaves[i]
		x.hs[i], x.sc[i] = l.hs[0], l.sc[0]
	} else {
		k := x.kids[i]
		x.hs[i], x.sc[i] = k.hs[0], k.sc[0]
	}
}

// size returns the number of entries in x's subtree, the sum of its children's counts.
func (x *inner) size() int {
	t := 0
	for _, c := range x.cnt[:x.n] {
		t += int(c)
	}
	return t
}

// insertChild inserts a child at position at, splitting x when it is full; it returns the
// new right sibling or nil.
func (x *inner) insertChild(at int, k *inner, l *leaf, cnt int) *inner {
	if x.n < innerCap {
		x.openAt(at, k, l, cnt)
		return nil
	}
	y := &inner{leafKids: x.leafKids}
	half := int(x.n) / 2
	moveInner(y, 0, x, half, int(x.n)-half)
	if at <= half {
		x.openAt(at, k, l, cnt)
	} else {
		y.openAt(at-half, k, l, cnt)
	}
	return y
}

// openAt inserts child k (or leaf l, when x has leaf children) with cnt entries at
// position at, shifting the later children right; x must have room.
func (x *inner) openAt(at int, k *inner, l *leaf, cnt int) {
	n := int(x.n)
	copy(x.cnt[at+1:n+1], x.cnt[at:n])
	copy(x.hs[at+1:n+1], x.hs[at:n])
	copy(x.sc[at+1:n+1], x.sc[at:n])
	x.cnt[at] = uint32(cnt)
	if x.leafKids {
		copy(x.leaves[at+1:n+1], x.leaves[at:n])
		x.leaves[at] = l
	} else {
		copy(x.kids[at+1:n+1], x.kids[at:n])
		x.kids[at] = k
	}
	x.n++
	x.refresh(at)
}

// removeChild deletes child at from x.
func (x *inner) removeChild(at int) {
	n := int(x.n)
	copy(x.cnt[at:], x.cnt[at+1:n])
	copy(x.hs[at:], x.hs[at+1:n])
	copy(x.sc[at:], x.sc[at+1:n])
	if x.leafKids {
		copy(x.leaves[at:], x.leaves[at+1:n])
		x.leaves[n-1] = nil
	} else {
		copy(x.kids[at:], x.kids[at+1:n])
		x.kids[n-1] = nil
	}
	x.n--
}

// moveInner moves k children starting at src[from] to the end of dst... at position to,
// which must be dst.n (appending) or 0 (prepending).
func moveInner(dst *inner, to int, src *inner, from, k int) {
	dn, sn := int(dst.n), int(src.n)
	if to == 0 && dn > 0 {
		copy(dst.cnt[k:dn+k], dst.cnt[:dn])
		copy(dst.hs[k:dn+k], dst.hs[:dn])
		copy(dst.sc[k:dn+k], dst.sc[:dn])
		copy(dst.kids[k:dn+k], dst.kids[:dn])
		copy(dst.leaves[k:dn+k], dst.leaves[:dn])
	}
	copy(dst.cnt[to:to+k], src.cnt[from:from+k])
	copy(dst.hs[to:to+k], src.hs[from:from+k])
	copy(dst.sc[to:to+k], src.sc[from:from+k])
	copy(dst.kids[to:to+k], src.kids[from:from+k])
	copy(dst.leaves[to:to+k], src.leaves[from:from+k])
	// Close the gap in src.
	copy(src.cnt[from:], src.cnt[from+k:sn])
	copy(src.hs[from:], src.hs[from+k:sn])
	copy(src.sc[from:], src.sc[from+k:sn])
	copy(src.kids[from:], src.kids[from+k:sn])
	copy(src.leaves[from:], src.leaves[from+k:sn])
	clear(src.kids[sn-k : sn])
	clear(src.leaves[sn-k : sn])
	dst.n += int32(k)
	src.n -= int32(k)
}

// spread rewrites leaves a and b (b may be empty) with their entries in order, plus
// (h, score) inserted at position p of the concatenation when p >= 0, giving a the first
// na entries.
func spread(a, b *leaf, p int, h uint32, score float64, na int) {
	var th [2*leafCap + 1]uint32
	var ts [2*leafCap + 1]float64
	t := 0
	t += copy(th[t:], a.hs[:a.n])
	copy(ts[:], a.sc[:a.n])
	t += copy(th[t:], b.hs[:b.n])
	copy(ts[a.n:], b.sc[:b.n])
	if p >= 0 {
		copy(th[p+1:t+1], th[p:t])
		copy(ts[p+1:t+1], ts[p:t])
		th[p], ts[p] = h, score
		t++
	}
	copy(a.hs[:], th[:na])
	copy(a.sc[:], ts[:na])
	a.n = int32(na)
	copy(b.hs[:], th[na:t])
	copy(b.sc[:], ts[na:t])
	b.n = int32(t - na)
}

// treeInsert adds handle h with key (score, m), which must be absent from the tree.
func (e *engine) treeInsert(h uint32, score float64, m string) {
	if e.root == nil {
		l := e.leaf0
		if l == nil {
			l = new(leaf)
			e.leaf0 = l
		}
		if l.n < leafCap {
			leafInsertAt(l, e.leafLower(l, score, m), h, score)
			return
		}
		r := &inner{leafKids: true}
		r.openAt(0, nil, l, int(l.n))
		e.root, e.leaf0 = r, nil
	}
	if y := e.ins(e.root, h, score, m); y != nil {
		r := &inner{}
		r.openAt(0, e.root, nil, e.root.size())
		r.openAt(1, y, nil, y.size())
		e.root = r
	}
}

// leafInsertAt inserts (h, score) at position pos of l, which must have room.
func leafInsertAt(l *leaf, pos int, h uint32, score float64) {
	n := int(l.n)
	copy(l.hs[pos+1:n+1], l.hs[pos:n])
	copy(l.sc[pos+1:n+1], l.sc[pos:n])
	l.hs[pos], l.sc[pos] = h, score
	l.n++
}

// ins inserts into the subtree x and returns x's new right sibling if x split.
func (e *engine) ins(x *inner, h uint32, score float64, m string) *inner {
	i := e.childFor(x, score, m)
	if !x.leafKids {
		y := e.ins(x.kids[i], h, score, m)
		x.cnt[i]++
		x.refresh(i)
		if y != nil {
			x.cnt[i] = uint32(x.kids[i].size())
			return x.insertChild(i+1, y, nil, y.size())
		}
		return nil
	}
	l := x.leaves[i]
	pos := e.leafLower(l, score, m)
	if l.n < leafCap {
		leafInsertAt(l, pos, h, score)
		x.cnt[i]++
		x.refresh(i)
		return nil
	}
	// Full: share with a sibling that has room before splitting, which keeps leaves
	// about 85% full instead of 70%.
	if i > 0 && x.leaves[i-1].n < leafCap {
		a := x.leaves[i-1]
		t := int(a.n) + int(l.n) + 1
		spread(a, l, int(a.n)+pos, h, score, t/2)
		x.cnt[i-1], x.cnt[i] = uint32(a.n), uint32(l.n)
		x.refresh(i - 1)
		x.refresh(i)
		return nil
	}
	if i+1 < int(x.n) && x.leaves[i+1].n < leafCap {
		b := x.leaves[i+1]
		t := int(l.n) + int(b.n) + 1
		spread(l, b, pos, h, score, t/2)
		x.cnt[i], x.cnt[i+1] = uint32(l.n), uint32(b.n)
		x.refresh(i)
		x.refresh(i + 1)
		return nil
	}
	b := new(leaf)
	spread(l, b, pos, h, score, (leafCap+1)/2)
	x.cnt[i] = uint32(l.n)
	x.refresh(i)
	return x.insertChild(i+1, nil, b, int(b.n))
}

// treeDelete removes the entry with key (score, m), which must be present.
func (e *engine) treeDelete(score float64, m string) {
	e.treeRescore(score, m, score, false)
}

// treeRescore finds the entry with key (old, m), which must be present. When rescore is
// set and the key (score, m) belongs at the same place (strictly inside its leaf), it
// changes the cached score in place and returns true; otherwise it removes the entry and
// returns false.
func (e *engine) treeRescore(old float64, m string, score float64, rescore bool) bool {
	if e.root == nil {
		return e.leafRescore(e.leaf0, old, m, score, rescore)
	}
	done := e.del(e.root, old, m, score, rescore)
	e.shrinkRoot()
	return done
}

// leafRescore is treeRescore within leaf l.
func (e *engine) leafRescore(l *leaf, old float64, m string, score float64, rescore bool) bool {
	pos := e.leafLower(l, old, m)
	if rescore && pos > 0 && pos+1 < int(l.n) &&
		e.cmpKey(score, m, l.sc[pos-1], l.hs[pos-1]) > 0 && e.cmpKey(score, m, l.sc[pos+1], l.hs[pos+1]) < 0 {
		l.sc[pos] = score
		return true
	}
	leafRemove(l, pos, 1)
	return false
}

// leafRemove removes the k entries at positions pos.. of l.
func leafRemove(l *leaf, pos, k int) {
	n := int(l.n)
	copy(l.hs[pos:], l.hs[pos+k:n])
	copy(l.sc[pos:], l.sc[pos+k:n])
	l.n -= int32(k)
}

// del is treeRescore within the subtree x: it descends to the leaf holding (old, m),
// rescores or removes the entry there, and on the way back up fixes the counts, smallest
// keys and fill of the children it passed. It returns true when the entry was rescored
// in place (then nothing above the leaf changed).
func (e *engine) del(x *inner, old float64, m string, score float64, rescore bool) bool {
	i := e.childFor(x, old, m)
	var done bool
	if x.leafKids {
		done = e.leafRescore(x.leaves[i], old, m, score, rescore)
	} else {
		done = e.del(x.kids[i], old, m, score, rescore)
	}
	if done {
		return true // the entry was not first in its leaf: no smallest key changed
	}
	x.cnt[i]--
	e.fixChild(x, i)
	return false
}

// delRank removes up to k entries from rank r onwards, within the leaf holding rank r,
// passing each removed handle to drop; it returns how many it removed.
func (e *engine) delRank(r, k int, drop func(uint32)) int {
	if e.root == nil {
		return leafRemoveRun(e.leaf0, r, k, drop)
	}
	got := e.delRankIn(e.root, r, k, drop)
	e.shrinkRoot()
	return got
}

// leafRemoveRun removes up to k entries from position pos of l, passing each handle to
// drop first, and returns how many it removed (at most the rest of the leaf).
func leafRemoveRun(l *leaf, pos, k int, drop func(uint32)) int {
	k = min(k, int(l.n)-pos)
	for _, h := range l.hs[pos : pos+k] {
		drop(h)
	}
	leafRemove(l, pos, k)
	return k
}

// delRankIn is delRank within the subtree x: it descends by counts to the leaf holding
// rank r, removes up to k entries there, and fixes counts, smallest keys and fill on the
// way back up. It returns how many it removed.
func (e *engine) delRankIn(x *inner, r, k int, drop func(uint32)) int {
	i := 0
	for ; r >= int(x.cnt[i]); i++ {
		r -= int(x.cnt[i])
	}
	var got int
	if x.leafKids {
		got = leafRemoveRun(x.leaves[i], r, k, drop)
	} else {
		got = e.delRankIn(x.kids[i], r, k, drop)
	}
	x.cnt[i] -= uint32(got)
	e.fixChild(x, i)
	return got
}

// fixChild restores child i's smallest key and minimum fill after a removal, merging it
// with or borrowing from a sibling.
func (e *engine) fixChild(x *inner, i int) {
	if x.leafKids {
		// x has a sibling for every child: a non-root inner node has at least innerMin
		// children and the root at least two (shrinkRoot).
		if x.leaves[i].n >= leafMin {
			x.refresh(i)
			return
		}
		j := i + 1 // sibling: a is the left of the pair, b the right
		if i > 0 {
			j = i - 1
		}
		ai := min(i, j)
		a, b := x.leaves[ai], x.leaves[ai+1]
		if t := int(a.n) + int(b.n); t <= leafCap {
			spread(a, b, -1, 0, 0, t)
			x.cnt[ai] = uint32(t)
			x.refresh(ai)
			x.removeChild(ai + 1)
			return
		}
		spread(a, b, -1, 0, 0, (int(a.n)+int(b.n))/2)
		x.cnt[ai], x.cnt[ai+1] = uint32(a.n), uint32(b.n)
		x.refresh(ai)
		x.refresh(ai + 1)
		return
	}
	if x.kids[i].n >= innerMin {
		x.refresh(i)
		return
	}
	j := i + 1
	if i > 0 {
		j = i - 1
	}
	ai := min(i, j)
	a, b := x.kids[ai], x.kids[ai+1]
	if int(a.n)+int(b.n) <= innerCap {
		moveInner(a, int(a.n), b, 0, int(b.n))
		x.cnt[ai] += x.cnt[ai+1]
		x.refresh(ai)
		x.removeChild(ai + 1)
		return
	}
	// Borrow: even out the two.
	if a.n < b.n {
		moveInner(a, int(a.n), b, 0, int(b.n-a.n)/2)
	} else {
		moveInner(b, 0, a, int(a.n)-int(a.n-b.n)/2, int(a.n-b.n)/2)
	}
	x.cnt[ai], x.cnt[ai+1] = uint32(a.size()), uint32(b.size())
	x.refresh(ai)
	x.refresh(ai + 1)
}

// shrinkRoot drops root levels with a single child.
func (e *engine) shrinkRoot() {
	for e.root != nil && e.root.n <= 1 {
		r := e.root
		switch {
		case r.leafKids: // r.n == 0 leaves both nil
			e.root, e.leaf0 = nil, r.leaves[0]
		default:
			e.root = r.kids[0]
		}
	}
}

// countBelow returns the number of entries for which below is true; below must hold for
// a prefix of the order (for lexicographic bounds over mixed scores it need not, and the
// result is then some consistent cut, as in Redis).
func (e *engine) countBelow(below func(sc float64, h uint32) bool) int {
	return e.descendBelow(nil, below)
}

// leafCountBelow returns the number of entries of l for which below is true, by binary
// search (below must hold for a prefix of the leaf).
func leafCountBelow(l *leaf, below func(sc float64, h uint32) bool) int {
	lo, hi := 0, int(l.n)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if below(l.sc[mid], l.hs[mid]) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// rankOf returns the number of entries ordered before (score, m).
func (e *engine) rankOf(m string, score float64) int {
	return e.rankIn(m, score, 0, false)
}

// rankOfHandle returns the rank of the present entry h with key (score, m). In the leaf
// it looks for h by a sequential scan of the handles, which streams through the cache
// instead of probing it at random.
func (e *engine) rankOfHandle(h uint32, m string, score float64) int {
	return e.rankIn(m, score, h, true)
}

// rankIn returns the rank of the key (score, m): the entries before it in the tree.
// With byHandle, the entry is present with handle h and is found in its leaf by a scan
// of the handles rather than by comparing keys.
func (e *engine) rankIn(m string, score float64, h uint32, byHandle bool) int {
	t := 0
	l := e.leaf0
	if x := e.root; x != nil {
		for {
			i := e.childFor(x, score, m)
			for _, c := range x.cnt[:i] {
				t += int(c)
			}
			if x.leafKids {
				l = x.leaves[i]
				break
			}
			x = x.kids[i]
		}
	}
	if l == nil {
		return 0
	}
	if byHandle {
		for i, x := range l.hs[:l.n] {
			if x == h {
				return t + i
			}
		}
	}
	return t + e.leafLower(l, score, m)
}

// frame is one inner node on a cursor's path and the child index taken.
type frame struct {
	x *inner
	i int
}

// cursor is a position in the tree: a leaf, an index in it and the path to it.
type cursor struct {
	path  [maxDepth]frame
	depth int
	l     *leaf
	i     int
}

// seek positions c at rank r, 0 <= r < n.
func (e *engine) seek(c *cursor, r int) {
	c.depth = 0
	x := e.root
	if x == nil {
		c.l, c.i = e.leaf0, r
		return
	}
	for {
		i := 0
		for ; r >= int(x.cnt[i]); i++ {
			r -= int(x.cnt[i])
		}
		c.path[c.depth] = frame{x, i}
		c.depth++
		if x.leafKids {
			c.l, c.i = x.leaves[i], r
			return
		}
		x = x.kids[i]
	}
}

// next advances c and reports whether it is still on an entry.
func (c *cursor) next() bool {
	c.i++
	if c.i < int(c.l.n) {
		return true
	}
	d := c.depth - 1
	for ; d >= 0 && c.path[d].i+1 >= int(c.path[d].x.n); d-- {
	}
	if d < 0 {
		return false
	}
	c.path[d].i++
	for {
		f := c.path[d]
		if f.x.leafKids {
			c.l, c.i = f.x.leaves[f.i], 0
			return true
		}
		d++
		c.path[d] = frame{f.x.kids[f.i], 0}
	}
}

// prev moves c back and reports whether it is still on an entry.
func (c *cursor) prev() bool {
	c.i--
	if c.i >= 0 {
		return true
	}
	d := c.depth - 1
	for ; d >= 0 && c.path[d].i == 0; d-- {
	}
	if d < 0 {
		return false
	}
	c.path[d].i--
	for {
		f := c.path[d]
		if f.x.leafKids {
			c.l = f.x.leaves[f.i]
			c.i = int(c.l.n) - 1
			return true
		}
		d++
		k := f.x.kids[f.i]
		c.path[d] = frame{k, int(k.n) - 1}
	}
}

// cloneInner deep-copies a subtree.
func cloneInner(x *inner) *inner {
	y := *x
	for i := range int(x.n) {
		if x.leafKids {
			l := *x.leaves[i]
			y.leaves[i] = &l
		} else {
			y.kids[i] = cloneInner(x.kids[i])
		}
	}
	return &y
}

// eachLeaf calls fn for every leaf in order, and then lets refresh rebuild the smallest
// keys bottom-up (used when handles are renumbered).
func (e *engine) eachLeaf(fn func(*leaf)) {
	if e.root == nil {
		if e.leaf0 != nil {
			fn(e.leaf0)
		}
		return
	}
	var walk func(x *inner)
	walk = func(x *inner) {
		for i := range int(x.n) {
			if x.leafKids {
				fn(x.leaves[i])
			} else {
				walk(x.kids[i])
			}
			x.refresh(i)
		}
	}
	walk(e.root)
}

// seekBelow positions c at the first entry for which below is false and returns its rank
// (n when there is none; c is then not on an entry).
func (e *engine) seekBelow(c *cursor, below func(sc float64, h uint32) bool) int {
	t := e.descendBelow(c, below)
	if c.l != nil && c.i == int(c.l.n) && c.i > 0 {
		c.i--
		c.next() // from past the end of a leaf to the next leaf's first entry
	}
	return t
}

// descendBelow is the one descent of countBelow and seekBelow: it finds the number of
// entries for which below is true, binary-searching the smallest keys of each inner
// node and then the leaf, and leaves c (unless nil) at that position (c.l nil for an
// empty tree; c.i may be c.l.n, one past the leaf's last entry).
func (e *engine) descendBelow(c *cursor, below func(sc float64, h uint32) bool) int {
	x := e.root
	if x == nil {
		n := 0
		if e.leaf0 != nil {
			n = leafCountBelow(e.leaf0, below)
		}
		if c != nil {
			c.depth, c.l, c.i = 0, e.leaf0, n
		}
		return n
	}
	if c != nil {
		c.depth = 0
	}
	t := 0
	for {
		lo, hi := 1, int(x.n)
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if below(x.sc[mid], x.hs[mid]) {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		i := lo - 1
		for _, cnt := range x.cnt[:i] {
			t += int(cnt)
		}
		if c != nil {
			c.path[c.depth] = frame{x, i}
			c.depth++
		}
		if x.leafKids {
			n := leafCountBelow(x.leaves[i], below)
			if c != nil {
				c.l, c.i = x.leaves[i], n
			}
			return t + n
		}
		x = x.kids[i]
	}
}
