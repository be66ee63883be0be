package zset

import (
	"slices"
	"unsafe"
)

// A small set keeps its bytes as a pointer to the start of their buffer (Set.p), their
// length (Set.smLen) and the buffer's capacity as an index into capClasses (Set.capc),
// instead of a 24-byte slice header; a tree-encoded set keeps its *engine in Set.p, with
// Set.capc treeClass. That keeps a Set at 24 bytes. The classes are the
// allocator's size classes up to 32 KiB (so a buffer grown to the class of its need
// wastes nothing) and then steps of about 12.5%, in whole pages, up to maxSmallBytes.

// maxSmallBytes bounds the bytes of a small set's entries, as Redis's lpSafeToAdd bounds a
// listpack at 1 GiB: an entry that would take a set past it makes the set a tree.
const maxSmallBytes = 1 << 30

// capClasses are the capacities a small set's buffer may have, ascending, starting at 0:
// the first nCapClasses entries of capTable (an array, so that a uint8 indexes it without
// a bounds check).
var capClasses = capTable[:nCapClasses]

var capTable, nCapClasses = func() (t [256]uint32, n int) {
	c := []uint32{0, 8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224,
		240, 256, 288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152,
		1280, 1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144,
		6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880, 12288, 13568, 14336, 16384, 18432,
		19072, 20480, 21760, 24576, 27264, 28672, 32768}
	const page = 8192
	for last := c[len(c)-1]; last < maxSmallBytes+maxSmallBytes/8; last = c[len(c)-1] {
		c = append(c, (last+last/8+page-1)/page*page)
	}
	return [256]uint32(append(c, make([]uint32, 256-len(c))...)), len(c)
}()

// treeClass in Set.capc says that Set.p is the tree. It is past the capacity classes.
const treeClass = 255

// tree returns the tree encoding, or nil for a small set.
func (s *Set) tree() *engine {
	if s.capc != treeClass {
		return nil
	}
	// Safety: with capc treeClass, p was set from an *engine by setTree, and an
	// unsafe.Pointer converted back to the type it came from is that pointer.
	return (*engine)(s.p)
}

// setTree makes e (not nil) the set's encoding, dropping the small bytes, or with e nil
// makes the set an empty small one.
func (s *Set) setTree(e *engine) {
	s.p, s.smLen, s.n, s.capc = unsafe.Pointer(e), 0, 0, treeClass
	if e == nil {
		s.capc = 0
	}
}

// smBytes returns the small encoding's bytes, with their buffer's capacity. The set
// must be small.
func (s *Set) smBytes() []byte {
	// Safety: in a small set (capc is not treeClass) p is nil (with smLen and capc 0,
	// and unsafe.Slice(nil, 0) is nil) or points to the start of an allocation of at
	// least capTable[s.capc] bytes, as setSm recorded it from a slice of at least that
	// capacity (capClass rounds down), and smLen <= that capacity. The Set's pointer
	// keeps the allocation alive.
	return unsafe.Slice((*byte)(s.p), capTable[s.capc])[:s.smLen&^smIndexed]
}

// smIndexed is the bit of Set.smLen that says the small bytes end with an index (see
// smallindex.go); the length takes the bits below it (at most maxSmallBytes plus an
// index, under 1<<31).
const smIndexed = 1 << 31

// indexed reports whether the small bytes end with an index.
func (s *Set) indexed() bool { return s.smLen&smIndexed != 0 }

// setIndexed records whether the small bytes end with an index.
func (s *Set) setIndexed(on bool) {
	s.smLen &^= smIndexed
	if on {
		s.smLen |= smIndexed
	}
}

// setSm makes b the small encoding's bytes of a small set; the set owns them from then on.
// Whether they end with an index stays as it was (see setIndexed).
func (s *Set) setSm(b []byte) {
	c := capClass(cap(b))
	if int(capClasses[c]) < len(b) { // a capacity between two classes, not from smAlloc
		b = append(smAlloc(len(b)), b...)
		c = capClass(cap(b))
	}
	s.p, s.smLen, s.capc = unsafe.Pointer(unsafe.SliceData(b)), uint32(len(b))|s.smLen&smIndexed, uint8(c)
	if cap(b) == 0 {
		s.p = nil
	}
}

// setSmLen changes the length of the small encoding's bytes within their capacity.
func (s *Set) setSmLen(n int) { s.smLen = uint32(n) | s.smLen&smIndexed }

// smCap returns the capacity of the small encoding's buffer.
func (s *Set) smCap() int { return int(capTable[s.capc]) }

// capClass returns the index of the largest class at most c.
func capClass(c int) int {
	i, found := slices.BinarySearch(capClasses, uint32(min(uint(c), uint(maxSmallBytes)*2)))
	if !found {
		i--
	}
	return i
}

// smAlloc returns an empty buffer whose capacity is the smallest class of at least need
// bytes.
func smAlloc(need int) []byte {
	i, _ := slices.BinarySearch(capClasses, uint32(need))
	return make([]byte, 0, capClasses[i])
}
