package zset

import (
	"iter"
	"math"
	"math/rand/v2"
	"strings"
	"unsafe"
)

// Entry is one member of a sorted set with its score.
type Entry struct {
	Member string
	Score  float64
}

// Set is a Redis sorted set: unique members ordered by (score, member bytes).
//
// The zero value is an empty set ready to use, with [DefaultLimits]. A Set is not safe for
// concurrent use and holds no lock: callers that share one between goroutines must
// serialise access.
//
// A Set has two encodings (see the package doc): small sets are one packed byte buffer,
// larger ones an order-statistic B+tree. The choice changes memory and speed only, never
// a result, except that a small set reads a stored -0 back as 0, as Redis's listpack does.
//
// A Set may be moved by copying the struct (*dst = *src, as the zlite keyspace does to
// keep its sets in its key table): nothing refers back to a Set's address. The copy and
// the original then share their contents, so the original must not be written after.
type Set struct {
	p     unsafe.Pointer // the small encoding's buffer (see smBytes), or the tree (see tree)
	mods  uint32         // incremented by every write, for iterators
	smLen uint32         // the length of the small encoding's bytes
	n     uint16         // entries in the small encoding (at most Limits.Entries <= 65535)
	limE  uint16         // Limits.Entries xor its default, so that the zero value has the defaults
	limV  uint16         // Limits.Value xor its default
	capc  uint8          // the capacity of the small buffer as an index into capClasses, or treeClass
}

// Limits bound the small encoding, as Redis's zset-max-listpack-entries and
// zset-max-listpack-value do: a set of at most Entries members, none longer than Value
// bytes, is stored packed; a set that outgrows either becomes a tree and stays one
// (until it is emptied). Entries 0 means always a tree. Values above 65535 count as
// 65535, values below 0 as 0.
type Limits struct {
	Entries int
	Value   int
}

// DefaultLimits are Redis's defaults: 128 entries, 64-byte members.
var DefaultLimits = Limits{Entries: 128, Value: 64}

// New returns an empty set with [DefaultLimits].
func New() *Set { return &Set{} }

// NewWithLimits returns an empty set with the given limits of the small encoding.
func NewWithLimits(l Limits) *Set {
	s := &Set{}
	s.SetLimits(l)
	return s
}

// Limits returns the limits of the set's small encoding. The complexity is O(1).
func (s *Set) Limits() Limits {
	return Limits{Entries: int(s.limE ^ uint16(DefaultLimits.Entries)), Value: int(s.limV ^ uint16(DefaultLimits.Value))}
}

// SetLimits changes the limits of the set's small encoding. A small set that exceeds the
// new limits becomes a tree, in O(n log n); a tree stays a tree, as in Redis when its
// configuration changes.
func (s *Set) SetLimits(l Limits) {
	clamp := func(v int) uint16 { return uint16(min(max(v, 0), math.MaxUint16)) }
	s.limE = clamp(l.Entries) ^ uint16(DefaultLimits.Entries)
	s.limV = clamp(l.Value) ^ uint16(DefaultLimits.Value)
	if s.tree() != nil {
		return
	}
	l = s.Limits()
	if int(s.n) > l.Entries || l.Entries == 0 {
		s.mods++
		s.toTree()
		return
	}
	p := s.small().p
	for off := 0; off < len(p); {
		var m string
		_, m, off = p.entry(off)
		if len(m) > l.Value {
			s.mods++
			s.toTree()
			return
		}
	}
}

// Encoding returns Redis's OBJECT ENCODING name for the set's current encoding:
// "listpack" for the small encoding (an empty set too, as a new key in Redis) and
// "skiplist" for the tree. The complexity is O(1).
func (s *Set) Encoding() string {
	if s.tree() != nil {
		return "skiplist"
	}
	return "listpack"
}

// MemoryUsage returns the bytes of heap the set holds: the Set itself and, for a small
// set, its byte buffer's capacity; for a tree, its nodes, slab chunks, member arena and
// index, by capacity. Allocator rounding beyond the Go size classes is not counted.
// The complexity is O(1) for a small set and O(n / 84) for a tree (it visits the nodes).
func (s *Set) MemoryUsage() int {
	size := int(unsafe.Sizeof(*s))
	if s.tree() == nil {
		return size + s.smCap()
	}
	return size + s.tree().memoryUsage()
}

// Len returns the number of members (ZCARD). The complexity is O(1).
func (s *Set) Len() int {
	if s.tree() != nil {
		return s.tree().n
	}
	return int(s.n)
}

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
	s.mods++
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
	if s.tree() == nil {
		off, rank, cur, ok := s.small().find(member)
		if !ok {
			if opt.XX {
				return false, false
			}
			s.insertNew(member, score)
			return true, false
		}
		if opt.NX || (opt.GT && score <= cur) || (opt.LT && score >= cur) || score == cur {
			return false, false
		}
		s.smRescore(rank, off, member, score)
		return false, true
	}
	e := s.tree()
	h, ok := e.find(member)
	if !ok {
		if opt.XX {
			return false, false
		}
		e.insert(member, score)
		return true, false
	}
	cur := e.sl.score(h)
	if opt.NX || (opt.GT && score <= cur) || (opt.LT && score >= cur) || score == cur {
		return false, false
	}
	e.update(h, score)
	return false, true
}

// insertNew adds member m, which must be absent, converting a small set that it would
// take past its limits to a tree first (Redis's zsetAdd does the same check).
func (s *Set) insertNew(m string, score float64) {
	if s.tree() == nil {
		if s.smallFits(len(m)) {
			s.smInsert(m, score)
			return
		}
		s.toTree()
	}
	s.tree().insert(m, score)
}

// AddIncr is ZADD with INCR: it adds delta to member's score (a new member gets delta) and
// returns the new score and true. It returns (0, false, nil) when NX, XX, GT or LT stopped
// the update (Redis's nil reply). It returns [ErrXXAndNX] or [ErrGTLTNX] for incompatible
// options, [ErrNotFloat] for a NaN delta and [ErrNaNResult] when the sum would be NaN
// (inf + -inf); then nothing changes. The score returned is the sum even where a small
// set stores a -0 sum as 0 (Redis replies the same way). The complexity is O(log n).
func (s *Set) AddIncr(opt AddOptions, member string, delta float64) (float64, bool, error) {
	if err := opt.validate(); err != nil {
		return 0, false, err
	}
	if math.IsNaN(delta) {
		return 0, false, ErrNotFloat
	}
	var cur float64
	var off, rank int
	var h uint32
	var ok bool
	if s.tree() == nil {
		off, rank, cur, ok = s.small().find(member)
	} else if h, ok = s.tree().find(member); ok {
		cur = s.tree().sl.score(h)
	}
	if !ok {
		if opt.XX {
			return 0, false, nil
		}
		s.mods++
		s.insertNew(member, delta)
		return delta, true, nil
	}
	if opt.NX {
		return 0, false, nil
	}
	score := cur + delta
	if math.IsNaN(score) {
		return 0, false, ErrNaNResult
	}
	if (opt.GT && score <= cur) || (opt.LT && score >= cur) {
		return 0, false, nil
	}
	if score != cur {
		s.mods++
		if s.tree() == nil {
			s.smRescore(rank, off, member, score)
		} else {
			s.tree().update(h, score)
		}
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
	s.mods++
	n := 0
	for _, m := range members {
		if s.tree() == nil {
			if off, rank, _, ok := s.small().find(m); ok {
				s.smCut(rank, off, s.small().p.skip(off), 1)
				n++
			}
		} else if h, ok := s.tree().find(m); ok {
			s.tree().delete(h)
			n++
		}
	}
	s.dropEmptyTree()
	return n
}

// dropEmptyTree returns an emptied tree-encoded set to the small encoding (unless its
// limits say always a tree), as Redis deletes an emptied key and creates a listpack for
// the next ZADD.
func (s *Set) dropEmptyTree() {
	if s.tree() != nil && s.tree().n == 0 && s.Limits().Entries > 0 {
		s.setTree(nil)
	}
}

// Score is ZSCORE: it returns member's score and whether it is present.
// The complexity is O(1) on average for a tree, O(n) for a small set.
func (s *Set) Score(member string) (float64, bool) {
	if s.tree() == nil {
		_, _, sc, ok := s.small().find(member)
		return sc, ok
	}
	return s.tree().lookup(member)
}

// MScore is ZMSCORE: for each member it returns the score and whether it is present.
// The complexity is O(k) for k members.
func (s *Set) MScore(members ...string) ([]float64, []bool) {
	scores := make([]float64, len(members))
	oks := make([]bool, len(members))
	for i, m := range members {
		scores[i], oks[i] = s.Score(m)
	}
	return scores, oks
}

// Rank is ZRANK: it returns member's 0-based position in ascending order and whether it is
// present. The complexity is O(log n).
func (s *Set) Rank(member string) (int, bool) {
	r, _, ok := s.RankScore(member)
	return r, ok
}

// RankScore is ZRANK ... WITHSCORE: member's 0-based position in ascending order, its
// score, and whether it is present, found in one search. The complexity is O(log n).
func (s *Set) RankScore(member string) (rank int, score float64, ok bool) {
	if s.tree() == nil {
		_, r, sc, ok := s.small().find(member)
		return r, sc, ok
	}
	t := s.tree()
	h, ok := t.find(member)
	if !ok {
		return 0, 0, false
	}
	score = t.sl.score(h)
	return t.rankOfHandle(h, member, score), score, true
}

// RevRank is ZREVRANK: it returns member's 0-based position in descending order and whether
// it is present. The complexity is O(log n).
func (s *Set) RevRank(member string) (int, bool) {
	r, ok := s.Rank(member)
	if !ok {
		return 0, false
	}
	return s.Len() - 1 - r, true
}

// At returns the entry at the 0-based ascending rank, or false when rank is outside
// [0, Len). The complexity is O(log n).
func (s *Set) At(rank int) (Entry, bool) {
	if rank < 0 || rank >= s.Len() {
		return Entry{}, false
	}
	if s.tree() == nil {
		v := s.small()
		sc, m, _ := v.p.entry(v.offsetOf(rank))
		return Entry{Member: strings.Clone(m), Score: sc}, true
	}
	return s.tree().at(rank), true
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
	lo = s.countScoreBelow(min.Value, min.Exclusive)
	hi = s.countScoreBelow(max.Value, !max.Exclusive)
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// countScoreBelow returns the number of entries with a score below f (at most f when
// orEqual).
func (s *Set) countScoreBelow(f float64, orEqual bool) int {
	if s.tree() != nil {
		return s.tree().countScoreBelow(f, orEqual)
	}
	r, _ := s.small().countScore(f, orEqual)
	return r
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
		return s.Len()
	case s.tree() != nil:
		return s.tree().countLexBelow(b.Member, orEqual)
	}
	r, _ := s.small().below(func(_ float64, m string) bool { return m < b.Member || orEqual && m == b.Member })
	return r
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
	if s.tree() != nil {
		return s.tree().collect(lo, hi, reverse)
	}
	if lo >= hi {
		return nil
	}
	v := s.small()
	off, end := s.smSpan(v, lo, hi)
	return v.p.collect(off, end, hi-lo, reverse)
}

// smSpan returns the offsets in v, the small set's view, of its entries of ranks lo
// and hi (lo < hi).
func (s *Set) smSpan(v smallView, lo, hi int) (off, end int) {
	off = v.offsetOf(lo)
	if hi == int(s.n) {
		return off, len(v.p)
	}
	return off, v.p.skipN(off, hi-lo)
}

// members returns the members at ranks [lo, hi), ascending or descending.
func (s *Set) members(lo, hi int, reverse bool) []string {
	if lo >= hi {
		return nil
	}
	if s.tree() == nil {
		v := s.small()
		off, end := s.smSpan(v, lo, hi)
		return v.p.members(off, end, hi-lo, reverse)
	}
	es := s.tree().collect(lo, hi, reverse)
	out := make([]string, len(es))
	for i := range es {
		out[i] = es[i].Member
	}
	return out
}

// smRange returns, from the small set's entry of rank lo at offset off, skipping offset
// entries, up to count entries (all when count < 0) while in accepts them.
func (s *Set) smRange(lo, off, offset, count int, in func(sc float64, m string) bool) []Entry {
	p := s.small().p
	for ; offset > 0 && off < len(p); offset-- {
		off = p.skip(off)
		lo++
	}
	k, end := 0, off
	for ; k != count && end < len(p); k++ {
		sc, m, next := p.entry(end)
		if !in(sc, m) {
			break
		}
		end = next
	}
	if k == 0 {
		return nil
	}
	return p.collect(off, end, k, false)
}

// revRange returns the entries of ranks [lo, hi) in descending order, skipping offset
// of them from the top and returning at most count (all when count < 0).
func (s *Set) revRange(lo, hi, offset, count int) []Entry {
	top := hi - 1 - offset
	if top < lo || offset >= hi {
		return nil
	}
	if count >= 0 {
		lo = max(lo, top-count+1)
	}
	return s.collect(lo, top+1, true)
}

// Range is ZRANGE start stop: the entries at ranks start..stop inclusive in ascending
// order, where negative indexes count from the end (-1 is the last) and out-of-range
// indexes are clamped as Redis does. The complexity is O(log n + k) for k entries.
func (s *Set) Range(start, stop int) []Entry {
	lo, hi := rankSpan(start, stop, s.Len())
	return s.collect(lo, hi, false)
}

// RevRange is ZREVRANGE start stop: like [Set.Range] over the descending order.
// The complexity is O(log n + k).
func (s *Set) RevRange(start, stop int) []Entry {
	n := s.Len()
	lo, hi := rankSpan(start, stop, n)
	return s.collect(n-hi, n-lo, true)
}

// RangeMembers is ZRANGE start stop without WITHSCORES: the members of [Set.Range]
// alone, without the slice of entries that Range would build. The complexity is
// O(log n + k) for k members.
func (s *Set) RangeMembers(start, stop int) []string {
	lo, hi := rankSpan(start, stop, s.Len())
	return s.members(lo, hi, false)
}

// RevRangeMembers is ZREVRANGE start stop without WITHSCORES: the members of
// [Set.RevRange] alone. The complexity is O(log n + k).
func (s *Set) RevRangeMembers(start, stop int) []string {
	n := s.Len()
	lo, hi := rankSpan(start, stop, n)
	return s.members(n-hi, n-lo, true)
}

// RangeByScore is ZRANGEBYSCORE min max LIMIT offset count: the entries with a score
// within [min, max] in ascending order, skipping offset of them and returning at most count
// (count < 0: all). An offset < 0 returns nothing (Redis 7.2+). Pass (0, -1) for no LIMIT.
// The offset is skipped in O(log n), so the complexity is O(log n + k).
func (s *Set) RangeByScore(min, max ScoreBound, offset, count int) []Entry {
	if offset < 0 || math.IsNaN(min.Value) || math.IsNaN(max.Value) {
		return nil
	}
	if s.tree() == nil {
		lo, off := s.small().countScore(min.Value, min.Exclusive)
		return s.smRange(lo, off, offset, count, func(sc float64, _ string) bool { return !aboveMax(sc, max) })
	}
	e := s.tree()
	var c cursor
	var lo int
	if min.Exclusive {
		lo = e.seekBelow(&c, func(sc float64, _ uint32) bool { return sc <= min.Value })
	} else {
		lo = e.seekBelow(&c, func(sc float64, _ uint32) bool { return sc < min.Value })
	}
	if offset >= e.n-lo {
		return nil
	}
	if offset > 0 {
		e.seek(&c, lo+offset)
	}
	return e.rangeUp(&c, lo+offset, count, func(sc float64, _ uint32) bool { return !aboveMax(sc, max) })
}

// RevRangeByScore is ZREVRANGEBYSCORE max min LIMIT offset count: like
// [Set.RangeByScore] in descending order (equal scores by descending member).
// The complexity is O(log n + k).
func (s *Set) RevRangeByScore(max, min ScoreBound, offset, count int) []Entry {
	if offset < 0 || math.IsNaN(min.Value) || math.IsNaN(max.Value) {
		return nil
	}
	lo, hi := s.scoreSpan(min, max)
	return s.revRange(lo, hi, offset, count)
}

// RangeByLex is ZRANGEBYLEX min max LIMIT offset count: the entries whose member lies
// within [min, max] in ascending order, with LIMIT as in [Set.RangeByScore]. Like Redis,
// it assumes all members have the same score. The complexity is O(log n + k).
func (s *Set) RangeByLex(min, max LexBound, offset, count int) []Entry {
	if offset < 0 {
		return nil
	}
	if s.tree() == nil {
		lo, off := s.small().below(func(_ float64, m string) bool { return lexBelowMin(m, min) })
		return s.smRange(lo, off, offset, count, func(_ float64, m string) bool { return !lexAboveMax(m, max) })
	}
	e := s.tree()
	var c cursor
	lo := e.seekBelow(&c, func(_ float64, h uint32) bool { return lexBelowMin(e.sl.member(h), min) })
	if offset >= e.n-lo {
		return nil
	}
	if offset > 0 {
		e.seek(&c, lo+offset)
	}
	return e.rangeUp(&c, lo+offset, count, func(_ float64, h uint32) bool { return !lexAboveMax(e.sl.member(h), max) })
}

// RevRangeByLex is ZREVRANGEBYLEX max min LIMIT offset count: like [Set.RangeByLex] in
// descending order. The complexity is O(log n + k).
func (s *Set) RevRangeByLex(max, min LexBound, offset, count int) []Entry {
	if offset < 0 {
		return nil
	}
	lo, hi := s.lexSpan(min, max)
	return s.revRange(lo, hi, offset, count)
}

// PopMin is ZPOPMIN: it removes and returns the entry with the lowest score, or false when
// the set is empty. The complexity is O(log n).
func (s *Set) PopMin() (Entry, bool) {
	if s.Len() == 0 {
		return Entry{}, false
	}
	return s.pop(0), true
}

// PopMax is ZPOPMAX: it removes and returns the entry with the highest score, or false
// when the set is empty. The complexity is O(log n).
func (s *Set) PopMax() (Entry, bool) {
	n := s.Len()
	if n == 0 {
		return Entry{}, false
	}
	return s.pop(n - 1), true
}

// pop removes and returns the entry at rank r.
func (s *Set) pop(r int) Entry {
	s.mods++
	if s.tree() != nil {
		e := s.tree().pop(r)
		s.dropEmptyTree()
		return e
	}
	v := s.small()
	off := v.offsetOf(r)
	sc, m, next := v.p.entry(off)
	e := Entry{Member: strings.Clone(m), Score: sc}
	s.smCut(r, off, next, 1)
	return e
}

// PopMinN is ZPOPMIN key count: it removes and returns up to count entries with the lowest
// scores, lowest first. A count ≤ 0 returns nothing. The complexity is O(log n + k).
func (s *Set) PopMinN(count int) []Entry {
	if count <= 0 {
		return nil
	}
	k := min(count, s.Len())
	if k == 1 {
		// One entry: pop's single O(log n) delete costs half of collect and
		// deleteRange's and skips collect's slice growth.
		return []Entry{s.pop(0)}
	}
	out := s.collect(0, k, false)
	s.deleteRange(0, k)
	return out
}

// PopMaxN is ZPOPMAX key count: it removes and returns up to count entries with the
// highest scores, highest first. A count ≤ 0 returns nothing. The complexity is
// O(log n + k).
func (s *Set) PopMaxN(count int) []Entry {
	if count <= 0 {
		return nil
	}
	n := s.Len()
	k := min(count, n)
	if k == 1 {
		return []Entry{s.pop(n - 1)} // as in PopMinN
	}
	out := s.collect(n-k, n, true)
	s.deleteRange(n-k, n)
	return out
}

// deleteRange removes the entries at ranks [lo, hi).
func (s *Set) deleteRange(lo, hi int) {
	s.mods++
	if s.tree() == nil {
		s.smDeleteRanks(lo, hi)
		return
	}
	s.tree().deleteRange(lo, hi)
	s.dropEmptyTree()
}

// RemRangeByRank is ZREMRANGEBYRANK start stop: it removes the entries at ranks
// start..stop (clamped as [Set.Range]) and returns how many were removed.
// The complexity is O(log n + k).
func (s *Set) RemRangeByRank(start, stop int) int {
	lo, hi := rankSpan(start, stop, s.Len())
	s.deleteRange(lo, hi)
	return hi - lo
}

// RemRangeByScore is ZREMRANGEBYSCORE min max: it removes the entries with a score within
// [min, max] and returns how many were removed. The complexity is O(log n + k).
func (s *Set) RemRangeByScore(min, max ScoreBound) int {
	lo, hi := s.scoreSpan(min, max)
	s.deleteRange(lo, hi)
	return hi - lo
}

// RemRangeByLex is ZREMRANGEBYLEX min max: it removes the entries whose member lies within
// [min, max] and returns how many were removed. The complexity is O(log n + k).
func (s *Set) RemRangeByLex(min, max LexBound) int {
	lo, hi := s.lexSpan(min, max)
	s.deleteRange(lo, hi)
	return hi - lo
}

// RandMember is ZRANDMEMBER key count: with count > 0 it returns min(count, Len) distinct
// members, in random order when count < Len and in the set's order when count ≥ Len (as
// Redis does); with count < 0 it returns -count members picked independently (repeats
// possible); with count == 0 or an empty set it returns nothing. r supplies the
// randomness; nil uses the package-level source of math/rand/v2.
//
// Memory grows with the entries returned, never ahead of them by more than a few KiB,
// so a huge count costs only what is produced (callers bound the reply; Redis streams
// it). Each pick costs O(log n) in a tree and O(1) in a small set after an O(n) setup.
func (s *Set) RandMember(r *rand.Rand, count int) []Entry {
	n := s.Len()
	if count == 0 || n == 0 {
		return nil
	}
	if count >= n {
		return s.collect(0, n, false)
	}
	intN := rand.IntN
	if r != nil {
		intN = r.IntN
	}
	pick := s.picker()
	if count < 0 {
		k := uint(-count) // -MinInt is MinInt: as uint it is 2^63
		out := make([]Entry, 0, min(k, randBatch))
		for ; k > 0; k-- {
			out = append(out, pick(intN(n)))
		}
		return out
	}
	// Floyd's algorithm: count distinct ranks with count picks (count < n).
	seen := make(map[int]struct{}, count)
	out := make([]Entry, 0, count)
	for j := n - count; j < n; j++ {
		t := intN(j + 1)
		if _, dup := seen[t]; dup {
			t = j
		}
		seen[t] = struct{}{}
		out = append(out, pick(t))
	}
	// Floyd's picks are a uniform subset but not in uniform order: shuffle.
	for i := len(out) - 1; i > 0; i-- {
		j := intN(i + 1)
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// randBatch bounds the entries that RandMember allocates ahead of producing them.
const randBatch = 256

// picker returns a function giving the entry at a rank, with a member the caller may
// keep. For a small set it decodes an immutable snapshot once, so each call is O(1) and
// repeated picks share their member bytes.
func (s *Set) picker() func(rank int) Entry {
	if s.tree() != nil {
		return s.tree().at
	}
	p := s.snapshot()
	offs := make([]int32, 0, s.n)
	for off := 0; off < len(p); off = p.skip(off) {
		offs = append(offs, int32(off))
	}
	return func(rank int) Entry {
		sc, m, _ := p.entry(int(offs[rank]))
		return Entry{Member: m, Score: sc}
	}
}

// All returns an iterator over the entries in ascending order.
//
// The set may be modified while iterating (including from inside the loop body): each
// step continues with the first entry greater than the last one yielded, so every entry
// present for the whole iteration is yielded exactly once, entries removed before they are
// reached are not yielded, and entries added ahead of the position are. Each step costs
// O(1) amortised, or O(log n) after a modification (O(n) in a small set).
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
		s.walk(false, lo, func(m string, f float64) bool { return !aboveMax(f, max) }, yield)
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
		s.walk(true, hi-1, func(m string, f float64) bool { return !belowMin(f, min) }, yield)
	}
}

// LexRange returns an iterator over the entries whose member lies within [min, max] in
// ascending order (ZRANGEBYLEX; all members are assumed to have the same score).
// Modifications while iterating behave as for [Set.All]. Finding the first entry costs
// O(log n); each step then costs as for [Set.All].
func (s *Set) LexRange(min, max LexBound) iter.Seq2[string, float64] {
	return func(yield func(string, float64) bool) {
		lo, _ := s.lexSpan(min, max)
		s.walk(false, lo, func(m string, f float64) bool { return !lexAboveMax(m, max) }, yield)
	}
}

// RevLexRange returns an iterator over the entries whose member lies within [min, max] in
// descending order (ZREVRANGEBYLEX). Modifications while iterating behave as for
// [Set.All], walking downwards. Costs are as for [Set.LexRange].
func (s *Set) RevLexRange(max, min LexBound) iter.Seq2[string, float64] {
	return func(yield func(string, float64) bool) {
		_, hi := s.lexSpan(min, max)
		s.walk(true, hi-1, func(m string, f float64) bool { return !lexBelowMin(m, min) }, yield)
	}
}

// walk yields entries from rank pos upwards (downwards when reverse) while in accepts
// them. Each encoding walks until the set changes (s.mods moves: the loop body may change
// it, even convert it); then the walk finds its place again by the key of the last entry
// yielded, in whichever encoding the set now has.
func (s *Set) walk(reverse bool, pos int, in func(string, float64) bool, yield func(string, float64) bool) {
	for pos >= 0 && pos < s.Len() {
		var m string
		var f float64
		var done bool
		if s.tree() != nil {
			m, f, done = s.tree().walk(reverse, pos, in, yield, &s.mods)
		} else {
			m, f, done = s.smWalk(reverse, pos, in, yield)
		}
		if done {
			return
		}
		pos = s.rankOf(m, f)
		if reverse {
			pos--
		} else if g, ok := s.Score(m); ok && g == f {
			pos++
		}
	}
}

// smWalk is walk over the small encoding, from an immutable snapshot so that the members
// yielded need no copy each. It returns done, or the last entry yielded when the set
// changed.
func (s *Set) smWalk(reverse bool, pos int, in func(string, float64) bool, yield func(string, float64) bool) (string, float64, bool) {
	p := s.snapshot()
	mods := s.mods
	var offs []int32 // for walking down: the offsets of ranks 0..pos
	off := 0
	if reverse {
		offs = make([]int32, 0, pos+1)
		for r := 0; r <= pos; r++ {
			offs = append(offs, int32(off))
			off = p.skip(off)
		}
	} else {
		off = p.offsetOf(pos)
	}
	for {
		if reverse {
			off = int(offs[pos])
		}
		sc, m, next := p.entry(off)
		if !in(m, sc) || !yield(m, sc) {
			return "", 0, true
		}
		if s.mods != mods {
			return m, sc, false
		}
		if reverse {
			if pos--; pos < 0 {
				return "", 0, true
			}
		} else if off = next; off >= len(p) {
			return "", 0, true
		}
	}
}

// rankOf returns the number of entries ordered before (score, m).
func (s *Set) rankOf(m string, score float64) int {
	if s.tree() != nil {
		return s.tree().rankOf(m, score)
	}
	r, _ := s.small().lower(score, m)
	return r
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

// Clone returns an independent copy of the set, in the same encoding and with the same
// limits (as Redis's COPY keeps a key's encoding). The complexity is O(n).
func (s *Set) Clone() *Set {
	c := &Set{n: s.n, limE: s.limE, limV: s.limV}
	if s.tree() != nil {
		e := s.tree().clone()
		c.setTree(&e)
	} else if sm := s.smBytes(); len(sm) > 0 {
		c.setSm(append(smAlloc(len(sm)), sm...))
		c.setIndexed(s.indexed())
	}
	return c
}
