package list

import (
	"unsafe"

	"github.com/zlite/zlite/internal/prefetch"
)

// Prefetch starts reading the list's header and the bytes at both of its ends into
// the processor's cache and returns without waiting for them, for a caller that has
// the list's address before it needs the list (a keyspace that still compares the
// key's name), so that the reads overlap. It changes nothing. Only the header is
// read on architectures other than amd64 and arm64 (see internal/prefetch). O(1).
func (l *List) Prefetch() {
	if l.n == 0 {
		return
	}
	// A non-empty list has a non-empty page, whose buffer holds its items at
	// [lo, hi), and may keep one emptied page at each end (see fixFront, fixBack).
	first, last := &l.arr[l.a], &l.arr[l.b-1]
	if first.n == 0 {
		first = &l.arr[l.a+1]
	}
	if last.n == 0 {
		last = &l.arr[l.b-2]
	}
	prefetch.Line(unsafe.Add(unsafe.Pointer(first.ptr), first.lo))
	prefetch.Line(unsafe.Add(unsafe.Pointer(last.ptr), last.hi-1))
}
