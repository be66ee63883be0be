package dict

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"unsafe"
)

// The table encoding holds no pointer per entry, so that the garbage collector has
// three slices to look at whatever the number of fields:
//
//   - arena: the entries' bytes, in the packed format (uvarint field length, field,
//     uvarint value length, value), appended as they are written. A value updated to
//     one no longer is rewritten in place (the bytes it no longer needs become
//     garbage); a longer one is appended and the old copy becomes garbage, unless it
//     ends the arena and so grows in place.
//   - recs: one record per field ever added and not yet compacted away, in creation
//     order: the offset of the field's entry in the arena (deadBit once deleted) and a
//     sequence number, increasing along recs, that survives compaction and serves as
//     the Scan cursor. An update changes the offset, never the place or the number,
//     so the iteration order is the insertion order, as in the packed encoding.
//   - index: open addressing with Robin Hood linear probing and backward-shift
//     deletion. A slot is the top 32 bits of the field's hash (maphash, seeded per
//     process) above the record's number plus one; 0 is an empty slot. The home slot is
//     the top bits of the stored hash, so growing, shrinking and renumbering never read
//     the arena, and a probe reads a field only when the 32 bits match. The index is
//     at most 7/8 full and, above minIndex slots, at least 1/8 full.
//
// Dead records are dropped (recs rebuilt, index slots renumbered) once they outnumber
// the live ones, and the arena is rebuilt, in record order, once its capacity exceeds
// twice the live bytes (maybeCompact, after a deletion or an update); both are also
// done, with more room, instead of growing a full arena or recs that a quarter of
// garbage or dead records would otherwise be copied with (makeRoom). Each costs
// O(live) after Θ(live) deletions or bytes of garbage, O(1) amortised. A dead record at the end of recs is dropped at once, with the dead
// ones before it, and an entry that ends the arena is cut off when it dies, so a field
// added and deleted costs nothing.

var seed = maphash.MakeSeed()

const (
	minIndex = 8       // the smallest index
	deadBit  = 1 << 63 // in rec.off
	// maxRecs bounds len(recs), so that a record's number plus one fits the 32 bits of
	// a slot and the index, at most 7/8 full, needs at most 2^32 slots (the home slot
	// is the top bits of a 32-bit tag). So a table holds at most 3·2^30 fields.
	maxRecs = 3 << 30
)

// rec is the record of one entry of the arena.
type rec struct {
	off uint64 // the entry's offset in the arena, with deadBit once it is dead
	seq uint64 // the entry's creation number, increasing along recs, from 1
}

// table is the table encoding.
type table struct {
	arena     []byte
	recs      []rec
	index     []uint64 // tag<<32 | record number + 1, or 0
	live      int      // live records (fields)
	dead      int      // dead records
	liveBytes int      // bytes of the arena in live entries
	nextSeq   uint64   // the next entry's seq
	epoch     uint32   // incremented whenever recs are renumbered, for iterators
	shift     uint8    // 32 - log2(len(index)): a tag's home slot is tag >> shift
}

// hashTag returns the 32 bits of field's hash that the index keeps.
func hashTag(field string) uint32 { return uint32(maphash.String(seed, field) >> 32) }

// slot returns the index slot of record ri with this tag.
func slot(tag uint32, ri int) uint64 { return uint64(tag)<<32 | uint64(ri+1) }

// slotRec returns the record number of a non-empty slot.
func slotRec(s uint64) int { return int(uint32(s)) - 1 }

// home returns the home position of a non-empty slot.
func (t *table) home(s uint64) int { return int(uint32(s>>32) >> t.shift) }

// indexSize returns the size of an index for n fields: the smallest power of two, at
// least minIndex, at most 7/8 full.
func indexSize(n int) int {
	size := minIndex
	for n > size/8*7 {
		size *= 2
	}
	return size
}

// newTable returns a table of the n packed entries p, taking p as its arena, with room
// in the index for one more.
func newTable(p []byte, n int) *table {
	t := &table{arena: p, recs: make([]rec, 0, n+1), nextSeq: 1}
	t.setIndex(indexSize(n + 1))
	for off := 0; off < len(p); {
		fs, fe, _, ve := decodeEntry(p, off)
		ri := len(t.recs)
		t.recs = append(t.recs, rec{off: uint64(off), seq: t.nextSeq})
		t.nextSeq++
		tag := uint32(maphash.Bytes(seed, p[fs:fe]) >> 32)
		t.insertSlot(slot(tag, ri), int(tag>>t.shift), 0)
		t.live++
		t.liveBytes += ve - off
		off = ve
	}
	return t
}

// setIndex replaces the index with an empty one of size slots.
func (t *table) setIndex(size int) {
	t.index = make([]uint64, size)
	t.shift = uint8(32 - bits.TrailingZeros(uint(size)))
}

// resize rebuilds the index with size slots.
func (t *table) resize(size int) {
	old := t.index
	t.setIndex(size)
	for _, s := range old {
		if s != 0 {
			t.insertSlot(s, t.home(s), 0)
		}
	}
}

// find looks field up. If it is present, pos is its slot. If not, pos is where a
// slot for it goes, d its distance from its home there.
func (t *table) find(field string, tag uint32) (pos, d int, ok bool) {
	mask := len(t.index) - 1
	pos = int(tag >> t.shift)
	for d = 0; ; d++ {
		s := t.index[pos]
		if s == 0 || (pos-t.home(s))&mask < d {
			return pos, d, false
		}
		if uint32(s>>32) == tag && t.fieldIs(slotRec(s), field) {
			return pos, d, true
		}
		pos = (pos + 1) & mask
	}
}

// fieldIs reports whether live record ri's field is field.
func (t *table) fieldIs(ri int, field string) bool {
	a := t.arena
	fl, fs := uvarint(a, int(t.recs[ri].off))
	return int(fl) == len(field) && string(a[fs:fs+int(fl)]) == field
}

// insertSlot puts slot s at pos, d from its home, moving the slots richer than it
// along (Robin Hood).
func (t *table) insertSlot(s uint64, pos, d int) {
	mask := len(t.index) - 1
	for {
		cur := t.index[pos]
		if cur == 0 {
			t.index[pos] = s
			return
		}
		if cd := (pos - t.home(cur)) & mask; cd < d {
			t.index[pos], s, d = s, cur, cd
		}
		pos = (pos + 1) & mask
		d++
	}
}

// removeSlot empties the slot at pos, shifting the slots after it back.
func (t *table) removeSlot(pos int) {
	mask := len(t.index) - 1
	for {
		next := (pos + 1) & mask
		s := t.index[next]
		if s == 0 || (next-t.home(s))&mask == 0 {
			t.index[pos] = 0
			return
		}
		t.index[pos] = s
		pos = next
	}
}

// entry returns the arena bounds of record ri's field and value.
func (t *table) entry(ri int) (fs, fe, vs, ve int) {
	return decodeEntry(t.arena, int(t.recs[ri].off&^deadBit))
}

// get returns field's value as a view of the arena.
func (t *table) get(field string) ([]byte, bool) {
	pos, _, ok := t.find(field, hashTag(field))
	if !ok {
		return nil, false
	}
	_, _, vs, ve := t.entry(slotRec(t.index[pos]))
	return t.arena[vs:ve:ve], true
}

// put appends an entry to the arena and returns its offset.
func (t *table) put(field, value string) int {
	off := len(t.arena)
	size := entrySize(len(field), len(value))
	t.arena = slices.Grow(t.arena, size)[:off+size]
	putEntry(t.arena[off:], field, value)
	t.liveBytes += size
	return off
}

// add appends a new field and its record and returns the record's number.
func (t *table) add(field, value string) int {
	t.recs = append(t.recs, rec{off: uint64(t.put(field, value)), seq: t.nextSeq})
	t.nextSeq++
	return len(t.recs) - 1
}

// update sets the value of live record ri, whose entry is t.arena[off:ve] with its
// value's length at fe.
func (t *table) update(ri, off, fe, ve int, field, value string) {
	t.liveBytes -= ve - off
	size := entrySize(len(field), len(value))
	if size <= ve-off {
		k := fe + binary.PutUvarint(t.arena[fe:], uint64(len(value)))
		copy(t.arena[k:], value)
		t.liveBytes += size
		if ve == len(t.arena) {
			t.arena = t.arena[:off+size]
		}
		return
	}
	if ve == len(t.arena) {
		t.arena = t.arena[:off]
	}
	t.recs[ri].off = uint64(t.put(field, value))
}

// set is Map.Set.
func (t *table) set(field, value string) bool {
	t.makeRoom(entrySize(len(field), len(value)))
	tag := hashTag(field)
	pos, d, found := t.find(field, tag)
	if found {
		ri := slotRec(t.index[pos])
		_, fe, vs, ve := t.entry(ri)
		if ve-vs == len(value) {
			copy(t.arena[vs:ve], value)
			return false
		}
		t.update(ri, int(t.recs[ri].off), fe, ve, field, value)
		t.maybeCompact()
		return false
	}
	if uint64(len(t.recs)) >= maxRecs {
		t.compact(false, 0) // renumbers the slots, moves none: pos and d hold
		if uint64(len(t.recs)) >= maxRecs {
			panic("dict: more than 3·2^30 fields")
		}
	}
	if t.live+1 > len(t.index)/8*7 {
		t.resize(2 * len(t.index))
		pos, d = int(tag>>t.shift), 0
	}
	t.insertSlot(slot(tag, t.add(field, value)), pos, d)
	t.live++
	return true
}

// delete is Map.Delete. The caller drops a table it leaves empty.
func (t *table) delete(field string) bool {
	pos, _, ok := t.find(field, hashTag(field))
	if !ok {
		return false
	}
	ri := slotRec(t.index[pos])
	t.removeSlot(pos)
	t.kill(ri)
	t.live--
	if t.live == 0 {
		return true
	}
	if len(t.index) > minIndex && t.live*8 < len(t.index) {
		t.resize(indexSize(2 * t.live))
	}
	t.maybeCompact()
	return true
}

// kill marks record ri dead (the caller updates the index and t.live). A dead record
// at the end of recs is dropped, with the dead ones before it, and an entry at the end
// of the arena is cut off.
func (t *table) kill(ri int) {
	off := int(t.recs[ri].off)
	_, _, _, ve := decodeEntry(t.arena, off)
	t.liveBytes -= ve - off
	if ve == len(t.arena) {
		t.arena = t.arena[:off]
	}
	if ri < len(t.recs)-1 {
		t.recs[ri].off = deadBit
		t.dead++
		return
	}
	t.recs = t.recs[:ri]
	for len(t.recs) > 0 && t.recs[len(t.recs)-1].off&deadBit != 0 {
		t.recs = t.recs[:len(t.recs)-1]
		t.dead--
	}
}

// maybeCompact rebuilds the records when the dead ones outnumber the live ones or
// their capacity is more than twice the live ones, and the arena too when its capacity
// is more than twice the live bytes.
func (t *table) maybeCompact() {
	if cap(t.arena) > 2*t.liveBytes+64 {
		t.compact(true, 0)
	} else if t.dead > t.live || cap(t.recs) > 2*t.live+16 {
		t.compact(false, 0)
	}
}

// makeRoom prepares the arena for an entry of size bytes and recs for one more
// record: when one is full and a quarter of it is garbage, it compacts instead of
// letting append grow it (and copy the garbage) only for the next deletion to compact
// it.
func (t *table) makeRoom(size int) {
	if len(t.arena)+size > cap(t.arena) && len(t.arena)-t.liveBytes >= t.liveBytes/4 {
		t.compact(true, size)
	} else if len(t.recs) == cap(t.recs) && t.dead >= t.live/4 {
		t.compact(false, 1)
	}
}

// compact drops the dead records, renumbering the records in the index, and if arena
// is true rebuilds the arena with the live entries in record order. Sequence numbers
// and order are kept. New slices have room for 1/8 more, or if grow is not 0 (the
// table makes room for a write), for 1/2 more plus grow bytes and a record: a table
// whose writes make garbage (deletions and new fields, values that grow) then copies
// each live byte once per half its size of garbage, and holds at most 1.5 times its
// live bytes and records.
//
// The renumbering reads, for each index slot, a bitmap of the live records with the
// count of live records before each word of it: 1/8 of the records' size, so that it
// stays in cache where the records would not.
func (t *table) compact(arena bool, grow int) {
	old := t.recs
	room, extra := t.live/8, t.liveBytes/8
	if grow != 0 {
		room, extra = t.live/2+1, t.liveBytes/2+grow
	}
	renumber := t.dead > 0
	recs := old[:0] // in place when no record goes
	if renumber || cap(old) > 2*t.live+16 {
		recs = make([]rec, 0, t.live+room)
	}
	var a []byte
	if arena {
		a = allocBytes(t.liveBytes + extra)
	}
	type word struct {
		live uint64 // bit i%64 of word i/64: record i is live
		rank uint32 // live records before the word
	}
	var words []word
	if renumber {
		words = make([]word, (len(old)+63)/64)
	}
	for i, r := range old {
		if r.off&deadBit != 0 {
			continue
		}
		if arena {
			off := int(r.off)
			_, _, _, ve := decodeEntry(t.arena, off)
			r.off = uint64(len(a))
			a = append(a, t.arena[off:ve]...)
		}
		if renumber {
			words[i/64].live |= 1 << (i % 64)
		}
		recs = append(recs, r)
	}
	if renumber {
		n := uint32(0)
		for i := range words {
			words[i].rank = n
			n += uint32(bits.OnesCount64(words[i].live))
		}
		for i, s := range t.index {
			if s != 0 {
				ri := slotRec(s)
				w := words[ri/64]
				nr := int(w.rank) + bits.OnesCount64(w.live&(1<<(ri%64)-1))
				t.index[i] = s&^math.MaxUint32 | uint64(nr+1)
			}
		}
	}
	t.recs, t.dead = recs, 0
	if arena {
		t.arena = a
	}
	t.epoch++
}

// seek returns the number of the first record with a seq of at least seq.
func (t *table) seek(seq uint64) int {
	i, _ := slices.BinarySearchFunc(t.recs, seq, func(r rec, seq uint64) int { return cmp.Compare(r.seq, seq) })
	return i
}

// all is Map.All for m, whose table is t.
func (t *table) all(m *Map, yield func(string, string) bool) {
	epoch := t.epoch
	for i := 0; i < len(t.recs); i++ {
		r := t.recs[i]
		if r.off&deadBit != 0 {
			continue
		}
		fs, fe, vs, ve := t.entry(i)
		if !yield(string(t.arena[fs:fe]), string(t.arena[vs:ve])) || m.tab() != t {
			return
		}
		if t.epoch != epoch {
			epoch = t.epoch
			i = t.seek(r.seq+1) - 1
		}
	}
}

// scan is Map.Scan for m, whose table is t, with count >= 1.
func (t *table) scan(m *Map, cursor uint64, count int, yield func(string, string) bool) uint64 {
	maxSkip := math.MaxInt
	if count < math.MaxInt/10 {
		maxSkip = 10 * count
	}
	epoch := t.epoch
	yielded, skipped := 0, 0
	for i := t.seek(cursor); i < len(t.recs); i++ {
		r := t.recs[i]
		if yielded == count || skipped == maxSkip {
			return r.seq
		}
		if r.off&deadBit != 0 {
			skipped++
			continue
		}
		yielded++
		fs, fe, vs, ve := t.entry(i)
		if !yield(string(t.arena[fs:fe]), string(t.arena[vs:ve])) || m.tab() != t {
			return r.seq + 1
		}
		if t.epoch != epoch {
			epoch = t.epoch
			i = t.seek(r.seq+1) - 1
		}
	}
	return 0
}

// random returns a uniformly random entry: the index is a power of two at least 1/8
// full, so drawing slots until an occupied one takes at most 8 draws on average.
func (t *table) random(r *rand.Rand) (field, value []byte) {
	mask := uint64(len(t.index) - 1)
	for {
		var x uint64
		if r == nil {
			x = rand.Uint64()
		} else {
			x = r.Uint64()
		}
		if s := t.index[x&mask]; s != 0 {
			fs, fe, vs, ve := t.entry(slotRec(s))
			return t.arena[fs:fe], t.arena[vs:ve]
		}
	}
}

// clone returns a deep copy of t.
func (t *table) clone() *table {
	c := *t
	c.arena = bytes.Clone(t.arena)
	c.recs = slices.Clone(t.recs)
	c.index = slices.Clone(t.index)
	return &c
}

// memoryUsage returns the bytes of heap t holds.
func (t *table) memoryUsage() int {
	return int(unsafe.Sizeof(*t)) + cap(t.arena) + cap(t.recs)*int(unsafe.Sizeof(rec{})) + cap(t.index)*8
}

// check verifies t's invariants, for the tests.
func (t *table) check() error {
	if t.live < 1 {
		return fmt.Errorf("table of %d fields", t.live)
	}
	size := len(t.index)
	if size < minIndex || size&(size-1) != 0 || int(t.shift) != 32-bits.TrailingZeros(uint(size)) {
		return fmt.Errorf("index of %d slots, shift %d", size, t.shift)
	}
	if t.live > size/8*7 || (size > minIndex && t.live*8 < size) {
		return fmt.Errorf("index of %d slots for %d fields", size, t.live)
	}
	live, dead, liveBytes := 0, 0, 0
	var seq uint64
	type span struct{ off, end int }
	var spans []span
	for i, r := range t.recs {
		if r.seq <= seq || r.seq >= t.nextSeq {
			return fmt.Errorf("record %d: seq %d after %d, next %d", i, r.seq, seq, t.nextSeq)
		}
		seq = r.seq
		if r.off&deadBit != 0 {
			if r.off != deadBit {
				return fmt.Errorf("dead record %d has offset %#x", i, r.off)
			}
			dead++
			continue
		}
		off := int(r.off)
		_, _, _, ve, ok := checkedEntry(t.arena, off)
		if !ok {
			return fmt.Errorf("record %d: no entry at %d of %d bytes", i, off, len(t.arena))
		}
		spans = append(spans, span{off, ve})
		live++
		liveBytes += ve - off
	}
	if live != t.live || dead != t.dead || liveBytes != t.liveBytes {
		return fmt.Errorf("records: %d live, %d dead, %d live bytes; counted %d, %d, %d",
			live, dead, liveBytes, t.live, t.dead, t.liveBytes)
	}
	if t.recs[len(t.recs)-1].off&deadBit != 0 {
		return fmt.Errorf("the last of %d records is dead", len(t.recs))
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.off, b.off) })
	for i := 1; i < len(spans); i++ {
		if spans[i].off < spans[i-1].end {
			return fmt.Errorf("entries at %d..%d and %d..%d overlap", spans[i-1].off, spans[i-1].end, spans[i].off, spans[i].end)
		}
	}
	if t.dead > t.live || len(t.arena)-t.liveBytes > t.liveBytes+64 {
		return fmt.Errorf("%d dead records for %d live, %d bytes of arena for %d live", t.dead, t.live, len(t.arena), t.liveBytes)
	}
	if cap(t.recs) > 4*t.live+32 || cap(t.arena) > 4*t.liveBytes+256 {
		return fmt.Errorf("capacity of %d records for %d live, of %d bytes for %d live", cap(t.recs), t.live, cap(t.arena), t.liveBytes)
	}
	seen := make([]bool, len(t.recs))
	n := 0
	mask := size - 1
	for pos, s := range t.index {
		if s == 0 {
			continue
		}
		n++
		ri := slotRec(s)
		if ri < 0 || ri >= len(t.recs) || t.recs[ri].off&deadBit != 0 || seen[ri] {
			return fmt.Errorf("slot %d: record %d of %d, dead or seen twice", pos, ri, len(t.recs))
		}
		seen[ri] = true
		fs, fe, _, _ := t.entry(ri)
		field := string(t.arena[fs:fe])
		if uint32(s>>32) != hashTag(field) {
			return fmt.Errorf("slot %d: tag %#x, field %q hashes to %#x", pos, uint32(s>>32), field, hashTag(field))
		}
		if d := (pos - t.home(s)) & mask; d > 0 {
			prev := t.index[(pos-1)&mask]
			if prev == 0 || (pos-1-t.home(prev))&mask < d-1 {
				return fmt.Errorf("slot %d: distance %d after a slot of distance less than %d", pos, d, d-1)
			}
		}
		if p, _, ok := t.find(field, hashTag(field)); !ok || p != pos {
			return fmt.Errorf("field %q in slot %d found at %d, %v", field, pos, p, ok)
		}
	}
	if n != t.live {
		return fmt.Errorf("index holds %d slots for %d fields", n, t.live)
	}
	return nil
}
