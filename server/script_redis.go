package server

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"log/slog"
	"strconv"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/zlite/zlite"

	"github.com/zlite/zlite/internal/serverapi"
)

// The redis table of scripts (redis.call, redis.pcall, ...) and the conversions
// between keyspace replies and Lua values, as Redis 7's script_lua.c has them.

// Redis's version as scripts see it (redis.REDIS_VERSION): the version zlite
// follows (HELLO and INFO report it too).
const (
	redisVersion    = "7.2.0"
	redisVersionNum = 0x070200
)

// redisAPI builds the state's redis table; its functions act on sb.run.
func (sb *sandbox) redisAPI(srv *Server) *lua.LTable {
	L := sb.L
	t := L.NewTable()
	fn := func(name string, f lua.LGFunction) { t.RawSetString(name, L.NewFunction(f)) }
	fn("call", func(L *lua.LState) int { return sb.call(L, true) })
	fn("pcall", func(L *lua.LState) int { return sb.call(L, false) })
	fn("error_reply", func(L *lua.LState) int {
		if L.GetTop() != 1 || L.Get(1).Type() != lua.LTString {
			L.Push(errorTable(L, "wrong number or type of arguments"))
			return 1
		}
		e := L.ToString(1)
		if !strings.HasPrefix(e, "-") {
			e = "-" + e
		}
		L.Push(errorTable(L, e))
		return 1
	})
	fn("status_reply", func(L *lua.LState) int {
		if L.GetTop() != 1 || L.Get(1).Type() != lua.LTString {
			L.Push(errorTable(L, "wrong number or type of arguments"))
			return 1
		}
		r := L.NewTable()
		r.RawSetString("ok", L.Get(1))
		L.Push(r)
		return 1
	})
	fn("sha1hex", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			sb.fail(L, "wrong number of arguments")
		}
		sum := sha1.Sum([]byte(lua.LVAsString(L.Get(1))))
		L.Push(lua.LString(hex.EncodeToString(sum[:])))
		return 1
	})
	fn("log", func(L *lua.LState) int {
		n := L.GetTop()
		if n < 2 {
			sb.fail(L, "redis.log() requires two arguments or more.")
		}
		lv, ok := L.Get(1).(lua.LNumber)
		if !ok {
			if s, isStr := L.Get(1).(lua.LString); isStr {
				if f, err := strconv.ParseFloat(strings.TrimSpace(string(s)), 64); err == nil {
					lv, ok = lua.LNumber(f), true
				}
			}
		}
		if !ok {
			sb.fail(L, "First argument must be a number (log level).")
		}
		if lv < 0 || lv > 3 {
			sb.fail(L, "Invalid debug level.")
		}
		parts := make([]string, 0, n-1)
		for i := 2; i <= n; i++ {
			switch v := L.Get(i).(type) {
			case lua.LString, lua.LNumber:
				parts = append(parts, lua.LVAsString(v))
			}
		}
		level := [...]slog.Level{slog.LevelDebug, slog.LevelDebug, slog.LevelInfo, slog.LevelWarn}[int(lv)]
		srv.log.Log(context.Background(), level, strings.Join(parts, " "), "source", "script")
		return 0
	})
	fn("setresp", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			sb.fail(L, "redis.setresp() requires one argument.")
		}
		n, _ := L.Get(1).(lua.LNumber)
		if n != 2 && n != 3 {
			sb.fail(L, "RESP version must be 2 or 3.")
		}
		if sb.run != nil {
			sb.run.resp = int(n)
		}
		return 0
	})
	fn("set_repl", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			sb.fail(L, "redis.set_repl() requires two arguments.")
		}
		n, _ := L.Get(1).(lua.LNumber)
		if int(n)&^3 != 0 {
			sb.fail(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.")
		}
		return 0
	})
	fn("replicate_commands", func(L *lua.LState) int { L.Push(lua.LTrue); return 1 })
	fn("breakpoint", func(L *lua.LState) int { L.Push(lua.LFalse); return 1 })
	fn("debug", func(L *lua.LState) int { return 0 })
	fn("acl_check_cmd", func(L *lua.LState) int {
		if L.GetTop() < 1 {
			sb.fail(L, "Please specify at least one argument for this redis lib call")
		}
		args, ok := callArgs(L)
		if !ok {
			sb.fail(L, "Lua redis lib command arguments must be strings or integers")
		}
		if _, _, isServer := scriptServerCommand(args); !isServer {
			if _, err := zlite.Lookup(args); err != nil && strings.HasPrefix(err.Error(), "ERR unknown command") {
				sb.fail(L, "Invalid command passed to redis.acl_check_cmd()")
			}
		}
		L.Push(lua.LTrue)
		return 1
	})
	for name, v := range map[string]int{"REPL_NONE": 0, "REPL_AOF": 1, "REPL_SLAVE": 2, "REPL_REPLICA": 2, "REPL_ALL": 3,
		"LOG_DEBUG": 0, "LOG_VERBOSE": 1, "LOG_NOTICE": 2, "LOG_WARNING": 3, "REDIS_VERSION_NUM": redisVersionNum} {
		t.RawSetString(name, lua.LNumber(v))
	}
	t.RawSetString("REDIS_VERSION", lua.LString(redisVersion))
	return t
}

// errorTable is Redis's error table {err="CODE message"} for e: "-CODE message"
// keeps its code, a plain message gets ERR; CR and LF at the ends are trimmed.
func errorTable(L *lua.LState, e string) *lua.LTable {
	code, msg := "ERR", e
	if rest, ok := strings.CutPrefix(e, "-"); ok {
		if c, m, ok := strings.Cut(rest, " "); ok {
			code, msg = c, m
		} else {
			msg = rest
		}
	}
	t := L.NewTable()
	t.RawSetString("err", lua.LString(code+" "+strings.Trim(msg, "\r\n")))
	return t
}

// fail raises Redis's error table for msg, noting the caller's line.
func (sb *sandbox) fail(L *lua.LState, msg string) {
	if sb.run != nil {
		sb.run.line = callerLine(L)
	}
	L.Error(errorTable(L, msg), 0)
}

// callArgs converts redis.call's arguments to strings as Redis does (numbers with
// %.17g); ok is false when one is neither a string nor a number.
func callArgs(L *lua.LState) ([]string, bool) {
	n := L.GetTop()
	args := make([]string, n)
	for i := range n {
		switch v := L.Get(i + 1).(type) {
		case lua.LString:
			args[i] = string(v)
		case lua.LNumber:
			args[i] = formatG17(float64(v))
		default:
			return nil, false
		}
	}
	return args, true
}

// formatG17 is C's "%.17g".
func formatG17(f float64) string {
	s := strconv.FormatFloat(f, 'g', 17, 64)
	if m, e, ok := strings.Cut(s, "e"); ok {
		// C writes the exponent with at least two digits, Go's %g too; C has no '+' omission.
		if strings.Contains(m, ".") {
			m = strings.TrimRight(strings.TrimRight(m, "0"), ".")
		}
		return m + "e" + e
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	switch s {
	case "+Inf":
		return "inf"
	case "-Inf":
		return "-inf"
	case "NaN":
		return "nan"
	}
	return s
}

// scriptServerCommand reports the reply of a server command that scripts may call
// (PING, ECHO, TIME; PUBLISH and SPUBLISH, which call runs); isServer is set for
// every server command.
func scriptServerCommand(args []string) (reply any, sh serverapi.Shape, isServer bool) {
	name := strings.ToLower(args[0])
	if _, ok := serverCommands[name]; !ok {
		return nil, serverapi.Shape{}, false
	}
	switch {
	case name == "ping" && len(args) == 1:
		return "PONG", serverapi.Shape{Status: true}, true
	case name == "ping" && len(args) == 2:
		return args[1], serverapi.Shape{}, true
	case name == "echo" && len(args) == 2:
		return args[1], serverapi.Shape{}, true
	case name == "time" && len(args) == 1:
		now := time.Now()
		return []any{strconv.FormatInt(now.Unix(), 10), strconv.FormatInt(int64(now.Nanosecond()/1000), 10)}, serverapi.Shape{}, true
	}
	return nil, serverapi.Shape{}, true
}

// call is redis.call (raise on error) and redis.pcall (return {err=...}).
func (sb *sandbox) call(L *lua.LState, raise bool) int {
	run := sb.run
	fail := func(msg string) int {
		t := errorTable(L, msg)
		if raise {
			run.line = callerLine(L)
			L.Error(t, 0)
			return 0
		}
		L.Push(t)
		return 1
	}
	if run == nil {
		return fail("redis.call/pcall can only be called inside a script invocation")
	}
	if L.GetTop() == 0 {
		return fail("Please specify at least one argument for this redis lib call")
	}
	args, ok := callArgs(L)
	if !ok {
		return fail("Lua redis lib command arguments must be strings or integers")
	}
	if v, sh, isServer := scriptServerCommand(args); isServer {
		sc := serverCommands[strings.ToLower(args[0])]
		if err := sc.check(args); err != nil {
			return fail("Wrong number of args calling Redis command from script")
		}
		switch sc.name {
		case "publish":
			v = int64(run.srv.hub.Publish(args[1], args[2]))
		case "spublish":
			v = int64(run.srv.hub.SPublish(args[1], args[2]))
		}
		if v == nil {
			return fail("This Redis command is not allowed from script")
		}
		L.Push(toLua(L, v, sh, run.resp == 3))
		return 1
	}
	cmd, err := zlite.Lookup(args)
	if err != nil {
		if strings.HasPrefix(err.Error(), "ERR unknown command") {
			return fail("Unknown Redis command called from script")
		}
		return fail("Wrong number of args calling Redis command from script")
	}
	if cmd.Blocking() {
		return fail("This Redis command is not allowed from script")
	}
	if cmd.Write() {
		if run.readOnly {
			return fail("Write commands are not allowed from read-only scripts.")
		}
		run.dirty.Store(true)
	}
	v, err := run.tx.Do(args...)
	run.srv.feedMonitors(nil, run.db, true, args)
	if err != nil {
		return fail("-" + err.Error())
	}
	L.Push(toLua(L, v, hooks.Shape(cmd, args), run.resp == 3))
	return 1
}

// toLua converts a keyspace reply to Lua as Redis converts a RESP2 reply (resp3
// unset) or a RESP3 one (after redis.setresp(3)).
func toLua(L *lua.LState, v any, sh serverapi.Shape, resp3 bool) lua.LValue {
	switch v := v.(type) {
	case nil:
		if resp3 {
			return lua.LNil
		}
		return lua.LFalse
	case int64:
		return lua.LNumber(v)
	case string:
		switch {
		case sh.Status:
			t := L.NewTable()
			t.RawSetString("ok", lua.LString(v))
			return t
		case resp3 && sh.Doubles == serverapi.DoubleScalar:
			return doubleTable(L, v)
		}
		return lua.LString(v)
	case []any:
		if resp3 && sh.Aggregate != serverapi.Array {
			return aggregateToLua(L, v, sh.Aggregate)
		}
		return listToLua(L, v, sh.Doubles, resp3)
	}
	return lua.LFalse
}

// aggregateToLua converts a RESP3 map, set or array of pairs (see
// serverapi.Aggregate) as Redis does: {map={field=value}}, {set={member=true}}, or
// an array of two-element arrays.
func aggregateToLua(L *lua.LState, v []any, a serverapi.Aggregate) *lua.LTable {
	plain := func(e any) lua.LValue { return toLua(L, e, serverapi.Shape{}, true) }
	switch a {
	case serverapi.Map, serverapi.SetOf:
		inner := L.CreateTable(0, len(v))
		if a == serverapi.Map {
			for i := 0; i+1 < len(v); i += 2 {
				inner.RawSet(plain(v[i]), plain(v[i+1]))
			}
		} else {
			for _, e := range v {
				inner.RawSet(plain(e), lua.LTrue)
			}
		}
		t := L.CreateTable(0, 1)
		if a == serverapi.Map {
			t.RawSetString("map", inner)
		} else {
			t.RawSetString("set", inner)
		}
		return t
	}
	t := L.CreateTable(len(v)/2, 0)
	for i := 0; i+1 < len(v); i += 2 {
		p := L.CreateTable(2, 0)
		p.Append(plain(v[i]))
		p.Append(plain(v[i+1]))
		t.Append(p)
	}
	return t
}

// listToLua converts an array reply, with RESP3's doubles and nested pairs where
// d says.
func listToLua(L *lua.LState, v []any, d serverapi.Doubles, resp3 bool) *lua.LTable {
	elem := func(e any, double bool) lua.LValue {
		if s, ok := e.(string); ok && double && resp3 {
			return doubleTable(L, s)
		}
		if sub, ok := e.([]any); ok {
			return listToLua(L, sub, serverapi.NoDoubles, resp3)
		}
		return toLua(L, e, serverapi.Shape{}, resp3)
	}
	switch {
	case d == serverapi.DoublePairs && resp3:
		t := L.CreateTable(len(v)/2, 0)
		for i := 0; i+1 < len(v); i += 2 {
			p := L.CreateTable(2, 0)
			p.Append(elem(v[i], false))
			p.Append(elem(v[i+1], true))
			t.Append(p)
		}
		return t
	case d == serverapi.DoubleMPop && len(v) == 2:
		t := L.CreateTable(2, 0)
		t.Append(elem(v[0], false))
		pairs, _ := v[1].([]any)
		pt := L.CreateTable(len(pairs), 0)
		for _, p := range pairs {
			pt.Append(listToLua(L, p.([]any), serverapi.DoubleLast, resp3))
		}
		t.Append(pt)
		return t
	}
	t := L.CreateTable(len(v), 0)
	for i, e := range v {
		double := d == serverapi.DoubleEach ||
			(d == serverapi.DoublePairs || d == serverapi.DoubleFlatPairs) && i%2 == 1 ||
			d == serverapi.DoubleLast && i == len(v)-1
		// A nil element of a RESP3 array is Lua nil: RawSetInt keeps the
		// positions of the elements after it.
		t.RawSetInt(i+1, elem(e, double))
	}
	return t
}

// doubleTable is RESP3's double as scripts see it: {double=n}.
func doubleTable(L *lua.LState, s string) *lua.LTable {
	f, _ := strconv.ParseFloat(s, 64)
	t := L.NewTable()
	t.RawSetString("double", lua.LNumber(f))
	return t
}

// luaStackLimit is Lua 5.1's LUAI_MAXCSTACK, and luaReplyBase the values on the
// stack of Redis's reply conversion when it starts: a nested reply of more levels
// than the stack allows ends in an error at that depth, as in Redis, rather than in
// an overflow of the Go stack.
const (
	luaStackLimit = 8000
	luaReplyBase  = 2
)

// luaReply writes a script's result as Redis converts Lua values to replies;
// resp3 is the script's redis.setresp. depth is the Lua stack Redis's conversion
// would use at this value (see luaStackLimit).
func (w *writer) luaReply(v lua.LValue, resp3 bool, depth int) {
	top := luaReplyBase + depth
	if top+4 > luaStackLimit {
		w.errorReply("ERR reached lua stack limit")
		return
	}
	switch v := v.(type) {
	case lua.LString:
		w.bulk(string(v))
	case lua.LNumber:
		w.integer(int64(v))
	case lua.LBool:
		// A script in RESP3 (redis.setresp(3)) returns booleans: #t/#f to a RESP3
		// client, :1/:0 to a RESP2 one; in RESP2 false is a null.
		switch {
		case resp3 && w.resp3 && bool(v):
			_, _ = w.bw.WriteString("#t\r\n")
		case resp3 && w.resp3:
			_, _ = w.bw.WriteString("#f\r\n")
		case bool(v):
			w.integer(1)
		case resp3:
			w.integer(0)
		default:
			w.null(false)
		}
	case *lua.LTable:
		w.luaTable(v, resp3, depth)
	default:
		w.null(false)
	}
}

// luaTable writes a table: an error {err=}, a status {ok=}, RESP3's {double=},
// {big_number=}, {verbatim_string=}, {map=}, {set=}, or an array of the values at
// 1, 2, ... up to the first nil.
func (w *writer) luaTable(t *lua.LTable, resp3 bool, depth int) {
	if e, ok := t.RawGetString("err").(lua.LString); ok {
		w.errorReply(string(e))
		return
	}
	if s, ok := t.RawGetString("ok").(lua.LString); ok {
		w.status(strings.NewReplacer("\r", " ", "\n", " ").Replace(string(s)))
		return
	}
	if d, ok := t.RawGetString("double").(lua.LNumber); ok {
		w.double(formatDouble(float64(d)))
		return
	}
	if b, ok := t.RawGetString("big_number").(lua.LString); ok {
		s := strings.NewReplacer("\r", " ", "\n", " ").Replace(string(b))
		if w.resp3 {
			_ = w.bw.WriteByte('(')
			_, _ = w.bw.WriteString(s)
			w.crlf()
		} else {
			w.bulk(s)
		}
		return
	}
	if vs, ok := t.RawGetString("verbatim_string").(*lua.LTable); ok {
		f, fok := vs.RawGetString("format").(lua.LString)
		s, sok := vs.RawGetString("string").(lua.LString)
		if fok && sok {
			if w.resp3 {
				w.prefixed('=', int64(len(s)+4))
				_, _ = w.bw.WriteString((string(f) + "   ")[:3] + ":")
				_, _ = w.bw.WriteString(string(s))
				w.crlf()
			} else {
				w.bulk(string(s))
			}
			return
		}
	}
	if m, ok := t.RawGetString("map").(*lua.LTable); ok {
		n := 0
		m.ForEach(func(lua.LValue, lua.LValue) { n++ })
		w.mapHeader(n)
		m.ForEach(func(k, v lua.LValue) {
			w.luaReply(k, resp3, depth+4)
			w.luaReply(v, resp3, depth+3)
		})
		return
	}
	if s, ok := t.RawGetString("set").(*lua.LTable); ok {
		n := 0
		s.ForEach(func(lua.LValue, lua.LValue) { n++ })
		w.setHeader(n)
		s.ForEach(func(k, _ lua.LValue) { w.luaReply(k, resp3, depth+3) })
		return
	}
	n := 0
	for t.RawGetInt(n+1) != lua.LNil {
		n++
	}
	w.array(n)
	for i := 1; i <= n; i++ {
		w.luaReply(t.RawGetInt(i), resp3, depth+1)
	}
}

// formatDouble is a double as Redis's addReplyDouble writes it (%.17g, inf, -inf).
func formatDouble(f float64) string { return formatG17(f) }
