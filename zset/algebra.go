package zset

import (
	"cmp"
	"math"
	"slices"
)

// Aggregate is how [Union] and [Inter] combine the weighted scores of a member that is in
// several sets: Redis's AGGREGATE SUM|MIN|MAX option. The zero value is Sum, Redis's
// default; values other than the three constants act as Sum.
type Aggregate int

const (
	// Sum adds the weighted scores; a sum of +inf and -inf is 0, as in Redis.
	Sum Aggregate = iota
	// Min keeps the least weighted score.
	Min
	// Max keeps the greatest weighted score.
	Max
)

// Union returns the union of sets as ZUNION and ZUNIONSTORE compute it: every member of
// any set, with the aggregate of its weighted scores in the sets that hold it. A nil
// *Set is an empty set (Redis's missing key); the inputs are not modified.
//
// weights[i] multiplies the scores of sets[i]; nil weights are all 1, and otherwise
// len(weights) must be len(sets) (Union panics if not). As in Redis, a weighted score
// that is NaN (0 × ±inf) counts as 0, a Sum that is NaN (+inf + -inf) becomes 0, and the
// sets are combined from the smallest to the largest (Redis's sort by size, stable for
// equal sizes), an order that can matter: with Sum, +inf, -inf and 5 give 5 in that
// order and 0 in the order +inf, 5, -inf; with Min and Max, the first of 0 and -0 stays.
//
// The complexity is O(N + M log M) for N entries in all sets and M in the result.
func Union(sets []*Set, weights []float64, agg Aggregate) *Set {
	in := bySize(sets, weights)
	largest := 0
	if len(in) > 0 {
		largest = in[len(in)-1].len
	}
	index := make(map[string]int, largest) // member → its position in entries
	entries := make([]Entry, 0, largest)
	for _, x := range in {
		if x.len == 0 {
			continue
		}
		for m, score := range x.s.All() {
			v := weigh(x.w, score)
			if i, ok := index[m]; ok {
				entries[i].Score = aggregate(entries[i].Score, v, agg)
			} else {
				index[m] = len(entries)
				entries = append(entries, Entry{Member: m, Score: v})
			}
		}
	}
	return fromEntries(entries, limitsOf(sets))
}

// Inter returns the intersection of sets as ZINTER and ZINTERSTORE compute it: the members
// that are in every set, with the aggregate of their weighted scores. A nil *Set is an
// empty set (Redis's missing key), which makes the result empty; no sets give an empty
// result too. weights are as for [Union].
//
// As in Redis, the smallest set is walked and the members looked up in the others,
// from the smallest to the largest, and the Redis rules for NaN follow that order: the
// weighted score in the smallest set is 0 when it is NaN (0 × ±inf), but a NaN weighted
// score in another set is aggregated as it is, so that a Sum becomes 0 (NaN sums are 0)
// and Min and Max ignore it (it compares false).
//
// The complexity is O(N × K + M log M) for N members in the smallest of K sets and M in
// the result; each lookup is an expected O(1).
func Inter(sets []*Set, weights []float64, agg Aggregate) *Set {
	in := bySize(sets, weights)
	if len(in) == 0 || in[0].len == 0 {
		return NewWithLimits(limitsOf(sets))
	}
	var entries []Entry
	for m, score := range in[0].s.All() {
		if acc, ok := interScore(in, m, score, agg); ok {
			entries = append(entries, Entry{Member: m, Score: acc})
		}
	}
	return fromEntries(entries, limitsOf(sets))
}

// InterCard returns the number of members that are in every set, as ZINTERCARD does,
// counting up to limit: when limit > 0 it stops there and returns limit (Redis's LIMIT);
// limit 0 (or negative) counts all. A nil *Set is an empty set, which makes the count 0;
// no sets count 0.
//
// The complexity is O(N × K) for N members in the smallest of K sets (less with a
// limit), without allocating a result.
func InterCard(sets []*Set, limit int) int {
	in := bySize(sets, nil)
	if len(in) == 0 || in[0].len == 0 {
		return 0
	}
	n := 0
	for m := range in[0].s.All() {
		if inAll(in[1:], m) {
			n++
			if n == limit {
				break
			}
		}
	}
	return n
}

// Diff returns the members of sets[0] that are in none of the other sets, with their
// scores in sets[0], as ZDIFF and ZDIFFSTORE compute it. A nil *Set is an empty set
// (Redis's missing key); no sets give an empty result. The inputs are not modified.
//
// Like Redis, it picks the cheaper of two ways: look up each member of sets[0] in the
// others, O(N × K + M log M) for N members in sets[0], K sets and M in the result; or
// copy sets[0] and remove the members of the others from the copy, O(N + L log N) for L
// members in the other sets.
func Diff(sets []*Set) *Set {
	lim := limitsOf(sets)
	if len(sets) == 0 || setLen(sets[0]) == 0 {
		return NewWithLimits(lim)
	}
	first, rest := sets[0], sets[1:]
	lookups, removals := first.Len(), first.Len()
	for _, s := range rest {
		if s == first {
			return NewWithLimits(lim) // every member is removed
		}
		lookups += first.Len()
		removals += setLen(s)
	}
	// Redis's choice, favouring lookups, which stop at the first set holding a member.
	if lookups/2 <= removals {
		var entries []Entry
		for m, score := range first.All() {
			if !inAny(rest, m) {
				entries = append(entries, Entry{Member: m, Score: score})
			}
		}
		return fromEntries(entries, lim)
	}
	res := first.Clone()
	for _, s := range rest {
		if setLen(s) == 0 {
			continue
		}
		for m := range s.All() {
			res.Remove(m)
		}
		if res.Len() == 0 {
			break
		}
	}
	res.toSmallIfFits(true)
	return res
}

// weightedSet is one input of a set operation.
type weightedSet struct {
	s   *Set
	w   float64
	len int
}

// bySize pairs sets with their weights (1 when weights is nil) and sorts them by size,
// keeping the given order among equal sizes, as Redis does (glibc's qsort, a merge sort
// there, is stable).
func bySize(sets []*Set, weights []float64) []weightedSet {
	if weights != nil && len(weights) != len(sets) {
		panic("zset: the number of weights differs from the number of sets")
	}
	in := make([]weightedSet, len(sets))
	for i, s := range sets {
		in[i] = weightedSet{s: s, w: 1, len: setLen(s)}
		if weights != nil {
			in[i].w = weights[i]
		}
	}
	slices.SortStableFunc(in, func(a, b weightedSet) int { return cmp.Compare(a.len, b.len) })
	return in
}

// interScore aggregates member m, of score score in in[0], over the other inputs, and
// reports whether m is in all of them.
func interScore(in []weightedSet, m string, score float64, agg Aggregate) (float64, bool) {
	acc := weigh(in[0].w, score)
	for _, x := range in[1:] {
		v, ok := x.s.Score(m)
		if !ok {
			return 0, false
		}
		acc = aggregate(acc, v*x.w, agg) // not weigh: Redis lets this NaN through
	}
	return acc, true
}

func inAll(sets []weightedSet, m string) bool {
	for _, x := range sets {
		if _, ok := x.s.Score(m); !ok {
			return false
		}
	}
	return true
}

func inAny(sets []*Set, m string) bool {
	for _, s := range sets {
		if s == nil {
			continue
		}
		if _, ok := s.Score(m); ok {
			return true
		}
	}
	return false
}

// weigh returns w × score, or 0 when that is NaN (0 × ±inf), as Redis's ZUNION does.
func weigh(w, score float64) float64 {
	if v := w * score; v == v {
		return v
	}
	return 0
}

// aggregate combines acc with v as Redis's zunionInterAggregate does.
func aggregate(acc, v float64, agg Aggregate) float64 {
	switch agg {
	case Min:
		if v < acc {
			return v
		}
		return acc
	case Max:
		if v > acc {
			return v
		}
		return acc
	}
	if s := acc + v; s == s {
		return s
	}
	return 0 // +inf + -inf
}

func setLen(s *Set) int {
	if s == nil {
		return 0
	}
	return s.Len()
}

// limitsOf returns the limits of the first non-nil set, which the result of a set
// operation takes (Redis applies its one configuration), or [DefaultLimits].
func limitsOf(sets []*Set) Limits {
	for _, s := range sets {
		if s != nil {
			return s.Limits()
		}
	}
	return DefaultLimits
}

// fromEntries builds a set of distinct members with limits lim: small when they fit the
// limits and no score is -0, a tree otherwise (see Set.toSmallIfFits).
func fromEntries(entries []Entry, lim Limits) *Set {
	slices.SortFunc(entries, func(a, b Entry) int {
		if c := cmp.Compare(a.Score, b.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Member, b.Member)
	})
	s := NewWithLimits(lim)
	fits := s.tree() == nil && len(entries) <= lim.Entries
	for i := 0; fits && i < len(entries); i++ {
		fits = len(entries[i].Member) <= lim.Value && !(entries[i].Score == 0 && math.Signbit(entries[i].Score))
	}
	if !fits {
		if s.tree() == nil {
			s.toTree()
		}
		for _, e := range entries {
			s.tree().insert(e.Member, e.Score)
		}
		return s
	}
	for _, e := range entries {
		s.smAppend(e.Member, e.Score) // sorted: each entry goes last
	}
	s.smFit()
	return s
}
