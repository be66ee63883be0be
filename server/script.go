package server

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/zlite/zlite"
)

// Lua scripting: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO, SCRIPT, and the Redis 7
// functions (function.go) run Redis's Lua 5.1 dialect on github.com/yuin/gopher-lua
// in Redis's sandbox (script_sandbox.go). A script runs inside one
// [zlite.DB.Update] batch of the selected keyspace, so it is atomic as in Redis;
// redis.call and redis.pcall run keyspace commands through [zlite.Tx.Do] with
// Redis's conversions between replies and Lua values (script_reply.go).
//
// A script runs until it ends, as in Redis. Once it has run longer than
// busy-reply-threshold (lua-time-limit), every other command of the server gets
// Redis's BUSY error except those Redis allows then (SCRIPT KILL, FUNCTION KILL,
// SHUTDOWN NOSAVE, ...); SCRIPT KILL stops a script that has not written, SHUTDOWN
// NOSAVE stops any. The time and kill checks run between the virtual machine's
// instructions and inside every long library call (server/internal/lualib).

// Script flags of a shebang line (#!lua flags=...), as Redis names them.
const (
	flagNoWrites = 1 << iota
	flagAllowOOM
	flagAllowStale
	flagNoCluster
	flagAllowCrossSlot
	flagCompat // no shebang: EVAL's compatibility mode
)

var scriptFlagNames = []struct {
	name string
	flag int
}{{"no-writes", flagNoWrites}, {"allow-oom", flagAllowOOM}, {"allow-stale", flagAllowStale},
	{"no-cluster", flagNoCluster}, {"allow-cross-slot-keys", flagAllowCrossSlot}}

// script is a compiled EVAL script.
type script struct {
	proto *lua.FunctionProto
	flags int
}

// scripts is a server's script cache (SCRIPT LOAD, EVAL), its function libraries
// and its Lua states.
type scripts struct {
	mu      sync.Mutex
	byHash  map[string]*script // by lower-case SHA1 hex
	libs    *functionLibs      // FUNCTION LOAD's libraries (function.go)
	states  sync.Pool          // *sandbox, one per concurrent script
	running map[*scriptRun]struct{}
	busy    atomic.Int32 // running scripts past busy-reply-threshold
}

// parseShebang returns the flags of a script's shebang line and the length of the
// line (kept out of the compiled chunk, its line feed kept for line numbers).
func parseShebang(src string) (flags, n int, err error) {
	if !strings.HasPrefix(src, "#!") {
		return flagCompat, 0, nil
	}
	line, _, ok := strings.Cut(src, "\n")
	if !ok {
		return 0, 0, errors.New("ERR Invalid script shebang")
	}
	parts := strings.Fields(line)
	if len(parts) == 0 {
		return 0, 0, errors.New("ERR Invalid engine in script shebang")
	}
	if parts[0] != "#!lua" {
		return 0, 0, errors.New("ERR Unexpected engine in script shebang: " + parts[0])
	}
	for _, p := range parts[1:] {
		list, ok := strings.CutPrefix(p, "flags=")
		if !ok {
			return 0, 0, errors.New("ERR Unknown lua shebang option: " + p)
		}
		if f, err := parseScriptFlags(strings.Split(list, ","), "Unexpected flag in script shebang: "); err != nil {
			return 0, 0, err
		} else {
			flags |= f
		}
	}
	return flags, len(line), nil
}

// parseScriptFlags maps flag names to flags; an unknown one is an error of the
// given prefix.
func parseScriptFlags(names []string, prefix string) (int, error) {
	flags := 0
next:
	for _, name := range names {
		if name == "" && len(names) == 1 {
			continue
		}
		for _, f := range scriptFlagNames {
			if f.name == name {
				flags |= f.flag
				continue next
			}
		}
		return 0, errors.New("ERR " + prefix + name)
	}
	return flags, nil
}

// compile compiles src, caches it and returns its SHA1 and script.
func (sc *scripts) compile(src string) (string, *script, error) {
	sum := sha1.Sum([]byte(src))
	sha := hex.EncodeToString(sum[:])
	sc.mu.Lock()
	s, ok := sc.byHash[sha]
	sc.mu.Unlock()
	if ok {
		return sha, s, nil
	}
	flags, n, err := parseShebang(src)
	if err != nil {
		return "", nil, err
	}
	p, err := compileChunk(src[n:], "user_script")
	if err != nil {
		return "", nil, errors.New("ERR Error compiling script (new function): " + compileError(err, src[n:], "user_script"))
	}
	s = &script{proto: p, flags: flags}
	sc.mu.Lock()
	if sc.byHash == nil {
		sc.byHash = make(map[string]*script)
	}
	sc.byHash[sha] = s
	sc.mu.Unlock()
	return sha, s, nil
}

// compileError is a compile error as Lua 5.1 words it ("user_script:1:
// unexpected symbol near '<eof>'"); gopher-lua's parser says "user_script at EOF:
// syntax error".
func compileError(err error, src, name string) string {
	var pe *parse.Error
	if !errors.As(err, &pe) {
		return oneLine(err.Error())
	}
	line, tok := pe.Pos.Line, pe.Token
	if line == parse.EOF {
		line, tok = strings.Count(src, "\n")+1, "<eof>"
	}
	msg := pe.Message
	if msg == "syntax error" {
		msg = "unexpected symbol"
	}
	return name + ":" + strconv.Itoa(line) + ": " + msg + " near '" + tok + "'"
}

func (sc *scripts) lookup(sha string) *script {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.byHash[strings.ToLower(sha)]
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// scriptRun is the state of one script's run, read by redis.call and by the
// server's busy checks.
type scriptRun struct {
	srv      *Server
	tx       *zlite.Tx
	sb       *sandbox
	name     string       // the SHA1 of an EVAL script, the function's name for FCALL
	eval     bool         // EVAL (SCRIPT KILL), not FCALL (FUNCTION KILL)
	readOnly bool         // EVAL_RO, FCALL_RO, no-writes: write commands are refused
	line     int          // where the last failing redis.call or error({...}) was made
	resp     int          // redis.setresp: the protocol of redis.call replies
	fn       *libFunction // FCALL's function
	args     []string     // the command, for FUNCTION STATS
	db       int          // the caller's keyspace number, for MONITOR

	cancel   context.CancelCauseFunc
	start    time.Time
	heap0    uint64
	watch    *time.Timer
	dirty    atomic.Bool // a write command ran: SCRIPT KILL refuses
	timedOut atomic.Bool
	past     chan struct{} // closed when the run passes busy-reply-threshold or ends
	pastOnce sync.Once
}

// replyError is an error whose text is a Redis error reply, word for word
// (several end with a full stop, which Go's own error texts avoid).
type replyError string

func (e replyError) Error() string { return string(e) }

// Causes of a stopped script.
const (
	errScriptKilled   replyError = "ERR Script killed by user with SCRIPT KILL..."
	errFunctionKilled replyError = "ERR Script killed by user with FUNCTION KILL..."
	errScriptMemory   replyError = "ERR Script killed: it used more memory than allowed"
	errScriptShutdown replyError = "ERR Script killed: the server is shutting down"
)

// BUSY errors, word for word Redis's.
const (
	errBusyEval     = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
	errBusyFunction = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
)

// scriptMemoryLimit bounds how much a script may grow the process's heap: at most
// this much, or as much as the heap held when it started if that is more (so that
// garbage a collection would free does not count against a small script).
const scriptMemoryLimit = 1 << 30

// watchEvery is how often a running script's time and memory are checked.
const watchEvery = 5 * time.Millisecond

// cmdEval is EVAL, EVALSHA, EVAL_RO and EVALSHA_RO script numkeys [key ...] [arg ...].
func cmdEval(bySHA, ro bool) func(c *client, a []string) bool {
	return func(c *client, a []string) bool {
		keys, args, err := evalKeys(a)
		if err != nil {
			c.w.errorReply(err.Error())
			return false
		}
		sc := &c.srv.scripts
		var sha string
		var s *script
		if bySHA {
			sha = strings.ToLower(a[1])
			if s = sc.lookup(sha); s == nil {
				c.w.errorReply("NOSCRIPT No matching script. Please use EVAL.")
				return false
			}
		} else if sha, s, err = sc.compile(a[1]); err != nil {
			c.w.errorReply(err.Error())
			return false
		}
		readOnly := ro || s.flags&(flagCompat|flagNoWrites) == flagNoWrites
		if ro && s.flags&(flagCompat|flagNoWrites) == 0 {
			c.w.errorReply("ERR Can not execute a script with write flag using *_ro command.")
			return false
		}
		c.runScript(&scriptRun{name: sha, eval: true, readOnly: readOnly, args: a}, s.proto, keys, args)
		return false
	}
}

// evalKeys splits EVAL's and FCALL's arguments after numkeys into keys and args.
func evalKeys(a []string) (keys, args []string, err error) {
	n, err := strconv.ParseInt(a[2], 10, 64)
	switch {
	case err != nil:
		return nil, nil, zlite.ErrNotInteger
	case n > int64(len(a)-3):
		return nil, nil, errors.New("ERR Number of keys can't be greater than number of args")
	case n < 0:
		return nil, nil, errors.New("ERR Number of keys can't be negative")
	}
	return a[3 : 3+n], a[3+n:], nil
}

// runScript runs a compiled chunk (EVAL) or a library function (FCALL, run.fn set)
// in one Update batch of the client's keyspace and writes its reply.
func (c *client) runScript(run *scriptRun, proto *lua.FunctionProto, keys, args []string) {
	srv := c.srv
	sc := &srv.scripts
	var v lua.LValue
	var err error
	_ = srv.DB(c.db).Update(func(tx *zlite.Tx) error {
		sb, _ := sc.states.Get().(*sandbox)
		if sb == nil {
			sb = newSandbox(srv)
		}
		run.srv, run.tx, run.sb, run.resp, run.db = srv, tx, sb, 2, c.db
		L := sb.L
		var fn *lua.LFunction
		if run.fn != nil {
			if fn, err = sb.function(run.fn); err != nil {
				sc.states.Put(sb)
				return nil
			}
		}
		ctx := sc.begin(run)
		sb.run = run
		L.SetContext(ctx)
		defer func() {
			sc.end(run)
			L.RemoveContext()
			L.SetTop(0)
			L.Env = sb.env
			sb.globals.RawSetString("KEYS", lua.LNil)
			sb.globals.RawSetString("ARGV", lua.LNil)
			sb.run = nil
			sc.states.Put(sb)
		}()
		if fn != nil {
			L.Push(fn)
			L.Push(stringTable(L, keys))
			L.Push(stringTable(L, args))
			err = L.PCall(2, 1, nil)
		} else {
			sb.globals.RawSetString("KEYS", stringTable(L, keys))
			sb.globals.RawSetString("ARGV", stringTable(L, args))
			L.Push(L.NewFunctionFromProto(proto))
			err = L.PCall(0, 1, nil)
		}
		if err != nil {
			err = run.scriptError(err, context.Cause(ctx))
			return nil
		}
		v = L.Get(-1)
		if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
			// Stopped in its last instruction: its reply is not wanted.
			return nil
		}
		c.w.luaReply(v, run.resp == 3, 0)
		return nil
	})
	if err != nil {
		c.w.errorReply(err.Error())
	}
}

// begin registers a run as running and starts its watch; the returned context is
// cancelled, with the cause, when the run is killed.
func (sc *scripts) begin(run *scriptRun) context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	run.cancel = cancel
	run.start = time.Now()
	run.heap0 = heapBytes()
	run.past = make(chan struct{})
	sc.mu.Lock()
	if sc.running == nil {
		sc.running = make(map[*scriptRun]struct{})
	}
	sc.running[run] = struct{}{}
	// Under sc.mu: the watch, which takes sc.mu, finds run.watch set.
	run.watch = time.AfterFunc(watchEvery, func() { sc.check(run) })
	sc.mu.Unlock()
	return ctx
}

// end unregisters a finished run.
func (sc *scripts) end(run *scriptRun) {
	sc.mu.Lock()
	delete(sc.running, run)
	run.watch.Stop()
	if run.timedOut.Load() {
		sc.busy.Add(-1)
	}
	sc.mu.Unlock()
	run.cancel(nil)
	run.pastOnce.Do(func() { close(run.past) })
}

// check is a running script's watch: it enters busy mode once the script has run
// longer than busy-reply-threshold, stops it when it grew the heap past
// scriptMemoryLimit, and re-arms itself.
func (sc *scripts) check(run *scriptRun) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if _, ok := sc.running[run]; !ok {
		return
	}
	limit := uint64(max(run.srv.scriptMemory.Load(), int64(run.heap0)))
	if h := heapBytes(); h > run.heap0 && h-run.heap0 > limit {
		run.srv.log.Warn("Lua script killed: it grew the heap past its limit", "script", run.name, "bytes", h-run.heap0)
		run.cancel(errScriptMemory)
	}
	if th := run.srv.busyThreshold.Load(); th > 0 && !run.timedOut.Load() && time.Since(run.start) >= time.Duration(th)*time.Millisecond {
		run.timedOut.Store(true)
		sc.busy.Add(1)
		kill := "SCRIPT KILL"
		if !run.eval {
			kill = "FUNCTION KILL"
		}
		run.srv.log.Warn("Slow script detected: still in execution. You can try killing the script using the "+kill+" command.",
			"script", run.name, "ms", time.Since(run.start).Milliseconds())
		run.pastOnce.Do(func() { close(run.past) })
	}
	run.watch.Reset(watchEvery)
}

// heapBytes is the Go heap's object bytes, live and not yet collected.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// busyError returns the BUSY error for a command while a script is past
// busy-reply-threshold, or "" when the command may run.
func (sc *scripts) busyError(name string, a []string) string {
	if sc.busy.Load() == 0 {
		return ""
	}
	switch name {
	case "auth", "discard", "hello", "multi", "quit", "reset", "unwatch", "watch", "shutdown":
		return ""
	case "script", "function":
		if len(a) > 1 && (strings.EqualFold(a[1], "kill") || (name == "function" && strings.EqualFold(a[1], "stats"))) {
			return ""
		}
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for run := range sc.running {
		if run.timedOut.Load() && !run.eval {
			return errBusyFunction
		}
	}
	return errBusyEval
}

// rejectBusy replies BUSY to a command that may not run while a script is past
// busy-reply-threshold, as Redis does (a transaction it was queued in then fails
// with EXECABORT; EXEC itself ends it with EXECABORT and the BUSY error), and
// reports whether it did.
func (c *client) rejectBusy(sc *serverCommand, cmd zlite.Command, isServer bool, a []string, mute bool) bool {
	var name string
	if isServer {
		name = sc.name
	} else {
		name = cmd.Name()
	}
	e := c.srv.scripts.busyError(name, a)
	if e == "" {
		return false
	}
	c.runBatch()
	c.w.mute(mute)
	c.reject(name, e)
	c.w.mute(false)
	return true
}

// kill stops the script that is past busy-reply-threshold, for SCRIPT KILL (eval)
// and FUNCTION KILL. As in Redis, the command waits until a running script is past
// the threshold (Redis reads it only then) or has ended.
func (sc *scripts) kill(eval bool) error {
	for {
		sc.mu.Lock()
		var run *scriptRun
		for r := range sc.running {
			if run == nil || r.start.Before(run.start) {
				run = r
			}
		}
		sc.mu.Unlock()
		if run == nil {
			return replyError("NOTBUSY No scripts in execution right now.")
		}
		<-run.past
		sc.mu.Lock()
		_, still := sc.running[run]
		sc.mu.Unlock()
		if !still {
			continue
		}
		switch {
		case run.dirty.Load():
			return replyError("UNKILLABLE Sorry the script already executed write commands against the dataset. " +
				"You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.")
		case eval && !run.eval:
			return replyError(errBusyFunction)
		case !eval && run.eval:
			return replyError(errBusyEval)
		}
		if eval {
			run.cancel(errScriptKilled)
		} else {
			run.cancel(errFunctionKilled)
		}
		return nil
	}
}

// stopAll stops every running script (the server is shutting down).
func (sc *scripts) stopAll() {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for run := range sc.running {
		run.cancel(errScriptShutdown)
	}
}

func stringTable(L *lua.LState, ss []string) *lua.LTable {
	t := L.CreateTable(len(ss), 0)
	for _, s := range ss {
		t.Append(lua.LString(s))
	}
	return t
}

// scriptError is the error reply of a failed script, in Redis's words: the error
// (with ERR before a plain message), then " script: <name>, on @user_script:<line>."
// for an error raised where Redis's error handler finds a line.
func (run *scriptRun) scriptError(err error, cause error) error {
	suffix := func(line int) string {
		return " script: " + run.name + ", on @" + run.source() + ":" + strconv.Itoa(line) + "."
	}
	if cause != nil && !errors.Is(cause, context.Canceled) {
		return errors.New(cause.Error() + suffix(max(run.line, errorLine(err, run.source()))))
	}
	var ae *lua.ApiError
	if !errors.As(err, &ae) {
		return errors.New("ERR " + oneLine(err.Error()))
	}
	if t, ok := ae.Object.(*lua.LTable); ok {
		if e, ok := t.RawGetString("err").(lua.LString); ok {
			return errors.New(string(e) + suffix(run.line))
		}
		return errors.New("ERR Error running script " + run.name + ", execution failure")
	}
	msg := oneLine(lua.LVAsString(ae.Object))
	if msg == "lua callstack overflow" { // gopher-lua's words, without a position
		msg = "stack overflow"
	}
	line := errorLine(err, run.source())
	if line == 0 {
		line = run.line
	}
	return errors.New("ERR " + msg + suffix(line))
}

// source is the chunk name of the run's code, as Redis's error replies give it.
func (run *scriptRun) source() string {
	if run.eval {
		return "user_script"
	}
	return "user_function"
}

// errorLine is the line of a Lua error's "<source>:<line>:" prefix, or 0.
func errorLine(err error, source string) int {
	var ae *lua.ApiError
	if !errors.As(err, &ae) {
		return 0
	}
	rest, ok := strings.CutPrefix(lua.LVAsString(ae.Object), source+":")
	if !ok {
		return 0
	}
	n, _ := strconv.Atoi(rest[:max(strings.IndexByte(rest, ':'), 0)])
	return n
}

// cmdScript is SCRIPT LOAD script | EXISTS sha1 [sha1 ...] | FLUSH [ASYNC|SYNC] |
// KILL | HELP.
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
		sc.byHash = nil
		sc.mu.Unlock()
		c.w.status("OK")
	case "kill":
		if err := sc.kill(true); err != nil {
			c.w.errorReply(err.Error())
			return false
		}
		c.w.status("OK")
	case "help":
		c.w.array(1)
		c.w.status("SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are: LOAD <script> EXISTS <sha1> [<sha1> ...] FLUSH [ASYNC|SYNC] KILL")
	}
	return false
}
