package set

import (
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"strconv"
	"unsafe"

	"github.com/zlite/zlite/dict"
	"github.com/zlite/zlite/internal/prefetch"
	"github.com/zlite/zlite/intset"
)

// Limits are the thresholds of a set's compact encodings: a set of at most Ints
// members that are all integers in canonical decimal form is an intset, as with
// Redis's set-max-intset-entries; a set of at most Packed.Entries members, none
// longer than Packed.Value bytes, is packed, as with Redis 7.2's
// set-max-listpack-entries and set-max-listpack-value; a larger one is a hash table,
// and stays one while it has members.
type Limits struct {
	Ints   int
	Packed dict.Limits
}

// DefaultLimits are Redis's defaults: 512 integers, 128 members of up to 64 bytes.
var DefaultLimits = Limits{Ints: 512, Packed: dict.DefaultLimits}

// Set is the value of a Redis set: an [intset.Set] while every member is an int64 in
// canonical form and there are at most [Limits].Ints of them, else a [dict.Map] of
// the members (with empty values), packed while small. The zero value is an empty
// set, an intset, ready to use.
//
// A Set is 16 bytes: one pointer, to the intset's buffer or, once the set has left
// the intset, to the map, and the buffer's length and capacity. A Set is not safe for
// concurrent use and holds no lock. Copying a Set value shares its contents (the copy
// and the original must then not both be changed); use [Set.Clone] for an
// independent copy.
type Set struct {
	// p is the map (a *dict.Map) when n is isMap; else the first byte of the
	// intset's buffer ([intset.Set.Bytes]), nil while it has none.
	p unsafe.Pointer
	// n and c are the length and capacity of the intset's buffer.
	n, c uint32
}

// isMap is Set.n for a set whose members are in a map.
const isMap = ^uint32(0)

// maxInts bounds the members of an intset, whatever [Limits].Ints says, so that its
// buffer (8 bytes a member at the most, and as much again of spare capacity) keeps
// its length and capacity in 32 bits: past it, the set becomes a hash table.
const maxInts = 1 << 27

// strs returns the map of the set's members, nil while the set is an intset.
func (s *Set) strs() *dict.Map {
	if s.n == isMap {
		return (*dict.Map)(s.p)
	}
	return nil
}

// ints returns the set's intset, sharing its buffer; the set must be an intset.
// setInts stores it back after a change.
func (s *Set) ints() intset.Set {
	return intset.FromBytes(unsafe.Slice((*byte)(s.p), s.c)[:s.n])
}

func (s *Set) setInts(is intset.Set) {
	b := is.Bytes()
	s.p, s.n, s.c = unsafe.Pointer(unsafe.SliceData(b)), uint32(len(b)), uint32(cap(b))
}

// setStrs makes m the set's members; nil makes the set an empty intset.
func (s *Set) setStrs(m *dict.Map) {
	if m == nil {
		*s = Set{}
		return
	}
	s.p, s.n, s.c = unsafe.Pointer(m), isMap, 0
}

// New returns an empty set, the same as new(Set). The complexity is O(1).
func New() *Set { return new(Set) }

// intMember returns the integer m stands for when it is one in canonical form, which
// an intset can hold: Redis's string2ll (no '+', no leading zero, no "-0", no
// spaces, within int64's range).
func intMember(m string) (int64, bool) {
	if m == "0" {
		return 0, true
	}
	if len(m) == 0 || len(m) > 20 {
		return 0, false
	}
	d := m
	if d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || d[0] < '1' || d[0] > '9' {
		return 0, false
	}
	v, err := strconv.ParseInt(m, 10, 64)
	return v, err == nil
}

// Len returns the number of members (SCARD), 0 for an empty set. The complexity is
// O(1).
func (s *Set) Len() int {
	if m := s.strs(); m != nil {
		return m.Len()
	}
	is := s.ints()
	return is.Len()
}

// Encoding returns Redis's OBJECT ENCODING name for the set's current encoding:
// "intset" (an empty set too), "listpack" for the packed map or "hashtable". The
// complexity is O(1).
func (s *Set) Encoding() string {
	if m := s.strs(); m != nil {
		return m.Encoding()
	}
	return "intset"
}

// MemoryUsage returns the bytes the set holds (MEMORY USAGE): the Set itself, the
// intset's buffer by capacity, or the map with its storage ([dict.Map.MemoryUsage]).
// The complexity is O(1).
func (s *Set) MemoryUsage() int {
	if m := s.strs(); m != nil {
		return int(unsafe.Sizeof(*s)) + m.MemoryUsage()
	}
	return int(unsafe.Sizeof(*s)) + int(s.c)
}

// Has reports whether member is in the set (SISMEMBER, SMISMEMBER for each member);
// false for an empty set. It does not allocate. The complexity is O(log n) for an
// intset, O(n) packed and O(1) expected for a hash table.
func (s *Set) Has(member string) bool {
	if m := s.strs(); m != nil {
		return m.Has(member)
	}
	v, ok := intMember(member)
	is := s.ints()
	return ok && is.Has(v)
}

// Add adds member (SADD of one member) and reports whether it is new. An intset
// that member would leave converts first, as Redis converts it: to a hash table when
// member is an integer and the intset already holds l.Ints members, else (member is
// not an integer in canonical form, or l.Ints is 0) to a packed map, which becomes a
// hash table as soon as its members break l.Packed. The conversion is O(n), once;
// otherwise the complexity is O(n) for an intset (a shift of the members after
// member's place) or packed, O(1) amortised expected for a hash table.
func (s *Set) Add(member string, l Limits) bool {
	m := s.strs()
	if m == nil {
		is := s.ints()
		v, ok := intMember(member)
		if ok && is.Has(v) {
			return false
		}
		if ok && is.Len() < min(l.Ints, maxInts) {
			is.Add(v)
			s.setInts(is)
			return true
		}
		m = s.convert(is, l, ok && is.Len() > 0)
	}
	return m.Set(member, "")
}

// convert turns the set's intset is into a map of its members, and returns the map:
// a hash table when the intset outgrew l.Ints (full), as Redis 7.2 converts it; else
// packed while the members fit l.Packed, which the map decides as they are added.
func (s *Set) convert(is intset.Set, l Limits, full bool) *dict.Map {
	packed := l.Packed
	if full {
		packed.Entries = 0
	}
	m := dict.NewWithLimits(packed)
	for v := range is.All() {
		m.Set(strconv.FormatInt(v, 10), "")
	}
	s.setStrs(m)
	return m
}

// Remove removes member (SREM of one member) and reports whether it was in the set;
// false for an empty set. An emptied set is an empty intset again, as Redis deletes
// an emptied key and the next SADD creates the set afresh. The complexity is that of
// [Set.Add] without a conversion.
func (s *Set) Remove(member string) bool {
	m := s.strs()
	if m == nil {
		v, ok := intMember(member)
		if !ok {
			return false
		}
		is := s.ints()
		if !is.Remove(v) {
			return false
		}
		s.setInts(is)
		return true
	}
	if !m.Delete(member) {
		return false
	}
	if m.Len() == 0 {
		s.setStrs(nil)
	}
	return true
}

// All returns an iterator over the members in the set's order (SMEMBERS; SINTER,
// SUNION and SDIFF read sets this way): ascending for an intset, insertion order for
// a map (see [dict.Map.All]). Nothing is yielded for an empty set. The set must not
// be changed during the iteration: if it is, the iteration does not panic, but what
// it yields is unspecified. The complexity is O(1) per member yielded, plus the
// member's string (an intset's members are formatted, a map's copied).
func (s *Set) All() iter.Seq[string] {
	return func(yield func(string) bool) {
		if m := s.strs(); m != nil {
			for member := range m.All() {
				if !yield(member) {
					return
				}
			}
			return
		}
		is := s.ints()
		for v := range is.All() {
			if !yield(strconv.FormatInt(v, 10)) {
				return
			}
		}
	}
}

// Members returns the members in the set's order (SMEMBERS; see [Set.All]): an
// empty, non-nil slice for an empty set. The complexity is O(n).
func (s *Set) Members() []string {
	out := make([]string, 0, s.Len())
	for m := range s.All() {
		out = append(out, m)
	}
	return out
}

// Random returns a member chosen uniformly at random (SRANDMEMBER without a count;
// SPOP, which then removes it), drawing from r, or from math/rand/v2's global source
// when r is nil; ok is false for an empty set. The complexity is O(1) for an intset,
// O(n) packed and O(1) expected for a hash table.
func (s *Set) Random(r *rand.Rand) (member string, ok bool) {
	if m := s.strs(); m != nil {
		member, _, ok := m.Random(r)
		return member, ok
	}
	is := s.ints()
	v, ok := is.Random(r)
	if !ok {
		return "", false
	}
	return strconv.FormatInt(v, 10), true
}

// Scan calls yield with some of the members (SSCAN) and returns the cursor to go on
// from, 0 once the scan is complete; a scan starts with cursor 0. An intset or a
// packed set yields every member in one call and returns 0, whatever the cursor, as
// Redis does; a hash table yields count members (count < 1 means 10) from the cursor
// on, and a member present for a whole scan is yielded exactly once, whatever is
// added or removed between the calls ([dict.Map.Scan] gives the details). If yield
// returns false, Scan stops. The set must not be changed from yield. The complexity
// is O(log n + count) per call for a hash table, O(n) otherwise.
func (s *Set) Scan(cursor uint64, count int, yield func(member string) bool) (next uint64) {
	if m := s.strs(); m != nil {
		return m.Scan(cursor, count, func(member, _ string) bool { return yield(member) })
	}
	is := s.ints()
	for v := range is.All() {
		if !yield(strconv.FormatInt(v, 10)) {
			break
		}
	}
	return 0
}

// Clone returns a deep copy of the set (COPY), with the same members, encoding and
// order. The complexity is O(n).
func (s *Set) Clone() *Set {
	c := new(Set)
	if m := s.strs(); m != nil {
		c.setStrs(m.Clone())
		return c
	}
	is := s.ints()
	c.setInts(*is.Clone())
	return c
}

// Prefetch starts reading the set's contents into the processor's cache and returns
// without waiting for them, for a caller that has the set's address before it needs
// the set (a keyspace that still compares the key's name), so that the reads
// overlap. It changes nothing. An intset has its buffer's first 256 bytes and its
// last byte read ([intset.Set.Prefetch]); a map only its header, which is where a
// lookup starts. It does nothing more on architectures other than amd64 and arm64
// (see internal/prefetch). The complexity is O(1).
func (s *Set) Prefetch() {
	if s.n == isMap {
		prefetch.Line(s.p)
		return
	}
	is := s.ints()
	is.Prefetch()
}

// check verifies the set's invariants, for the tests: a map exists only while the
// set has members; an intset's length is within its capacity, and it has a buffer
// if it has either. The model tests check the encodings against the limits.
func (s *Set) check() error {
	if m := s.strs(); m != nil {
		if m.Len() == 0 {
			return errors.New("an emptied set keeps its map: it should be an intset again")
		}
		if s.c != 0 {
			return fmt.Errorf("a map of %d members with an intset capacity of %d", m.Len(), s.c)
		}
		return nil
	}
	if s.n > s.c || (s.p == nil && s.c != 0) {
		return fmt.Errorf("an intset of length %d, capacity %d, buffer %p", s.n, s.c, s.p)
	}
	return nil
}
