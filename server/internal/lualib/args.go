package lualib

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// This file holds what Redis's C libraries get from Lua 5.1's C API and from
// the C library under them: argument checks with Lua 5.1's texts, number and
// string conversions as lua_tonumber and lua_tolstring make them, strtod, and the
// x86-64 conversions of a double to a 64-bit integer.

// maxCStack is Lua 5.1's LUAI_MAXCSTACK: the most stack slots a C function may
// hold; lua_checkstack refuses to pass it.
const maxCStack = 8000

// callerIsLua reports whether the library function running in L was called by a
// Lua function, and the Debug record of that caller.
func callerIsLua(L *lua.LState) (*lua.Debug, bool) {
	dbg, ok := L.GetStack(1)
	if !ok {
		return nil, false
	}
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.What == "G" || dbg.CurrentLine < 0 {
		return nil, false
	}
	return dbg, true
}

// strToNumber is Lua 5.1's luaO_str2d: strtod of the whole string, spaces allowed
// around it. A NUL ends the string, as in C.
func strToNumber(s string) (float64, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	f, n := strtod(s)
	if n == 0 {
		return 0, false
	}
	for ; n < len(s); n++ {
		if !isSpace(s[n]) {
			return 0, false
		}
	}
	return f, true
}

// checkInteger is luaL_checkinteger: the number truncated to a 64-bit integer.
func checkInteger(L *lua.LState, n int) int64 {
	return toInt64(checkNumber(L, n, ""))
}

// formatNumber is C's printf("%.<prec>g", f) on glibc, Lua 5.1's number format
// with prec 14.
func formatNumber(f float64, prec int) string {
	switch {
	case math.IsNaN(f):
		if math.Signbit(f) {
			return "-nan"
		}
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', prec, 64)
}

// toInt64 converts f to int64 as x86-64's cvttsd2si does: truncated, and
// math.MinInt64 when out of range or NaN.
func toInt64(f float64) int64 {
	if f >= -0x1p63 && f < 0x1p63 {
		return int64(f)
	}
	return math.MinInt64
}

// toUint64 converts f to uint64 as gcc does on x86-64: values below 2^63 (and
// NaN) through toInt64, the others less 2^63 through it with the top bit flipped.
func toUint64(f float64) uint64 {
	if !(f >= 0x1p63) {
		return uint64(toInt64(f))
	}
	return uint64(toInt64(f-0x1p63)) ^ 1<<63
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f')
}

func isAlnum(c byte) bool {
	return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// hasPrefixFold reports whether s starts with the lower-case word w, in any case.
func hasPrefixFold(s, w string) bool {
	return len(s) >= len(w) && strings.EqualFold(s[:len(w)], w)
}

// nanBits is the NaN glibc's strtod returns for "nan".
const nanBits = 0x7ff8000000000000

// strtod is glibc's strtod in the C locale: the number at the start of s (after
// spaces) and how many bytes it took, 0 when there is none. Out of range values
// are ±Inf or 0, as strtod returns them. The cost is O(len(s)).
func strtod(s string) (float64, int) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	sign := func(f float64) float64 {
		if neg {
			return -f
		}
		return f
	}
	rest := s[i:]
	switch {
	case hasPrefixFold(rest, "inf"):
		n := 3
		if hasPrefixFold(rest, "infinity") {
			n = 8
		}
		return sign(math.Inf(1)), i + n
	case hasPrefixFold(rest, "nan"):
		n := 3
		bits := uint64(nanBits)
		if n < len(rest) && rest[n] == '(' {
			j := n + 1
			for j < len(rest) && (isAlnum(rest[j]) || rest[j] == '_') {
				j++
			}
			if j < len(rest) && rest[j] == ')' {
				bits |= nanPayload(rest[n+1:j]) & (1<<51 - 1)
				n = j + 1
			}
		}
		return sign(math.Float64frombits(bits)), i + n
	case len(rest) > 2 && rest[0] == '0' && rest[1]|0x20 == 'x':
		if n, ok := numberEnd(rest, 2, isHexDigit, 'p'); ok {
			f, _ := strconv.ParseFloat(hexFloat(rest[:n]), 64)
			return sign(f), i + n
		}
	}
	n, ok := numberEnd(rest, 0, isDigit, 'e')
	if !ok {
		return 0, 0
	}
	f, _ := strconv.ParseFloat(rest[:n], 64)
	return sign(f), i + n
}

// nanPayload is the payload glibc gives "nan(seq)": seq read by strtoull in base
// 0 (0x hexadecimal, 0 octal, else decimal, saturating), 0 unless all of it reads.
func nanPayload(seq string) uint64 {
	base, digits := uint64(10), seq
	switch {
	case len(seq) > 2 && seq[0] == '0' && seq[1]|0x20 == 'x':
		base, digits = 16, seq[2:]
	case len(seq) > 1 && seq[0] == '0':
		base, digits = 8, seq[1:]
	}
	var v uint64
	for i := range len(digits) {
		c := digits[i]
		var d uint64
		switch {
		case isDigit(c):
			d = uint64(c - '0')
		case c|0x20 >= 'a' && c|0x20 <= 'z':
			d = uint64(c|0x20-'a') + 10
		default:
			return 0
		}
		if d >= base {
			return 0
		}
		if v > (math.MaxUint64-d)/base {
			v = math.MaxUint64
			continue
		}
		v = v*base + d
	}
	return v
}

// numberEnd returns where the number in s that starts at from ends: digits with
// at most one point, then an optional exponent (letter exp, a sign, decimal
// digits) taken only when it has digits. It reports false when the digits before
// the exponent are none.
func numberEnd(s string, from int, digit func(byte) bool, exp byte) (int, bool) {
	n := from
	point, digits := false, false
	for n < len(s) && (digit(s[n]) || (s[n] == '.' && !point)) {
		point = point || s[n] == '.'
		digits = digits || s[n] != '.'
		n++
	}
	if !digits {
		return 0, false
	}
	if n < len(s) && s[n]|0x20 == exp {
		j := n + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			n = j
		}
	}
	return n, true
}

// hexFloat gives the hexadecimal number s (0x…, optional p exponent) the 'p'
// exponent strconv.ParseFloat requires.
func hexFloat(s string) string {
	if strings.ContainsAny(s, "pP") {
		return s
	}
	return s + "p0"
}
