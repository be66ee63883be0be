package lualib

import (
	lua "github.com/yuin/gopher-lua"
)

// OpenTable opens gopher-lua's table library into L's globals and replaces its
// functions with Lua 5.1's (concat, foreach, foreachi, getn, insert, maxn,
// remove, setn, sort), with Lua 5.1's error texts, concat bounded by MaxString,
// and every loop whose length the caller chooses checking L's context. The cost
// is O(1).
func OpenTable(L *lua.LState) {
	t := openLib(L, lua.TabLibName, lua.OpenTable)
	setFuncs(L, t, map[string]lua.LGFunction{
		"concat":   tabConcat,
		"foreach":  tabForeach,
		"foreachi": tabForeachi,
		"getn":     tabGetn,
		"insert":   tabInsert,
		"maxn":     tabMaxn,
		"remove":   tabRemove,
		"setn":     tabSetn,
		"sort":     tabSort,
	})
}

// ticker counts the steps of a loop and checks the state's context every
// interruptEvery of them.
type ticker struct {
	L *lua.LState
	n int
}

func (t *ticker) tick() {
	if t.n++; t.n == interruptEvery {
		t.n = 0
		interrupted(t.L)
	}
}

// getn is aux_getn: argument n must be a table; its length by the # operator.
func getn(L *lua.LState, n int, fname string) (*lua.LTable, int) {
	t := checkTable(L, n, fname)
	return t, t.Len()
}

func tabGetn(L *lua.LState) int {
	_, n := getn(L, 1, "getn")
	L.Push(lua.LNumber(n))
	return 1
}

func tabSetn(L *lua.LState) int {
	checkTable(L, 1, "setn")
	raise(L, "'setn' is obsolete")
	return 0
}

func tabMaxn(L *lua.LState) int {
	t := checkTable(L, 1, "maxn")
	var max float64
	tk := ticker{L: L}
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		if n, ok := k.(lua.LNumber); ok && float64(n) > max {
			max = float64(n)
		}
		tk.tick()
	}
	L.Push(lua.LNumber(max))
	return 1
}

func tabForeachi(L *lua.LState) int {
	t, n := getn(L, 1, "foreachi")
	f := checkFunction(L, 2, "foreachi")
	for i := 1; i <= n; i++ {
		L.Push(f)
		L.Push(lua.LNumber(i))
		L.Push(rawGetInt(t, i))
		L.Call(2, 1)
		if L.Get(-1) != lua.LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}

func tabForeach(L *lua.LState) int {
	t := checkTable(L, 1, "foreach")
	f := checkFunction(L, 2, "foreach")
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		L.Push(f)
		L.Push(k)
		L.Push(v)
		L.Call(2, 1)
		if L.Get(-1) != lua.LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}

// checkFunction is luaL_checktype(L, n, LUA_TFUNCTION).
func checkFunction(L *lua.LState, n int, fname string) *lua.LFunction {
	f, ok := L.Get(n).(*lua.LFunction)
	if !ok {
		typeError(L, n, fname, "function")
	}
	return f
}

func tabInsert(L *lua.LState) int {
	t, n := getn(L, 1, "insert")
	e := int64(n) + 1 // the first empty element
	var pos int64
	switch L.GetTop() {
	case 2:
		pos = e
	case 3:
		pos = int64(checkInt(L, 2, "insert"))
		e = max(e, pos)
		tk := ticker{L: L}
		for i := e; i > pos; i-- {
			t.RawSetInt(int(i), rawGetInt(t, int(i-1)))
			tk.tick()
		}
	default:
		raise(L, "wrong number of arguments to 'insert'")
	}
	t.RawSetInt(int(pos), L.Get(L.GetTop()))
	return 0
}

func tabRemove(L *lua.LState) int {
	t, e := getn(L, 1, "remove")
	pos := optInt(L, 2, "remove", e)
	if pos < 1 || pos > e {
		return 0
	}
	L.Push(rawGetInt(t, pos))
	for ; pos < e; pos++ {
		t.RawSetInt(pos, rawGetInt(t, pos+1))
	}
	t.RawSetInt(e, lua.LNil)
	return 1
}

func tabConcat(L *lua.LState) int {
	sep := optString(L, 2, "concat", "")
	t := checkTable(L, 1, "concat")
	i := int64(optInt(L, 3, "concat", 1))
	var last int64
	if L.Get(4) == lua.LNil {
		last = int64(t.Len())
	} else {
		last = int64(checkInt(L, 4, "concat"))
	}
	var b []byte
	tk := ticker{L: L}
	for ; i <= last; i++ {
		v := rawGetInt(t, int(i))
		s, ok := toString(v)
		if !ok {
			raise(L, "invalid value (%s) at index %d in table for 'concat'", v.Type().String(), i)
		}
		n := int64(len(b)) + int64(len(s))
		if i < last {
			n += int64(len(sep))
		}
		checkLen(L, n)
		b = append(b, s...)
		if i < last {
			b = append(b, sep...)
		}
		tk.tick()
	}
	L.Push(lua.LString(b))
	return 1
}

// sorter is table.sort's state: Lua 5.1's quicksort (median of three, the
// smaller part sorted by recursion), kept step for step so that an order
// function that is not a strict order sees the same calls and meets Lua 5.1's
// error at the same point.
type sorter struct {
	L    *lua.LState
	t    *lua.LTable
	less *lua.LFunction // nil: the < operator
	tk   ticker
}

func (s *sorter) get(i int) lua.LValue { return rawGetInt(s.t, i) }

func (s *sorter) lt(a, b lua.LValue) bool {
	s.tk.tick()
	if s.less == nil {
		return lessThan(s.L, a, b)
	}
	s.L.Push(s.less)
	s.L.Push(a)
	s.L.Push(b)
	s.L.Call(2, 1)
	r := lua.LVAsBool(s.L.Get(-1))
	s.L.Pop(1)
	return r
}

func (s *sorter) swap(i, j int) {
	a, b := s.get(i), s.get(j)
	s.t.RawSetInt(i, b)
	s.t.RawSetInt(j, a)
}

func (s *sorter) sort(l, u int) {
	for l < u {
		if s.lt(s.get(u), s.get(l)) {
			s.swap(l, u)
		}
		if u-l == 1 {
			return
		}
		i := int((int64(l) + int64(u)) / 2)
		if s.lt(s.get(i), s.get(l)) {
			s.swap(i, l)
		} else if s.lt(s.get(u), s.get(i)) {
			s.swap(i, u)
		}
		if u-l == 2 {
			return
		}
		p := s.get(i)
		s.swap(i, u-1)
		i, j := l, u-1
		for {
			for i++; s.lt(s.get(i), p); i++ {
				if i > u {
					raise(s.L, "invalid order function for sorting")
				}
			}
			for j--; s.lt(p, s.get(j)); j-- {
				if j < l {
					raise(s.L, "invalid order function for sorting")
				}
			}
			if j < i {
				break
			}
			s.swap(i, j)
		}
		s.swap(u-1, i)
		if i-l < u-i {
			s.sort(l, i-1)
			l = i + 1
		} else {
			s.sort(i+1, u)
			u = i - 1
		}
	}
}

func tabSort(L *lua.LState) int {
	t, n := getn(L, 1, "sort")
	s := &sorter{L: L, t: t, tk: ticker{L: L}}
	if L.Get(2) != lua.LNil {
		s.less = checkFunction(L, 2, "sort")
	}
	s.sort(1, n)
	return 0
}

// lessThan is Lua 5.1's a < b as a library function meets it: numbers and
// strings compared, other values of one type by their __lt, and the error (with
// no position: the comparison is in Go code) otherwise.
func lessThan(L *lua.LState, a, b lua.LValue) bool {
	ta, tb := a.Type(), b.Type()
	switch {
	case ta != tb:
		L.Error(lua.LString("attempt to compare "+ta.String()+" with "+tb.String()), 0)
	case ta == lua.LTNumber:
		return a.(lua.LNumber) < b.(lua.LNumber)
	case ta == lua.LTString:
		return a.(lua.LString) < b.(lua.LString)
	case L.GetMetaField(a, "__lt") == lua.LNil:
		L.Error(lua.LString("attempt to compare two "+ta.String()+" values"), 0)
	}
	return L.LessThan(a, b)
}

// rawGetInt is lua_rawgeti: gopher-lua's LTable.RawGetInt reads only the
// array part, where keys below 1 are never kept.
func rawGetInt(t *lua.LTable, i int) lua.LValue { return t.RawGet(lua.LNumber(i)) }
