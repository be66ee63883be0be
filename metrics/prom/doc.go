// Package prom exports the statistics of zlite's queues and keyspace to Prometheus:
// a [Collector] reads the [queues.Stats] of the queues it is given on every scrape,
// a [DBCollector] the [zlite.Stats] of a DB, and both (each a [prometheus.Collector])
// report them under the names below. It lives apart from packages queues and zlite
// so that the core packages stay free of dependencies.
//
//	reg.MustRegister(prom.NewCollector(2*time.Second, jobs, calls, delayed), prom.NewDBCollector(db))
//
// # Queues
//
// Every metric has the labels queue (the queue's name) and type (its kind: fifo,
// levels, priority, waitlist, callqueue, delayed, scheduler, reliable):
//
//	zlite_queue_up                      gauge      1 if the last Stats call succeeded, else 0 (and nothing else is reported for the queue)
//	zlite_queue_depth                   gauge      items waiting
//	zlite_queue_level_depth             gauge      items waiting per level, priority or party size (label level)
//	zlite_queue_due                     gauge      delayed, scheduler: waiting jobs already due
//	zlite_queue_in_flight               gauge      reliable: elements in processing
//	zlite_queue_dead                    gauge      reliable: elements in the dead set (queues.WithMaxDeliveries)
//	zlite_queue_oldest_age_seconds      gauge      callqueue, delayed, scheduler: how long the oldest item has waited
//	zlite_queue_blocked_consumers       gauge      this process's callers blocked in a pop
//	zlite_queue_enqueued_total          counter    items added by this process
//	zlite_queue_dequeued_total          counter    items taken by this process
//	zlite_queue_acked_total             counter    reliable: acknowledged deliveries
//	zlite_queue_requeued_total          counter    reliable: elements put back by Nack or Reap
//	zlite_queue_expired_leases_total    counter    reliable: leases Reap found expired
//	zlite_queue_dead_lettered_total     counter    reliable: elements moved to the dead set after their last delivery
//	zlite_queue_cancelled_total         counter    callqueue, waitlist: items removed from the middle
//	zlite_queue_lateness_seconds        histogram  delayed, scheduler: due → delivered delay
//
// The gauges read from the backend are the queue's own, the same in every process
// (aggregate them with max, not sum); the counters, blocked_consumers and the
// lateness histogram are this process's (sum them over processes). The lateness
// histogram's buckets are the powers of two from 1 µs to 2^32 µs.
//
// # Keyspace
//
// The DBCollector reports, with the label type for the key's type (zset, list) and
// command for Redis's lower-case command name:
//
//	zlite_keys                          gauge      keys
//	zlite_keys_by_encoding              gauge      keys by OBJECT ENCODING (label encoding: listpack, skiplist), for sorted sets
//	zlite_elements                      gauge      the sum of the keys' ZCARD or LLEN
//	zlite_memory_bytes                  gauge      heap bytes the engine uses for the values
//	zlite_expiring_keys                 gauge      keys with a TTL (INFO keyspace's expires)
//	zlite_expired_keys_total            counter    keys deleted because their TTL ran out (INFO's expired_keys)
//	zlite_blocked_clients               gauge      callers blocked now in BLPOP, BZPOPMIN, ...
//	zlite_commands_total                counter    commands run, failed ones included
//	zlite_command_duration_seconds      histogram  time a command ran under the keyspace lock (with zlite.WithLatencyTracking only)
//
// A type or encoding once reported stays, at 0 when its last key goes. The duration
// histogram's buckets are the powers of two from 64 ns to 2^30 ns (1.07 s), taken
// from the [zlite.Histogram]'s; a command's histogram appears with its first timed
// call (without latency tracking, never).
//
// # Concurrency and costs
//
// Collectors are safe for concurrent use. Each scrape of a Collector calls Stats
// once per queue, in order, each with the Collector's timeout; on Redis that is a
// few round trips per queue (see the Stats method of each queue type for its
// complexity). Each scrape of a DBCollector calls [zlite.DB.Stats], which holds the
// keyspace lock for O(keys): 140-200 ms for a million keys (see [DBCollector] for
// the figures and the scrape interval to choose).
package prom
