package zlite

import (
	"context"
	"math/bits"
	"strings"

	"github.com/zlite/zlite/internal/serverapi"
)

// The server's side of the keyspace (internal/serverapi): what package server needs
// beyond the public API, kept out of it.
func init() {
	serverapi.Register(serverapi.Hooks[DB, Tx, Command]{
		Shape:        shapeOf,
		DoNotify:     doNotify,
		DoPipelined:  doPipelined,
		ExpiryCounts: expiryCounts,
	})
}

// shapeOf is serverapi.Hooks.Shape.
func shapeOf(c Command, args []string) serverapi.Shape {
	switch c.c.reply {
	case replyStatus:
		return serverapi.Shape{Status: true}
	case replyArray:
		return serverapi.Shape{NullArray: true}
	case replyPopCount:
		return serverapi.Shape{NullArray: len(args) > 2}
	case replyScore:
		return serverapi.Shape{Doubles: serverapi.DoubleScalar}
	case replyScores:
		return serverapi.Shape{Doubles: serverapi.DoubleEach}
	case replyRank:
		return serverapi.Shape{Doubles: serverapi.DoubleLast}
	case replyRange:
		return withScores(args, 2)
	case replyAlgebra:
		if len(args) > 1 {
			if n, err := parseInt(args[1]); err == nil && n >= 0 && n < int64(len(args)) {
				return withScores(args, 2+int(n))
			}
		}
		return serverapi.Shape{}
	case replyPop:
		if len(args) > 2 {
			return serverapi.Shape{Doubles: serverapi.DoublePairs}
		}
		return serverapi.Shape{Doubles: serverapi.DoubleFlatPairs}
	case replyKeyScore:
		return serverapi.Shape{NullArray: true, Doubles: serverapi.DoubleLast}
	case replyMPop:
		return serverapi.Shape{NullArray: true, Doubles: serverapi.DoubleMPop}
	case replySet:
		for _, a := range args[min(3, len(args)):] {
			if strings.EqualFold(a, "get") {
				return serverapi.Shape{} // an expiry value cannot be GET without an error reply
			}
		}
		return serverapi.Shape{Status: true}
	case replyMove:
		return serverapi.Shape{NullArray: true, BatchNullBulk: true}
	case replyMap:
		return serverapi.Shape{Aggregate: serverapi.Map}
	case replySetOf:
		return serverapi.Shape{Aggregate: serverapi.SetOf}
	case replySPop:
		if len(args) > 2 {
			return serverapi.Shape{Aggregate: serverapi.SetOf}
		}
	case replyLCS:
		for _, a := range args[min(3, len(args)):] {
			if strings.EqualFold(a, "idx") {
				return serverapi.Shape{Aggregate: serverapi.Map} // MINMATCHLEN's integer cannot be IDX without an error reply
			}
		}
	case replyRandPairs:
		if len(args) > 3 {
			return serverapi.Shape{Aggregate: serverapi.Pairs} // only WITHVALUES is without an error
		}
	}
	return serverapi.Shape{}
}

// withScores is the shape of a range reply whose options start at args[from]: the
// option parsers accept WITHSCORES only as an option word (an integer, a bound or a
// weight cannot be it without an error reply), so seeing the word there is exact.
func withScores(args []string, from int) serverapi.Shape {
	for _, a := range args[min(from, len(args)):] {
		if strings.EqualFold(a, "withscores") {
			return serverapi.Shape{Doubles: serverapi.DoublePairs}
		}
	}
	return serverapi.Shape{}
}

// doNotify is serverapi.Hooks.DoNotify.
func doNotify(ctx context.Context, db *DB, notify func(blocked bool), args ...string) (any, error) {
	c, err := lookup(args)
	if err != nil || c.block == nil {
		return db.Do(ctx, args...)
	}
	// The blocking branch of Do, with notify on the waiter.
	db.countBlocking(c.stat)
	p, err := c.block(db, args)
	if err != nil {
		return nil, err
	}
	p.notify = notify
	return db.blockReply(ctx, &p)
}

// expiryCounts is serverapi.Hooks.ExpiryCounts: the counts of the shards tx holds
// (every shard in [DB.View]).
func expiryCounts(tx *Tx) (expires int64, expired uint64) {
	for b := tx.held; b != 0; b &= b - 1 {
		sh := &tx.db.shards[bits.TrailingZeros64(b)]
		expires += int64(len(sh.exp.at))
		expired += sh.exp.expired
	}
	return expires, expired
}
