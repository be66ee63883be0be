// Package prefetch starts memory reads whose results are not waited for, so that a
// caller that knows an address early can have its cache line on the way while it does
// other work (a keyspace comparing a key's name while its value is read).
//
// Go has no prefetch instruction for programs to call. On amd64 a read is an
// ordinary load, made with sync/atomic so that the compiler keeps it although its
// result is unused; every load on amd64 is ordered as an atomic one is, so it costs
// what a plain load does, and the processor runs on past it while it misses. On
// other architectures an atomic load orders the loads after it (arm64's LDAR), which
// would make the reads after it wait rather than overlap, so Line does nothing there.
//
// Concurrency: Line only reads; the caller must be allowed to read the address (hold
// the lock that guards it), as for any read. Costs: one load instruction, O(1).
package prefetch
