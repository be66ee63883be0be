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
//     buffers for Redis);
//   - many keys: bytes per key and per element of 100k sorted sets of 1 and of 10
//     members, 10k of 100, and 100k lists of 1 and of 10 values (keys user:%08d,
//     members member:%07d, scores 0..n-1), and the throughput of ZADD, ZSCORE,
//     ZRANK, ZRANGE 0 -1, ZPOPMIN and LPUSH+RPOP on random keys among 100k small
//     keys;
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
