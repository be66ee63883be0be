package zlite

import (
	"strconv"
	"strings"

	"github.com/zlite/zlite/zset"
)

// ZRANGE and its older forms (ZREVRANGE, Z[REV]RANGEBY{SCORE,LEX}) and ZRANGESTORE:
// one range parser (rangeSpec) for all of them. The Do forms are in zset_cmd.go.

// rangeKind is what a ZRANGE selects by.
type rangeKind uint8

const (
	byAuto rangeKind = iota // not given yet (ZRANGE, ZRANGESTORE)
	byRank
	byScore
	byLex
)

// rangeDir is ZRANGE's direction.
type rangeDir uint8

const (
	dirAuto rangeDir = iota // not given yet (ZRANGE, ZRANGESTORE)
	dirForward
	dirReverse
)

// rangeSpec is a parsed ZRANGE: what to select, in which order, with LIMIT.
type rangeSpec struct {
	kind        rangeKind
	rev         bool
	withScores  bool
	start, stop int64
	smin, smax  zset.ScoreBound
	lmin, lmax  zset.LexBound
	// offset and count are LIMIT's; count -1 (the default) means all.
	offset, count int64
}

// parseRangeSpec parses ZRANGE's "min max [BYSCORE|BYLEX] [REV] [WITHSCORES] [LIMIT
// offset count]" (a[0] is min) exactly as Redis's zrangeGenericCommand: options in
// any order, then conflicts, then the bounds. kind and dir are fixed by the
// command (ZRANGEBYSCORE, ZREVRANGE...) or byAuto/dirAuto; store forbids WITHSCORES.
func parseRangeSpec(a []string, store bool, kind rangeKind, dir rangeDir) (rangeSpec, error) {
	sp := rangeSpec{count: -1}
	for j := 2; j < len(a); j++ {
		left := len(a) - j - 1
		switch {
		case !store && strings.EqualFold(a[j], "withscores"):
			sp.withScores = true
		case strings.EqualFold(a[j], "limit") && left >= 2:
			var err error
			if sp.offset, err = parseInt(a[j+1]); err != nil {
				return sp, err
			}
			if sp.count, err = parseInt(a[j+2]); err != nil {
				return sp, err
			}
			j += 2
		case dir == dirAuto && strings.EqualFold(a[j], "rev"):
			dir = dirReverse
		case kind == byAuto && strings.EqualFold(a[j], "bylex"):
			kind = byLex
		case kind == byAuto && strings.EqualFold(a[j], "byscore"):
			kind = byScore
		default:
			return sp, ErrSyntax
		}
	}
	if kind == byAuto {
		kind = byRank
	}
	sp.kind, sp.rev = kind, dir == dirReverse
	// Redis tells LIMIT apart by its count: "LIMIT 5 -1" is as if absent.
	if sp.count != -1 && kind == byRank {
		return sp, ErrRangeLimit
	}
	if sp.withScores && kind == byLex {
		return sp, ErrRangeWithScoresByLex
	}
	min, max := a[0], a[1]
	if sp.rev && kind != byRank {
		min, max = max, min
	}
	var err error
	switch kind {
	case byRank:
		if sp.start, err = parseInt(min); err == nil {
			sp.stop, err = parseInt(max)
		}
	case byScore:
		sp.smin, sp.smax, err = parseScoreRange(min, max)
	case byLex:
		sp.lmin, sp.lmax, err = parseLexRange(min, max)
	}
	return sp, err
}

// run selects sp's entries from s.
func (sp *rangeSpec) run(s *zset.Set) []Z {
	off, cnt := clampInt(sp.offset), clampInt(sp.count)
	switch {
	case sp.kind == byRank && sp.rev:
		return s.RevRange(clampInt(sp.start), clampInt(sp.stop))
	case sp.kind == byRank:
		return s.Range(clampInt(sp.start), clampInt(sp.stop))
	case sp.kind == byScore && sp.rev:
		return s.RevRangeByScore(sp.smax, sp.smin, off, cnt)
	case sp.kind == byScore:
		return s.RangeByScore(sp.smin, sp.smax, off, cnt)
	case sp.rev:
		return s.RevRangeByLex(sp.lmax, sp.lmin, off, cnt)
	}
	return s.RangeByLex(sp.lmin, sp.lmax, off, cnt)
}

// zrange runs a parsed range on key: empty for a missing key.
func (tx *Tx) zrange(key string, sp *rangeSpec) ([]Z, error) {
	s, err := tx.zsetRead(key)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return []Z{}, nil
	}
	return zOrEmpty(sp.run(s)), nil
}

// zrangeStore runs a parsed range on src and stores the result at dst, replacing any
// value there, or deleting dst when the result is empty.
func (tx *Tx) zrangeStore(dst, src string, sp *rangeSpec) (int64, error) {
	if err := tx.writeErr(); err != nil {
		return 0, err
	}
	zs, err := tx.zrange(src, sp)
	if err != nil {
		return 0, err
	}
	return tx.storeEntries(dst, zs), nil
}

// storeEntries stores zs (distinct members) as the sorted set at dst; see store.
func (tx *Tx) storeEntries(dst string, zs []Z) int64 {
	s := zset.NewWithLimits(tx.db.limits.Load().ZSet)
	if _, err := s.Add(zset.AddOptions{}, zs...); err != nil {
		// Entries read from a set never hold a NaN score.
		panic(err)
	}
	tx.store("zrangestore", EventsZSet, dst, s)
	return int64(s.Len())
}

// words turns z into ZRANGE's words after the key, as go-redis sends them.
func (z *ZRangeArgs) words() []string {
	a := []string{zArg(z.Start), zArg(z.Stop)}
	if z.ByScore {
		a = append(a, "BYSCORE")
	} else if z.ByLex {
		a = append(a, "BYLEX")
	}
	if z.Rev {
		a = append(a, "REV")
	}
	if z.Offset != 0 || z.Count != 0 {
		a = append(a, "LIMIT", strconv.FormatInt(z.Offset, 10), strconv.FormatInt(z.Count, 10))
	}
	return a
}

// zrangeArgs runs ZRANGE with z's arguments.
func (tx *Tx) zrangeArgs(z *ZRangeArgs) ([]Z, error) {
	sp, err := parseRangeSpec(z.words(), false, byAuto, dirAuto)
	if err != nil {
		return nil, err
	}
	return tx.zrange(z.Key, &sp)
}

// ZRange is ZRANGE key start stop: the members at ranks start..stop inclusive, in
// ascending order; negative ranks count from the end (-1 is the last) and ranks out
// of range are clamped. Empty when the key does not exist. The complexity is
// O(log n + k) for k members returned.
//
//zlite:command zrange key
func (tx *Tx) ZRange(key string, start, stop int64) ([]string, error) {
	return tx.zrangeMembers(key, start, stop, (*zset.Set).RangeMembers)
}

// zrangeMembers runs ZRANGE or ZREVRANGE (sel) without WITHSCORES on key: the members
// alone, empty for a missing key.
func (tx *Tx) zrangeMembers(key string, start, stop int64, sel func(*zset.Set, int, int) []string) ([]string, error) {
	s, err := tx.zsetRead(key)
	if err != nil {
		return nil, err
	}
	var ms []string
	if s != nil {
		ms = sel(s, clampInt(start), clampInt(stop))
	}
	if ms == nil {
		return []string{}, nil
	}
	return ms, nil
}

// ZRangeWithScores is ZRANGE ... WITHSCORES: [Tx.ZRange] with the scores. The
// complexity is O(log n + k).
//
//zlite:command zrange key
func (tx *Tx) ZRangeWithScores(key string, start, stop int64) ([]Z, error) {
	return tx.zrange(key, &rangeSpec{kind: byRank, start: start, stop: stop, count: -1})
}

// ZRevRange is ZREVRANGE: [Tx.ZRange] over the descending order (rank 0 is the
// highest score). The complexity is O(log n + k).
//
//zlite:command zrevrange key
func (tx *Tx) ZRevRange(key string, start, stop int64) ([]string, error) {
	return tx.zrangeMembers(key, start, stop, (*zset.Set).RevRangeMembers)
}

// ZRevRangeWithScores is ZREVRANGE ... WITHSCORES: [Tx.ZRevRange] with the scores.
// The complexity is O(log n + k).
//
//zlite:command zrevrange key
func (tx *Tx) ZRevRangeWithScores(key string, start, stop int64) ([]Z, error) {
	return tx.zrange(key, &rangeSpec{kind: byRank, rev: true, start: start, stop: stop, count: -1})
}

// ZRangeArgs is ZRANGE with all its options (BYSCORE, BYLEX, REV, LIMIT), errors and
// all, exactly as Redis parses them; see [ZRangeArgs]. The complexity is
// O(log n + k).
//
//zlite:command zrange z.Key
func (tx *Tx) ZRangeArgs(z ZRangeArgs) ([]string, error) {
	zs, err := tx.zrangeArgs(&z)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}

// ZRangeArgsWithScores is ZRANGE ... WITHSCORES with all options (not BYLEX:
// [ErrRangeWithScoresByLex]). The complexity is O(log n + k).
//
//zlite:command zrange z.Key
func (tx *Tx) ZRangeArgsWithScores(z ZRangeArgs) ([]Z, error) {
	a := append(z.words(), "WITHSCORES")
	sp, err := parseRangeSpec(a, false, byAuto, dirAuto)
	if err != nil {
		return nil, err
	}
	return tx.zrange(z.Key, &sp)
}

// ZRangeStore is ZRANGESTORE: it stores the range z selects from z.Key, with scores,
// as the sorted set dst (replacing any value; deleting dst when the range is empty)
// and returns its size. The complexity is O(log n + k log k).
//
//zlite:command zrangestore dst z.Key
func (tx *Tx) ZRangeStore(dst string, z ZRangeArgs) (int64, error) {
	sp, err := parseRangeSpec(z.words(), true, byAuto, dirAuto)
	if err != nil {
		return 0, err
	}
	return tx.zrangeStore(dst, z.Key, &sp)
}

// zrangeBy runs ZRANGEBYSCORE, ZRANGEBYLEX and their reverse forms for the typed API.
func (tx *Tx) zrangeBy(key string, opt *ZRangeBy, kind rangeKind, rev bool) ([]Z, error) {
	sp := rangeSpec{kind: kind, rev: rev, count: -1}
	if opt.Offset != 0 || opt.Count != 0 {
		sp.offset, sp.count = opt.Offset, opt.Count
	}
	var err error
	if kind == byScore {
		sp.smin, sp.smax, err = parseScoreRange(opt.Min, opt.Max)
	} else {
		sp.lmin, sp.lmax, err = parseLexRange(opt.Min, opt.Max)
	}
	if err != nil {
		return nil, err
	}
	return tx.zrange(key, &sp)
}

// ZRangeByScore is ZRANGEBYSCORE: the members with a score between opt.Min and
// opt.Max in ascending order, with opt's LIMIT (see [ZRangeBy]). Malformed bounds
// are zset.ErrMinMaxNotFloat. The complexity is O(log n + k): the offset is skipped
// in O(log n).
//
//zlite:command zrangebyscore key
func (tx *Tx) ZRangeByScore(key string, opt *ZRangeBy) ([]string, error) {
	zs, err := tx.zrangeBy(key, opt, byScore, false)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}

// ZRangeByScoreWithScores is ZRANGEBYSCORE ... WITHSCORES: [Tx.ZRangeByScore] with
// the scores. The complexity is O(log n + k).
//
//zlite:command zrangebyscore key
func (tx *Tx) ZRangeByScoreWithScores(key string, opt *ZRangeBy) ([]Z, error) {
	return tx.zrangeBy(key, opt, byScore, false)
}

// ZRevRangeByScore is ZREVRANGEBYSCORE: [Tx.ZRangeByScore] in descending order
// (opt.Max is still the upper bound). The complexity is O(log n + k).
//
//zlite:command zrevrangebyscore key
func (tx *Tx) ZRevRangeByScore(key string, opt *ZRangeBy) ([]string, error) {
	zs, err := tx.zrangeBy(key, opt, byScore, true)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}

// ZRevRangeByScoreWithScores is ZREVRANGEBYSCORE ... WITHSCORES: [Tx.ZRevRangeByScore]
// with the scores. The complexity is O(log n + k).
//
//zlite:command zrevrangebyscore key
func (tx *Tx) ZRevRangeByScoreWithScores(key string, opt *ZRangeBy) ([]Z, error) {
	return tx.zrangeBy(key, opt, byScore, true)
}

// ZRangeByLex is ZRANGEBYLEX: the members between the lex bounds opt.Min and opt.Max
// ("-", "+", "[a", "(b"; zset.ErrLexRange if malformed) in ascending order, with
// opt's LIMIT, for a set whose members all have the same score. O(log n + k).
//
//zlite:command zrangebylex key
func (tx *Tx) ZRangeByLex(key string, opt *ZRangeBy) ([]string, error) {
	zs, err := tx.zrangeBy(key, opt, byLex, false)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}

// ZRevRangeByLex is ZREVRANGEBYLEX: [Tx.ZRangeByLex] in descending order.
// O(log n + k).
//
//zlite:command zrevrangebylex key
func (tx *Tx) ZRevRangeByLex(key string, opt *ZRangeBy) ([]string, error) {
	zs, err := tx.zrangeBy(key, opt, byLex, true)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}
