// Package list implements Redis's list type, the value behind LPUSH, RPOP, LRANGE,
// LPOS, LMOVE and the blocking pops, as an in-process deque of strings. It is Redis's
// list, not [container/list]: items are strings, indexes are Redis's (0 is the head,
// -1 the tail), and each method follows the Redis command it names, down to the
// clamping rules and the error texts.
//
// The zero value of [List] is an empty list ready to use:
//
//	var q list.List
//	q.PushBack("job1", "job2") // RPUSH q job1 job2
//	job, ok := q.PopFront()    // LPOP q → "job1", true
//
// # Concurrency
//
// A List is not safe for concurrent use and holds no lock; the keyspace (package
// zlite) serialises access with its own mutex. Strings passed in are copied, and
// strings handed out are fresh copies, so neither side can see the other's later
// changes. Iterators ([List.All], [List.Backward]) tolerate changes made from the loop
// body: they go on by index.
//
// # Costs
//
// With P pages and B items per page (B ≈ 227 for 16-byte items):
//
//	Len                          O(1)
//	PushFront, PushBack          O(1) amortised per item, plus copying its bytes
//	PopFront, PopBack, Move      O(1) amortised; one allocation, the returned string
//	PopFrontN, PopBackN          O(count); two allocations whatever the count
//	Index                        O(log P + B)
//	Set                          O(log P + B) when the size is unchanged, else + O(pageSize + P)
//	Range                        O(log P + B + count); two allocations
//	Trim                         O(pages dropped + B)
//	Insert, Remove, Pos          O(n)
//
// # Design
//
// As in Redis's quicklist of listpacks, items are packed into pages. A page is one
// pointer-free []byte holding whole items, each encoded as uvarint(length), the bytes,
// and the length again as a reversed uvarint so that a page can be walked in both
// directions (18 bytes for a 16-byte item). Free space is kept on both sides of a
// page's live bytes, so pushes and pops at either end touch only the end pages. The
// pages sit in a slice with free slots at both ends, and each page records the
// position of its first item, so the page holding index i is found by binary search
// and then walked from its nearer end. A page emptied at either end is kept as long
// as the list has other items (so a stack bouncing across a page boundary does not
// churn pages), one drained page buffer is kept for reuse (so a queue in steady state
// allocates no pages), and neighbouring pages holding less than half a page between
// them are merged, so pages are on average at least a quarter full after any sequence
// of operations, and a full list built by pushes is almost entirely full pages. When a
// list drains, its pages go back to the GC one by one and the page slice shrinks
// with them; an emptied list keeps at most two small buffers.
//
// The GC sees one pointer per page instead of one or two per item, which is where the
// difference in the forced-GC time below comes from. A page holding an item larger
// than a page holds that item alone, in a buffer of exactly its size.
//
// # Page size
//
// Pages are 4 KiB. Measured with
//
//	go test -run '^$' -bench BenchmarkPageSize -count 5 ./list/
//
// (1e6 16-byte items, median of 5, AMD EPYC, 2 shared cores; see EXPLAIN below):
//
//	page size   B/elem   Index(mid)   RPUSH+LPOP   LRANGE 100
//	  1 KiB      PS1      PSI1         PSP1         PSR1
//	  2 KiB      PS2      PSI2         PSP2         PSR2
//	  4 KiB      PS4      PSI4         PSP4         PSR4
//	  8 KiB      PS8      PSI8         PSP8         PSR8
//
// Memory per item falls towards the 18-byte encoding as pages grow (the page headers
// and the partly filled end pages weigh less), while Index and the start of Range walk
// up to half a page, so they slow down in proportion. 4 KiB is where the memory curve
// has flattened (within 2% of 16 KiB pages) and a page is still walked in about a
// tenth of a microsecond; it is also Go's page-sized allocation class, so a full page
// wastes nothing in the allocator.
//
// # Figures
//
// Against container/list and a []string used as a queue, 16-byte items,
//
//	go test -run '^$' -bench BenchmarkList -count 5 ./list/
//
// FIGURES
//
// # Differences from Redis
//
//   - LPOS with RANK -9223372036854775808 returns [ErrRankOutOfRange], as Redis 7.2
//     and later do; Redis 7.0 silently treated it as RANK -1 (an overflow).
//   - The strings returned by [List.Range], [List.PopFrontN] and [List.PopBackN]
//     share one allocation per call, so keeping any of them keeps all of that call's
//     bytes alive.
//   - There is no list-compress-depth (LZF compression of inner pages) and the page
//     size is fixed rather than set by list-max-listpack-size.
//   - Keys, empty-list deletion, nil versus empty replies and argument parsing belong
//     to the command layer: a List may be empty, and [List.PopFrontN] returns an empty
//     slice for a count of 0.
package list
