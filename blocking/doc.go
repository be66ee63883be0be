// Package blocking implements callers that wait on named keys, first blocked first
// served, and writers that hand an element to exactly one of them under the
// writer's own lock: the core of Redis's BLPOP, BZPOPMIN and BLMOVE, without lists
// or sorted sets.
//
//	w := reg.NewWaiter(keys)     // under no lock
//	mu.Lock()                    // try the keys; nothing there:
//	served, err := reg.Wait(ctx, &mu, w, timeout)
//
// A [Registry] holds, per key, a FIFO queue of [Waiter]s, and the list of keys
// marked ready since the last serve. A writer that adds to a key calls
// [Registry.MarkReady]; when its command is complete, still under the lock, it
// calls [Registry.ServeReady] with a [ServeFunc] that knows what the waiters ask for
// (its R): each ready key is offered to its waiters in the order they blocked, each
// waiter served is removed from all its keys and woken, until the key is exhausted.
// [Registry.Serve] does the same for one key at once: a writer uses it to hand an
// element straight to a waiter without storing it. A ServeFunc may mark keys ready
// (a BLMOVE pushing into its destination); they are served in a later round of the
// same ServeReady, as Redis serves them.
//
// # Concurrency
//
// A Registry holds no lock of its own. It lives under the lock of the data its keys
// name, a sync.Locker that the caller passes to [Registry.Wait]: every method runs
// with that lock held, except [Registry.NewWaiter] and [Waiter.Release]. Nothing
// assumes the lock is global: a keyspace split into shards can keep one Registry per
// shard under that shard's lock, as long as a waiter's keys all live in one shard.
// A blocked caller holds no lock while it waits. Nothing runs in the background.
//
// # Why a channel per waiter, not sync.Cond
//
// The design card speaks of condition variables, and the idea kept is theirs: a
// waiter sleeps until a writer, holding the lock that guards the data, tells it
// that its condition holds, and it checks its state under that lock when it wakes
// for any other reason. What is not kept is sync.Cond itself. A Cond cannot be
// waited on in a select with ctx.Done() or a timer, and Broadcast wakes every waiter
// to fight over one element (Signal wakes one, but not a chosen one). So each
// waiter owns a one-slot buffered channel, and the writer does the work of the
// wake-up under its lock: it takes the element out of the key, writes it into the
// waiter's request, unlinks the waiter from all its queues and then sends. The
// waiter's select only learns of a hand-off that is already complete, and the send
// never blocks the writer.
//
// # Timeouts, cancellation and the race with a serve
//
// [Registry.Wait] tries nothing itself: the caller tries its keys under the lock
// first, so a caller whose ctx is already done still gets an element that is there
// (golang.org/x/sync/semaphore checks ctx first instead). When the timer or ctx
// fires, Wait re-locks: if a serve got there first, the element has left its key,
// so Wait keeps it and reports served (semaphore gives its tokens back, which works
// for interchangeable tokens, not for an element popped in order); if not, it
// unlinks the waiter under the lock, so no later serve can reach it. An element is
// never lost and never delivered twice. Wait's doc comment gives the argument for
// each branch of its select.
//
// # Costs
//
//   - NewWaiter: O(keys) to drop repeated keys; no allocation for a recycled waiter
//     with at most 4 keys.
//   - Blocking (Wait): amortised O(keys) under the lock: one map lookup and append
//     per key. Queues of keys nobody waits on any more stay in the map for reuse
//     until they outnumber the live ones; each sweep then removes at least half of
//     the map, which makes its cost O(1) per key ever enqueued.
//   - Giving up (timeout, cancel) or being served: amortised O(keys of the waiter)
//     under the lock: its entries stay in the other queues as dead entries, and a
//     queue more than half dead is compacted, which the appends of the entries it
//     drops pay for. Dead entries never make up more than half of a queue (beyond
//     8) between calls.
//   - MarkReady: O(1), one map lookup when nobody waits on the key.
//   - The map lookups above are spared for the key looked up last: a Registry
//     remembers its queue, so the push that serves a pop, or the pop that
//     blocks again on the key it was just served from, compares the key's
//     string (without reading its bytes when it is the same string) instead of
//     hashing it.
//   - Serve and ServeReady: O(waiters offered the key + dead entries among them +
//     the keys of the waiters served), plus one channel send per waiter served.
//   - Waiting with a timeout costs one time.Timer; without, a plain receive.
//
// Waiters are recycled through a per-Registry pool, so a waiter and its channel
// never move between registries. A queue entry records the waiter's generation,
// bumped at each use, so an entry left behind in a queue is never taken for the
// waiter's next use.
package blocking
