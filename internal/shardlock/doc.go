// Package shardlock implements RWMutex, the lock of one shard of a zlite keyspace:
// one writer at a time (every command, and every batch), or any number of readers
// (batches of reads). It is built so that a writer pays what a sync.Mutex costs when
// the lock is free, one compare-and-swap to lock and one atomic add to unlock, where
// sync.RWMutex costs a writer two more atomic operations and calls that do not
// inline: every write would pay that for the reads that share.
//
// Readers do not wait: TryRLock either gets in at once or fails, and the caller then
// locks as a writer. This is what a keyspace wants, where a read that finds a key
// whose time has come must delete it and so needs the writer's lock anyway.
//
// # Design
//
// The state word holds the number of readers inside in its low 32 bits and the
// writer's bit above them, so that each side's atomic change also tells it what the
// other holds. A writer takes a free lock by swapping 0 for the bit. A reader adds one
// and, if the writer's bit is set, takes it back and fails. A writer that finds the
// lock taken queues on a sync.Mutex (which parks the writers in order); the one at
// its head sets the bit as soon as no writer holds it, then waits for the readers
// inside to leave. New readers back off while the bit is set, so readers cannot
// starve a writer. A writer arriving at a free lock takes it even when others queue
// (barging, which keeps a contended lock busy), unless the queue's head has waited
// starveAfter (as sync.Mutex's starvation mode): it then sets a second bit that makes
// the free lock look taken to newcomers, and gets the next turn.
//
// The queue's head waits for the writer to leave, and a writer for the readers, by
// checking a few times with the processor yielded in between and then sleeping on a
// channel, which Unlock and the last reader out signal when someone sleeps there.
// Each sleeper counts itself before checking its condition and each signaller changes
// the state before reading the count, all sequentially consistent, so no wake-up is
// missed. At most one goroutine waits on each channel, and a token left over from a
// wait that ended without it is only a spurious wake-up: a sleeper checks its
// condition again.
//
// The words every Lock and Unlock touch are 16 bytes; the queue and the channels,
// which only contended locks use, are behind a pointer, so that a shard's first cache
// line has room for what its commands write.
//
// # Concurrency
//
// All methods are safe for concurrent use once Init has returned. Unlock must follow
// a Lock, RUnlock a TryRLock that reported true; neither checks.
//
// # Costs
//
// Lock, Unlock, TryRLock and RUnlock are O(1) when the lock is free; a Lock that finds
// it taken waits for the writers queued before it and for the readers inside.
package shardlock
