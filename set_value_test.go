package zlite

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zlite/zlite/internal/testmain"
)

// setModel applies one operation to a setValue and to a map, and checks that they
// agree and that the encoding is the one Redis 7.2's rules give: an intset while
// every member is a canonical integer and there are at most l.Ints, else a hash
// table if the set ever outgrew the intset's count or the packed limits, else
// packed.
type setModel struct {
	s       *setValue
	m       map[string]bool
	l       SetLimits
	grown   bool // the set has left the packed encoding (or the intset by count)
	anyStr  bool // a member that is not an integer was added
	history []string
}

func newSetModel(l SetLimits) *setModel {
	return &setModel{s: newSetValue(), m: map[string]bool{}, l: l}
}

func (sm *setModel) step(op byte, member string) error {
	sm.history = append(sm.history, fmt.Sprintf("%c %q", op, member))
	switch op % 4 {
	case 0, 1:
		_, isInt := intMember(member)
		wasIntset := sm.s.strs == nil
		added := sm.s.add(member, sm.l)
		if added == sm.m[member] {
			return fmt.Errorf("add(%q) = %v with the member present: %v", member, added, sm.m[member])
		}
		sm.m[member] = true
		if wasIntset && (!isInt || len(sm.m) > sm.l.Ints) {
			sm.anyStr = true
			if isInt && len(sm.m) > 1 { // the intset outgrew its count: a hash table
				sm.grown = true
			}
		}
		if sm.s.strs != nil && (len(sm.m) > sm.l.Packed.Entries || len(member) > sm.l.Packed.Value) {
			sm.grown = true
		}
		if !wasIntset && !isInt {
			sm.anyStr = true
		}
	case 2:
		removed := sm.s.remove(member)
		if removed != sm.m[member] {
			return fmt.Errorf("remove(%q) = %v, model %v", member, removed, sm.m[member])
		}
		delete(sm.m, member)
		if len(sm.m) == 0 { // the keyspace deletes an emptied set: start again
			sm.s, sm.grown, sm.anyStr = newSetValue(), false, false
		}
	case 3:
		if got := sm.s.has(member); got != sm.m[member] {
			return fmt.Errorf("has(%q) = %v, model %v", member, got, sm.m[member])
		}
	}
	if sm.s.Len() != len(sm.m) {
		return fmt.Errorf("Len = %d, model %d", sm.s.Len(), len(sm.m))
	}
	got := sm.s.members()
	slices.Sort(got)
	if want := slices.Sorted(maps.Keys(sm.m)); !slices.Equal(got, want) {
		return fmt.Errorf("members %q, model %q", got, want)
	}
	if sm.s.strs == nil && !slices.IsSortedFunc(sm.s.members(), func(a, b string) int {
		x, _ := strconv.ParseInt(a, 10, 64)
		y, _ := strconv.ParseInt(b, 10, 64)
		return int(x>>1 - y>>1)
	}) {
		return fmt.Errorf("intset members not ascending: %q", sm.s.members())
	}
	want := "intset"
	switch {
	case sm.grown:
		want = "hashtable"
	case sm.anyStr:
		want = "listpack"
	}
	if enc := sm.s.Encoding(); enc != want {
		return fmt.Errorf("encoding %s, want %s", enc, want)
	}
	if len(sm.m) > 0 {
		if r := sm.s.random(); !sm.m[r] {
			return fmt.Errorf("random() = %q, not a member", r)
		}
	}
	c := sm.s.clone()
	if c.Len() != sm.s.Len() || c.Encoding() != sm.s.Encoding() {
		return fmt.Errorf("clone: %d members %s, want %d %s", c.Len(), c.Encoding(), sm.s.Len(), sm.s.Encoding())
	}
	return nil
}

// setMember picks a member near the conversion boundaries: small and large
// integers, integers in non-canonical forms (which an intset cannot hold), and
// strings of 64 and 65 bytes.
func setMember(r *rand.Rand, span int) string {
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

// TestSetValueModel runs random operations on sets against a map, with limits
// small enough for every conversion to happen often (an intset gaining a string
// member, growing past its count, a packed set past its entries or value length),
// and with Redis's defaults around 512/513 integers and 128/129 members.
func TestSetValueModel(t *testing.T) {
	seed := testmain.Seed(t)
	for _, tc := range []struct {
		l    SetLimits
		span int
		ops  int
	}{
		{SetLimits{Ints: 4, Packed: dictLimits(6)}, 12, 4000},
		{SetLimits{Ints: 0, Packed: dictLimits(0)}, 50, 2000},
		{DefaultSetLimits, 700, 6000},
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
					if err := sm.step(op, setMember(r, tc.span)); err != nil {
						t.Fatalf("seed %d, round %d, after %q: %v", seed, round, sm.history[max(0, len(sm.history)-5):], err)
					}
				}
			}
		})
	}
}

// FuzzSetValue decodes bytes into set operations on small limits and checks them
// against the model.
func FuzzSetValue(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 1, 'a', 2, 1, 3, 2})
	f.Add([]byte{0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 1, 0, 2, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		sm := newSetModel(SetLimits{Ints: 3, Packed: dictLimits(4)})
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
