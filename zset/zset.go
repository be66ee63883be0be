package zset

import (
	"iter"
	"math"
	"math/rand/v2"
)

// Entry is one member of a sorted set with its score.
type Entry struct {
	Member string
	Score  float64
}

// Set is a Redis sorted set: unique members ordered by (score, member bytes).
//
// The zero value is an empty set ready to use. A Set is not safe for concurrent use and
// holds no lock: callers that share one between goroutines must serialise access.
type Set struct {
	e engine
}

// New returns an empty set.
func New() *Set { return &Set{} }

// Len returns the number of members (ZCARD). The complexity is O(1).
func (s *Set) Len() int { return s.e.length() }

// AddOptions are ZADD's flags. NX: only add new members. XX: only update existing members.
// GT / LT: only update when the new score is greater / less than the current one (new
// members are still added). CH: count changed scores in the result, not only new members.
type AddOptions struct {
	NX, XX, GT, LT, CH bool
}

func (o AddOptions) validate() error {
	if o.NX && o.XX {
		return ErrXXAndNX
	}
	if (o.GT && o.NX) || (o.LT && o.NX) || (o.GT && o.LT) {
		return ErrGTLTNX
	}
	return nil
}

// Add is ZADD without INCR: it adds or updates entries and returns the number of new
// members (with CH, new members plus members whose score changed). The options and every
// score are validated before anything is written: it returns [ErrXXAndNX], [ErrGTLTNX], or
// [ErrNotFloat] for a NaN score, and then changes nothing. A member given more than once is
// applied left to right, so the last occurrence wins. As in Redis, 0 and -0 are the same
// score: updating one to the other changes nothing. The complexity is O(k log n) for k
// entries.
func (s *Set) Add(opt AddOptions, entries ...Entry) (int, error) {
	if err := opt.validate(); err != nil {
		return 0, err
	}
	for i := range entries {
		if math.IsNaN(entries[i].Score) {
			return 0, ErrNotFloat
		}
	}
	n := 0
	for i := range entries {
		added, changed := s.add(opt, entries[i].Member, entries[i].Score)
		if added || (opt.CH && changed) {
			n++
		}
	}
	return n, nil
}

// add applies one validated ZADD element and reports whether the member was added or
// had its score changed.
func (s *Set) add(opt AddOptions, member string, score float64) (added, changed bool) {
	h, ok := s.e.find(member)
	if !ok {
		if opt.XX {
			return false, false
		}
		s.e.insert(member, score)
		return true, false
	}
	cur := s.e.sl.score(h)
	if opt.NX || (opt.GT && score <= cur) || (opt.LT && score >= cur) || score == cur {
		return false, false
	}
	s.e.update(h, score)
	return false, true
}

// AddIncr is ZADD with INCR: it adds delta to member's score (a new member gets delta) and
// returns the new score and true. It returns (0, false, nil) when NX, XX, GT or LT stopped
// the update (Redis's nil reply). It returns [ErrXXAndNX] or [ErrGTLTNX] for incompatible
// options, [ErrNotFloat] for a NaN delta and [ErrNaNResult] when the sum would be NaN
// (inf + -inf); then nothing changes. The complexity is O(log n).
func (s *Set) AddIncr(opt AddOptions, member string, delta float64) (float64, bool, error) {
	if err := opt.validate(); err != nil {
		return 0, false, err
	}
	if math.IsNaN(delta) {
		return 0, false, ErrNotFloat
	}
	h, ok := s.e.find(member)
	if !ok {
		if opt.XX {
			return 0, false, nil
		}
		s.e.insert(member, delta)
		return delta, true, nil
	}
	if opt.NX {
		return 0, false, nil
	}
	cur := s.e.sl.score(h)
	score := cur + delta
	if math.IsNaN(score) {
		return 0, false, ErrNaNResult
	}
	if (opt.GT && score <= cur) || (opt.LT && score >= cur) {
		return 0, false, nil
	}
	if score != cur {
		s.e.update(h, score)
	}
	return score, true, nil
}

// Incr is ZINCRBY: it adds delta to member's score, adding the member with score delta if
// it is absent, and returns the new score. It returns [ErrNotFloat] for a NaN delta and
// [ErrNaNResult] when the sum would be NaN; then nothing changes. The complexity is
// O(log n).
func (s *Set) Incr(member string, delta float64) (float64, error) {
	f, _, err := s.AddIncr(AddOptions{}, member, delta)
	return f, err
}

// Remove is ZREM: it removes the given members and returns how many were present.
// The complexity is O(k log n) for k members.
func (s *Set) Remove(members ...string) int {
	n := 0
	for _, m := range members {
		if h, ok := s.e.find(m); ok {
			s.e.delete(h)
			n++
		}
	}
	return n
}

// Score is ZSCORE: it returns member's score and whether it is present.
// The complexity is O(1) on average.
func (s *Set) Score(member string) (float64, bool) {
	return s.e.lookup(member)
}

// MScore is ZMSCORE: for each member it returns the score and whether it is present.
// The complexity is O(k) for k members.
func (s *Set) MScore(members ...string) ([]float64, []bool) {
	scores := make([]float64, len(members))
	oks := make([]bool, len(members))
	for i, m := range members {
		scores[i], oks[i] = s.e.lookup(m)
	}
	return scores, oks
}

// Rank is ZRANK: it returns member's 0-based position in ascending order and whether it is
// present. The complexity is O(log n).
func (s *Set) Rank(member string) (int, bool) {
	h, ok := s.e.find(member)
	if !ok {
		return 0, false
	}
	return s.e.rankOfHandle(h, member, s.e.sl.score(h)), true
}

// RevRank is ZREVRANK: it returns member's 0-based position in descending order and whether
// it is present. The complexity is O(log n).
func (s *Set) RevRank(member string) (int, bool) {
	r, ok := s.Rank(member)
	if !ok {
		return 0, false
	}
	return s.e.length() - 1 - r, true
}

// At returns the entry at the 0-based ascending rank, or false when rank is outside
// [0, Len). The complexity is O(log n).
func (s *Set) At(rank int) (Entry, bool) {
	if rank < 0 || rank >= s.e.length() {
		return Entry{}, false
	}
	return s.e.at(rank), true
}

// ScoreBound is one end of a score range: Value (which may be ±Inf) included unless
// Exclusive. [ParseScoreBound] parses Redis's syntax ("1.5", "(1.5", "-inf", "+inf").
type ScoreBound struct {
	Value     float64
	Exclusive bool
}

// LexBound is one end of a lexicographic range: "-" (Inf -1), "+" (Inf +1), "[m"
// (Member m, inclusive) or "(m" (Member m, Exclusive). [ParseLexBound] parses Redis's syntax.
type LexBound struct {
	Member    string
	Exclusive bool
	Inf       int // -1 for "-", +1 for "+", 0 otherwise
}

// LexMin and LexMax are the unbounded lexicographic ends, Redis's "-" and "+".
var (
	LexMin = LexBound{Inf: -1}
	LexMax = LexBound{Inf: 1}
)

// scoreSpan returns the ranks [lo, hi) of the entries with min <= score <= max (with
// exclusive ends as given). A NaN bound matches nothing.
func (s *Set) scoreSpan(min, max ScoreBound) (lo, hi int) {
	if math.IsNaN(min.Value) || math.IsNaN(max.Value) {
		return 0, 0
	}
	lo = s.e.countScoreBelow(min.Value, min.Exclusive)
	hi = s.e.countScoreBelow(max.Value, !max.Exclusive)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// lexSpan returns the ranks [lo, hi) of the entries whose member lies within [min, max].
// As in Redis, lexicographic ranges assume that all members have the same score; otherwise
// the result is well defined but unspecified.
func (s *Set) lexSpan(min, max LexBound) (lo, hi int) {
	lo = s.lexRank(min, min.Exclusive)
	hi = s.lexRank(max, !max.Exclusive)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// lexRank returns the number of entries whose member is below b (or at most b when
// orEqual).
func (s *Set) lexRank(b LexBound, orEqual bool) int {
	switch {
	case b.Inf < 0:
		return 0
	case b.Inf > 0:
		return s.e.length()
	}
	return s.e.countLexBelow(b.Member, orEqual)
}

// Count is ZCOUNT: the number of members with a score within [min, max].
// The complexity is O(log n).
func (s *Set) Count(min, max ScoreBound) int {
	lo, hi := s.scoreSpan(min, max)
	return hi - lo
}

// LexCount is ZLEXCOUNT: the number of members within the lexicographic range [min, max].
// Like Redis, it assumes all members have the same score. The complexity is O(log n).
func (s *Set) LexCount(min, max LexBound) int {
	lo, hi := s.lexSpan(min, max)
	return hi - lo
}

// rankSpan converts Redis's inclusive start/stop indexes (negative from the end) to the
// ranks [lo, hi), clamped as ZRANGE does.
func rankSpan(start, stop, n int) (lo, hi int) {
	if start < 0 {
		start += n
	}
	if stop < 0 {
		stop += n
	}
	if start < 0 {
		start = 0
	}
	if start > stop || start >= n {
		return 0, 0
	}
	if stop >= n {
		stop = n - 1
	}
	return start, stop + 1
}

// collect returns the entries at ranks [lo, hi), ascending or descending.
func (s *Set) collect(lo, hi int, reverse bool) []Entry {
	return s.e.collect(lo, hi, reverse)
}

// Range is ZRANGE start stop: the entries at ranks start..stop inclusive in ascending
// order, where negative indexes count from the end (-1 is the last) and out-of-range
// indexes are clamped as Redis does. The complexity is O(log n + k) for k entries.
func (s *Set) Range(start, stop int) []Entry {
	lo, hi := rankSpan(start, stop, s.e.length())
	return s.collect(lo, hi, false)
}

// RevRange is ZREVRANGE start stop: like [Set.Range] over the descending order.
// The complexity is O(log n + k).
func (s *Set) RevRange(start, stop int) []Entry {
	n := s.e.length()
	lo, hi := rankSpan(start, stop, n)
	return s.collect(n-hi, n-lo, true)
}

// RangeByScore is ZRANGEBYSCORE min max LIMIT offset count: the entries with a score
// within [min, max] in ascending order, skipping offset of them and returning at most count
// (count < 0: all). An offset < 0 returns nothing (Redis 7.2+). Pass (0, -1) for no LIMIT.
// The offset is skipped in O(log n), so the complexity is O(log n + k).
func (s *Set) RangeByScore(min, max ScoreBound, offset, count int) []Entry {
	if offset < 0 || math.IsNaN(min.Value) || math.IsNaN(max.Value) {
		return nil
	}
	var c cursor
	var lo int
	if min.Exclusive {
		lo = s.e.seekBelow(&c, func(sc float64, _ uint32) bool { return sc <= min.Value })
	} else {
		lo = s.e.seekBelow(&c, func(sc float64, _ uint32) bool { return sc < min.Value })
	}
	if offset > 0 && lo+offset < s.e.n {
		s.e.seek(&c, lo+offset)
	}
	return s.e.rangeUp(&c, lo+offset, count, func(sc float64, _ uint32) bool { return !aboveMax(sc, max) })
}

// RevRangeByScore is ZREVRANGEBYSCORE max min LIMIT offset count: like
// [Set.RangeByScore] in descending order (equal scores by descending member).
// The complexity is O(log n + k).
func (s *Set) RevRangeByScore(max, min ScoreBound, offset, count int) []Entry {
	if offset < 0 || math.IsNaN(min.Value) || math.IsNaN(max.Value) {
		return nil
	}
	hi := s.e.countScoreBelow(max.Value, !max.Exclusive)
	return s.e.rangeDown(hi-1-offset, count, func(sc float64, _ uint32) bool { return !belowMin(sc, min) })
}

// RangeByLex is ZRANGEBYLEX min max LIMIT offset count: the entries whose member lies
// within [min, max] in ascending order, with LIMIT as in [Set.RangeByScore]. Like Redis,
// it assumes all members have the same score. The complexity is O(log n + k).
func (s *Set) RangeByLex(min, max LexBound, offset, count int) []Entry {
	if offset < 0 {
		return nil
	}
	var c cursor
	lo := s.e.seekBelow(&c, func(_ float64, h uint32) bool { return lexBelowMin(s.e.sl.member(h), min) })
	if offset > 0 && lo+offset < s.e.n {
		s.e.seek(&c, lo+offset)
	}
	return s.e.rangeUp(&c, lo+offset, count, func(_ float64, h uint32) bool { return !lexAboveMax(s.e.sl.member(h), max) })
}

// RevRangeByLex is ZREVRANGEBYLEX max min LIMIT offset count: like [Set.RangeByLex] in
// descending order. The complexity is O(log n + k).
func (s *Set) RevRangeByLex(max, min LexBound, offset, count int) []Entry {
	if offset < 0 {
		return nil
	}
	hi := s.lexRank(max, !max.Exclusive)
	return s.e.rangeDown(hi-1-offset, count, func(_ float64, h uint32) bool { return !lexBelowMin(s.e.sl.member(h), min) })
}

// PopMin is ZPOPMIN: it removes and returns the entry with the lowest score, or false when
// the set is empty. The complexity is O(log n).
func (s *Set) PopMin() (Entry, bool) {
	if s.e.length() == 0 {
		return Entry{}, false
	}
	return s.e.pop(0), true
}

// PopMax is ZPOPMAX: it removes and returns the entry with the highest score, or false
// when the set is empty. The complexity is O(log n).
func (s *Set) PopMax() (Entry, bool) {
	n := s.e.length()
	if n == 0 {
		return Entry{}, false
	}
	return s.e.pop(n - 1), true
}

// PopMinN is ZPOPMIN key count: it removes and returns up to count entries with the lowest
// scores, lowest first. A count ≤ 0 returns nothing. The complexity is O(log n + k).
func (s *Set) PopMinN(count int) []Entry {
	if count <= 0 {
		return nil
	}
	k := min(count, s.e.length())
	out := s.collect(0, k, false)
	s.e.deleteRange(0, k)
	return out
}

// PopMaxN is ZPOPMAX key count: it removes and returns up to count entries with the
// highest scores, highest first. A count ≤ 0 returns nothing. The complexity is
// O(log n + k).
func (s *Set) PopMaxN(count int) []Entry {
	if count <= 0 {
		return nil
	}
	n := s.e.length()
	k := min(count, n)
	out := s.collect(n-k, n, true)
	s.e.deleteRange(n-k, n)
	return out
}

// RemRangeByRank is ZREMRANGEBYRANK start stop: it removes the entries at ranks
// start..stop (clamped as [Set.Range]) and returns how many were removed.
// The complexity is O(log n + k).
func (s *Set) RemRangeByRank(start, stop int) int {
	lo, hi := rankSpan(start, stop, s.e.length())
	s.e.deleteRange(lo, hi)
	return hi - lo
}

// RemRangeByScore is ZREMRANGEBYSCORE min max: it removes the entries with a score within
// [min, max] and returns how many were removed. The complexity is O(log n + k).
func (s *Set) RemRangeByScore(min, max ScoreBound) int {
	lo, hi := s.scoreSpan(min, max)
	s.e.deleteRange(lo, hi)
	return hi - lo
}

// RemRangeByLex is ZREMRANGEBYLEX min max: it removes the entries whose member lies within
// [min, max] and returns how many were removed. The complexity is O(log n + k).
func (s *Set) RemRangeByLex(min, max LexBound) int {
	lo, hi := s.lexSpan(min, max)
	s.e.deleteRange(lo, hi)
	return hi - lo
}

// RandMember is ZRANDMEMBER key count: with count > 0 it returns min(count, Len) distinct
// members in random order; with count < 0 it returns -count members picked independently
// (repeats possible); with count == 0 or an empty set it returns nothing. r supplies the
// randomness; nil uses the package-level source of math/rand/v2. Each pick costs O(log n).
func (s *Set) RandMember(r *rand.Rand, count int) []Entry {
	n := s.e.length()
	if count == 0 || n == 0 {
		return nil
	}
	intN := rand.IntN
	if r != nil {
		intN = r.IntN
	}
	if count < 0 {
		k := -count
		out := make([]Entry, k)
		for i := range out {
			out[i] = s.e.at(intN(n))
		}
		return out
	}
	if count >= n {
		// The whole set, shuffled.
		out := s.collect(0, n, false)
		for i := len(out) - 1; i > 0; i-- {
			j := intN(i + 1)
			out[i], out[j] = out[j], out[i]
		}
		return out
	}
	// Floyd's algorithm: count distinct ranks with count picks.
	seen := make(map[int]struct{}, count)
	out := make([]Entry, 0, count)
	for j := n - count; j < n; j++ {
		t := intN(j + 1)
		if _, dup := seen[t]; dup {
			t = j
		}
		seen[t] = struct{}{}
		out = append(out, s.e.at(t))
	}
	// Floyd's picks are a uniform subset but not in uniform order: shuffle.
	for i := len(out) - 1; i > 0; i-- {
		j := intN(i + 1)
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// All returns an iterator over the entries in ascending order.
//
// The set may be modified while iterating (including from inside the loop body): each
// step continues with the first entry greater than the last one yielded, so every entry
// present for the whole iteration is yielded exactly once, entries removed before they are
// reached are not yielded, and entries added ahead of the position are. Each step costs
// O(1) amortised, or O(log n) after a modification.
func (s *Set) All() iter.Seq2[string, float64] {
	return s.ScoreRange(ScoreBound{Value: math.Inf(-1)}, ScoreBound{Value: math.Inf(1)})
}

// Backward returns an iterator over the entries in descending order. Modifications while
// iterating behave as for [Set.All], walking downwards, and so do the costs.
func (s *Set) Backward() iter.Seq2[string, float64] {
	return s.RevScoreRange(ScoreBound{Value: math.Inf(1)}, ScoreBound{Value: math.Inf(-1)})
}

// ScoreRange returns an iterator over the entries with a score within [min, max] in
// ascending order (ZRANGEBYSCORE). Modifications while iterating behave as for [Set.All].
// Finding the first entry costs O(log n); each step then costs as for [Set.All].
func (s *Set) ScoreRange(min, max ScoreBound) iter.Seq2[string, float64] {
	return func(yield func(string, float64) bool) {
		if math.IsNaN(min.Value) || math.IsNaN(max.Value) {
			return
		}
		lo, _ := s.scoreSpan(min, max)
		s.e.walk(false, lo, func(m string, f float64) bool { return !aboveMax(f, max) }, yield)
	}
}

// RevScoreRange returns an iterator over the entries with a score within [min, max] in
// descending order (ZREVRANGEBYSCORE). Modifications while iterating behave as for
// [Set.All], walking downwards. Costs are as for [Set.ScoreRange].
func (s *Set) RevScoreRange(max, min ScoreBound) iter.Seq2[string, float64] {
	return func(yield func(string, float64) bool) {
		if math.IsNaN(min.Value) || math.IsNaN(max.Value) {
			return
		}
		_, hi := s.scoreSpan(min, max)
		s.e.walk(true, hi-1, func(m string, f float64) bool { return !belowMin(f, min) }, yield)
	}
}

// LexRange returns an iterator over the entries whose member lies within [min, max] in
// ascending order (ZRANGEBYLEX; all members are assumed to have the same score).
// Modifications while iterating behave as for [Set.All]. Finding the first entry costs
// O(log n); each step then costs as for [Set.All].
func (s *Set) LexRange(min, max LexBound) iter.Seq2[string, float64] {
	return func(yield func(string, float64) bool) {
		lo, _ := s.lexSpan(min, max)
		s.e.walk(false, lo, func(m string, f float64) bool { return !lexAboveMax(m, max) }, yield)
	}
}

// RevLexRange returns an iterator over the entries whose member lies within [min, max] in
// descending order (ZREVRANGEBYLEX). Modifications while iterating behave as for
// [Set.All], walking downwards. Costs are as for [Set.LexRange].
func (s *Set) RevLexRange(max, min LexBound) iter.Seq2[string, float64] {
	return func(yield func(string, float64) bool) {
		_, hi := s.lexSpan(min, max)
		s.e.walk(true, hi-1, func(m string, f float64) bool { return !lexBelowMin(m, min) }, yield)
	}
}

func belowMin(f float64, b ScoreBound) bool {
	if b.Exclusive {
		return f <= b.Value
	}
	return f < b.Value
}

func aboveMax(f float64, b ScoreBound) bool {
	if b.Exclusive {
		return f >= b.Value
	}
	return f > b.Value
}

func lexBelowMin(m string, b LexBound) bool {
	switch {
	case b.Inf < 0:
		return false
	case b.Inf > 0:
		return true
	case b.Exclusive:
		return m <= b.Member
	}
	return m < b.Member
}

func lexAboveMax(m string, b LexBound) bool {
	switch {
	case b.Inf < 0:
		return true
	case b.Inf > 0:
		return false
	case b.Exclusive:
		return m >= b.Member
	}
	return m > b.Member
}

// Clone returns an independent copy of the set. The complexity is O(n).
func (s *Set) Clone() *Set {
	return &Set{e: s.e.clone()}
}
