package zlite

import (
	"github.com/zlite/zlite/zset"
)

// ZCARD, ZCOUNT, ZLEXCOUNT, ZSCORE, ZMSCORE, ZRANK and ZREVRANK: reads of one set
// that return numbers. The Do forms are in zset_cmd.go.

// ZCard is ZCARD: the number of members of the sorted set at key, 0 if it does not
// exist. O(1).
//
//zlite:command zcard key
func (tx *Tx) ZCard(key string) (int64, error) {
	s, err := tx.zsetRead(key)
	if s == nil || err != nil {
		return 0, err
	}
	return int64(s.Len()), nil
}

// parseScoreRange parses a score range's bounds (zset.ErrMinMaxNotFloat).
func parseScoreRange(min, max string) (lo, hi zset.ScoreBound, err error) {
	if lo, err = zset.ParseScoreBound(min); err != nil {
		return
	}
	hi, err = zset.ParseScoreBound(max)
	return
}

// parseLexRange parses a lex range's bounds (zset.ErrLexRange).
func parseLexRange(min, max string) (lo, hi zset.LexBound, err error) {
	if lo, err = zset.ParseLexBound(min); err != nil {
		return
	}
	hi, err = zset.ParseLexBound(max)
	return
}

// ZCount is ZCOUNT: the number of members with a score between min and max, Redis
// bounds such as "-inf", "(1" and "+inf" (zset.ErrMinMaxNotFloat if malformed). The
// complexity is O(log n).
//
//zlite:command zcount key
func (tx *Tx) ZCount(key, min, max string) (int64, error) {
	lo, hi, err := parseScoreRange(min, max)
	if err != nil {
		return 0, err
	}
	s, err := tx.zsetRead(key)
	if s == nil || err != nil {
		return 0, err
	}
	return int64(s.Count(lo, hi)), nil
}

// ZLexCount is ZLEXCOUNT: the number of members between the lex bounds min and max
// ("-", "+", "[a", "(b"; zset.ErrLexRange if malformed), for a set whose members all
// have the same score. The complexity is O(log n).
//
//zlite:command zlexcount key
func (tx *Tx) ZLexCount(key, min, max string) (int64, error) {
	lo, hi, err := parseLexRange(min, max)
	if err != nil {
		return 0, err
	}
	s, err := tx.zsetRead(key)
	if s == nil || err != nil {
		return 0, err
	}
	return int64(s.LexCount(lo, hi)), nil
}

// ZScore is ZSCORE: member's score, or (0, false) when the member or the key does
// not exist. O(1).
//
//zlite:command zscore key
func (tx *Tx) ZScore(key, member string) (float64, bool, error) {
	s, err := tx.zsetRead(key)
	if s == nil || err != nil {
		return 0, false, err
	}
	f, ok := s.Score(member)
	return f, ok, nil
}

// ZMScore is ZMSCORE: the scores of members, with ok[i] false (and scores[i] 0) for
// a member that does not exist. A missing key is an empty set. O(1) per member.
//
//zlite:command zmscore key
func (tx *Tx) ZMScore(key string, members ...string) (scores []float64, ok []bool, err error) {
	if len(members) == 0 {
		return nil, nil, errArity("zmscore")
	}
	s, err := tx.zsetRead(key)
	if err != nil {
		return nil, nil, err
	}
	if s == nil {
		return make([]float64, len(members)), make([]bool, len(members)), nil
	}
	scores, ok = s.MScore(members...)
	return scores, ok, nil
}

// zrank implements ZRANK and ZREVRANK.
func (tx *Tx) zrank(key, member string, rev bool) (int64, float64, bool, error) {
	s, err := tx.zsetRead(key)
	if s == nil || err != nil {
		return 0, 0, false, err
	}
	r, f, ok := s.RankScore(member)
	if !ok {
		return 0, 0, false, nil
	}
	if rev {
		r = s.Len() - 1 - r
	}
	return int64(r), f, true, nil
}

// ZRank is ZRANK: member's 0-based rank in ascending order, or (0, false) when the
// member or the key does not exist. The complexity is O(log n).
//
//zlite:command zrank key
func (tx *Tx) ZRank(key, member string) (int64, bool, error) {
	r, _, ok, err := tx.zrank(key, member, false)
	return r, ok, err
}

// ZRankWithScore is ZRANK ... WITHSCORE (Redis 7.2): the rank and the score. The
// complexity is O(log n).
//
//zlite:command zrank key
func (tx *Tx) ZRankWithScore(key, member string) (rank int64, score float64, ok bool, err error) {
	return tx.zrank(key, member, false)
}

// ZRevRank is ZREVRANK: member's 0-based rank in descending order (the highest score
// is 0), or (0, false). The complexity is O(log n).
//
//zlite:command zrevrank key
func (tx *Tx) ZRevRank(key, member string) (int64, bool, error) {
	r, _, ok, err := tx.zrank(key, member, true)
	return r, ok, err
}

// ZRevRankWithScore is ZREVRANK ... WITHSCORE (Redis 7.2): the rank and the score.
// The complexity is O(log n).
//
//zlite:command zrevrank key
func (tx *Tx) ZRevRankWithScore(key, member string) (rank int64, score float64, ok bool, err error) {
	return tx.zrank(key, member, true)
}
