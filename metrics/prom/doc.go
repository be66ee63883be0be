// Package prom exports the statistics of zlite's queues to Prometheus: a
// [Collector] (a [prometheus.Collector]) reads the [queues.Stats] of the queues it is
// given on every scrape and reports them under the names below. It lives apart from
// package queues so that the core packages stay free of dependencies.
//
//	reg.MustRegister(prom.NewCollector(2*time.Second, jobs, calls, delayed))
//
// Every metric has the labels queue (the queue's name) and type (its kind: fifo,
// levels, priority, waitlist, callqueue, delayed, scheduler, reliable):
//
//	zlite_queue_up                      gauge      1 if the last Stats call succeeded, else 0 (and nothing else is reported for the queue)
//	zlite_queue_depth                   gauge      items waiting
//	zlite_queue_level_depth             gauge      items waiting per level, priority or party size (label level)
//	zlite_queue_due                     gauge      delayed, scheduler: waiting jobs already due
//	zlite_queue_in_flight               gauge      reliable: elements in processing
//	zlite_queue_oldest_age_seconds      gauge      callqueue, delayed, scheduler: how long the oldest item has waited
//	zlite_queue_blocked_consumers       gauge      this process's callers blocked in a pop
//	zlite_queue_enqueued_total          counter    items added by this process
//	zlite_queue_dequeued_total          counter    items taken by this process
//	zlite_queue_acked_total             counter    reliable: acknowledged deliveries
//	zlite_queue_requeued_total          counter    reliable: elements put back by Nack or Reap
//	zlite_queue_expired_leases_total    counter    reliable: leases Reap found expired
//	zlite_queue_cancelled_total         counter    callqueue, waitlist: items removed from the middle
//	zlite_queue_lateness_seconds        histogram  delayed, scheduler: due → delivered delay
//
// The gauges read from the backend are the queue's own, the same in every process
// (aggregate them with max, not sum); the counters, blocked_consumers and the
// lateness histogram are this process's (sum them over processes). The lateness
// histogram's buckets are the powers of two from 1 µs to 2^32 µs.
//
// # Concurrency and costs
//
// A Collector is safe for concurrent use. Each scrape calls Stats once per queue, in
// order, each with the Collector's timeout; on Redis that is a few round trips per
// queue (see the Stats method of each queue type for its complexity).
package prom
