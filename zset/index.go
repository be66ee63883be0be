package zset

import "hash/maphash"

// index maps members to handles: an open-addressing hash table with linear probing and
// backward-shift deletion (no tombstones) whose slots hold handle+1 (0 = empty). It holds
// no pointers and 4 bytes per slot; the load stays between 3/32 and 3/4.
type index struct {
	tab []uint32
	n   int
}

var hashSeed = maphash.MakeSeed()

func hashOf(m string) uint64 { return maphash.String(hashSeed, m) }

// find returns the handle of member m.
func (x *index) find(sl *slab, m string) (uint32, bool) {
	if x.n == 0 {
		return 0, false
	}
	mask := uint64(len(x.tab) - 1)
	for i := hashOf(m) & mask; ; i = (i + 1) & mask {
		v := x.tab[i]
		if v == 0 {
			return 0, false
		}
		if sl.member(v-1) == m {
			return v - 1, true
		}
	}
}

// insert adds handle h for member m, which must be absent.
func (x *index) insert(sl *slab, h uint32, m string) {
	if (x.n+1)*4 > len(x.tab)*3 {
		x.resize(sl, max(8, len(x.tab)*2))
	}
	x.put(h, m)
	x.n++
}

func (x *index) put(h uint32, m string) {
	mask := uint64(len(x.tab) - 1)
	i := hashOf(m) & mask
	for x.tab[i] != 0 {
		i = (i + 1) & mask
	}
	x.tab[i] = h + 1
}

// remove deletes member m, which must be present with handle h.
func (x *index) remove(sl *slab, h uint32, m string) {
	mask := uint64(len(x.tab) - 1)
	i := hashOf(m) & mask
	for x.tab[i] != h+1 {
		i = (i + 1) & mask
	}
	// Backward shift: move later members of the cluster into the hole when their home
	// slot is not between the hole and their position.
	for j := (i + 1) & mask; x.tab[j] != 0; j = (j + 1) & mask {
		home := hashOf(sl.member(x.tab[j]-1)) & mask
		if (j-home)&mask >= (j-i)&mask {
			x.tab[i] = x.tab[j]
			i = j
		}
	}
	x.tab[i] = 0
	x.n--
	if len(x.tab) > 8 && x.n*32 < len(x.tab)*3 {
		x.resize(sl, len(x.tab)/2)
	}
}

func (x *index) resize(sl *slab, size int) {
	old := x.tab
	x.tab = make([]uint32, size)
	for _, v := range old {
		if v != 0 {
			x.put(v-1, sl.member(v-1))
		}
	}
}
