package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zlite/zlite/queues"
)

// Z is a sorted-set member and its score.
type Z struct {
	Member string
	Score  float64
}

// A System is one implementation under test. The core methods take a batch of
// arguments and send one command per element (LPushRPop sends two), on one key or,
// where they take keys, on keys[i] for element i; how the batch travels (direct
// calls, one round trip each, pipelines) is the system's business.
// Every method checks its replies and returns an error on a reply the workload
// cannot produce (a missing member, an empty pop), so a broken system cannot post
// a fast figure.
type System interface {
	// Name is the short identifier used in flags and benchmark names.
	Name() string
	// Close releases the system's connections and servers.
	Close() error

	// Del deletes keys.
	Del(ctx context.Context, keys ...string) error
	// ZAddBulk adds zs to key with multi-member ZADD commands (used to fill and restore).
	ZAddBulk(ctx context.Context, key string, zs []Z) error
	// ZRemBulk removes members from key with multi-member ZREM commands.
	ZRemBulk(ctx context.Context, key string, members []string) error
	// RPushBulk appends values to key with multi-value RPUSH commands.
	RPushBulk(ctx context.Context, key string, values []string) error
	// ZAddKeys adds zs[i] to keys[i] with one multi-member ZADD per key (used to
	// fill many keys; pipelined where the system can).
	ZAddKeys(ctx context.Context, keys []string, zs [][]Z) error
	// RPushKeys appends values[i] to keys[i] with one multi-value RPUSH per key.
	RPushKeys(ctx context.Context, keys []string, values [][]string) error
	// SetKeys sends SET keys[i] values[i] for each key (pipelined where the system
	// can, as are the other *Keys methods).
	SetKeys(ctx context.Context, keys, values []string) error
	// IncrKeys sends INCR key for each key.
	IncrKeys(ctx context.Context, keys []string) error
	// HSetKeys sets the field-value pairs pairs[i] (field, value, field, value...)
	// of keys[i] with one multi-field HSET per key.
	HSetKeys(ctx context.Context, keys []string, pairs [][]string) error
	// SAddKeys adds members[i] to keys[i] with one multi-member SADD per key.
	SAddKeys(ctx context.Context, keys []string, members [][]string) error

	// ZAdd sends ZADD keys[i] score member for each element zs[i].
	ZAdd(ctx context.Context, keys []string, zs []Z) error
	// ZScore sends ZSCORE keys[i] members[i] for each member; each must exist.
	ZScore(ctx context.Context, keys []string, members []string) error
	// ZRange sends ZRANGE key 0 -1 for each key; each reply must be non-empty.
	ZRange(ctx context.Context, keys []string) error
	// ZPopMin sends ZPOPMIN key for each key and returns what was popped, in order;
	// each key must have a member to pop.
	ZPopMin(ctx context.Context, keys []string) ([]Z, error)
	// ZRank sends ZRANK keys[i] members[i] (ZREVRANK when rev is set) for each
	// member; each must exist.
	ZRank(ctx context.Context, keys []string, members []string, rev bool) error
	// ZRangeByScore sends ZRANGEBYSCORE key min +inf LIMIT offset count for each
	// min; each reply must be non-empty.
	ZRangeByScore(ctx context.Context, key string, mins []float64, offset, count int) error
	// ZPopMax sends ZPOPMAX key k times and returns what was popped.
	ZPopMax(ctx context.Context, key string, k int) ([]Z, error)
	// ZRem sends ZREM key member for each member; each must exist.
	ZRem(ctx context.Context, key string, members []string) error
	// LPushRPop sends LPUSH keys[i] values[i] then RPOP keys[i] for each value.
	LPushRPop(ctx context.Context, keys []string, values []string) error
	// LRange sends LRANGE key start stop k times; each reply must be non-empty.
	LRange(ctx context.Context, key string, k, start, stop int) error

	// Get sends GET key for each key; each must exist.
	Get(ctx context.Context, keys []string) error
	// Set sends SET keys[i] values[i] for each value.
	Set(ctx context.Context, keys, values []string) error
	// Incr sends INCR key for each key.
	Incr(ctx context.Context, keys []string) error
	// MGet sends MGET keys[i]... for each element of keys; every key must exist.
	MGet(ctx context.Context, keys [][]string) error
	// HSet sends HSET keys[i] fields[i] values[i] for each field; each must exist
	// (so that the reply is 0: the field was updated, not added).
	HSet(ctx context.Context, keys, fields, values []string) error
	// HGet sends HGET keys[i] fields[i] for each field; each must exist.
	HGet(ctx context.Context, keys, fields []string) error
	// SAdd sends SADD keys[i] members[i] for each member; each must be new to its set.
	SAdd(ctx context.Context, keys, members []string) error
	// SRem sends SREM keys[i] members[i] for each member; each must be in its set.
	SRem(ctx context.Context, keys, members []string) error
	// SIsMember sends SISMEMBER keys[i] members[i] for each member; each must be in
	// its set.
	SIsMember(ctx context.Context, keys, members []string) error

	// Blocking reports whether the system supports the blocking workloads.
	Blocking() bool
	// LPush sends LPUSH key value.
	LPush(ctx context.Context, key, value string) error
	// BRPop sends BRPOP key timeout; false when it timed out.
	BRPop(ctx context.Context, key string, timeout time.Duration) (string, bool, error)
	// ZAddOne sends ZADD key score member.
	ZAddOne(ctx context.Context, key string, z Z) error
	// BZPopMin sends BZPOPMIN key timeout; false when it timed out.
	BZPopMin(ctx context.Context, key string, timeout time.Duration) (Z, bool, error)

	// QueueBackend returns the backend the queue types of package queues run on, or
	// nil when the system does not run them (it would duplicate another system).
	QueueBackend() queues.Backend

	// Memory returns the memory the system uses now, in bytes, and the name of the
	// measure (for example "Go heap" or "used_memory"); ok is false when the system
	// shares its memory figure with another system of the same run and is not
	// measured on its own.
	Memory(ctx context.Context) (bytes int64, ok bool, err error)
}

// errEmpty is returned when a reply that the workload guarantees non-empty is empty.
var errEmpty = errors.New("bench: unexpected empty reply")

func missing(cmd, member string) error {
	return fmt.Errorf("bench: %s %s: member missing", cmd, member)
}

// absent is the error of a command on a key that the workload guarantees exists.
func absent(cmd, key string) error {
	return fmt.Errorf("bench: %s %s: key missing", cmd, key)
}

// present is the error of a command adding a member that the workload guarantees
// new.
func present(cmd, member string) error {
	return fmt.Errorf("bench: %s %s: member already there", cmd, member)
}

// fillBatch is the number of elements per command when filling a key.
const fillBatch = 1000
