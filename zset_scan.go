package zlite

import (
	"math"

	"github.com/zlite/zlite/internal/glob"

	"github.com/zlite/zlite/zset"
)

// ZRANDMEMBER and ZSCAN: sampling and incremental iteration. The Do forms are in
// zset_cmd.go.

// zrandMember implements ZRANDMEMBER key count [WITHSCORES] after Redis's checks. A
// count at least the set's size gives the whole set in Redis's order for that case
// (descending); a negative count is bounded by the DB's maximum reply size, since its
// reply holds -count elements however small the set.
func (tx *Tx) zrandMember(key string, count int64, withScores bool) ([]Z, error) {
	if count == math.MinInt64 {
		return nil, ErrRandCountRange
	}
	if withScores && (count < -math.MaxInt64/2 || count > math.MaxInt64/2) {
		return nil, ErrOutOfRange
	}
	s, err := tx.zsetRead(key)
	if err != nil {
		return nil, err
	}
	if s == nil || count == 0 {
		return []Z{}, nil
	}
	if max := tx.db.cfg.maxReply; count < -int64(max) {
		return nil, errReplyTooLarge("zrandmember", max)
	}
	if count >= int64(s.Len()) {
		return zEntriesDesc(s), nil
	}
	return s.RandMember(nil, int(count)), nil
}

// ZRandMember is ZRANDMEMBER key count: with count > 0, count distinct random
// members in random order, or the whole set in descending order (as Redis replies)
// when count is at least its size; with count < 0, -count members picked
// independently (repeats possible), an error matching [ErrReplyTooLarge] beyond
// [WithMaxReplyElements]. Empty for a missing key or count 0. Each pick costs
// O(log n); the whole set O(n).
//
//zlite:command zrandmember key
func (tx *Tx) ZRandMember(key string, count int) ([]string, error) {
	zs, err := tx.zrandMember(key, int64(count), false)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}

// ZRandMemberWithScores is ZRANDMEMBER key count WITHSCORES: [Tx.ZRandMember] with
// the scores. A |count| above MaxInt64/2 is [ErrOutOfRange], as in Redis.
//
//zlite:command zrandmember key
func (tx *Tx) ZRandMemberWithScores(key string, count int) ([]Z, error) {
	return tx.zrandMember(key, int64(count), true)
}

// zscanSmall is the size up to which ZSCAN returns the whole set in one call with
// cursor 0, as Redis does for its listpack encoding (zset-max-listpack-entries).
const zscanSmall = 128

// scoreCursor maps a score to a ZSCAN cursor, preserving order; no score maps to 0.
func scoreCursor(f float64) uint64 {
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// cursorScore inverts scoreCursor.
func cursorScore(c uint64) float64 {
	if c>>63 != 0 {
		return math.Float64frombits(c &^ (1 << 63))
	}
	return math.Float64frombits(^c)
}

// ZScan is ZSCAN: one step of an iteration over the sorted set at key, starting at
// cursor 0 and ending when the returned cursor is 0. match filters members with a
// glob pattern as SCAN's ("" matches all); count is the work per call (≤ 0: 10).
//
// A set of up to 128 members is returned whole, with the cursor 0, whatever the
// cursor given, as Redis returns its small (listpack) sets. For larger sets the cursor encodes a score: each call
// returns about count members in ascending order from that score on, never splitting
// members that share a score, so every member present with an unchanged score for
// the whole iteration is returned exactly once. Members added or removed meanwhile
// may or may not be; a member whose score changes during the iteration may be missed
// or returned twice (Redis's hash-order cursor would return it). The complexity is
// O(log n + count) per call, plus the members sharing the last score.
//
//zlite:command zscan key
func (tx *Tx) ZScan(key string, cursor uint64, match string, count int64) ([]Z, uint64, error) {
	s, err := tx.zsetRead(key)
	if s == nil || err != nil {
		return []Z{}, 0, err
	}
	out, next := zscan(s, cursor, match, count)
	return out, next, nil
}

// zscan is one ZSCAN step over s (see [Tx.ZScan]).
func zscan(s *zset.Set, cursor uint64, match string, count int64) ([]Z, uint64) {
	if match == "*" {
		match = ""
	}
	if count <= 0 {
		count = 10
	}
	out := []Z{}
	add := func(m string, f float64) {
		if match == "" || glob.Match(match, m) {
			out = append(out, Z{Member: m, Score: f})
		}
	}
	if s.Len() <= zscanSmall {
		for m, f := range s.All() {
			add(m, f)
		}
		return out, 0
	}
	from := math.Inf(-1)
	if cursor != 0 {
		from = cursorScore(cursor)
	}
	n, last := int64(0), 0.0
	for m, f := range s.ScoreRange(zset.ScoreBound{Value: from}, zset.ScoreBound{Value: math.Inf(1)}) {
		if n >= count && f != last {
			return out, scoreCursor(f)
		}
		n++
		last = f
		add(m, f)
	}
	return out, 0
}
