package lualib

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// NumberString returns f as Lua 5.1 converts a number to a string (tostring,
// concatenation, string functions given a number): C's "%.14g", with infinities
// and NaNs spelled as glibc prints them ("inf", "-inf", "nan", "-nan": the sign
// of a NaN is its sign bit, which 0/0 sets on x86). The cost is O(1).
func NumberString(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		if math.Signbit(f) {
			return "-nan"
		}
		return "nan"
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e14 {
		if f == 0 && math.Signbit(f) {
			return "-0"
		}
		return strconv.FormatInt(int64(f), 10)
	}
	return formatG(f, 14, false)
}

// formatG is C's "%.<prec>g" of a finite f (alt: the '#' flag, which keeps
// trailing zeros).
func formatG(f float64, prec int, alt bool) string {
	if prec == 0 {
		prec = 1
	}
	e := strconv.FormatFloat(f, 'e', prec-1, 64)
	i := strings.LastIndexByte(e, 'e')
	x, _ := strconv.Atoi(e[i+1:])
	var s string
	if x < -4 || x >= prec {
		s = e
		if !alt {
			s = trimZeros(e[:i]) + e[i:]
		}
	} else {
		s = strconv.FormatFloat(f, 'f', prec-1-x, 64)
		if !alt {
			s = trimZeros(s)
		}
	}
	if alt && !strings.ContainsRune(s, '.') {
		if i := strings.IndexByte(s, 'e'); i >= 0 {
			s = s[:i] + "." + s[i:]
		} else {
			s += "."
		}
	}
	return s
}

// trimZeros removes the trailing zeros of a fraction, and its point if nothing
// is left after it.
func trimZeros(s string) string {
	if !strings.ContainsRune(s, '.') {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// isSpace is C's isspace in the C locale.
func isSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

// toInteger is C's conversion of a double to a 64-bit integer on x86-64
// (lua_tointeger): truncation, and the "integer indefinite" value for NaN and
// for numbers out of range.
func toInteger(f float64) int64 {
	if math.IsNaN(f) || f >= 1<<63 || f < -(1<<63) {
		return math.MinInt64
	}
	return int64(f)
}

// toInt is luaL_checkint's conversion: toInteger then truncation to a C int.
func toInt(f float64) int { return int(int32(toInteger(f))) }

// typeName is the type of argument n as Lua 5.1's messages name it: "no value"
// past the last argument.
func typeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return L.Get(n).Type().String()
}

// raise raises a Lua error as luaL_error does: the message formatted, after
// the position of the calling Lua function (none when a Go function, such as
// pcall, made the call).
func raise(L *lua.LState, format string, args ...any) {
	L.Error(lua.LString(where(L, 1)+fmt.Sprintf(format, args...)), 0)
}

// argError raises Lua 5.1's luaL_argerror "bad argument #n to 'name' (msg)".
// The name is the one the calling Lua code used (Lua's debug information), or
// fname when that has none, or "?" when the caller is not a Lua function
// (pcall(string.rep)), as in Lua 5.1.
func argError(L *lua.LState, n int, fname, msg string) {
	if _, ok := callerIsLua(L); !ok {
		fname = "?"
	} else if dbg, ok := L.GetStack(0); ok {
		if _, err := L.GetInfo("n", dbg, lua.LNil); err == nil && dbg.Name != "" {
			fname = dbg.Name
		}
	}
	if fname == "" {
		fname = "?"
	}
	raise(L, "bad argument #%d to '%s' (%s)", n, fname, msg)
}

// typeError raises Lua 5.1's error for argument n of fname not being of type want.
func typeError(L *lua.LState, n int, fname, want string) {
	argError(L, n, fname, want+" expected, got "+typeName(L, n))
}

// toNumber converts v as Lua 5.1's lua_tonumber: a number, or a string holding one.
func toNumber(v lua.LValue) (float64, bool) {
	switch v := v.(type) {
	case lua.LNumber:
		return float64(v), true
	case lua.LString:
		return strToNumber(string(v))
	}
	return 0, false
}

// checkNumber is luaL_checknumber: argument n as a number, converting strings.
func checkNumber(L *lua.LState, n int, fname string) float64 {
	f, ok := toNumber(L.Get(n))
	if !ok {
		typeError(L, n, fname, "number")
	}
	return f
}

// checkInt is luaL_checkint: argument n as a number truncated to a C int.
func checkInt(L *lua.LState, n int, fname string) int {
	return toInt(checkNumber(L, n, fname))
}

// optInt is luaL_optint.
func optInt(L *lua.LState, n int, fname string, def int) int {
	if L.Get(n) == lua.LNil {
		return def
	}
	return checkInt(L, n, fname)
}

// optInteger is luaL_optinteger: a 64-bit integer.
func optInteger(L *lua.LState, n int, fname string, def int64) int64 {
	if L.Get(n) == lua.LNil {
		return def
	}
	return toInteger(checkNumber(L, n, fname))
}

// toString converts v as Lua 5.1's lua_tolstring: a string, or a number in
// NumberString's form.
func toString(v lua.LValue) (string, bool) {
	switch v := v.(type) {
	case lua.LString:
		return string(v), true
	case lua.LNumber:
		return NumberString(float64(v)), true
	}
	return "", false
}

// checkString is luaL_checkstring: argument n as a string, converting numbers.
func checkString(L *lua.LState, n int, fname string) string {
	s, ok := toString(L.Get(n))
	if !ok {
		typeError(L, n, fname, "string")
	}
	return s
}

// optString is luaL_optstring.
func optString(L *lua.LState, n int, fname, def string) string {
	if L.Get(n) == lua.LNil {
		return def
	}
	return checkString(L, n, fname)
}

// checkTable is luaL_checktype(L, n, LUA_TTABLE).
func checkTable(L *lua.LState, n int, fname string) *lua.LTable {
	t, ok := L.Get(n).(*lua.LTable)
	if !ok {
		typeError(L, n, fname, "table")
	}
	return t
}

// checkAny is luaL_checkany.
func checkAny(L *lua.LState, n int, fname string) lua.LValue {
	if n > L.GetTop() {
		argError(L, n, fname, "value expected")
	}
	return L.Get(n)
}

// setFuncs sets t's fields to Go functions.
func setFuncs(L *lua.LState, t *lua.LTable, fns map[string]lua.LGFunction) {
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
}

// openLib opens gopher-lua's library open under name, as lua.OpenLibs does, and
// returns its table.
func openLib(L *lua.LState, name string, open lua.LGFunction) *lua.LTable {
	L.Push(L.NewFunction(open))
	L.Push(lua.LString(name))
	L.Call(1, 0)
	t, _ := L.GetGlobal(name).(*lua.LTable)
	return t
}
