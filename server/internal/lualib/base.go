package lualib

import (
	"fmt"
	"runtime/metrics"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// OpenBase opens gopher-lua's base library and its coroutine table into L's
// globals, removes what Redis's sandbox has not (dofile, loadfile, print,
// require, module, getfenv, setfenv, newproxy and gopher-lua's own extras), and
// replaces the functions whose behaviour or error texts differ from Lua 5.1's:
// assert, collectgarbage, error, gcinfo, getmetatable, ipairs, load, loadstring,
// next, pairs, rawequal, rawget, rawset, select, setmetatable, tonumber,
// tostring, type and unpack. As in Lua 5.1, unpack and string.byte return up to
// 8,000 values less their arguments; L's data stack must have room for them
// (lua.Options RegistrySize or RegistryMaxSize of 16,384, say), or such a call
// ends in gopher-lua's "registry overflow". The cost is O(1).
func OpenBase(L *lua.LState) {
	openLib(L, lua.BaseLibName, lua.OpenBase)
	g := L.G.Global
	openCoroutine(L)
	for _, name := range []string{"dofile", "loadfile", "print", "require", "module",
		"getfenv", "setfenv", "newproxy", "_printregs", "_GOPHER_LUA_VERSION"} {
		g.RawSetString(name, lua.LNil)
	}
	next := L.NewFunction(baseNext)
	gc := &gcState{pause: 200, stepmul: 200}
	setFuncs(L, g, map[string]lua.LGFunction{
		"assert":       baseAssert,
		"error":        baseError,
		"gcinfo":       baseGcinfo,
		"getmetatable": baseGetmetatable,
		"load":         baseLoad,
		"loadstring":   baseLoadstring,
		"rawequal":     baseRawequal,
		"rawget":       baseRawget,
		"rawset":       baseRawset,
		"select":       baseSelect,
		"setmetatable": baseSetmetatable,
		"tonumber":     baseTonumber,
		"tostring":     baseTostring,
		"type":         baseType,
		"unpack":       baseUnpack,
		"xpcall":       wrapG(g, "xpcall", func(L *lua.LState) { checkAny(L, 2, "xpcall") }),
		"collectgarbage": func(L *lua.LState) int {
			return gc.collectgarbage(L)
		},
	})
	g.RawSetString("next", next)
	g.RawSetString("pairs", L.NewFunction(func(L *lua.LState) int {
		t := checkTable(L, 1, "pairs")
		L.Push(next)
		L.Push(t)
		L.Push(lua.LNil)
		return 3
	}))
	ipairsAux := L.NewFunction(baseIpairsAux)
	g.RawSetString("ipairs", L.NewFunction(func(L *lua.LState) int {
		t := checkTable(L, 1, "ipairs")
		L.Push(ipairsAux)
		L.Push(t)
		L.Push(lua.LNumber(0))
		return 3
	}))
}

// wrapG returns t's Go function name preceded by check, which raises Lua 5.1's
// argument errors before gopher-lua's own texts could.
func wrapG(t *lua.LTable, name string, check func(L *lua.LState)) lua.LGFunction {
	orig := t.RawGetString(name).(*lua.LFunction).GFunction
	return func(L *lua.LState) int {
		check(L)
		return orig(L)
	}
}

// openCoroutine opens gopher-lua's coroutine table with Lua 5.1's argument
// errors.
func openCoroutine(L *lua.LState) {
	t := openLib(L, lua.CoroutineLibName, lua.OpenCoroutine)
	luaFunction := func(fname string) func(L *lua.LState) {
		return func(L *lua.LState) {
			if f, ok := L.Get(1).(*lua.LFunction); !ok || f.IsG {
				argError(L, 1, fname, "Lua function expected")
			}
		}
	}
	thread := func(fname string) func(L *lua.LState) {
		return func(L *lua.LState) {
			if _, ok := L.Get(1).(*lua.LState); !ok {
				argError(L, 1, fname, "coroutine expected")
			}
		}
	}
	setFuncs(L, t, map[string]lua.LGFunction{
		"create": wrapG(t, "create", luaFunction("create")),
		"wrap":   wrapG(t, "wrap", luaFunction("wrap")),
		"resume": wrapG(t, "resume", thread("resume")),
		"status": wrapG(t, "status", thread("status")),
		"yield": wrapG(t, "yield", func(L *lua.LState) {
			if L.Parent == nil {
				L.Error(lua.LString("attempt to yield across metamethod/C-call boundary"), 0)
			}
		}),
	})
}

// where is luaL_where: "source:line: " of the function at the given level of
// the call stack (1 is the caller of the running Go function), or "" when that
// is not a Lua function.
func where(L *lua.LState, level int) string {
	if level == 2 && isTailCall(L, 1) {
		return "" // level 2 is the "(tail call)" that Lua 5.1 keeps in its place
	}
	dbg, ok := L.GetStack(level)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.CurrentLine <= 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d: ", dbg.Source, dbg.CurrentLine)
}

// isTailCall reports whether the function at the given level was tail-called.
func isTailCall(L *lua.LState, level int) bool {
	dbg, ok := L.GetStack(level)
	if !ok {
		return false
	}
	_, err := L.GetInfo("S", dbg, lua.LNil)
	return err == nil && dbg.What == "tail"
}

func baseAssert(L *lua.LState) int {
	v := checkAny(L, 1, "assert")
	if !lua.LVAsBool(v) {
		raise(L, "%s", optString(L, 2, "assert", "assertion failed!"))
	}
	return L.GetTop()
}

func baseError(L *lua.LState) int {
	level := optInt(L, 2, "error", 1)
	v := L.Get(1)
	if s, ok := toString(v); ok && level > 0 {
		v = lua.LString(where(L, level) + s)
	}
	L.Error(v, 0)
	return 0
}

// heapKB is the live heap in kilobytes, as collectgarbage("count") reports the
// Lua state's memory: the Go heap is shared by every state, so this is the
// closest figure there is. The cost is that of one runtime/metrics read.
func heapKB() float64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return float64(s[0].Value.Uint64()) / 1024
}

func baseGcinfo(L *lua.LState) int {
	L.Push(lua.LNumber(int64(heapKB())))
	return 1
}

// gcState is what collectgarbage's setpause and setstepmul remember. A script
// cannot make the server collect: "collect" and "step" do nothing, as the Go
// collector serves every state at once.
type gcState struct{ pause, stepmul int }

func (gc *gcState) collectgarbage(L *lua.LState) int {
	const fname = "collectgarbage"
	opt := optString(L, 1, fname, "collect")
	arg := optInt(L, 2, fname, 0)
	switch opt {
	case "stop", "restart", "collect":
		L.Push(lua.LNumber(0))
	case "count":
		L.Push(lua.LNumber(heapKB()))
	case "step":
		L.Push(lua.LFalse)
	case "setpause":
		L.Push(lua.LNumber(gc.pause))
		gc.pause = arg
	case "setstepmul":
		L.Push(lua.LNumber(gc.stepmul))
		gc.stepmul = arg
	default:
		argError(L, 1, fname, "invalid option '"+opt+"'")
	}
	return 1
}

func baseGetmetatable(L *lua.LState) int {
	checkAny(L, 1, "getmetatable")
	L.Push(L.GetMetatable(L.Get(1)))
	return 1
}

func baseSetmetatable(L *lua.LState) int {
	const fname = "setmetatable"
	t := checkTable(L, 1, fname)
	mt := L.Get(2)
	if mt.Type() != lua.LTNil && mt.Type() != lua.LTTable {
		argError(L, 2, fname, "nil or table expected")
	}
	if old, ok := t.Metatable.(*lua.LTable); ok && old.RawGetString("__metatable") != lua.LNil {
		raise(L, "cannot change a protected metatable")
	}
	t.Metatable = mt
	L.SetTop(1)
	return 1
}

// chunkID is Lua 5.1's luaO_chunkid: how a chunk's name appears in messages.
func chunkID(name string) string {
	switch {
	case strings.HasPrefix(name, "="), strings.HasPrefix(name, "@"):
		return name[1:]
	}
	const room = 60 - len(` [string "..."] `) - 1 // LUA_IDSIZE less the decoration
	line := name
	if i := strings.IndexAny(line, "\n\r"); i >= 0 {
		line = line[:i]
	}
	if len(line) > room {
		line = line[:room]
	}
	if len(line) < len(name) {
		return `[string "` + line + `..."]`
	}
	return `[string "` + name + `"]`
}

// loadChunk compiles src as a function, or returns nil and the message.
func loadChunk(L *lua.LState, src, name string) int {
	fn, err := L.Load(strings.NewReader(src), chunkID(name))
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	L.Push(fn)
	return 1
}

func baseLoadstring(L *lua.LState) int {
	s := checkString(L, 1, "loadstring")
	return loadChunk(L, s, optString(L, 2, "loadstring", s))
}

func baseLoad(L *lua.LState) int {
	f := checkFunction(L, 1, "load")
	name := optString(L, 2, "load", "=(load)")
	var b strings.Builder
	for {
		L.Push(f)
		L.Call(0, 1)
		v := L.Get(-1)
		L.Pop(1)
		if v == lua.LNil {
			break
		}
		s, ok := toString(v)
		if !ok {
			L.Push(lua.LNil)
			L.Push(lua.LString("reader function must return a string"))
			return 2
		}
		if s == "" {
			break
		}
		checkLen(L, int64(b.Len())+int64(len(s)))
		b.WriteString(s)
	}
	return loadChunk(L, b.String(), name)
}

func baseNext(L *lua.LState) int {
	t := checkTable(L, 1, "next")
	k, v := t.Next(L.Get(2))
	if k == lua.LNil {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(k)
	L.Push(v)
	return 2
}

func baseIpairsAux(L *lua.LState) int {
	i := checkInt(L, 2, "ipairs") + 1
	t := checkTable(L, 1, "ipairs")
	v := rawGetInt(t, i)
	if v == lua.LNil {
		return 0
	}
	L.Push(lua.LNumber(i))
	L.Push(v)
	return 2
}

func baseRawequal(L *lua.LState) int {
	a := checkAny(L, 1, "rawequal")
	b := checkAny(L, 2, "rawequal")
	L.Push(lua.LBool(L.RawEqual(a, b)))
	return 1
}

func baseRawget(L *lua.LState) int {
	t := checkTable(L, 1, "rawget")
	L.Push(t.RawGet(checkAny(L, 2, "rawget")))
	return 1
}

func baseRawset(L *lua.LState) int {
	t := checkTable(L, 1, "rawset")
	k := checkAny(L, 2, "rawset")
	v := checkAny(L, 3, "rawset")
	if n, ok := k.(lua.LNumber); ok && n != n {
		L.Error(lua.LString("table index is NaN"), 0)
	} else if k == lua.LNil {
		L.Error(lua.LString("table index is nil"), 0)
	}
	t.RawSet(k, v)
	L.SetTop(1)
	return 1
}

func baseSelect(L *lua.LState) int {
	n := L.GetTop()
	if s, ok := L.Get(1).(lua.LString); ok && strings.HasPrefix(string(s), "#") {
		L.Push(lua.LNumber(n - 1))
		return 1
	}
	i := checkInt(L, 1, "select")
	if i < 0 {
		i += n
	} else if i > n {
		i = n
	}
	if i < 1 {
		argError(L, 1, "select", "index out of range")
	}
	return n - i
}

func baseType(L *lua.LState) int {
	L.Push(lua.LString(checkAny(L, 1, "type").Type().String()))
	return 1
}

func baseTostring(L *lua.LState) int {
	v := checkAny(L, 1, "tostring")
	if mt := L.GetMetaField(v, "__tostring"); mt != lua.LNil {
		L.Push(mt)
		L.Push(v)
		L.Call(1, 1)
		return 1
	}
	if s, ok := toString(v); ok {
		L.Push(lua.LString(s))
	} else {
		L.Push(lua.LString(v.String()))
	}
	return 1
}

func baseTonumber(L *lua.LState) int {
	base := optInt(L, 2, "tonumber", 10)
	if base == 10 {
		if f, ok := toNumber(checkAny(L, 1, "tonumber")); ok {
			L.Push(lua.LNumber(f))
			return 1
		}
		L.Push(lua.LNil)
		return 1
	}
	s := checkString(L, 1, "tonumber")
	if base < 2 || base > 36 {
		argError(L, 2, "tonumber", "base out of range")
	}
	if n, ok := strtoul(cutNUL(s), base); ok {
		L.Push(lua.LNumber(float64(n)))
		return 1
	}
	L.Push(lua.LNil)
	return 1
}

// strtoul reads s as C's strtoul in the given base, followed only by white space:
// leading white space, a sign (a minus negates modulo 2^64), 0x before a
// base-16 number, and the largest value when the number does not fit.
func strtoul(s string, base int) (uint64, bool) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if base == 16 && i+2 < len(s) && s[i] == '0' && s[i+1]|0x20 == 'x' && digitValue(s[i+2]) < 16 {
		i += 2
	}
	var n uint64
	over := false
	start := i
	for ; i < len(s); i++ {
		d := digitValue(s[i])
		if d >= base {
			break
		}
		if n > (1<<64-1-uint64(d))/uint64(base) {
			over = true
		}
		n = n*uint64(base) + uint64(d)
	}
	if i == start {
		return 0, false
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i < len(s) {
		return 0, false
	}
	switch {
	case over:
		return 1<<64 - 1, true
	case neg:
		return -n, true
	}
	return n, true
}

// digitValue is the value of c as a digit of a base up to 36, or 36 when it is none.
func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c|0x20 >= 'a' && c|0x20 <= 'z':
		return int(c|0x20-'a') + 10
	}
	return 36
}

func baseUnpack(L *lua.LState) int {
	t := checkTable(L, 1, "unpack")
	i := int64(optInt(L, 2, "unpack", 1))
	var e int64
	if L.Get(3) == lua.LNil {
		e = int64(t.Len())
	} else {
		e = int64(checkInt(L, 3, "unpack"))
	}
	if i > e {
		return 0
	}
	n := e - i + 1
	if n >= 1<<31 || n+int64(L.GetTop()) > maxResults {
		raise(L, "too many results to unpack")
	}
	for k := i; k <= e; k++ {
		L.Push(rawGetInt(t, int(k)))
	}
	return int(n)
}
