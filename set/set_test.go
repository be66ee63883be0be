package set

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zlite/zlite/dict"
	"github.com/zlite/zlite/internal/testmain"
)

// packed returns dict limits of entries members of up to 64 bytes (0: always a table).
func packed(entries int) dict.Limits { return dict.Limits{Entries: entries, Value: 64} }

// seq returns n members prefix0, prefix1, ...
func seq(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

// TestEncodingBoundaries checks each conversion at its boundary, with Redis 7.2's
// rules and default limits (the server's differential test checks the same against a
// redis-server).
func TestEncodingBoundaries(t *testing.T) {
	for _, tc := range []struct {
		name    string
		members []string
		l       Limits
		want    string
	}{
		{"empty", nil, DefaultLimits, "intset"},
		{"512 integers", seq("", 512), DefaultLimits, "intset"},
		{"513 integers", seq("", 513), DefaultLimits, "hashtable"},
		{"integers then a string", []string{"1", "2", "x"}, DefaultLimits, "listpack"},
		{"a string first", []string{"x", "1"}, DefaultLimits, "listpack"},
		{"200 integers then a string", append(seq("", 200), "x"), DefaultLimits, "hashtable"},
		{"128 integers then a string", append(seq("", 127), "x"), DefaultLimits, "listpack"},
		{"128 members", seq("m", 128), DefaultLimits, "listpack"},
		{"129 members", seq("m", 129), DefaultLimits, "hashtable"},
		{"a 64-byte member", []string{strings.Repeat("m", 64)}, DefaultLimits, "listpack"},
		{"a 65-byte member", []string{strings.Repeat("m", 65)}, DefaultLimits, "hashtable"},
		{"integers then a 65-byte member", []string{"1", strings.Repeat("m", 65)}, DefaultLimits, "hashtable"},
		{"-0", []string{"-0"}, DefaultLimits, "listpack"},
		{"a leading zero", []string{"01"}, DefaultLimits, "listpack"},
		{"a plus sign", []string{"+1"}, DefaultLimits, "listpack"},
		{"a space", []string{" 1"}, DefaultLimits, "listpack"},
		{"int64 bounds", []string{"-9223372036854775808", "9223372036854775807", "0"}, DefaultLimits, "intset"},
		{"beyond int64", []string{"9223372036854775808"}, DefaultLimits, "listpack"},
		{"Ints 0", []string{"1"}, Limits{Ints: 0, Packed: dict.DefaultLimits}, "listpack"},
		{"Ints 0 and Entries 0", []string{"1"}, Limits{}, "hashtable"},
		{"past Ints 4", seq("", 5), Limits{Ints: 4, Packed: packed(100)}, "hashtable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s Set
			for _, m := range tc.members {
				if !s.Add(m, tc.l) {
					t.Fatalf("s.Add(%q) = false; want true", m)
				}
				if err := s.check(); err != nil {
					t.Fatal(err)
				}
			}
			if got := s.Encoding(); got != tc.want {
				t.Errorf("s.Encoding() = %q; want %q", got, tc.want)
			}
			if got := s.Len(); got != len(tc.members) {
				t.Errorf("s.Len() = %d; want %d", got, len(tc.members))
			}
			for _, m := range tc.members {
				if !s.Has(m) {
					t.Errorf("s.Has(%q) = false; want true", m)
				}
				if s.Add(m, tc.l) {
					t.Errorf("s.Add(%q) again = true; want false", m)
				}
			}
			want := slices.Clone(tc.members)
			if s.Encoding() == "intset" {
				slices.SortFunc(want, byInt)
			} else if tc.members == nil {
				want = []string{}
			}
			if got := s.Members(); !slices.Equal(got, want) {
				t.Errorf("s.Members() = %.80q; want %.80q", got, want)
			}
		})
	}
}

// byInt orders the integers a and b.
func byInt(a, b string) int {
	x, _ := strconv.ParseInt(a, 10, 64)
	y, _ := strconv.ParseInt(b, 10, 64)
	return cmp.Compare(x, y)
}

// TestEmptied checks that a set emptied by Remove, from every encoding, is an empty
// intset again and that Random and Scan of it yield nothing.
func TestEmptied(t *testing.T) {
	for _, members := range [][]string{seq("", 3), seq("m", 3), seq("m", 200)} {
		var s Set
		for _, m := range members {
			s.Add(m, DefaultLimits)
		}
		enc := s.Encoding()
		for _, m := range members {
			if !s.Remove(m) {
				t.Fatalf("%s: s.Remove(%q) = false; want true", enc, m)
			}
			if s.Remove(m) {
				t.Fatalf("%s: s.Remove(%q) again = true; want false", enc, m)
			}
		}
		if err := s.check(); err != nil {
			t.Fatalf("%s emptied: %v", enc, err)
		}
		if got := s.Encoding(); got != "intset" || s.Len() != 0 {
			t.Errorf("%s emptied: s.Encoding() = %q, s.Len() = %d; want intset, 0", enc, got, s.Len())
		}
		if m, ok := s.Random(nil); ok {
			t.Errorf("%s emptied: s.Random(nil) = %q, true; want false", enc, m)
		}
		if next := s.Scan(0, 10, func(m string) bool { t.Errorf("%s emptied: Scan yields %q", enc, m); return true }); next != 0 {
			t.Errorf("%s emptied: s.Scan(0, 10) = %d; want 0", enc, next)
		}
	}
}

// TestCloneScanPrefetch checks, in every encoding, that a clone is independent and
// equal, that a full Scan yields every member once, stopping when yield says so,
// and that Prefetch changes nothing.
func TestCloneScanPrefetch(t *testing.T) {
	for _, members := range [][]string{seq("", 20), seq("m", 20), seq("m", 500)} {
		var s Set
		for _, m := range members {
			s.Add(m, DefaultLimits)
		}
		enc, before := s.Encoding(), s.Members()
		t.Run(enc, func(t *testing.T) {
			s.Prefetch()
			c := s.Clone()
			c.Add("new", DefaultLimits)
			c.Remove(members[0])
			if got := s.Members(); !slices.Equal(got, before) || s.Encoding() != enc {
				t.Fatalf("after Prefetch and a change to the clone: %s %.40q; want %s %.40q", s.Encoding(), got, enc, before)
			}
			if c2 := s.Clone(); c2.Encoding() != enc || !slices.Equal(c2.Members(), before) {
				t.Fatalf("s.Clone(): %s %.40q; want %s %.40q", c2.Encoding(), c2.Members(), enc, before)
			}
			seen := map[string]int{}
			calls := 0
			for cursor := uint64(0); ; calls++ {
				cursor = s.Scan(cursor, 7, func(m string) bool { seen[m]++; return true })
				if cursor == 0 {
					break
				}
			}
			if len(seen) != len(members) || slices.ContainsFunc(slices.Collect(maps.Values(seen)), func(n int) bool { return n != 1 }) {
				t.Fatalf("a full Scan saw %d distinct members of %d, some more than once: %v", len(seen), len(members), seen)
			}
			if (enc == "hashtable") != (calls > 0) {
				t.Errorf("a full Scan of a %s took %d calls beyond the first", enc, calls)
			}
			n := 0
			s.Scan(0, 7, func(string) bool { n++; return n < 3 })
			if n != 3 {
				t.Errorf("Scan with yield false at the third member yielded %d", n)
			}
		})
	}
}

// setModel applies one operation to a Set and to a map, and checks that they agree
// and that the encoding is the one Redis 7.2's rules give: an intset while every
// member is a canonical integer and there are at most l.Ints, else a hash table if
// the set ever outgrew the intset's count or the packed limits, else packed.
type setModel struct {
	s       *Set
	m       map[string]bool
	l       Limits
	grown   bool // the set has left the packed encoding (or the intset by count)
	anyStr  bool // a member that is not an integer was added
	history []string
}

func newSetModel(l Limits) *setModel {
	return &setModel{s: New(), m: map[string]bool{}, l: l}
}

func (sm *setModel) step(op byte, member string) error {
	sm.history = append(sm.history, fmt.Sprintf("%c %q", op, member))
	switch op % 4 {
	case 0, 1:
		_, isInt := intMember(member)
		wasIntset := sm.s.strs() == nil
		added := sm.s.Add(member, sm.l)
		if added == sm.m[member] {
			return fmt.Errorf("s.Add(%q) = %v with the member present: %v", member, added, sm.m[member])
		}
		sm.m[member] = true
		if wasIntset && (!isInt || len(sm.m) > sm.l.Ints) {
			sm.anyStr = true
			if isInt && len(sm.m) > 1 { // the intset outgrew its count: a hash table
				sm.grown = true
			}
		}
		if sm.s.strs() != nil && (len(sm.m) > sm.l.Packed.Entries || len(member) > sm.l.Packed.Value) {
			sm.grown = true
		}
		if !wasIntset && !isInt {
			sm.anyStr = true
		}
	case 2:
		removed := sm.s.Remove(member)
		if removed != sm.m[member] {
			return fmt.Errorf("s.Remove(%q) = %v, model %v", member, removed, sm.m[member])
		}
		delete(sm.m, member)
		if len(sm.m) == 0 { // an emptied set is an intset again
			sm.grown, sm.anyStr = false, false
		}
	case 3:
		if got := sm.s.Has(member); got != sm.m[member] {
			return fmt.Errorf("s.Has(%q) = %v, model %v", member, got, sm.m[member])
		}
	}
	if err := sm.s.check(); err != nil {
		return err
	}
	if sm.s.Len() != len(sm.m) {
		return fmt.Errorf("s.Len() = %d, model %d", sm.s.Len(), len(sm.m))
	}
	got := sm.s.Members()
	slices.Sort(got)
	if want := slices.Sorted(maps.Keys(sm.m)); !slices.Equal(got, want) {
		return fmt.Errorf("s.Members() %q, model %q", got, want)
	}
	if sm.s.strs() == nil && !slices.IsSortedFunc(sm.s.Members(), byInt) {
		return fmt.Errorf("intset members not ascending: %q", sm.s.Members())
	}
	want := "intset"
	switch {
	case sm.grown:
		want = "hashtable"
	case sm.anyStr:
		want = "listpack"
	}
	if enc := sm.s.Encoding(); enc != want {
		return fmt.Errorf("s.Encoding() = %s; want %s", enc, want)
	}
	if r, ok := sm.s.Random(nil); ok != (len(sm.m) > 0) || ok && !sm.m[r] {
		return fmt.Errorf("s.Random(nil) = %q, %v; want a member, %v", r, ok, len(sm.m) > 0)
	}
	c := sm.s.Clone()
	if c.Len() != sm.s.Len() || c.Encoding() != sm.s.Encoding() {
		return fmt.Errorf("s.Clone(): %d members %s; want %d %s", c.Len(), c.Encoding(), sm.s.Len(), sm.s.Encoding())
	}
	return nil
}

// randMember picks a member near the conversion boundaries: small and large
// integers, integers in non-canonical forms (which an intset cannot hold), and
// strings of 64 and 65 bytes.
func randMember(r *rand.Rand, span int) string {
	switch r.IntN(10) {
	case 0:
		return []string{"-0", "01", "+1", " 1", "9223372036854775808", "-9223372036854775808", "9223372036854775807"}[r.IntN(7)]
	case 1:
		return strings.Repeat("x", 64+r.IntN(2))
	case 2:
		return "m" + strconv.Itoa(r.IntN(span))
	}
	return strconv.Itoa(r.IntN(span) - span/4)
}

// TestModel runs random operations on sets against a map, with limits small enough
// for every conversion to happen often (an intset gaining a string member, growing
// past its count, a packed set past its entries or value length), and with Redis's
// defaults around 512/513 integers and 128/129 members.
func TestModel(t *testing.T) {
	seed := testmain.Seed(t)
	for _, tc := range []struct {
		l    Limits
		span int
		ops  int
	}{
		{Limits{Ints: 4, Packed: packed(6)}, 12, 4000},
		{Limits{Ints: 0, Packed: packed(0)}, 50, 2000},
		{DefaultLimits, 700, 6000},
	} {
		t.Run(fmt.Sprintf("ints=%d/entries=%d", tc.l.Ints, tc.l.Packed.Entries), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, uint64(tc.l.Ints)))
			for round := range 30 {
				sm := newSetModel(tc.l)
				for range tc.ops / 30 {
					op := byte(r.IntN(4))
					if round%2 == 0 && op == 2 {
						op = 0 // half the rounds only grow
					}
					if err := sm.step(op, randMember(r, tc.span)); err != nil {
						t.Fatalf("seed %d, round %d, after %q: %v", seed, round, sm.history[max(0, len(sm.history)-5):], err)
					}
				}
			}
		})
	}
}

// FuzzSet decodes bytes into set operations on small limits and checks them against
// the model.
func FuzzSet(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 1, 'a', 2, 1, 3, 2})
	f.Add([]byte{0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 1, 0, 2, 0})
	f.Add([]byte{0, 1, 0, 2, 0, 200, 0, 250, 2, 1, 2, 2, 2, 200, 2, 250, 0, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		sm := newSetModel(Limits{Ints: 3, Packed: packed(4)})
		for i := 0; i+1 < len(data); i += 2 {
			b := data[i+1]
			member := strconv.Itoa(int(b%16) - 4)
			switch {
			case b >= 240:
				member = strings.Repeat("v", 60+int(b-240))
			case b >= 200:
				member = "s" + strconv.Itoa(int(b%8))
			case b >= 180:
				member = "0" + strconv.Itoa(int(b%3))
			}
			if err := sm.step(data[i], member); err != nil {
				t.Fatalf("after %q: %v", sm.history, err)
			}
		}
	})
}
