package zset

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// Entries live in a slab and are named by uint32 handles, so that the tree leaves and the
// member index are pointer-free arrays of handles. A slot holds the score and the place
// of the member's bytes, which are copied into large byte chunks (an arena) as records:
// the owner's handle (4 bytes), the length as a uvarint, the bytes. Nothing in the slab
// or the arena is a pointer, so the garbage collector neither scans nor marks anything
// per entry.
//
// Slot chunks hold slabChunk slots (32 KiB, no size-class rounding); the first grows by
// doubling so that small sets stay small. Freed slots form a free list threaded through
// the place field. Arena chunks are arenaChunk bytes, the first growing by doubling too;
// a member longer than bigMember gets a chunk of its own, freed with the member. Each
// chunk counts its live bytes: when deletions leave a chunk (other than the one being
// filled) less than half live, its live records move to the chunk being filled (the
// handles say whose they are) and it is freed. That bounds both the waste and the work
// of any one deletion (at most one chunk copied).
//
// member returns a view of the arena (no copy) that is valid only until the set is next
// changed; everything handed to callers is copied (see own and copyOut).

const (
	slabShift  = 11
	slabChunk  = 1 << slabShift
	slabMask   = slabChunk - 1
	arenaChunk = 64 << 10
	bigMember  = 2 << 10
)

// slot is one entry: its score and where its member's length is (chunk << 32 | offset).
// A free slot holds in loc freeSlot | the next free handle plus one (0 ends the list).
type slot struct {
	sc  float64
	loc uint64
}

const freeSlot = 1 << 63

type slab struct {
	slots [][]slot
	used  uint32 // slots ever handed out: handles are < used
	free  uint32 // head of the free list plus one; 0 when empty
	nfree uint32
	bytes [][]byte // arena chunks; nil once freed
	live  []uint32 // live record bytes per chunk
	cur   int      // the shared chunk being filled plus one; 0 for none
	spare []uint32 // freed chunk numbers, for reuse
}

func (s *slab) at(h uint32) *slot { return &s.slots[h>>slabShift][h&slabMask] }

func (s *slab) score(h uint32) float64 { return s.slots[h>>slabShift][h&slabMask].sc }

// member returns a view of h's member, valid until the next change to the set.
func (s *slab) member(h uint32) string {
	return s.viewAt(s.slots[h>>slabShift][h&slabMask].loc)
}

// copyOut sets es[i].Member to a copy of handle hs[i]'s member (len(hs) <= viewBatch),
// all copies sharing one new buffer. It reads all the slots first and then all the
// bytes, so that the cache misses of different entries overlap instead of queueing
// behind each other, and stores each result once.
func (s *slab) copyOut(hs []uint32, es []Entry) {
	var locs [viewBatch]uint64
	for i, h := range hs {
		locs[i] = s.slots[h>>slabShift][h&slabMask].loc
	}
	var views [viewBatch]string
	total := 0
	for i := range hs {
		views[i] = s.viewAt(locs[i])
		total += len(views[i])
	}
	if total == 0 {
		return
	}
	buf := make([]byte, 0, total)
	for i, v := range views[:len(hs)] {
		if v != "" {
			buf = append(buf, v...)
			// Safety: buf has its final capacity (total), so append never moves it, and
			// nothing writes these bytes after this: the string is immutable as Go requires.
			es[i].Member = unsafe.String(&buf[len(buf)-len(v)], len(v))
		}
	}
}

const viewBatch = 64

// viewAt returns a view of the member stored at loc.
//
// Safety: the string shares the arena chunk's memory, which is not immutable: a later
// store may reuse a freed chunk (newChunk takes numbers from spare, and compact rebuilds
// the slab), evacuate moves records, and engine.compact keeps an emptied set's first
// chunk and refills it from offset 0. So a view is valid only until the set's next
// change, must never be handed to a caller (own and copyOut copy) and must not be kept
// across a write (callers that need the member after a write copy it first).
func (s *slab) viewAt(loc uint64) string {
	c := s.bytes[loc>>32]
	off := uint32(loc)
	n, k := uint64(c[off]), uint32(1)
	if n >= 0x80 {
		var w int
		n, w = binary.Uvarint(c[off:])
		k = uint32(w)
	}
	if n == 0 {
		return ""
	}
	return unsafe.String(&c[off+k], n)
}

// own returns a copy of h's member that the caller may keep.
func (s *slab) own(h uint32) string {
	v := s.member(h)
	if v == "" {
		return ""
	}
	return string([]byte(v))
}

// alloc stores an entry and returns its handle, reusing a freed slot if there is one.
func (s *slab) alloc(m string, sc float64) uint32 {
	var h uint32
	if s.free != 0 {
		h = s.free - 1
		s.free = uint32(s.at(h).loc)
		s.nfree--
	} else {
		h = s.used
		if h == math.MaxUint32 {
			panic("zset: more than 2^32-1 members")
		}
		c := int(h >> slabShift)
		switch {
		case c < len(s.slots) && c > 0:
		case c == 0 && len(s.slots) > 0:
			s.slots[0] = append(s.slots[0], slot{})
		case c == 0:
			s.slots = append(s.slots, make([]slot, 1, 4))
		default:
			s.slots = append(s.slots, make([]slot, slabChunk))
		}
		s.used++
	}
	p := s.at(h)
	p.sc = sc
	p.loc = s.store(m, h)
	return h
}

// store copies m into the arena as h's record and returns its place.
func (s *slab) store(m string, h uint32) uint64 {
	need := 4 + uvarintLen(len(m)) + len(m)
	if len(m) > bigMember {
		c := s.newChunk(make([]byte, 0, need))
		s.bytes[c] = appendRecord(s.bytes[c], h, m)
		s.live[c] = uint32(need)
		return uint64(c)<<32 | 4
	}
	if s.cur == 0 || len(s.bytes[s.cur-1])+need > arenaChunk {
		size := arenaChunk
		if len(s.bytes) == 0 {
			size = max(64, need) // the first chunk grows by append
		}
		s.cur = s.newChunk(make([]byte, 0, size)) + 1
	}
	c := s.cur - 1
	off := len(s.bytes[c]) + 4
	s.bytes[c] = appendRecord(s.bytes[c], h, m)
	s.live[c] += uint32(need)
	return uint64(c)<<32 | uint64(off)
}

func (s *slab) newChunk(b []byte) int {
	if n := len(s.spare); n > 0 {
		c := s.spare[n-1]
		s.spare = s.spare[:n-1]
		s.bytes[c], s.live[c] = b, 0
		return int(c)
	}
	s.bytes = append(s.bytes, b)
	s.live = append(s.live, 0)
	return len(s.bytes) - 1
}

func uvarintLen(n int) int {
	k := 1
	for ; n >= 0x80; n >>= 7 {
		k++
	}
	return k
}

func appendRecord(b []byte, h uint32, m string) []byte {
	b = binary.LittleEndian.AppendUint32(b, h)
	b = binary.AppendUvarint(b, uint64(len(m)))
	return append(b, m...)
}

// release frees handle h for reuse, and frees or evacuates its chunk when that leaves
// the chunk empty or less than half live.
func (s *slab) release(h uint32) {
	p := s.at(h)
	n := len(s.member(h))
	c := int(p.loc >> 32)
	s.live[c] -= uint32(4 + uvarintLen(n) + n)
	p.sc = 0
	p.loc = freeSlot | uint64(s.free)
	s.free = h + 1
	s.nfree++
	switch {
	case c+1 == s.cur:
	case s.live[c] == 0:
		s.dropChunk(c)
	case int(s.live[c])*2 < len(s.bytes[c]):
		s.evacuate(c)
	}
}

func (s *slab) dropChunk(c int) {
	s.bytes[c], s.live[c] = nil, 0
	s.spare = append(s.spare, uint32(c))
}

// evacuate moves chunk c's live records to the chunk being filled and frees c.
func (s *slab) evacuate(c int) {
	old := s.bytes[c]
	for off := 0; off < len(old); {
		h := binary.LittleEndian.Uint32(old[off:])
		n, k := binary.Uvarint(old[off+4:])
		start := off + 4
		off = start + k + int(n)
		p := s.at(h)
		if p.loc != uint64(c)<<32|uint64(start) {
			continue // deleted, or its slot reused for a member stored elsewhere
		}
		m := ""
		if n > 0 {
			// Safety: old is detached from the arena (dropChunk runs after the loop), so
			// store cannot write into it while m is read; m does not outlive the loop.
			m = unsafe.String(&old[start+k], n)
		}
		p.loc = s.store(m, h)
	}
	s.dropChunk(c)
}

// capacity returns the number of slots held.
func (s *slab) capacity() int {
	if len(s.slots) == 0 {
		return 0
	}
	return cap(s.slots[0]) + (len(s.slots)-1)*slabChunk
}

func (s *slab) clone() slab {
	c := *s
	c.slots = make([][]slot, len(s.slots))
	for i, ch := range s.slots {
		c.slots[i] = append(make([]slot, 0, cap(ch)), ch...)
	}
	c.bytes = make([][]byte, len(s.bytes))
	for i, b := range s.bytes {
		if b != nil {
			c.bytes[i] = append(make([]byte, 0, cap(b)), b...)
		}
	}
	c.live = append([]uint32(nil), s.live...)
	c.spare = append([]uint32(nil), s.spare...)
	return c
}
