package keytable

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/zlite/zlite/list"
	"github.com/zlite/zlite/zset"
)

// check verifies the key table's invariants (see Table) and returns the first
// violation.
func (t *Table) Check() error {
	live, dead, arenaEnd := 0, 0, uint32(0)
	setRefs, listRefs, otherRefs, shortRefs := map[uint32]bool{}, map[uint32]bool{}, map[uint32]bool{}, map[uint32]bool{} // slots of live entries
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
		if e.kind > kindTiny || e.kind == kindNone && (e.ref != 0 || e.tiny != 0) {
			return fmt.Errorf("entry %d: kind %d with slot %d", i, e.kind, e.ref)
		}
		if !t.Live(i) {
			dead++
			continue
		}
		live++
		if e.kind == kindTiny {
			if s := t.tinyAt(i); s.n > tinyMax || slices.ContainsFunc(s.b[s.n:tinyMax], func(c byte) bool { return c != 0 }) {
				return fmt.Errorf("entry %d (%q): string of %d bytes in the entry, or bytes after it", i, t.Key(i), s.n)
			}
		} else {
			slots := map[uint8]map[uint32]bool{kindZSet: setRefs, kindList: listRefs, kindOther: otherRefs, kindShort: shortRefs}[e.kind]
			if n := map[uint8]uint32{kindZSet: t.sets.n, kindList: t.lists.n, kindOther: t.others.n, kindShort: t.shorts.n}[e.kind]; e.ref >= n || slots[e.ref] {
				return fmt.Errorf("entry %d (%q): slot %d of kind %d out of %d or taken twice", i, t.Key(i), e.ref, e.kind, n)
			}
			slots[e.ref] = true
		}
		if j, ok := t.Find(t.Key(i)); !ok || j != i {
			return fmt.Errorf("entry %d (%q): find = %d, %v", i, t.Key(i), j, ok)
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
	if err := checkSlab(&t.others, otherRefs, func(v *any) bool { return *v == nil }); err != nil {
		return fmt.Errorf("others: %v", err)
	}
	if err := checkSlab(&t.shorts, shortRefs, func(v *Short) bool { return *v == Short{} }); err != nil {
		return fmt.Errorf("shorts: %v", err)
	}
	for ref := range shortRefs {
		if n := t.shorts.at(ref).n; n <= tinyMax {
			return fmt.Errorf("shorts: slot %d holds %d bytes, which its entry should", ref, n)
		}
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
		if e >= len(t.ents) || !t.Live(e) || Hash(t.Key(e)) != v>>32 {
			return fmt.Errorf("index slot %#x names no live entry with that hash", v)
		}
		if ent := t.ents[e]; t.vals[j] != ent.packed() {
			return fmt.Errorf("index slot %d (entry %d, kind %d, slot %d) has val %#x", j, e, ent.kind, ent.ref, t.vals[j])
		}
	}
	if used != t.n {
		return fmt.Errorf("index holds %d keys; want %d", used, t.n)
	}
	if t.n > 0 && (len(t.index)%8 != 0 || t.n*8 > len(t.index)*7) {
		return fmt.Errorf("index of %d slots for %d keys", len(t.index), t.n)
	}
	// Robin Hood order: a value is at most one slot further from its home than the
	// value before it, and in its home slot after an empty one.
	for j := range t.index {
		pj := uint64(len(t.index) - 1)
		if j > 0 {
			pj = uint64(j - 1)
		}
		v, prev := t.index[j], t.index[pj]
		if v == 0 {
			continue
		}
		d := t.dist(uint64(j), v>>32)
		if prev == 0 && d != 0 || prev != 0 && d > t.dist(pj, prev>>32)+1 {
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
