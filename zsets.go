package zlite

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/zlite/zlite/zset"
)

// The sorted-set commands. Each typed method on *Tx validates its arguments in
// Redis's order (syntax and option errors, then numbers, then the key's type) so
// that bad input changes nothing; the *DB method of the same name runs it under the
// keyspace lock. cmd_zset.go parses the same commands for Do.

// Errors of the sorted-set commands beyond those of the zset package. Each one's
// Error() is Redis's reply text.
var (
	// ErrIncrPair is ZADD's reply to INCR with more than one score-member pair.
	ErrIncrPair = errors.New("ERR INCR option supports a single increment-element pair")
	// ErrRangeLimit is ZRANGE's reply to LIMIT without BYSCORE or BYLEX.
	ErrRangeLimit = errors.New("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
	// ErrRangeWithScoresByLex is ZRANGE's reply to WITHSCORES with BYLEX.
	ErrRangeWithScoresByLex = errors.New("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
	// ErrWeightNotFloat is ZUNION's and ZINTER's reply to a malformed weight.
	ErrWeightNotFloat = errors.New("ERR weight value is not a float")
	// ErrLimitNegative is ZINTERCARD's reply to a negative or malformed LIMIT.
	ErrLimitNegative = errors.New("ERR LIMIT can't be negative")
	// ErrOutOfRange is ZRANDMEMBER's reply to a count too large to double (WITHSCORES).
	ErrOutOfRange = errors.New("ERR value is out of range")
	// ErrRandCountRange is ZRANDMEMBER's reply to the count -9223372036854775808.
	ErrRandCountRange = errors.New("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
	// ErrNoInputKeys matches (with errors.Is) the reply of ZUNION, ZINTER, ZDIFF, their
	// STORE forms and ZINTERCARD to numkeys < 1, whose text names the command:
	// "ERR at least 1 input key is needed for 'zunion' command".
	ErrNoInputKeys = errors.New("ERR at least 1 input key is needed")
)

// noInputKeysError is ErrNoInputKeys with the command's name in its text.
type noInputKeysError string

// Error returns Redis's text, naming the command.
func (e noInputKeysError) Error() string {
	return "ERR at least 1 input key is needed for '" + string(e) + "' command"
}

// Is reports whether target is ErrNoInputKeys.
func (e noInputKeysError) Is(target error) bool { return target == ErrNoInputKeys }

// ZAddArgs are ZADD's options and score-member pairs, as in go-redis. NX adds new
// members only; XX updates existing members only (and never creates the key); GT and
// LT update only when the new score is greater or less than the current one; Ch
// counts changed members as well as new ones.
type ZAddArgs struct {
	NX, XX, LT, GT, Ch bool
	Members            []Z
}

// ZRangeBy is the range of ZRANGEBYSCORE and ZRANGEBYLEX, as in go-redis: Min and
// Max are Redis's bounds ("-inf", "(1.5", "+inf" or "-", "[a", "(b", "+"). Offset
// and Count are LIMIT's; both 0 means no LIMIT, a negative Count means all from
// Offset, a negative Offset gives nothing.
type ZRangeBy struct {
	Min, Max      string
	Offset, Count int64
}

// ZRangeArgs are the arguments of ZRANGE and ZRANGESTORE, as in go-redis. Start and
// Stop are ranks (integers) or, with ByScore or ByLex, bounds as in [ZRangeBy]; they
// may be strings or Go numbers. With Rev, Start is the high end of a score or lex
// range. Offset and Count are LIMIT's (both 0: none).
type ZRangeArgs struct {
	Key         string
	Start, Stop any
	ByScore     bool
	ByLex       bool
	Rev         bool
	Offset      int64
	Count       int64
}

// ZStore are the inputs of ZUNION, ZINTER and their STORE forms, as in go-redis:
// Weights multiplies each input's scores (nil: all 1; else one per key) and
// Aggregate is "SUM" (the default when empty), "MIN" or "MAX", in any case.
type ZStore struct {
	Keys      []string
	Weights   []float64
	Aggregate string
}

// zMembers returns the members of zs, never nil.
func zMembers(zs []Z) []string {
	r := make([]string, len(zs))
	for i, z := range zs {
		r[i] = z.Member
	}
	return r
}

// zOrEmpty returns zs, or an empty non-nil slice for nil.
func zOrEmpty(zs []Z) []Z {
	if zs == nil {
		return []Z{}
	}
	return zs
}

// zArg formats a ZRangeArgs bound as go-redis sends it.
func zArg(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case int:
		return strconv.Itoa(x)
	case int8:
		return strconv.FormatInt(int64(x), 10)
	case int16:
		return strconv.FormatInt(int64(x), 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint:
		return strconv.FormatUint(uint64(x), 10)
	case uint8:
		return strconv.FormatUint(uint64(x), 10)
	case uint16:
		return strconv.FormatUint(uint64(x), 10)
	case uint32:
		return strconv.FormatUint(uint64(x), 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		if x {
			return "1"
		}
		return "0"
	case nil:
		return ""
	}
	return "\x00invalid"
}

// ---- ZADD, ZINCRBY, ZREM --------------------------------------------------------

// checkZAddOptions checks ZADD's options for n pairs in Redis's order: option
// conflicts, then INCR with several pairs.
func checkZAddOptions(opt zset.AddOptions, incr bool, n int) error {
	if opt.NX && opt.XX {
		return zset.ErrXXAndNX
	}
	if (opt.GT && opt.NX) || (opt.LT && opt.NX) || (opt.GT && opt.LT) {
		return zset.ErrGTLTNX
	}
	if incr && n > 1 {
		return ErrIncrPair
	}
	return nil
}

// validateZAdd checks ZADD's options, then the scores (NaN is not a valid float).
func validateZAdd(opt zset.AddOptions, incr bool, zs []Z) error {
	if err := checkZAddOptions(opt, incr, len(zs)); err != nil {
		return err
	}
	for i := range zs {
		if math.IsNaN(zs[i].Score) {
			return zset.ErrNotFloat
		}
	}
	return nil
}

// zadd runs a validated ZADD: it returns the ZADD count or, with incr, the new score
// and whether the update happened (ok false is Redis's nil reply).
func (tx *Tx) zadd(key string, opt zset.AddOptions, incr bool, zs []Z) (n int64, score float64, ok bool, err error) {
	s, err := tx.zsetWrite(key)
	if err != nil {
		return 0, 0, false, err
	}
	if s == nil {
		if opt.XX {
			return 0, 0, false, nil
		}
		if !incr && len(zs) == 1 {
			// One new member: hand it to a waiter without creating the set. NX, GT, LT
			// and CH all count it as added.
			if tx.handsOff() && tx.db.handZSet(key, zs[0]) {
				return 1, 0, false, nil
			}
		}
		s = tx.newZSet(key)
	}
	if incr {
		score, ok, err = s.AddIncr(opt, zs[0].Member, zs[0].Score)
	} else {
		var k int
		k, err = s.Add(opt, zs...)
		n = int64(k)
	}
	if s.Len() == 0 {
		tx.dropIfEmpty(key, s)
	} else {
		tx.signal(key)
	}
	return n, score, ok, err
}

// zaddArity returns the error Redis gives a ZADD with opts options and no pairs.
func zaddArity(opts int) error {
	if 2+opts < 4 {
		return errArity("zadd")
	}
	return ErrSyntax
}

// options returns a's flags as zset options and how many flags are set.
func (a *ZAddArgs) options() (zset.AddOptions, int) {
	o := zset.AddOptions{NX: a.NX, XX: a.XX, GT: a.GT, LT: a.LT, CH: a.Ch}
	n := 0
	for _, b := range []bool{a.NX, a.XX, a.GT, a.LT, a.Ch} {
		if b {
			n++
		}
	}
	return o, n
}

// ZAdd is ZADD: it adds members to the sorted set at key, or updates their scores,
// creating the key if needed, and returns the number of new members. Callers
// blocked on key (BZPOPMIN...) are served afterwards. A NaN score is
// zset.ErrNotFloat and changes nothing. The complexity is O(log n) per member.
func (tx *Tx) ZAdd(key string, members ...Z) (int64, error) {
	return tx.ZAddArgs(key, ZAddArgs{Members: members})
}

// ZAddNX is ZADD NX: it adds new members only. See [Tx.ZAdd]. The complexity is
// O(log n) per member.
func (tx *Tx) ZAddNX(key string, members ...Z) (int64, error) {
	return tx.ZAddArgs(key, ZAddArgs{NX: true, Members: members})
}

// ZAddXX is ZADD XX: it updates existing members only and never creates the key.
// The complexity is O(log n) per member.
func (tx *Tx) ZAddXX(key string, members ...Z) (int64, error) {
	return tx.ZAddArgs(key, ZAddArgs{XX: true, Members: members})
}

// ZAddGT is ZADD GT: it adds new members and raises existing scores only. The
// complexity is O(log n) per member.
func (tx *Tx) ZAddGT(key string, members ...Z) (int64, error) {
	return tx.ZAddArgs(key, ZAddArgs{GT: true, Members: members})
}

// ZAddLT is ZADD LT: it adds new members and lowers existing scores only. The
// complexity is O(log n) per member.
func (tx *Tx) ZAddLT(key string, members ...Z) (int64, error) {
	return tx.ZAddArgs(key, ZAddArgs{LT: true, Members: members})
}

// ZAddArgs is ZADD with options: it returns the number of new members (with Ch, new
// plus changed). Option conflicts are zset.ErrXXAndNX and zset.ErrGTLTNX; nothing
// changes on error. The complexity is O(log n) per member.
func (tx *Tx) ZAddArgs(key string, args ZAddArgs) (int64, error) {
	opt, nopts := args.options()
	if len(args.Members) == 0 {
		return 0, zaddArity(nopts)
	}
	if err := validateZAdd(opt, false, args.Members); err != nil {
		return 0, err
	}
	n, _, _, err := tx.zadd(key, opt, false, args.Members)
	return n, err
}

// ZAddArgsIncr is ZADD ... INCR: it adds the single member's score to its current
// score (a new member gets it) and returns the result; ok is false when NX, XX, GT or
// LT prevented the update (Redis's nil reply). More than one member is
// [ErrIncrPair]; a NaN sum is zset.ErrNaNResult. The complexity is O(log n).
func (tx *Tx) ZAddArgsIncr(key string, args ZAddArgs) (score float64, ok bool, err error) {
	opt, nopts := args.options()
	if len(args.Members) == 0 {
		return 0, false, zaddArity(nopts + 1)
	}
	if err := validateZAdd(opt, true, args.Members); err != nil {
		return 0, false, err
	}
	_, score, ok, err = tx.zadd(key, opt, true, args.Members)
	return score, ok, err
}

// ZIncrBy is ZINCRBY: it adds increment to member's score, adding the member (with
// score increment) if needed, and returns the new score. A NaN increment is
// zset.ErrNotFloat, a NaN result zset.ErrNaNResult. The complexity is O(log n).
func (tx *Tx) ZIncrBy(key string, increment float64, member string) (float64, error) {
	zs := []Z{{Member: member, Score: increment}}
	if err := validateZAdd(zset.AddOptions{}, true, zs); err != nil {
		return 0, err
	}
	_, score, _, err := tx.zadd(key, zset.AddOptions{}, true, zs)
	return score, err
}

// ZRem is ZREM: it removes members from the sorted set at key and returns how many
// were present, deleting the key once it is empty. The complexity is O(log n) per
// member.
func (tx *Tx) ZRem(key string, members ...string) (int64, error) {
	if len(members) == 0 {
		return 0, errArity("zrem")
	}
	s, err := tx.zsetWrite(key)
	if s == nil || err != nil {
		return 0, err
	}
	n := s.Remove(members...)
	tx.dropIfEmpty(key, s)
	return int64(n), nil
}

// ---- ZCARD, ZCOUNT, ZLEXCOUNT, ZSCORE, ZMSCORE, ZRANK -----------------------------

// ZCard is ZCARD: the number of members of the sorted set at key, 0 if it does not
// exist. O(1).
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
	var r int
	var ok bool
	if rev {
		r, ok = s.RevRank(member)
	} else {
		r, ok = s.Rank(member)
	}
	if !ok {
		return 0, 0, false, nil
	}
	f, _ := s.Score(member)
	return int64(r), f, true, nil
}

// ZRank is ZRANK: member's 0-based rank in ascending order, or (0, false) when the
// member or the key does not exist. The complexity is O(log n).
func (tx *Tx) ZRank(key, member string) (int64, bool, error) {
	r, _, ok, err := tx.zrank(key, member, false)
	return r, ok, err
}

// ZRankWithScore is ZRANK ... WITHSCORE (Redis 7.2): the rank and the score. The
// complexity is O(log n).
func (tx *Tx) ZRankWithScore(key, member string) (rank int64, score float64, ok bool, err error) {
	return tx.zrank(key, member, false)
}

// ZRevRank is ZREVRANK: member's 0-based rank in descending order (the highest score
// is 0), or (0, false). The complexity is O(log n).
func (tx *Tx) ZRevRank(key, member string) (int64, bool, error) {
	r, _, ok, err := tx.zrank(key, member, true)
	return r, ok, err
}

// ZRevRankWithScore is ZREVRANK ... WITHSCORE (Redis 7.2): the rank and the score.
// The complexity is O(log n).
func (tx *Tx) ZRevRankWithScore(key, member string) (rank int64, score float64, ok bool, err error) {
	return tx.zrank(key, member, true)
}

// ---- ZRANGE and friends ----------------------------------------------------------

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
	if !tx.writable {
		return 0, ErrReadOnly
	}
	zs, err := tx.zrange(src, sp)
	if err != nil {
		return 0, err
	}
	return tx.storeEntries(dst, zs), nil
}

// storeEntries stores zs (distinct members) as the sorted set at dst; see store.
func (tx *Tx) storeEntries(dst string, zs []Z) int64 {
	s := zset.New()
	if _, err := s.Add(zset.AddOptions{}, zs...); err != nil {
		// Entries read from a set never hold a NaN score.
		panic(err)
	}
	tx.store(dst, s)
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
func (tx *Tx) ZRange(key string, start, stop int64) ([]string, error) {
	zs, err := tx.ZRangeWithScores(key, start, stop)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}

// ZRangeWithScores is ZRANGE ... WITHSCORES: [Tx.ZRange] with the scores. The
// complexity is O(log n + k).
func (tx *Tx) ZRangeWithScores(key string, start, stop int64) ([]Z, error) {
	return tx.zrange(key, &rangeSpec{kind: byRank, start: start, stop: stop, count: -1})
}

// ZRevRange is ZREVRANGE: [Tx.ZRange] over the descending order (rank 0 is the
// highest score). The complexity is O(log n + k).
func (tx *Tx) ZRevRange(key string, start, stop int64) ([]string, error) {
	zs, err := tx.ZRevRangeWithScores(key, start, stop)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}

// ZRevRangeWithScores is ZREVRANGE ... WITHSCORES: [Tx.ZRevRange] with the scores.
// The complexity is O(log n + k).
func (tx *Tx) ZRevRangeWithScores(key string, start, stop int64) ([]Z, error) {
	return tx.zrange(key, &rangeSpec{kind: byRank, rev: true, start: start, stop: stop, count: -1})
}

// ZRangeArgs is ZRANGE with all its options (BYSCORE, BYLEX, REV, LIMIT), errors and
// all, exactly as Redis parses them; see [ZRangeArgs]. The complexity is
// O(log n + k).
func (tx *Tx) ZRangeArgs(z ZRangeArgs) ([]string, error) {
	zs, err := tx.zrangeArgs(&z)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}

// ZRangeArgsWithScores is ZRANGE ... WITHSCORES with all options (not BYLEX:
// [ErrRangeWithScoresByLex]). The complexity is O(log n + k).
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
func (tx *Tx) ZRangeByScore(key string, opt *ZRangeBy) ([]string, error) {
	zs, err := tx.zrangeBy(key, opt, byScore, false)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}

// ZRangeByScoreWithScores is ZRANGEBYSCORE ... WITHSCORES: [Tx.ZRangeByScore] with
// the scores. The complexity is O(log n + k).
func (tx *Tx) ZRangeByScoreWithScores(key string, opt *ZRangeBy) ([]Z, error) {
	return tx.zrangeBy(key, opt, byScore, false)
}

// ZRevRangeByScore is ZREVRANGEBYSCORE: [Tx.ZRangeByScore] in descending order
// (opt.Max is still the upper bound). The complexity is O(log n + k).
func (tx *Tx) ZRevRangeByScore(key string, opt *ZRangeBy) ([]string, error) {
	zs, err := tx.zrangeBy(key, opt, byScore, true)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}

// ZRevRangeByScoreWithScores is ZREVRANGEBYSCORE ... WITHSCORES: [Tx.ZRevRangeByScore]
// with the scores. The complexity is O(log n + k).
func (tx *Tx) ZRevRangeByScoreWithScores(key string, opt *ZRangeBy) ([]Z, error) {
	return tx.zrangeBy(key, opt, byScore, true)
}

// ZRangeByLex is ZRANGEBYLEX: the members between the lex bounds opt.Min and opt.Max
// ("-", "+", "[a", "(b"; zset.ErrLexRange if malformed) in ascending order, with
// opt's LIMIT, for a set whose members all have the same score. O(log n + k).
func (tx *Tx) ZRangeByLex(key string, opt *ZRangeBy) ([]string, error) {
	zs, err := tx.zrangeBy(key, opt, byLex, false)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}

// ZRevRangeByLex is ZREVRANGEBYLEX: [Tx.ZRangeByLex] in descending order.
// O(log n + k).
func (tx *Tx) ZRevRangeByLex(key string, opt *ZRangeBy) ([]string, error) {
	zs, err := tx.zrangeBy(key, opt, byLex, true)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}

// ---- ZPOPMIN, ZPOPMAX, ZMPOP -------------------------------------------------------

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
	tx.dropIfEmpty(key, s)
	return zs, nil
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
func (tx *Tx) ZPopMin(key string, count ...int64) ([]Z, error) {
	n, err := zpopCount(count)
	if err != nil {
		return nil, err
	}
	return tx.zpop(key, true, n)
}

// ZPopMax is ZPOPMAX key [count]: [Tx.ZPopMin] taking the highest scores, highest
// first. The complexity is O(log n + k).
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
func (tx *Tx) ZMPop(order string, count int64, keys ...string) (key string, zs []Z, err error) {
	r, err := typedMPop(popZSet, order, count, keys)
	if err == nil {
		err = tx.once(&r, keys)
	}
	return r.key, r.zs, err
}

// ---- ZREMRANGEBY* ------------------------------------------------------------------

// zremRange removes what del selects from the set at key.
func (tx *Tx) zremRange(key string, del func(s *zset.Set) int) (int64, error) {
	s, err := tx.zsetWrite(key)
	if s == nil || err != nil {
		return 0, err
	}
	n := del(s)
	tx.dropIfEmpty(key, s)
	return int64(n), nil
}

// ZRemRangeByRank is ZREMRANGEBYRANK: it removes the members at ranks start..stop
// (as [Tx.ZRange]) and returns how many, deleting the key once it is empty. The
// complexity is O(log n + k).
func (tx *Tx) ZRemRangeByRank(key string, start, stop int64) (int64, error) {
	return tx.zremRange(key, func(s *zset.Set) int { return s.RemRangeByRank(clampInt(start), clampInt(stop)) })
}

// ZRemRangeByScore is ZREMRANGEBYSCORE: it removes the members with a score between
// min and max (as [Tx.ZCount]) and returns how many. O(log n + k).
func (tx *Tx) ZRemRangeByScore(key, min, max string) (int64, error) {
	lo, hi, err := parseScoreRange(min, max)
	if err != nil {
		return 0, err
	}
	return tx.zremRange(key, func(s *zset.Set) int { return s.RemRangeByScore(lo, hi) })
}

// ZRemRangeByLex is ZREMRANGEBYLEX: it removes the members between the lex bounds
// min and max (as [Tx.ZLexCount]) and returns how many. O(log n + k).
func (tx *Tx) ZRemRangeByLex(key, min, max string) (int64, error) {
	lo, hi, err := parseLexRange(min, max)
	if err != nil {
		return 0, err
	}
	return tx.zremRange(key, func(s *zset.Set) int { return s.RemRangeByLex(lo, hi) })
}

// ---- ZRANDMEMBER ---------------------------------------------------------------------

// zrandMember implements ZRANDMEMBER key count [WITHSCORES] after Redis's checks.
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
	if s == nil {
		return []Z{}, nil
	}
	return zOrEmpty(s.RandMember(nil, clampInt(count))), nil
}

// ZRandMember is ZRANDMEMBER key count: with count > 0, up to count distinct random
// members; with count < 0, -count members picked independently (repeats possible).
// Empty for a missing key or count 0. Each pick costs O(log n).
func (tx *Tx) ZRandMember(key string, count int) ([]string, error) {
	zs, err := tx.zrandMember(key, int64(count), false)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}

// ZRandMemberWithScores is ZRANDMEMBER key count WITHSCORES. A |count| above
// MaxInt64/2 is [ErrOutOfRange], as in Redis.
func (tx *Tx) ZRandMemberWithScores(key string, count int) ([]Z, error) {
	return tx.zrandMember(key, int64(count), true)
}

// ---- ZSCAN -----------------------------------------------------------------------------

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
// A set of up to 128 members is returned whole at cursor 0, as Redis returns its
// small (listpack) sets. For larger sets the cursor encodes a score: each call
// returns about count members in ascending order from that score on, never splitting
// members that share a score, so every member present with an unchanged score for
// the whole iteration is returned exactly once. Members added or removed meanwhile
// may or may not be; a member whose score changes during the iteration may be missed
// or returned twice (Redis's hash-order cursor would return it). The complexity is
// O(log n + count) per call, plus the members sharing the last score.
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
		if match == "" || globMatch(match, m) {
			out = append(out, Z{Member: m, Score: f})
		}
	}
	if cursor == 0 && s.Len() <= zscanSmall {
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

// ---- ZUNION, ZINTER, ZDIFF, their STORE forms, ZINTERCARD -------------------------------

// setOp is a sorted-set algebra operation.
type setOp uint8

const (
	opUnion setOp = iota
	opInter
	opDiff
)

// zsets looks keys up for the algebra commands: nil for a missing key,
// [ErrWrongType] for a list. name is the command, for numkeys < 1.
func (tx *Tx) zsets(name string, keys []string) ([]*zset.Set, error) {
	if len(keys) == 0 {
		return nil, noInputKeysError(name)
	}
	sets := make([]*zset.Set, len(keys))
	for i, k := range keys {
		s, err := tx.zsetRead(k)
		if err != nil {
			return nil, err
		}
		sets[i] = s
	}
	return sets, nil
}

// parseAggregate parses AGGREGATE's argument, any case; "" is SUM.
func parseAggregate(s string) (zset.Aggregate, error) {
	switch {
	case s == "" || strings.EqualFold(s, "sum"):
		return zset.Sum, nil
	case strings.EqualFold(s, "min"):
		return zset.Min, nil
	case strings.EqualFold(s, "max"):
		return zset.Max, nil
	}
	return 0, ErrSyntax
}

// zCombine computes op over sets.
func zCombine(op setOp, sets []*zset.Set, weights []float64, agg zset.Aggregate) *zset.Set {
	switch op {
	case opUnion:
		return zset.Union(sets, weights, agg)
	case opInter:
		return zset.Inter(sets, weights, agg)
	}
	return zset.Diff(sets)
}

// zalgebra runs ZUNION or ZINTER for the typed API, checking the store as Redis
// checks the words go-redis sends: keys (count, then types), then weights and
// aggregate.
func (tx *Tx) zalgebra(name string, op setOp, store *ZStore) (*zset.Set, error) {
	sets, err := tx.zsets(name, store.Keys)
	if err != nil {
		return nil, err
	}
	if len(store.Weights) != 0 && len(store.Weights) != len(store.Keys) {
		return nil, ErrSyntax
	}
	for _, w := range store.Weights {
		if math.IsNaN(w) {
			return nil, ErrWeightNotFloat
		}
	}
	agg, err := parseAggregate(store.Aggregate)
	if err != nil {
		return nil, err
	}
	var weights []float64
	if len(store.Weights) != 0 {
		weights = store.Weights
	}
	return zCombine(op, sets, weights, agg), nil
}

// zEntries lists s in ascending order.
func zEntries(s *zset.Set) []Z {
	out := make([]Z, 0, s.Len())
	for m, f := range s.All() {
		out = append(out, Z{Member: m, Score: f})
	}
	return out
}

// storeSet stores s at dst (deleting dst when s is empty) and returns its size.
func (tx *Tx) storeSet(dst string, s *zset.Set) int64 {
	tx.store(dst, s)
	return int64(s.Len())
}

// ZUnion is ZUNION: the members of any of store.Keys (missing keys are empty sets),
// each with the aggregate (SUM, MIN or MAX) of its weighted scores, in ascending
// order. A list among the keys is [ErrWrongType]; no keys is [ErrNoInputKeys]. The
// complexity is O(N + M log M) for N input members and M in the result.
func (tx *Tx) ZUnion(store ZStore) ([]string, error) {
	zs, err := tx.ZUnionWithScores(store)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}

// ZUnionWithScores is ZUNION ... WITHSCORES: [Tx.ZUnion] with the scores, at the
// same cost.
func (tx *Tx) ZUnionWithScores(store ZStore) ([]Z, error) {
	s, err := tx.zalgebra("zunion", opUnion, &store)
	if err != nil {
		return nil, err
	}
	return zEntries(s), nil
}

// ZUnionStore is ZUNIONSTORE: [Tx.ZUnion] stored as the sorted set dest (replacing
// any value; deleting dest when the result is empty); it returns the result's size.
// The complexity is that of [Tx.ZUnion].
func (tx *Tx) ZUnionStore(dest string, store *ZStore) (int64, error) {
	if !tx.writable {
		return 0, ErrReadOnly
	}
	s, err := tx.zalgebra("zunionstore", opUnion, store)
	if err != nil {
		return 0, err
	}
	return tx.storeSet(dest, s), nil
}

// ZInter is ZINTER: the members in every one of store.Keys, each with the aggregate of
// its weighted scores, in ascending order. The complexity is O(N × K + M log M) for N
// members in the smallest of K sets.
func (tx *Tx) ZInter(store *ZStore) ([]string, error) {
	zs, err := tx.ZInterWithScores(store)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}

// ZInterWithScores is ZINTER ... WITHSCORES: [Tx.ZInter] with the scores, at the
// same cost.
func (tx *Tx) ZInterWithScores(store *ZStore) ([]Z, error) {
	s, err := tx.zalgebra("zinter", opInter, store)
	if err != nil {
		return nil, err
	}
	return zEntries(s), nil
}

// ZInterStore is ZINTERSTORE: [Tx.ZInter] stored as the sorted set destination
// (deleted when the result is empty); it returns the result's size. The complexity
// is that of [Tx.ZInter].
func (tx *Tx) ZInterStore(destination string, store *ZStore) (int64, error) {
	if !tx.writable {
		return 0, ErrReadOnly
	}
	s, err := tx.zalgebra("zinterstore", opInter, store)
	if err != nil {
		return 0, err
	}
	return tx.storeSet(destination, s), nil
}

// ZInterCard is ZINTERCARD: the number of members in every one of keys, counting up
// to limit (0: no limit; negative: [ErrLimitNegative]). The complexity is O(N × K)
// for N members in the smallest of K sets, without building the intersection.
func (tx *Tx) ZInterCard(limit int64, keys ...string) (int64, error) {
	sets, err := tx.zsets("zintercard", keys)
	if err != nil {
		return 0, err
	}
	if limit < 0 {
		return 0, ErrLimitNegative
	}
	return int64(zset.InterCard(sets, clampInt(limit))), nil
}

// ZDiff is ZDIFF: the members of the first key that are in none of the others, with
// their scores, in ascending order. The complexity is that of [zset.Diff].
func (tx *Tx) ZDiff(keys ...string) ([]string, error) {
	zs, err := tx.ZDiffWithScores(keys...)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}

// ZDiffWithScores is ZDIFF ... WITHSCORES: [Tx.ZDiff] with the scores, at the same
// cost.
func (tx *Tx) ZDiffWithScores(keys ...string) ([]Z, error) {
	sets, err := tx.zsets("zdiff", keys)
	if err != nil {
		return nil, err
	}
	return zEntries(zset.Diff(sets)), nil
}

// ZDiffStore is ZDIFFSTORE: [Tx.ZDiff] stored as the sorted set destination (deleted
// when the result is empty); it returns the result's size.
func (tx *Tx) ZDiffStore(destination string, keys ...string) (int64, error) {
	if !tx.writable {
		return 0, ErrReadOnly
	}
	sets, err := tx.zsets("zdiffstore", keys)
	if err != nil {
		return 0, err
	}
	return tx.storeSet(destination, zset.Diff(sets)), nil
}

// ---- The DB methods ------------------------------------------------------------------
//
// Each runs the Tx method of the same name under the keyspace lock (serving blocked
// callers after writes). ctx is accepted for go-redis parity and not used.

// ZAdd is [Tx.ZAdd] (ZADD).
func (db *DB) ZAdd(ctx context.Context, key string, members ...Z) (int64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZAdd(key, members...)
}

// ZAddNX is [Tx.ZAddNX] (ZADD NX).
func (db *DB) ZAddNX(ctx context.Context, key string, members ...Z) (int64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZAddNX(key, members...)
}

// ZAddXX is [Tx.ZAddXX] (ZADD XX).
func (db *DB) ZAddXX(ctx context.Context, key string, members ...Z) (int64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZAddXX(key, members...)
}

// ZAddGT is [Tx.ZAddGT] (ZADD GT).
func (db *DB) ZAddGT(ctx context.Context, key string, members ...Z) (int64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZAddGT(key, members...)
}

// ZAddLT is [Tx.ZAddLT] (ZADD LT).
func (db *DB) ZAddLT(ctx context.Context, key string, members ...Z) (int64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZAddLT(key, members...)
}

// ZAddArgs is [Tx.ZAddArgs] (ZADD with options).
func (db *DB) ZAddArgs(ctx context.Context, key string, args ZAddArgs) (int64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZAddArgs(key, args)
}

// ZAddArgsIncr is [Tx.ZAddArgsIncr] (ZADD ... INCR).
func (db *DB) ZAddArgsIncr(ctx context.Context, key string, args ZAddArgs) (score float64, ok bool, err error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZAddArgsIncr(key, args)
}

// ZIncrBy is [Tx.ZIncrBy] (ZINCRBY).
func (db *DB) ZIncrBy(ctx context.Context, key string, increment float64, member string) (float64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZIncrBy(key, increment, member)
}

// ZRem is [Tx.ZRem] (ZREM).
func (db *DB) ZRem(ctx context.Context, key string, members ...string) (int64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRem(key, members...)
}

// ZCard is [Tx.ZCard] (ZCARD).
func (db *DB) ZCard(ctx context.Context, key string) (int64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZCard(key)
}

// ZCount is [Tx.ZCount] (ZCOUNT).
func (db *DB) ZCount(ctx context.Context, key, min, max string) (int64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZCount(key, min, max)
}

// ZLexCount is [Tx.ZLexCount] (ZLEXCOUNT).
func (db *DB) ZLexCount(ctx context.Context, key, min, max string) (int64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZLexCount(key, min, max)
}

// ZScore is [Tx.ZScore] (ZSCORE).
func (db *DB) ZScore(ctx context.Context, key, member string) (float64, bool, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZScore(key, member)
}

// ZMScore is [Tx.ZMScore] (ZMSCORE).
func (db *DB) ZMScore(ctx context.Context, key string, members ...string) (scores []float64, ok []bool, err error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZMScore(key, members...)
}

// ZRank is [Tx.ZRank] (ZRANK).
func (db *DB) ZRank(ctx context.Context, key, member string) (int64, bool, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRank(key, member)
}

// ZRankWithScore is [Tx.ZRankWithScore] (ZRANK ... WITHSCORE).
func (db *DB) ZRankWithScore(ctx context.Context, key, member string) (rank int64, score float64, ok bool, err error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRankWithScore(key, member)
}

// ZRevRank is [Tx.ZRevRank] (ZREVRANK).
func (db *DB) ZRevRank(ctx context.Context, key, member string) (int64, bool, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRevRank(key, member)
}

// ZRevRankWithScore is [Tx.ZRevRankWithScore] (ZREVRANK ... WITHSCORE).
func (db *DB) ZRevRankWithScore(ctx context.Context, key, member string) (rank int64, score float64, ok bool, err error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRevRankWithScore(key, member)
}

// ZRange is [Tx.ZRange] (ZRANGE).
func (db *DB) ZRange(ctx context.Context, key string, start, stop int64) ([]string, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRange(key, start, stop)
}

// ZRangeWithScores is [Tx.ZRangeWithScores] (ZRANGE ... WITHSCORES).
func (db *DB) ZRangeWithScores(ctx context.Context, key string, start, stop int64) ([]Z, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRangeWithScores(key, start, stop)
}

// ZRevRange is [Tx.ZRevRange] (ZREVRANGE).
func (db *DB) ZRevRange(ctx context.Context, key string, start, stop int64) ([]string, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRevRange(key, start, stop)
}

// ZRevRangeWithScores is [Tx.ZRevRangeWithScores] (ZREVRANGE ... WITHSCORES).
func (db *DB) ZRevRangeWithScores(ctx context.Context, key string, start, stop int64) ([]Z, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRevRangeWithScores(key, start, stop)
}

// ZRangeArgs is [Tx.ZRangeArgs] (ZRANGE).
func (db *DB) ZRangeArgs(ctx context.Context, z ZRangeArgs) ([]string, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRangeArgs(z)
}

// ZRangeArgsWithScores is [Tx.ZRangeArgsWithScores] (ZRANGE ... WITHSCORES).
func (db *DB) ZRangeArgsWithScores(ctx context.Context, z ZRangeArgs) ([]Z, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRangeArgsWithScores(z)
}

// ZRangeStore is [Tx.ZRangeStore] (ZRANGESTORE).
func (db *DB) ZRangeStore(ctx context.Context, dst string, z ZRangeArgs) (int64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRangeStore(dst, z)
}

// ZRangeByScore is [Tx.ZRangeByScore] (ZRANGEBYSCORE).
func (db *DB) ZRangeByScore(ctx context.Context, key string, opt *ZRangeBy) ([]string, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRangeByScore(key, opt)
}

// ZRangeByScoreWithScores is [Tx.ZRangeByScoreWithScores] (ZRANGEBYSCORE ... WITHSCORES).
func (db *DB) ZRangeByScoreWithScores(ctx context.Context, key string, opt *ZRangeBy) ([]Z, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRangeByScoreWithScores(key, opt)
}

// ZRevRangeByScore is [Tx.ZRevRangeByScore] (ZREVRANGEBYSCORE).
func (db *DB) ZRevRangeByScore(ctx context.Context, key string, opt *ZRangeBy) ([]string, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRevRangeByScore(key, opt)
}

// ZRevRangeByScoreWithScores is [Tx.ZRevRangeByScoreWithScores] (ZREVRANGEBYSCORE ... WITHSCORES).
func (db *DB) ZRevRangeByScoreWithScores(ctx context.Context, key string, opt *ZRangeBy) ([]Z, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRevRangeByScoreWithScores(key, opt)
}

// ZRangeByLex is [Tx.ZRangeByLex] (ZRANGEBYLEX).
func (db *DB) ZRangeByLex(ctx context.Context, key string, opt *ZRangeBy) ([]string, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRangeByLex(key, opt)
}

// ZRevRangeByLex is [Tx.ZRevRangeByLex] (ZREVRANGEBYLEX).
func (db *DB) ZRevRangeByLex(ctx context.Context, key string, opt *ZRangeBy) ([]string, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRevRangeByLex(key, opt)
}

// ZPopMin is [Tx.ZPopMin] (ZPOPMIN).
func (db *DB) ZPopMin(ctx context.Context, key string, count ...int64) ([]Z, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZPopMin(key, count...)
}

// ZPopMax is [Tx.ZPopMax] (ZPOPMAX).
func (db *DB) ZPopMax(ctx context.Context, key string, count ...int64) ([]Z, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZPopMax(key, count...)
}

// ZMPop is [Tx.ZMPop] (ZMPOP).
func (db *DB) ZMPop(ctx context.Context, order string, count int64, keys ...string) (key string, zs []Z, err error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZMPop(order, count, keys...)
}

// ZRemRangeByRank is [Tx.ZRemRangeByRank] (ZREMRANGEBYRANK).
func (db *DB) ZRemRangeByRank(ctx context.Context, key string, start, stop int64) (int64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRemRangeByRank(key, start, stop)
}

// ZRemRangeByScore is [Tx.ZRemRangeByScore] (ZREMRANGEBYSCORE).
func (db *DB) ZRemRangeByScore(ctx context.Context, key, min, max string) (int64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRemRangeByScore(key, min, max)
}

// ZRemRangeByLex is [Tx.ZRemRangeByLex] (ZREMRANGEBYLEX).
func (db *DB) ZRemRangeByLex(ctx context.Context, key, min, max string) (int64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRemRangeByLex(key, min, max)
}

// ZRandMember is [Tx.ZRandMember] (ZRANDMEMBER key count).
func (db *DB) ZRandMember(ctx context.Context, key string, count int) ([]string, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRandMember(key, count)
}

// ZRandMemberWithScores is [Tx.ZRandMemberWithScores] (ZRANDMEMBER ... WITHSCORES).
func (db *DB) ZRandMemberWithScores(ctx context.Context, key string, count int) ([]Z, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZRandMemberWithScores(key, count)
}

// ZScan is [Tx.ZScan] (ZSCAN).
func (db *DB) ZScan(ctx context.Context, key string, cursor uint64, match string, count int64) ([]Z, uint64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZScan(key, cursor, match, count)
}

// ZUnion is [Tx.ZUnion] (ZUNION).
func (db *DB) ZUnion(ctx context.Context, store ZStore) ([]string, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZUnion(store)
}

// ZUnionWithScores is [Tx.ZUnionWithScores] (ZUNION ... WITHSCORES).
func (db *DB) ZUnionWithScores(ctx context.Context, store ZStore) ([]Z, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZUnionWithScores(store)
}

// ZUnionStore is [Tx.ZUnionStore] (ZUNIONSTORE).
func (db *DB) ZUnionStore(ctx context.Context, dest string, store *ZStore) (int64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZUnionStore(dest, store)
}

// ZInter is [Tx.ZInter] (ZINTER).
func (db *DB) ZInter(ctx context.Context, store *ZStore) ([]string, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZInter(store)
}

// ZInterWithScores is [Tx.ZInterWithScores] (ZINTER ... WITHSCORES).
func (db *DB) ZInterWithScores(ctx context.Context, store *ZStore) ([]Z, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZInterWithScores(store)
}

// ZInterStore is [Tx.ZInterStore] (ZINTERSTORE).
func (db *DB) ZInterStore(ctx context.Context, destination string, store *ZStore) (int64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZInterStore(destination, store)
}

// ZInterCard is [Tx.ZInterCard] (ZINTERCARD).
func (db *DB) ZInterCard(ctx context.Context, limit int64, keys ...string) (int64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZInterCard(limit, keys...)
}

// ZDiff is [Tx.ZDiff] (ZDIFF).
func (db *DB) ZDiff(ctx context.Context, keys ...string) ([]string, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZDiff(keys...)
}

// ZDiffWithScores is [Tx.ZDiffWithScores] (ZDIFF ... WITHSCORES).
func (db *DB) ZDiffWithScores(ctx context.Context, keys ...string) ([]Z, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZDiffWithScores(keys...)
}

// ZDiffStore is [Tx.ZDiffStore] (ZDIFFSTORE).
func (db *DB) ZDiffStore(ctx context.Context, destination string, keys ...string) (int64, error) {
	tx := db.lock()
	defer db.unlock()
	return tx.ZDiffStore(destination, keys...)
}
