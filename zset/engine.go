package zset

import (
	"slices"
	"sort"
)

// engine stores the entries: a sorted slice plus a member index. It is the simple
// implementation behind the public API.
type engine struct {
	ents  []Entry
	index map[string]float64
	mods  uint64 // incremented by every write, for iterators
}

func less(s1 float64, m1 string, s2 float64, m2 string) bool {
	if s1 != s2 {
		return s1 < s2
	}
	return m1 < m2
}

func (e *engine) length() int { return len(e.ents) }

func (e *engine) lookup(m string) (float64, bool) {
	f, ok := e.index[m]
	return f, ok
}

// rankOf returns the number of entries ordered before (score, m).
func (e *engine) rankOf(m string, score float64) int {
	return sort.Search(len(e.ents), func(i int) bool {
		return !less(e.ents[i].Score, e.ents[i].Member, score, m)
	})
}

func (e *engine) insert(m string, score float64) {
	if e.index == nil {
		e.index = make(map[string]float64)
	}
	e.mods++
	i := e.rankOf(m, score)
	e.ents = slices.Insert(e.ents, i, Entry{Member: m, Score: score})
	e.index[m] = score
}

func (e *engine) update(m string, old, score float64) {
	e.delete(m, old)
	e.insert(m, score)
}

func (e *engine) delete(m string, score float64) {
	e.mods++
	i := e.rankOf(m, score)
	e.ents = slices.Delete(e.ents, i, i+1)
	delete(e.index, m)
}

func (e *engine) at(i int) Entry { return e.ents[i] }

// countScoreBelow returns the number of entries with a score below f (at most f when
// orEqual).
func (e *engine) countScoreBelow(f float64, orEqual bool) int {
	return sort.Search(len(e.ents), func(i int) bool {
		if orEqual {
			return e.ents[i].Score > f
		}
		return e.ents[i].Score >= f
	})
}

// countLexBelow returns the number of entries with a member below m (at most m when
// orEqual), assuming the members are sorted.
func (e *engine) countLexBelow(m string, orEqual bool) int {
	return sort.Search(len(e.ents), func(i int) bool {
		if orEqual {
			return e.ents[i].Member > m
		}
		return e.ents[i].Member >= m
	})
}

// ascend calls fn for up to k entries from rank i upwards.
func (e *engine) ascend(i, k int, fn func(Entry) bool) {
	for ; k > 0 && i < len(e.ents); i, k = i+1, k-1 {
		if !fn(e.ents[i]) {
			return
		}
	}
}

// descend calls fn for up to k entries from rank i downwards.
func (e *engine) descend(i, k int, fn func(Entry) bool) {
	for ; k > 0 && i >= 0; i, k = i-1, k-1 {
		if !fn(e.ents[i]) {
			return
		}
	}
}

// deleteRange removes the entries at ranks [lo, hi).
func (e *engine) deleteRange(lo, hi int) {
	if lo >= hi {
		return
	}
	e.mods++
	for _, x := range e.ents[lo:hi] {
		delete(e.index, x.Member)
	}
	e.ents = slices.Delete(e.ents, lo, hi)
}

func (e *engine) clone() engine {
	c := engine{ents: slices.Clone(e.ents)}
	if len(e.ents) > 0 {
		c.index = make(map[string]float64, len(e.ents))
		for _, x := range e.ents {
			c.index[x.Member] = x.Score
		}
	}
	return c
}
