package zlite

import (
	"iter"
	"strconv"
	"unsafe"

	"github.com/zlite/zlite/dict"
	"github.com/zlite/zlite/intset"
)

// The value of a set key, in Redis's encodings: an intset while every member is an
// integer in canonical form and there are few enough of them, else a dict.Map of
// members (packed while small, a hash table after). The commands are in set.go
// (typed) and set_cmd.go (Do forms).

// setValue is a set key's value: ints while strs is nil, strs after.
type setValue struct {
	ints intset.Set
	strs *dict.Map
}

// intMember returns the integer a member stands for when it is one in canonical
// form (Redis's string2ll: no '+', no leading zero, no "-0"), which an intset can
// hold.
func intMember(m string) (int64, bool) {
	v, err := parseInt(m)
	return v, err == nil
}

// newSetValue returns an empty set whose encoding suits its first member, as
// Redis's setTypeCreate.
func newSetValue() *setValue { return &setValue{} }

// Len is the number of members. O(1).
func (s *setValue) Len() int {
	if s.strs != nil {
		return s.strs.Len()
	}
	return s.ints.Len()
}

// Encoding is OBJECT ENCODING's reply: "intset", "listpack" or "hashtable".
func (s *setValue) Encoding() string {
	if s.strs != nil {
		return s.strs.Encoding()
	}
	return "intset"
}

// MemoryUsage is the bytes of heap the set holds.
func (s *setValue) MemoryUsage() int {
	n := int(unsafe.Sizeof(*s)) + s.ints.MemoryUsage() - int(unsafe.Sizeof(s.ints))
	if s.strs != nil {
		n += s.strs.MemoryUsage()
	}
	return n
}

// has reports whether m is a member. O(log n) for an intset, O(1) for a table.
func (s *setValue) has(m string) bool {
	if s.strs != nil {
		return s.strs.Has(m)
	}
	v, ok := intMember(m)
	return ok && s.ints.Has(v)
}

// add adds m and reports whether it was new, converting the intset to members
// first when m is not an integer or the intset would exceed l.Ints.
func (s *setValue) add(m string, l SetLimits) bool {
	if s.strs == nil {
		v, ok := intMember(m)
		if ok && s.ints.Has(v) {
			return false
		}
		if ok && s.ints.Len() < l.Ints {
			return s.ints.Add(v)
		}
		s.convert(l, ok && s.ints.Len() > 0)
	}
	return s.strs.Set(m, "")
}

// convert turns the intset into a map of members: a hash table when the intset
// outgrew l.Ints (full), as Redis 7.2 converts it; else (a member that is not an
// integer, or l.Ints 0) packed if they fit l.Packed, which the map decides as they
// are added.
func (s *setValue) convert(l SetLimits, full bool) {
	packed := l.Packed
	if full {
		packed.Entries = 0
	}
	strs := dict.NewWithLimits(packed)
	for v := range s.ints.All() {
		strs.Set(strconv.FormatInt(v, 10), "")
	}
	s.strs, s.ints = strs, intset.Set{}
}

// remove removes m and reports whether it was a member.
func (s *setValue) remove(m string) bool {
	if s.strs != nil {
		return s.strs.Delete(m)
	}
	v, ok := intMember(m)
	return ok && s.ints.Remove(v)
}

// all iterates over the members in the set's order: ascending for an intset, the
// map's order after. The set must not change during the iteration.
func (s *setValue) all() iter.Seq[string] {
	return func(yield func(string) bool) {
		if s.strs != nil {
			for m := range s.strs.All() {
				if !yield(m) {
					return
				}
			}
			return
		}
		for v := range s.ints.All() {
			if !yield(strconv.FormatInt(v, 10)) {
				return
			}
		}
	}
}

// members returns the members in the set's order. O(n).
func (s *setValue) members() []string {
	out := make([]string, 0, s.Len())
	for m := range s.all() {
		out = append(out, m)
	}
	return out
}

// random returns a member chosen uniformly; the set must not be empty. O(1)
// expected.
func (s *setValue) random() string {
	if s.strs != nil {
		m, _, _ := s.strs.Random(nil)
		return m
	}
	v, _ := s.ints.Random(nil)
	return strconv.FormatInt(v, 10)
}

// clone returns a deep copy. O(n).
func (s *setValue) clone() *setValue {
	c := &setValue{}
	if s.strs != nil {
		c.strs = s.strs.Clone()
	} else {
		c.ints = *s.ints.Clone()
	}
	return c
}
