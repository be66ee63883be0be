package zlite

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zlite/zlite/list"
	"github.com/zlite/zlite/zset"
)

// check verifies the key table's invariants (see keyTable) and returns the first
// violation.
func (t *keyTable) check() error {
	live, dead, arenaEnd := 0, 0, uint32(0)
	setRefs, listRefs := map[uint32]bool{}, map[uint32]bool{} // slots of live entries
	for i, e := range t.ents {
		if i > 0 && e.seq <= t.ents[i-1].seq {
			return fmt.Errorf("entry %d: seq %d not above %d", i, e.seq, t.ents[i-1].seq)
		}
		if e.seq == 0 || e.seq >= t.nextSeq {
			return fmt.Errorf("entry %d: seq %d outside 1..%d", i, e.seq, t.nextSeq-1)
		}
		if e.n == longKey {
			if int(e.off) >= len(t.long) {
				return fmt.Errorf("entry %d: long key %d of %d", i, e.off, len(t.long))
			}
		} else {
			if e.off < arenaEnd || uint64(e.off)+uint64(e.n) > uint64(len(t.arena)) {
				return fmt.Errorf("entry %d: arena bytes %d+%d, previous end %d, arena %d", i, e.off, e.n, arenaEnd, len(t.arena))
			}
			arenaEnd = e.off + uint32(e.n)
		}
		if e.kind > kindList || e.kind == kindNone && e.ref != 0 {
			return fmt.Errorf("entry %d: kind %d with slot %d", i, e.kind, e.ref)
		}
		if !t.live(i) {
			dead++
			continue
		}
		live++
		slots := map[uint8]map[uint32]bool{kindZSet: setRefs, kindList: listRefs}[e.kind]
		if n := map[uint8]uint32{kindZSet: t.sets.n, kindList: t.lists.n}[e.kind]; e.ref >= n || slots[e.ref] {
			return fmt.Errorf("entry %d (%q): slot %d of kind %d out of %d or taken twice", i, t.key(i), e.ref, e.kind, n)
		}
		slots[e.ref] = true
		if j, ok := t.find(t.key(i)); !ok || j != i {
			return fmt.Errorf("entry %d (%q): find = %d, %v", i, t.key(i), j, ok)
		}
	}
	if live != t.n || dead != t.dead {
		return fmt.Errorf("%d live, %d dead entries; counted %d, %d", live, dead, t.n, t.dead)
	}
	if err := checkSlab(&t.sets, setRefs, func(s *zset.Set) bool { return *s == zset.Set{} }); err != nil {
		return fmt.Errorf("sets: %v", err)
	}
	if err := checkSlab(&t.lists, listRefs, func(l *list.List) bool { return reflect.ValueOf(l).Elem().IsZero() }); err != nil {
		return fmt.Errorf("lists: %v", err)
	}
	used := 0
	if len(t.vals) != len(t.index) {
		return fmt.Errorf("%d vals for %d index slots", len(t.vals), len(t.index))
	}
	for j, v := range t.index {
		if v == 0 {
			if t.vals[j] != 0 {
				return fmt.Errorf("empty index slot %d has val %#x", j, t.vals[j])
			}
			continue
		}
		used++
		e := int(uint32(v) - 1)
		if e >= len(t.ents) || !t.live(e) || keyHash(t.key(e)) != v>>32 {
			return fmt.Errorf("index slot %#x names no live entry with that hash", v)
		}
		if ent := t.ents[e]; t.vals[j] != packVal(ent.kind, ent.ref) {
			return fmt.Errorf("index slot %d (entry %d, kind %d, slot %d) has val %#x", j, e, ent.kind, ent.ref, t.vals[j])
		}
	}
	if used != t.n {
		return fmt.Errorf("index holds %d keys; want %d", used, t.n)
	}
	if t.n > 0 && (len(t.index)&(len(t.index)-1) != 0 || t.n*8 > len(t.index)*7) {
		return fmt.Errorf("index of %d slots for %d keys", len(t.index), t.n)
	}
	// Robin Hood order: a value is at most one slot further from its home than the
	// value before it, and in its home slot after an empty one.
	mask := uint64(len(t.index) - 1)
	for j := range t.index {
		v, prev := t.index[j], t.index[(uint64(j)-1)&mask]
		if v == 0 {
			continue
		}
		d := (uint64(j) - v>>32) & mask
		if prev == 0 && d != 0 || prev != 0 && d > (uint64(j)-1-prev>>32)&mask+1 {
			return fmt.Errorf("index slot %d: displacement %d after %#x", j, d, prev)
		}
	}
	if t.dead > 32 && t.dead*2 > len(t.ents) {
		return fmt.Errorf("%d dead of %d entries: not compacted", t.dead, len(t.ents))
	}
	return nil
}

// checkSlab verifies that s's slots are the live ones and the free ones, each once,
// that every free slot is empty, and that the chunks have their sizes.
func checkSlab[T any](s *slab[T], live map[uint32]bool, empty func(*T) bool) error {
	total := 0
	for c, ch := range s.chunks {
		if len(ch) != slabChunk(c, s.shift) {
			return fmt.Errorf("chunk %d of %d slots; want %d", c, len(ch), slabChunk(c, s.shift))
		}
		total += len(ch)
	}
	if int(s.n) > total || len(s.chunks) > 0 && int(s.n) <= total-slabChunk(len(s.chunks)-1, s.shift) {
		return fmt.Errorf("%d slots handed out from %d chunks of %d slots", s.n, len(s.chunks), total)
	}
	free := map[uint32]bool{}
	for _, ref := range s.free {
		if ref >= s.n || free[ref] || live[ref] {
			return fmt.Errorf("free slot %d: beyond %d, freed twice or live", ref, s.n)
		}
		if !empty(s.at(ref)) {
			return fmt.Errorf("free slot %d is not empty", ref)
		}
		free[ref] = true
	}
	if len(free)+len(live) != int(s.n) {
		return fmt.Errorf("%d free and %d live of %d slots", len(free), len(live), s.n)
	}
	return nil
}

// TestSlabPlace checks that slots map one to one onto the chunks, in order, for
// every chunk size, and the chunk sizes of the two slabs of a key table.
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
	var kt keyTable
	kt.addZSet("z")
	kt.add("l", list.New())
	if kt.sets.shift != 4 || kt.lists.shift != 5 {
		t.Fatalf("slab shifts %d (sets), %d (lists); want 4 (384-byte chunks) and 5 (3 KiB)", kt.sets.shift, kt.lists.shift)
	}
}

// TestKeyTableSetStable checks that a sorted set handed out by the table stays the
// key's value while other keys come and go (the chunks never move) and is emptied,
// not left holding its members, when its key is deleted.
func TestKeyTableSetStable(t *testing.T) {
	var kt keyTable
	s := kt.addZSet("keep")
	s.Add(zset.AddOptions{}, zset.Entry{Member: "m", Score: 1})
	for i := range 5000 {
		k := "k" + strconv.Itoa(i)
		kt.addZSet(k).Add(zset.AddOptions{}, zset.Entry{Member: k, Score: 2})
		if i%3 == 0 {
			kt.del(k)
		}
	}
	if got := kt.get("keep"); got != s {
		t.Fatalf("get(keep) = %p; want the set handed out, %p", got, s)
	}
	if sc, ok := s.Score("m"); !ok || sc != 1 {
		t.Fatalf("s.Score(m) = %v, %v; want 1, true", sc, ok)
	}
	kt.del("keep")
	if s.Len() != 0 {
		t.Fatalf("deleted key's set has %d members; want its slot emptied", s.Len())
	}
	if err := kt.check(); err != nil {
		t.Fatal(err)
	}
	// A deleted slot is reused by the next set.
	if s2 := kt.addZSet("again"); s2 != s {
		t.Fatalf("addZSet after a delete = %p; want the freed slot %p", s2, s)
	}
}

// TestKeyTableDetached checks RENAME's move: a detached set survives its entry's
// deletion and is stored under the new key with its members.
func TestKeyTableDetached(t *testing.T) {
	var kt keyTable
	kt.addZSet("a").Add(zset.AddOptions{}, zset.Entry{Member: "x", Score: 3})
	i, _ := kt.find("a")
	v := kt.detached(i)
	kt.delAt(i, "a")
	kt.add("b", v)
	got, ok := kt.get("b").(*zset.Set)
	if !ok {
		t.Fatalf("get(b) = %T; want *zset.Set", kt.get("b"))
	}
	if sc, ok := got.Score("x"); !ok || sc != 3 || got.Len() != 1 {
		t.Fatalf("renamed set: Score(x) = %v, %v, Len %d; want 3, true, 1", sc, ok, got.Len())
	}
	if kt.get("a") != nil {
		t.Fatalf("get(a) = %v after delete; want nil", kt.get("a"))
	}
	kt.addList("l").PushBack("p", "q")
	i, _ = kt.find("l")
	v = kt.detached(i)
	kt.delAt(i, "l")
	kt.add("m", v)
	if l, ok := kt.get("m").(*list.List); !ok || !slices.Equal(l.Range(0, -1), []string{"p", "q"}) {
		t.Fatalf("renamed list: get(m) = %v; want [p q]", kt.get("m"))
	}
	if err := kt.check(); err != nil {
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

// ztestSeed returns the seed for randomized tests, from ZLITE_SEED when set.
func ztestSeed(t *testing.T) uint64 {
	t.Helper()
	s := rand.Uint64()
	if env := os.Getenv("ZLITE_SEED"); env != "" {
		var err error
		if s, err = strconv.ParseUint(env, 10, 64); err != nil {
			t.Fatalf("ZLITE_SEED=%q: %v", env, err)
		}
	}
	t.Logf("seed %d (set ZLITE_SEED=%d to replay)", s, s)
	return s
}

// TestKeyTableModel runs random adds, replacements, deletes, resets and SCANs against
// a map and a creation-ordered slice, checking the invariants after every step.
func TestKeyTableModel(t *testing.T) {
	r := rand.New(rand.NewPCG(ztestSeed(t), 10))
	var kt keyTable
	m := keyModel{vals: map[string]int{}}
	// Values of both kinds, which the table moves into its own storage: value v is a
	// list (v even) or a sorted set (v odd) holding the one element strconv.Itoa(v).
	const values = 64
	newValue := func(v int) any {
		if v%2 == 0 {
			l := list.New()
			l.PushBack(strconv.Itoa(v))
			return l
		}
		s := zset.New()
		s.Add(zset.AddOptions{}, zset.Entry{Member: strconv.Itoa(v), Score: float64(v)})
		return s
	}
	same := func(got any, v int) bool {
		switch g := got.(type) {
		case *zset.Set:
			sc, found := g.Score(strconv.Itoa(v))
			return v%2 == 1 && g.Len() == 1 && found && sc == float64(v)
		case *list.List:
			return v%2 == 0 && slices.Equal(g.Range(0, -1), []string{strconv.Itoa(v)})
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
	if testing.Short() || raceEnabled {
		steps = 10_000
	}
	for step := range steps {
		k := randKey()
		switch op := r.IntN(100); {
		case op < 45:
			v := r.IntN(values)
			kt.set(k, newValue(v))
			if _, ok := m.vals[k]; !ok {
				m.order = append(m.order, k)
			}
			m.vals[k] = v
		case op < 90:
			if got, want := kt.del(k), m.del(k); got != want {
				t.Fatalf("step %d: del(%.20q) = %v; want %v", step, k, got, want)
			}
		case op < 99:
			// A full SCAN with a random COUNT returns every key once, in creation order.
			var got []string
			cursor, count := uint64(0), 1+r.IntN(50)
			for {
				i := kt.seek(cursor)
				for seen := 0; i < len(kt.ents) && seen < count; i++ {
					if kt.live(i) {
						got = append(got, kt.keyCopy(i))
						seen++
					}
				}
				for i < len(kt.ents) && !kt.live(i) {
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
			kt.reset()
			m = keyModel{vals: map[string]int{}}
		}
		if err := kt.check(); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if kt.n != len(m.vals) {
			t.Fatalf("step %d: %d keys; want %d", step, kt.n, len(m.vals))
		}
		if step%97 == 0 {
			for key, v := range m.vals {
				if got := kt.get(key); !same(got, v) {
					t.Fatalf("step %d: get(%.20q) = %v; want box %d", step, key, got, v)
				}
				if i, v, ok := kt.findValue(key, keyHash(key)); !ok || v != kt.value(i) {
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
	var kt keyTable
	kt.addZSet("z")
	kt.addList("l")
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
	} {
		if got := packVal(tc.kind, tc.ref); got != tc.want {
			t.Errorf("packVal(%d, %#x) = %#x; want %#x", tc.kind, tc.ref, got, tc.want)
		}
	}
	if v := kt.fetch(0); v != nil {
		t.Errorf("fetch(0) = %p; want nil", v)
	}
	for _, key := range []string{"z", "l"} {
		i, ok := kt.find(key)
		if !ok {
			t.Fatalf("find(%q) = %d, false", key, i)
		}
		e := kt.ents[i]
		if got, want := kt.fetch(packVal(e.kind, e.ref)), kt.value(i); got != want {
			t.Errorf("fetch of %q's packed value = %p; want the entry's value %p", key, got, want)
		}
		// A value whose slot did not fit: the index holds 0 for it.
		kt.vals[kt.slotOf(keyHash(key)<<32|uint64(i+1))] = 0
		if j, v, ok := kt.findValue(key, keyHash(key)); !ok || j != i || v != kt.value(i) {
			t.Errorf("findValue(%q) with val 0 = %d, %p, %v; want %d, %p", key, j, v, ok, i, kt.value(i))
		}
	}
}

// TestScanCursorAcrossCompaction checks that a SCAN cursor taken before many deletes
// (and the compaction they cause) and before growth resumes at the same key.
func TestScanCursorAcrossCompaction(t *testing.T) {
	db := New(WithShards(1)) // SCAN's order is a shard's creation order
	sh := &db.shards[0]
	tx := &sh.rtx
	tx.begin(db.all)
	for i := range 1000 {
		sh.add(fmt.Sprintf("k%04d", i), list.New())
	}
	first, cursor, _ := tx.Scan(0, "", 500)
	if len(first) != 500 || first[499] != "k0499" {
		t.Fatalf("first SCAN page: %d keys ending %q", len(first), first[len(first)-1])
	}
	for i := range 600 {
		if i != 500 {
			sh.del(fmt.Sprintf("k%04d", i))
		}
	}
	if len(sh.keys.ents) >= 1000 {
		t.Fatalf("%d entries (%d dead) after 599 deletes of 1000: not compacted", len(sh.keys.ents), sh.keys.dead)
	}
	for i := range 3000 {
		sh.add(fmt.Sprintf("n%04d", i), list.New())
	}
	if err := sh.keys.check(); err != nil {
		t.Fatal(err)
	}
	rest, _, _ := tx.Scan(cursor, "", 1)
	if len(rest) != 1 || rest[0] != "k0500" {
		t.Fatalf("SCAN resumed at %q; want k0500", rest)
	}
}

// TestWarmSteps runs the three steps of a pipeline's read-ahead (warmIndex,
// warmEntry, warmValue) for keys present and absent, at their home slot and displaced,
// empty and kept in long, on an empty table too, and checks that they change nothing.
func TestWarmSteps(t *testing.T) {
	var kt keyTable
	warm := func(key string) {
		h := keyHash(key)
		kt.warmIndex(h)
		kt.warmEntry(h)
		kt.warmValue(h)
	}
	warm("absent") // no index yet
	keys := []string{"", strings.Repeat("L", maxArenaKey+1)}
	for i := range 500 {
		keys = append(keys, "k"+strconv.Itoa(i))
	}
	for i, k := range keys {
		if i%2 == 0 {
			kt.addZSet(k).Add(zset.AddOptions{}, zset.Entry{Member: k, Score: float64(i)})
		} else {
			kt.addList(k).PushBack(k)
		}
	}
	mask := uint64(len(kt.index) - 1)
	displaced := 0
	for _, k := range append(keys, "absent", "k-none") {
		if i, ok := kt.find(k); ok && kt.index[keyHash(k)&mask] != keyHash(k)<<32|uint64(i+1) {
			displaced++
		}
		warm(k)
	}
	if displaced == 0 {
		t.Fatal("no key away from its home slot: the displaced case is not exercised")
	}
	if err := kt.check(); err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		switch v := kt.get(k).(type) {
		case *zset.Set:
			if sc, ok := v.Score(k); i%2 != 0 || !ok || sc != float64(i) || v.Len() != 1 {
				t.Fatalf("%.10q: set of %d, score %v %v", k, v.Len(), sc, ok)
			}
		case *list.List:
			if i%2 != 1 || !slices.Equal(v.Range(0, -1), []string{k}) {
				t.Fatalf("%.10q: list %d items", k, v.Len())
			}
		default:
			t.Fatalf("%.10q: value %T", k, v)
		}
	}
}
