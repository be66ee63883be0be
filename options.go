package zlite

import (
	"time"

	"github.com/zlite/zlite/dict"
	"github.com/zlite/zlite/set"
	"github.com/zlite/zlite/zset"
)

// Option configures a [DB] at [New]. Options are applied in order; a later option
// overrides an earlier one that sets the same field.
type Option func(*config)

// config holds the settings a DB is created with. Every field's zero value means
// "the default", so New() with no options is Redis's default configuration.
type config struct {
	// maxReply bounds the elements of one reply (0: DefaultMaxReplyElements).
	maxReply int
	// clock times commands for Stats's latency histograms; nil: not tracked.
	clock func() time.Time
	// persist holds the settings of Open (open.go).
	persist persistConfig
	// now is the clock that key expiry reads (nil: time.Now).
	now func() time.Time
	// zsetLimits are the thresholds of the small sorted-set encoding, valid when
	// zsetLimitsSet (else zset.DefaultLimits).
	zsetLimits    zset.Limits
	zsetLimitsSet bool
	// hashLimits and setLimits are the thresholds of the packed hash and set
	// encodings, valid when set (else DefaultHashLimits, DefaultSetLimits).
	hashLimits    dict.Limits
	hashLimitsSet bool
	setLimits     SetLimits
	setLimitsSet  bool
	// shards is the number of shards, a power of two (0: DefaultShards).
	shards int
	// events are the keyspace events enabled at start, eventsDB the DB's number
	// in their channels (notify.go).
	events   KeyspaceEvents
	eventsDB int
}

// DefaultMaxReplyElements is the number of elements one reply may hold unless
// [WithMaxReplyElements] says otherwise: 1<<24, about 400 MB of members and scores.
const DefaultMaxReplyElements = 1 << 24

// newConfig applies opts to the defaults.
func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.maxReply <= 0 {
		c.maxReply = DefaultMaxReplyElements
	}
	if c.now == nil {
		c.now = time.Now
	}
	if !c.zsetLimitsSet {
		c.zsetLimits = zset.DefaultLimits
	}
	if !c.hashLimitsSet {
		c.hashLimits = DefaultHashLimits
	}
	if !c.setLimitsSet {
		c.setLimits = DefaultSetLimits
	}
	if c.shards <= 0 {
		c.shards = DefaultShards
	}
	return c
}

// WithMaxReplyElements bounds the number of elements (members, or member-score
// pairs) that one reply may hold to n; n ≤ 0 restores [DefaultMaxReplyElements].
//
// Redis streams a long reply to the socket as it builds it; zlite builds each reply
// in memory, so a command whose reply size the caller chooses independently of the
// data (ZRANDMEMBER with a negative count, which may repeat members) could ask for
// any amount of memory. Such a command fails with an error matching
// [ErrReplyTooLarge] when its reply would hold more than n elements, and changes
// nothing. Every other reply is bounded by the data the keyspace already holds.
func WithMaxReplyElements(n int) Option {
	return func(c *config) { c.maxReply = n }
}

// WithLatencyTracking makes [DB.Stats] report each command's latency histogram,
// timed with time.Now. It costs two clock reads per command: about 20 ns each where
// the clock is read in user space, but 150-300 ns each on a virtual machine whose
// clock needs a system call (see BenchmarkStatsOverhead), so it is off by default. The call counters are
// always on.
func WithLatencyTracking() Option {
	return WithLatencyClock(time.Now)
}

// WithLatencyClock is [WithLatencyTracking] with the clock now, for tests or for a
// cheaper clock; nil turns latency tracking off.
func WithLatencyClock(now func() time.Time) Option {
	return func(c *config) { c.clock = now }
}

// WithClock makes key expiry read the time from now instead of time.Now: TTLs are
// measured, and keys expire, by that clock (a fake clock in tests, or a cheaper
// one). nil restores time.Now. The clock is read at most once per command or batch:
// by one that meets a key with a TTL, or writes while some key has one.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// WithZSetLimits sets the thresholds below which a sorted set keeps the packed small
// encoding (Redis's zset-max-listpack-entries and zset-max-listpack-value, 128 and 64
// by default): a set converts to the tree once it would hold more than l.Entries
// members or a member longer than l.Value bytes, and never converts back while it
// has members. l.Entries = 0 keeps every set a tree. The encoding changes only memory
// and speed, and what OBJECT ENCODING reports; see [zset.Limits].
func WithZSetLimits(l zset.Limits) Option {
	return func(c *config) { c.zsetLimits, c.zsetLimitsSet = l, true }
}

// WithShards splits the keyspace into n shards, each with its own lock (see the
// package doc's section Concurrency): n is rounded up to a power of two and
// clamped to 1..[MaxShards]. Commands on keys of different shards run in parallel;
// more shards make two random keys less likely to share one (1/n) at a cost of
// about 1 KiB each, and commands over the whole keyspace (KEYS, SCAN, DBSIZE,
// Update, View) lock all n. WithShards(1) is one lock for the whole keyspace.
func WithShards(n int) Option {
	return func(c *config) {
		c.shards = 1
		for c.shards < min(max(n, 1), MaxShards) {
			c.shards *= 2
		}
	}
}

// DefaultHashLimits are redis-server's built-in defaults of
// hash-max-listpack-entries and hash-max-listpack-value: 512 fields of up to 64
// bytes. (The redis.conf that Redis ships sets 128 entries.)
var DefaultHashLimits = dict.Limits{Entries: 512, Value: 64}

// WithHashLimits sets the thresholds below which a hash keeps the packed small
// encoding, as Redis's hash-max-listpack-entries and hash-max-listpack-value do
// (default [DefaultHashLimits]). They change memory and speed, the order HKEYS and
// HGETALL give, and what OBJECT ENCODING reports; see [dict.Limits].
func WithHashLimits(l dict.Limits) Option {
	return func(c *config) { c.hashLimits, c.hashLimitsSet = l, true }
}

// EncodingLimits are the thresholds of the compact encodings of sorted sets,
// hashes and sets (see [WithZSetLimits], [WithHashLimits], [WithSetLimits]).
type EncodingLimits struct {
	ZSet zset.Limits
	Hash dict.Limits
	Set  SetLimits
}

// EncodingLimits returns the thresholds that values made from now on get. It is
// safe for concurrent use. The complexity is O(1).
func (db *DB) EncodingLimits() EncodingLimits { return *db.limits.Load() }

// SetEncodingLimits changes the thresholds of the compact encodings, as CONFIG SET
// zset-max-listpack-entries, hash-max-listpack-value, set-max-intset-entries and
// the others do in Redis: sorted sets and hashes created from then on get the new
// limits, and a set applies them at its next conversion; a value already past a
// threshold keeps its encoding. (Redis also applies a raised or lowered limit to
// the small hashes and sorted sets that exist; zlite's keep the limits they were
// made with.) It is safe for concurrent use. The complexity is O(1).
func (db *DB) SetEncodingLimits(l EncodingLimits) { db.limits.Store(&l) }

// SetLimits are the thresholds of a set's compact encodings: a set of at most Ints
// members that are all integers (in canonical decimal form) is an intset, as with
// Redis's set-max-intset-entries; a set of at most Packed.Entries members none
// longer than Packed.Value bytes is packed, as with Redis 7.2's
// set-max-listpack-entries and set-max-listpack-value; a larger one is a hash
// table, and stays one (see package set).
type SetLimits = set.Limits

// DefaultSetLimits are Redis's defaults: 512 integers, 128 members of up to 64
// bytes.
var DefaultSetLimits = set.DefaultLimits

// WithSetLimits sets the thresholds of the compact set encodings (default
// [DefaultSetLimits]). They change memory and speed, the order SMEMBERS gives, and
// what OBJECT ENCODING reports.
func WithSetLimits(l SetLimits) Option {
	return func(c *config) { c.setLimits, c.setLimitsSet = l, true }
}
