// Package server implements the Redis protocol (RESP2 and RESP3) over zlite
// keyspaces, so that redis-cli, redis-benchmark, go-redis and any other Redis client
// run unchanged on a [zlite.DB]: over TCP ([Server.Serve], cmd/zlite-server) or
// in-process with no socket ([Dialer]).
//
//	srv := server.New(server.WithDB(0, db))
//	go srv.Serve(listener)                                              // TCP
//	rdb := redis.NewClient(&redis.Options{Dialer: server.Dialer(db)}) // in-process
//
// Replies are byte for byte Redis's, in both protocol versions (HELLO 2|3): RESP3's
// doubles for scores, maps, its single null; RESP2's null bulk string or null array
// exactly where Redis sends each. The keyspace declares each command's reply form in
// its command table ([zlite.Command.Shape]); the server does not guess from names.
//
// # Connections and concurrency
//
// A Server is safe for concurrent use. Each connection is served by one goroutine
// that parses each command the read buffer holds whole in place (its arguments
// copied out in one allocation), runs it on the selected keyspace and
// writes the reply into a buffer that is flushed only when the goroutine is about
// to wait for input, so a pipeline costs one read and one write (on Linux, raw
// system calls through a TCP or Unix socket's syscall.RawConn: one that does not
// block does not wake the runtime's monitor thread; see rawio_linux.go). The
// non-blocking keyspace commands of a pipeline run together: under the locks of
// the shards of their keys, taken once, when no client is blocked on those shards (so none is to be
// served between two of them), else one by one, as Redis serves a blocked client
// right after the command that made it ready. Under one lock (up to 128 commands)
// no command of another connection runs between them, as in Redis, which runs the
// commands a client's read brought before it reads another client's; one by one,
// others may. Commands of different connections run in parallel unless
// they touch the same shard of a keyspace ([zlite.DB]: a command on one key locks
// its key's shard, so commands on one key are as serial as in Redis).
//
// A blocking command (BLPOP, BZPOPMIN, BLMOVE, ...) blocks only its connection.
// While it waits, a second goroutine reads ahead on the connection, so a client
// that disconnects is noticed and its command cancelled: the element it was waiting
// for stays in the keyspace (the keyspace's wait re-checks under its lock whether it
// was served; a served element is returned, never dropped nor given twice). CLIENT
// UNBLOCK replies as on a timeout or with Redis's UNBLOCKED error; CLIENT KILL
// closes the connection. A client is blocked (CLIENT LIST's b flag, CLIENT UNBLOCK,
// blocked_clients) exactly while the keyspace holds it: never
// for a command served at once, and no longer from the moment a command serves it,
// before that command replies, as in Redis.
//
// MULTI queues commands (replying QUEUED; an unknown command or wrong arity at
// queue time makes EXEC reply EXECABORT); EXEC runs the queued keyspace commands as
// one [zlite.DB.Update] batch, in which blocking commands do not block, as in Redis.
// WATCH uses [zlite.DB.Watch]: EXEC checks the watched keys inside the batch and
// replies with a null array if one was modified.
//
// # Costs
//
// A command costs its keyspace command ([zlite.DB.Do]) plus parsing, one lookup in
// the server's command table (a string comparison when the command is the
// connection's previous one) and the encoding into the connection's 16 KiB write
// buffer; a pipeline's commands share one keyspace lock (see above). Parsing
// allocates one string for the arguments of a command of up to 128 bytes, one per
// argument for longer ones; the argument slices of a pipeline share one reused
// slice. The pipelined ZPOPMIN and ZPOPMAX of a batch write their
// member-score pairs straight into a buffer of the connection as they pop them: no
// copy of a member, no slice and no formatted score string per pop, so that a
// pipelined pop allocates nothing. A TCP connection holds a 16 KiB read and a 16 KiB write buffer and one goroutine (two while blocked). A
// [Dialer] connection starts no goroutine: its commands run on the goroutine that
// writes them (go-redis's caller), their replies wait in memory for its read.
//
// # Security and limits
//
// The request parser applies Redis's limits and replies Redis's protocol errors,
// then closes the connection: a bulk string longer than proto-max-bulk-len (512 MiB
// by default), a multibulk count over 2^31-1, an inline command or length line over
// 64 KiB; before AUTH (when a password is set) at most 10 arguments of at most 16 KiB.
// Memory grows with the bytes actually received, never with a length the client
// announces. Passwords are compared in constant time. cmd/zlite-server listens on
// loopback unless told otherwise, and a per-client idle timeout ([WithIdleTimeout],
// Redis's "timeout") closes slow or silent clients; a slow client never holds a lock
// or stalls another connection.
//
// # Scripts
//
// EVAL, EVALSHA, EVAL_RO, EVALSHA_RO, SCRIPT LOAD/EXISTS/FLUSH/KILL, FUNCTION
// LOAD/LIST/DELETE/FLUSH/STATS/KILL and FCALL/FCALL_RO run Redis's Lua 5.1 dialect
// on github.com/yuin/gopher-lua: one bridge (redis.call onto [zlite.Tx.Do] inside
// one Update of the caller's keyspace, so a script is atomic) serves every script,
// the queue types' and the users'. The sandbox is Redis 7's: every global and
// library table is read-only ("Attempt to modify a readonly table"), reading an
// undeclared global is an error, dofile, loadfile, print, os, io and debug are
// absent; the libraries are Redis's (base, table, string, math with Redis's
// deterministic random, cjson, cmsgpack, bit, struct; server/internal/lualib).
// Lua states are pooled and shared by every client's scripts, and nothing a script
// does to its state outlives it. Shebang flags (#!lua flags=no-writes,...) and the
// _RO commands refuse writes as Redis does.
//
// Bounds: no library call and no concatenation builds a string longer than 512 MiB
// (.. is compiled into a checked call); a script that grows the heap by more than
// 1 GiB (or by more than the heap held when it started, if that is more) is stopped
// with an error; a reply nested deeper than Lua 5.1's stack ends in Redis's
// "reached lua stack limit" at Redis's depth. Time: a script runs until it ends, as
// in Redis; past busy-reply-threshold (lua-time-limit, 5 s, [WithBusyReplyThreshold],
// CONFIG SET) every other command gets Redis's BUSY error except the ones Redis
// allows then, SCRIPT KILL (or FUNCTION KILL) stops a script that has not written,
// SHUTDOWN NOSAVE stops any. The kill check runs between instructions and inside
// every long library call (pattern matching, repetition, encoding), so a stuck
// script never holds its keyspace past a kill, and [Server.Close] and
// [Server.Shutdown] end in bounded time. A run costs a pooled Lua state and the
// compiled script (cached by SHA1).
//
// What differs from Redis's Lua:
//   - Error texts raised by the virtual machine itself are gopher-lua's ("attempt
//     to call a non-function object" where Lua 5.1 names the variable: "attempt to
//     call field 'x' (a nil value)"); compile errors are reworded into Lua 5.1's form
//     ("user_script:1: unexpected symbol near '<eof>'") but only that form. goto and
//     labels (Lua 5.2) compile.
//   - A read-only table is a proxy: pairs, next and rawget over _G or a library
//     table see nothing, and getmetatable returns a read-only placeholder.
//   - redis.call reaches the keyspace commands and PING, ECHO and TIME; other server
//     commands (INFO, CONFIG, SELECT, ...) are "not allowed from script".
//     redis.breakpoint and redis.debug do nothing (no SCRIPT DEBUG). Numbers passed
//     to redis.call are formatted as Redis 7.2 does (shortest round trip).
//   - Scripts on different keyspaces run in parallel; SCRIPT KILL stops the one
//     that started first. A command already waiting for the keyspace's lock when a
//     script passes busy-reply-threshold runs after the script instead of getting
//     BUSY. zlite has no FUNCTION DUMP or RESTORE.
//   - math.random has one generator per pooled Lua state, each starting where
//     Redis's starts; after math.randomseed the sequence is Redis's, but
//     consecutive scripts do not continue one process-wide sequence as in Redis.
//   - The memory bound above has no counterpart in Redis, whose process grows until
//     the system stops it.
//
// # Pub/Sub
//
// SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE, their UNSUBSCRIBE twins, PUBLISH, SPUBLISH
// and PUBSUB CHANNELS|NUMSUB|NUMPAT|SHARDCHANNELS|SHARDNUMSUB work as in Redis
// over package pubsub, whose hub is that of the keyspace given (or made) at number
// 0 when the server is made: a program that embeds that zlite.DB publishes to the
// server's subscribers with DB.Publish and hears its publishers with
// DB.Subscribe, and SWAPDB does not move it. In RESP2 a connection with a
// subscription runs only the subscribe commands, PING (replying ["pong", arg]),
// QUIT and RESET, with Redis's error for others; in RESP3 it runs everything and
// messages arrive as pushes. Confirmations and messages are written whatever
// CLIENT REPLY says, as Redis writes pushes. Scripts may PUBLISH and SPUBLISH, not
// subscribe.
//
// A subscribed connection gets a second goroutine that writes its messages as
// they arrive, sharing the connection's writer under a lock with the goroutine
// that serves its commands (pubsub.go). Messages published before a command of the
// connection runs are written before its reply; a message a command publishes to
// its own connection comes after that command's reply (Redis 7.2; 7.0 wrote it
// first, inside a script's or transaction's reply). A subscriber whose unsent
// messages pass client-output-buffer-limit pubsub (32 MiB, or 8 MiB for 60 s;
// pubsub.DefaultLimits) is disconnected, over TCP once the socket's buffers are
// full too, over the Dialer counting what the client has not read, so that one
// stalled subscriber cannot grow the server without bound; the others, and the
// publishers, never wait for it.
//
// # Keyspace notifications
//
// CONFIG SET notify-keyspace-events takes Redis's flag letters (K E g $ l s h z x
// e t m d n A, with Redis's error for any other) and CONFIG GET gives them back
// in Redis's canonical form (gKE, AKE, ...); see zlite.ParseKeyspaceEvents. The
// setting is the server's: it applies to all 16 keyspaces. Every keyspace
// publishes its events into the one hub of the server's Pub/Sub, on
// "__keyspace@<db>__:<key>" and "__keyevent@<db>__:<event>" with db its number,
// which SWAPDB updates (after SWAPDB 0 1 the keyspace now at 1 publishes as db 1,
// as Redis names the database by its index). The events are Redis's, in its order
// (zlite's package doc has the rules): a command inside MULTI or a script
// publishes as it runs; a blocked client served by a push publishes its pop's
// events after the push's; MOVE publishes "new" in the target, "move_from" and
// "move_to", and COPY ... DB n "new" and "copy_to" in the target, as Redis does,
// though both are made of a read and a write (see Differences). The tests port
// pubsub.tcl's notification tests and compare, command by command, every event
// published on zlite-server and on redis-server (port_notify_test.go).
//
// The key-miss class (m) publishes "keymiss" for each key a command reads and
// finds missing, as Redis's read lookups do; writes, OBJECT, MEMORY USAGE, MOVE
// and the serving of blocked clients publish none, and COPY ... DB n one for its
// missing source, in the source's keyspace.
//
// Differences: evicted (e), stream (t) and module (d) events never occur (no
// eviction, streams or modules); a key whose time has come publishes "expired"
// when a command meets it or the active expiry reclaims it, at moments of zlite's
// own rather than of Redis's cron (the order of a key's events is the same); and
// SCAN with TYPE passes over such a key without an event, where Redis reads it
// ("expired", "keymiss") if its cron has not reclaimed it first.
//
// # Operator commands
//
// MONITOR streams every command that runs in Redis 7.0's line format
// (+<unix>.<usec> [<db> <addr>] "cmd" "arg"..., arguments quoted as Redis's
// sdscatrepr; "[<db> lua]" for a script's commands, which follow the EVAL, EVALSHA
// or FCALL that ran them). As in Redis 7.0, a command is shown once it has run;
// one refused before running (unknown, wrong arity, NOAUTH, queued by MULTI) is
// not, nor are Redis's admin commands (CONFIG GET|SET|RESETSTAT, CLIENT
// KILL|LIST|UNBLOCK|NO-EVICT, SLOWLOG GET|LEN|RESET, DEBUG, MONITOR, SAVE, BGSAVE,
// BGREWRITEAOF, SHUTDOWN); AUTH's arguments and HELLO's AUTH pair read
// "(redacted)". A monitoring connection may not run keyspace commands (nor EVAL,
// PUBLISH, FLUSHDB...: Redis's "Replica can't interact with the keyspace"), a
// second MONITOR gets no reply, RESET ends monitoring, and MONITOR inside a
// transaction is queued and fails in EXEC with Redis's "DENY BLOCKING" error. Each
// command's goroutine formats its line once (nothing when no client monitors: the
// cost is then one atomic load) and appends it to every monitor's queue; a
// goroutine of the monitoring connection writes them out, sharing its writer
// under a lock as the Pub/Sub pusher does. A monitor whose unsent lines pass 32 MiB
// is disconnected, so a slow monitor never stalls a command or grows the server
// without bound (Redis puts monitors in the normal class, unlimited by default).
//
// SLOWLOG GET [count] | LEN | RESET | HELP keeps the commands that took at least
// slowlog-log-slower-than microseconds (CONFIG; 10000 by default, -1 none, 0
// all), the newest first, at most slowlog-max-len (128), each with its id, Unix
// time, duration, arguments (at most 32, the last "... (N more arguments)";
// longer than 128 bytes cut, "... (N more bytes)"; AUTH redacted), address and
// name. EXEC is not logged, its commands are. The duration is the command's run:
// pipelined keyspace commands that run under one lock (see above) each count an
// equal share of their batch's time, and a blocking command that blocked counts
// 0 (Redis counts its run without the wait; zlite's keyspace does not separate
// the two). A script's own redis.call commands are not logged (Redis logs them).
//
// MEMORY USAGE key [SAMPLES n] is zlite.DB.MemoryUsage (the key's bytes, its
// entry in the key table, the value's heap by capacity; SAMPLES is checked as in
// Redis and changes nothing, as zlite's engines know their sizes). MEMORY STATS
// replies Redis's fields in its order, filled from the Go runtime (the
// allocator's figures are HeapAlloc, HeapInuse and Sys; startup.allocated is
// the heap when the server was made) and the keyspaces (a key's overhead is its
// 24-byte entry; O(keys)); the replication, client, Lua and AOF buffers are 0.
// MEMORY DOCTOR gives Redis's text for no issue found (its "empty instance" text
// under 5 MB of heap), MEMORY MALLOC-STATS Redis's text for an allocator without
// statistics, MEMORY PURGE returns freed memory to the system
// (debug.FreeOSMemory). INFO memory has used_memory (the Go heap),
// used_memory_peak (the highest seen by INFO or MEMORY STATS), maxmemory 0,
// maxmemory_policy noeviction, mem_fragmentation_ratio (Sys over HeapAlloc) and
// mem_allocator "go".
//
// DEBUG SLEEP seconds (strtod's parse; at most a day) blocks only its client
// (other clients run on), until it ends, the client is killed or the server
// closes. DEBUG OBJECT key replies Redis's line with zlite's values: the address
// is a hash of the key, refcount 1, the encoding OBJECT ENCODING's,
// serializedlength MEMORY USAGE's estimate (zlite has no RDB encoding), lru and
// lru_seconds_idle 0 (no access times) and no ql_* fields. DEBUG
// SET-ACTIVE-EXPIRE is accepted and changes nothing (zlite's expiry sweep is the
// keyspace's). DEBUG RELOAD calls the function of WithReopen for each persistent
// keyspace, or else takes a snapshot of each; it runs one at a time with SWAPDB,
// so that each reopened keyspace goes back to the number it was taken from. Other
// clients' commands are not held out meanwhile (see Differences). Other
// subcommands get Redis's error for an unknown one. DEBUG is always enabled
// (Redis 7.0 refuses it unless enable-debug-command is set).
//
// SAVE, BGSAVE [SCHEDULE] and BGREWRITEAOF take a snapshot (zlite.DB.Snapshot,
// which compacts the log) of every keyspace made by zlite.Open; BGSAVE and
// BGREWRITEAOF run in the background, one at a time, with Redis's replies
// ("Background saving started", "... already in progress", the other one
// "scheduled"). A keyspace made by zlite.New has nothing to save: SAVE replies OK.
// LASTSAVE is the last successful save (the server's start before any); INFO
// persistence reports aof_enabled (keyspace 0 is persistent), the saves in
// progress, their status and counts, and rdb_changes_since_last_save as the
// write commands run since (Redis counts the keys changed). SHUTDOWN SAVE, and
// SHUTDOWN without NOSAVE when save points are set (CONFIG SET save), snapshot
// the persistent keyspaces before the server closes and the handler of
// WithShutdownHandler runs; a failed snapshot fails SHUTDOWN unless FORCE.
// SWAPDB calls the function of WithSwapHandler, if one is set, before it swaps two
// keyspaces, and fails, swapping nothing, if it fails: cmd/zlite-server records
// there, durably, which directory each number holds, so that a swap outlives a
// restart as in Redis. The calls come one at a time, in the order of the swaps.
// CONFIG save takes and reports Redis's "seconds changes ..." syntax but starts
// no save of its own (a persistent keyspace logs every write). appendonly is yes
// when keyspace 0 is persistent, appendfsync its sync policy (zlite.WithSync),
// dir its directory (the working directory for an in-memory one); CONFIG SET of
// any of the three to another value than the current is refused (zlite sets them
// when a keyspace is opened).
//
// WAIT numreplicas timeout replies 0 at once (no replicas). CLIENT TRACKING,
// CACHING, GETREDIR and TRACKINGINFO reply "ERR CLIENT <SUB> is not supported by
// zlite (no client-side caching)": zlite's keyspaces do not track what each
// client read, which invalidation messages need.
//
// # The RESP codec
//
// The codec is this package's own (resp.go, a few hundred lines) rather than
// github.com/tidwall/redcon: redcon runs a connection's handler synchronously in
// its read loop (a blocked command could not notice its client leaving), grows its
// read buffer without a limit, has neither proto-max-bulk-len nor Redis's other
// limits and texts, and writes only RESP2.
//
// # Differences from Redis
//
//   - SWAPDB fails the EXEC of every client watching either keyspace (Redis: those
//     whose keys exist in one).
//   - DEBUG RELOAD does not stop the other clients, as Redis's single thread does:
//     a command of another client that reaches a keyspace after WithReopen's
//     function closed it and before the reopened one takes its place runs on the
//     closed keyspace, and a write there fails (in cmd/zlite-server with "MISCONF
//     Errors writing to the AOF file: persist: store closed"), neither
//     acknowledged nor in the reopened keyspace.
//   - A server command (PING, SELECT, ...) inside MULTI runs between the batches of
//     keyspace commands around it rather than inside one atomic step.
//   - There are 16 keyspaces, no other data types than sorted sets, lists,
//     strings, hashes and sets (no streams), no replication, ACL users or
//     client-side caching; persistence is zlite.Open's (see Operator commands).
//   - A Lua script's RESP3 map or set comes back from a table, whose iteration
//     order is gopher-lua's, not Redis's Lua's: a script that returns the table
//     of HGETALL or SMEMBERS under redis.setresp(3) gives the same elements in
//     another order.
//   - COPY src dst DB n to another keyspace reads src and then writes dst, each
//     under its keyspace's lock: a command on dst's keyspace may run in between (the
//     copy is of src as read). Inside MULTI and scripts, COPY takes DB 0 only, as
//     "this keyspace" (the keyspace's COPY). INFO's avg_ttl is 0 (Redis estimates it
//     from its active expiry's samples).
//   - Scripts: see Scripts above.
//   - OBJECT ENCODING is the sorted set's own encoding (zset.Set.Encoding: "listpack"
//     while small, "skiplist" after) and "quicklist" for lists; OBJECT IDLETIME is an
//     error (Redis, under its default maxmemory-policy noeviction, replies the
//     seconds since the key's last access; zlite keeps no access times); OBJECT FREQ
//     is Redis's error for a non-LFU policy, as under noeviction.
//   - INFO reports the fields zlite has (server, clients, memory from the Go heap,
//     stats, keyspace, errorstats, cpu, persistence: see Operator commands) and
//     those of a master with no replicas (replication); CONFIG knows requirepass, maxclients, proto-max-bulk-len,
//     timeout, notify-keyspace-events, databases (read-only, as in Redis), save, appendonly,
//     appendfsync and dir (see Operator commands), slowlog-log-slower-than and
//     slowlog-max-len, and the
//     thresholds of the compact encodings (hash-, zset- and set-max-listpack-*,
//     set-max-intset-entries and the ziplist aliases: see
//     zlite.DB.SetEncodingLimits for how they apply) and, kept and reported but
//     changing nothing as zlite's lists have no quicklist nodes,
//     list-max-listpack-size (list-max-ziplist-size) and list-compress-depth;
//     checked and applied all or
//     none as in Redis. CONFIG GET lists a glob's matches in name order (Redis:
//     in its hash table's) and matches with path.Match, which differs from Redis's
//     glob only for malformed patterns and reversed ranges. COMMAND DOCS replies
//     redis-server 7.0.15's entries (command_docs.resp), with only the subcommands
//     the server has.
//   - Every client is of type normal, or pubsub while it has a subscription, and
//     user default (CLIENT LIST TYPE, CLIENT KILL TYPE and USER). A client whose replies CLIENT REPLY OFF or SKIP drops and that
//     sends QUIT, kills itself or sends a malformed request is closed at once; Redis
//     leaves it open, reading nothing more, as it closes only after a reply.
//   - Replies on different connections are not ordered as in single-threaded
//     Redis. Redis serves the clients a command made ready before the pusher's next
//     command and, before it waits for events again, writes every pending reply,
//     the served clients' first (networking.c queues each client with a new reply
//     at the head of clients_pending_write; handleClientsWithPendingWrites walks it
//     from the head), each write non-blocking: so the reply of a BLPOP is in its
//     socket before the reply of the push that served it is written, unless that
//     socket is full. zlite-server unblocks the served client before the push
//     replies, but its reply is written by its own goroutine, concurrently with the
//     pusher's: making the pusher wait for it would let a served client that does
//     not read its socket stall the pusher, which Redis never does. So when a push's
//     reply arrives, the BLPOP's reply may still be on its way (never lost).
//   - A client blocked in a keyspace that SWAPDB moves stays with its index, as
//     in Redis, and is served by what the swap brings there; it waits again there
//     for what was left of its timeout, behind the clients already waiting there,
//     and clients moved together may change order among themselves (Redis keeps
//     each index's clients in the order they blocked).
//   - INFO commandstats counts calls and rejected_calls as Redis does (the
//     keyspace commands' calls from zlite.DB.CommandCalls, which include those
//     of scripts and of in-process callers of the same keyspaces), but times only
//     the server's own commands (CLIENT, CONFIG, PING, PUBLISH, ...): a keyspace
//     command's usec and usec_per_call are 0, and failed_calls is always 0. The
//     section costs O(keyspaces · commands).
//   - HELLO and INFO report version 7.2.0: zlite follows Redis 7.2's replies where
//     7.2 changed them (score formatting, ZRANK WITHSCORE).
package server
