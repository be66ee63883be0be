package zset

import "github.com/zlite/zlite/internal/prefetch"

// Prefetch starts reading the set's header and contents into the processor's cache
// and returns without waiting for them, for a caller that has the set's address
// before it needs the set (a keyspace that still compares the key's name), so that
// the reads overlap. It changes nothing. A small set has its first 256 bytes and its
// last 64 (where a set of more than 8 entries keeps its index) read; a tree nothing
// more. Only the header is read on architectures other than amd64 and arm64 (see
// internal/prefetch). O(1).
func (s *Set) Prefetch() {
	// A tree's lookup reads its header first thing: reading it here would save little
	// and cost a call. Within the inlining budget, so that a caller pays one call.
	if s.p != nil && s.capc != treeClass {
		prefetch.Span(s.p, uintptr(s.smLen&^smIndexed))
	}
}
