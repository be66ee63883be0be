// Package metrics publishes zlite's keyspace statistics with the standard library's
// expvar, for programs that want no Prometheus (package [github.com/zlite/zlite/metrics/prom]
// exports the same figures to Prometheus):
//
//	expvar.Publish("zlite", metrics.DBVar(db))
//
// /debug/vars then shows, at every read, the [zlite.Stats] of db as JSON: snake_case
// names, durations in nanoseconds, and each command's latency histogram (only with
// [zlite.WithLatencyTracking]) as its 40 bucket counts (bucket i holds the durations
// in [2^(i-1), 2^i) ns, see [zlite.Histogram]) and their sum. The JSON decodes back
// into a zlite.Stats, so a script written in Go can call [zlite.Histogram.Quantile]
// on it.
//
// Package zlite itself publishes nothing and does not import expvar; importing this
// package does, and expvar registers its /debug/vars handler on
// http.DefaultServeMux and publishes "cmdline" and "memstats" when imported.
// A queue's [github.com/zlite/zlite/queues.Stats] goes on /debug/vars as JSON
// through package github.com/zlite/zlite/queues/queuevar (its String is a one-line
// summary for logs, not JSON).
//
// # Concurrency and costs
//
// The Vars are safe for concurrent use. Each read calls [zlite.DB.Stats], which
// holds the keyspace lock for O(keys), 40-200 ns per key (see
// [github.com/zlite/zlite/metrics/prom.DBCollector] for the figures): read
// /debug/vars for monitoring, every 15 s or more, not on a hot path.
package metrics
