// Package queues implements the queue systems people build on Redis sorted sets and
// lists, each written once against a small [Backend] interface and run either on the
// embedded keyspace of package zlite (no server) or on a real Redis through go-redis
// (package github.com/zlite/zlite/queues/redisq; a single node, Sentinel or Cluster),
// which is how a user who outgrows one process scales out:
//
//	q := queues.NewFIFO(queues.NewEmbedded(zlite.New()), "jobs")
//	q.Push(ctx, "job-1")
//	v, ok, err := q.Pop(ctx, time.Second)
//
// The queue types, with the design each comes from:
//
//   - [Waitlist]: a restaurant waitlist seating the earliest party of exactly, or at
//     most, a table's size (ZRANGEBYSCORE … LIMIT 0 1).
//   - [CallQueue]: a call-centre queue by priority then arrival, with positions,
//     hang-ups from the middle and SLA (stale call) reports.
//   - [FIFO]: LPUSH + BRPOP.
//   - [Levels]: a few named priority levels served strictly in order by one
//     multi-key BRPOP.
//   - [Priority]: any number of priorities on one sorted set, FIFO among equals,
//     blocking by BZPOPMIN.
//   - [Delayed]: jobs that become available at a due time, consumers woken exactly
//     then.
//   - [Scheduler]: "Redis in Action" 6.4: future jobs moved to their work queues when
//     due, in atomic batches.
//   - [Reliable]: at-least-once delivery with a processing list and leases (BLMOVE,
//     Ack, Nack, Reap).
//
// # Backends and atomic steps
//
// [Backend] holds the few primitive commands the queues use directly (LPUSH, LLEN,
// ZCARD and the blocking BRPOP, BZPOPMIN and BLMOVE) and [Backend.Eval], which runs a
// compound step atomically. A step is a [Script]: its Lua source, run by EVALSHA on
// Redis, and an equivalent Go function over a keyspace transaction ([Tx]), run inside
// one [zlite.DB.Update] by the [Embedded] backend. Each queue defines its compound
// steps once as such a pair and the rest of its logic once against Backend; the
// contract tests run every queue on both backends. All keys of one queue share the
// hash tag {name} ("{jobs}:items"), so Redis Cluster keeps them in one slot and
// accepts the scripts and multi-key pops. The contract suite also runs on a Redis
// Cluster when ZLITE_REDIS_CLUSTER names its nodes (it passes on a three-master
// Redis 7.0 cluster).
//
// Arrival order is exact at any rate: queues that need it keep a counter (the score
// of "seq" in "{name}:meta", ZINCRBY) and prefix members with it as 16 hexadecimal
// digits, so byte order, which Redis uses among equal scores, is arrival order. Times
// come from an injectable [Clock] and are stored as Unix microseconds, exact in a
// float64 score.
//
// # Concurrency
//
// Every queue is safe for concurrent use by any number of goroutines, and on Redis by
// any number of processes. Elements are delivered exactly once (at least once for
// [Reliable], where a second delivery happens only after a lease expired or a Nack).
// Blocking calls take a timeout (0: wait until ctx is done) and a ctx; when ctx ends
// before an element was taken they return ctx.Err(), and an element already taken is
// always returned, never lost to a cancellation, so callers must process whatever
// they receive. On the embedded backend a cancellation is noticed at once; on Redis
// within the redisq slice (250 ms by default) plus a round trip, see package redisq.
//
// # Costs
//
// Each step is atomic: on the embedded backend one locked batch on the keyspace
// (no goroutine, and no timer except a blocked caller's own); on Redis one round
// trip (EVALSHA or a plain command). Pushes, non-blocking pops and queries are one
// step. Blocking pops of [FIFO], [Levels] and [Priority] are one blocking command;
// those of [CallQueue], [Delayed] and [Reliable] wait with one blocking command
// (on a token list, a wake list, or BLMOVE) and then run one step. Complexities are
// given per method; most are O(log n).
//
// Benchmarks (go test -run '^$' -bench BenchmarkQueues ./queues/) compare the two
// backends per queue type: push+pop throughput, pipelined hand-off to a blocked
// consumer, availability-to-consumer latency and, for the delayed queue, how late
// after its due time a job reaches a sleeping consumer.
//
// # Differences from the seeds
//
// The seeds encode arrival time in seconds (waitlist) or in a float score next to the
// priority (call queue), poll with a one-second sleep (delayed queue), and scan the
// whole queue for stale calls; here arrival order is a sequence, stale calls come
// from a time index in O(log n + k), and delayed consumers sleep exactly until the
// next due time. Bad input (empty ids, NaN or infinite priorities, malformed jobs)
// returns an exported sentinel error and changes nothing; a due time in the past
// means now. Constructors panic on an empty name (a programming error).
package queues
