package zlite

import (
	"fmt"
	"math/rand/v2"
	"os"
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
		if (e.kind == kindNone) != (e.val == nil) {
			return fmt.Errorf("entry %d: kind %d with value %p", i, e.kind, e.val)
		}
		if !t.live(i) {
			dead++
			continue
		}
		live++
		if j, ok := t.find(t.key(i)); !ok || j != i {
			return fmt.Errorf("entry %d (%q): find = %d, %v", i, t.key(i), j, ok)
		}
	}
	if live != t.n || dead != t.dead {
		return fmt.Errorf("%d live, %d dead entries; counted %d, %d", live, dead, t.n, t.dead)
	}
	used := 0
	for _, v := range t.index {
		if v == 0 {
			continue
		}
		used++
		e := int(uint32(v) - 1)
		if e >= len(t.ents) || !t.live(e) || keyHash(t.key(e)) != v>>32 {
			return fmt.Errorf("index slot %#x names no live entry with that hash", v)
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
	boxes := make([]any, 64) // values of both kinds, compared by identity
	for i := range boxes {
		if i%2 == 0 {
			boxes[i] = list.New()
		} else {
			boxes[i] = zset.New()
		}
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
			v := r.IntN(len(boxes))
			kt.set(k, boxes[v])
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
				if got := kt.get(key); got != boxes[v] {
					t.Fatalf("step %d: get(%.20q) = %v; want box %d", step, key, got, v)
				}
			}
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
