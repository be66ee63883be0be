package dict

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"iter"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"unsafe"
)

// Limits bound the packed encoding, as Redis's hash-max-listpack-entries and
// hash-max-listpack-value do: a map of at most Entries fields, none of whose fields or
// values is longer than Value bytes, is stored packed; a map that outgrows either
// becomes a hash table and stays one until it is emptied. Entries 0 means always the
// table encoding. Values above 65535 count as 65535, values below 0 as 0.
type Limits struct {
	Entries int
	Value   int
}

// DefaultLimits are Redis's defaults: 128 entries, 64-byte fields and values.
var DefaultLimits = Limits{Entries: 128, Value: 64}

// Map is the value of a Redis hash: a map from binary-string fields to binary-string
// values.
//
// The zero value is an empty map ready to use, with [DefaultLimits]. A Map is not safe
// for concurrent use and holds no lock: callers that share one between goroutines must
// serialise access. Copying a Map value shares its contents (the copy and the original
// must then not both be used); use [Map.Clone] for an independent copy.
//
// A Map has two encodings (see the package doc): a small map is one packed byte slice,
// a large one a pointer-free hash table. The choice changes memory and speed, never a
// result: both iterate in insertion order.
type Map struct {
	// ptr is the packed encoding's buffer, of cap bytes of which the first len hold
	// the entries back to back in insertion order, when cap > 0; the table encoding
	// (a *table) when cap is 0 and ptr is not nil; nil for an empty map. One pointer
	// and two 32-bit lengths, where a slice and a table pointer took 32 bytes, keep
	// the Map at 24 bytes (a keyspace holds one per hash key).
	ptr      unsafe.Pointer
	len, cap uint32
	n        uint16 // entries in the packed encoding (at most Limits.Entries <= 65535)
	limE     uint16 // Limits.Entries xor its default, so that the zero value has the defaults
	limV     uint16 // Limits.Value xor its default
	mods     uint16 // incremented by every write to the packed encoding, for iterators
}

// packed returns the packed encoding's bytes (nil for a table or an empty map).
func (m *Map) packed() []byte {
	if m.cap == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(m.ptr), m.cap)[:m.len]
}

// setPacked makes p the packed encoding's bytes (nil: none).
func (m *Map) setPacked(p []byte) {
	if cap(p) == 0 {
		m.ptr, m.len, m.cap = nil, 0, 0
		return
	}
	m.ptr, m.len, m.cap = unsafe.Pointer(unsafe.SliceData(p)), uint32(len(p)), uint32(cap(p))
}

// tab returns the table encoding, or nil.
func (m *Map) tab() *table {
	if m.cap != 0 {
		return nil
	}
	return (*table)(m.ptr)
}

// setTab makes t the map's encoding (nil: an empty packed map).
func (m *Map) setTab(t *table) { m.ptr, m.len, m.cap = unsafe.Pointer(t), 0, 0 }

// maxPacked bounds the packed encoding's bytes, which its 32-bit lengths hold: a map
// that would outgrow it (only under Limits far above Redis's) becomes a table.
const maxPacked = math.MaxUint32 / 2

// New returns an empty map with [DefaultLimits]. The complexity is O(1).
func New() *Map { return &Map{} }

// NewWithLimits returns an empty map whose packed encoding is bounded by l (clamped to
// 0..65535, see [Limits]). The complexity is O(1).
func NewWithLimits(l Limits) *Map {
	clamp := func(v int) uint16 { return uint16(min(max(v, 0), math.MaxUint16)) }
	return &Map{
		limE: clamp(l.Entries) ^ uint16(DefaultLimits.Entries),
		limV: clamp(l.Value) ^ uint16(DefaultLimits.Value),
	}
}

// Limits returns the limits of the map's packed encoding, as clamped by [NewWithLimits].
// The complexity is O(1).
func (m *Map) Limits() Limits {
	return Limits{
		Entries: int(m.limE ^ uint16(DefaultLimits.Entries)),
		Value:   int(m.limV ^ uint16(DefaultLimits.Value)),
	}
}

// Len returns the number of fields (HLEN), 0 for an empty map. The complexity is O(1).
func (m *Map) Len() int {
	if t := m.tab(); t != nil {
		return t.live
	}
	return int(m.n)
}

// Get returns a copy of the value of field (HGET) and whether the field is present; ""
// and false when it is not (an empty map included). The complexity is O(1) expected for
// the table encoding and O(n) for the packed encoding (n is at most Limits.Entries).
func (m *Map) Get(field string) (string, bool) {
	if t := m.tab(); t != nil {
		v, ok := t.get(field)
		return string(v), ok
	}
	_, vh, vs, ve, ok := m.pfind(field)
	switch p := m.packed(); {
	case !ok:
		return "", false
	case p[vh]&1 == 0:
		return string(p[vs:ve]), true
	}
	return m.pstring(vh, vs, ve), true
}

// Has reports whether field is present (HEXISTS); false for an empty map. It does not
// allocate. The complexity is that of [Map.Get].
func (m *Map) Has(field string) bool {
	if t := m.tab(); t != nil {
		_, ok := t.get(field)
		return ok
	}
	_, _, _, _, ok := m.pfind(field)
	return ok
}

// ValueLen returns the length in bytes of the value of field (HSTRLEN) and whether the
// field is present; 0 and false when it is not. It does not allocate. The complexity is
// that of [Map.Get].
func (m *Map) ValueLen(field string) (int, bool) {
	if t := m.tab(); t != nil {
		v, ok := t.get(field)
		return len(v), ok
	}
	_, vh, vs, ve, ok := m.pfind(field)
	p := m.packed()
	if !ok || p[vh]&1 == 0 {
		return ve - vs, ok
	}
	var buf [20]byte
	return len(strconv.AppendInt(buf[:0], pint(p, vs), 10)), true
}

// Set sets field to value (HSET with one pair, HSETNX after a [Map.Has]) and reports
// whether the field is new. Both strings are copied; either may be empty or hold any
// bytes. A packed map that the new pair or the new count would take past its
// [Limits] is first converted to the table encoding, in O(n), as Redis converts a
// listpack. A new field goes to the end of the iteration order; an updated one keeps
// its place, in both encodings. The complexity is O(1) amortised expected for the
// table encoding and O(n) for the packed encoding, plus the bytes copied.
func (m *Map) Set(field, value string) (added bool) {
	if t := m.tab(); t != nil {
		return t.set(field, value)
	}
	m.mods++
	lim := m.Limits()
	_, vh, vs, ve, found := m.pfind(field)
	if found {
		p, pv := m.packed(), packValue(value)
		if len(value) > lim.Value || len(p)-(ve-vh)+pv.size() > maxPacked {
			m.toTable()
			return m.tab().set(field, value)
		}
		if !pv.isInt && p[vh]&1 == 0 && ve-vs == len(value) {
			copy(p[vs:ve], value) // a string of the same length: in place
			return false
		}
		if n := pv.size(); n == ve-vh {
			pv.put(p[vh:ve])
		} else {
			pv.put(m.replace(vh, ve, n))
		}
		return false
	}
	pv, end := packValue(value), int(m.len)
	size := uvarintLen(uint64(len(field))) + len(field) + pv.size()
	if int(m.n)+1 > lim.Entries || len(field) > lim.Value || len(value) > lim.Value || end+size > maxPacked {
		m.toTable()
		return m.tab().set(field, value)
	}
	w := m.replace(end, end, size)
	k := binary.PutUvarint(w, uint64(len(field)))
	k += copy(w[k:], field)
	pv.put(w[k:])
	m.n++
	return true
}

// Delete removes field (HDEL of one field) and reports whether it was present; false
// for an empty map. A map emptied by Delete releases its storage and starts again in
// the packed encoding (unless Limits.Entries is 0), as Redis deletes an emptied key and
// a later HSET creates a listpack. The complexity is O(1) amortised expected for the
// table encoding and O(n) for the packed encoding.
func (m *Map) Delete(field string) bool {
	if t := m.tab(); t != nil {
		if !t.delete(field) {
			return false
		}
		if t.live == 0 {
			m.setTab(nil)
		}
		return true
	}
	start, _, _, ve, found := m.pfind(field)
	if !found {
		return false
	}
	m.mods++
	m.n--
	if m.n == 0 {
		m.setPacked(nil)
		return true
	}
	m.replace(start, ve, 0)
	return true
}

// All returns an iterator over the fields and values (HGETALL, HKEYS, HVALS), yielding
// copies in insertion order, in both encodings: an update does not move a field, a
// deleted field leaves and the others keep their order. Nothing is yielded for an
// empty map.
//
// The map must not be modified during the iteration, from the loop body or otherwise.
// If it is, the iteration does not panic, but what it yields is unspecified: it may stop
// early (the packed encoding stops at the first change it sees), repeat fields or miss
// some.
//
// The complexity is O(n) for the whole iteration.
func (m *Map) All() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		if t := m.tab(); t != nil {
			t.all(m, yield)
			return
		}
		m.pall(yield)
	}
}

// Encoding returns Redis's OBJECT ENCODING name for the map's current encoding:
// "listpack" for the packed encoding (an empty map too, as a new key in Redis, unless
// Limits.Entries is 0) and "hashtable" for the table encoding. The complexity is O(1).
func (m *Map) Encoding() string {
	if m.tab() != nil || (m.n == 0 && m.Limits().Entries == 0) {
		return "hashtable"
	}
	return "listpack"
}

// MemoryUsage returns the bytes of heap the map holds, by capacity (MEMORY USAGE): the
// Map itself, the packed byte slice or the table's struct, arena, records and index.
// Allocator rounding beyond what the slices' capacities report is not counted. The
// complexity is O(1).
func (m *Map) MemoryUsage() int {
	size := int(unsafe.Sizeof(*m)) + cap(m.packed())
	if t := m.tab(); t != nil {
		size += t.memoryUsage()
	}
	return size
}

// Clone returns a deep copy of the map (COPY), with the same limits, encoding,
// iteration order and scan cursors. The complexity is O(n) plus the bytes copied.
func (m *Map) Clone() *Map {
	c := &Map{n: m.n, limE: m.limE, limV: m.limV}
	if len(m.packed()) > 0 {
		c.setPacked(bytes.Clone(m.packed()))
	}
	if t := m.tab(); t != nil {
		c.setTab(t.clone())
	}
	return c
}

// Random returns a copy of a field and its value chosen uniformly at random
// (HRANDFIELD), drawing from r, or from the global source of math/rand/v2 when r is
// nil; ok is false for an empty map. The complexity is O(1) expected for the table
// encoding (it draws index slots until one is occupied; the index is kept at least 1/8
// full) and O(n) for the packed encoding.
func (m *Map) Random(r *rand.Rand) (field, value string, ok bool) {
	if t := m.tab(); t != nil {
		f, v := t.random(r)
		return string(f), string(v), true
	}
	if m.n == 0 {
		return "", "", false
	}
	k := intN(r, int(m.n))
	off := 0
	for range k {
		_, _, _, off = m.pentry(off)
	}
	fs, fe, vs, ve := m.pentry(off)
	return string(m.packed()[fs:fe]), m.pstring(fe, vs, ve), true
}

// Scan calls yield with copies of some of the fields and values (HSCAN) and returns the
// cursor to continue from, 0 when the scan is complete. A scan starts with cursor 0.
//
// The packed encoding yields every entry in one call and returns 0, whatever the
// cursor, as Redis does for a listpack. The table encoding yields count entries
// (count < 1 means 10, Redis's default) in insertion order from the cursor on, the
// cursor being a field's sequence number; it skips at most 10*count deleted records
// per call, so a call may yield fewer entries, none even, and still return a non-zero
// cursor. A field present from the start to the end of a full scan is yielded exactly
// once (Redis's SCAN: at least once), despite additions, deletions, updates, growth
// and compaction between the calls. Fields added during a scan are yielded too, so a
// scan ends only if fields are not added, on average, faster than count per call. A
// cursor that this map did not return yields what follows its position in the order
// (possibly nothing) and is otherwise harmless.
//
// If yield returns false, Scan stops and returns the cursor to continue from (0 for the
// packed encoding). The map must not be modified from yield: if it is, Scan does not
// panic, but it may stop early.
//
// The complexity is O(log n + count) per call for the table encoding and O(n) for the
// packed encoding.
func (m *Map) Scan(cursor uint64, count int, yield func(field, value string) bool) (next uint64) {
	if t := m.tab(); t != nil {
		if count < 1 {
			count = 10
		}
		return t.scan(m, cursor, count, yield)
	}
	m.pall(yield)
	return 0
}

// intN returns a uniform int in [0, n) from r, or from the global source when r is nil.
func intN(r *rand.Rand, n int) int {
	if r == nil {
		return rand.IntN(n)
	}
	return r.IntN(n)
}

// ---- The packed encoding ----
//
// A table arena's entry is uvarint(len(field)) field uvarint(len(value)) value
// (putEntry, decodeEntry). A packed entry is uvarint(len(field)) field, then the
// value as putPValue writes it: uvarint(2·len(value)) value, or, for a value that
// is the canonical decimal form of an int64 whose zigzag varint is shorter,
// uvarint(2·k + 1) and those k bytes, as Redis's listpack stores integers
// (packValue).
// Converting to the table writes the entries out again in the arena's format.

// pintValue reports whether v is stored as an integer in a packed entry, and which:
// it is the canonical decimal form of an int64 ("-12", not "012", "+12" or "-0")
// whose zigzag varint is shorter than v.
func pintValue(v string) (int64, bool) {
	d := v
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(v) < 2 || len(d) == 0 || len(d) > 19 || d[0] < '1' || d[0] > '9' {
		return 0, false
	}
	var u uint64
	for i := 0; i < len(d); i++ {
		c := d[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		u = u*10 + uint64(c-'0') // 19 digits fit in a uint64
	}
	var n int64
	switch {
	case len(d) == len(v) && u <= math.MaxInt64:
		n = int64(u)
	case len(d) < len(v) && u <= 1<<63:
		n = -int64(u-1) - 1
	default:
		return 0, false
	}
	return n, uvarintLen(zigzag(n)) < len(v)
}

func zigzag(n int64) uint64 { return uint64(n<<1) ^ uint64(n>>63) }

// pvalue is a value as a packed entry holds it: the string s, or when isInt the
// zigzag varint z.
type pvalue struct {
	s     string
	z     uint64
	isInt bool
}

// packValue returns value's packed form. Most strings are told apart from the
// integers by their last byte, inline.
func packValue(value string) pvalue {
	if len(value) < 2 || value[len(value)-1]-'0' > 9 {
		return pvalue{s: value}
	}
	n, ok := pintValue(value)
	return pvalue{s: value, z: zigzag(n), isInt: ok}
}

// size returns the bytes of the value's header and its bytes.
func (v pvalue) size() int {
	if v.isInt {
		k := uvarintLen(v.z)
		return uvarintLen(uint64(2*k+1)) + k
	}
	return uvarintLen(uint64(2*len(v.s))) + len(v.s)
}

// put writes the value into w, which has room for exactly v.size() bytes.
func (v pvalue) put(w []byte) {
	if v.isInt {
		k := binary.PutUvarint(w, uint64(2*uvarintLen(v.z)+1))
		binary.PutUvarint(w[k:], v.z)
		return
	}
	k := binary.PutUvarint(w, uint64(2*len(v.s)))
	copy(w[k:], v.s)
}

// pint decodes the integer value whose varint starts at p[vs].
func pint(p []byte, vs int) int64 {
	z, _ := uvarint(p, vs)
	return int64(z>>1) ^ -int64(z&1)
}

// pstring returns the value of the packed entry whose value's header starts at
// p[vh] and whose value bytes are p[vs:ve], p being the packed bytes.
func (m *Map) pstring(vh, vs, ve int) string {
	p := m.packed()
	if p[vh]&1 == 0 {
		return string(p[vs:ve])
	}
	return strconv.FormatInt(pint(p, vs), 10)
}

// pdecode decodes the packed entry at p[off:], which this package wrote: p[fs:fe]
// is the field, the value's header starts at fe, its bytes are p[vs:ve] (an
// integer's varint when p[fe] is odd), and ve is the next entry's offset.
func pdecode(p []byte, off int) (fs, fe, vs, ve int) { return entryAt(p, off, 1) }

// pchecked is pdecode with every bound checked, for iterators that may meet bytes
// that changed under them; ok is false if p[off:] does not hold an entry.
func pchecked(p []byte, off int) (fs, fe, vs, ve int, ok bool) { return checkedAt(p, off, 1) }

// decodeEntry returns the bounds of the field and the value of the arena entry at
// p[off:], which this package wrote: p[fs:fe] is the field, p[vs:ve] the value, ve
// the next entry's offset.
func decodeEntry(p []byte, off int) (fs, fe, vs, ve int) { return entryAt(p, off, 0) }

// checkedEntry is decodeEntry with every bound checked, for iterators that may meet
// bytes that changed under them; ok is false if p[off:] does not hold an entry.
func checkedEntry(p []byte, off int) (fs, fe, vs, ve int, ok bool) { return checkedAt(p, off, 0) }

// uvarintLen returns the length of v's uvarint encoding.
func uvarintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

// entrySize returns the encoded size of an entry with a field and a value of these
// lengths.
func entrySize(flen, vlen int) int {
	return uvarintLen(uint64(flen)) + flen + uvarintLen(uint64(vlen)) + vlen
}

// putEntry encodes field and value into w, which has room for exactly them.
func putEntry(w []byte, field, value string) {
	k := binary.PutUvarint(w, uint64(len(field)))
	k += copy(w[k:], field)
	k += binary.PutUvarint(w[k:], uint64(len(value)))
	copy(w[k:], value)
}

// uvarint decodes the uvarint at p[i:], which this package wrote, and returns it and
// the index after it.
func uvarint(p []byte, i int) (uint64, int) {
	if b := p[i]; b < 0x80 {
		return uint64(b), i + 1
	}
	var x uint64
	var s uint
	for {
		b := p[i]
		i++
		if b < 0x80 {
			return x | uint64(b)<<s, i
		}
		x |= uint64(b&0x7f) << s
		s += 7
	}
}

// entryAt decodes the entry at p[off:] whose value's length is its header shifted
// right by shift (1 in the packed encoding, 0 in the arena).
func entryAt(p []byte, off int, shift uint) (fs, fe, vs, ve int) {
	fl, fs := uvarint(p, off)
	fe = fs + int(fl)
	h, vs := uvarint(p, fe)
	return fs, fe, vs, vs + int(h>>shift)
}

// checkedAt is entryAt with every bound checked.
func checkedAt(p []byte, off int, shift uint) (fs, fe, vs, ve int, ok bool) {
	if off < 0 || off >= len(p) {
		return 0, 0, 0, 0, false
	}
	fl, k := binary.Uvarint(p[off:])
	if k <= 0 || fl > uint64(len(p)-off-k) {
		return 0, 0, 0, 0, false
	}
	fs = off + k
	fe = fs + int(fl)
	h, k := binary.Uvarint(p[fe:])
	if k <= 0 || h>>shift > uint64(len(p)-fe-k) {
		return 0, 0, 0, 0, false
	}
	vs = fe + k
	return fs, fe, vs, vs + int(h>>shift), true
}

// pentry decodes the packed entry at off.
func (m *Map) pentry(off int) (fs, fe, vs, ve int) { return pdecode(m.packed(), off) }

// pfind finds field in the packed encoding p: its entry is p[start:ve], its value's
// header starts at vh and its value's bytes are p[vs:ve].
func (m *Map) pfind(field string) (start, vh, vs, ve int, ok bool) {
	p := m.packed()
	for off := 0; off < len(p); {
		fl, fs := uvarint(p, off)
		fe := fs + int(fl)
		tag, vs := uvarint(p, fe)
		ve := vs + int(tag>>1)
		if int(fl) == len(field) && string(p[fs:fe]) == field {
			return off, fe, vs, ve, true
		}
		off = ve
	}
	return 0, 0, 0, 0, false
}

// pall yields the packed entries in order, stopping if the map changes.
func (m *Map) pall(yield func(string, string) bool) {
	p, mods := m.packed(), m.mods
	for off := 0; off < len(p); {
		fs, fe, vs, ve, ok := pchecked(p, off)
		if !ok || !yield(string(p[fs:fe]), m.pstring(fe, vs, ve)) {
			return
		}
		if m.mods != mods || m.tab() != nil {
			return
		}
		off = ve
	}
}

// allocBytes returns an empty slice with room for at least c bytes, its capacity
// rounded up to the allocator's size class.
func allocBytes(c int) []byte {
	return append([]byte(nil), make([]byte, c)...)[:0]
}

// replace replaces the packed bytes [a:b] with n bytes and returns them, for the
// caller to fill. The buffer grows to 9/8 of what it needs (rounded to the size
// class) when full, and shrinks so when it is less than half used.
func (m *Map) replace(a, b, n int) []byte {
	p := m.packed()
	size := len(p) - (b - a) + n
	if size > cap(p) || (cap(p) > 64 && size < cap(p)/2) {
		np := allocBytes(size + size/8)[:size]
		copy(np, p[:a])
		copy(np[a+n:], p[b:])
		m.setPacked(np)
		return np[a : a+n]
	}
	if size > len(p) {
		p = p[:size]
		copy(p[a+n:], p[b:int(m.len)])
	} else {
		copy(p[a+n:], p[b:])
		p = p[:size]
	}
	m.setPacked(p)
	return p[a : a+n]
}

// toTable converts the packed encoding to the table encoding, writing the entries
// out again in the arena's format.
func (m *Map) toTable() {
	size := 0
	p := m.packed()
	for off := 0; off < len(p); {
		fs, fe, vs, ve := m.pentry(off)
		size += entrySize(fe-fs, len(m.pstring(fe, vs, ve)))
		off = ve
	}
	arena := make([]byte, 0, size)
	for off := 0; off < len(p); {
		fs, fe, vs, ve := m.pentry(off)
		v := m.pstring(fe, vs, ve)
		n := len(arena)
		arena = arena[:n+entrySize(fe-fs, len(v))]
		putEntry(arena[n:], string(p[fs:fe]), v)
		off = ve
	}
	m.setTab(newTable(arena, int(m.n)))
	m.n = 0
}

// check verifies the map's invariants, for the tests.
func (m *Map) check() error {
	lim := m.Limits()
	if t := m.tab(); t != nil {
		if m.n != 0 || m.len != 0 {
			return fmt.Errorf("table with packed state: n %d, len %d", m.n, m.len)
		}
		return t.check()
	}
	if m.n == 0 {
		if m.ptr != nil {
			return fmt.Errorf("empty packed map holds a buffer of %d bytes (cap %d)", m.len, m.cap)
		}
		return nil
	}
	if int(m.n) > lim.Entries {
		return fmt.Errorf("packed map of %d entries, limit %d", m.n, lim.Entries)
	}
	p := m.packed()
	if cap(p) > 64 && len(p) < cap(p)/2 {
		return fmt.Errorf("packed buffer of %d bytes has capacity %d", len(p), cap(p))
	}
	seen := make(map[string]bool, m.n)
	n := 0
	for off := 0; off < len(p); n++ {
		fs, fe, vs, ve, ok := pchecked(p, off)
		if !ok {
			return fmt.Errorf("packed entry %d at offset %d is malformed", n, off)
		}
		f, v := string(p[fs:fe]), m.pstring(fe, vs, ve)
		if fe-fs > lim.Value || len(v) > lim.Value {
			return fmt.Errorf("packed entry %q: field %d bytes, value %d, limit %d", f, fe-fs, len(v), lim.Value)
		}
		if _, isInt := pintValue(v); isInt != (p[fe]&1 == 1) {
			return fmt.Errorf("packed entry %q: value %q stored as an integer: %v", f, v, !isInt)
		}
		if seen[f] {
			return fmt.Errorf("packed field %q appears twice", f)
		}
		seen[f] = true
		off = ve
	}
	if n != int(m.n) {
		return fmt.Errorf("packed map counts %d entries, holds %d", m.n, n)
	}
	return nil
}
