// Package zset implements Redis's sorted set: unique binary-string members ordered by a
// float64 score, ties broken by member bytes, with the semantics, limits and error texts
// of Redis's Z* commands.
//
// The zero value of [Set] is an empty set ready to use:
//
//	var s zset.Set
//	s.Add(zset.AddOptions{}, zset.Entry{Member: "job-1", Score: 42})
//	e, ok := s.PopMin()
//
// # Concurrency
//
// A Set is not safe for concurrent use and holds no lock. The keyspace that embeds it
// serialises access. Iterators ([Set.All], [Set.Backward], [Set.ScoreRange], ...) tolerate
// changes to the set made while iterating, including from the loop body: every step
// continues with the neighbour of the last entry yielded, found again by key after a
// change, so nothing panics, nothing present throughout is skipped or repeated, and
// entries moved ahead of the position (by a new score) are met again.
//
// # Order
//
// Entries are ordered by score, then by member bytes (memcmp, a shorter prefix first).
// -0 and 0 are equal in that order, as in Redis: updating a member from 0 to -0 changes
// nothing. NaN is never stored: [Set.Add] rejects it with [ErrNotFloat] and increments
// that would produce it fail with [ErrNaNResult]. Members are arbitrary byte strings:
// empty, with NUL bytes, not UTF-8.
//
// # Negative zero
//
// A -0 score is kept or turned into 0 exactly as Redis does it per encoding (checked on
// redis-server 7.0.15; 7.2+ stores scores in listpacks the same way): a small set stores
// every integral score as an integer, so -0 reads back as 0 ("ZADD z -0 a" then "ZSCORE z
// a" is 0), and it stays 0 when the set later becomes a tree; a set that is already a
// tree keeps -0. [Set.Incr] and [Set.AddIncr] return the sum they computed (ZINCRBY
// replies -0) whatever the set stores. The results of [Union], [Inter] and [Diff] keep
// -0 (Redis replies to ZUNION from the skiplist it built); [Set.Compact] turns them
// small, and -0 into 0, as ZUNIONSTORE does for its destination.
//
// # Encodings
//
// A set has one of two encodings, chosen as Redis chooses between listpack and skiplist
// ([Set.Encoding] names them so): a set of at most [Limits].Entries members (default
// 128), none longer than Limits.Value bytes (default 64), is small; a write that would
// break either limit (a new member making 129, or a 65-byte member) first converts it to
// the tree, and a tree stays a tree while it has members (Redis converts back only the
// destination of ZUNIONSTORE and friends, see [Set.Compact]). An emptied tree becomes
// small again, as Redis deletes the key and the next ZADD creates a listpack. Limits
// with Entries 0 mean always a tree; [Set.SetLimits] and [NewWithLimits] set them per
// set, and the results of set operations take the limits of their first input.
//
// # Layout of a small set
//
// One byte buffer with the entries back to back in order, sized to its contents
// (grown to the allocator's size class of what it needs, shrunk when half empty). An
// entry is the score, the member's length as a uvarint and the member's bytes. The
// score takes 1 byte for an integer in -112..111, 2 to 9 bytes for other integers up to
// ±2^62 (zigzag, little endian, after a tag byte), 5 bytes for a value a float32 holds
// exactly (1.5, ±inf) and 9 bytes otherwise. A 14-byte member with a small integral score is 16 bytes.
// Up to 16 entries that is all (8 in a set that had more), and every operation is a
// linear scan from the start. A range's result is one copy of the entries it spans,
// scores and lengths included, and its members are views of that copy: two
// allocations and one copy for the whole result (ZRANGE 0 -1 of 10 members: about
// 40% less work than when each member was copied on its own), at the
// cost of 2 bytes a member more for the caller to hold (up to 12 for wide scores).
// A set that grows past 16 gains an index after the entries in the same buffer (1.5
// bytes per entry), which it keeps until it shrinks to 8 (a bit of Set's length field
// says whether it has one), so that a set that comes and goes across one size does not
// build and drop it on each write: a one-byte fingerprint of each member (our own
// multiply hash, seeded per process: two loads and a multiplication for a
// member of up to 16 bytes), compared eight at a time to find a member, and
// a 4-byte mark (offset and drift) for every 8 ranks, mark j on an entry within two
// ranks of 8j, read directly to reach a rank and binary-searched for a score; a write
// moves the bytes after its position, the index's with them, in place (two copies),
// adjusts the marks after it by arithmetic and walks at most 10 entries to place again
// a mark it moved out of its window (none when writes come and go at one place, as an
// add and a remove or a pop and a push do). As in Redis's listpack, the entries are
// bounded at 1 GiB: an entry that would take them past it makes the set a tree,
// whatever the limits. The Set itself is 24 bytes: one pointer, to the buffer or
// to the tree, the buffer's length, its capacity as a one-byte class (an index into the
// allocator's size classes; one value past them marks a tree), a write counter, the
// entry count (uint16, as Limits.Entries) and the limits. So a one-member set takes 40
// bytes of heap in two objects (the Set and a 16-byte buffer), or one object in a zlite
// keyspace, which keeps the Set itself in its key table; 100,000 sets of 10
// members 18.8 bytes per member and 10,000 of 100 members 18.5, member bytes included
// (BenchmarkManySets, integral scores; fractional ones: 27.2 and 27.6).
//
// # Layout of a tree
//
// The tree encoding is an order-statistic B+tree plus a member index, built so that the
// Go garbage collector has almost nothing to scan: no structure holds a pointer per
// entry.
//
//   - Entries are slots of a slab ({score float64, place uint64}, 16 bytes, in chunks of
//     2048) named by uint32 handles. Freed slots are threaded on a free list and reused.
//   - Member bytes are copied into 64 KiB byte chunks (an arena) as records: owner
//     handle, length, bytes. A member over 2 KiB gets a chunk of its own, freed with it.
//     A chunk that deletions leave less than half live has its live records moved to
//     the chunk being filled (the handles say whose they are) and is freed, so the waste
//     stays bounded and no deletion copies more than one chunk. Add never retains the
//     caller's string. Results are copied out: a range or a pop with a count makes one
//     allocation per 64 members, a single pop or At one per member.
//   - Leaves hold up to 84 handles and a copy of each score (1016 bytes: the 1 KiB size
//     class), with no pointers. Descents compare the cached scores and read a member only
//     on equal scores. A full leaf first shares entries with a sibling that has room and
//     splits only when both are full, so random inserts leave leaves about 85% full
//     instead of 70%.
//   - Inner nodes hold up to 63 children with each child's subtree size and smallest
//     key (2024 bytes plus the allocation header: the 2 KiB class), so 1e6 members need
//     three inner levels. The sizes make Rank, At, Count, LexCount, LIMIT offsets and
//     RemRangeBy* O(log n) plus the output.
//   - The member index is an open-addressing hash table of 64-bit slots (handle and
//     32-bit hash), linear probing with backward-shift deletion, at most 3/4 full;
//     probing reads a member only when the hashes match.
//   - Storage shrinks with the set: nodes merge below a quarter full, the index halves
//     below 3/32 load, arena chunks are evacuated as above, and the slab is rebuilt
//     (handles renumbered in key order) when less than a quarter of its slots are in
//     use: O(n), after the set has shrunk fourfold. An emptied set drops everything,
//     except that a small one keeps its cleared storage so that a queue drained after
//     every push refills without allocating.
//
// The trade-off: a member is one more indirection away than in a map (index slot, entry
// slot, bytes), so a lookup costs about twice Go's map (Score: ~100 ns against ~55 ns at
// 1e6), and results cost a copy. In return, with 1e6 members of 16 bytes inserted in
// random order, the set takes 60.6 bytes per element in all (Redis 7.0: 126;
// google/btree with a map[string]float64: 111), and a forced GC with it alive takes
// about 1 ms against 45 ms for the google/btree + map baseline (4–20 ms against
// 65–210 ms when the machine is loaded). Rank, Count and LIMIT offsets are O(log n)
// where the baseline walks (RevRank at 1e6: 0.8–1.4 µs against 12 ms). Measured on a
// shared 2-core machine, so times vary by 2×:
//
//	go test ./zset -run '^$' -bench . -benchmem -count 3 -benchtime 200ms
//
// # Costs
//
// In a tree, with n members and k entries returned or removed: Len O(1); Score, MScore
// (per member) O(1) expected; Add, Incr, Remove, Rank, RevRank, At, Count, LexCount,
// PopMin, PopMax O(log n); ranges and pops with a count O(log n + k), a LIMIT offset
// included (Redis walks it in O(offset)); RemRangeBy* O(log n + k); RandMember O(log n)
// per pick; Clone O(n). Prefetch is O(1): it starts reading the header and the first
// lines of the contents (a keyspace calls it when it has found a key's value but not yet
// compared the key's name, so that the reads overlap).
//
// In a small set every operation but Len is O(n) (n at most Limits.Entries), as in
// Redis's listpack, over contiguous bytes, with the index above cutting lookups to
// O(n/8) fingerprint words plus at most 10 entries decoded; a conversion to the tree is
// O(n log n), once. What that costs depends on the cache. On a random set among many (a
// keyspace of small keys: BenchmarkManySetsOps, 100k sets of 1 or 10 members, 10k of
// 100), the small encoding touches one or two cache lines where the tree touches the
// engine, the index, the slab and the arena, and takes 0.07–0.5× the tree's time for
// every operation at 1 and 10 members and 0.3–0.6× at 100. On one set hot in the cache
// (BenchmarkSmall) the tree's hash lookups win from about 10 members for lookups: at 1
// member the small set is faster (0.45–0.95×) but for pop+add (1.5×); at
// 10 members it takes 0.75–1.16× the tree's time (Score 1.16×, Rank 0.96×, updates
// 1.0×, Incr 0.9×, add+remove and pop+add 0.75–0.8×); at 16, 0.9–1.5× (Score 1.5×,
// add+remove 1.25×); at 64–128 members 1.45–1.9× for Score, 1.05–1.15× for Rank, 1.2–1.55×
// for updates, 1.0–1.25× for Incr, 1.0–1.3× for add+remove and 1.45–1.75× for
// pop+add, while range 0 -1, LIMIT ranges and iteration stay within about 0.8–1.35×
// (allocation-bound, and the noisiest figures). What a lookup at 64–128 members costs,
// about 29–36ns against the tree's 19: the hash, the fingerprint scan (n/16 words
// on average, and a false match every 256 entries), the mark and a walk of r%8 entries
// (3.5 on average, one load each) and the member comparison. Sets that need the tree's
// speed at that size can get it with smaller Limits. What would match the tree's
// lookups, a hash index of slots (a fingerprint and a rank, 2 bytes a slot at 80%
// load, 2.5 bytes an entry against the 1.5 of fingerprints and marks), is left out
// for its memory: it moves a set of 100 16-byte entries from the allocator's
// 1792-byte size class to the 2048-byte one, about 21.6 B/elem in a keyspace of 10k
// such sets against Redis's 21.2 and our 19.0.
// Measured on a shared 2-core machine under load, as the minimum
// of 20 interleaved runs of 10ms of two test binaries (100ms for BenchmarkManySetsOps;
// single runs varied 2–3×):
//
//	go test -c -o zset.test ./zset
//	./zset.test -test.run '^$' -test.bench 'BenchmarkSmall/op=(score|rank|update|incr|popmin-add|add-remove|range-all)/' -test.benchtime 10ms

// # Differences from Redis
//
//   - Lexicographic ranges are specified by Redis only when all scores are equal; with
//     mixed scores both return some consistent cut of the order, not necessarily the
//     same one.
//   - With mixed scores, lexicographic ranges of a small set and of a tree may cut the
//     order at different places (a linear scan and a descent), as Redis's listpack and
//     skiplist may.
//   - RandMember with a positive count below Len returns distinct members in random
//     order (Redis's order depends on its encoding and the count); with a count of Len
//     or more it returns the whole set in order, as Redis does.
//   - A ZADD of more than 128 elements converts a small set only when the new members
//     take it past the limit (Redis 7.0.15, our reference; 7.2+ converts first when the
//     command has more elements than the limit, duplicates included). Only
//     [Set.Encoding] and the -0 rule can tell.
//   - Limits caps Entries and Value at 65535 (Redis's settings have no such cap), and
//     a small set is bounded by its Limits alone (Redis also keeps a listpack under
//     1 GiB).
//   - A LIMIT offset below zero returns nothing, as Redis 7.2+ does.
package zset
