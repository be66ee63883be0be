package zlite

import (
	"math/bits"
	"time"
)

// Stats is a snapshot of a [DB]: its keys, the engines' memory, the blocked callers
// and the commands it has run, as returned by [DB.Stats]. The RESP server's INFO and
// the Prometheus collector report these figures.
type Stats struct {
	// Keys is the number of keys (DBSIZE).
	Keys int64
	// Types holds the keys of each type, by TYPE's name ("zset", "list"); a type
	// with no key is absent.
	Types map[string]TypeStats
	// Blocked is the number of callers blocked in BLPOP, BZPOPMIN, ... right now.
	Blocked int64
	// Commands is the number of commands run since [New]: the sum of the Calls in
	// Command.
	Commands uint64
	// Command holds the counters of each command run at least once, by Redis's
	// lower-case name ("zadd", "blpop").
	Command map[string]CommandStats
}

// TypeStats describes the keys of one type in [Stats].
type TypeStats struct {
	// Keys is the number of keys of the type.
	Keys int64
	// Elements is the total of their lengths (ZCARD, LLEN).
	Elements int64
	// Bytes is the memory their values use in the engine, for values that report it
	// (a MemoryUsage() int method); keys whose values do not are not counted.
	Bytes int64
	// Encodings counts the keys by the engine's encoding of the value (OBJECT
	// ENCODING), for values that report it (an Encoding() string method).
	Encodings map[string]int64
}

// CommandStats are the counters of one command in [Stats].
type CommandStats struct {
	// Calls is the number of times the command was run, through a typed DB method,
	// DB.Do or Tx.Do, including calls that failed.
	Calls uint64
	// Latency is the distribution of the time the command ran under the keyspace
	// lock (as Redis's INFO commandstats, not counting the wait for the lock or a
	// blocking call's wait for data). It is empty unless [WithLatencyTracking] or
	// [WithLatencyClock] is set.
	Latency Histogram
}

// LatencyBuckets is the number of buckets of a [Histogram].
const LatencyBuckets = 40

// Histogram is a latency distribution over fixed logarithmic buckets: Counts[0]
// counts durations under 1 ns, Counts[i] those in [2^(i-1), 2^i) ns, and the last
// bucket everything from 2^(LatencyBuckets-2) ns (about 4.6 minutes) on.
type Histogram struct {
	Counts [LatencyBuckets]uint64
	// Sum is the total of the recorded durations.
	Sum time.Duration
}

// BucketBound returns the exclusive upper bound of bucket i of a [Histogram]; the
// last bucket's is the largest Duration.
func BucketBound(i int) time.Duration {
	if i >= LatencyBuckets-1 {
		return 1<<63 - 1
	}
	return time.Duration(1) << i
}

// record adds d to h. O(1).
func (h *Histogram) record(d time.Duration) {
	i := 0
	if d > 0 {
		i = min(bits.Len64(uint64(d)), LatencyBuckets-1)
	}
	h.Counts[i]++
	h.Sum += d
}

// Count returns the number of recorded durations. O(LatencyBuckets).
func (h *Histogram) Count() uint64 {
	var n uint64
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Quantile returns an upper bound of the q-quantile (0 ≤ q ≤ 1) of the recorded
// durations: the upper bound of the bucket holding it, so within a factor of two of
// the true value. It returns 0 when nothing was recorded. O(LatencyBuckets).
func (h *Histogram) Quantile(q float64) time.Duration {
	n := h.Count()
	if n == 0 {
		return 0
	}
	rank := uint64(max(0, min(q, 1))*float64(n-1)) + 1
	var seen uint64
	for i, c := range h.Counts {
		seen += c
		if seen >= rank {
			return BucketBound(i)
		}
	}
	return BucketBound(LatencyBuckets - 1)
}
