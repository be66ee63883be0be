// Package queues implements the queue systems people build on Redis sorted sets and
// lists, each written once against a small [Backend] interface and run either on the
// embedded keyspace of package zlite (package github.com/zlite/zlite/queues/embedded;
// no server) or on a real Redis through go-redis (package
// github.com/zlite/zlite/queues/redisq; a single node, Sentinel or Cluster),
// which is how a user who outgrows one process scales out:
//
//	q := queues.NewFIFO(embedded.New(zlite.New()), "jobs")
//	q.Push(ctx, "job-1")
//	v, ok, err := q.Pop(ctx, time.Second)
//
// # Which queue for which problem
//
//   - [FIFO]: hand work from producers to consumers in arrival order (LPUSH +
//     BRPOP). At most once: a consumer that dies with an element loses it.
//   - [Reliable]: the same, but a job must survive a worker dying mid-job: at least
//     once, with a processing list, leases, Ack, Nack and Reap; retries with
//     exponential backoff and jitter ([WithRetry]), a maximum of attempts, a
//     dead-letter set, per-element attempts, last error and enqueue time,
//     Pause/Resume shared by every process, deduplicated pushes ([Unique]) and a
//     delivery rate limit shared by every consumer ([WithRateLimit]).
//   - [Levels]: a few fixed classes of work (urgent, normal, bulk) served strictly in
//     order by one multi-key BRPOP.
//   - [Priority]: work whose urgency is a number, any number of priorities, FIFO
//     among equals, blocking by BZPOPMIN.
//   - [CallQueue]: people waiting by priority then arrival, who see their position,
//     may leave from the middle, and whom a supervisor lists when they wait too long
//     (a call centre).
//   - [Waitlist]: parties waiting for a resource of a size, seated in arrival order
//     when one that suits them frees up (a restaurant).
//   - [Delayed]: work that must not start before a time (a reminder in an hour, a
//     retry in 30 s); consumers are woken exactly at the due time.
//   - [Scheduler]: jobs moved to ordinary work queues when due, in atomic batches
//     ("Redis in Action" 6.4).
//
// Every constructor takes the backend, the queue's name and options ([WithClock],
// [WithLease], [WithRetry], [WithMaxDeliveries], [WithRateLimit], [WithBatch],
// [WithOrder], [WithStats]); counts and positions are int64 throughout, as in
// go-redis. [WithClock] takes a func() time.Time, as zlite.WithClock does, so one
// fake clock serves a keyspace and its queues. [Priority] and [CallQueue] both serve
// the highest priority first unless given WithOrder([LowestFirst]).  # Ids  Every
// enqueue that makes an id returns it, and the methods that take an item out take
// that id: [Priority.Push] → [Priority.Remove], [Delayed.Schedule] →
// [Delayed.Cancel], [Scheduler.AddFutureJob] → [Scheduler.Cancel], [Reliable.Push] →
// [Reliable.Remove]; Items, the pops and [Delivery] report the same id. Ids are
// opaque strings: on the sorted-set queues an id is the item's member (its arrival
// sequence followed by its payload), so that acting on it costs O(log n) with no
// index to keep; on [Reliable] it is the arrival sequence. Where the caller names
// the item ([CallQueue.Enqueue]'s call id, [Waitlist.Add]'s party) that name is the
// id and the enqueue returns only an error; and [FIFO] and [Levels], whose lists
// hold bare values as the recipes' do, remove by value.  # Seeing inside  Every
// queue type has Items(ctx, offset, count), one page of its items in serving order
// (the call at offset i has Position i+1), in one atomic step costing O(log n + k)
// on the sorted-set queues and on the embedded lists (O(min(offset, n−offset) + k)
// on Redis lists); [Reliable.InFlight] lists the leases and [Reliable.Dead] the dead
// elements. Every queue type has Stats(ctx): depth (per level, priority or party
// size), due, in-flight and dead counts, the age of the oldest item where the queue
// records times, the consumers of this process blocked in a pop, this process's
// enqueued/dequeued/acked/requeued/expired-lease/cancelled/dead-lettered counters,
// and for [Delayed] and [Scheduler] a histogram of the due→delivered lateness with
// p50, p99 and max ([Histogram]), and the time the counters cover, for rates.
// [Stats.String] is a one- or two-line summary for logs; the fields hold everything,
// and package github.com/zlite/zlite/queues/queuevar puts their JSON on /debug/vars
// (package queues itself does not import expvar, so importing it registers no
// handler); package github.com/zlite/zlite/metrics/prom exports Stats to Prometheus.
// The counters cost two or three uncontended atomic additions per element and no
// allocation (BenchmarkStatsOverhead, BenchmarkCounters); turn them off with
// WithStats(false).  # Acting on items
//
// Every queue type can take a waiting item out, in one atomic step: by id in O(log
// n) from the sorted-set queues ([Priority.Remove], [Delayed.Cancel],
// [Scheduler.Cancel], [CallQueue.Cancel], [Waitlist.Leave]), by id in O(n) from a
// reliable queue ([Reliable.Remove]: one pass over the list) and by value in O(n)
// from the other list queues ([FIFO.Remove], [Levels.Remove]: LREM walks the list).
// [Reliable.Requeue] puts one expired lease back (it checks the expiry in the same
// step, so a lease extended in time is left alone), and with [WithMaxDeliveries] or
// [RetryPolicy].MaxAttempts an element whose last attempt failed goes to a dead set,
// which [Reliable.Dead] lists with each element's attempts, last error, enqueue time
// and time of death, from which [Reliable.Retry] (one) and [Reliable.RetryAll] move
// elements back and [Reliable.DeleteDead] drops one.
//
// # Retries, dead letters and pausing
//
// A [Reliable] delivery that fails (Nack, [Reliable.Fail] with a reason, or a lease
// that expires: a crashed worker) counts as an attempt. With [WithRetry] the element
// waits min(Base·2^(n−1), Max) after its n-th failure, plus up to Jitter of that
// drawn from the policy's Rand, in the sorted set "{name}:retry", and is never
// delivered before; Pop and Reap move due retries to the head of the queue, in the
// same atomic step that checks their due time, so a retry is delivered once. The
// attempts, last error and enqueue time of every live or dead element are kept in
// the hash "{name}:info" (three fields per element, a fourth naming its [Unique]
// key, removed by Ack, Remove and DeleteDead) and reported on every [Delivery].
// [Reliable.Pause] stores the pause in "{name}:meta", so consumers in every process
// stop taking elements until [Reliable.Resume]; [Stats] shows Paused, Retrying and
// RateLimited.
//
// # Unique jobs and rate limits
//
// [Reliable.Push] with [Unique](key, ttl) refuses, with [ErrDuplicate] and the id
// of the element already queued, a second push of key while the first element is
// in the queue (waiting, in processing, retrying or dead) and ttl has not passed;
// Ack, Remove and DeleteDead free the key at once. The locks live in the sorted set
// "{name}:unique" (score: expiry), pruned by the pushes, and the hash
// "{name}:unique:ids". [WithRateLimit](n, per) makes the pops of every consumer in
// every process deliver at most n elements in any window of length per (a
// sliding-window log, "{name}:rate"); a limited Pop sleeps until the window admits
// the next delivery. See [Reliable] for the exact guarantees.
//
// [WithGroupRateLimit](n, per) limits deliveries per group instead: a push names
// its group with [Group]("customer-42"), and no window of length per holds more
// than n deliveries of one group, while Pop serves the elements of the other
// groups (and those without a group) meanwhile, the least recently served group
// first. Each group waits in its own list "{name}:g:<group>" with its own log
// "{name}:glog:<group>", and the sorted set "{name}:groups" schedules the groups by
// when each may next be served. The steps build those keys from the group's name
// instead of receiving them, which Redis Cluster accepts only because they share
// the queue's hash tag, and so its slot. A limited Pop sleeps until the earliest
// group's window reopens or a push wakes it (a grouped push wakes it too: see
// [Reliable]).
//
// # Backends and atomic steps
//
// [Backend] holds the few primitive commands the queues use directly (LPUSH, LLEN,
// ZCARD and the blocking BRPOP, BZPOPMIN and BLMOVE) and [Backend.Eval], which runs a
// compound step atomically. A step is a [Script]: its Lua source, run by EVALSHA on
// Redis, and an equivalent Go function over a keyspace transaction ([Tx]), run inside
// one zlite.DB.Update by the embedded backend. Each queue defines its compound
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
// come from an injectable clock ([WithClock]) and are stored as Unix microseconds, exact in a
// float64 score.
//
// # Concurrency, cancellation and failures
//
// Every queue is safe for concurrent use by any number of goroutines, and on Redis by
// any number of processes. Blocking calls take a timeout (0: wait until ctx is done)
// and a ctx; when ctx ends before an element was taken they return ctx.Err(), and an
// element already taken is always returned, never lost to a cancellation, so callers
// must process whatever they receive. On the embedded backend a cancellation is
// noticed at once. On Redis every call returns soon after ctx ends even when the
// server does not answer at all, and what a command whose reply was abandoned took is
// put back (steps that take something declare how: [Script.WithUndo]); see package
// redisq for the bound and for what remains when a connection dies with a reply on
// it: then [FIFO], [Levels] and [Priority] deliver at most once and [Reliable] at
// least once. Elsewhere elements are delivered exactly once (at least once for
// [Reliable], where a second delivery happens only after a lease expired or a Nack).
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
// # Differences from the usual Redis recipes
//
// The common recipes encode arrival time in whole seconds (waitlist: ties within a
// second go by name) or in a float score next to the priority (call queue: ties
// within the score's float64 spacing, 3.8 µs at priority 1 and more at higher
// priorities, go by call id; see [CallQueue]), poll with a one-second sleep (delayed
// queue), and scan the whole queue for stale calls; here arrival order is a
// sequence, exact at any rate, stale calls come from a time index in O(log n + k),
// and delayed consumers sleep exactly until the next due time.
//
// # Taking over the recipes' keys
//
// An application that already keeps a queue with one of the usual recipes can share
// it with a Go service in place: [NewClassicWaitlist] ("waitlist", members "<unix
// seconds> <name>" scored by seats), [NewClassicCallQueue] ("queue:calls", scored
// priority·10¹⁰ + (10¹⁰ − t), ZPOPMAX), [NewClassicFIFO] and [NewClassicLevels]
// (plain lists, LPUSH + BRPOP), [NewClassicTimed] (a sorted set scored by a
// timestamp) and [NewClassicScheduler] (JSON jobs moved to the list they name) open
// the keys as the recipe's code writes them, with its key names, members and
// scores, so that items either side writes are served by the other in the recipe's
// order, while each take or move here is one atomic step. What each layout loses
// (arrival order to the second or to a float's spacing, no index by name, no wake-up
// signal for the timed queue and the scheduler: their consumers look every
// [ClassicPollInterval]) is stated on its type. Plain key names have no hash tag:
// the multi-key steps of Levels and the Scheduler need names with a common tag on a
// Redis Cluster.
//
// # Errors
//
// Bad input (empty ids, NaN or infinite priorities, malformed jobs, negative pages)
// changes nothing and returns an [*Error] that names the queue type, the queue, the
// operation and the item or level, and wraps an exported sentinel ([ErrDuplicate],
// [ErrUnknownLevel], …) for [errors.Is]:
//
//	queues: callqueue "support": enqueue "c-17": id already queued
//
// Errors of the backend (a lost connection, ctx.Err()) are returned as they are. A
// due time in the past means now. Constructors panic on an empty name (a programming
// error).
package queues
