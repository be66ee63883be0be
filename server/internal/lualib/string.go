package lualib

import (
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// OpenString opens gopher-lua's string library into L's globals and replaces
// every function of Lua 5.1's string library with one that behaves as Redis's
// Lua 5.1 does (texts of errors included), builds no string longer than
// MaxString, and checks L's context in every loop whose length the caller
// chooses. Strings get Lua's metatable, {__index = string}, so that s:upper()
// works. The cost is O(1).
func OpenString(L *lua.LState) {
	t := openLib(L, lua.StringLibName, lua.OpenString)
	setFuncs(L, t, map[string]lua.LGFunction{
		"byte":    strByte,
		"char":    strChar,
		"dump":    strDump,
		"find":    strFind,
		"format":  strFormat,
		"gfind":   strGmatch,
		"gmatch":  strGmatch,
		"gsub":    strGsub,
		"len":     strLen,
		"lower":   strLower,
		"match":   strMatch,
		"rep":     strRep,
		"reverse": strReverse,
		"sub":     strSub,
		"upper":   strUpper,
	})
	t.RawSetString("__index", lua.LNil) // gopher-lua makes the table its own metatable
	mt := L.NewTable()
	mt.RawSetString("__index", t)
	L.SetMetatable(lua.LString(""), mt)
}

// posRelat is Lua 5.1's posrelat: a negative position counts from the end.
func posRelat(pos int64, n int) int64 {
	if pos >= 0 {
		return pos
	}
	return int64(n) + pos + 1
}

func strLen(L *lua.LState) int {
	L.Push(lua.LNumber(len(checkString(L, 1, "len"))))
	return 1
}

func strSub(L *lua.LState) int {
	s := checkString(L, 1, "sub")
	i := posRelat(toInteger(checkNumber(L, 2, "sub")), len(s))
	j := posRelat(optInteger(L, 3, "sub", -1), len(s))
	if i < 1 {
		i = 1
	}
	if j > int64(len(s)) {
		j = int64(len(s))
	}
	if i > j {
		L.Push(lua.LString(""))
	} else {
		L.Push(lua.LString(s[i-1 : j]))
	}
	return 1
}

func strLower(L *lua.LState) int {
	L.Push(lua.LString(mapBytes(checkString(L, 1, "lower"), 'A', 'Z')))
	return 1
}

func strUpper(L *lua.LState) int {
	L.Push(lua.LString(mapBytes(checkString(L, 1, "upper"), 'a', 'z')))
	return 1
}

// mapBytes flips the case of s's bytes from lo to hi (C's tolower or toupper in
// the C locale: ASCII letters only).
func mapBytes(s string, lo, hi byte) string {
	b := []byte(s)
	for i, c := range b {
		if c >= lo && c <= hi {
			b[i] = c ^ 0x20
		}
	}
	return string(b)
}

func strReverse(L *lua.LState) int {
	s := checkString(L, 1, "reverse")
	b := make([]byte, len(s))
	for i := range b {
		b[i] = s[len(s)-1-i]
	}
	L.Push(lua.LString(b))
	return 1
}

// maxResults is LUAI_MAXCSTACK: a C function's stack holds at most this many
// values, its arguments included.
const maxResults = 8000

func strByte(L *lua.LState) int {
	s := checkString(L, 1, "byte")
	i := posRelat(optInteger(L, 2, "byte", 1), len(s))
	j := posRelat(optInteger(L, 3, "byte", i), len(s))
	if i <= 0 {
		i = 1
	}
	if j > int64(len(s)) {
		j = int64(len(s))
	}
	if i > j {
		return 0
	}
	n := j - i + 1
	if n+int64(L.GetTop()) > maxResults {
		raise(L, "stack overflow (string slice too long)")
	}
	for k := i - 1; k < j; k++ {
		L.Push(lua.LNumber(s[k]))
	}
	return int(n)
}

func strChar(L *lua.LState) int {
	n := L.GetTop()
	b := make([]byte, n)
	for i := range b {
		c := checkInt(L, i+1, "char")
		if c < 0 || c > 255 {
			argError(L, i+1, "char", "invalid value")
		}
		b[i] = byte(c)
	}
	L.Push(lua.LString(b))
	return 1
}

func strDump(L *lua.LState) int {
	if _, ok := L.Get(1).(*lua.LFunction); !ok {
		typeError(L, 1, "dump", "function")
	}
	raise(L, "unable to dump given function")
	return 0
}

// repChunk is how many bytes strRep copies between two checks of the context.
const repChunk = 1 << 20

func strRep(L *lua.LState) int {
	s := checkString(L, 1, "rep")
	n := checkInt(L, 2, "rep")
	if n <= 0 || s == "" {
		L.Push(lua.LString(""))
		return 1
	}
	total := int64(len(s)) * int64(n)
	checkLen(L, total)
	b := make([]byte, 0, total)
	b = append(b, s...)
	for int64(len(b)) < total {
		k := min(len(b), int(total)-len(b), repChunk)
		k = max(k-k%len(s), len(s)) // whole copies of s keep b a prefix of s, s, ...
		b = append(b, b[:k]...)
		interrupted(L)
	}
	L.Push(lua.LString(b))
	return 1
}

// strFindAux is string.find (find) and string.match.
func strFindAux(L *lua.LState, find bool) int {
	fname := "match"
	if find {
		fname = "find"
	}
	s := checkString(L, 1, fname)
	p := checkString(L, 2, fname)
	init := posRelat(optInteger(L, 3, fname, 1), len(s)) - 1
	if init < 0 {
		init = 0
	} else if init > int64(len(s)) {
		init = int64(len(s))
	}
	if find {
		plain := lua.LVAsBool(L.Get(4))
		cut := p
		if i := strings.IndexByte(cut, 0); i >= 0 {
			cut = cut[:i]
		}
		if plain || !strings.ContainsAny(cut, specials) {
			i := strings.Index(s[init:], p)
			if i < 0 {
				L.Push(lua.LNil)
				return 1
			}
			L.Push(lua.LNumber(int(init) + i + 1))
			L.Push(lua.LNumber(int(init) + i + len(p)))
			return 2
		}
	}
	m := newMatcher(L, s, p)
	pp := 0
	anchor := m.pat != "" && m.pat[0] == '^'
	if anchor {
		pp = 1
	}
	for s1 := int(init); ; s1++ {
		m.reset()
		if e := m.match(s1, pp); e >= 0 {
			if find {
				L.Push(lua.LNumber(s1 + 1))
				L.Push(lua.LNumber(e))
				return m.pushCaptures(-1, -1, false) + 2
			}
			return m.pushCaptures(s1, e, true)
		}
		if s1 >= len(s) || anchor {
			break
		}
	}
	L.Push(lua.LNil)
	return 1
}

func strFind(L *lua.LState) int  { return strFindAux(L, true) }
func strMatch(L *lua.LState) int { return strFindAux(L, false) }

func strGmatch(L *lua.LState) int {
	s := checkString(L, 1, "gmatch")
	p := checkString(L, 2, "gmatch")
	pos := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		m := newMatcher(L, s, p)
		for src := pos; src <= len(s); src++ {
			m.reset()
			if e := m.match(src, 0); e >= 0 {
				pos = e
				if e == src {
					pos++
				}
				return m.pushCaptures(src, e, true)
			}
		}
		pos = len(s) + 1
		return 0
	}))
	return 1
}

func strGsub(L *lua.LState) int {
	src := checkString(L, 1, "gsub")
	p := checkString(L, 2, "gsub")
	repl := L.Get(3)
	switch repl.Type() {
	case lua.LTNumber, lua.LTString, lua.LTFunction, lua.LTTable:
	default:
		argError(L, 3, "gsub", "string/function/table expected")
	}
	maxN := optInt(L, 4, "gsub", len(src)+1)
	m := newMatcher(L, src, p)
	pp := 0
	anchor := m.pat != "" && m.pat[0] == '^'
	if anchor {
		pp = 1
	}
	var b strings.Builder
	grow := func(s string) {
		checkLen(L, int64(b.Len())+int64(len(s)))
		b.WriteString(s)
	}
	s, n := 0, 0
loop:
	for n < maxN {
		m.reset()
		e := m.match(s, pp)
		if e >= 0 {
			n++
			grow(m.replacement(repl, s, e))
		}
		switch {
		case e > s:
			s = e
		case s < len(src):
			grow(src[s : s+1])
			s++
		default:
			break loop
		}
		if anchor {
			break
		}
	}
	if s < len(src) {
		grow(src[s:])
	}
	L.Push(lua.LString(b.String()))
	L.Push(lua.LNumber(n))
	return 2
}

// replacement is gsub's replacement of the match from s to e by repl.
func (m *matcher) replacement(repl lua.LValue, s, e int) string {
	L := m.L
	var v lua.LValue
	switch r := repl.(type) {
	case *lua.LTable:
		v = L.GetTable(r, m.oneCapture(0, s, e))
	case *lua.LFunction:
		L.Push(r)
		n := m.pushCaptures(s, e, true)
		L.Call(n, 1)
		v = L.Get(-1)
		L.Pop(1)
	default:
		str, _ := toString(repl)
		return m.replaceString(str, s, e)
	}
	if !lua.LVAsBool(v) {
		return m.src[s:e]
	}
	str, ok := toString(v)
	if !ok {
		m.errorf("invalid replacement value (a %s)", v.Type().String())
	}
	return str
}

// replaceString expands a gsub replacement string: %0 is the match, %1-%9 its
// captures, and % before any other byte is that byte (a % at the end stands for
// the NUL byte that ends a C string, as in Lua 5.1).
func (m *matcher) replaceString(r string, s, e int) string {
	if strings.IndexByte(r, '%') < 0 {
		return r
	}
	m.spend(len(r))
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		var d byte
		if i < len(r) {
			d = r[i]
		}
		switch {
		case d == '0':
			b.WriteString(m.src[s:e])
		case d >= '1' && d <= '9':
			v, _ := toString(m.oneCapture(int(d-'1'), s, e))
			b.WriteString(v)
		default:
			b.WriteByte(d)
		}
		checkLen(m.L, int64(b.Len()))
	}
	return b.String()
}
