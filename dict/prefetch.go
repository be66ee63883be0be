package dict

import "github.com/zlite/zlite/internal/prefetch"

// Prefetch starts reading the map's contents into the processor's cache and returns
// without waiting for them, for a caller that has the map's address before it needs
// the map (a keyspace that still compares the key's name), so that the reads
// overlap. It changes nothing. A packed map has its first 256 bytes and its last
// byte read, a table its header, where a lookup starts; nothing more on
// architectures other than amd64 and arm64 (see internal/prefetch). The complexity
// is O(1).
func (m *Map) Prefetch() {
	// One call, within the inlining budget, so that a caller pays just that call.
	// ptr is the packed bytes, or the table's header (len 0: Span reads its line),
	// or nil for an empty map, which Span ignores.
	prefetch.Span(m.ptr, uintptr(m.len))
}
