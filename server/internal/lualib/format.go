package lualib

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// string.format as Lua 5.1 has it: each directive is C's sprintf of one argument,
// with at most two digits of width and of precision, and the item cut at its
// first NUL byte (Lua copies it with strlen).

// fmtSpec is one directive's flags, width and precision.
type fmtSpec struct {
	minus, plus, space, alt, zero bool
	width, prec                   int // prec is -1 when absent
}

// scanFormat reads the flags, width and precision of the directive at f[i:]
// (just past its '%') and returns them with the index of the conversion letter.
func scanFormat(L *lua.LState, f string, i int) (fmtSpec, int) {
	sp := fmtSpec{prec: -1}
	start := i
	for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
		switch f[i] {
		case '-':
			sp.minus = true
		case '+':
			sp.plus = true
		case ' ':
			sp.space = true
		case '#':
			sp.alt = true
		case '0':
			sp.zero = true
		}
		i++
	}
	if i-start > 5 {
		raise(L, "invalid format (repeated flags)")
	}
	digits := func() int {
		n, k := 0, 0
		for ; k < 2 && i < len(f) && f[i] >= '0' && f[i] <= '9'; k++ {
			n = n*10 + int(f[i]-'0')
			i++
		}
		return n
	}
	sp.width = digits()
	if i < len(f) && f[i] == '.' {
		i++
		sp.prec = digits()
	}
	if i < len(f) && f[i] >= '0' && f[i] <= '9' {
		raise(L, "invalid format (width or precision too long)")
	}
	return sp, i
}

// pad lays out body after prefix (a sign or 0x) in the spec's width: zeros
// between them with the 0 flag (when zeros allow it), spaces before, or spaces
// after with the - flag.
func (sp fmtSpec) pad(prefix, body string, zeros bool) string {
	n := sp.width - len(prefix) - len(body)
	switch {
	case n <= 0:
		return prefix + body
	case sp.minus:
		return prefix + body + strings.Repeat(" ", n)
	case sp.zero && zeros:
		return prefix + strings.Repeat("0", n) + body
	}
	return strings.Repeat(" ", n) + prefix + body
}

// sign is the prefix of a number by its sign and the + and space flags.
func (sp fmtSpec) sign(neg bool) string {
	switch {
	case neg:
		return "-"
	case sp.plus:
		return "+"
	case sp.space:
		return " "
	}
	return ""
}

// toUnsigned is C's conversion of a double to unsigned long long on x86-64.
func toUnsigned(f float64) uint64 {
	if f >= 1<<63 {
		return uint64(toInteger(f-(1<<63))) ^ 1<<63
	}
	return uint64(toInteger(f))
}

// toCInt is C's (int) cast of a double on x86-64: truncation, and INT_MIN for
// NaN and numbers out of range.
func toCInt(f float64) int32 {
	if math.IsNaN(f) || f >= 1<<31 || f < -(1<<31) {
		return math.MinInt32
	}
	return int32(f)
}

// formatInt is %d %i (signed) or %o %u %x %X of v.
func (sp fmtSpec) formatInt(conv byte, v uint64, neg bool) string {
	base := 10
	switch conv {
	case 'o':
		base = 8
	case 'x', 'X':
		base = 16
	}
	digits := strconv.FormatUint(v, base)
	if conv == 'X' {
		digits = strings.ToUpper(digits)
	}
	if sp.prec >= 0 {
		if sp.prec == 0 && v == 0 {
			digits = ""
		}
		if len(digits) < sp.prec {
			digits = strings.Repeat("0", sp.prec-len(digits)) + digits
		}
	}
	prefix := ""
	switch {
	case conv == 'd' || conv == 'i':
		prefix = sp.sign(neg)
	case sp.alt && conv == 'o' && !strings.HasPrefix(digits, "0"):
		digits = "0" + digits
	case sp.alt && conv == 'x' && v != 0:
		prefix = "0x"
	case sp.alt && conv == 'X' && v != 0:
		prefix = "0X"
	}
	return sp.pad(prefix, digits, sp.prec < 0)
}

// formatFloat is %e %E %f %g %G of f.
func (sp fmtSpec) formatFloat(conv byte, f float64) string {
	upper := conv == 'E' || conv == 'G'
	neg := math.Signbit(f)
	var body string
	switch {
	case math.IsInf(f, 0):
		body = "inf"
	case math.IsNaN(f):
		body = "nan"
	}
	if body != "" {
		if upper {
			body = strings.ToUpper(body)
		}
		return sp.pad(sp.sign(neg), body, false)
	}
	prec := sp.prec
	if prec < 0 {
		prec = 6
	}
	a := math.Abs(f)
	switch conv {
	case 'e', 'E':
		body = strconv.FormatFloat(a, 'e', prec, 64)
		if sp.alt && prec == 0 {
			i := strings.IndexByte(body, 'e')
			body = body[:i] + "." + body[i:]
		}
	case 'f':
		body = strconv.FormatFloat(a, 'f', prec, 64)
		if sp.alt && prec == 0 {
			body += "."
		}
	default:
		body = formatG(a, prec, sp.alt)
	}
	if upper {
		body = strings.ToUpper(body)
	}
	return sp.pad(sp.sign(neg), body, true)
}

// cutNUL cuts s at its first NUL byte, as strlen does.
func cutNUL(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// quoted is %q: s in double quotes, with ", \ and newline escaped by a
// backslash, CR as \r and NUL as \000.
func quoted(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\r':
			b.WriteString(`\r`)
		case 0:
			b.WriteString(`\000`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func strFormat(L *lua.LState) int {
	const fname = "format"
	top := L.GetTop()
	f := checkString(L, 1, fname)
	arg := 1
	var b strings.Builder
	add := func(s string) {
		checkLen(L, int64(b.Len())+int64(len(s)))
		b.WriteString(s)
	}
	for i := 0; i < len(f); {
		j := strings.IndexByte(f[i:], '%')
		if j < 0 {
			add(f[i:])
			break
		}
		add(f[i : i+j])
		i += j + 1
		if i < len(f) && f[i] == '%' {
			add("%")
			i++
			continue
		}
		if arg++; arg > top {
			argError(L, arg, fname, "no value")
		}
		sp, k := scanFormat(L, f, i)
		var conv byte // past the end, C's string has its NUL
		if k < len(f) {
			conv = f[k]
		}
		i = k + 1
		var item string
		switch conv {
		case 'c':
			item = sp.pad("", string([]byte{byte(toCInt(checkNumber(L, arg, fname)))}), false)
		case 'd', 'i':
			v := toInteger(checkNumber(L, arg, fname))
			u := uint64(v)
			if v < 0 {
				u = -u
			}
			item = sp.formatInt(conv, u, v < 0)
		case 'o', 'u', 'x', 'X':
			item = sp.formatInt(conv, toUnsigned(checkNumber(L, arg, fname)), false)
		case 'e', 'E', 'f', 'g', 'G':
			item = sp.formatFloat(conv, checkNumber(L, arg, fname))
		case 'q':
			add(quoted(checkString(L, arg, fname)))
			continue
		case 's':
			s := checkString(L, arg, fname)
			if sp.prec < 0 && len(s) >= 100 {
				add(s) // Lua 5.1 keeps a long string whole, NUL bytes and all
				continue
			}
			s = cutNUL(s)
			if sp.prec >= 0 && len(s) > sp.prec {
				s = s[:sp.prec]
			}
			item = sp.pad("", s, false)
		default:
			// Lua's message takes the letter as a C string: a NUL is nothing.
			raise(L, "invalid option '%%%s' to 'format'", cutNUL(string([]byte{conv})))
		}
		add(cutNUL(item))
	}
	L.Push(lua.LString(b.String()))
	return 1
}
