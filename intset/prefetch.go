package intset

import (
	"unsafe"

	"github.com/zlite/zlite/internal/prefetch"
)

// Prefetch starts reading the set's members into the processor's cache and returns
// without waiting for them, for a caller that has the set's address before it needs
// the set (a keyspace that still compares the key's name), so that the reads
// overlap. It changes nothing. The buffer's first 256 bytes and its last byte, where
// a search starts, are read; nothing more on architectures other than amd64 and
// arm64 (see internal/prefetch). The complexity is O(1).
func (s *Set) Prefetch() {
	if len(s.b) != 0 {
		prefetch.Span(unsafe.Pointer(unsafe.SliceData(s.b)), uintptr(len(s.b)))
	}
}
