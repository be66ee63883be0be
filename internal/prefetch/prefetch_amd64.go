package prefetch

import (
	"sync/atomic"
	"unsafe"
)

// Line starts reading the cache line holding the 4-byte-aligned word at p, which must
// point into memory the caller may read, and returns without waiting for it. O(1).
func Line(p unsafe.Pointer) {
	atomic.LoadUint32((*uint32)(unsafe.Pointer(uintptr(p) &^ 3)))
}
