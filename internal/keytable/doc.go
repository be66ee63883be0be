// Package keytable is the keyspace's table of keys: it maps key names to their values
// (a *zset.Set, a *list.List, a *dict.Map, a *set.Set, a short string as a [Short],
// or any other value: the slot of a new type until it gets a slab of its own) with
// little memory per key and few pointers for the garbage collector, and hashes keys
// for it and for the choice of a shard.
//
// A Table holds the key bytes back to back in a pointer-free arena, one pointer-free
// entry per key in creation order, the values' headers (and short strings whole, in
// pointer-free chunks) by value in slabs of chunks that never move, and an open-addressing index (Robin Hood placement, backward-shift
// deletion). Entries are numbered from 0 in creation order, deleted ones included
// until a compaction drops them: an entry number is valid until the table next
// changes, while an entry's sequence number ([Table.Seq]) stays the key's for its
// life, and orders the entries, so it serves as a SCAN cursor across deletes, growth
// and compaction.
//
// # Values
//
// A value handed out ([Table.Value], [Table.FindValue], [Table.AddZSet],
// [Table.AddHash], ...) points into the table: it is the key's value, to be changed in
// place, until the key is deleted or the table reset; after that its slot is reused,
// so it must not be kept. [Table.Detached] gives a value that outlives its key, for
// moving it to another key. A value stored from outside ([Table.Add], [Table.Set]) is
// moved in: a sorted set's, a hash's or a set's header is copied (the value passed
// may still be read, but must not be written: it shares its contents with the key's),
// a list's contents are swapped in (the list passed is left empty).
//
// # Concurrency
//
// A Table is not safe for concurrent use: the keyspace holds the shard's lock around
// every call.
//
// # Costs
//
// Lookups, adds and deletes are O(1) on average (amortised: growing the entries, the
// arena or the index copies it whole, and a compaction, once deleted entries are the
// majority, is O(entries + key bytes)); [Table.Seek] is O(log entries). A key costs a
// 24-byte entry, its bytes, 14 to 15 bytes of index and vals and its share of the
// slices' growth (an eighth at most), then its value's slot: 24 bytes for a sorted
// set, 96 for a list, 40 for a hash, 16 for a set, 24 for a string of up to
// [ShortMax] bytes, nothing for one of up to 6. Among many keys a lookup waits for three cache misses one after another;
// the Warm methods let a pipeline take them ahead of time.
//
// The hashes are seeded per process ([Hash], [TagHash]), so which keys collide
// cannot be known in advance by a client.
package keytable
