package zset

// PopMinFunc is ZPOPMIN key count for a caller that consumes the entries at once,
// such as a server writing its reply: it removes up to count entries with the lowest
// scores and calls f with each, lowest first, and returns how many it removed. The
// member f is given is a view of the set's storage, valid only during the call: f
// must copy what it keeps and must not use the set. Unlike [Set.PopMinN], a pop
// copies no member and builds no slice (a small set popping more than one entry
// still copies them). A count ≤ 0 removes nothing. The complexity is O(log n + k).
func (s *Set) PopMinFunc(count int, f func(member string, score float64)) int {
	return s.popFunc(count, false, f)
}

// PopMaxFunc is [Set.PopMinFunc] taking the highest scores, highest first (ZPOPMAX
// key count). The complexity is O(log n + k).
func (s *Set) PopMaxFunc(count int, f func(member string, score float64)) int {
	return s.popFunc(count, true, f)
}

// popFunc is PopMinFunc, or PopMaxFunc when max is set.
func (s *Set) popFunc(count int, max bool, f func(string, float64)) int {
	n := s.Len()
	k := min(count, n)
	if k <= 0 {
		return 0
	}
	lo := 0
	if max {
		lo = n - k
	}
	switch e := s.tree(); {
	case k == 1:
		s.popAtFunc(lo, f)
	case e != nil:
		// Views of the k entries, read before any of them is removed.
		var c cursor
		if max {
			e.seek(&c, n-1)
		} else {
			e.seek(&c, lo)
		}
		for i := 0; i < k; i++ {
			f(e.sl.member(c.l.hs[c.i]), c.l.sc[c.i])
			if max {
				c.prev()
			} else {
				c.next()
			}
		}
		s.deleteRange(lo, lo+k)
	default:
		// A small set: at most a few hundred entries, copied as PopMinN does.
		out := s.collect(lo, lo+k, max)
		s.deleteRange(lo, lo+k)
		for _, en := range out {
			f(en.Member, en.Score)
		}
	}
	return k
}

// popAtFunc removes the entry at rank r, passing it to f first as popFunc does.
func (s *Set) popAtFunc(r int, f func(string, float64)) {
	s.mods++
	if e := s.tree(); e != nil {
		e.delRank(r, 1, func(h uint32) {
			f(e.sl.member(h), e.sl.score(h))
			e.drop(h)
		})
		e.n--
		e.compact()
		s.dropEmptyTree()
		return
	}
	v := s.small()
	off := v.offsetOf(r)
	sc, m, next := v.p.entry(off)
	f(m, sc)
	s.smCut(r, off, next, 1)
}
