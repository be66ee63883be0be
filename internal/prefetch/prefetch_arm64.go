package prefetch

import "unsafe"

// Line starts reading the cache line holding p into the processor's caches and
// returns without waiting for it (PRFM PLDL1KEEP). An address that cannot be read is
// ignored, as the instruction does. O(1).
//
//go:noescape
func Line(p unsafe.Pointer)

// Span starts reading the first bytes of the n at p, a buffer's contents, in one call:
// the lines of its first min(n, 256) bytes (the first line even when n is 0) and,
// when n is larger, the line of its last byte. O(1).
//
//go:noescape
func Span(p unsafe.Pointer, n uintptr)
