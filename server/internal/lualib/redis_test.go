package lualib

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	lua "github.com/yuin/gopher-lua"
	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/internal/testmain"
)

// The differential harness: each case is the body of a script, run on a gopher-lua
// state with this package's libraries (chunk name user_script, as Redis names its
// scripts) and as EVAL on a real redis-server. Both results are rendered as Redis
// would reply them (numbers truncated to integers, tables as arrays up to their
// first nil, false as nil) and must be identical. A case that returns a double
// does so as the 8 bytes of D(x), a big-endian struct.pack('>d', x).
//
// Redis keeps one Lua state for all scripts, so a case that changes a cjson
// setting does it on a table of its own from cjson.new().

// prelude is prepended to every case, on its first line so that error positions
// keep their line numbers.
const prelude = "local function D(x) return struct.pack('>d', x) end "

type luaCase struct {
	name   string
	script string
}

// runLocal runs script on L, with args as ARGV, and renders its first result as
// Redis's reply.
func runLocal(L *lua.LState, script string, args ...string) string {
	argv := L.NewTable()
	for _, a := range args {
		argv.Append(lua.LString(a))
	}
	L.SetGlobal("ARGV", argv)
	fn, err := L.Load(strings.NewReader(prelude+script), "user_script")
	if err != nil {
		return "(compile error) " + err.Error()
	}
	L.Push(fn)
	if err := L.PCall(0, 1, nil); err != nil {
		var ae *lua.ApiError
		if errors.As(err, &ae) {
			return "(error) " + ae.Object.String()
		}
		return "(error) " + err.Error()
	}
	v := L.Get(-1)
	L.Pop(1)
	return renderLua(v)
}

// renderLua renders v as Redis converts a script's result to a reply.
func renderLua(v lua.LValue) string {
	switch v := v.(type) {
	case lua.LString:
		return strconv.Quote(string(v))
	case lua.LNumber:
		return fmt.Sprintf("(integer) %d", toInt64(float64(v)))
	case lua.LBool:
		if v {
			return "(integer) 1"
		}
		return "nil"
	case *lua.LTable:
		if e, ok := v.RawGetString("err").(lua.LString); ok {
			return "(error) " + string(e)
		}
		var parts []string
		for i := 1; ; i++ {
			e := v.RawGetInt(i)
			if e == lua.LNil {
				break
			}
			parts = append(parts, renderLua(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return "nil"
}

// renderRedis renders a go-redis EVAL result as renderLua renders Lua values;
// an error loses Redis's "ERR " and " script: ..." around the script's message.
func renderRedis(v any, err error) string {
	if errors.Is(err, redis.Nil) {
		return "nil"
	}
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "ERR ")
		if i := strings.LastIndex(msg, " script: "); i >= 0 {
			msg = msg[:i]
		}
		return "(error) " + msg
	}
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case int64:
		return fmt.Sprintf("(integer) %d", v)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			if e == nil {
				parts[i] = "nil"
				continue
			}
			var eerr error
			if re, ok := e.(error); ok {
				eerr = re
			}
			parts[i] = renderRedis(e, eerr)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprintf("(unexpected %T) %v", v, v)
}

// redisClient returns a client of the test's redis-server, or skips the test.
func redisClient(t *testing.T) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: redistest.Require(t), MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	return c
}

// evalRedis runs script as EVAL on c, with args as ARGV, and renders the reply.
func evalRedis(t *testing.T, c *redis.Client, script string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := []any{"EVAL", prelude + script, "0"}
	for _, a := range args {
		cmd = append(cmd, a)
	}
	return renderRedis(c.Do(ctx, cmd...).Result())
}

// compareCases runs every case on both sides and fails those whose replies
// differ.
func compareCases(t *testing.T, cases []luaCase) {
	c := redisClient(t)
	L := newState()
	defer L.Close()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := evalRedis(t, c, tc.script)
			if got := runLocal(L, tc.script); got != want {
				t.Errorf("script %q\ngot  %s\nwant %s (redis)", tc.script, got, want)
			}
		})
	}
}

// newRand returns a generator seeded by testmain.Seed(t).
func newRand(t testing.TB) *rand.Rand {
	s := testmain.Seed(t)
	return rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
}

// callLib calls the library function lib.name in protected mode with args and
// returns its results, or the Lua error it raised. A Go panic inside it (which
// gopher-lua turns into an error too) fails t.
func callLib(t testing.TB, L *lua.LState, lib *lua.LTable, name string, args ...lua.LValue) ([]lua.LValue, error) {
	t.Helper()
	top := L.GetTop()
	err := L.CallByParam(lua.P{Fn: lib.RawGetString(name), NRet: lua.MultRet, Protect: true}, args...)
	var ae *lua.ApiError
	if errors.As(err, &ae) && ae.Type == lua.ApiErrorPanic {
		t.Fatalf("%s(%q) panicked: %v\n%s", name, args, ae.Object, ae.StackTrace)
	}
	res := make([]lua.LValue, 0, L.GetTop()-top)
	for i := top + 1; i <= L.GetTop(); i++ {
		res = append(res, L.Get(i))
	}
	L.SetTop(top)
	return res, err
}
