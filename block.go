package zlite

import (
	"context"
	"time"
)

// The blocking commands (BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP, BZPOPMIN, BZPOPMAX,
// BZMPOP), typed. Each builds a waiter and runs it with DB.wait (which may
// block) or, in a Tx, builds its popReq and runs it with Tx.once (which never
// blocks, as inside MULTI).

// checkTimeout rejects negative typed timeouts as Redis rejects negative seconds.
func checkTimeout(timeout time.Duration) error {
	if timeout < 0 {
		return ErrTimeoutNegative
	}
	return nil
}

// listPop builds BLPOP's (left) or BRPOP's pop.
func (db *DB) listPop(keys []string, left bool, timeout time.Duration) blockPop {
	return db.newPop(popReq{kind: popList, left: left, timeout: timeout, reply: keyValueReply}, keys)
}

// waitTyped runs r on keys for a typed method (see DB.wait).
func (db *DB) waitTyped(ctx context.Context, r *popReq, keys []string) error {
	db.route(r, keys)
	return db.wait(ctx, r, keys, nil)
}

// bpop runs BLPOP or BRPOP.
func (db *DB) bpop(ctx context.Context, name string, timeout time.Duration, left bool, keys []string) (string, string, bool, error) {
	if len(keys) == 0 {
		return "", "", false, errArity(name)
	}
	if err := checkTimeout(timeout); err != nil {
		return "", "", false, err
	}
	r := popReq{kind: popList, left: left, timeout: timeout}
	if err := db.waitTyped(ctx, &r, keys); err != nil {
		return "", "", false, err
	}
	return r.key, r.val, r.ok, r.err
}

// BLPop is BLPOP: it pops the head of the first non-empty list among keys, tried left
// to right, or else waits until a push into one of them hands it an element, the
// timeout expires (ok false; 0 waits forever) or ctx is done (ctx.Err()). Waiters
// are served first come, first served, one element each. Repeated keys count once.
// The complexity is amortised O(number of keys) to block (and to stop waiting), O(1)
// plus O(number of keys) to be served.
func (db *DB) BLPop(ctx context.Context, timeout time.Duration, keys ...string) (key, value string, ok bool, err error) {
	db.countBlocking(statBLPop)
	return db.bpop(ctx, "blpop", timeout, true, keys)
}

// BRPop is BRPOP: [DB.BLPop] popping the tail, at the same cost.
func (db *DB) BRPop(ctx context.Context, timeout time.Duration, keys ...string) (key, value string, ok bool, err error) {
	db.countBlocking(statBRPop)
	return db.bpop(ctx, "brpop", timeout, false, keys)
}

// BLMove is BLMOVE: [DB.LMove] that waits (as [DB.BLPop]) while src does not exist.
// The push into dst serves dst's own waiters in turn. If dst holds a sorted set when
// an element arrives, the caller gets [ErrWrongType] and the element stays in src.
// O(1) to block and to be served.
func (db *DB) BLMove(ctx context.Context, src, dst, srcPos, dstPos string, timeout time.Duration) (string, bool, error) {
	db.countBlocking(statBLMove)
	sl, dl, err := parseMove(srcPos, dstPos)
	if err != nil {
		return "", false, err
	}
	return db.bmove(ctx, src, dst, sl, dl, timeout)
}

// BRPopLPush is BRPOPLPUSH: BLMOVE src dst RIGHT LEFT (see [DB.BLMove]), at the same
// cost.
func (db *DB) BRPopLPush(ctx context.Context, src, dst string, timeout time.Duration) (string, bool, error) {
	db.countBlocking(statBRPopLPush)
	return db.bmove(ctx, src, dst, false, true, timeout)
}

func (db *DB) bmove(ctx context.Context, src, dst string, srcLeft, dstLeft bool, timeout time.Duration) (string, bool, error) {
	if err := checkTimeout(timeout); err != nil {
		return "", false, err
	}
	r := popReq{kind: popMove, left: srcLeft, dst: dst, dstLeft: dstLeft, timeout: timeout}
	if err := db.waitTyped(ctx, &r, []string{src}); err != nil {
		return "", false, err
	}
	return r.val, r.ok, r.err
}

// BLMPop is BLMPOP: [DB.LMPop] that waits (as [DB.BLPop]) while every key is missing;
// values is nil on timeout. Amortised O(number of keys) to block, O(count) to be
// served.
func (db *DB) BLMPop(ctx context.Context, timeout time.Duration, direction string, count int64, keys ...string) (key string, values []string, err error) {
	db.countBlocking(statBLMPop)
	r, err := db.bmpop(ctx, popList, timeout, direction, count, keys)
	return r.key, r.vals, err
}

// bmpop runs the typed BLMPop or BZMPop.
func (db *DB) bmpop(ctx context.Context, kind popKind, timeout time.Duration, where string, count int64, keys []string) (popReq, error) {
	r, err := blockingMPop(kind, timeout, where, count, keys)
	if err != nil {
		return popReq{}, err
	}
	if err := db.waitTyped(ctx, &r, keys); err != nil {
		return popReq{}, err
	}
	return r, r.err
}

// bzpop runs BZPOPMIN or BZPOPMAX.
func (db *DB) bzpop(ctx context.Context, name string, timeout time.Duration, min bool, keys []string) (string, Z, bool, error) {
	if len(keys) == 0 {
		return "", Z{}, false, errArity(name)
	}
	if err := checkTimeout(timeout); err != nil {
		return "", Z{}, false, err
	}
	r := popReq{kind: popZSet, left: min, timeout: timeout}
	if err := db.waitTyped(ctx, &r, keys); err != nil {
		return "", Z{}, false, err
	}
	return r.key, r.z, r.ok, r.err
}

// BZPopMin is BZPOPMIN: it pops the member with the lowest score from the first
// non-empty sorted set among keys, or waits for one as [DB.BLPop] does. O(log n) once
// served.
func (db *DB) BZPopMin(ctx context.Context, timeout time.Duration, keys ...string) (key string, z Z, ok bool, err error) {
	db.countBlocking(statBZPopMin)
	return db.bzpop(ctx, "bzpopmin", timeout, true, keys)
}

// BZPopMax is BZPOPMAX: [DB.BZPopMin] popping the highest score, at the same cost.
func (db *DB) BZPopMax(ctx context.Context, timeout time.Duration, keys ...string) (key string, z Z, ok bool, err error) {
	db.countBlocking(statBZPopMax)
	return db.bzpop(ctx, "bzpopmax", timeout, false, keys)
}

// BZMPop is BZMPOP: it pops up to count members ("MIN" or "MAX" order) from the first
// non-empty sorted set among keys, or waits as [DB.BLPop] does; zs is nil on timeout.
// Amortised O(number of keys) to block, O(log n + count) to be served.
func (db *DB) BZMPop(ctx context.Context, timeout time.Duration, order string, count int64, keys ...string) (key string, zs []Z, err error) {
	db.countBlocking(statBZMPop)
	r, err := db.bmpop(ctx, popZSet, timeout, order, count, keys)
	return r.key, r.zs, err
}

// The Tx forms: as inside MULTI, they never block; with nothing ready they return
// at once as on a timeout (ok false or nil values).

// BLPop is [DB.BLPop] without blocking.
func (tx *Tx) BLPop(timeout time.Duration, keys ...string) (key, value string, ok bool, err error) {
	return tx.bpop("blpop", timeout, true, keys)
}

// BRPop is [DB.BRPop] without blocking.
func (tx *Tx) BRPop(timeout time.Duration, keys ...string) (key, value string, ok bool, err error) {
	return tx.bpop("brpop", timeout, false, keys)
}

func (tx *Tx) bpop(name string, timeout time.Duration, left bool, keys []string) (string, string, bool, error) {
	if len(keys) == 0 {
		return "", "", false, errArity(name)
	}
	if err := checkTimeout(timeout); err != nil {
		return "", "", false, err
	}
	r := popReq{kind: popList, left: left}
	err := tx.once(&r, keys)
	return r.key, r.val, r.ok, err
}

// BLMove is [DB.BLMove] without blocking.
func (tx *Tx) BLMove(src, dst, srcPos, dstPos string, timeout time.Duration) (string, bool, error) {
	if err := checkTimeout(timeout); err != nil {
		return "", false, err
	}
	return tx.LMove(src, dst, srcPos, dstPos)
}

// BRPopLPush is [DB.BRPopLPush] without blocking.
func (tx *Tx) BRPopLPush(src, dst string, timeout time.Duration) (string, bool, error) {
	if err := checkTimeout(timeout); err != nil {
		return "", false, err
	}
	return tx.RPopLPush(src, dst)
}

// BLMPop is [DB.BLMPop] without blocking.
func (tx *Tx) BLMPop(timeout time.Duration, direction string, count int64, keys ...string) (string, []string, error) {
	r, err := tx.bmpop(popList, timeout, direction, count, keys)
	return r.key, r.vals, err
}

func (tx *Tx) bmpop(kind popKind, timeout time.Duration, where string, count int64, keys []string) (popReq, error) {
	r, err := blockingMPop(kind, timeout, where, count, keys)
	if err != nil {
		return popReq{}, err
	}
	err = tx.once(&r, keys)
	return r, err
}

// BZPopMin is [DB.BZPopMin] without blocking.
func (tx *Tx) BZPopMin(timeout time.Duration, keys ...string) (key string, z Z, ok bool, err error) {
	return tx.bzpop("bzpopmin", timeout, true, keys)
}

// BZPopMax is [DB.BZPopMax] without blocking.
func (tx *Tx) BZPopMax(timeout time.Duration, keys ...string) (key string, z Z, ok bool, err error) {
	return tx.bzpop("bzpopmax", timeout, false, keys)
}

func (tx *Tx) bzpop(name string, timeout time.Duration, min bool, keys []string) (string, Z, bool, error) {
	if len(keys) == 0 {
		return "", Z{}, false, errArity(name)
	}
	if err := checkTimeout(timeout); err != nil {
		return "", Z{}, false, err
	}
	r := popReq{kind: popZSet, left: min}
	err := tx.once(&r, keys)
	return r.key, r.z, r.ok, err
}

// BZMPop is [DB.BZMPop] without blocking.
func (tx *Tx) BZMPop(timeout time.Duration, order string, count int64, keys ...string) (string, []Z, error) {
	r, err := tx.bmpop(popZSet, timeout, order, count, keys)
	return r.key, r.zs, err
}
