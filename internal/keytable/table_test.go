package keytable

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zlite/zlite/dict"
	"github.com/zlite/zlite/internal/testmain"
	"github.com/zlite/zlite/list"
	"github.com/zlite/zlite/set"
	"github.com/zlite/zlite/zset"
)

// every chunk size, and the chunk sizes of the slabs of a key table.
func TestSlabPlace(t *testing.T) {
	for shift := uint8(4); shift <= 10; shift++ {
		c, j := uint32(0), uint32(0)
		for ref := range uint32(20_000) {
			gc, gj := slabPlace(ref, shift)
			if gc != c || gj != j {
				t.Fatalf("slabPlace(%d, %d) = %d, %d; want %d, %d", ref, shift, gc, gj, c, j)
			}
			if j++; int(j) == slabChunk(int(c), shift) {
				c, j = c+1, 0
			}
		}
	}
	var kt Table
	kt.AddZSet("z")
	kt.Add("l", list.New())
	kt.AddHash("h", dict.DefaultLimits)
	kt.AddSet("s")
	for _, tc := range []struct {
		name        string
		shift, want uint8
	}{
		{"zsets", kt.zsets.shift, 4},   // 16 slots of 24 bytes: 384-byte chunks
		{"lists", kt.lists.shift, 5},   // 32 of 96: 3 KiB
		{"hashes", kt.hashes.shift, 4}, // 16 of 24: 384 bytes
		{"sets", kt.sets.shift, 4},     // 16 of 32: 512 bytes
	} {
		if tc.shift != tc.want {
			t.Errorf("%s: slab shift %d; want %d", tc.name, tc.shift, tc.want)
		}
	}
}

// TestKeyTableSetStable checks that a sorted set handed out by the table stays the
// key's value while other keys come and go (the chunks never move) and is emptied,
// not left holding its members, when its key is deleted.
func TestKeyTableSetStable(t *testing.T) {
	var kt Table
	s := kt.AddZSet("keep")
	s.Add(zset.AddOptions{}, zset.Entry{Member: "m", Score: 1})
	for i := range 5000 {
		k := "k" + strconv.Itoa(i)
		kt.AddZSet(k).Add(zset.AddOptions{}, zset.Entry{Member: k, Score: 2})
		if i%3 == 0 {
			kt.Del(k)
		}
	}
	if got := kt.Get("keep"); got != s {
		t.Fatalf("get(keep) = %p; want the set handed out, %p", got, s)
	}
	if sc, ok := s.Score("m"); !ok || sc != 1 {
		t.Fatalf("s.Score(m) = %v, %v; want 1, true", sc, ok)
	}
	kt.Del("keep")
	if s.Len() != 0 {
		t.Fatalf("deleted key's set has %d members; want its slot emptied", s.Len())
	}
	if err := kt.Check(); err != nil {
		t.Fatal(err)
	}
	// A deleted slot is reused by the next set.
	if s2 := kt.AddZSet("again"); s2 != s {
		t.Fatalf("addZSet after a delete = %p; want the freed slot %p", s2, s)
	}
}

// TestKeyTableDetached checks RENAME's move: a detached set survives its entry's
// deletion and is stored under the new key with its members.
func TestKeyTableDetached(t *testing.T) {
	var kt Table
	kt.AddZSet("a").Add(zset.AddOptions{}, zset.Entry{Member: "x", Score: 3})
	i, _ := kt.Find("a")
	v := kt.Detached(i)
	kt.DelAt(i, "a")
	kt.Add("b", v)
	got, ok := kt.Get("b").(*zset.Set)
	if !ok {
		t.Fatalf("get(b) = %T; want *zset.Set", kt.Get("b"))
	}
	if sc, ok := got.Score("x"); !ok || sc != 3 || got.Len() != 1 {
		t.Fatalf("renamed set: Score(x) = %v, %v, Len %d; want 3, true, 1", sc, ok, got.Len())
	}
	if kt.Get("a") != nil {
		t.Fatalf("get(a) = %v after delete; want nil", kt.Get("a"))
	}
	kt.AddList("l").PushBack("p", "q")
	i, _ = kt.Find("l")
	v = kt.Detached(i)
	kt.DelAt(i, "l")
	kt.Add("m", v)
	if l, ok := kt.Get("m").(*list.List); !ok || !slices.Equal(l.Range(0, -1), []string{"p", "q"}) {
		t.Fatalf("renamed list: get(m) = %v; want [p q]", kt.Get("m"))
	}
	kt.AddHash("h", dict.DefaultLimits).Set("f", "v")
	kt.AddSet("s").Add("7", set.DefaultLimits)
	for _, k := range []string{"h", "s"} {
		i, _ = kt.Find(k)
		v = kt.Detached(i)
		kt.DelAt(i, k)
		kt.Add(k+"2", v) // into the slot k's value had: Detached's copy outlives it
	}
	if h, ok := kt.Get("h2").(*dict.Map); !ok || h.Len() != 1 || !h.Has("f") {
		t.Fatalf("renamed hash: get(h2) = %v; want {f: v}", kt.Get("h2"))
	}
	if s, ok := kt.Get("s2").(*set.Set); !ok || s.Len() != 1 || !s.Has("7") {
		t.Fatalf("renamed set: get(s2) = %v; want {7}", kt.Get("s2"))
	}
	if err := kt.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestKeyTableHeaders checks that a hash's and a set's header is copied in (the
// key's value is the slot, with the contents of the value given), that Set of the
// same type writes over the slot, so that the key's pointer stays the same, and that
// Set of another type and Del empty the slot for reuse.
func TestKeyTableHeaders(t *testing.T) {
	var kt Table
	h := dict.New()
	h.Set("f", "1")
	kt.Add("h", h)
	hv := kt.Get("h").(*dict.Map)
	if hv == h || hv.Len() != 1 || !hv.Has("f") {
		t.Fatalf("get(h) = %p with %d fields; want a slot (not %p) holding f", hv, hv.Len(), h)
	}
	h2 := dict.New()
	h2.Set("g", "2")
	kt.Set("h", h2)
	if got := kt.Get("h"); got != hv || hv.Has("f") || !hv.Has("g") {
		t.Fatalf("after Set(h, {g}): get(h) = %p; want the same slot %p holding g only", got, hv)
	}
	s := set.New()
	s.Add("x", set.DefaultLimits)
	kt.Add("s", s)
	sv := kt.Get("s").(*set.Set)
	s2 := set.New()
	s2.Add("1", set.DefaultLimits)
	kt.Set("s", s2)
	if got := kt.Get("s"); got != sv || sv.Has("x") || !sv.Has("1") || sv.Encoding() != "intset" {
		t.Fatalf("after Set(s, {1}): get(s) = %p; want the same slot %p holding the intset {1}", got, sv)
	}
	kt.Set("h", s) // a hash's key takes a set
	if hv.Len() != 0 || kt.Get("h").(*set.Set).Len() != 1 {
		t.Fatalf("after Set(h, a set): the hash's slot holds %d fields; want it emptied", hv.Len())
	}
	if err := kt.Check(); err != nil {
		t.Fatal(err)
	}
	if got := kt.AddHash("h3", dict.DefaultLimits); got != hv {
		t.Fatalf("AddHash after the hash's slot was freed = %p; want the freed slot %p", got, hv)
	}
	if l := (dict.Limits{Entries: 3, Value: 5}); kt.AddHash("lim", l).Limits() != l {
		t.Fatalf("AddHash(lim, %v): limits %v", l, kt.Get("lim").(*dict.Map).Limits())
	}
	kt.Del("s")
	if sv.Len() != 0 {
		t.Fatalf("deleted key's set has %d members; want its slot emptied", sv.Len())
	}
	if err := kt.Check(); err != nil {
		t.Fatal(err)
	}
}

// keyModel is the reference for the key table: a map and the keys in creation order.
type keyModel struct {
	vals  map[string]int
	order []string
}

func (m *keyModel) del(k string) bool {
	if _, ok := m.vals[k]; !ok {
		return false
	}
	delete(m.vals, k)
	m.order = slices.DeleteFunc(m.order, func(s string) bool { return s == k })
	return true
}

// TestKeyTableModel runs random adds, replacements, deletes, resets and SCANs against
// a map and a creation-ordered slice, checking the invariants after every step.
func TestKeyTableModel(t *testing.T) {
	r := rand.New(rand.NewPCG(testmain.Seed(t), 10))
	var kt Table
	m := keyModel{vals: map[string]int{}}
	// Values of every kind the table keeps in its own storage: value v is a list
	// (v%8 == 0), a sorted set (1), a hash (4) or a set (5) holding the one element
	// strconv.Itoa(v) (the hash's value str(v)), or (v%4 == 2, 3) the string str(v),
	// of 0 to ShortMax bytes, so that strings move between their entry (up to tinyMax
	// bytes) and a slot.
	const values = 96
	str := func(v int) string {
		s := strconv.Itoa(v)
		return s + strings.Repeat(".", max(0, v%(ShortMax+1)-len(s)))
	}
	newValue := func(v int) any {
		switch v % 8 {
		case 0:
			l := list.New()
			l.PushBack(strconv.Itoa(v))
			return l
		case 1:
			s := zset.New()
			s.Add(zset.AddOptions{}, zset.Entry{Member: strconv.Itoa(v), Score: float64(v)})
			return s
		case 4:
			h := dict.New()
			h.Set(strconv.Itoa(v), str(v))
			return h
		case 5:
			s := set.New()
			s.Add(strconv.Itoa(v), set.DefaultLimits)
			return s
		}
		return NewShort([]byte(str(v)), uint8(v))
	}
	same := func(got any, v int) bool {
		switch g := got.(type) {
		case *zset.Set:
			sc, found := g.Score(strconv.Itoa(v))
			return v%8 == 1 && g.Len() == 1 && found && sc == float64(v)
		case *list.List:
			return v%8 == 0 && slices.Equal(g.Range(0, -1), []string{strconv.Itoa(v)})
		case *dict.Map:
			val, found := g.Get(strconv.Itoa(v))
			return v%8 == 4 && g.Len() == 1 && found && val == str(v)
		case *set.Set:
			return v%8 == 5 && g.Len() == 1 && g.Has(strconv.Itoa(v))
		case *Short:
			return v%4 >= 2 && string(g.Bytes()) == str(v) && g.Enc == uint8(v)
		}
		return false
	}
	randKey := func() string {
		switch k := r.IntN(100); {
		case k < 2:
			return ""
		case k < 4:
			return strings.Repeat("L", maxArenaKey+1+r.IntN(10)) // kept in long
		default:
			return "k" + strconv.Itoa(r.IntN(300))
		}
	}
	steps := 60_000
	if testing.Short() {
		steps = 10_000
	}
	for step := range steps {
		k := randKey()
		switch op := r.IntN(100); {
		case op < 45:
			v := r.IntN(values)
			switch {
			case v%4 == 3:
				kt.SetShort(k, []byte(str(v)), uint8(v))
			case v%4 == 2 && r.IntN(2) == 0:
				if _, ok := m.vals[k]; !ok {
					kt.Add(k, newValue(v))
					break
				}
				fallthrough
			default:
				kt.Set(k, newValue(v))
			}
			if _, ok := m.vals[k]; !ok {
				m.order = append(m.order, k)
			}
			m.vals[k] = v
		case op < 90:
			if got, want := kt.Del(k), m.del(k); got != want {
				t.Fatalf("step %d: del(%.20q) = %v; want %v", step, k, got, want)
			}
		case op < 99:
			// A full SCAN with a random COUNT returns every key once, in creation order.
			var got []string
			cursor, count := uint64(0), 1+r.IntN(50)
			for {
				i := kt.Seek(cursor)
				for seen := 0; i < len(kt.ents) && seen < count; i++ {
					if kt.Live(i) {
						got = append(got, kt.KeyCopy(i))
						seen++
					}
				}
				for i < len(kt.ents) && !kt.Live(i) {
					i++
				}
				if i == len(kt.ents) {
					break
				}
				cursor = kt.ents[i].seq
			}
			if !slices.Equal(got, m.order) {
				t.Fatalf("step %d: scan returned %d keys; want %d in creation order", step, len(got), len(m.order))
			}
		default:
			kt.Reset()
			m = keyModel{vals: map[string]int{}}
		}
		if err := kt.Check(); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if kt.n != len(m.vals) {
			t.Fatalf("step %d: %d keys; want %d", step, kt.n, len(m.vals))
		}
		if step%97 == 0 {
			for key, v := range m.vals {
				if got := kt.Get(key); !same(got, v) {
					t.Fatalf("step %d: get(%.20q) = %v; want box %d", step, key, got, v)
				}
				if i, v, ok := kt.FindValue(key, Hash(key)); !ok || v != kt.Value(i) {
					t.Fatalf("step %d: findValue(%.20q) = %d, %p, %v: not the entry's value", step, key, i, v, ok)
				}
			}
		}
	}
}

// TestPackVal checks that a value's kind and slot survive packVal unless the slot is too
// large for the word, which packs as 0: fetch then returns nil and findValue reads the
// entry.
func TestPackVal(t *testing.T) {
	var kt Table
	kt.AddZSet("z")
	kt.AddList("l")
	kt.AddHash("h", dict.DefaultLimits).Set("f", "v")
	kt.AddSet("s").Add("1", set.DefaultLimits)
	for _, tc := range []struct {
		kind uint8
		ref  uint32
		want uint32
	}{
		{kindZSet, 0, 1 << valKindShift},
		{kindList, 7, 2<<valKindShift | 7},
		{kindZSet, valRefMask, 1<<valKindShift | valRefMask},
		{kindList, valRefMask + 1, 0},
		{kindZSet, math.MaxUint32, 0},
		{kindSet, valRefMask, 7<<valKindShift | valRefMask},
	} {
		if got := packVal(tc.kind, tc.ref); got != tc.want {
			t.Errorf("packVal(%d, %#x) = %#x; want %#x", tc.kind, tc.ref, got, tc.want)
		}
	}
	if v := kt.fetch(0); v != nil {
		t.Errorf("fetch(0) = %p; want nil", v)
	}
	for _, key := range []string{"z", "l", "h", "s"} {
		i, ok := kt.Find(key)
		if !ok {
			t.Fatalf("find(%q) = %d, false", key, i)
		}
		e := kt.ents[i]
		if got, want := kt.fetch(packVal(e.kind, e.ref)), kt.Value(i); got != want {
			t.Errorf("fetch of %q's packed value = %p; want the entry's value %p", key, got, want)
		}
		// A value whose slot did not fit: the index holds 0 for it.
		kt.vals[kt.slotOf(Hash(key)<<32|uint64(i+1))] = 0
		if j, v, ok := kt.FindValue(key, Hash(key)); !ok || j != i || v != kt.Value(i) {
			t.Errorf("findValue(%q) with val 0 = %d, %p, %v; want %d, %p", key, j, v, ok, i, kt.Value(i))
		}
	}
}

// TestWarmSteps runs the three steps of a pipeline's read-ahead (warmIndex,
// warmEntry, warmValue) for keys present and absent, at their home slot and displaced,
// empty and kept in long, on an empty table too, and checks that they change nothing.
func TestWarmSteps(t *testing.T) {
	var kt Table
	warm := func(key string) {
		h := Hash(key)
		kt.WarmIndex(h)
		kt.WarmEntry(h)
		kt.WarmValue(h)
	}
	warm("absent") // no index yet
	keys := []string{"", strings.Repeat("L", maxArenaKey+1)}
	for i := range 500 {
		keys = append(keys, "k"+strconv.Itoa(i))
	}
	for i, k := range keys {
		switch i % 4 {
		case 0:
			kt.AddZSet(k).Add(zset.AddOptions{}, zset.Entry{Member: k, Score: float64(i)})
		case 1:
			kt.AddList(k).PushBack(k)
		case 2:
			kt.AddHash(k, dict.DefaultLimits).Set(k, "v")
		case 3:
			kt.AddSet(k).Add(k, set.DefaultLimits)
		}
	}
	displaced := 0
	for _, k := range append(keys, "absent", "k-none") {
		if i, ok := kt.Find(k); ok && kt.index[kt.home(Hash(k))] != Hash(k)<<32|uint64(i+1) {
			displaced++
		}
		warm(k)
	}
	if displaced == 0 {
		t.Fatal("no key away from its home slot: the displaced case is not exercised")
	}
	if err := kt.Check(); err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		switch v := kt.Get(k).(type) {
		case *zset.Set:
			if sc, ok := v.Score(k); i%4 != 0 || !ok || sc != float64(i) || v.Len() != 1 {
				t.Fatalf("%.10q: set of %d, score %v %v", k, v.Len(), sc, ok)
			}
		case *list.List:
			if i%4 != 1 || !slices.Equal(v.Range(0, -1), []string{k}) {
				t.Fatalf("%.10q: list %d items", k, v.Len())
			}
		case *dict.Map:
			if i%4 != 2 || v.Len() != 1 || !v.Has(k) {
				t.Fatalf("%.10q: hash of %d fields", k, v.Len())
			}
		case *set.Set:
			if i%4 != 3 || v.Len() != 1 || !v.Has(k) {
				t.Fatalf("%.10q: set of %d members", k, v.Len())
			}
		default:
			t.Fatalf("%.10q: value %T", k, v)
		}
	}
}

// TestOtherValues checks that a value of a type the table has no slab for is kept
// as it is given: found, replaced, detached and deleted like the others.
func TestOtherValues(t *testing.T) {
	type blob struct{ b []byte }
	var kt Table
	a, b := &blob{[]byte("a")}, &blob{[]byte("b")}
	i := kt.Add("x", a)
	kt.AddZSet("z")
	if got := kt.Value(i); got != any(a) {
		t.Fatalf("Value = %v, want the value added", got)
	}
	if _, v, ok := kt.FindValue("x", Hash("x")); !ok || v != any(a) {
		t.Fatalf("FindValue = %v, %v", v, ok)
	}
	kt.Set("x", b)
	if got := kt.Get("x"); got != any(b) {
		t.Fatalf("after Set, Get = %v", got)
	}
	kt.Set("z", a) // a sorted set's key takes a value of another type
	j, _ := kt.Find("z")
	if got := kt.Detached(j); got != any(a) {
		t.Fatalf("Detached = %v", got)
	}
	if err := kt.Check(); err != nil {
		t.Fatal(err)
	}
	if !kt.Del("x") || kt.Get("x") != nil || kt.Len() != 1 {
		t.Fatalf("after Del: Get = %v, Len = %d", kt.Get("x"), kt.Len())
	}
	if err := kt.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestShortViews checks that a string the table hands out, held in its entry or in
// a slot, stays a valid view of its bytes while other keys are added (the entries
// grow and move) and deleted (compaction), and that SetShort takes a view of the
// key's own string and changes the string between its entry and a slot.
func TestShortViews(t *testing.T) {
	var kt Table
	kt.SetShort("tiny", []byte("123456"), 1)
	kt.SetShort("short", []byte("1234567"), 2)
	tiny, short := kt.Get("tiny").(*Short), kt.Get("short").(*Short)
	for i := range 5000 {
		kt.SetShort("k"+strconv.Itoa(i), []byte(strconv.Itoa(i)), 0)
	}
	for i := range 4900 {
		kt.Del("k" + strconv.Itoa(i))
	}
	if kt.dead != 0 && len(kt.ents) > 200 {
		t.Fatalf("%d entries, %d dead: no compaction ran", len(kt.ents), kt.dead)
	}
	if string(tiny.Bytes()) != "123456" || tiny.Enc != 1 || string(short.Bytes()) != "1234567" || short.Enc != 2 {
		t.Fatalf("views after growth and compaction: %q/%d, %q/%d", tiny.Bytes(), tiny.Enc, short.Bytes(), short.Enc)
	}
	for _, tc := range []struct {
		key  string
		view func() []byte
		want string
	}{
		{"tiny", func() []byte { return kt.Get("tiny").(*Short).Bytes()[1:] }, "23456"},
		{"tiny", func() []byte { return append(kt.Get("tiny").(*Short).Bytes(), "789"...) }, "23456789"},
		{"short", func() []byte { return kt.Get("short").(*Short).Bytes()[:3] }, "123"},
		{"short", func() []byte { return kt.Get("short").(*Short).Bytes()[1:] }, "23"},
	} {
		kt.SetShort(tc.key, tc.view(), 3)
		if got := kt.Get(tc.key).(*Short); string(got.Bytes()) != tc.want || got.Enc != 3 {
			t.Errorf("%s: %q/%d; want %q/3", tc.key, got.Bytes(), got.Enc, tc.want)
		}
		if err := kt.Check(); err != nil {
			t.Fatal(err)
		}
	}
	if got := kt.shorts.n - uint32(len(kt.shorts.free)); got != 1 {
		t.Errorf("%d string slots in use; want 1 (tiny's 8 bytes)", got)
	}
}
