// Package bench measures zlite against a real redis-server and against miniredis,
// side by side, in one run on one machine.
//
// The same workloads run on every [System]: the zlite keyspace through its typed
// methods and through Do, redis-server through go-redis with one round trip per
// command and pipelined in batches of 100, and miniredis (an in-process Go server
// reached through go-redis). Every system is filled with the same data, built the
// same way (multi-member ZADD/RPUSH of 1,000 elements per command), warm-up is
// excluded from the figures, and each figure is the median of several timed runs,
// kept with the range of those runs (statistics from golang.org/x/exp/stats).
// The systems take turns within each round of runs, and the Go heap is collected
// before each run, so that neither other work on the machine nor one system's
// garbage lands on a single system.
//
// Workloads:
//
//   - core commands on a sorted set or list of n elements: ZADD of a new member,
//     ZADD updating a score, ZSCORE, ZREVRANK, ZRANGEBYSCORE LIMIT 0 1,
//     ZRANGEBYSCORE LIMIT n/2 1 (a deep offset), ZPOPMAX, ZREM, LPUSH+RPOP and
//     LRANGE 0 99. Commands that change the size of the data run in batches of at
//     most n/10 commands, each followed by an untimed restore, so the data stays
//     within 10% of n;
//   - blocking hand-off: LPUSH→BRPOP and ZADD→BZPOPMIN with 1 producer/1 consumer
//     and 4/4, closed loop (at most one item in flight per consumer), so latency is
//     the hand-off cost rather than queueing delay;
//   - queues: every queue type of package queues (on the embedded backend for
//     zlite, on go-redis for Redis and miniredis): a single client's enqueue+dequeue
//     pairs per second, and the latency from a push to a blocked consumer's pop
//     (for the delayed queue and the scheduler: the lateness of the pop after the
//     job's due time), closed loop as above;
//   - memory: bytes per element of a sorted set and a list of n elements (Go heap
//     in use after GC for the in-process systems, INFO used_memory less the clients'
//     buffers for Redis). Each build starts from a fresh keyspace: a new zlite
//     keyspace and a new miniredis server (their tables keep the slots of deleted
//     keys), and for Redis once used_memory has settled (its cron shrinks an emptied
//     key table later);
//   - many keys: bytes per key and per element of 100k sorted sets of 1 and of 10
//     members, 10k of 100, and 100k lists of 1 and of 10 values (keys user:%08d,
//     members member:%07d, scores 0..n-1); bytes per key of 1M strings of 16 bytes
//     (SET) and of 1M counters (one INCR each); bytes per key and per element of
//     100k hashes of 10 fields (fields member:%07d, 8-byte values), 100k sets of 10
//     members member:%07d and 100k integer sets of 10 (0, 1000, ..., 9000), and
//     100k hashes of 4 fields holding 16-digit Unix-microsecond times (a job's
//     metadata, stored as integers by both Redis and zlite); bytes per element of
//     one hash of 1M fields and of one set of 1M members. Then the
//     throughput, on random keys, of ZADD, ZSCORE, ZRANK, ZRANGE 0 -1, ZPOPMIN and
//     LPUSH+RPOP among 100k sorted sets and lists of 10; of GET, SET (overwriting
//     with 16 bytes), MGET of 10 keys (counted as one command) and INCR among 1M
//     strings and 1M counters; and of HSET (updating a field), HGET, SADD (of a new
//     member, removed again untimed) and SISMEMBER among 100k hashes and sets of 10.
//     Every count scales with -manykeys (Config.ManyKeys, 100k): the 1M are ten
//     times it. All of it is built in pipelines of at most 1,000 commands, one
//     command per key (SET, INCR, or a multi-element ZADD, RPUSH, HSET or SADD; a
//     key of more than 1,000 elements takes several commands of 1,000);
//   - resp: the Redis protocol, through package bench/respbench: redis-benchmark
//     (ZADD, ZPOPMIN, LPUSH, RPOP on random keys; -P 1 and 64; 1 and 50 clients)
//     against a zlite server and against redis-server, and go-redis through the
//     in-process server.Dialer against go-redis on miniredis. Without
//     redis-benchmark or a redis-server its redis-benchmark rows are left out and
//     a note says why.
//
// [Run] executes a [Config] and returns a [Report], which renders as a Markdown
// table ([Report.Markdown]) and an SVG chart ([Report.SVG]), both with the run's
// [Provenance] (versions of Go, go-redis, miniredis, Redis and redis-benchmark,
// where Redis came from, the flags, date and load average). Each table figure carries ± half the
// range of its runs, and a ratio is marked ⚠ when the two systems' runs overlap
// ([Row.Uncertain]). Progress goes to [Config].Progress: a bar redrawn in place on a terminal, plain
// lines otherwise. The zbench command (bench/cmd/zbench) is a thin wrapper around
// them. The Go benchmarks in this package (go test -C bench -bench .) name their
// sub-benchmarks op=…/n=…/impl=… (op=…/keys=…/n=…/impl=… for many keys) so that
// benchstat -col /impl compares implementations and benchstat old.txt new.txt
// compares commits.
//
// Nothing in this package is safe for concurrent use unless stated otherwise:
// a System is driven by one benchmark at a time.
package bench
