package prefetch

import "unsafe"

// Line starts reading the cache line holding p into the processor's caches and
// returns without waiting for it (PRFM PLDL1KEEP). An address that cannot be read is
// ignored, as the instruction does. O(1).
//
//go:noescape
func Line(p unsafe.Pointer)
