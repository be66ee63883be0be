package server

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/zlite/zlite"
)

// Lua scripting: EVAL, EVALSHA and SCRIPT run Redis's Lua 5.1 dialect on
// github.com/yuin/gopher-lua (already in the module graph through miniredis). A
// script runs inside one [zlite.DB.Update] batch of the selected keyspace, so it is
// atomic as in Redis; redis.call and redis.pcall run keyspace commands through
// [zlite.Tx.Do] with Redis's conversions between replies and Lua values (RESP2
// forms: integers, strings, false for nulls, tables for arrays, {ok=...} for
// status replies, {err=...} for errors).
//
// Differences from Redis: a script running longer than scriptTimeout is stopped
// with an error (Redis keeps running it and answers BUSY to other clients; here the
// keyspace's lock would stall them instead); its writes so far stay, as in Redis.
// cjson has decode and encode (on encoding/json); no cmsgpack, struct or bit libraries; redis.setresp, redis.log and
// redis.sha1hex are not provided.

// scriptTimeout bounds a script's run time: a longer one holds its keyspace's lock.
const scriptTimeout = 5 * time.Second

// scripts is a server's script cache (SCRIPT LOAD, EVAL) and its Lua states.
type scripts struct {
	mu     sync.Mutex
	protos map[string]*lua.FunctionProto // by lower-case SHA1 hex
	states sync.Pool                     // *lua.LState, one per concurrent script
}

// compile compiles src, caches it and returns its SHA1 and code.
func (sc *scripts) compile(src string) (string, *lua.FunctionProto, error) {
	sum := sha1.Sum([]byte(src))
	sha := hex.EncodeToString(sum[:])
	sc.mu.Lock()
	p, ok := sc.protos[sha]
	sc.mu.Unlock()
	if ok {
		return sha, p, nil
	}
	chunk, err := parse.Parse(strings.NewReader(src), "user_script")
	if err != nil {
		return "", nil, errors.New("ERR Error compiling script (new function): " + oneLine(err.Error()))
	}
	p, err = lua.Compile(chunk, "user_script")
	if err != nil {
		return "", nil, errors.New("ERR Error compiling script (new function): " + oneLine(err.Error()))
	}
	sc.mu.Lock()
	if sc.protos == nil {
		sc.protos = make(map[string]*lua.FunctionProto)
	}
	sc.protos[sha] = p
	sc.mu.Unlock()
	return sha, p, nil
}

func (sc *scripts) lookup(sha string) *lua.FunctionProto {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.protos[strings.ToLower(sha)]
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// newState returns a Lua state with Redis's libraries (base, table, string, math)
// and no file or module access.
func newState() *lua.LState {
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString}, {lua.MathLibName, lua.OpenMath}} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	openCJSON(L)
	for _, name := range []string{"dofile", "loadfile", "require", "module"} {
		L.SetGlobal(name, lua.LNil)
	}
	return L
}

// scriptRun is the state of one script's run, read by redis.call.
type scriptRun struct {
	tx   *zlite.Tx
	sha  string
	line int // where the last failing redis.call was made
}

// cmdEval is EVAL script numkeys [key ...] [arg ...] and EVALSHA sha1 numkeys ....
func cmdEval(bySHA bool) func(c *client, a []string) bool {
	return func(c *client, a []string) bool {
		n, err := strconv.ParseInt(a[2], 10, 64)
		switch {
		case err != nil:
			c.w.errorReply(zlite.ErrNotInteger.Error())
			return false
		case n > int64(len(a)-3):
			c.w.errorReply("ERR Number of keys can't be greater than number of args")
			return false
		case n < 0:
			c.w.errorReply("ERR Number of keys can't be negative")
			return false
		}
		sc := &c.srv.scripts
		var sha string
		var proto *lua.FunctionProto
		if bySHA {
			sha = strings.ToLower(a[1])
			if proto = sc.lookup(sha); proto == nil {
				c.w.errorReply("NOSCRIPT No matching script. Please use EVAL.")
				return false
			}
		} else if sha, proto, err = sc.compile(a[1]); err != nil {
			c.w.errorReply(err.Error())
			return false
		}
		keys, args := a[3:3+n], a[3+n:]
		var v lua.LValue
		_ = c.srv.DB(c.db).Update(func(tx *zlite.Tx) error {
			v, err = runScript(sc, proto, &scriptRun{tx: tx, sha: sha}, keys, args)
			return nil
		})
		if err != nil {
			c.w.errorReply(err.Error())
			return false
		}
		c.w.luaReply(v)
		return false
	}
}

// runScript runs proto with KEYS and ARGV on a pooled Lua state.
func runScript(sc *scripts, proto *lua.FunctionProto, run *scriptRun, keys, args []string) (lua.LValue, error) {
	L, _ := sc.states.Get().(*lua.LState)
	if L == nil {
		L = newState()
	}
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	L.SetContext(ctx)
	defer func() {
		L.RemoveContext()
		L.SetTop(0)
		sc.states.Put(L)
	}()
	redis := L.NewTable()
	redis.RawSetString("call", L.NewFunction(func(L *lua.LState) int { return run.call(L, true) }))
	redis.RawSetString("pcall", L.NewFunction(func(L *lua.LState) int { return run.call(L, false) }))
	redis.RawSetString("error_reply", L.NewFunction(func(L *lua.LState) int {
		t := L.NewTable()
		t.RawSetString("err", lua.LString(L.CheckString(1)))
		L.Push(t)
		return 1
	}))
	redis.RawSetString("status_reply", L.NewFunction(func(L *lua.LState) int {
		t := L.NewTable()
		t.RawSetString("ok", lua.LString(L.CheckString(1)))
		L.Push(t)
		return 1
	}))
	L.SetGlobal("redis", redis)
	L.SetGlobal("KEYS", stringTable(L, keys))
	L.SetGlobal("ARGV", stringTable(L, args))
	L.Push(L.NewFunctionFromProto(proto))
	if err := L.PCall(0, 1, nil); err != nil {
		return nil, run.scriptError(err, ctx)
	}
	return L.Get(-1), nil
}

func stringTable(L *lua.LState, ss []string) *lua.LTable {
	t := L.CreateTable(len(ss), 0)
	for _, s := range ss {
		t.Append(lua.LString(s))
	}
	return t
}

// scriptError is the error reply of a failed script, in Redis's words: the error,
// then " script: <sha>, on @user_script:<line>.".
func (run *scriptRun) scriptError(err error, ctx context.Context) error {
	if ctx.Err() != nil {
		return errors.New("ERR script killed: it ran longer than " + scriptTimeout.String() + " script: " + run.sha)
	}
	var ae *lua.ApiError
	if !errors.As(err, &ae) {
		return errors.New("ERR " + oneLine(err.Error()))
	}
	if t, ok := ae.Object.(*lua.LTable); ok {
		if e, ok := t.RawGetString("err").(lua.LString); ok {
			return errors.New(string(e) + " script: " + run.sha + ", on @user_script:" + strconv.Itoa(run.line) + ".")
		}
	}
	msg := oneLine(lua.LVAsString(ae.Object))
	line := 0
	if rest, ok := strings.CutPrefix(msg, "user_script:"); ok {
		if i := strings.IndexByte(rest, ':'); i > 0 {
			line, _ = strconv.Atoi(rest[:i])
		}
	}
	return errors.New("ERR " + msg + " script: " + run.sha + ", on @user_script:" + strconv.Itoa(line) + ".")
}

// call is redis.call (raise on error) and redis.pcall (return {err=...}).
func (run *scriptRun) call(L *lua.LState, raise bool) int {
	fail := func(msg string) int {
		if w := L.Where(1); w != "" {
			run.line, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(w, "user_script:"), ":"))
		}
		t := L.NewTable()
		t.RawSetString("err", lua.LString(msg))
		if raise {
			L.Error(t, 0)
			return 0
		}
		L.Push(t)
		return 1
	}
	n := L.GetTop()
	if n == 0 {
		return fail("ERR Please specify at least one argument for this redis lib call")
	}
	args := make([]string, n)
	for i := range n {
		switch v := L.Get(i + 1).(type) {
		case lua.LString:
			args[i] = string(v)
		case lua.LNumber:
			if f := float64(v); f == float64(int64(f)) {
				args[i] = strconv.FormatInt(int64(f), 10)
			} else {
				args[i] = strconv.FormatFloat(f, 'g', 17, 64)
			}
		default:
			return fail("ERR Lua redis lib command arguments must be strings or integers")
		}
	}
	name := strings.ToLower(args[0])
	if name == "ping" {
		t := L.NewTable()
		t.RawSetString("ok", lua.LString("PONG"))
		L.Push(t)
		return 1
	}
	cmd, err := zlite.Lookup(args)
	if err != nil {
		if strings.HasPrefix(err.Error(), "ERR unknown command") {
			return fail("ERR Unknown Redis command called from script")
		}
		return fail("ERR Wrong number of args calling Redis command from script")
	}
	if cmd.Blocking() {
		return fail("ERR This Redis command is not allowed from script")
	}
	v, err := run.tx.Do(args...)
	if err != nil {
		return fail(err.Error())
	}
	L.Push(toLua(L, v, cmd.Shape(args)))
	return 1
}

// toLua converts a keyspace reply to Lua as Redis does for RESP2 replies.
func toLua(L *lua.LState, v any, sh zlite.Shape) lua.LValue {
	switch v := v.(type) {
	case nil:
		return lua.LFalse
	case int64:
		return lua.LNumber(v)
	case string:
		if sh.Status {
			t := L.NewTable()
			t.RawSetString("ok", lua.LString(v))
			return t
		}
		return lua.LString(v)
	case []any:
		t := L.CreateTable(len(v), 0)
		for _, e := range v {
			t.Append(toLua(L, e, zlite.Shape{}))
		}
		return t
	}
	return lua.LFalse
}

// luaReply writes a script's result as Redis converts Lua values to replies.
func (w *writer) luaReply(v lua.LValue) {
	switch v := v.(type) {
	case lua.LNumber:
		w.integer(int64(v))
	case lua.LString:
		w.bulk(string(v))
	case lua.LBool:
		if v {
			w.integer(1)
		} else {
			w.null(false)
		}
	case *lua.LTable:
		if e, ok := v.RawGetString("err").(lua.LString); ok {
			w.errorReply(string(e))
			return
		}
		if s, ok := v.RawGetString("ok").(lua.LString); ok {
			w.status(string(s))
			return
		}
		n := 0
		for v.RawGetInt(n+1) != lua.LNil {
			n++
		}
		w.array(n)
		for i := 1; i <= n; i++ {
			w.luaReply(v.RawGetInt(i))
		}
	default:
		w.null(false)
	}
}

// cmdScript is SCRIPT LOAD script | EXISTS sha1 [sha1 ...] | FLUSH [ASYNC|SYNC].
func cmdScript(c *client, a []string) bool {
	sc := &c.srv.scripts
	switch strings.ToLower(a[1]) {
	case "load":
		sha, _, err := sc.compile(a[2])
		if err != nil {
			c.w.errorReply(err.Error())
			return false
		}
		c.w.bulk(sha)
	case "exists":
		c.w.array(len(a) - 2)
		for _, sha := range a[2:] {
			if sc.lookup(sha) != nil {
				c.w.integer(1)
			} else {
				c.w.integer(0)
			}
		}
	case "flush":
		if len(a) > 3 || (len(a) == 3 && !strings.EqualFold(a[2], "sync") && !strings.EqualFold(a[2], "async")) {
			c.w.errorReply("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
			return false
		}
		sc.mu.Lock()
		sc.protos = nil
		sc.mu.Unlock()
		c.w.status("OK")
	case "help":
		c.w.array(1)
		c.w.status("SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are: LOAD <script> EXISTS <sha1> [<sha1> ...] FLUSH [ASYNC|SYNC]")
	}
	return false
}
