package zlite

import (
	"strconv"

	"github.com/zlite/zlite/internal/serverapi"
	"github.com/zlite/zlite/zset"
)

// ZPOPMIN, ZPOPMAX, ZMPOP and ZREMRANGEBY{RANK,SCORE,LEX}: removing members by
// position, score or name range. The Do forms are in zset_cmd.go.

// zpop implements ZPOPMIN and ZPOPMAX; count < 0 is a single pop.
func (tx *Tx) zpop(key string, min bool, count int64) ([]Z, error) {
	s, err := tx.zsetWrite(key)
	if err != nil {
		return nil, err
	}
	if s == nil || count == 0 {
		return []Z{}, nil
	}
	if count < 0 {
		count = 1
	}
	var zs []Z
	if min {
		zs = s.PopMinN(clampInt(count))
	} else {
		zs = s.PopMaxN(clampInt(count))
	}
	tx.sh(key).touchWatches(key)
	tx.notify(EventsZSet, zpopEvent(min), key)
	tx.dropIfEmpty(key, s)
	if d := tx.log(); d != nil && len(zs) > 0 {
		d.pop(&popReq{kind: popZSet, left: min, count: len(zs), zs: zs}, key)
	}
	return zs, nil
}

// zpopTo is zpop writing the popped entries to w as it removes them, without
// copying their members (see [zset.Set.PopMinFunc]); a keyspace that logs its
// writes takes zpop's path, as the log needs the entries.
func (tx *Tx) zpopTo(key string, lowest bool, count int64, w serverapi.PairWriter) error {
	if tx.log() != nil {
		zs, err := tx.zpop(key, lowest, count)
		if err != nil {
			return err
		}
		w.Pairs(len(zs))
		for _, z := range zs {
			w.Pair(z.Member, z.Score)
		}
		return nil
	}
	s, err := tx.zsetWrite(key)
	if err != nil {
		return err
	}
	if s == nil || count == 0 {
		w.Pairs(0)
		return nil
	}
	k := 1
	if count > 0 {
		k = clampInt(count)
	}
	k = min(k, s.Len())
	w.Pairs(k)
	if lowest {
		s.PopMinFunc(k, w.Pair)
	} else {
		s.PopMaxFunc(k, w.Pair)
	}
	tx.sh(key).touchWatches(key)
	tx.notify(EventsZSet, zpopEvent(lowest), key)
	tx.dropIfEmpty(key, s)
	return nil
}

// zpopCount checks ZPOPMIN's optional count.
func zpopCount(count []int64) (int64, error) {
	switch {
	case len(count) > 1:
		return 0, ErrSyntax
	case len(count) == 0:
		return -1, nil
	case count[0] < 0:
		return 0, ErrNotPositive
	}
	return count[0], nil
}

// ZPopMin is ZPOPMIN key [count]: it removes and returns up to count members (one
// without count) with the lowest scores, lowest first, deleting the key once it is
// empty. Empty for a missing key or count 0; [ErrNotPositive] for a negative count.
// The complexity is O(log n + k).
//
//zlite:command zpopmin key
func (tx *Tx) ZPopMin(key string, count ...int64) ([]Z, error) {
	n, err := zpopCount(count)
	if err != nil {
		return nil, err
	}
	return tx.zpop(key, true, n)
}

// ZPopMax is ZPOPMAX key [count]: [Tx.ZPopMin] taking the highest scores, highest
// first. The complexity is O(log n + k).
//
//zlite:command zpopmax key
func (tx *Tx) ZPopMax(key string, count ...int64) ([]Z, error) {
	n, err := zpopCount(count)
	if err != nil {
		return nil, err
	}
	return tx.zpop(key, false, n)
}

// ZMPop is ZMPOP: it pops up to count members from the first non-empty sorted set
// among keys, the lowest scores when order is "MIN" or the highest when "MAX" (any
// case, else [ErrSyntax]), and returns that key and the members; zs is nil when every
// key is missing. A key of the wrong type met first is [ErrWrongType]. The
// complexity is O(log n + count) plus one lookup per key tried.
//
//zlite:command zmpop keys...
func (tx *Tx) ZMPop(order string, count int64, keys ...string) (key string, zs []Z, err error) {
	r, err := typedMPop(popZSet, order, count, keys)
	if err == nil {
		err = tx.once(&r, keys)
	}
	return r.key, r.zs, err
}

// zremRange removes what del selects from the set at key.
func (tx *Tx) zremRange(key string, del func(s *zset.Set) int, cmd string, lo, hi string) (int64, error) {
	s, err := tx.zsetWrite(key)
	if s == nil || err != nil {
		return 0, err
	}
	n := del(s)
	if n > 0 {
		tx.sh(key).touchWatches(key)
		tx.notify(EventsZSet, cmd, key)
	}
	tx.dropIfEmpty(key, s)
	if d := tx.log(); d != nil && n > 0 {
		d.cmd(nil, cmd, key, lo, hi)
	}
	return int64(n), nil
}

// ZRemRangeByRank is ZREMRANGEBYRANK: it removes the members at ranks start..stop
// (as [Tx.ZRange]) and returns how many, deleting the key once it is empty. The
// complexity is O(log n + k).
//
//zlite:command zremrangebyrank key
func (tx *Tx) ZRemRangeByRank(key string, start, stop int64) (int64, error) {
	return tx.zremRange(key, func(s *zset.Set) int { return s.RemRangeByRank(clampInt(start), clampInt(stop)) },
		"zremrangebyrank", strconv.FormatInt(start, 10), strconv.FormatInt(stop, 10))
}

// ZRemRangeByScore is ZREMRANGEBYSCORE: it removes the members with a score between
// min and max (as [Tx.ZCount]) and returns how many. O(log n + k).
//
//zlite:command zremrangebyscore key
func (tx *Tx) ZRemRangeByScore(key, min, max string) (int64, error) {
	lo, hi, err := parseScoreRange(min, max)
	if err != nil {
		return 0, err
	}
	return tx.zremRange(key, func(s *zset.Set) int { return s.RemRangeByScore(lo, hi) }, "zremrangebyscore", min, max)
}

// ZRemRangeByLex is ZREMRANGEBYLEX: it removes the members between the lex bounds
// min and max (as [Tx.ZLexCount]) and returns how many. O(log n + k).
//
//zlite:command zremrangebylex key
func (tx *Tx) ZRemRangeByLex(key, min, max string) (int64, error) {
	lo, hi, err := parseLexRange(min, max)
	if err != nil {
		return 0, err
	}
	return tx.zremRange(key, func(s *zset.Set) int { return s.RemRangeByLex(lo, hi) }, "zremrangebylex", min, max)
}
