// Package dict implements the value of a Redis hash, and the string members of a
// Redis set: a map from binary-string fields to binary-string values, with the two
// encodings Redis uses, and the commands' operations on it (HGET, HSET, HDEL, HEXISTS,
// HSTRLEN, HLEN, HGETALL, HRANDFIELD, HSCAN, OBJECT ENCODING, MEMORY USAGE, COPY).
//
// The zero value of [Map] is an empty map ready to use:
//
//	var h dict.Map
//	h.Set("name", "Ada")
//	v, ok := h.Get("name")
//
// Fields and values are arbitrary byte strings: empty, binary, not UTF-8, up to
// whatever memory holds. Every result is a copy: nothing a Map returns aliases its
// storage, which later writes overwrite.
//
// # Concurrency
//
// A Map is not safe for concurrent use and holds no lock: the keyspace that embeds it
// serialises access. A Map must not be modified during an iteration ([Map.All]) or from
// the callback of [Map.Scan]; if it is, the iteration does not panic but what it yields
// is unspecified. Scanning in steps, with writes between the calls of Scan, is what
// Scan is for, and keeps its guarantee.
//
// # Encodings
//
// A map has one of two encodings, chosen as Redis chooses between listpack and
// hashtable ([Map.Encoding] names them so). A map of at most [Limits].Entries fields
// (default 128, Redis's hash-max-listpack-entries), none of whose fields or values is
// longer than Limits.Value bytes (default 64, hash-max-listpack-value), is packed; a
// write that would break either limit (a new field making 129, or a 65-byte field or
// value, an update included) first converts it to the table, and a table stays a table
// while it has fields. An emptied map drops its storage and is packed again, as Redis
// deletes an emptied key and the next HSET creates a listpack. Limits with Entries 0
// mean always a table; [NewWithLimits] sets them per map.
//
// The packed encoding is one byte slice holding the entries back to back in insertion
// order, each the field's length as a uvarint, the field, twice the value's length and
// the value (a 13-byte field with an 8-byte value takes 23 bytes), grown to 9/8 of what
// it needs and shrunk when less than half used. A value that is the canonical decimal
// form of an int64 ("1796651992156622", "-5"; not "007", "+5" or "-0") and longer than
// its zigzag varint is held as that varint, as Redis's listpack holds integers: a
// 16-digit timestamp takes 9 bytes instead of 17, and Get formats it back. Every
// operation scans it from the start: O(n) with n at most Limits.Entries, as in
// Redis. The Map itself is 24 bytes (one pointer, to the packed bytes or to the
// table, two 32-bit lengths, the count, the limits and a write counter), so 100,000
// maps of 10 such entries take 264 bytes each held by value (in a []Map), 272 from
// [New] through a []*Map (BenchmarkManyMaps), and maps of 4 timestamps 152
// (BenchmarkManyMapsTimestamps).
//
// The table encoding holds no pointer per entry, so that millions of fields cost the
// garbage collector nothing: a forced GC with a 1M-field table alive takes about what
// it takes with an empty heap, where a map[string]string of the same fields takes
// about 80 ms. It is three slices of plain data:
//
//   - an arena of the entries' bytes, in the packed encoding's format, appended as
//     they are written (the packed bytes become the arena when a map converts);
//   - a record per field, in insertion order: the entry's offset in the arena and a
//     sequence number that serves as the Scan cursor (16 bytes);
//   - an index: open addressing with Robin Hood linear probing and backward-shift
//     deletion, hashed with hash/maphash under a per-process seed (so clients cannot
//     choose collisions), 8 bytes a slot (the record's number and 32 bits of the hash,
//     compared before any field is read), between 1/8 and 7/8 full.
//
// A value updated to one of the same length, or shorter, is rewritten in place; a
// longer one is appended to the arena (in place if its entry ends the arena) and the
// old copy becomes garbage. A deleted field's record is marked dead (at the end, it
// is dropped at once, and so is its entry if it ends the arena). Dead records are
// dropped once they outnumber the live ones, or when the records are full and the dead
// ones number a quarter of the live ones; the arena is rebuilt, in record order, when
// a write does not fit and garbage is a quarter of the live bytes, or when it holds
// more than twice the live bytes. Each costs O(live) after Θ(live) deletions or bytes
// of garbage, so writes are O(1) amortised, and neither moves a field in the order
// or changes its cursor. With 1M fields of 13 bytes and values of 8, the table
// takes 60.4 bytes per field in all (BenchmarkMemory), 39.4 beyond the 21 bytes of the
// field and value: 25.8 of arena (23 bytes an entry and the slice's growth margin),
// 17.8 of records and 16.8 of index.
//
// # Costs
//
// With n fields: Len, Encoding, MemoryUsage, Prefetch O(1); Get, Has, ValueLen, Set, Delete O(1)
// expected (amortised for writes) in a table and O(n) packed; All O(n) in all; Random
// O(1) expected in a table (it draws index slots until an occupied one: at most 8 draws
// on average) and O(n) packed; Scan O(log n + count) a call in a table and O(n) packed;
// Clone O(n) plus the bytes copied. Converting to the table is O(n) once.
//
// # Differences from Redis
//
//   - Iteration order (HGETALL, HKEYS, HVALS, HSCAN) is the insertion order in both
//     encodings: an update never moves a field, a deleted field leaves and the others
//     keep their order, a field deleted and added again goes to the end. Redis's
//     listpack keeps the same order; its hashtable's order is arbitrary.
//   - [Map.Scan]'s cursor is a sequence number, not Redis's reverse-binary bucket
//     cursor. A field present from the start to the end of a full scan is returned
//     exactly once (Redis: at least once), whatever is added, deleted, updated, grown
//     or compacted between the calls. As in Redis, a packed map is scanned whole in one
//     call. Unlike Redis, whose scan of a table ends once its buckets are visited,
//     a scan also visits the fields added after it started, so it ends only if fields
//     are not added, on average, faster than count per call.
//   - [Limits] are clamped to 0..65535 (Redis allows larger values).
//   - A table holds at most 3·2^30 fields (Redis: 2^32); Set panics past that, which
//     needs over 100 GB of memory.
package dict
