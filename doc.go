// Package zlite implements an in-process keyspace of Redis sorted sets, lists,
// strings, hashes and sets, with Redis's commands, replies, error texts and blocking
// pops, and no server.
//
//	db := zlite.New()
//	db.ZAdd(ctx, "jobs", zlite.Z{Member: "a", Score: 1})
//	key, z, ok, err := db.BZPopMin(ctx, time.Second, "jobs")
//
// A [DB] holds named keys, each a sorted set (*zset.Set), a list (*list.List), a
// string, a hash (a *dict.Map) or a set (a *set.Set: an intset while its members are
// few integers, a dict.Map of members after); a sorted set, list, hash or set that
// becomes empty is deleted at once, as in Redis (a string may be empty). Commands are available three ways: typed
// methods named and ordered like go-redis's ([DB.LPush], [DB.BRPop], [DB.ZAdd], ...),
// [DB.Do] taking a command as words and replying like go-redis's Do().Result(), and
// the same two inside an atomic batch ([DB.Update], [Tx]).
//
// # Concurrency
//
// A DB is safe for concurrent use, and commands on unrelated keys run in parallel:
// the keyspace is split into shards ([DefaultShards], [WithShards]) by the hash of
// each key's hash tag (as Redis Cluster: "{user1}:cart" and "{user1}:log" hash
// "user1", so they share a shard), each shard a key table, an expiry index, wait
// queues, watches and counters under its own lock. A command locks the
// shards of the keys it names, in ascending order, so two commands never wait for
// each other in a cycle: one shard for ZADD, ZSCORE, LPUSH, BLPOP of one key; the
// shards of every key for LMOVE, RENAME, ZUNIONSTORE and the MPOP commands; every
// shard for KEYS, SCAN, DBSIZE, RANDOMKEY, FLUSHALL, [DB.Update], [DB.View] and
// [DB.Stats]. [DB.UpdateKeys] and [DB.ViewKeys] are batches that lock only the
// shards of the keys they declare (a key outside them panics with
// [ErrUndeclaredKey]). So every command and batch is atomic, as in single-threaded
// Redis: whatever it touches is locked from its start to its end, and the callers it
// serves are served before the locks are released, so no command on those keys runs
// in between. Batches of reads share their shards with each other when no key in
// them has a TTL (a read deletes a key whose time has come, as Redis's reads do):
// [DB.View], [DB.ViewKeys] and the RESP server's pipelines of reads of one shard. A
// single command takes its shards exclusively, reads included: a shared reader
// costs two atomic adds on its shard's lock word, and one hot key read from several
// cores then moves that word between them on every read, which costs more than
// taking the lock in turn. The lock is a reader-writer lock of
// one word whose writer costs what a sync.Mutex costs (a compare-and-swap and an
// add); under contention it lets the writer that arrives at a free shard take it
// (as sync.Mutex does) until the longest waiter has waited 1 ms, and waiters spin
// briefly with the processor yielded before they sleep, which kept 8 goroutines on
// one key at 0.79-0.93 times one goroutine's rate where sync.Mutex fell to
// 0.15-0.27 for ZSCORE. Before yielding, the first waiter checks a few times
// without yielding, unless a waiter slept on that lock within the last millisecond:
// two goroutines that meet on a shard while working on random keys then go on
// without a sleep, and a hot key's holder still runs alone while the others sleep.
//
// What scales commands on random keys is how few cache lines they write that
// another core wrote last: each such line is a transfer between the cores' caches,
// and a command on a random key finds its shard last used by another core about half
// the time. A shard is laid out in whole cache lines, and a single-key command writes
// one of them besides its key's own data: the lock word, the command counts (the two
// commands the shard ran last, folded into the full counters when a third comes or
// [DB.Stats] reads them) and the hash of the key (its low bits choose the shard,
// its high bits the key-table slot, so it is computed once) share the first line,
// and the shard's transaction fields are written only when they change.
//
// Blocked callers hold no lock while they wait. A caller blocked on keys of one
// shard (and a BLMOVE whose destination is in it too) waits in that shard's
// queues. A caller blocked on keys of several shards waits in the DB's global
// queues, and while any does, every command locks every shard: the keyspace is one
// lock until the last of them is served or gives up, which keeps Redis's order
// (first blocked, first served; a key's older waiters in its shard's queue are
// offered each element before the global queue's). Keys that are blocked on
// together should share a hash tag, as they must in Redis Cluster (the queues of
// package queues do).
//
// With 64 shards two random keys share a shard 1/64 of the time, so commands on
// random keys rarely wait for each other; how far they scale with the cores is set
// by what a cache line moving between cores costs on the machine, since a command
// on a random key finds its shard's first line last written by another core about
// half the time (BenchmarkMachine measures that price, BenchmarkScaling the scaling
// itself; see docs/benchmarks.md). Commands on one key share its shard's lock and
// do not run in parallel. A [Tx] is valid only inside the function it is passed to.
//
// # Blocking pops
//
// BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP, BZPOPMIN, BZPOPMAX and BZMPOP follow
// Redis's serving rules. A blocking call first tries its keys left to right, like the
// non-blocking command. If every key is missing it registers a waiter in a
// first-come-first-served queue per key and waits on the waiter's own channel, its
// timer and ctx.Done() in one select. A write that adds to a key with waiters marks
// the key ready; when the command (or the whole Update batch) is complete, and still
// under the lock, the ready keys are served in order: each waiter in turn takes its
// element(s), is removed from the queues of all its keys and is signalled, until the
// key is empty. One element wakes exactly one waiter; a variadic push or a batch
// serves waiters from the final state; a BLMOVE's push into its destination marks
// that key ready and serves its waiters in the same pass. A BLMOVE whose destination
// holds a sorted set gets WRONGTYPE and consumes nothing.
//
// The queues, the ready keys and the wait are package
// [github.com/zlite/zlite/blocking], which knows nothing of lists or sorted sets; the
// keyspace says what each waiter takes. When the timer or ctx fires, the waiter
// re-locks: if it was served in the meantime, the element already left its key and
// is returned (never lost); if not, it removes itself under the lock, so no later
// write can serve it (never delivered twice). A caller whose ctx is already done
// still gets an element that is there (the keys are tried first), and a caller
// served at the instant its ctx fires keeps the element: unlike
// golang.org/x/sync/semaphore, which checks ctx first and gives tokens back, since
// an element popped in order cannot be put back unseen. Package blocking's doc says
// why each waiter has a channel rather than sharing a sync.Cond. Each blocked call
// costs its own goroutine (the caller's), one waiter with its channel (recycled) and,
// with a timeout, one time.Timer; nothing else runs in the background. Blocking on
// n keys costs amortised O(n) under the lock, and so does leaving them.
//
// Timeouts given to [DB.Do] are seconds parsed as Redis 7.2+ parses them on x86-64
// (a long double, rounded up to milliseconds): 1e-400 is 1 ms, -0.0001 is forever,
// and a deadline beyond 2^63 ms is [ErrTimeoutOutOfRange].
//
// Inside [DB.Update], blocking commands do not block: as inside MULTI, they return at
// once as on a timeout when nothing is ready.
//
// # Costs
//
// A typed method costs the engine operation plus one hash of its key (which finds
// both its shard and its key-table slot), one uncontended lock round trip, one
// key-table lookup (see Key table) and one command-counter increment (for
// [DB.Stats]); [DB.Do] adds a table lookup, argument parsing and the boxing of the
// reply. A key that is created and drained over and over (a queue) reuses its value,
// its wait queue and its waiters. A push (LPUSH, RPUSH) onto a missing key that has
// waiters hands the pushed strings straight to them, as the list it would create would
// serve them, without creating that list (only what is left over, or a BLMOVE waiter,
// takes the general path); a one-member ZADD (not XX or INCR) does the same for
// sorted-set waiters. Such a hand-off allocates nothing. Inside [DB.Update] writes
// always take the general path, since the batch must see them. A write that serves
// waiters pays O(1) per waiter served; waking a waiter costs one channel send.
//
// BenchmarkOverhead measures the keyspace's share of a command against the engine
// called directly, and BenchmarkHandoff a push handed to a blocked pop against a
// bare channel ping-pong. A blocking pop served at once takes no waiter; one that
// blocks takes a pooled waiter from the Registry it blocks in.
//
// # Key table
//
// Each shard keeps its keys in one table (internal/keytable) rather than a Go map:
// the key bytes back to back in a pointer-free arena, one pointer-free 24-byte entry
// per key in creation order, the values' headers (zset.Set, list.List, dict.Map,
// set.Set, short strings whole) by value in slabs that never move, and an
// open-addressing index, so that the garbage collector sees about one pointer per key
// and a key costs about 40 bytes beyond its value and its own bytes (a counter's
// value, up to 6 bytes, sits in its entry). A lookup is O(1) on average and, among
// many keys, waits for three cache misses one after another (a set of strings, whose
// map sits behind a pointer, for four). KEYS and SCAN walk the entries in creation
// order; a SCAN cursor is a sequence number (and the shard, in its top 8 bits), so it
// stays valid across deletes, growth and compaction. Growing a table copies it whole, which
// with the keys spread over 64 shards is 1/64 of the keyspace; Redis rehashes
// incrementally. docs/design.md explains the layout and the measurements behind it.
//
// # Expiry
//
// A key may have an expiry time (EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT with NX, XX,
// GT, LT; [Tx.Expire], [Tx.ExpireAt], ...), with Redis's rules: a time not after
// now deletes the key at once; a key that becomes empty loses its TTL with it;
// writes that change a value in place (LPUSH, ZADD, LSET, ...) keep it; RENAME and
// COPY carry it; the *STORE commands, which replace the value, clear it; PERSIST
// removes it. Time comes from [WithClock] (time.Now by default) in milliseconds,
// read at most once per command or [DB.Update]/[DB.View] batch, so that a batch sees
// one time, as a Redis script does (and a key cannot expire halfway through it).
//
// An expired key is never visible: every access to a key (reads, writes, EXISTS,
// TYPE, TTL, blocking pops' tries and serves) goes through one lookup that deletes
// the key if its time has come, counts it in [Stats].ExpiredKeys and marks its
// WATCHes dirty, as Redis's EXEC fails when a watched key expired; KEYS, SCAN and
// RANDOMKEY skip such keys, and DBSIZE and Stats reclaim them first. Callers blocked
// on a key are unaffected by its expiry (they wait for a value, as in Redis).
//
// Storage: keys without a TTL pay nothing for the feature (a flag in their entry's
// padding; the 100k-key shapes of BenchmarkManyKeys use the same bytes as before).
// A key with a TTL costs about 42 bytes more: an entry in a pointer-free side map
// from its sequence number to its time, and a 16-byte ref in a min-heap ordered by
// time (measured: 91.9 → 134.4 B/key for 100k one-member sorted sets, 163.9 → 206.4
// for one-element lists, go test -run '^$' -bench 'BenchmarkManyKeys$/op=mem/.*n=1/'
// -benchtime 1x .). Changing or removing a TTL leaves a stale ref in the heap,
// skipped when it surfaces; the heap is rebuilt when stale refs outnumber live ones.
//
// Reclamation needs no scan of the keyspace: every write command ends by popping at
// most 20 due refs off the heap and deleting their keys (O(log k) each, plus an
// O(log n) search of the entry by sequence number), so memory is reclaimed while
// writes come at least 1/20 as fast as keys expire. For a DB that may go without
// writes, [DB.StartExpiry] runs Redis's active cycle in a goroutine: every 100 ms it
// reclaims every due key in rounds of 20, releasing the lock between rounds. A
// command that meets a key with a TTL reads the clock once; so does a write command
// while some key has a TTL; commands on keys without one never do. time.Now costs
// about 20 ns where the clock is read in user space, and several times that on a
// virtual machine whose clock read is a system call: there a CPU profile of ZSCORE
// on a key with a TTL (BenchmarkExpiry) puts the check (the side map's lookup and
// the clock read) at about 30% of the command's CPU time. [WithClock] accepts a
// cheaper, coarser clock.
//
// For persistence, the keyspace exposes (unexported, under the lock) expireAt(key),
// a key's time as Unix ms, to log as PEXPIREAT, and setExpireAt(key, ms), which sets
// it without deleting a key whose time is past (it expires on first access), as
// Redis does while loading. Every deletion for a TTL, lazy or active, goes through
// one function (expireEntry), the place to log it as DEL.
//
// # Errors
//
// Every error's text is Redis's reply, byte for byte, so a [DB.Do] reply can be
// compared with Redis's or sent on the wire. Match errors with errors.Is against the
// exported sentinels ([ErrWrongType], [ErrSyntax], [ErrNotInteger], [ErrNumKeys],
// ...; zset.ErrNotFloat and the other engine errors come through unchanged). Errors
// whose text names the command or quotes its arguments are an [*Error], whose Kind
// ([ErrArity], [ErrUnknownCommand], [ErrNoInputKeys], [ErrReplyTooLarge]) errors.Is
// matches and whose Command errors.As reads.
//
// # Monitoring
//
// [DB.Stats] returns the keys by type and encoding, their elements and engine
// memory, the blocked callers, and each command's call count (typed methods, Do and
// Tx.Do alike) with, when [WithLatencyTracking] is set, a log2 histogram of its time
// under the lock. The counters are always on: a plain increment under the keyspace
// lock (an atomic add for the blocking commands, which count before they wait).
// Stats itself holds the lock while it visits every key, so it is for monitoring,
// not for a hot path. The typed DB methods that only lock and call their Tx method
// are generated (go generate; internal/gendb) into db_methods.go, which counts them.
//
// # Persistence
//
// [New] makes a keyspace that lives only in memory. [Open] makes one kept in a
// directory by package persist (file layout and formats: persist/doc.go): a log of
// the writes after a snapshot of the keyspace. Each write appends the Redis commands
// of its effect (the command itself; a served blocking pop, a direct hand-off, LMPOP
// and LMOVE as the non-blocking LPOP, RPOP, ZPOPMIN, ZPOPMAX or LMOVE they
// performed; a *STORE command as DEL plus the stored value), one record per command
// and one per [DB.Update] batch, and the call returns once the record is durable as
// the sync policy ([WithSync]) says:
//
//   - [SyncAlways]: written and fsynced (concurrent writers share one fsync). A
//     process crash or a power loss loses no acknowledged write.
//   - [SyncEverySecond], the default as in Redis: written to the file, fsynced in
//     the background every second. A process crash (SIGKILL, panic, OOM kill)
//     loses no acknowledged write; a power loss, about the last second.
//   - [SyncNever]: written to the file; the operating system decides when it
//     reaches the disk. A process crash loses nothing acknowledged.
//
// A record is all or nothing after any crash, so a batch is never half-applied; a
// write whose call did not return may or may not be there. A blocked caller served
// by another's write returns its element only once the record of the pop is
// durable. Open loads the newest snapshot and replays the log (each record as one
// batch through [Tx.Do]); a torn final record is dropped with a warning, and so is
// a record a crash left unfinished between records of writers of other shards
// (under EverySecond and Never, writers of different shards copy their records into
// the log at the same time); anything else damaged fails Open with a
// [*persist.CorruptError] naming file and offset.
//
// [DB.Snapshot] (BGREWRITEAOF) writes a snapshot and drops the log before it;
// one also starts on its own when the log since the last snapshot outgrows
// [WithAutoSnapshot]'s thresholds (100 % and 64 MiB by default, Redis's
// auto-aof-rewrite-percentage and -min-size). Writers are not stopped meanwhile:
// the keys are listed under the lock, then each value is copied under the lock a
// few at a time, or by a writer about to modify it first, and written without the
// lock; the longest stall is about the copy of the largest value.
//
// Expiry times are logged as absolute PEXPIREAT and a key's expiry (lazy or by the
// active cycle) as DEL, where it happened; snapshots carry each key's expiry time.
// Nothing expires while Open replays the log (as in Redis's loading); a key whose
// time passed while the DB was closed expires on its first access after Open.
//
// When a write or fsync of the log fails (a full disk, an I/O error), the write
// that met it returns a [*MisconfError] (Redis's "MISCONF Errors writing to the
// AOF file: ..."; errors.Is matches [persist.ErrFailed] and the system's error),
// though it was applied in memory; from then on every write is refused with that
// error and changes nothing, and reads keep working, until the DB is closed and
// opened again (which loads what the log holds). Redis under appendfsync always
// exits instead.
//
// # Keyspace notifications
//
// Redis's notify-keyspace-events: [ParseKeyspaceEvents] reads its flag letters
// (K E g $ l s h z x e t m d n A) and [KeyspaceEvents.String] gives them back as
// CONFIG GET does; [WithKeyspaceEvents] and [DB.SetKeyspaceEvents] turn classes
// on, [DB.KeyspaceEvents] reads them. Each write then publishes, into the DB's
// Pub/Sub, "__keyspace@0__:<key>" with the event's name and "__keyevent@0__:<event>"
// with the key, for each event it causes: the names, the order and the conditions
// of Redis 7.0's and 7.2's notifyKeyspaceEvent calls ("set" then "expire" for SET
// EX; "lpop" then "del" for the pop that empties a list; "rename_from",
// "rename_to"; "new" before the first event of a key created; "expired" when a
// lookup or the active expiry reclaims a key). Events are published under the
// locks of the command, as it runs: a batch's commands publish one by one, and
// a blocked caller served by a push publishes its pop's events after the push's.
// With the key-miss class (m), a command that reads a key publishes "keymiss" for
// each key it looks up and finds missing, in the order it looks them up (after
// "expired" for a key whose time had come), as Redis's read lookup does: GET,
// MGET, GETSET and SET ... GET, EXISTS, TYPE, TTL, COPY's source, the sources of
// SINTERSTORE, ZUNIONSTORE and BITOP, SORT's key and the keys its BY and GET
// patterns name, and every other read; the commands that write a key (SET,
// LPUSH, LPOP, LMOVE, SMOVE, RENAME, EXPIRE, DEL, ...), OBJECT ENCODING, MEMORY
// USAGE and the serving of blocked callers publish none, as Redis's write lookup.
//
//	db := zlite.New(zlite.WithKeyspaceEvents(zlite.EventsKeyevent | zlite.EventsAll))
//	sub := db.PSubscribe(ctx, "__keyevent@0__:*")
//
// [DB.SetEventHub] publishes them into another hub under another DB number (the
// RESP server gives each of its 16 keyspaces its number and the one hub, and
// renumbers two that SWAPDB exchanges); [WithEventsDB] sets the number alone.
// [Tx.MuteEvents] and [Tx.NotifyKeyspaceEvent] let a command built of others (the
// server's MOVE between keyspaces) publish Redis's events instead of its parts'.
// While no class is on (the default), a write pays one atomic load and one
// branch per event it could publish, inlined, and allocates nothing; with events
// on, each costs two channel names built and published (BenchmarkNotify). A push
// or one-member ZADD that would hand its element straight to a blocked caller
// (see Costs) takes the general path while events are on, since Redis's events
// are those of the key created and then popped.
//
// # Differences from Redis
//
//   - Update has no rollback: writes made before fn returns an error stay, as in a
//     Redis script that fails halfway.
//   - KEYS and SCAN return keys in creation order, not hash order. A SCAN cursor is
//     the creation number of the next key; every key present for the whole scan is
//     returned exactly once.
//   - Where Redis 7.2 changed behaviour, zlite follows 7.2: scores are formatted
//     shortest round-trip; LPOS RANK -9223372036854775808 is an error.
//   - ZRANK and ZREVRANK accept WITHSCORE (Redis 7.2); a negative LIMIT offset
//     gives an empty reply (Redis 7.2).
//   - ZSCAN returns a set of at most 128 members whole, with cursor 0, whatever the
//     cursor given, as Redis does for its small-set encoding. For larger sets the cursor encodes a score: each call
//     returns about COUNT members in ascending order from that score, never splitting
//     members that share a score, in O(log n + COUNT). Every member present with an
//     unchanged score for the whole scan is returned exactly once; one whose score
//     changes mid-scan may be missed or repeated (Redis's hash-order cursor would
//     still return it).
//   - Replies are built in memory (Redis streams them to the socket), so one reply
//     holds at most [DefaultMaxReplyElements] elements, or the bound set with
//     [WithMaxReplyElements]. Only ZRANDMEMBER with a negative count can reach it
//     (its reply repeats members, so it is not bounded by the data); beyond it the
//     command fails with an error matching [ErrReplyTooLarge]. Every other reply is
//     bounded by what the keyspace holds, and no count, index, LIMIT, COUNT, MAXLEN
//     or RANK argument sizes an allocation.
//   - A stored score of -0 reads back as -0, as in Redis's large (skiplist) sets;
//     Redis's small (listpack) sets read it back as 0.
//   - Typed ZADD with NX and XX, or GT and LT, returns Redis's error; go-redis drops
//     the second flag before sending.
//   - INCRBYFLOAT adds in long-double precision and formats as Redis does, but takes
//     only numbers within float64's range: "1e400" or "1e-400", which Redis's long
//     double holds, is "ERR value is not a valid float".
//   - Typed methods take time.Duration timeouts exactly; go-redis rounds them to
//     whole seconds for Redis.
//   - DBSIZE (and Stats.Keys) never counts expired keys; Redis's counts those its
//     active cycle has not reclaimed yet. KEYS, SCAN and RANDOMKEY skip them.
//   - A DB is one keyspace: COPY's DB option accepts 0 only and replies
//     [ErrDBIndex] otherwise, as a Redis server with "databases 1" (the RESP server,
//     which holds 16 keyspaces, handles DB itself). OBJECT is the RESP server's.
//   - UNLINK is DEL (values are freed by the garbage collector either way); TOUCH
//     counts the keys that exist (no access times are kept).
//   - A set of strings is packed up to 128 members of up to 64 bytes ("listpack",
//     Redis 7.2's set-max-listpack-* rule; Redis 7.0 keeps it in a hash table), so
//     SMEMBERS, SSCAN and the set algebra give its members in insertion order. A
//     hash or set past the packed encoding keeps insertion order too, where
//     Redis's hash table order is arbitrary; integer sets are ascending in both.
//     HSCAN and SSCAN of a large hash or set return every element present for the
//     whole scan exactly once.
//   - SRANDMEMBER and HRANDFIELD with a positive count below the size pick their
//     elements with Redis's distribution (distinct, uniform) but not its sequence
//     of random numbers; SPOP likewise.
//   - Keyspace notifications: evicted (e), stream (t) and module (d) events never
//     occur, as zlite evicts nothing and has no streams or modules. SCAN with TYPE
//     passes over a key whose time has come without an event, where Redis 7.0
//     reads it, publishing "expired" and "keymiss", if its cron has not reclaimed
//     it first. When a key's time has come it
//     is reclaimed, with its "expired" event, by the next lookup or by the end of
//     a command in its shard (or [DB.StartExpiry]), not by Redis's cron: the event
//     may come at another moment than Redis's, never in another order with the
//     key's other events.
//   - There are no databases: a DB is one keyspace, numbered 0 in its events'
//     channels unless [WithEventsDB] or [DB.SetEventHub] says otherwise. Persistence is a log with
//     a checksum per record and a snapshot format of its own (not RESP and RDB);
//     a failed log write refuses writes under every policy.
package zlite
