package zlite

import (
	"strings"
	"time"
)

// The blocking commands of Do: parse the words exactly as Redis does (block_timeout.go
// for the timeout) into a blockPop that DB.Do runs with DB.wait (block_wait.go).

// keyValueReply is BLPOP and BRPOP's reply: [key, element].
func keyValueReply(r popReq) any { return []any{r.key, r.val} }

// parseMinMax parses ZMPOP's MIN or MAX (case-insensitively); true means MIN.
func parseMinMax(s string) (bool, error) {
	switch {
	case strings.EqualFold(s, "min"):
		return true, nil
	case strings.EqualFold(s, "max"):
		return false, nil
	}
	return false, ErrSyntax
}

// zmpopReply is ZMPOP/BZMPOP's reply: [key, [[member, score], ...]].
func zmpopReply(r popReq) any {
	zs := make([]any, len(r.zs))
	for i, z := range r.zs {
		zs[i] = []any{z.Member, formatScore(z.Score)}
	}
	return []any{r.key, zs}
}

func init() {
	register(
		&command{name: "blpop", arity: -3, reply: replyArray, block: parseBPop(true)},
		&command{name: "brpop", arity: -3, reply: replyArray, block: parseBPop(false)},
		&command{name: "blmove", arity: 6, reply: replyMove, block: func(db *DB, a []string) (blockPop, error) {
			sl, dl, err := parseMove(a[3], a[4])
			if err != nil {
				return blockPop{}, err
			}
			t, err := parseTimeout(a[5])
			if err != nil {
				return blockPop{}, err
			}
			return db.movePop(a[1:2], a[2], sl, dl, t), nil
		}},
		&command{name: "brpoplpush", arity: 4, reply: replyMove, block: func(db *DB, a []string) (blockPop, error) {
			t, err := parseTimeout(a[3])
			if err != nil {
				return blockPop{}, err
			}
			return db.movePop(a[1:2], a[2], false, true, t), nil
		}},
		&command{name: "blmpop", arity: -5, reply: replyArray, block: parseBMPop(popList)},
		&command{name: "bzpopmin", arity: -3, reply: replyKeyScore, block: parseBZPop(true)},
		&command{name: "bzpopmax", arity: -3, reply: replyKeyScore, block: parseBZPop(false)},
		&command{name: "bzmpop", arity: -5, reply: replyMPop, block: parseBMPop(popZSet)},
	)
}

func valueReply(r popReq) any { return r.val }

// movePop builds the pop of BLMOVE src dst for Do (BRPOPLPUSH's too); src is the
// slice of args holding the one key.
func (db *DB) movePop(src []string, dst string, srcLeft, dstLeft bool, timeout time.Duration) blockPop {
	r := popReq{kind: popMove, left: srcLeft, dst: dst, dstLeft: dstLeft, timeout: timeout, reply: valueReply}
	return db.newPop(r, src)
}

// blockingMPop builds the request of the typed BLMPop and BZMPop, in DB and Tx.
func blockingMPop(kind popKind, timeout time.Duration, where string, count int64, keys []string) (popReq, error) {
	r, err := typedMPop(kind, where, count, keys)
	if err == nil {
		err = checkTimeout(timeout)
	}
	r.timeout = timeout
	return r, err
}

// parseBMPop parses BLMPOP/BZMPOP timeout numkeys key [key ...] where [COUNT n].
func parseBMPop(kind popKind) func(db *DB, a []string) (blockPop, error) {
	return func(db *DB, a []string) (blockPop, error) {
		keys, r, err := mpopArgs(kind, a, 2)
		if err != nil {
			return blockPop{}, err
		}
		if r.timeout, err = parseTimeout(a[1]); err != nil {
			return blockPop{}, err
		}
		return db.newPop(r, keys), nil
	}
}

// parseBPop parses BLPOP/BRPOP key [key ...] timeout.
func parseBPop(left bool) func(db *DB, a []string) (blockPop, error) {
	return func(db *DB, a []string) (blockPop, error) {
		t, err := parseTimeout(a[len(a)-1])
		if err != nil {
			return blockPop{}, err
		}
		return db.listPop(a[1:len(a)-1], left, t), nil
	}
}

// parseBZPop parses BZPOPMIN/BZPOPMAX key [key ...] timeout.
func parseBZPop(min bool) func(db *DB, a []string) (blockPop, error) {
	return func(db *DB, a []string) (blockPop, error) {
		t, err := parseTimeout(a[len(a)-1])
		if err != nil {
			return blockPop{}, err
		}
		return db.newPop(popReq{kind: popZSet, left: min, timeout: t, reply: bzpopReply}, a[1:len(a)-1]), nil
	}
}

// bzpopReply is BZPOPMIN/BZPOPMAX's reply: [key, member, score].
func bzpopReply(r popReq) any {
	return []any{r.key, r.z.Member, formatScore(r.z.Score)}
}
