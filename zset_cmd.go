package zlite

import (
	"math"
	"strconv"
	"strings"

	"github.com/zlite/zlite/internal/serverapi"
	"github.com/zlite/zlite/zset"
)

// The sorted-set commands of Do: parse the words exactly as Redis 7 does (same
// checks, same order of errors), then run the typed Tx code.

func init() {
	register(
		&command{name: "zadd", arity: -4, reply: replyScore, write: true, run: cmdZAdd},
		&command{name: "zincrby", arity: 4, reply: replyScore, write: true, run: cmdZIncrBy},
		&command{name: "zrem", arity: -3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.ZRem(a[1], a[2:]...))
		}},
		&command{name: "zcard", arity: 2, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.ZCard(a[1]))
		}},
		&command{name: "zcount", arity: 4, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.ZCount(a[1], a[2], a[3]))
		}},
		&command{name: "zlexcount", arity: 4, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.ZLexCount(a[1], a[2], a[3]))
		}},
		&command{name: "zscore", arity: 3, reply: replyScore, run: func(tx *Tx, a []string) (any, error) {
			return zScoreReply(tx.ZScore(a[1], a[2]))
		}},
		&command{name: "zmscore", arity: -3, reply: replyScores, run: cmdZMScore},
		&command{name: "zrank", arity: -3, reply: replyRank, run: cmdZRank(false)},
		&command{name: "zrevrank", arity: -3, reply: replyRank, run: cmdZRank(true)},
		&command{name: "zrange", arity: -4, reply: replyRange, run: cmdZRange(false, byAuto, dirAuto)},
		&command{name: "zrangestore", arity: -5, reply: replyBulk, write: true, run: cmdZRange(true, byAuto, dirAuto)},
		&command{name: "zrevrange", arity: -4, reply: replyRange, run: cmdZRange(false, byRank, dirReverse)},
		&command{name: "zrangebyscore", arity: -4, reply: replyRange, run: cmdZRange(false, byScore, dirForward)},
		&command{name: "zrevrangebyscore", arity: -4, reply: replyRange, run: cmdZRange(false, byScore, dirReverse)},
		&command{name: "zrangebylex", arity: -4, reply: replyBulk, run: cmdZRange(false, byLex, dirForward)},
		&command{name: "zrevrangebylex", arity: -4, reply: replyBulk, run: cmdZRange(false, byLex, dirReverse)},
		&command{name: "zpopmin", arity: -2, reply: replyPop, write: true, run: cmdZPop(true), pairs: cmdZPopPairs(true)},
		&command{name: "zpopmax", arity: -2, reply: replyPop, write: true, run: cmdZPop(false), pairs: cmdZPopPairs(false)},
		&command{name: "zmpop", arity: -4, reply: replyMPop, write: true, run: cmdZMPop},
		&command{name: "zremrangebyrank", arity: 4, reply: replyBulk, write: true, run: cmdZRemRangeByRank},
		&command{name: "zremrangebyscore", arity: 4, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.ZRemRangeByScore(a[1], a[2], a[3]))
		}},
		&command{name: "zremrangebylex", arity: 4, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.ZRemRangeByLex(a[1], a[2], a[3]))
		}},
		&command{name: "zrandmember", arity: -2, reply: replyRange, run: cmdZRandMember},
		&command{name: "zscan", arity: -3, reply: replyBulk, run: cmdZScan},
		&command{name: "zunion", arity: -3, reply: replyAlgebra, run: cmdZAlgebra("zunion", opUnion, false, false)},
		&command{name: "zinter", arity: -3, reply: replyAlgebra, run: cmdZAlgebra("zinter", opInter, false, false)},
		&command{name: "zdiff", arity: -3, reply: replyAlgebra, run: cmdZAlgebra("zdiff", opDiff, false, false)},
		&command{name: "zunionstore", arity: -4, reply: replyBulk, write: true, run: cmdZAlgebra("zunionstore", opUnion, true, false)},
		&command{name: "zinterstore", arity: -4, reply: replyBulk, write: true, run: cmdZAlgebra("zinterstore", opInter, true, false)},
		&command{name: "zdiffstore", arity: -4, reply: replyBulk, write: true, run: cmdZAlgebra("zdiffstore", opDiff, true, false)},
		&command{name: "zintercard", arity: -3, reply: replyBulk, run: cmdZAlgebra("zintercard", opInter, false, true)},
	)
}

// zScoreReply turns a typed (score, ok, err) into a Do reply: the formatted score, or
// nil when absent.
func zScoreReply(f float64, ok bool, err error) (any, error) {
	if err != nil || !ok {
		return nil, err
	}
	return formatScore(f), nil
}

// zsReply is the reply of a range: members, or member-score pairs with withScores.
func zsReply(zs []Z, withScores bool) []any {
	if withScores {
		return entriesReply(zs)
	}
	r := make([]any, len(zs))
	for i, z := range zs {
		r[i] = z.Member
	}
	return r
}

// cmdZAdd is ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member [score member ...].
func cmdZAdd(tx *Tx, a []string) (any, error) {
	var opt zset.AddOptions
	incr := false
	i := 2
options:
	for ; i < len(a); i++ {
		switch o := a[i]; {
		case strings.EqualFold(o, "nx"):
			opt.NX = true
		case strings.EqualFold(o, "xx"):
			opt.XX = true
		case strings.EqualFold(o, "ch"):
			opt.CH = true
		case strings.EqualFold(o, "incr"):
			incr = true
		case strings.EqualFold(o, "gt"):
			opt.GT = true
		case strings.EqualFold(o, "lt"):
			opt.LT = true
		default:
			break options
		}
	}
	rest := len(a) - i
	if rest == 0 || rest%2 != 0 {
		return nil, ErrSyntax
	}
	if err := checkZAddOptions(opt, incr, rest/2); err != nil {
		return nil, err
	}
	zs := make([]Z, rest/2)
	for j := range zs {
		f, err := zset.ParseScore(a[i+2*j])
		if err != nil {
			return nil, err
		}
		zs[j] = Z{Member: a[i+2*j+1], Score: f}
	}
	n, score, ok, err := tx.zadd(a[1], opt, incr, zs)
	if err != nil {
		return nil, err
	}
	if incr {
		return zScoreReply(score, ok, nil)
	}
	return n, nil
}

// cmdZIncrBy is ZINCRBY key increment member.
func cmdZIncrBy(tx *Tx, a []string) (any, error) {
	f, err := zset.ParseScore(a[2])
	if err != nil {
		return nil, err
	}
	score, err := tx.ZIncrBy(a[1], f, a[3])
	return zScoreReply(score, err == nil, err)
}

// cmdZMScore is ZMSCORE key member [member ...].
func cmdZMScore(tx *Tx, a []string) (any, error) {
	scores, ok, err := tx.ZMScore(a[1], a[2:]...)
	if err != nil {
		return nil, err
	}
	r := make([]any, len(scores))
	for i, f := range scores {
		if ok[i] {
			r[i] = formatScore(f)
		}
	}
	return r, nil
}

// cmdZRank is ZRANK/ZREVRANK key member [WITHSCORE] (Redis 7.2).
func cmdZRank(rev bool) func(tx *Tx, a []string) (any, error) {
	return func(tx *Tx, a []string) (any, error) {
		if len(a) > 4 {
			return nil, errArity(strings.ToLower(a[0]))
		}
		withScore := len(a) == 4
		if withScore && !strings.EqualFold(a[3], "withscore") {
			return nil, ErrSyntax
		}
		r, f, ok, err := tx.zrank(a[1], a[2], rev)
		switch {
		case err != nil || !ok:
			return nil, err
		case withScore:
			return []any{r, formatScore(f)}, nil
		}
		return r, nil
	}
}

// cmdZRange is ZRANGE, ZRANGESTORE, ZREVRANGE and Z[REV]RANGEBY{SCORE,LEX}: kind
// and dir are fixed by the command or left to the options (byAuto, dirAuto).
func cmdZRange(store bool, kind rangeKind, dir rangeDir) func(tx *Tx, a []string) (any, error) {
	return func(tx *Tx, a []string) (any, error) {
		src := 1
		if store {
			src = 2
		}
		sp, err := parseRangeSpec(a[src+1:], store, kind, dir)
		if err != nil {
			return nil, err
		}
		if store {
			return intReply(tx.zrangeStore(a[1], a[2], &sp))
		}
		zs, err := tx.zrange(a[src], &sp)
		if err != nil {
			return nil, err
		}
		return zsReply(zs, sp.withScores), nil
	}
}

// cmdZPop is ZPOPMIN/ZPOPMAX key [count].
func cmdZPop(min bool) func(tx *Tx, a []string) (any, error) {
	return func(tx *Tx, a []string) (any, error) {
		count, err := zpopArgs(a)
		if err != nil {
			return nil, err
		}
		zs, err := tx.zpop(a[1], min, count)
		if err != nil {
			return nil, err
		}
		return entriesReply(zs), nil
	}
}

// cmdZPopPairs is ZPOPMIN/ZPOPMAX key [count] writing its reply to a PairWriter.
func cmdZPopPairs(min bool) func(tx *Tx, a []string, w serverapi.PairWriter) error {
	return func(tx *Tx, a []string, w serverapi.PairWriter) error {
		count, err := zpopArgs(a)
		if err != nil {
			return err
		}
		return tx.zpopTo(a[1], min, count, w)
	}
}

// zpopArgs parses ZPOPMIN's words after the key: the count, or -1 without one.
func zpopArgs(a []string) (int64, error) {
	if len(a) > 3 {
		return 0, ErrSyntax
	}
	if len(a) < 3 {
		return -1, nil
	}
	n, err := parseInt(a[2])
	if err != nil || n < 0 {
		return 0, ErrNotPositive
	}
	return n, nil
}

// cmdZMPop is ZMPOP numkeys key [key ...] MIN|MAX [COUNT count].
func cmdZMPop(tx *Tx, a []string) (any, error) { return tx.mpopOnce(popZSet, a) }

// cmdZRemRangeByRank is ZREMRANGEBYRANK key start stop.
func cmdZRemRangeByRank(tx *Tx, a []string) (any, error) {
	start, stop, err := parseStartStop(a)
	if err != nil {
		return nil, err
	}
	return intReply(tx.ZRemRangeByRank(a[1], start, stop))
}

// cmdZRandMember is ZRANDMEMBER key [count [WITHSCORES]].
func cmdZRandMember(tx *Tx, a []string) (any, error) {
	if len(a) == 2 {
		s, err := tx.zsetRead(a[1])
		if s == nil || err != nil {
			return nil, err
		}
		return s.RandMember(nil, 1)[0].Member, nil
	}
	n, err := parseInt(a[2])
	if err != nil {
		return nil, err
	}
	if n == math.MinInt64 {
		return nil, ErrRandCountRange
	}
	if len(a) > 4 || (len(a) == 4 && !strings.EqualFold(a[3], "withscores")) {
		return nil, ErrSyntax
	}
	withScores := len(a) == 4
	zs, err := tx.zrandMember(a[1], n, withScores)
	if err != nil {
		return nil, err
	}
	return zsReply(zs, withScores), nil
}

// cmdZScan is ZSCAN key cursor [MATCH pattern] [COUNT count].
func cmdZScan(tx *Tx, a []string) (any, error) {
	return cmdScanKey(a, func(key string) (scanStep, error) {
		s, err := tx.zsetRead(key)
		if s == nil || err != nil {
			return nil, err
		}
		return func(cursor uint64, match string, count int64) ([]any, uint64) {
			zs, next := zscan(s, cursor, match, count)
			return entriesReply(zs), next
		}, nil
	})
}

// scanStep is one step of ZSCAN, HSCAN or SSCAN over a value: its elements in the
// reply's form, and the next cursor.
type scanStep func(cursor uint64, match string, count int64) ([]any, uint64)

// cmdScanKey is the Do form of the SCAN commands of one key: key cursor [MATCH
// pattern] [COUNT count]. As in Redis, the cursor is parsed, then the key looked up
// (open returns nil for a missing key, which replies an empty page whatever the
// options), then the options.
func cmdScanKey(a []string, open func(key string) (scanStep, error)) (any, error) {
	cursor, err := parseCursor(a[2])
	if err != nil {
		return nil, err
	}
	step, err := open(a[1])
	if err != nil {
		return nil, err
	}
	if step == nil {
		return []any{"0", []any{}}, nil
	}
	match, count, _, err := parseScanOptions(a[3:], false)
	if err != nil {
		return nil, err
	}
	items, next := step(cursor, match, count)
	return []any{strconv.FormatUint(next, 10), items}, nil
}

// cmdZAlgebra is ZUNION, ZINTER, ZDIFF (numkeys key... [WEIGHTS w...] [AGGREGATE
// SUM|MIN|MAX] [WITHSCORES]), their STORE forms (destination first, no WITHSCORES)
// and ZINTERCARD (numkeys key... [LIMIT limit]).
func cmdZAlgebra(name string, op setOp, store, card bool) func(tx *Tx, a []string) (any, error) {
	ni := 1
	if store {
		ni = 2
	}
	return func(tx *Tx, a []string) (any, error) {
		al, err := tx.parseAlgebra(name, op, store, card, a[ni:])
		if err != nil {
			return nil, err
		}
		switch {
		case card:
			return int64(zset.InterCard(al.sets, clampInt(al.limit))), nil
		case store:
			return tx.storeSet(name, a[1], al.combine(op)), nil
		}
		return zsReply(zEntries(al.combine(op)), al.withScores), nil
	}
}

// algebra is a parsed ZUNION, ZINTER, ZDIFF, STORE form or ZINTERCARD.
type algebra struct {
	sets       []*zset.Set // nil for a missing key
	weights    []float64   // nil: all 1
	agg        zset.Aggregate
	withScores bool
	limit      int64 // ZINTERCARD's LIMIT, 0 for none
}

// combine computes op over al's sets.
func (al *algebra) combine(op setOp) *zset.Set {
	return zCombine(op, al.sets, al.weights, al.agg)
}

// parseAlgebra parses the words after the command name (and destination) of an
// algebra command, numkeys first; store and card select the STORE forms' and
// ZINTERCARD's options. As in Redis, the keys' types are checked before the options
// are parsed. It is the one parser of these commands: the typed methods pass their
// arguments as words ([ZStore.words]).
func (tx *Tx) parseAlgebra(name string, op setOp, store, card bool, a []string) (algebra, error) {
	var al algebra
	n, err := parseInt(a[0])
	if err != nil {
		return al, err
	}
	if n < 1 {
		return al, errNoInputKeys(name)
	}
	if n > int64(len(a)-1) {
		return al, ErrSyntax
	}
	k := int(n)
	if al.sets, err = tx.zsets(name, a[1:1+k]); err != nil {
		return al, err
	}
	al.agg = zset.Sum
	for j := 1 + k; j < len(a); {
		remaining := len(a) - j
		switch {
		case op != opDiff && !card && remaining >= k+1 && strings.EqualFold(a[j], "weights"):
			j++
			al.weights = make([]float64, k)
			for i := range al.weights {
				f, err := zset.ParseScore(a[j])
				if err != nil {
					return al, ErrWeightNotFloat
				}
				al.weights[i] = f
				j++
			}
		case op != opDiff && !card && remaining >= 2 && strings.EqualFold(a[j], "aggregate"):
			if a[j+1] == "" {
				return al, ErrSyntax
			}
			if al.agg, err = parseAggregate(a[j+1]); err != nil {
				return al, err
			}
			j += 2
		case !store && !card && strings.EqualFold(a[j], "withscores"):
			al.withScores = true
			j++
		case card && remaining >= 2 && strings.EqualFold(a[j], "limit"):
			l, err := parseInt(a[j+1])
			if err != nil || l < 0 {
				return al, ErrLimitNegative
			}
			al.limit = l
			j += 2
		default:
			return al, ErrSyntax
		}
	}
	return al, nil
}
