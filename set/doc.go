// Package set implements the value of a Redis set: a set of binary-string members
// kept in the encodings Redis uses, and the commands' operations on it (SADD, SREM,
// SISMEMBER, SMEMBERS, SCARD, SRANDMEMBER, SPOP, SSCAN, OBJECT ENCODING, MEMORY
// USAGE, COPY). It is a leaf of the keyspace, built on [intset] and [dict].
//
// The zero value of [Set] is an empty set ready to use:
//
//	var s set.Set
//	s.Add("42", set.DefaultLimits) // SADD k 42 → 1, an intset
//	s.Has("42")                    // SISMEMBER k 42 → 1
//
// # Encodings
//
// A set has one of three encodings, those of Redis 7.2, which [Set.Encoding] names as
// OBJECT ENCODING does:
//
//   - "intset" ([intset.Set]): while every member is an int64 in canonical decimal
//     form (Redis's string2ll: no '+', no leading zero, no "-0", no spaces) and there
//     are at most [Limits].Ints of them (default 512, set-max-intset-entries). The
//     members are sorted, at 2, 4 or 8 bytes each. An empty set is an intset.
//   - "listpack" (a packed [dict.Map] of the members, with empty values): a set
//     that gained a member that is not such an integer, while it has at most
//     Limits.Packed.Entries members (default 128, set-max-listpack-entries), none
//     longer than Limits.Packed.Value bytes (default 64, set-max-listpack-value).
//   - "hashtable" (the map's table encoding): past either packed limit.
//
// The conversions are Redis's: an intset that gains a non-integer member becomes
// packed (or a hash table at once, if its members with the new one break the packed
// limits); an intset that gains an integer beyond Ints members becomes a hash table
// directly, as Redis 7.2 converts it; a packed set that gains its Entries+1-th member,
// or a member longer than Value bytes, becomes a hash table. A set never goes back to
// a smaller encoding while it has members; an emptied set is an empty intset again, as
// Redis deletes an emptied key and the next SADD creates it afresh. The limits are
// passed to [Set.Add], so a keyspace can change them at run time: a set keeps the
// encoding it has, as in Redis.
//
// The order of the members ([Set.All], [Set.Members], SMEMBERS) is ascending for an
// intset and insertion order for a map, packed or not ([dict.Map.All]).
//
// # Memory
//
// A Set is 16 bytes: one pointer, to the intset's buffer or, once the set has left
// the intset, to the map, and the buffer's length and capacity in 32 bits each. An
// intset of 10 small members adds a 24-byte buffer, 40 bytes in all; a map adds its
// own header (40 bytes, a 48-byte allocation) and storage. Holding the map by value
// would save a set of strings a cache miss on a lookup, but make every Set 48 bytes,
// and integer sets, which never have a map, pay for it. An intset holds at most 2^27
// members, whatever [Limits].Ints says (its length must fit 32 bits); past that it
// becomes a hash table.
//
// # Costs
//
// With n members:
//
//	Len, Encoding, MemoryUsage, Prefetch   O(1)
//	Has                                    O(log n) intset, O(n) packed, O(1) expected hash table
//	Add, Remove                            O(n) intset and packed, O(1) amortised expected hash table
//	Add that converts                      O(n), once per conversion
//	Random                                 O(1) intset, O(n) packed, O(1) expected hash table
//	All, Members                           O(n)
//	Scan                                   O(n) intset and packed (one call); O(log n + count) a call, hash table
//	Clone                                  O(n)
//
// n is at most Limits.Ints for an intset and Limits.Packed.Entries packed, as in
// Redis, whose encodings have the same costs.
//
// # Concurrency
//
// A Set is not safe for concurrent use and holds no lock: the keyspace that holds it
// serialises access. Methods that only read (Len, Encoding, MemoryUsage, Has, All,
// Members, Scan, Clone, Prefetch, and Random given a nil or per-goroutine *rand.Rand)
// may run concurrently with each other, but not with Add or Remove. A set must not be
// changed during an iteration ([Set.All]) or from the callback of [Set.Scan]; if it
// is, the iteration does not panic, but what it yields is unspecified.
//
// # Differences from Redis
//
//   - A map's order is insertion order, where Redis's hash table order is arbitrary,
//     and [Set.Scan] of a hash table returns every member present for the whole scan
//     exactly once (Redis: at least once).
//   - [Set.Random] is uniform, but does not draw Redis's sequence of random numbers.
//   - The packed limits are clamped to 0..65535 ([dict.Limits]).
package set
