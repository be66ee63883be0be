package zset

import "math"

// Entries live in a slab and are named by uint32 handles, so that the tree leaves and the
// member index are pointer-free arrays of handles. A slab is a list of chunks of
// slabChunk slots (48 KiB each: a large object, so no size-class rounding and no header);
// the first chunk grows by doubling so that small sets stay small. Freed slots form a
// free list threaded through the score field.

const (
	slabShift = 11
	slabChunk = 1 << slabShift
	slabMask  = slabChunk - 1
)

// slot is one entry. A free slot has an empty member and holds in score's bits the next
// free handle plus one (0 ends the list).
type slot struct {
	m  string
	sc float64
}

type slab struct {
	chunks [][]slot
	used   uint32 // slots ever handed out: handles are < used
	free   uint32 // head of the free list plus one; 0 when empty
	nfree  uint32
}

func (s *slab) at(h uint32) *slot { return &s.chunks[h>>slabShift][h&slabMask] }

func (s *slab) member(h uint32) string { return s.chunks[h>>slabShift][h&slabMask].m }

func (s *slab) score(h uint32) float64 { return s.chunks[h>>slabShift][h&slabMask].sc }

// alloc stores an entry and returns its handle, reusing a freed slot if there is one.
func (s *slab) alloc(m string, sc float64) uint32 {
	if s.free != 0 {
		h := s.free - 1
		p := s.at(h)
		s.free = uint32(math.Float64bits(p.sc))
		s.nfree--
		p.m, p.sc = m, sc
		return h
	}
	h := s.used
	if h == math.MaxUint32 {
		panic("zset: more than 2^32-1 members")
	}
	c := int(h >> slabShift)
	switch {
	case c < len(s.chunks) && c > 0:
	case c == 0 && len(s.chunks) > 0:
		s.chunks[0] = append(s.chunks[0], slot{})
	case c == 0:
		s.chunks = append(s.chunks, make([]slot, 1, 4))
	default:
		s.chunks = append(s.chunks, make([]slot, slabChunk))
	}
	s.used++
	p := s.at(h)
	p.m, p.sc = m, sc
	return h
}

// release frees handle h for reuse.
func (s *slab) release(h uint32) {
	p := s.at(h)
	p.m = ""
	p.sc = math.Float64frombits(uint64(s.free))
	s.free = h + 1
	s.nfree++
}

// capacity returns the number of slots held.
func (s *slab) capacity() int {
	if len(s.chunks) == 0 {
		return 0
	}
	return cap(s.chunks[0]) + (len(s.chunks)-1)*slabChunk
}

func (s *slab) clone() slab {
	c := *s
	c.chunks = make([][]slot, len(s.chunks))
	for i, ch := range s.chunks {
		c.chunks[i] = append(make([]slot, 0, cap(ch)), ch...)
	}
	return c
}
