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
// With P pages and B items per page (B = 113 for 16-byte items):
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
//	Prefetch                     O(1): starts reading the bytes at both ends (see its doc)
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
// with them; an emptied list keeps one page buffer and a two-slot page slice.
//
// A small list costs little more than its bytes, as a Redis listpack does: the List is
// 96 bytes, the one-slot page slice of a one-page list included (held in the List rather
// than in an allocation of its own, so that reaching the page's bytes is one memory load
// fewer: on a random one of 100k ten-item lists, BenchmarkManySmallLists, LPUSH+RPOP
// took about 0.7 of the CPU time with the slice apart), and its first page starts at the
// allocator size class of its first item and grows by half (to a size class) up to a
// full page; a full small page slides its bytes to make room rather than growing, so a
// small list used as a queue allocates nothing but the popped strings. A list of one
// 14-byte item takes 112 bytes of heap, one of ten such items 288 (it was 224 and 448
// with an 80-byte List, a two-slot page slice and a first page doubling from 32 bytes).
// [List.Pages] tells a one-page list (Redis 7.2's "listpack" encoding) from a longer
// one, and [List.MemoryUsage] gives the heap bytes. Measured against the previous
// version, CPU time per operation (user+sys of a fixed number of iterations, since wall
// times on the shared machine were too noisy): building a one-item list 168 ns against
// 220, a ten-item one item by item 815 ns against 730 (six buffers instead of four),
// RPUSH+LPOP on a ten-item list 45.5 ns against 41, LPUSH+RPOP 43.5 against 40 (the
// slides); from
//
//	go test -run '^$' -bench BenchmarkSmallList -benchtime 200ms -count 3 ./list/
//
// The GC sees one pointer per page instead of one or two per item, which is where the
// difference in the forced-GC time below comes from. A page holding an item larger
// than a page holds that item alone, in a buffer of exactly its size.
//
// # Page size
//
// Pages are 2 KiB. The study, at n = 1e6 16-byte items (B/elem from the first
// command, times from the second):
//
//	go test -run '^$' -bench 'BenchmarkPageSize' -count 3 ./list/
//	go test -run '^$' -bench 'BenchmarkPageSize/op=(index|rpush)' -benchtime 0.5s -count 6 ./list/
//
//	page    B/elem  items/  walk at mid /  Index(mid)  RPUSH+LPOP
//	size            page    on average     best of 6   best of 6
//	512 B   21.35     28      4 /   7        87 ns      114 ns
//	1 KiB   19.65     56     24 /  14       174 ns       72 ns
//	2 KiB   19.03    113     25 /  28       173 ns       57 ns
//	4 KiB   18.46    227     81 /  57       597 ns       72 ns
//	8 KiB   18.19    455     45 / 114       247 ns       79 ns
//	16 KiB  18.13    910    410 / 227      2095 ns       44 ns
//
// Memory per item falls towards the 18-byte encoding as pages grow (page headers and
// part-filled end pages weigh less). Push and pop do not depend on the page size
// beyond noise (the machine was shared and loaded, hence best-of-6). Index costs about
// 60 ns plus 5 ns per item walked inside the page, and the walk is set by where the
// index falls in its page: up to half a page, a quarter on average, which is why the
// middle of 1e6 is cheap with 8 KiB pages and dear with 4 KiB ones. 2 KiB pages are
// within 5% of the memory of 16 KiB ones while Index, Set and the start of Range walk
// 28 items on average (57 with 4 KiB pages); 2048 bytes is also one of Go's size
// classes, so a full page wastes nothing in the allocator.
//
// # Figures
//
// Against container/list and a []string used as a queue (append at the back, reslice
// at the front), 16-byte items, median of 5, ns per operation (per push+pop pair),
// one run of
//
//	go test -run '^$' -bench BenchmarkList -count 5 -timeout 60m ./list/
//
// on 2 shared cores under load from other builds (the memory and GC rows are
// from `-bench 'BenchmarkList/op=mem' -count 5` after the last change to page sizing;
// "forced GC" is the best of five runtime.GC calls with the n items alive):
//
//	op           n     List      container/list  ratio  []string
//	LPUSH+LPOP   1e3      54 ns      119 ns      0.46       -
//	LPUSH+LPOP   1e6      41 ns       91 ns      0.45       -
//	RPUSH+RPOP   1e3      47 ns      175 ns      0.27     2.7 ns
//	RPUSH+RPOP   1e6      32 ns      144 ns      0.22     3.0 ns
//	RPUSH+LPOP   1e3      43 ns      122 ns      0.35      73 ns
//	RPUSH+LPOP   1e6      51 ns      136 ns      0.37      68 ns
//	LPUSH+RPOP   1e3      47 ns      126 ns      0.37       -
//	LPUSH+RPOP   1e6      37 ns      123 ns      0.30       -
//	LINDEX mid   1e6     134 ns      4.2 ms               1.8 ns
//	LRANGE 100   1e6     9.5 µs      9.0 ms               2.5 µs
//	LPOS mid     1e6     3.6 ms      9.4 ms                14 ms
//	B/elem       1e3   19.42       80.06                32.42
//	B/elem       1e6   19.03       80.00                33.75
//	forced GC    1e6     3.9 ms      143 ms                12 ms
//
// The machine's load made figures move from run to run: in a later run of the same
// command container/list's pairs at n = 1e3 took only 53-62 ns (its GC work then ran
// on the idle second core), putting the ratio at 0.65-0.78 there and 0.04-0.32 at
// 1e6. With one processor (GOMAXPROCS=1 in the environment: `-cpu 1` does not reach a
// b.Loop benchmark), where that GC work counts in the wall time, the
// push+pop ratios were 0.40-0.59 at 1e3 and 0.15-0.27 at 1e6 (3 runs).
// Compare within one run.
//
// A push+pop pair costs one allocation, the popped string (16 B); container/list
// allocates an element and boxes the string in an interface (64 B, 2 allocations),
// and its 1e6 elements make every collection mark 2e6 objects. The slice is fastest
// as a stack but copies itself as a queue (its reslicing leaks capacity until the
// next append reallocates) and keeps one pointer per item for the GC. Heap figures
// are the Go heap in use after a GC, items' bytes included, divided by n.
//
// # Differences from Redis
//
//   - LPOS with RANK -9223372036854775808 returns [ErrRankOutOfRange], as Redis 7.2
//     and later do; Redis 7.0 silently treated it as RANK -1 (an overflow).
//   - The strings returned by [List.Range], [List.PopFrontN] and [List.PopBackN]
//     share one allocation per call, so keeping any of them keeps all of that call's
//     bytes alive.
//   - An item is at most 2 GiB (Redis's proto-max-bulk-len is 512 MB); a larger one
//     panics, since page offsets are 32-bit.
//   - There is no list-compress-depth (LZF compression of inner pages) and the page
//     size is fixed (2 KiB) rather than set by list-max-listpack-size.
//   - Keys, empty-list deletion, nil versus empty replies and argument parsing belong
//     to the command layer: a List may be empty, and [List.PopFrontN] returns an empty
//     slice for a count of 0.
package list
