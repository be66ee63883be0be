package keytable

import (
	"fmt"
	"reflect"
	"slices"
)

// check verifies the key table's invariants (see Table) and returns the first
// violation.
func (t *Table) Check() error {
	live, dead, arenaEnd := 0, 0, uint32(0)
	refs := map[uint8]map[uint32]bool{} // the slots of live entries, by kind
	slots := map[uint8]uint32{kindZSet: t.zsets.n, kindList: t.lists.n, kindHash: t.hashes.n, kindSet: t.sets.n,
		kindOther: t.others.n, kindShort: t.shorts.n} // the slots handed out, by kind
	for k := range slots {
		refs[k] = map[uint32]bool{}
	}
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
		if e.kind >= numKinds || e.kind == kindNone && (e.ref != 0 || e.tiny != 0) {
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
			if n := slots[e.kind]; e.ref >= n || refs[e.kind][e.ref] {
				return fmt.Errorf("entry %d (%q): slot %d of kind %d out of %d or taken twice", i, t.Key(i), e.ref, e.kind, n)
			}
			refs[e.kind][e.ref] = true
		}
		if j, ok := t.Find(t.Key(i)); !ok || j != i {
			return fmt.Errorf("entry %d (%q): find = %d, %v", i, t.Key(i), j, ok)
		}
	}
	if live != t.n || dead != t.dead {
		return fmt.Errorf("%d live, %d dead entries; counted %d, %d", live, dead, t.n, t.dead)
	}
	for _, c := range []struct {
		name string
		err  error
	}{
		{"zsets", checkSlab(&t.zsets, refs[kindZSet])},
		{"lists", checkSlab(&t.lists, refs[kindList])},
		{"hashes", checkSlab(&t.hashes, refs[kindHash])},
		{"sets", checkSlab(&t.sets, refs[kindSet])},
		{"others", checkSlab(&t.others, refs[kindOther])},
		{"shorts", checkSlab(&t.shorts, refs[kindShort])},
	} {
		if c.err != nil {
			return fmt.Errorf("%s: %v", c.name, c.err)
		}
	}
	for ref := range refs[kindShort] {
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
// that every free slot is empty (the zero value: nothing left for the collector to
// keep), and that the chunks have their sizes.
func checkSlab[T any](s *slab[T], live map[uint32]bool) error {
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
		if !reflect.ValueOf(s.at(ref)).Elem().IsZero() {
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
