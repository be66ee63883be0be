// Package prefetch starts memory reads whose results are not waited for, so that a
// caller that knows an address before it needs what is there can have its cache line
// on the way while it does other work: a keyspace reads a key's value while it
// compares the key's name, and warms the lookups of the next commands of a pipeline
// while it runs the current one.
//
// Go has no prefetch for programs to call, so Line is a few lines of assembly: the
// processor's prefetch instruction (PREFETCHT0 on amd64, PRFM PLDL1KEEP on arm64),
// which retires at once, so that the reads after it go on while the line arrives;
// an ordinary load left unused would hold back every instruction after it once the
// processor's window of about two hundred is full. Span reads up to five lines of a
// buffer in one call (a small sorted set's first 256 bytes and its last byte), with
// no loop of calls in Go. Elsewhere both do nothing. A call costs a few
// instructions, as it cannot be inlined.
//
// Concurrency: Line and Span read nothing the program can see and write nothing;
// they are safe on any address, even one another goroutine is writing. Costs: O(1).
package prefetch
