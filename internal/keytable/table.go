package keytable

import (
	"math"
	"math/bits"
	"slices"
	"sort"
	"unsafe"

	"github.com/zlite/zlite/dict"
	"github.com/zlite/zlite/internal/prefetch"
	"github.com/zlite/zlite/list"
	"github.com/zlite/zlite/set"
	"github.com/zlite/zlite/zset"
)

// Table maps key names to values (a *zset.Set, a *list.List, a *dict.Map, a
// *set.Set, a short string as a *Short, or any other value, kept as it is given). It
// is the keyspace's only record of its keys, built so that a key costs little beyond
// its bytes and the garbage collector sees as few pointers and objects per key as
// possible: none in the entry, the key or the index, and the value's own header (the
// zset.Set, list.List, dict.Map or set.Set) is no object of its own but a slot in
// the table. A sharded keyspace holds one per shard. It is not safe for concurrent
// use.
//
// Layout:
//   - ents holds one 24-byte entry per key in creation order, deleted keys included
//     until the next compaction: the key's place in arena (or in long), its length,
//     the value's type and its slot in the slab of its type (ref), and its SCAN
//     sequence number; a string of up to 6 bytes (a counter) is held in the entry
//     itself, in the 8 bytes of ref and padding. An entry holds no pointer, so the
//     collector never scans ents. Past 1024 entries it grows by an eighth at a
//     time, and a compaction writes a new array, so a string held in an entry and
//     handed out stays readable while its command deletes other keys.
//   - zsets, lists, hashes and sets hold the values themselves, the 24-byte
//     zset.Set, the 96-byte list.List, the 24-byte dict.Map and the 32-byte set.Set,
//     by value, in slabs of chunks that never move (see slab): a pointer to one
//     handed out stays valid, and is the key's value, until the key is deleted or the
//     table reset. So a small sorted set, hash or integer set is one heap object (its
//     buffer) and one pointer (from its slot) for the collector, where it was two and
//     two (entry → header → buffer), and a one-page list is one object (its page)
//     where it was two; a lookup reads the header in the slot, then the contents. A
//     set of strings keeps its dict.Map behind a pointer, so that integer sets,
//     which have none, do not pay for its 24 bytes. A value stored from outside (Add,
//     Set: COPY, RENAME, the *STORE commands, loading a snapshot) is moved in: a
//     sorted set's, hash's or set's header is copied, a list's contents swapped in
//     (list.List.Swap).
//   - arena holds the bytes of the keys back to back, in creation order, growing by
//     an eighth past 4 KiB. A key longer
//     than maxArenaKey, or one that would take the arena past 4 GiB, is kept as a
//     string in long instead, so a hostile key cannot make the arena grow by its size
//     twice.
//   - index is an open-addressing hash table with linear probing, Robin Hood
//     placement and backward-shift deletion: a slot holds the entry's number + 1 in
//     its low 32 bits (0 = empty) and the key's 32-bit hash in its high bits, so
//     probing reads a key's bytes only when the hashes match. It grows by an eighth
//     (see home), and its load stays between 3/32 and 7/8.
//   - vals, beside index, holds for each slot the value's kind and slot in its slab
//     (packVal), so that a lookup finds the value without reading the entry, and
//     starts reading the value's contents (zset.Set.Prefetch, list.List.Prefetch,
//     dict.Map.Prefetch, set.Set.Prefetch) before it compares the key's bytes.
//     Among many keys every one of these reads misses the cache, and a lookup used
//     to wait for them one after another: index slot, entry, value's slot, value's
//     bytes (and for a set of more than 8 entries its index at the end, then the
//     entry found there). Now it waits for three: the index slot and its val; the
//     entry and the value's slot; the key's bytes and the value's first lines, each
//     pair read at once (a set of strings, whose map is behind a pointer, waits for
//     the map's header there and its contents after). It costs 4 bytes per index
//     slot, 4.6–9 per key.
//
// A deleted key's slot is emptied at once (its set's buffer or tree, its list's
// pages, its hash's storage, are left to the collector) and reused by the next key of
// its type. The slots themselves stay until reset: a keyspace that shrinks keeps 24
// bytes per sorted set, 96 per list, 40 per hash and 32 per set of its peak count
// (Redis, too, keeps most of its freed memory). Because a deleted key's slot is
// reused, a value in a slot must not be used after its key is deleted: RENAME takes
// the value out with Detached first, and an emptied list's buffers are moved to the
// shard's spare (dropIfEmpty) before its key goes.
//
// A value in a slot rather than on the heap makes a forced collection with many small
// keys alive cheaper, and vals makes a lookup among many keys faster, for about five
// bytes a key; prefetching rather than ordinary loads is what lets a pipeline read
// ahead without stalling the command that runs meanwhile (docs/design.md gives the
// measurements).
//
// A pipeline warms its lookups ahead (WarmIndex, WarmEntry, WarmValue, called by
// DB.pipelineLocked for the three commands after the running one): each step reads only
// lines the step before brought in and starts the next ones, so a command finds its
// index slot, entry, value header, key bytes and value contents in the cache.
// Warming with ordinary loads instead would hold back the instructions after each
// load until its line arrives.
//
// SCAN's cursor is a sequence number: entries are in increasing seq order, so the
// entry to resume from is found by binary search, and compaction (which drops deleted
// entries once they are the majority) keeps every live entry's seq and relative
// order, so cursors stay valid across deletes, growth and compaction.
type Table struct {
	ents    []entry
	zsets   slab[zset.Set]
	lists   slab[list.List]
	hashes  slab[dict.Map]
	sets    slab[set.Set]
	shorts  slab[Short]
	others  slab[any] // values of any other type (strings longer than ShortMax), as they were given
	arena   []byte
	long    []string
	index   []uint64
	vals    []uint32 // vals[j] is packVal of index[j]'s entry
	n       int      // live keys
	dead    int      // deleted entries still in ents
	nextSeq uint64   // seq of the next key added; seqs start at 1 (0 ends a SCAN)
}

// entry is a key's entry: its bytes are arena[off:off+n], or long[off] when n is
// longKey; its value is the slot ref of the slab its kind names (zsets.at(ref),
// lists.at(ref), ...; kindNone once deleted), or for kindTiny a string of at most
// tinyMax bytes held in the entry's first 8 bytes (ref and tiny) laid out as a
// Short's first 8 (see tinyAt); seq is
// its SCAN sequence number. ttl is set while the key has an expiry time, kept by the
// DB in a side table keyed by seq (expire_store.go); it sits in what would be
// padding, so keys without a TTL pay no byte for it.
type entry struct {
	ref  uint32
	tiny uint32 // with ref, a kindTiny's string
	off  uint32
	n    uint16
	kind uint8
	ttl  bool
	seq  uint64
}

// packed is the entry's value as vals holds it (packVal).
func (e *entry) packed() uint32 {
	if e.kind == kindTiny {
		return packVal(kindTiny, 0)
	}
	return packVal(e.kind, e.ref)
}

// The types of value a key can hold.
const (
	kindNone  uint8 = iota // a deleted entry
	kindZSet               // a zset.Set in zsets
	kindList               // a list.List in lists
	kindOther              // any other value, in others
	kindShort              // a Short in shorts
	kindTiny               // a string of at most tinyMax bytes in the entry itself
	kindHash               // a dict.Map in hashes
	kindSet                // a set.Set in sets
	numKinds
)

// Every kind fits the top bits of a vals word (packVal).
var _ [1<<(32-valKindShift) - numKinds]byte

// ShortMax is the longest string a [Short] holds.
const ShortMax = 22

// tinyMax is the longest string held in its key's entry rather than in a Short
// slot: counters up to 999999, flags, small numbers.
const tinyMax = 6

// Short is a short string value held in the table's own pointer-free storage: a
// string key's value up to [ShortMax] bytes costs its 24-byte slot and nothing on
// the heap, nothing for the garbage collector to scan, and one of up to 6 bytes
// (a counter) not even the slot: it lives in the key's entry. Enc is the caller's
// (package zlite keeps OBJECT ENCODING's rule in it). A *Short the table hands out
// is a view, to be read, and written only through [Table.SetShort].
type Short struct {
	n   uint8
	Enc uint8
	b   [ShortMax]byte
}

// The entry of a kindTiny key is viewed as a Short (tinyAt): both are 24 bytes, and
// a Short's length, Enc and first 6 bytes are the entry's ref and tiny.
var (
	_ [unsafe.Sizeof(entry{}) - unsafe.Sizeof(Short{})]byte
	_ [unsafe.Sizeof(Short{}) - unsafe.Sizeof(entry{})]byte
	_ [unsafe.Offsetof(entry{}.off) - unsafe.Offsetof(Short{}.b) - tinyMax]byte
	_ [unsafe.Offsetof(Short{}.b) + tinyMax - unsafe.Offsetof(entry{}.off)]byte
)

// NewShort returns a Short holding b (at most [ShortMax] bytes) and enc, on the
// heap, for [Table.Add] or [Table.Set], which copy it into the table.
func NewShort(b []byte, enc uint8) *Short {
	s := &Short{}
	s.set(b, enc)
	return s
}

// Bytes returns the string's bytes: a view of the Short, valid while it holds
// them, with no room to append into.
func (s *Short) Bytes() []byte { return s.b[:s.n:s.n] }

// Len is 1: a string is one element (for the keyspace's counts).
func (s *Short) Len() int { return 1 }

// MemoryUsage is the bytes the string holds beyond its key's entry: its slot, or
// nothing for one of up to 6 bytes, which the entry holds.
func (s *Short) MemoryUsage() int {
	if s.n <= tinyMax {
		return 0
	}
	return int(unsafe.Sizeof(*s))
}

// set makes b (at most ShortMax bytes; not a view of s) the string, with enc. It
// writes only the bytes of b and clears the rest up to tinyMax, so on an entry
// viewed as a Short (tinyAt) it leaves the entry's own fields alone. It panics if
// b is longer than ShortMax.
func (s *Short) set(b []byte, enc uint8) {
	if len(b) > ShortMax {
		panic("keytable: a Short holds at most 22 bytes")
	}
	s.n, s.Enc = uint8(copy(s.b[:], b)), enc
	if len(b) < tinyMax {
		clear(s.b[len(b):tinyMax])
	}
}

// tinyAt returns entry i, of kind kindTiny, viewed as the Short it holds.
func (t *Table) tinyAt(i int) *Short { return (*Short)(unsafe.Pointer(&t.ents[i])) }

const (
	entsSlowGrowth  = 1024    // ents at least this long grow by 1/8 at a time
	arenaSlowGrowth = 4 << 10 // as does an arena of at least this many bytes
	indexSlowGrowth = 4096    // and an index of at least this many slots; a smaller one by 1/4

	longKey     = math.MaxUint16 // entry.n of a key kept in long
	maxArenaKey = 4096           // longer keys are kept in long
	maxArena    = math.MaxUint32 // arena size above which keys go to long
)

// slab holds values of type T in numbered slots, in chunks that never move: &at(ref)
// stays valid until reset. Chunk c holds slabChunk(c, shift) slots: 16, 16, 32, …
// up to 1<<shift, then 1<<shift each, so a small keyspace does not pay for a large
// chunk. shift is set by the first alloc: flatShift for pointer-free Shorts, 4 for
// other values of up to 32 bytes (zset.Set, dict.Map, set.Set: see smallChunk), else
// so that a full chunk is at most slabBytes (32 list.Lists, 3 KiB): a chunk holding
// pointers and larger than 512 bytes carries an 8-byte allocation header, and 3 KiB
// plus the header fits the 3200-byte size class (4% waste), where a power-of-two
// number of slots of 96 bytes in a larger class would waste 6-14% (a 1.5 or 6 KiB
// chunk goes to the 1792- or 6528-byte class). Freed slots are reused last-freed
// first.
type slab[T any] struct {
	chunks [][]T
	n      uint32   // slots handed out, freed ones included
	shift  uint8    // log2 of the slots of a full chunk
	free   []uint32 // freed slots
}

// slabBytes is the size of a full chunk, for values of 96 bytes (list.List); other
// sizes round the slots down to a power of two, at least 16.
const slabBytes = 3 << 10

// smallChunk is the largest chunk the collector scans span by span with its packed
// scanner and that carries no allocation header: values of at most 32 bytes (a
// zset.Set, a set.Set) get chunks of 16, at most 512 bytes. With 3 KiB chunks of sets (scanned
// object by object) a forced GC with 100k sets of 10 members alive cost 1.18 times
// the collector CPU of a heap Set per key; with 384-byte chunks 0.69 (8 paired
// rounds).
const smallChunk = 512

// flatShift is the shift of a slab of pointer-free values (Shorts): full chunks of
// 1024 slots, 24 KiB, a size class of its own.
const flatShift = 10

// slabPlace returns the chunk and the index in it of slot ref, in a slab whose full
// chunks hold 1<<shift slots (shift >= 4).
func slabPlace(ref uint32, shift uint8) (c, j uint32) {
	if ref >= 2<<shift {
		return ref>>shift + uint32(shift) - 4, ref & (1<<shift - 1)
	}
	c = uint32(bits.Len32(ref >> 4))
	if c == 0 {
		return 0, ref
	}
	return c, ref - 8<<c
}

// slabChunk returns the number of slots of chunk c.
func slabChunk(c int, shift uint8) int {
	switch {
	case c == 0:
		return 16
	case c < int(shift)-3:
		return 8 << c
	}
	return 1 << shift
}

// at returns slot ref, which must have been handed out by alloc. O(1).
func (s *slab[T]) at(ref uint32) *T {
	c, j := slabPlace(ref, s.shift)
	return &s.chunks[c][j]
}

// alloc returns a slot to fill: a freed one (holding the zero value) or a new one.
// O(1) amortised.
func (s *slab[T]) alloc() uint32 {
	if k := len(s.free); k > 0 {
		ref := s.free[k-1]
		s.free = s.free[:k-1]
		return ref
	}
	if s.shift == 0 {
		var v T
		size := max(1, unsafe.Sizeof(v))
		if _, flat := any(v).(Short); flat {
			// No pointers: the collector only marks a chunk, whatever its size, so
			// the fewer the better (1M short strings in 16-slot chunks made a forced
			// GC take 5 ms, 62,500 objects to mark).
			s.shift = flatShift
		} else if size*16 <= smallChunk {
			s.shift = 4 // 16 slots: a small chunk, no header, scanned span by span
		} else {
			s.shift = uint8(max(4, bits.Len(uint(slabBytes/size))-1))
		}
	}
	ref := s.n
	if _, j := slabPlace(ref, s.shift); j == 0 {
		s.chunks = append(s.chunks, make([]T, slabChunk(len(s.chunks), s.shift)))
	}
	s.n++
	return ref
}

// release empties slot ref, letting the collector have what it referred to, and
// makes it free for reuse.
func (s *slab[T]) release(ref uint32) {
	var zero T
	*s.at(ref) = zero
	s.free = append(s.free, ref)
}

// place makes v the value of entry i, whose own value is gone (a new entry, or one
// drop emptied), and returns its packVal. A sorted set's, a hash's or a set's header
// is copied: v may still be read (it has the same contents) but must not be written.
// A list's contents are moved (list.List.Swap): v is left empty. A Short is copied,
// into the entry itself when it fits. Any other value is kept as it is.
func (t *Table) place(i int, v any) uint32 {
	e := &t.ents[i]
	e.ref, e.tiny = 0, 0
	switch v := v.(type) {
	case *zset.Set:
		e.kind, e.ref = kindZSet, t.zsets.alloc()
		*t.zsets.at(e.ref) = *v
	case *dict.Map:
		e.kind, e.ref = kindHash, t.hashes.alloc()
		*t.hashes.at(e.ref) = *v
	case *set.Set:
		e.kind, e.ref = kindSet, t.sets.alloc()
		*t.sets.at(e.ref) = *v
	case *list.List:
		e.kind, e.ref = kindList, t.lists.alloc()
		t.lists.at(e.ref).Swap(v)
	case *Short:
		t.placeShort(i, v.Bytes(), v.Enc)
	default:
		e.kind, e.ref = kindOther, t.others.alloc()
		*t.others.at(e.ref) = v
	}
	return e.packed()
}

// placeShort is place for the string b with enc.
func (t *Table) placeShort(i int, b []byte, enc uint8) {
	e := &t.ents[i]
	if len(b) <= tinyMax {
		e.kind = kindTiny
		t.tinyAt(i).set(b, enc)
		return
	}
	e.kind, e.ref = kindShort, t.shorts.alloc()
	t.shorts.at(e.ref).set(b, enc)
}

// drop empties the slot of entry i's value.
func (t *Table) drop(i int) {
	switch e := &t.ents[i]; e.kind {
	case kindZSet:
		t.zsets.release(e.ref)
	case kindList:
		t.lists.release(e.ref)
	case kindHash:
		t.hashes.release(e.ref)
	case kindSet:
		t.sets.release(e.ref)
	case kindOther:
		t.others.release(e.ref)
	case kindShort:
		t.shorts.release(e.ref)
	}
	t.ents[i].ref, t.ents[i].tiny = 0, 0
}

// Value returns entry i's value, or nil for a deleted entry. It points into the
// table: it stays valid (and is the key's value) until the key is deleted or the table
// reset.
func (t *Table) Value(i int) any {
	switch e := &t.ents[i]; e.kind {
	case kindZSet:
		return t.zsets.at(e.ref)
	case kindList:
		return t.lists.at(e.ref)
	case kindHash:
		return t.hashes.at(e.ref)
	case kindSet:
		return t.sets.at(e.ref)
	case kindOther:
		return *t.others.at(e.ref)
	case kindShort:
		return t.shorts.at(e.ref)
	case kindTiny:
		return t.tinyAt(i)
	}
	return nil
}

// fetch returns the value of packVal val, nil for 0 and for a string held in its
// entry (which FindValue reads anyway), and starts reading its contents into the
// cache without waiting for them (zset.Set.Prefetch, list.List.Prefetch,
// dict.Map.Prefetch, set.Set.Prefetch).
func (t *Table) fetch(val uint32) any {
	switch ref := val & valRefMask; val >> valKindShift {
	case uint32(kindZSet):
		s := t.zsets.at(ref)
		s.Prefetch()
		return s
	case uint32(kindList):
		l := t.lists.at(ref)
		l.Prefetch()
		return l
	case uint32(kindHash):
		h := t.hashes.at(ref)
		h.Prefetch()
		return h
	case uint32(kindSet):
		s := t.sets.at(ref)
		s.Prefetch()
		return s
	case uint32(kindOther):
		return *t.others.at(ref)
	case uint32(kindShort):
		return t.shorts.at(ref)
	}
	return nil
}

// WarmIndex starts reading the index slot, and its val, where a lookup of a key of
// hash Hash begins, without waiting for them: the first of three steps, then
// warmEntry and warmValue, that make a lookup soon after it find what it reads in
// the cache (see DB.pipelineLocked). O(1).
func (t *Table) WarmIndex(hash uint64) {
	if len(t.index) == 0 {
		return
	}
	j := t.home(hash)
	prefetch.Line(unsafe.Pointer(&t.index[j]))
	prefetch.Line(unsafe.Pointer(&t.vals[j]))
}

// atHome returns the home index slot of Hash hash and the entry it names, if that
// slot holds hash: the only slot the warm steps look at. O(1).
func (t *Table) atHome(hash uint64) (j uint64, e int, ok bool) {
	if len(t.index) == 0 {
		return 0, 0, false
	}
	j = t.home(hash)
	v := t.index[j]
	return j, int(uint32(v)) - 1, v != 0 && v>>32 == hash
}

// WarmEntry starts reading the entry and the value's slot of the key of hash Hash
// when its index slot is its home one, which warmIndex should have read some time
// before, without waiting for them; a lookup of the key after it finds both in the
// cache and waits only for the key's bytes and the value's contents. O(1).
func (t *Table) WarmEntry(hash uint64) {
	j, e, ok := t.atHome(hash)
	if !ok {
		return
	}
	prefetch.Line(unsafe.Pointer(&t.ents[e]))
	var slot unsafe.Pointer
	switch val := t.vals[j]; val >> valKindShift {
	case uint32(kindZSet):
		slot = unsafe.Pointer(t.zsets.at(val & valRefMask))
	case uint32(kindList):
		slot = unsafe.Pointer(t.lists.at(val & valRefMask))
	case uint32(kindHash):
		slot = unsafe.Pointer(t.hashes.at(val & valRefMask))
	case uint32(kindSet):
		slot = unsafe.Pointer(t.sets.at(val & valRefMask))
	case uint32(kindShort):
		slot = unsafe.Pointer(t.shorts.at(val & valRefMask))
	default:
		return
	}
	prefetch.Line(slot)
}

// WarmValue starts reading the key's bytes and the value's contents of the key of
// hash Hash when its index slot is its home one, whose entry and value slot
// warmEntry should have read some time before, without waiting for them. O(1).
func (t *Table) WarmValue(hash uint64) {
	j, e, ok := t.atHome(hash)
	if !ok {
		return
	}
	if e := t.ents[e]; e.n != longKey && e.n != 0 {
		prefetch.Line(unsafe.Pointer(&t.arena[e.off]))
	}
	t.fetch(t.vals[j])
}

// packVal packs a value's kind and slot into a vals word: the kind in the top three
// bits, the slot below. A slot too large for 29 bits is packed as 0, which sends
// findValue to the entry.
func packVal(kind uint8, ref uint32) uint32 {
	if ref > valRefMask {
		return 0
	}
	return uint32(kind)<<valKindShift | ref
}

const (
	valKindShift = 29
	valRefMask   = 1<<valKindShift - 1
)

// Detached returns entry i's value in a form that stays valid after the entry is
// deleted, for moving it to another key (RENAME): a sorted set, a hash or a set as a
// copy of its header on the heap, sharing its contents, which the caller must not
// write before the entry is deleted; a list moved out to the heap, leaving the entry's
// list empty. A snapshot must therefore have copied the value first (shard.touch).
func (t *Table) Detached(i int) any {
	switch e := t.ents[i]; e.kind {
	case kindZSet:
		return heapCopy(t.zsets.at(e.ref))
	case kindHash:
		return heapCopy(t.hashes.at(e.ref))
	case kindSet:
		return heapCopy(t.sets.at(e.ref))
	case kindList:
		l := new(list.List)
		l.Swap(t.lists.at(e.ref))
		return l
	case kindOther:
		return *t.others.at(e.ref)
	case kindShort, kindTiny:
		s := t.Value(i).(*Short)
		return NewShort(s.Bytes(), s.Enc)
	}
	return nil
}

// heapCopy returns a copy of the header *v on the heap.
func heapCopy[T any](v *T) *T {
	c := new(T)
	*c = *v
	return c
}

// Hash returns key's hash in its shard's key table: the high 32 bits of
// strHash, whose low bits choose the shard of a hash tag (TagHash). O(len(key)).
func Hash(key string) uint64 { return strHash(key) >> 32 }

// Key returns entry i's name without copying; it is valid until the table changes.
func (t *Table) Key(i int) string {
	e := &t.ents[i]
	if e.n == longKey {
		return t.long[e.off]
	}
	if e.n == 0 {
		return ""
	}
	return unsafe.String(&t.arena[e.off], int(e.n))
}

// KeyCopy returns entry i's name as a fresh string, safe to hand to callers.
func (t *Table) KeyCopy(i int) string {
	e := t.ents[i]
	if e.n == longKey {
		return t.long[e.off]
	}
	return string(t.arena[e.off : e.off+uint32(e.n)])
}

// Find returns the entry number of key. The complexity is O(1) on average.
func (t *Table) Find(key string) (int, bool) { return t.FindHash(key, Hash(key)) }

// FindHash is [Table.Find] given [Hash](key).
func (t *Table) FindHash(key string, hash uint64) (int, bool) {
	i, _, ok := t.FindValue(key, hash)
	return i, ok
}

// FindValue is [Table.FindHash] that also returns the entry's value, as
// [Table.Value] does.
func (t *Table) FindValue(key string, hash uint64) (int, any, bool) {
	if t.n == 0 {
		return 0, nil, false
	}
	for i, d := t.home(hash), uint64(0); ; i, d = t.next(i), d+1 {
		v := t.index[i]
		if v == 0 || t.dist(i, v>>32) < d {
			// An empty slot, or one nearer its home than key would be: under Robin
			// Hood placement key would have taken it.
			return 0, nil, false
		}
		if v>>32 == hash {
			// The value is found, and its contents read, before the key's bytes are
			// compared: the reads overlap (see vals).
			val := t.fetch(t.vals[i])
			if e := int(uint32(v) - 1); t.Key(e) == key {
				if val == nil {
					val = t.Value(e)
				}
				return e, val, true
			}
		}
	}
}

// Get returns the value at key, or nil.
func (t *Table) Get(key string) any {
	_, v, _ := t.FindValue(key, Hash(key))
	return v
}

// Set makes v the value of key, adding the key (last in SCAN order) if it is absent.
// A key's expiry flag is left as it is.
func (t *Table) Set(key string, v any) {
	if s, ok := v.(*Short); ok {
		t.SetShort(key, s.Bytes(), s.Enc)
		return
	}
	if i, ok := t.Find(key); ok {
		if t.replace(i, v) {
			return
		}
		t.drop(i)
		t.vals[t.slotOf(Hash(key)<<32|uint64(i+1))] = t.place(i, v)
		return
	}
	t.Add(key, v)
}

// replace copies the header of v, a sorted set, a hash or a set, over entry i's value
// when that is of the same type, so that the key's pointer to its value stays the
// same, and reports whether it did. As with place, v must not be written afterwards.
func (t *Table) replace(i int, v any) bool {
	switch e := &t.ents[i]; v := v.(type) {
	case *zset.Set:
		if e.kind == kindZSet {
			*t.zsets.at(e.ref) = *v
			return true
		}
	case *dict.Map:
		if e.kind == kindHash {
			*t.hashes.at(e.ref) = *v
			return true
		}
	case *set.Set:
		if e.kind == kindSet {
			*t.sets.at(e.ref) = *v
			return true
		}
	}
	return false
}

// SetShort makes the string b (at most [ShortMax] bytes; it may be a view of the
// key's value) with enc the value of key, in place when key already holds a string
// of its size class (up to 6 bytes, in the entry; up to [ShortMax], in a slot),
// adding the key when it is absent. A key's expiry flag is left as it is. The
// complexity is O(1) amortised.
func (t *Table) SetShort(key string, b []byte, enc uint8) {
	if len(b) > ShortMax {
		panic("keytable: a Short holds at most 22 bytes")
	}
	var buf [ShortMax]byte
	b = buf[:copy(buf[:], b)] // b may be a view of the string it replaces
	h := Hash(key)
	i, ok := t.FindHash(key, h)
	if !ok {
		i = t.newEntry(key)
		t.placeShort(i, b, enc)
		t.indexEntry(h, i)
		return
	}
	switch e := &t.ents[i]; {
	case e.kind == kindTiny && len(b) <= tinyMax:
		t.tinyAt(i).set(b, enc)
		return
	case e.kind == kindShort && len(b) > tinyMax:
		t.shorts.at(e.ref).set(b, enc)
		return
	}
	t.drop(i)
	t.placeShort(i, b, enc)
	t.vals[t.slotOf(h<<32|uint64(i+1))] = t.ents[i].packed()
}

// AddZSet adds key, which must be absent, holding an empty sorted set with
// [zset.DefaultLimits], and returns the set. The complexity is O(1) amortised.
func (t *Table) AddZSet(key string) *zset.Set { return addSlot(t, &t.zsets, kindZSet, key) }

// AddList adds key, which must be absent, holding an empty list, and returns the
// list. The complexity is O(1) amortised.
func (t *Table) AddList(key string) *list.List { return addSlot(t, &t.lists, kindList, key) }

// AddHash adds key, which must be absent, holding an empty hash with limits l, and
// returns the hash. The complexity is O(1) amortised.
func (t *Table) AddHash(key string, l dict.Limits) *dict.Map {
	h := addSlot(t, &t.hashes, kindHash, key)
	if l != dict.DefaultLimits {
		*h = *dict.NewWithLimits(l)
	}
	return h
}

// AddSet adds key, which must be absent, holding an empty set (an intset), and
// returns the set. The complexity is O(1) amortised.
func (t *Table) AddSet(key string) *set.Set { return addSlot(t, &t.sets, kindSet, key) }

// addSlot adds key, which must be absent, holding the zero value in a new slot of s,
// of kind, and returns the slot.
func addSlot[T any](t *Table, s *slab[T], kind uint8, key string) *T {
	i := t.newEntry(key)
	e := &t.ents[i]
	e.kind, e.ref = kind, s.alloc()
	t.indexEntry(Hash(key), i)
	return s.at(e.ref)
}

// Add stores v under key, which must be absent; see place for what becomes of v.
// The complexity is O(1) amortised. It returns the new entry's number.
func (t *Table) Add(key string, v any) int {
	i := t.newEntry(key)
	t.place(i, v)
	t.indexEntry(Hash(key), i)
	return i
}

// newEntry adds an entry for key, which must be absent, last in SCAN order, with no
// value yet and not yet in the index (indexEntry puts it there once it has its value),
// and returns its number.
func (t *Table) newEntry(key string) int {
	if t.nextSeq == 0 {
		t.nextSeq = 1
	}
	e := entry{seq: t.nextSeq}
	t.nextSeq++
	if len(key) > maxArenaKey || uint64(len(t.arena)+len(key)) > maxArena {
		e.off, e.n = uint32(len(t.long)), longKey
		t.long = append(t.long, key)
	} else {
		e.off, e.n = uint32(len(t.arena)), uint16(len(key))
		if n := len(t.arena); n+len(key) > cap(t.arena) && n >= arenaSlowGrowth {
			t.arena = append(make([]byte, 0, n+max(len(key), n/8)), t.arena...)
		}
		t.arena = append(t.arena, key...)
	}
	if n := len(t.ents); n == cap(t.ents) && n >= entsSlowGrowth {
		// Grow by an eighth rather than append's quarter: the entries are most of
		// what a key costs, and a copy of them is 1/64 of the keyspace (a shard's).
		t.ents = append(slices.Grow([]entry(nil), n+n/8), t.ents...)
	}
	t.ents = append(t.ents, e)
	t.n++
	return len(t.ents) - 1
}

// indexEntry puts entry i, the new key of Hash hash with its value, in the index.
func (t *Table) indexEntry(hash uint64, i int) {
	if n := len(t.index); t.n*8 > n*7 {
		if n < indexSlowGrowth {
			t.resize(indexSize(n + n/4))
		} else {
			t.resize(indexSize(n + n/8))
		}
	}
	t.put(hash<<32|uint64(i+1), t.ents[i].packed())
}

// put places an index slot value by Robin Hood insertion: walking from its home slot,
// it takes the place of the first slot whose value is nearer its own home, and that
// value goes on in its stead. Displacements stay short and even, so the index can be
// kept 7/8 full.
func (t *Table) put(v uint64, val uint32) {
	for i, d := t.home(v>>32), uint64(0); ; i, d = t.next(i), d+1 {
		cur := t.index[i]
		if cur == 0 {
			t.index[i], t.vals[i] = v, val
			return
		}
		if cd := t.dist(i, cur>>32); cd < d {
			t.index[i], v, d = v, cur, cd
			t.vals[i], val = val, t.vals[i]
		}
	}
}

// home returns the index slot where a key of Hash hash belongs: the hash scaled to
// the index's size, a multiple of 8 rather than a power of two, so that the index
// grows by an eighth at a time (a quarter while small) and stays between 7/9 and
// 7/8 full while the keyspace grows (doubling would leave it under half full just
// past each power of two: 25 bytes of index and vals per key where 14-15 do). O(1).
func (t *Table) home(hash uint64) uint64 { return hash * uint64(len(t.index)) >> 32 }

// next returns the slot after slot i, wrapping at the end of the index.
func (t *Table) next(i uint64) uint64 {
	if i++; i == uint64(len(t.index)) {
		return 0
	}
	return i
}

// dist returns how far slot i is past the home slot of Hash hash.
func (t *Table) dist(i, hash uint64) uint64 {
	d := i - t.home(hash)
	if int64(d) < 0 {
		d += uint64(len(t.index))
	}
	return d
}

// indexSize returns the index size for about n slots: n rounded up to a multiple of
// 8, at least 8.
func indexSize(n int) int { return max(8, (n+7)&^7) }

// resize rebuilds the index with size slots (a multiple of 8).
func (t *Table) resize(size int) {
	old, oldVals := t.index, t.vals
	t.index, t.vals = make([]uint64, size), make([]uint32, size)
	for j, v := range old {
		if v != 0 {
			t.put(v, oldVals[j])
		}
	}
}

// Del deletes key and reports whether it existed. The complexity is O(1) amortised.
func (t *Table) Del(key string) bool {
	i, ok := t.Find(key)
	if ok {
		t.DelAt(i, key)
	}
	return ok
}

// DelAt deletes entry i, whose name is key (which may be a view of the arena: it is
// not read after the table starts changing). The complexity is O(1) amortised.
func (t *Table) DelAt(i int, key string) {
	t.n--
	t.unindex(Hash(key)<<32 | uint64(i+1))
	t.drop(i)
	t.ents[i].kind, t.ents[i].ttl = kindNone, false
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

// slotOf returns the index slot holding v, which must be present.
func (t *Table) slotOf(v uint64) uint64 {
	i := t.home(v >> 32)
	for t.index[i] != v {
		i = t.next(i)
	}
	return i
}

// unindex removes the index slot holding v, which must be present.
func (t *Table) unindex(v uint64) {
	i := t.slotOf(v)
	// Backward shift: the values after the hole that are not in their home slot move
	// back one, which keeps the Robin Hood order.
	for j := t.next(i); t.index[j] != 0 && t.dist(j, t.index[j]>>32) != 0; j = t.next(j) {
		t.index[i], t.vals[i] = t.index[j], t.vals[j]
		i = j
	}
	t.index[i], t.vals[i] = 0, 0
	if len(t.index) > 8 && t.n*32 < len(t.index)*3 {
		t.resize(indexSize(len(t.index) / 2))
	}
}

// compact drops the deleted entries and their key bytes, keeping every live entry's
// seq, so SCAN cursors stay valid, and rebuilds the index for the new entry numbers.
// Slices far larger than what they now hold are reallocated, so a keyspace that
// shrinks gives its memory back. The complexity is O(entries + key bytes).
func (t *Table) compact() {
	// The entries go to a new array: a string held in an entry may be in use (a
	// view from Value) by the command whose delete compacts, and must not move.
	ents := make([]entry, 0, t.n+t.n/8)
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
	clear(t.long[len(long):])
	t.ents = ents
	t.arena, t.long = shrink(arena), shrink(long)
	t.dead = 0
	clear(t.index)
	for i, e := range t.ents {
		t.put(Hash(t.Key(i))<<32|uint64(i+1), e.packed())
	}
}

// shrink returns s, or a copy of it when its capacity is more than twice its length.
func shrink[S ~[]E, E any](s S) S {
	if cap(s) > 2*len(s)+8 {
		return append(S(nil), s...)
	}
	return s
}

// Reset deletes every key and gives the memory back. Sequence numbers go on from
// where they were, so a cursor from before never matches a key created after.
func (t *Table) Reset() {
	*t = Table{nextSeq: t.nextSeq}
}

// Seek returns the number of the first entry with seq ≥ seq. The complexity is
// O(log entries).
func (t *Table) Seek(seq uint64) int {
	return sort.Search(len(t.ents), func(i int) bool { return t.ents[i].seq >= seq })
}

// Live reports whether entry i holds a key.
func (t *Table) Live(i int) bool { return t.ents[i].kind != kindNone }

// Len returns the number of keys. O(1).
func (t *Table) Len() int { return t.n }

// Entries returns the number of entries, deleted ones included: entry numbers run
// from 0 to Entries()-1, in creation order, and [Table.Live] tells which hold a
// key. O(1).
func (t *Table) Entries() int { return len(t.ents) }

// Seq returns entry i's SCAN sequence number: entries are in increasing Seq order,
// and a key keeps its number until it is deleted. O(1).
func (t *Table) Seq(i int) uint64 { return t.ents[i].seq }

// Expiring returns entry i's sequence number and whether it is marked as having an
// expiry time (SetExpiring): the caller keeps the times themselves, keyed by the
// sequence number. O(1).
func (t *Table) Expiring(i int) (seq uint64, ttl bool) {
	e := &t.ents[i]
	return e.seq, e.ttl
}

// SetExpiring marks entry i, a live one, as having an expiry time or not, and
// returns its sequence number. The mark costs no memory: it sits in the entry's
// padding. O(1).
func (t *Table) SetExpiring(i int, ttl bool) uint64 {
	e := &t.ents[i]
	e.ttl = ttl
	return e.seq
}
