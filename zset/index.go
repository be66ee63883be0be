package zset

import "hash/maphash"

// index maps members to handles: an open-addressing hash table with linear probing and
// backward-shift deletion (no tombstones). A slot holds handle+1 in its low 32 bits (0 =
// empty) and the member's 32-bit hash in its high bits, so probing, deleting and growing
// read a member only when the hashes match. It holds no pointers, 8 bytes per slot, and
// its load stays between 3/32 and 3/4.
type index struct {
	tab []uint64
	n   int
}

var hashSeed = maphash.MakeSeed()

func hashOf(m string) uint64 { return maphash.String(hashSeed, m) >> 32 }

// find returns the handle of member m.
func (x *index) find(sl *slab, m string) (uint32, bool) {
	if x.n == 0 {
		return 0, false
	}
	hash := hashOf(m)
	mask := uint64(len(x.tab) - 1)
	for i := hash & mask; ; i = (i + 1) & mask {
		v := x.tab[i]
		if v == 0 {
			return 0, false
		}
		if v>>32 == hash {
			if h := uint32(v) - 1; sl.member(h) == m {
				return h, true
			}
		}
	}
}

// insert adds handle h for member m, which must be absent.
func (x *index) insert(h uint32, m string) {
	if (x.n+1)*4 > len(x.tab)*3 {
		x.resize(max(8, len(x.tab)*2))
	}
	x.put(hashOf(m)<<32 | uint64(h+1))
	x.n++
}

func (x *index) put(v uint64) {
	mask := uint64(len(x.tab) - 1)
	i := v >> 32 & mask
	for x.tab[i] != 0 {
		i = (i + 1) & mask
	}
	x.tab[i] = v
}

// remove deletes member m, which must be present with handle h.
func (x *index) remove(h uint32, m string) {
	mask := uint64(len(x.tab) - 1)
	v := hashOf(m)<<32 | uint64(h+1)
	i := v >> 32 & mask
	for x.tab[i] != v {
		i = (i + 1) & mask
	}
	// Backward shift: move later members of the cluster into the hole when their home
	// slot is not between the hole and their position.
	for j := (i + 1) & mask; x.tab[j] != 0; j = (j + 1) & mask {
		home := x.tab[j] >> 32 & mask
		if (j-home)&mask >= (j-i)&mask {
			x.tab[i] = x.tab[j]
			i = j
		}
	}
	x.tab[i] = 0
	x.n--
	if len(x.tab) > 8 && x.n*32 < len(x.tab)*3 {
		x.resize(len(x.tab) / 2)
	}
}

func (x *index) resize(size int) {
	old := x.tab
	x.tab = make([]uint64, size)
	for _, v := range old {
		if v != 0 {
			x.put(v)
		}
	}
}
