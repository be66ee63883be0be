package lualib

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// callNamed calls the library function lib.name (lib "" for a global) directly
// from Go on L, with args, and returns its first result or its error. A direct
// call does not pass through the virtual machine's check of the context, so an
// error from a cancelled context proves that the function checks it itself.
func callNamed(L *lua.LState, lib, name string, args ...lua.LValue) (lua.LValue, error) {
	var fn lua.LValue
	if lib == "" {
		fn = L.GetGlobal(name)
	} else {
		fn = L.GetField(L.GetGlobal(lib), name)
	}
	if err := L.CallByParam(lua.P{Fn: fn, NRet: 1, Protect: true}, args...); err != nil {
		return nil, err
	}
	v := L.Get(-1)
	L.Pop(1)
	return v, nil
}

// bigTable returns a table of n elements made by elem.
func bigTable(L *lua.LState, n int, elem func(i int) lua.LValue) *lua.LTable {
	t := L.CreateTable(n, 0)
	for i := 1; i <= n; i++ {
		t.RawSetInt(i, elem(i))
	}
	return t
}

// TestCancelledCall calls each function whose work the caller chooses with a
// context cancelled before the call: each must stop with the context's error.
func TestCancelledCall(t *testing.T) {
	subject := lua.LString(strings.Repeat("a", 1e5))
	slow := lua.LString(".-.-.-.-.-.-b")
	tests := []struct {
		name      string
		lib, fn   string
		args      func(L *lua.LState) []lua.LValue
		completes bool // whether the call would end soon without the check
	}{
		{"find", "string", "find", func(*lua.LState) []lua.LValue { return []lua.LValue{subject, slow} }, false},
		{"match", "string", "match", func(*lua.LState) []lua.LValue { return []lua.LValue{subject, slow} }, false},
		{"gsub", "string", "gsub", func(*lua.LState) []lua.LValue { return []lua.LValue{subject, slow, lua.LString("")} }, false},
		{"gsub-long", "string", "gsub", func(*lua.LState) []lua.LValue {
			return []lua.LValue{subject, lua.LString("a"), lua.LString("b")}
		}, true},
		{"rep", "string", "rep", func(*lua.LState) []lua.LValue { return []lua.LValue{lua.LString("xy"), lua.LNumber(1 << 24)} }, true},
		{"concat", "table", "concat", func(L *lua.LState) []lua.LValue {
			return []lua.LValue{bigTable(L, 5000, func(int) lua.LValue { return lua.LString("x") })}
		}, true},
		{"sort", "table", "sort", func(L *lua.LState) []lua.LValue {
			return []lua.LValue{bigTable(L, 5000, func(i int) lua.LValue { return lua.LNumber((i * 7919) % 5003) })}
		}, true},
		{"insert", "table", "insert", func(L *lua.LState) []lua.LValue {
			return []lua.LValue{L.NewTable(), lua.LNumber(-1e6), lua.LTrue}
		}, true},
		{"maxn", "table", "maxn", func(L *lua.LState) []lua.LValue {
			return []lua.LValue{bigTable(L, 5000, func(i int) lua.LValue { return lua.LTrue })}
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			L := newState()
			defer L.Close()
			args := tt.args(L)
			if tt.completes {
				if _, err := callNamed(L, tt.lib, tt.fn, args...); err != nil {
					t.Fatalf("%s.%s without a context: %v; want a result", tt.lib, tt.fn, err)
				}
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			L.SetContext(ctx)
			_, err := callNamed(L, tt.lib, tt.fn, args...)
			if err == nil || !strings.Contains(err.Error(), context.Canceled.Error()) {
				t.Errorf("%s.%s with a cancelled context: error %v; want %q", tt.lib, tt.fn, err, context.Canceled)
			}
		})
	}
}

// TestCancelScript cancels the context of a running script whose time goes to
// one library call: the script must return the context's error.
func TestCancelScript(t *testing.T) {
	for _, chunk := range []string{
		`return string.find(string.rep('a', 1e5), '.-.-.-.-.-.-b')`,
		`return string.gsub(string.rep('a', 1e5), '.-.-.-.-.-.-b', '')`,
		`return string.match(string.rep('(', 1e5), '%b()%b()%b()%b()x')`,
		`for w in string.gmatch(string.rep('a', 1e5), '.-.-.-.-.-b') do end`,
	} {
		L := newState()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := run(ctx, L, chunk)
			done <- err
		}()
		time.Sleep(10 * time.Millisecond)
		cancel()
		err := <-done
		L.Close()
		if err == nil || !strings.Contains(err.Error(), context.Canceled.Error()) {
			t.Errorf("%s: error %v after cancel; want %q", chunk, err, context.Canceled)
		}
	}
}

func TestRepLimits(t *testing.T) {
	L := newState()
	defer L.Close()
	tests := []struct {
		s       string
		n       float64
		wantLen int
		wantErr string
	}{
		{"x", 1e12, 0, ""}, // luaL_checkint: 1e12 is a negative C int
		{"x", -5, 0, ""},
		{"x", 0, 0, ""},
		{"x", 2.9, 2, ""},
		{"x", 1 << 30, 0, errTooLarge},
		{"xx", 1<<28 + 1, 0, errTooLarge},
		{"abc", 1000, 3000, ""},
		{"abc", 1e6, 3e6, ""}, // copied in chunks of repChunk
		{strings.Repeat("xyz", repChunk), 3, 9 * repChunk, ""},
		{"", 1 << 30, 0, ""},
	}
	for _, tt := range tests {
		v, err := callNamed(L, "string", "rep", lua.LString(tt.s), lua.LNumber(tt.n))
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("string.rep(%q, %v) error = %v; want %q", tt.s, tt.n, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("string.rep(%q, %v) error = %v; want none", tt.s, tt.n, err)
		default:
			got := string(v.(lua.LString))
			if len(got) != tt.wantLen || got != strings.Repeat(tt.s, tt.wantLen/max(len(tt.s), 1)) {
				t.Errorf("string.rep(%q, %v) has %d bytes; want %d", tt.s, tt.n, len(got), tt.wantLen)
			}
		}
	}
}

// TestHugePatterns matches patterns of a megabyte, nested or repeated: each must
// return or raise a Lua error, never grow the stack with the pattern.
func TestHugePatterns(t *testing.T) {
	const mb = 1 << 20
	subject := strings.Repeat("a", 3000) + "(b)" // longer than maxMatchDepth
	tests := []struct {
		pattern string
		wantErr string // "" for a result
	}{
		{strings.Repeat("(", mb), "too many captures"},
		{strings.Repeat("()", mb/2), "too many captures"},
		{strings.Repeat("a?", mb/2), "pattern too complex"},
		{strings.Repeat("a*", mb/2), "pattern too complex"},
		{strings.Repeat("a-", mb/2), "pattern too complex"},
		{strings.Repeat("a", mb), ""},
		{strings.Repeat("%a", mb/2), ""},
		{"[" + strings.Repeat("a", mb), "missing ']'"},
		{"^[" + strings.Repeat("%a", mb/2) + "]+x", ""}, // anchored: one start, each scanning a set of 1 MB
		{strings.Repeat("%b()", mb/4), ""},
		{strings.Repeat("%f[a]", mb/5), ""},
		{"(a)" + strings.Repeat("%1", mb/2), ""},
		{strings.Repeat(".", mb), ""},
	}
	for _, tt := range tests {
		for _, fn := range []string{"find", "match", "gsub"} {
			L := newState()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			L.SetContext(ctx)
			args := []lua.LValue{lua.LString(subject), lua.LString(tt.pattern)}
			if fn == "gsub" {
				args = append(args, lua.LString("x"))
			}
			_, err := callNamed(L, "string", fn, args...)
			cancel()
			L.Close()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("string.%s(subject, %.20q... (%d bytes)) error = %v; want a result", fn, tt.pattern, len(tt.pattern), err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("string.%s(subject, %.20q... (%d bytes)) error = %v; want %q", fn, tt.pattern, len(tt.pattern), err, tt.wantErr)
			}
		}
	}
}

// TestNumberString checks NumberString against C's %.14g as Redis prints numbers.
func TestNumberString(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{0, "0"}, {1, "1"}, {-1, "-1"}, {0.1, "0.1"}, {1.0 / 3, "0.33333333333333"},
		{1e14, "1e+14"}, {99999999999999, "99999999999999"}, {123456789012345, "1.2345678901234e+14"},
		{1e15, "1e+15"}, {1e100, "1e+100"}, {1e-5, "1e-05"}, {0.0001, "0.0001"}, {math.Copysign(0, -1), "-0"},
		{2.5, "2.5"}, {100, "100"}, {1 << 53, "9.007199254741e+15"}, {-1.5e-300, "-1.5e-300"},
		{posNaN, "nan"}, {cNaN, "-nan"}, {math.Inf(1), "inf"}, {math.Inf(-1), "-inf"},
	}
	for _, tt := range tests {
		if got := NumberString(tt.f); got != tt.want {
			t.Errorf("NumberString(%v) = %q; want %q", tt.f, got, tt.want)
		}
	}
}

// FuzzPattern matches random subjects and patterns with find, match, gmatch and
// gsub: each call must return or raise a Lua error, never panic in Go.
func FuzzPattern(f *testing.F) {
	for _, seed := range [][2]string{
		{"hello world", "o w"}, {"key = value", "(%w+)%s*=%s*(%w+)"}, {"x(a(b)c)y", "%b()"},
		{"THE (quick) fox", "%f[%a]%a+"}, {"abab", "(ab)%1"}, {"abc", "[a-"}, {"abc", "%"},
		{"abc", "((a)(b))()"}, {"aaab", "^a-b$"}, {"a]b", "[]]"}, {"a\x00b", "%z"}, {"", ""},
		{"abc", "(a)%2"}, {"abc", "a)"}, {"[[x]]", "%[(%b[])%]"}, {"abc", "[^%a-z]?"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, subject, pattern string) {
		L := newState()
		defer L.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		L.SetContext(ctx) // a pathological pattern ends with the context's error
		for _, fn := range []string{"find", "match", "gsub", "gmatch"} {
			args := []lua.LValue{lua.LString(subject), lua.LString(pattern)}
			if fn == "gsub" {
				args = append(args, lua.LString("<%0>"))
			}
			v, err := callNamed(L, "string", fn, args...)
			for i := 0; err == nil && fn == "gmatch" && i < 100 && v != lua.LNil; i++ {
				// v is the iterator first, then each match's first capture.
				if iter, ok := v.(*lua.LFunction); ok && i == 0 {
					args = []lua.LValue{iter}
				}
				if err = L.CallByParam(lua.P{Fn: args[0], NRet: 1, Protect: true}); err == nil {
					v = L.Get(-1)
					L.Pop(1)
				}
			}
			var ae *lua.ApiError
			if err != nil && (!errors.As(err, &ae) || ae.Type != lua.ApiErrorRun) {
				t.Fatalf("string.%s(%q, %q): %v; want a result or a Lua error", fn, subject, pattern, err)
			}
		}
	})
}

// FuzzFormat formats a number and a string with random format strings: each
// call must return or raise a Lua error, and no result passes MaxString.
func FuzzFormat(f *testing.F) {
	for _, seed := range []string{"%d", "%5.2s|%-5d", "%#x %o", "%99.99f", "%+.3e", "%q", "%c", "%", "%%", "%10.3G", "%------d", "%123d", "%.s", "%0-+ #5.2i"} {
		f.Add(seed, 1.5, "str")
	}
	f.Fuzz(func(t *testing.T, format string, n float64, s string) {
		L := newState()
		defer L.Close()
		for _, arg := range []lua.LValue{lua.LNumber(n), lua.LString(s)} {
			v, err := callNamed(L, "string", "format", lua.LString(format), arg, arg)
			var ae *lua.ApiError
			if err != nil && (!errors.As(err, &ae) || ae.Type != lua.ApiErrorRun) {
				t.Fatalf("string.format(%q, %v): %v; want a result or a Lua error", format, arg, err)
			}
			if err == nil && len(v.(lua.LString)) > MaxString {
				t.Fatalf("string.format(%q, %v) has %d bytes; want at most MaxString", format, arg, len(v.(lua.LString)))
			}
		}
	})
}
