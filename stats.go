package zlite

import (
	"github.com/zlite/zlite/list"
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

// counters configure a DB's command counters, which live in its shards (each
// command counts in its Tx's home shard, under that shard's lock: plain increments,
// cheaper than atomics, and every command holds the lock anyway).
type counters struct {
	// blocking counts the blocking commands, which count before they take a lock
	// (an atomic add is cheaper than a lock round trip on the hand-off path).
	blocking []atomic.Uint64
	// timed is set when latency is tracked: clock is then non-nil, and each
	// shard has latency histograms.
	timed bool
	clock func() time.Time
	// epoch is the clock's first reading; start times are nanoseconds since it, so
	// that a start time is one word.
	epoch time.Time
}

// newCounters sizes the counters for every registered command.
func newCounters(c *config) counters {
	cs := counters{blocking: make([]atomic.Uint64, len(statNames))}
	if c.clock != nil {
		cs.timed, cs.clock = true, c.clock
		cs.epoch = c.clock()
	}
	return cs
}

// reset zeroes the counters of sh.
func (c *counters) reset(sh *shard) {
	sh.calls = make([]uint64, len(statNames))
	sh.pending = pendingCalls{}
	sh.latency = nil
	if c.timed {
		sh.latency = make([]Histogram, len(statNames))
	}
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
//	tx := db.lockKey(key)
//	tx.home.count(stat)
//	t0 := db.start()
//	...
//	return tx.finish(stat, t0, err)
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
// (serving blocked callers first, as unlock does).
func (tx *Tx) end(stat int, start int64) {
	if tx.db.stats.timed {
		tx.record(stat, start)
	}
	tx.unlock()
}

// now reads the latency clock, in nanoseconds since its first reading.
func (db *DB) now() int64 {
	return int64(db.stats.clock().Sub(db.stats.epoch))
}

// record adds the time since start to the latency histogram of stat in tx's home
// shard.
func (tx *Tx) record(stat int, start int64) {
	tx.home.latency[stat].record(time.Duration(tx.db.now() - start))
}

// count counts one run of the command whose counter is stat, for commands run
// under locks that the caller already holds (Tx.Do).
func (tx *Tx) count(stat int) {
	if tx.shared {
		tx.countShared(stat)
		return
	}
	tx.home.count(stat)
}

// pendingCalls holds the counts of the two commands a shard counted last, not yet
// added to its calls: each slot is a counter index above pendingShift and a count
// below. It lives on the lock's cache line, which the command has just brought to
// its core, so that a run of the same commands (or of two, as a queue's pushes and
// pops) counts without writing another line (see [shard]); a third command moves
// the older slot into calls.
type pendingCalls [2]uint64

const (
	pendingShift = 48
	pendingMax   = 1<<pendingShift - 1
)

// count counts one run of the command whose counter is stat in sh, held
// exclusively. O(1).
func (sh *shard) count(stat int) {
	// A slot minus stat's tag is the slot's count when it counts stat, else at
	// least 1<<pendingShift (or it wraps around): one comparison finds a slot that
	// counts stat and is not full.
	if sh.pending[0]-uint64(stat)<<pendingShift < pendingMax {
		sh.pending[0]++
	} else {
		sh.countSecond(stat)
	}
}

// countSecond is count when the first slot does not count stat's command: the
// second slot counts it, or the older slot moves into calls for a new count. Not
// inlined, so that count is.
//
//go:noinline
func (sh *shard) countSecond(stat int) {
	tag, p := uint64(stat)<<pendingShift, &sh.pending
	if p[1]-tag < pendingMax {
		p[1]++
		return
	}
	sh.calls[p[1]>>pendingShift] += p[1] & pendingMax
	p[1], p[0] = p[0], tag|1
}

// flushCalls moves the pending counts into calls, for a reader of calls.
func (sh *shard) flushCalls() {
	for i, c := range sh.pending {
		sh.calls[c>>pendingShift] += c & pendingMax
		sh.pending[i] = 0
	}
}

// countShared counts one run of the command whose counter is stat, for a command
// that may share its shard's lock with others (rlockMask).
func (tx *Tx) countShared(stat int) {
	atomic.AddUint64(&tx.home.calls[stat], 1)
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
	tx := db.lockAll()
	defer tx.release()
	st := Stats{
		Types:   map[string]TypeStats{},
		Blocked: int64(db.gwaits.Blocked()),
		Command: map[string]CommandStats{},
	}
	var latency []Histogram
	if db.stats.timed {
		latency = make([]Histogram, len(statNames))
	}
	for i := range db.shards {
		sh := &db.shards[i]
		sh.reclaim(-1)
		st.Keys += int64(sh.keys.Len())
		st.Expires += int64(len(sh.exp.at))
		st.ExpiredKeys += sh.exp.expired
		st.Blocked += int64(sh.waits.Blocked())
		sh.typeStats(st.Types)
		for c := range latency {
			latency[c].add(&sh.latency[c])
		}
	}
	for i, n := range db.callsLocked() {
		if n == 0 {
			continue
		}
		cs := CommandStats{Calls: n}
		if latency != nil {
			cs.Latency = latency[i]
		}
		st.Command[statNames[i]] = cs
		st.Commands += n
	}
	return st
}

// CommandCalls returns how many times each command has run, by lower-case name, as
// [DB.Stats]'s Command[name].Calls, without Stats's visit of the keys: a cheap
// measure of activity (a save schedule's count of writes, say). Commands that never
// ran are absent. It holds every shard's lock only while it adds their counters;
// the complexity is O(shards · commands).
func (db *DB) CommandCalls() map[string]uint64 {
	tx := db.lockAll()
	defer tx.release()
	m := map[string]uint64{}
	for i, n := range db.callsLocked() {
		if n > 0 {
			m[statNames[i]] = n
		}
	}
	return m
}

// callsLocked returns every command's calls, by stat index, under lockAll.
func (db *DB) callsLocked() []uint64 {
	calls := make([]uint64, len(statNames))
	for i := range db.shards {
		sh := &db.shards[i]
		sh.flushCalls()
		for c, n := range sh.calls {
			calls[c] += n
		}
	}
	for i := range calls {
		calls[i] += db.stats.blocking[i].Load()
	}
	return calls
}

// typeStats adds the shard's keys to types, by type.
func (sh *shard) typeStats(types map[string]TypeStats) {
	for i := range sh.keys.Entries() {
		val := sh.keys.Value(i)
		if val == nil {
			continue
		}
		name := typeName(val)
		ts := types[name]
		ts.Keys++
		if v, ok := val.(interface{ Len() int }); ok {
			ts.Elements += int64(v.Len())
		}
		if v, ok := val.(interface{ MemoryUsage() int }); ok {
			ts.Bytes += int64(v.MemoryUsage())
		}
		if _, isList := val.(*list.List); !isList {
			if ts.Encodings == nil {
				ts.Encodings = map[string]int64{}
			}
			ts.Encodings[encodingOf(val)]++
		}
		types[name] = ts
	}
}

// add adds the counts of o to h. O(LatencyBuckets).
func (h *Histogram) add(o *Histogram) {
	for i, c := range o.Counts {
		h.Counts[i] += c
	}
	h.Sum += o.Sum
}
