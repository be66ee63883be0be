package zlite

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// Stats is a snapshot of a [DB]: its keys, the engines' memory, the blocked callers
// and the commands it has run, as returned by [DB.Stats]. The RESP server's INFO and
// the Prometheus collector report these figures. It encodes to JSON with snake_case
// names (durations in nanoseconds, a latency only when tracked) and decodes back to
// the same value, so it can be published with expvar (package metrics does so).
type Stats struct {
	// Keys is the number of keys (DBSIZE).
	Keys int64 `json:"keys"`
	// Expires is the number of keys with a TTL (INFO keyspace's expires=).
	Expires int64 `json:"expires"`
	// ExpiredKeys is the number of keys deleted since [New] because their time came,
	// on access or by reclamation (INFO's expired_keys); a key deleted by an EXPIRE
	// with a past time is a deletion, not counted, as in Redis.
	ExpiredKeys uint64 `json:"expired_keys"`
	// Types holds the keys of each type, by TYPE's name ("zset", "list"); a type
	// with no key is absent.
	Types map[string]TypeStats `json:"types"`
	// Blocked is the number of callers blocked in BLPOP, BZPOPMIN, ... right now.
	Blocked int64 `json:"blocked"`
	// Commands is the number of commands run since [New]: the sum of the Calls in
	// Command.
	Commands uint64 `json:"commands"`
	// Command holds the counters of each command run at least once, by Redis's
	// lower-case name ("zadd", "blpop").
	Command map[string]CommandStats `json:"command"`
}

// TypeStats describes the keys of one type in [Stats].
type TypeStats struct {
	// Keys is the number of keys of the type.
	Keys int64 `json:"keys"`
	// Elements is the total of their lengths (ZCARD, LLEN).
	Elements int64 `json:"elements"`
	// Bytes is the memory their values use in the engine, for values that report it
	// (a MemoryUsage() int method); keys whose values do not are not counted.
	Bytes int64 `json:"bytes"`
	// Encodings counts the keys by the engine's encoding of the value (OBJECT
	// ENCODING), for values that report it (an Encoding() string method).
	Encodings map[string]int64 `json:"encodings,omitempty"`
}

// CommandStats are the counters of one command in [Stats].
type CommandStats struct {
	// Calls is the number of times the command was run, through a typed DB method,
	// DB.Do or Tx.Do, including calls that failed.
	Calls uint64 `json:"calls"`
	// Latency is the distribution of the time the command ran under the keyspace
	// lock (as Redis's INFO commandstats, not counting the wait for the lock or a
	// blocking call's wait for data), for calls through typed DB methods and DB.Do
	// (not Tx.Do, whose batch holds the lock throughout). It is empty unless
	// [WithLatencyTracking] or [WithLatencyClock] is set.
	Latency Histogram `json:"latency,omitzero"`
}

// LatencyBuckets is the number of buckets of a [Histogram].
const LatencyBuckets = 40

// Histogram is a latency distribution over fixed logarithmic buckets: Counts[0]
// counts durations under 1 ns, Counts[i] those in [2^(i-1), 2^i) ns, and the last
// bucket everything from 2^(LatencyBuckets-2) ns (about 4.6 minutes) on.
type Histogram struct {
	Counts [LatencyBuckets]uint64 `json:"counts"`
	// Sum is the total of the recorded durations.
	Sum time.Duration `json:"sum_ns"`
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
func (h Histogram) Count() uint64 {
	var n uint64
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Quantile returns an upper bound of the q-quantile (0 ≤ q ≤ 1) of the recorded
// durations: the upper bound of the bucket holding it, so within a factor of two of
// the true value. It returns 0 when nothing was recorded. O(LatencyBuckets).
func (h Histogram) Quantile(q float64) time.Duration {
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

// counters are a DB's command counters, indexed like statNames; they are guarded by
// the DB's mutex (plain increments: cheaper than atomics, and every command holds
// the lock anyway).
type counters struct {
	calls []uint64
	// blocking counts the blocking commands, which count before they take the lock
	// (an atomic add is cheaper than a lock round trip on the hand-off path).
	blocking []atomic.Uint64
	// timed is set when latency is tracked: latency and clock are then non-nil.
	timed   bool
	latency []Histogram
	clock   func() time.Time
	// epoch is the clock's first reading; start times are nanoseconds since it, so
	// that a start time is one word.
	epoch time.Time
}

// newCounters sizes the counters for every registered command.
func newCounters(c *config) counters {
	cs := counters{calls: make([]uint64, len(statNames)), blocking: make([]atomic.Uint64, len(statNames))}
	if c.clock != nil {
		cs.timed, cs.clock = true, c.clock
		cs.latency = make([]Histogram, len(statNames))
		cs.epoch = c.clock()
	}
	return cs
}

// statIndex returns the counter index of the command name, adding one for a
// command that no typed method runs. It is called at init only.
func statIndex(name string) int {
	for i, n := range statNames {
		if n == name {
			return i
		}
	}
	statNames = append(statNames, name)
	return len(statNames) - 1
}

// Each counted command (the generated DB methods, Do) runs as
//
//	tx := db.lock()
//	db.stats.calls[stat]++
//	defer db.end(stat, db.start())
//
// written out rather than wrapped in a begin function, which the compiler cannot
// inline (the lock's fast path is too large): the call cost more than the count.

// start returns the start time of a command when latency is tracked, else 0.
func (db *DB) start() int64 {
	if !db.stats.timed {
		return 0
	}
	return db.now()
}

// end records the latency of the command begun at start, when tracked, and unlocks
// the keyspace (serving blocked callers first, as unlock does).
func (db *DB) end(stat int, start int64) {
	if db.stats.timed {
		db.record(stat, start)
	}
	db.unlock()
}

// now reads the latency clock, in nanoseconds since its first reading.
func (db *DB) now() int64 {
	return int64(db.stats.clock().Sub(db.stats.epoch))
}

// record adds the time since start to the latency histogram of stat; the caller
// holds the lock.
func (db *DB) record(stat int, start int64) {
	db.stats.latency[stat].record(time.Duration(db.now() - start))
}

// count counts one run of the command whose counter is stat, for commands run
// under a lock that the caller already holds (Tx.Do).
func (db *DB) count(stat int) {
	db.stats.calls[stat]++
}

// The counters of the blocking commands, which no generated method runs.
var (
	statBLPop      = statIndex("blpop")
	statBRPop      = statIndex("brpop")
	statBLMove     = statIndex("blmove")
	statBRPopLPush = statIndex("brpoplpush")
	statBLMPop     = statIndex("blmpop")
	statBZPopMin   = statIndex("bzpopmin")
	statBZPopMax   = statIndex("bzpopmax")
	statBZMPop     = statIndex("bzmpop")
)

// countBlocking counts one run of a blocking command, without the lock.
func (db *DB) countBlocking(stat int) {
	db.stats.blocking[stat].Add(1)
}

// Stats returns a snapshot of the keyspace and its counters. It holds the lock while
// it visits every key (each value's Len, and Encoding and MemoryUsage where the
// engine provides them: O(1) for a small sorted set, O(n/84) for a large one) and
// every command's counters, so call it for monitoring, not on a hot path. Keys whose
// time has come are deleted first, so Keys never counts them.
func (db *DB) Stats() Stats {
	db.lockKeys()
	defer db.mu.Unlock()
	db.reclaim(-1)
	st := Stats{
		Keys:        int64(db.keys.n),
		Expires:     int64(len(db.exp.at)),
		ExpiredKeys: db.exp.expired,
		Types:       map[string]TypeStats{},
		Blocked:     int64(db.waits.Blocked()),
		Command:     map[string]CommandStats{},
	}
	for i := range db.keys.ents {
		val := db.keys.value(i)
		if val == nil {
			continue
		}
		name := typeName(val)
		ts := st.Types[name]
		ts.Keys++
		if v, ok := val.(interface{ Len() int }); ok {
			ts.Elements += int64(v.Len())
		}
		if v, ok := val.(interface{ MemoryUsage() int }); ok {
			ts.Bytes += int64(v.MemoryUsage())
		}
		if v, ok := val.(interface{ Encoding() string }); ok {
			if ts.Encodings == nil {
				ts.Encodings = map[string]int64{}
			}
			ts.Encodings[v.Encoding()]++
		}
		st.Types[name] = ts
	}
	for i, n := range db.stats.calls {
		n += db.stats.blocking[i].Load()
		if n == 0 {
			continue
		}
		cs := CommandStats{Calls: n}
		if db.stats.latency != nil {
			cs.Latency = db.stats.latency[i]
		}
		st.Command[statNames[i]] = cs
		st.Commands += n
	}
	return st
}
