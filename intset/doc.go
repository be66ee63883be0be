// Package intset implements Redis's intset: the compact encoding of a set whose
// members are all 64-bit integers, which OBJECT ENCODING reports as "intset". Redis
// keeps a set in this encoding while every member is the canonical decimal form of an
// int64 and there are at most set-max-intset-entries of them (512 by default). This
// package enforces neither rule: the keyspace decides which strings qualify (and
// parses them), and converts the set to another encoding when it grows past the limit
// or gains a non-integer member.
//
// The zero value of [Set] is an empty set ready to use:
//
//	var s intset.Set
//	s.Add(3)     // SADD k 3 → 1
//	s.Add(3)     // SADD k 3 → 0
//	s.Has(3)     // SISMEMBER k 3 → 1
//	s.Remove(3)  // SREM k 3 → 1
//
// # Encoding
//
// A Set is a single []byte (24 bytes for the slice header; no other field). An empty
// set holds no bytes. A non-empty set holds a one-byte header, the width w, followed
// by its n members sorted strictly ascending, each stored in w bytes little-endian
// (two's complement), so the buffer is 1 + n*w bytes long:
//
//	[w][member 0][member 1]...[member n-1]
//
// The width is 2, 4 or 8 (int16, int32, int64: Redis's INTSET_ENC_INT16, _INT32 and
// _INT64) and applies to the whole set. Adding a member that needs more than the
// current width rewrites every member at the new width in place (Redis's
// intsetUpgradeAndAdd); since such a member is out of range of every stored one, it
// goes first (if negative) or last. As in Redis, the width never shrinks when wide
// members are removed; an emptied set drops its header, so its width is 2 again, and
// the next Add chooses the width afresh. Where Redis's header also holds the length
// (4 bytes), this one derives it from the slice length.
//
// Up to 64 bytes the buffer grows to the next allocation size class that holds it
// (8, 16, 24, 32, 48, 64 bytes), at most six reallocations; beyond, as append grows a
// slice (doubling while small), so a run of Adds reallocates O(log n) times in all.
// Its capacity is always the allocator's size class, and [Set.MemoryUsage] counts
// that capacity plus the 24-byte Set. For 10 small members the buffer is 21 bytes in
// a 24-byte allocation, where doubling would take 32. When a buffer above 64 bytes is
// left a quarter full or less by removals, it is reallocated at about twice its
// length; an emptied set keeps a buffer of up to 64 bytes for the next Add.
// [Set.Clone] allocates just the size class of the length. [Set.Prefetch] starts
// reading the buffer for a caller that will search it soon.
//
// # Costs
//
// With n members:
//
//	Len, Width, At, Min, Max, Random, MemoryUsage   O(1)
//	Bytes, FromBytes                                O(1)
//	Prefetch                                        O(1), no wait
//	Has                                             O(log n): a binary search
//	Add, Remove, RemoveAt                           O(n): a binary search, then a memmove of up to n*w bytes
//	Add that widens the set                         O(n): every member rewritten
//	All                                             O(1) per member yielded, no allocation beyond the iterator
//	Clone                                           O(n), one allocation
//
// Searches look at the largest member first, so Adds in ascending order (SADD 1 2 3
// ...) cost O(1) each to place, plus amortised growth. Has, Add and Remove of a value
// too wide for the set's width answer without a search. At 512 members the memmove is
// at most 4 KB, which is why Redis bounds the encoding's size.
//
// # Concurrency
//
// A Set is not safe for concurrent use and holds no lock; the keyspace serialises
// access. Methods that only read (Len, Has, At, Min, Max, Width, MemoryUsage, All,
// Clone, and Random given a nil or per-goroutine *rand.Rand) may run concurrently with
// each other, but not with Add, Remove or RemoveAt. A set must not be changed during an
// iteration over [Set.All].
package intset
