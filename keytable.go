package zlite

import (
	"fmt"
	"hash/maphash"
	"math"
	"sort"
	"unsafe"

	"github.com/zlite/zlite/list"
	"github.com/zlite/zlite/zset"
)

// keyTable maps key names to values (a *zset.Set or *list.List). It is the keyspace's
// only record of its keys, built so that a key costs little beyond its bytes and the
// garbage collector sees one pointer per key (its value) and no per-key objects. A
// sharded keyspace holds one per shard. It is not safe for concurrent use.
//
// Layout:
//   - ents holds one 24-byte keyEnt per key in creation order, deleted keys included
//     until the next compaction: the key's place in arena (or in long), its length,
//     its value as a bare pointer and the value's type (an interface would take 16
//     bytes instead of 9), and its SCAN sequence number. The value sits in the entry
//     rather than in a slice of its own so that a lookup touches one cache line
//     fewer (index slot, entry, key bytes).
//   - arena holds the bytes of the keys back to back, in creation order. A key longer
//     than maxArenaKey, or one that would take the arena past 4 GiB, is kept as a
//     string in long instead, so a hostile key cannot make the arena grow by its size
//     twice.
//   - index is an open-addressing hash table with linear probing, Robin Hood
//     placement and backward-shift deletion: a slot holds the entry's number + 1 in
//     its low 32 bits (0 = empty) and the key's 32-bit hash in its high bits, so
//     probing reads a key's bytes only when the hashes match. Its load stays between
//     3/32 and 7/8.
//
// SCAN's cursor is a sequence number: entries are in increasing seq order, so the
// entry to resume from is found by binary search, and compaction (which drops deleted
// entries once they are the majority) keeps every live entry's seq and relative
// order, so cursors stay valid across deletes, growth and compaction.
type keyTable struct {
	ents    []keyEnt
	arena   []byte
	long    []string
	index   []uint64
	n       int    // live keys
	dead    int    // deleted entries still in ents
	nextSeq uint64 // seq of the next key added; seqs start at 1 (0 ends a SCAN)
}

// keyEnt is a key's entry: its bytes are arena[off:off+n], or long[off] when n is
// longKey; val is its value, of the type kind names (kindNone and nil once deleted);
// seq is its SCAN sequence number. ttl is set while the key has an expiry time, kept
// by the DB in a side table keyed by seq (expire.go); it sits in what would be
// padding, so keys without a TTL pay no byte for it.
type keyEnt struct {
	off  uint32
	n    uint16
	kind uint8
	ttl  bool
	seq  uint64
	val  unsafe.Pointer
}

// The types of value a key can hold.
const (
	kindNone uint8 = iota // a deleted entry
	kindZSet              // *zset.Set
	kindList              // *list.List
)

const (
	longKey     = math.MaxUint16 // keyEnt.n of a key kept in long
	maxArenaKey = 4096           // longer keys are kept in long
	maxArena    = math.MaxUint32 // arena size above which keys go to long
)

// split returns v's kind and pointer.
func split(v any) (uint8, unsafe.Pointer) {
	switch v := v.(type) {
	case *zset.Set:
		return kindZSet, unsafe.Pointer(v)
	case *list.List:
		return kindList, unsafe.Pointer(v)
	}
	panic(fmt.Sprintf("zlite: a key cannot hold a %T", v))
}

// value returns entry i's value, or nil for a deleted entry.
func (t *keyTable) value(i int) any {
	switch t.ents[i].kind {
	case kindZSet:
		return (*zset.Set)(t.ents[i].val)
	case kindList:
		return (*list.List)(t.ents[i].val)
	}
	return nil
}

// keySeed hashes keys: the high 32 bits of a key's hash choose its slot in its
// shard's key table (keyHash), the low bits of its hash tag's its shard (shardHash).
var keySeed = maphash.MakeSeed()

// keyHash returns key's hash in its shard's key table. O(len(key)).
func keyHash(key string) uint64 { return maphash.String(keySeed, key) >> 32 }

// key returns entry i's name without copying; it is valid until the table changes.
func (t *keyTable) key(i int) string {
	e := t.ents[i]
	if e.n == longKey {
		return t.long[e.off]
	}
	if e.n == 0 {
		return ""
	}
	return unsafe.String(&t.arena[e.off], int(e.n))
}

// keyCopy returns entry i's name as a fresh string, safe to hand to callers.
func (t *keyTable) keyCopy(i int) string {
	e := t.ents[i]
	if e.n == longKey {
		return t.long[e.off]
	}
	return string(t.arena[e.off : e.off+uint32(e.n)])
}

// find returns the entry number of key. The complexity is O(1) on average.
func (t *keyTable) find(key string) (int, bool) { return t.findHash(key, keyHash(key)) }

// findHash is find given keyHash(key).
func (t *keyTable) findHash(key string, hash uint64) (int, bool) {
	if t.n == 0 {
		return 0, false
	}
	mask := uint64(len(t.index) - 1)
	for i, d := hash&mask, uint64(0); ; i, d = (i+1)&mask, d+1 {
		v := t.index[i]
		if v == 0 || (i-v>>32)&mask < d {
			// An empty slot, or one nearer its home than key would be: under Robin
			// Hood placement key would have taken it.
			return 0, false
		}
		if v>>32 == hash {
			if e := int(uint32(v) - 1); t.key(e) == key {
				return e, true
			}
		}
	}
}

// get returns the value at key, or nil.
func (t *keyTable) get(key string) any {
	if i, ok := t.find(key); ok {
		return t.value(i)
	}
	return nil
}

// set makes v the value of key, adding the key (last in SCAN order) if it is absent.
// A key's expiry flag is left as it is.
func (t *keyTable) set(key string, v any) {
	if i, ok := t.find(key); ok {
		t.ents[i].kind, t.ents[i].val = split(v)
		return
	}
	t.add(key, v)
}

// add stores v under key, which must be absent. The complexity is O(1) amortised.
func (t *keyTable) add(key string, v any) {
	if t.nextSeq == 0 {
		t.nextSeq = 1
	}
	if (t.n+1)*8 > len(t.index)*7 {
		t.resize(max(8, len(t.index)*2))
	}
	kind, p := split(v)
	e := keyEnt{kind: kind, seq: t.nextSeq, val: p}
	t.nextSeq++
	if len(key) > maxArenaKey || uint64(len(t.arena)+len(key)) > maxArena {
		e.off, e.n = uint32(len(t.long)), longKey
		t.long = append(t.long, key)
	} else {
		e.off, e.n = uint32(len(t.arena)), uint16(len(key))
		t.arena = append(t.arena, key...)
	}
	t.put(keyHash(key)<<32 | uint64(len(t.ents)+1))
	t.ents = append(t.ents, e)
	t.n++
}

// put places an index slot value by Robin Hood insertion: walking from its home slot,
// it takes the place of the first slot whose value is nearer its own home, and that
// value goes on in its stead. Displacements stay short and even, so the index can be
// kept 7/8 full.
func (t *keyTable) put(v uint64) {
	mask := uint64(len(t.index) - 1)
	for i, d := v>>32&mask, uint64(0); ; i, d = (i+1)&mask, d+1 {
		cur := t.index[i]
		if cur == 0 {
			t.index[i] = v
			return
		}
		if cd := (i - cur>>32) & mask; cd < d {
			t.index[i], v, d = v, cur, cd
		}
	}
}

// resize rebuilds the index with size slots (a power of two).
func (t *keyTable) resize(size int) {
	old := t.index
	t.index = make([]uint64, size)
	for _, v := range old {
		if v != 0 {
			t.put(v)
		}
	}
}

// del deletes key and reports whether it existed. The complexity is O(1) amortised.
func (t *keyTable) del(key string) bool {
	i, ok := t.find(key)
	if ok {
		t.delAt(i, key)
	}
	return ok
}

// delAt deletes entry i, whose name is key (which may be a view of the arena: it is
// not read after the table starts changing). The complexity is O(1) amortised.
func (t *keyTable) delAt(i int, key string) {
	t.n--
	t.unindex(keyHash(key)<<32 | uint64(i+1))
	t.ents[i].kind, t.ents[i].val, t.ents[i].ttl = kindNone, nil, false
	if i == len(t.ents)-1 {
		// The newest key: drop its entry and bytes outright (the common
		// create-then-delete case of a queue that fills and drains).
		if e := t.ents[i]; e.n == longKey {
			t.long[e.off] = ""
			t.long = t.long[:e.off]
		} else {
			t.arena = t.arena[:e.off]
		}
		t.ents = t.ents[:i]
		return
	}
	if e := t.ents[i]; e.n == longKey {
		t.long[e.off] = "" // let the GC have it now
	}
	t.dead++
	if t.dead > 32 && t.dead*2 > len(t.ents) {
		t.compact()
	}
}

// unindex removes the index slot holding v, which must be present.
func (t *keyTable) unindex(v uint64) {
	mask := uint64(len(t.index) - 1)
	i := v >> 32 & mask
	for t.index[i] != v {
		i = (i + 1) & mask
	}
	// Backward shift: the values after the hole that are not in their home slot move
	// back one, which keeps the Robin Hood order.
	for j := (i + 1) & mask; t.index[j] != 0 && (j-t.index[j]>>32)&mask != 0; j = (j + 1) & mask {
		t.index[i] = t.index[j]
		i = j
	}
	t.index[i] = 0
	if len(t.index) > 8 && t.n*32 < len(t.index)*3 {
		t.resize(len(t.index) / 2)
	}
}

// compact drops the deleted entries and their key bytes, keeping every live entry's
// seq, so SCAN cursors stay valid, and rebuilds the index for the new entry numbers.
// Slices far larger than what they now hold are reallocated, so a keyspace that
// shrinks gives its memory back. The complexity is O(entries + key bytes).
func (t *keyTable) compact() {
	ents := t.ents[:0]
	arena, long := t.arena[:0], t.long[:0]
	for _, e := range t.ents {
		if e.kind == kindNone {
			continue
		}
		if e.n == longKey {
			s := t.long[e.off]
			e.off = uint32(len(long))
			long = append(long, s)
		} else {
			// Live bytes only move down, so copying in place is safe.
			off := uint32(len(arena))
			arena = append(arena, t.arena[e.off:e.off+uint32(e.n)]...)
			e.off = off
		}
		ents = append(ents, e)
	}
	clear(t.ents[len(ents):])
	clear(t.long[len(long):])
	t.ents = shrink(ents)
	t.arena, t.long = shrink(arena), shrink(long)
	t.dead = 0
	clear(t.index)
	for i := range t.ents {
		t.put(keyHash(t.key(i))<<32 | uint64(i+1))
	}
}

// shrink returns s, or a copy of it when its capacity is more than twice its length.
func shrink[S ~[]E, E any](s S) S {
	if cap(s) > 2*len(s)+8 {
		return append(S(nil), s...)
	}
	return s
}

// reset deletes every key and gives the memory back. Sequence numbers go on from
// where they were, so a cursor from before never matches a key created after.
func (t *keyTable) reset() {
	*t = keyTable{nextSeq: t.nextSeq}
}

// seek returns the number of the first entry with seq ≥ seq. The complexity is
// O(log entries).
func (t *keyTable) seek(seq uint64) int {
	return sort.Search(len(t.ents), func(i int) bool { return t.ents[i].seq >= seq })
}

// live reports whether entry i holds a key.
func (t *keyTable) live(i int) bool { return t.ents[i].kind != kindNone }
