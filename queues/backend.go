package queues

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/zlite/zlite/zset"
)

// Z is a sorted-set member with its score, as returned by [Backend.BZPopMin] and the
// [Tx] range methods.
type Z = zset.Entry

// Backend is the small set of Redis commands the queue types are written against. Two
// implementations exist: embedded.Backend over the in-process keyspace of package zlite
// (package github.com/zlite/zlite/queues/embedded), and redisq.Backend over a real Redis through go-redis (package
// github.com/zlite/zlite/queues/redisq).
//
// Every method is safe for concurrent use. Blocking methods share one contract:
//
//   - timeout 0 blocks until an element arrives or ctx is done; timeout > 0 gives up
//     after about that long and returns ok == false with a nil error;
//   - when ctx is done before an element was taken, they return ctx.Err();
//   - an element that was taken is always returned (ok == true, err == nil), even when
//     ctx became done meanwhile: a blocking pop never loses an element to a
//     cancellation, so callers must process or hand back whatever they receive.
type Backend interface {
	// Eval runs the compound step s atomically (Redis: EVALSHA of s's Lua source;
	// embedded: s's Go function inside one keyspace transaction). Its reply has the
	// shapes of a Redis script reply as go-redis returns it: nil, int64, string, or
	// []any of those. When ctx is already done it runs nothing and returns
	// ctx.Err() itself (not wrapped); a backend that stops waiting for the reply
	// once ctx is done returns an error wrapping ctx.Err() and runs s's undo step
	// on the reply ([Script.WithUndo]).
	Eval(ctx context.Context, s *Script, keys []string, args ...string) (any, error)

	// LPush prepends values to the list at key (LPUSH) and returns its new length.
	LPush(ctx context.Context, key string, values ...string) (int64, error)
	// LLen returns the length of the list at key (LLEN), 0 when absent.
	LLen(ctx context.Context, key string) (int64, error)
	// ZCard returns the number of members of the sorted set at key (ZCARD).
	ZCard(ctx context.Context, key string) (int64, error)

	// BRPop pops the last element of the first non-empty list among keys, blocking
	// while all are empty (BRPOP).
	BRPop(ctx context.Context, timeout time.Duration, keys ...string) (key, value string, ok bool, err error)
	// BZPopMin pops the lowest-scored member of the first non-empty sorted set among
	// keys, blocking while all are empty (BZPOPMIN).
	BZPopMin(ctx context.Context, timeout time.Duration, keys ...string) (key string, z Z, ok bool, err error)
	// BZPopMax is BZPopMin for the highest-scored member (BZPOPMAX).
	BZPopMax(ctx context.Context, timeout time.Duration, keys ...string) (key string, z Z, ok bool, err error)
	// BLMove pops an element from one end of src and pushes it onto one end of dst
	// atomically, blocking while src is empty (BLMOVE). srcPos and dstPos are "LEFT"
	// or "RIGHT".
	BLMove(ctx context.Context, src, dst, srcPos, dstPos string, timeout time.Duration) (string, bool, error)
}

// Tx is what the Go half of a [Script] may do: the keyspace commands of one atomic
// step on the embedded engine, named as in go-redis, without ctx. Scores and ranges
// follow Redis exactly; min and max of ZRangeByScore are Redis's bounds ("-inf",
// "(5", "+inf").
type Tx interface {
	ZAdd(key string, score float64, member string) (int64, error)          // ZADD: new members added
	ZIncrBy(key string, increment float64, member string) (float64, error) // ZINCRBY: new score
	ZRem(key string, members ...string) (int64, error)                     // ZREM: members removed
	ZScore(key, member string) (float64, bool, error)                      // ZSCORE
	ZRank(key, member string) (int64, bool, error)                         // ZRANK, 0-based
	ZCard(key string) (int64, error)                                       // ZCARD
	ZRangeWithScores(key string, start, stop int64) ([]Z, error)           // ZRANGE … WITHSCORES
	// ZRANGEBYSCORE key min max WITHSCORES LIMIT offset count (count < 0: all).
	ZRangeByScoreWithScores(key, min, max string, offset, count int64) ([]Z, error)
	ZPopMin(key string) (Z, bool, error)                       // ZPOPMIN key
	LPush(key string, values ...string) (int64, error)         // LPUSH: new length
	RPush(key string, values ...string) (int64, error)         // RPUSH: new length
	RPop(key string) (string, bool, error)                     // RPOP key
	LRem(key string, count int64, value string) (int64, error) // LREM: elements removed
	LLen(key string) (int64, error)                            // LLEN
	LRange(key string, start, stop int64) ([]string, error)    // LRANGE
	HGet(key, field string) (string, bool, error)              // HGET
	HSet(key, field, value string) (int64, error)              // HSET key field value: fields added
	HIncrBy(key, field string, incr int64) (int64, error)      // HINCRBY: new value
	HDel(key string, fields ...string) (int64, error)          // HDEL: fields removed
}

// Script is one compound step of a queue, written twice: as Lua for Redis and as an
// equivalent Go function for the embedded engine. Both receive the same keys and
// string arguments (Lua's KEYS and ARGV) and must return the same reply: nil, int64,
// string or []any of those (a Lua false becomes nil, a Lua number an int64).
//
// A Script validates before it writes, as Redis does not roll a script back.
type Script struct {
	src  string
	fn   func(tx Tx, keys, args []string) (any, error)
	undo *Script
}

// NewScript returns a Script from its Lua source and its Go equivalent (nil for a
// script that only ever runs on Redis).
func NewScript(lua string, fn func(tx Tx, keys, args []string) (any, error)) *Script {
	return &Script{src: lua, fn: fn}
}

// Lua returns the script's Lua source.
func (s *Script) Lua() string { return s.src }

// WithUndo marks s as a step that takes something out of a queue and returns s. Its
// reply is an array ([]any) exactly when it took something, and undo, run with the
// same keys and that array (as strings) for args, puts it back where it was. A
// backend that gives up waiting for s's reply (redisq, when ctx ends while Redis is
// slow to answer) runs undo once the reply does arrive, so that nothing a caller never
// saw is lost.
func (s *Script) WithUndo(undo *Script) *Script {
	s.undo = undo
	return s
}

// Undo returns the step that puts back what s took, as given to [Script.WithUndo],
// with its arguments taken from s's reply; ok is false when s takes nothing or its
// reply says it took nothing.
func (s *Script) Undo(reply any) (undo *Script, args []string, ok bool) {
	a, isArray := reply.([]any)
	if s.undo == nil || !isArray {
		return nil, nil, false
	}
	args = make([]string, len(a))
	for i, v := range a {
		args[i] = replyString(v)
	}
	return s.undo, args, true
}

// ErrNoGoScript: a [Script] without a Go half was run on the embedded engine.
var ErrNoGoScript = errors.New("queues: script has no Go implementation")

// Run runs the Go half of the script on tx, or returns [ErrNoGoScript] when it has
// none (a script made for Redis only).
func (s *Script) Run(tx Tx, keys, args []string) (any, error) {
	if s.fn == nil {
		return nil, ErrNoGoScript
	}
	return s.fn(tx, keys, args)
}

// nower tells the time: the clock given to [WithClock], or the system clock. The
// delayed queue, the scheduler, the call queue and the reliable queue read it for
// every due time, enqueue time and lease deadline, so that tests can move time by
// hand. Waiting is done by the backend's timers (and, for short waits on Redis, a
// [time.Timer]) for the interval the clock gives, so tests of waiting itself run in a
// [testing/synctest] bubble on the embedded backend, where time.Now and every timer
// share a fake clock.
type nower interface {
	Now() time.Time
}

// funcClock is the clock given to [WithClock].
type funcClock func() time.Time

func (f funcClock) Now() time.Time { return f() }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// micros returns t as Unix microseconds: exact in a float64 score until the year 2255.
func micros(t time.Time) int64 { return t.UnixMicro() }

// seqWidth is the width of the hexadecimal arrival sequence that prefixes members, so
// that byte order among equal scores is arrival order.
const seqWidth = 16

func seqPrefix(n int64) string {
	const hex = "0123456789abcdef"
	var b [seqWidth]byte
	for i, u := seqWidth-1, uint64(n); i >= 0; i, u = i-1, u>>4 {
		b[i] = hex[u&15]
	}
	return string(b[:])
}

// key returns the Redis key of part of queue name. Every key of one queue shares the
// hash tag {name}, so a Redis Cluster keeps them in one slot and accepts the scripts.
func key(name, part string) string { return "{" + name + "}:" + part }

func checkName(kind, name string) {
	if name == "" {
		panic("queues: New" + kind + " with an empty name")
	}
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
func fmtInt(n int64) string     { return strconv.FormatInt(n, 10) }

func parseScore(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

// Reply decoding helpers shared by every queue.

func replyArray(v any) ([]any, error) {
	switch a := v.(type) {
	case nil:
		return nil, nil
	case []any:
		return a, nil
	}
	return nil, fmt.Errorf("queues: unexpected script reply %T", v)
}

func replyString(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case int64:
		return strconv.FormatInt(s, 10)
	}
	return ""
}

func replyInt(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case string:
		i, _ := strconv.ParseInt(n, 10, 64)
		return i
	}
	return 0
}

func replyFloat(v any) float64 {
	switch n := v.(type) {
	case int64:
		return float64(n)
	case string:
		f, _ := strconv.ParseFloat(n, 64)
		return f
	}
	return 0
}
