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

// fillBatch is the number of elements per command when filling a key.
const fillBatch = 1000
