package embedded

import (
	"context"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/queues"
)

// Backend is a [queues.Backend] on db. It is safe for concurrent use.
type Backend struct {
	db *zlite.DB
}

var _ queues.Backend = (*Backend)(nil)

// New returns a Backend on db. Several queues (and other users) may share one db;
// their keys do not collide as long as their names differ. O(1).
func New(db *zlite.DB) *Backend { return &Backend{db: db} }

// Eval runs s's Go half in one db.Update, unless ctx is already done.
func (e *Backend) Eval(ctx context.Context, s *queues.Script, keys []string, args ...string) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var r any
	err := e.db.Update(func(tx *zlite.Tx) error {
		var err error
		r, err = s.Run(embeddedTx{tx}, keys, args)
		return err
	})
	return r, err
}

// LPush is LPUSH ([zlite.DB.LPush]). The complexity is O(1) per value.
func (e *Backend) LPush(ctx context.Context, key string, values ...string) (int64, error) {
	return e.db.LPush(ctx, key, values...)
}

// LLen is LLEN ([zlite.DB.LLen]). O(1).
func (e *Backend) LLen(ctx context.Context, key string) (int64, error) { return e.db.LLen(ctx, key) }

// ZCard is ZCARD ([zlite.DB.ZCard]). O(1).
func (e *Backend) ZCard(ctx context.Context, key string) (int64, error) { return e.db.ZCard(ctx, key) }

// The blocking methods check ctx first: the keyspace would serve a ready element even
// to a done context, and the queues.Backend contract says a done ctx takes nothing.

// BRPop is BRPOP with an exact timeout ([zlite.DB.BRPop], at its cost).
func (e *Backend) BRPop(ctx context.Context, timeout time.Duration, keys ...string) (string, string, bool, error) {
	if err := ctx.Err(); err != nil {
		return "", "", false, err
	}
	return e.db.BRPop(ctx, timeout, keys...)
}

// BZPopMin is BZPOPMIN with an exact timeout ([zlite.DB.BZPopMin], at its cost).
func (e *Backend) BZPopMin(ctx context.Context, timeout time.Duration, keys ...string) (string, queues.Z, bool, error) {
	if err := ctx.Err(); err != nil {
		return "", queues.Z{}, false, err
	}
	return e.db.BZPopMin(ctx, timeout, keys...)
}

// BZPopMax is BZPOPMAX with an exact timeout ([zlite.DB.BZPopMax], at its cost).
func (e *Backend) BZPopMax(ctx context.Context, timeout time.Duration, keys ...string) (string, queues.Z, bool, error) {
	if err := ctx.Err(); err != nil {
		return "", queues.Z{}, false, err
	}
	return e.db.BZPopMax(ctx, timeout, keys...)
}

// BLMove is BLMOVE with an exact timeout ([zlite.DB.BLMove], at its cost).
func (e *Backend) BLMove(ctx context.Context, src, dst, srcPos, dstPos string, timeout time.Duration) (string, bool, error) {
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	return e.db.BLMove(ctx, src, dst, srcPos, dstPos, timeout)
}

// embeddedTx adapts a keyspace transaction to [queues.Tx].
type embeddedTx struct{ tx *zlite.Tx }

func (t embeddedTx) ZAdd(key string, score float64, member string) (int64, error) {
	return t.tx.ZAdd(key, zlite.Z{Member: member, Score: score})
}

func (t embeddedTx) ZIncrBy(key string, increment float64, member string) (float64, error) {
	return t.tx.ZIncrBy(key, increment, member)
}

func (t embeddedTx) ZRem(key string, members ...string) (int64, error) {
	return t.tx.ZRem(key, members...)
}

func (t embeddedTx) ZScore(key, member string) (float64, bool, error) {
	return t.tx.ZScore(key, member)
}

func (t embeddedTx) ZRank(key, member string) (int64, bool, error) {
	return t.tx.ZRank(key, member)
}

func (t embeddedTx) ZCard(key string) (int64, error) { return t.tx.ZCard(key) }

func (t embeddedTx) ZRangeWithScores(key string, start, stop int64) ([]queues.Z, error) {
	return t.tx.ZRangeWithScores(key, start, stop)
}

func (t embeddedTx) ZRangeByScoreWithScores(key, min, max string, offset, count int64) ([]queues.Z, error) {
	return t.tx.ZRangeByScoreWithScores(key, &zlite.ZRangeBy{Min: min, Max: max, Offset: offset, Count: count})
}

func (t embeddedTx) ZPopMin(key string) (queues.Z, bool, error) {
	zs, err := t.tx.ZPopMin(key)
	if err != nil || len(zs) == 0 {
		return queues.Z{}, false, err
	}
	return zs[0], true, nil
}

func (t embeddedTx) LPush(key string, values ...string) (int64, error) {
	return t.tx.LPush(key, values...)
}

func (t embeddedTx) RPush(key string, values ...string) (int64, error) {
	return t.tx.RPush(key, values...)
}

func (t embeddedTx) RPop(key string) (string, bool, error) { return t.tx.RPop(key) }

func (t embeddedTx) LRem(key string, count int64, value string) (int64, error) {
	return t.tx.LRem(key, count, value)
}

func (t embeddedTx) LLen(key string) (int64, error) { return t.tx.LLen(key) }

func (t embeddedTx) LRange(key string, start, stop int64) ([]string, error) {
	return t.tx.LRange(key, start, stop)
}

func (t embeddedTx) HGet(key, field string) (string, bool, error) { return t.tx.HGet(key, field) }

func (t embeddedTx) HSet(key, field, value string) (int64, error) {
	return t.tx.HSet(key, field, value)
}

func (t embeddedTx) HIncrBy(key, field string, incr int64) (int64, error) {
	return t.tx.HIncrBy(key, field, incr)
}

func (t embeddedTx) HDel(key string, fields ...string) (int64, error) {
	return t.tx.HDel(key, fields...)
}
