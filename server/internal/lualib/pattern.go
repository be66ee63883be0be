package lualib

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Lua 5.1's patterns (the reference manual's section 5.4.1), matched by
// backtracking as Lua does, with two bounds Lua lacks: the matcher checks the
// state's context as it goes (a pattern such as ".-.-.-b" takes time of the
// subject's length to a power), and its recursion, one level per quantified
// item or capture being tried, stops at maxMatchDepth with Lua 5.2's error
// "pattern too complex" instead of growing the stack with the pattern's size.
// Lua 5.1 has no such bound (its C stack is the limit); 2,000 levels, far more
// than a pattern written by hand has, take a few hundred kilobytes of stack.

const (
	maxCaptures   = 32 // LUA_MAXCAPTURES
	maxMatchDepth = 2000
	capUnfinished = -1 // a capture opened and not yet closed
	capPosition   = -2 // a position capture, "()"
)

// specials are the bytes that make a pattern more than a plain string.
const specials = "^$*+?.([%-"

type capture struct{ init, len int }

// matcher is one pattern match in progress over src.
type matcher struct {
	L       *lua.LState
	src     string
	pat     string
	level   int // captures opened so far
	capture [maxCaptures]capture
	depth   int
	budget  int // steps left before the next check of the context
}

func newMatcher(L *lua.LState, src, pat string) *matcher {
	// Lua 5.1 reads a pattern as a C string: it ends at its first NUL byte.
	if i := strings.IndexByte(pat, 0); i >= 0 {
		pat = pat[:i]
	}
	return &matcher{L: L, src: src, pat: pat, budget: interruptEvery}
}

// spend counts n steps of work and checks the context every interruptEvery steps.
func (m *matcher) spend(n int) {
	m.budget -= n
	if m.budget <= 0 {
		m.budget = interruptEvery
		interrupted(m.L)
	}
}

func (m *matcher) errorf(format string, args ...any) {
	raise(m.L, format, args...)
}

// classEnd returns the index just past the single-character class at p.
func (m *matcher) classEnd(p int) int {
	pat := m.pat
	c := pat[p]
	p++
	switch c {
	case '%':
		if p >= len(pat) {
			m.errorf("malformed pattern (ends with '%%')")
		}
		return p + 1
	case '[':
		start := p
		if p < len(pat) && pat[p] == '^' {
			p++
		}
		for {
			if p >= len(pat) {
				m.errorf("malformed pattern (missing ']')")
			}
			c := pat[p]
			p++
			if c == '%' && p < len(pat) {
				p++
			}
			if p < len(pat) && pat[p] == ']' {
				break
			}
		}
		m.spend(p - start)
		return p + 1
	}
	return p
}

// matchClass reports whether c is in the class %cl.
func matchClass(c, cl byte) bool {
	var res bool
	switch cl | 0x20 {
	case 'a':
		res = isAlpha(c)
	case 'c':
		res = c < 32 || c == 127
	case 'd':
		res = c >= '0' && c <= '9'
	case 'l':
		res = c >= 'a' && c <= 'z'
	case 'p':
		res = c > 32 && c < 127 && !isAlpha(c) && !(c >= '0' && c <= '9')
	case 's':
		res = isSpace(c)
	case 'u':
		res = c >= 'A' && c <= 'Z'
	case 'w':
		res = isAlpha(c) || c >= '0' && c <= '9'
	case 'x':
		res = c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f'
	case 'z':
		res = c == 0
	default:
		return cl == c
	}
	if cl >= 'A' && cl <= 'Z' {
		return !res
	}
	return res
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// matchSet reports whether c is in the set whose '[' is at p and ']' at ec.
func (m *matcher) matchSet(c byte, p, ec int) bool {
	pat := m.pat
	in := true
	if pat[p+1] == '^' {
		in = false
		p++
	}
	m.spend(ec - p)
	for p++; p < ec; p++ {
		switch {
		case pat[p] == '%':
			p++
			if matchClass(c, pat[p]) {
				return in
			}
		case pat[p+1] == '-' && p+2 < ec:
			if pat[p] <= c && c <= pat[p+2] {
				return in
			}
			p += 2
		case pat[p] == c:
			return in
		}
	}
	return !in
}

// singleMatch reports whether src[s] exists and is in the class from p to ep.
func (m *matcher) singleMatch(s, p, ep int) bool {
	if s >= len(m.src) {
		return false
	}
	c := m.src[s]
	switch m.pat[p] {
	case '.':
		return true
	case '%':
		return matchClass(c, m.pat[p+1])
	case '[':
		return m.matchSet(c, p, ep-1)
	}
	return m.pat[p] == c
}

// match matches the pattern from p against src from s and returns the end of
// the match, or -1.
func (m *matcher) match(s, p int) int {
	m.depth++
	if m.depth > maxMatchDepth {
		m.errorf("pattern too complex")
	}
	r := m.matchHere(s, p)
	m.depth--
	return r
}

// matchHere is match at the current depth.
func (m *matcher) matchHere(s, p int) int {
	pat := m.pat
	for {
		m.spend(1)
		if p >= len(pat) {
			return s
		}
		switch pat[p] {
		case '(':
			if p+1 < len(pat) && pat[p+1] == ')' {
				return m.startCapture(s, p+2, capPosition)
			}
			return m.startCapture(s, p+1, capUnfinished)
		case ')':
			return m.endCapture(s, p+1)
		case '$':
			if p+1 == len(pat) {
				if s == len(m.src) {
					return s
				}
				return -1
			}
		case '%':
			if p+1 < len(pat) {
				switch c := pat[p+1]; {
				case c == 'b':
					if s = m.matchBalance(s, p+2); s < 0 {
						return -1
					}
					p += 4
					continue
				case c == 'f':
					p += 2
					if p >= len(pat) || pat[p] != '[' {
						m.errorf("missing '[' after '%%f' in pattern")
					}
					ep := m.classEnd(p)
					var prev, cur byte
					if s > 0 {
						prev = m.src[s-1]
					}
					if s < len(m.src) {
						cur = m.src[s]
					}
					if m.matchSet(prev, p, ep-1) || !m.matchSet(cur, p, ep-1) {
						return -1
					}
					p = ep
					continue
				case c >= '0' && c <= '9':
					if s = m.matchCapture(s, c); s < 0 {
						return -1
					}
					p += 2
					continue
				}
			}
		}
		ep := m.classEnd(p)
		ok := m.singleMatch(s, p, ep)
		if ep < len(pat) {
			switch pat[ep] {
			case '?':
				if ok {
					if r := m.match(s+1, ep+1); r >= 0 {
						return r
					}
				}
				p = ep + 1
				continue
			case '*':
				return m.maxExpand(s, p, ep)
			case '+':
				if !ok {
					return -1
				}
				return m.maxExpand(s+1, p, ep)
			case '-':
				return m.minExpand(s, p, ep)
			}
		}
		if !ok {
			return -1
		}
		s++
		p = ep
	}
}

// maxExpand matches as many repetitions of the class at p as it can from s, then
// gives them back one by one until the rest of the pattern matches.
func (m *matcher) maxExpand(s, p, ep int) int {
	i := 0
	for m.singleMatch(s+i, p, ep) {
		i++
		m.spend(1)
	}
	for ; i >= 0; i-- {
		if r := m.match(s+i, ep+1); r >= 0 {
			return r
		}
	}
	return -1
}

// minExpand matches as few repetitions of the class at p as the rest needs.
func (m *matcher) minExpand(s, p, ep int) int {
	for {
		if r := m.match(s, ep+1); r >= 0 {
			return r
		}
		if !m.singleMatch(s, p, ep) {
			return -1
		}
		s++
	}
}

func (m *matcher) startCapture(s, p, what int) int {
	if m.level >= maxCaptures {
		m.errorf("too many captures")
	}
	m.capture[m.level] = capture{init: s, len: what}
	m.level++
	r := m.match(s, p)
	if r < 0 {
		m.level--
	}
	return r
}

func (m *matcher) endCapture(s, p int) int {
	l := -1
	for i := m.level - 1; i >= 0; i-- {
		if m.capture[i].len == capUnfinished {
			l = i
			break
		}
	}
	if l < 0 {
		m.errorf("invalid pattern capture")
	}
	m.capture[l].len = s - m.capture[l].init
	r := m.match(s, p)
	if r < 0 {
		m.capture[l].len = capUnfinished
	}
	return r
}

// matchBalance matches %bxy, whose x is at p, from s.
func (m *matcher) matchBalance(s, p int) int {
	if p+1 >= len(m.pat) {
		m.errorf("unbalanced pattern")
	}
	if s >= len(m.src) || m.src[s] != m.pat[p] {
		return -1
	}
	open, closing := m.pat[p], m.pat[p+1]
	depth := 1
	for s++; s < len(m.src); s++ {
		m.spend(1)
		switch m.src[s] {
		case closing:
			if depth--; depth == 0 {
				return s + 1
			}
		case open:
			depth++
		}
	}
	return -1
}

// matchCapture matches a back-reference %d to a closed capture.
func (m *matcher) matchCapture(s int, d byte) int {
	l := int(d) - '1'
	if l < 0 || l >= m.level || m.capture[l].len == capUnfinished {
		m.errorf("invalid capture index")
	}
	c := m.capture[l]
	if c.len < 0 || len(m.src)-s < c.len {
		return -1
	}
	m.spend(c.len)
	if m.src[s:s+c.len] == m.src[c.init:c.init+c.len] {
		return s + c.len
	}
	return -1
}

// oneCapture returns capture i of the match from s to e: the whole match when
// the pattern has no captures and i is 0.
func (m *matcher) oneCapture(i, s, e int) lua.LValue {
	if i >= m.level {
		if i != 0 {
			m.errorf("invalid capture index")
		}
		return lua.LString(m.src[s:e])
	}
	c := m.capture[i]
	switch c.len {
	case capUnfinished:
		m.errorf("unfinished capture")
	case capPosition:
		return lua.LNumber(c.init + 1)
	}
	return lua.LString(m.src[c.init : c.init+c.len])
}

// pushCaptures pushes the captures of the match from s to e (the whole match
// when there are none and wholeIfNone) and returns how many it pushed.
func (m *matcher) pushCaptures(s, e int, wholeIfNone bool) int {
	n := m.level
	if n == 0 && wholeIfNone {
		n = 1
	}
	for i := 0; i < n; i++ {
		m.L.Push(m.oneCapture(i, s, e))
	}
	return n
}

// reset forgets the captures of a failed or finished attempt.
func (m *matcher) reset() {
	m.level = 0
	m.depth = 0
}
