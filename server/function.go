package server

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/zlite/zlite/internal/glob"
)

// Redis 7 functions: FUNCTION LOAD|DELETE|FLUSH|LIST|STATS|KILL|HELP, FCALL and
// FCALL_RO. A library is the code FUNCTION LOAD was given ("#!lua name=lib" and a
// chunk that calls redis.register_function); its functions are called with the
// keys and arguments as two tables, as in Redis. Because Lua states are pooled, a
// library's chunk runs once in every state that serves one of its functions (the
// first time it does), with the load-time API; it must register the same
// functions each time, which a chunk without side effects does.

// loadTimeout bounds the run of a library's chunk, as Redis's FUNCTION LOAD.
const loadTimeout = 500 * time.Millisecond

// functionLib is a loaded library.
type functionLib struct {
	name  string
	code  string // as FUNCTION LOAD was given it
	funcs []*libFunction
}

// libFunction is a registered function.
type libFunction struct {
	name  string
	desc  *string
	flags int
	lib   *functionLib
}

// functionLibs is the server's libraries and functions by name.
type functionLibs struct {
	libs  map[string]*functionLib
	funcs map[string]*libFunction
}

// loading is the library whose chunk a state is running, collecting its functions.
type loading struct {
	lib *functionLib
	fns map[string]*lua.LFunction
}

// libAPI is the redis table a library's chunk sees while it loads: only
// register_function, log and the constants; everything else is a nonexistent
// global, as in Redis.
func (sb *sandbox) libAPI(full *lua.LTable) *lua.LTable {
	L := sb.L
	t := L.NewTable()
	for _, name := range []string{"log", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING", "REDIS_VERSION", "REDIS_VERSION_NUM"} {
		t.RawSetString(name, full.RawGetString(name))
	}
	t.RawSetString("register_function", L.NewFunction(sb.registerFunction))
	missing := L.NewTable()
	missing.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("%s", errNoSuchGlobal+lua.LVAsString(L.Get(2))+"'")
		return 0
	}))
	L.SetMetatable(t, missing)
	return sb.protect(t)
}

// registerFunction is redis.register_function(name, callback) and
// redis.register_function{function_name=, callback=, flags=, description=}.
func (sb *sandbox) registerFunction(L *lua.LState) int {
	ld := sb.loading
	if ld == nil {
		sb.fail(L, "redis.register_function can only be called on FUNCTION LOAD command")
	}
	f := &libFunction{lib: ld.lib}
	var cb *lua.LFunction
	switch L.GetTop() {
	case 1:
		t, ok := L.Get(1).(*lua.LTable)
		if !ok {
			sb.fail(L, "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).")
		}
		var msg string
		t.ForEach(func(k, v lua.LValue) {
			if msg != "" {
				return
			}
			key, ok := k.(lua.LString)
			if !ok {
				msg = "named argument key given to redis.register_function is not a string"
				return
			}
			switch strings.ToLower(string(key)) {
			case "function_name":
				if s, ok := v.(lua.LString); ok {
					f.name = string(s)
				} else {
					msg = "function_name argument given to redis.register_function must be a string"
				}
			case "description":
				if s, ok := v.(lua.LString); ok {
					d := string(s)
					f.desc = &d
				} else {
					msg = "description argument given to redis.register_function must be a string"
				}
			case "callback":
				if fn, ok := v.(*lua.LFunction); ok {
					cb = fn
				} else {
					msg = "callback argument given to redis.register_function must be a function"
				}
			case "flags":
				ft, ok := v.(*lua.LTable)
				if !ok {
					msg = "flags argument to redis.register_function must be a table representing function flags"
					return
				}
				var names []string
				ft.ForEach(func(_, fv lua.LValue) { names = append(names, lua.LVAsString(fv)) })
				flags, err := parseScriptFlags(names, "")
				if err != nil || len(names) == 0 && ft.Len() != 0 {
					msg = "unknown flag given"
				}
				f.flags = flags
			default:
				msg = "unknown argument given to redis.register_function"
			}
		})
		switch {
		case msg != "":
			sb.fail(L, msg)
		case f.name == "":
			sb.fail(L, "redis.register_function must get a function name argument")
		case cb == nil:
			sb.fail(L, "redis.register_function must get a callback argument")
		}
	case 2:
		s, ok := L.Get(1).(lua.LString)
		if !ok {
			sb.fail(L, "first argument to redis.register_function must be a string")
		}
		if cb, ok = L.Get(2).(*lua.LFunction); !ok {
			sb.fail(L, "second argument to redis.register_function must be a function")
		}
		f.name = string(s)
	default:
		sb.fail(L, "wrong number of arguments to redis.register_function")
	}
	if !validLibName(f.name) {
		sb.fail(L, "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long")
	}
	if _, dup := ld.fns[f.name]; dup {
		sb.fail(L, "Function already exists in the library")
	}
	ld.fns[f.name] = cb
	ld.lib.funcs = append(ld.lib.funcs, f)
	return 0
}

// validLibName reports whether s is a valid library or function name.
func validLibName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// parseLibrary parses FUNCTION LOAD's code: the shebang's engine and name, and the
// chunk after the shebang line (its line feed kept).
func parseLibrary(code string) (name, body string, err error) {
	if !strings.HasPrefix(code, "#!") {
		return "", "", errors.New("ERR Missing library metadata")
	}
	line, _, ok := strings.Cut(code, "\n")
	if !ok {
		return "", "", errors.New("ERR Invalid library metadata")
	}
	parts := strings.Fields(line)
	if len(parts) == 0 {
		return "", "", errors.New("ERR Invalid library metadata")
	}
	gotName := false
	for _, p := range parts[1:] {
		if len(p) >= 5 && strings.EqualFold(p[:5], "name=") {
			if gotName {
				return "", "", errors.New("ERR Invalid metadata value, name argument was given multiple times")
			}
			name, gotName = p[5:], true
			continue
		}
		return "", "", errors.New("ERR Invalid metadata value given: " + p)
	}
	if !gotName {
		return "", "", errors.New("ERR Library name was not given")
	}
	if !validLibName(name) {
		return "", "", errors.New("ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long")
	}
	if engine := parts[0][2:]; !strings.EqualFold(engine, "lua") {
		return "", "", errors.New("ERR Engine '" + engine + "' not found")
	}
	return name, code[len(line):], nil
}

// loadLibrary runs lib's chunk on sb with the load-time API and returns the
// functions it registered.
func (sb *sandbox) loadLibrary(lib *functionLib, body string) (map[string]*lua.LFunction, error) {
	proto, err := compileChunk(body, "user_function")
	if err != nil {
		return nil, errors.New("ERR Error compiling function: " + compileError(err, body, "user_function"))
	}
	L := sb.L
	ctx, cancel := context.WithTimeoutCause(context.Background(), loadTimeout, errors.New("ERR FUNCTION LOAD timeout"))
	defer cancel()
	sb.loading = &loading{lib: lib, fns: make(map[string]*lua.LFunction)}
	full := sb.globals.RawGetString("redis")
	sb.globals.RawSetString("redis", sb.libRedis)
	L.SetContext(ctx)
	defer func() {
		L.RemoveContext()
		L.SetTop(0)
		L.Env = sb.env
		sb.globals.RawSetString("redis", full)
		sb.loading = nil
	}()
	L.Push(L.NewFunctionFromProto(proto))
	if err := L.PCall(0, 0, nil); err != nil {
		msg := "ERR FUNCTION LOAD timeout"
		if context.Cause(ctx) == nil || errors.Is(context.Cause(ctx), context.Canceled) {
			msg = luaErrorText(err)
		}
		return nil, errors.New("ERR Error registering functions: " + msg)
	}
	return sb.loading.fns, nil
}

// luaErrorText is an error raised in Lua as Redis's error handler words it: a
// table's err field, or ERR and the message.
func luaErrorText(err error) string {
	var ae *lua.ApiError
	if errors.As(err, &ae) {
		if t, ok := ae.Object.(*lua.LTable); ok {
			if e, ok := t.RawGetString("err").(lua.LString); ok {
				return string(e)
			}
		}
		return "ERR " + oneLine(lua.LVAsString(ae.Object))
	}
	return "ERR " + oneLine(err.Error())
}

// function returns a library function's callback on sb, loading its library on sb
// the first time.
func (sb *sandbox) function(f *libFunction) (*lua.LFunction, error) {
	fns, ok := sb.libs[f.lib]
	if !ok {
		lib := &functionLib{name: f.lib.name}
		_, body, _ := parseLibrary(f.lib.code)
		var err error
		if fns, err = sb.loadLibrary(lib, body); err != nil {
			return nil, err
		}
		if sb.libs == nil {
			sb.libs = make(map[*functionLib]map[string]*lua.LFunction)
		}
		sb.libs[f.lib] = fns
	}
	fn := fns[f.name]
	if fn == nil {
		return nil, errors.New("ERR Function not found")
	}
	return fn, nil
}

// cmdFunction is FUNCTION LOAD|DELETE|FLUSH|LIST|STATS|KILL|HELP.
func cmdFunction(c *client, a []string) bool {
	sc := &c.srv.scripts
	switch strings.ToLower(a[1]) {
	case "load":
		replace := false
		i := 2
		for ; i < len(a)-1; i++ {
			if !strings.EqualFold(a[i], "replace") {
				c.w.errorReply("ERR Unknown option given: " + a[i])
				return false
			}
			replace = true
		}
		if i >= len(a) {
			c.w.errorReply("ERR Function code is missing")
			return false
		}
		name, err := sc.loadLibrary(c.srv, a[i], replace)
		if err != nil {
			c.w.errorReply(err.Error())
			return false
		}
		c.w.bulk(name)
	case "delete":
		sc.mu.Lock()
		lib := sc.libs.get(a[2])
		if lib != nil {
			sc.libs.unlink(lib)
		}
		sc.mu.Unlock()
		if lib == nil {
			c.w.errorReply("ERR Library not found")
			return false
		}
		c.w.status("OK")
	case "flush":
		if len(a) > 3 || (len(a) == 3 && !strings.EqualFold(a[2], "sync") && !strings.EqualFold(a[2], "async")) {
			c.w.errorReply("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
			return false
		}
		sc.mu.Lock()
		sc.libs = nil
		sc.mu.Unlock()
		c.w.status("OK")
	case "list":
		c.functionList(a[2:])
	case "stats":
		c.functionStats()
	case "kill":
		if err := sc.kill(false); err != nil {
			c.w.errorReply(err.Error())
			return false
		}
		c.w.status("OK")
	case "help":
		c.w.array(len(functionHelp))
		for _, l := range functionHelp {
			c.w.status(l)
		}
	}
	return false
}

var functionHelp = []string{
	"FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"LOAD [REPLACE] <FUNCTION CODE>",
	"    Create a new library with the given library name and code.",
	"DELETE <LIBRARY NAME>",
	"    Delete the given library.",
	"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
	"    Return general information on all the libraries:",
	"    * Library name",
	"    * The engine used to run the Library",
	"    * Library description",
	"    * Functions list",
	"    * Library code (if WITHCODE is given)",
	"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
	"STATS",
	"    Return information about the current function running:",
	"    * Function name",
	"    * Command used to run the function",
	"    * Duration in MS that the function is running",
	"    If no function is running, return nil",
	"    In addition, returns a list of available engines.",
	"KILL",
	"    Kill the current running function.",
	"FLUSH [ASYNC|SYNC]",
	"    Delete all the libraries.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the libraries.",
	"    * SYNC: Synchronously flush the libraries.",
	"HELP",
	"    Prints this help.",
}

// loadLibrary is FUNCTION LOAD: it runs the library's chunk on a state and, when
// it registered functions whose names are free, installs the library.
func (sc *scripts) loadLibrary(srv *Server, code string, replace bool) (string, error) {
	name, body, err := parseLibrary(code)
	if err != nil {
		return "", err
	}
	sc.mu.Lock()
	old := sc.libs.get(name)
	sc.mu.Unlock()
	if old != nil && !replace {
		return "", errors.New("ERR Library '" + name + "' already exists")
	}
	lib := &functionLib{name: name, code: code}
	sb, _ := sc.states.Get().(*sandbox)
	if sb == nil {
		sb = newSandbox(srv)
	}
	fns, err := sb.loadLibrary(lib, body)
	if err != nil {
		sc.states.Put(sb)
		return "", err
	}
	if len(lib.funcs) == 0 {
		sc.states.Put(sb)
		return "", errors.New("ERR No functions registered")
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	defer sc.states.Put(sb)
	if sc.libs == nil {
		sc.libs = &functionLibs{libs: make(map[string]*functionLib), funcs: make(map[string]*libFunction)}
	}
	if old := sc.libs.libs[name]; old != nil && !replace {
		return "", errors.New("ERR Library '" + name + "' already exists")
	}
	for _, f := range lib.funcs {
		if other := sc.libs.funcs[f.name]; other != nil && other.lib.name != name {
			return "", errors.New("ERR Function " + f.name + " already exists")
		}
	}
	if old := sc.libs.libs[name]; old != nil {
		sc.libs.unlink(old)
	}
	sc.libs.libs[name] = lib
	for _, f := range lib.funcs {
		sc.libs.funcs[f.name] = f
	}
	if sb.libs == nil {
		sb.libs = make(map[*functionLib]map[string]*lua.LFunction)
	}
	sb.libs[lib] = fns
	return name, nil
}

// get returns the library of that name, or nil (also on a nil fl).
func (fl *functionLibs) get(name string) *functionLib {
	if fl == nil {
		return nil
	}
	return fl.libs[name]
}

// unlink removes a library and its functions.
func (fl *functionLibs) unlink(lib *functionLib) {
	delete(fl.libs, lib.name)
	for _, f := range lib.funcs {
		delete(fl.funcs, f.name)
	}
}

// sortedLibs returns the libraries in name order.
func (fl *functionLibs) sortedLibs() []*functionLib {
	if fl == nil {
		return nil
	}
	libs := make([]*functionLib, 0, len(fl.libs))
	for _, l := range fl.libs {
		libs = append(libs, l)
	}
	slices.SortFunc(libs, func(a, b *functionLib) int { return strings.Compare(a.name, b.name) })
	return libs
}

// functionList is FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE].
func (c *client) functionList(opts []string) {
	withCode, pattern, havePattern := false, "", false
	for i := 0; i < len(opts); i++ {
		switch {
		case strings.EqualFold(opts[i], "withcode") && !withCode:
			withCode = true
		case strings.EqualFold(opts[i], "libraryname") && !havePattern:
			if i+1 >= len(opts) {
				c.w.errorReply("ERR library name argument was not given")
				return
			}
			pattern, havePattern = opts[i+1], true
			i++
		default:
			c.w.errorReply("ERR Unknown argument " + opts[i])
			return
		}
	}
	sc := &c.srv.scripts
	sc.mu.Lock()
	libs := sc.libs.sortedLibs()
	sc.mu.Unlock()
	if havePattern {
		libs = slices.DeleteFunc(libs, func(l *functionLib) bool { return !glob.Match(pattern, l.name) })
	}
	c.w.array(len(libs))
	for _, l := range libs {
		n := 3
		if withCode {
			n = 4
		}
		c.w.mapHeader(n)
		c.w.bulk("library_name")
		c.w.bulk(l.name)
		c.w.bulk("engine")
		c.w.bulk("LUA")
		c.w.bulk("functions")
		c.w.array(len(l.funcs))
		for _, f := range l.funcs {
			c.w.mapHeader(3)
			c.w.bulk("name")
			c.w.bulk(f.name)
			c.w.bulk("description")
			if f.desc != nil {
				c.w.bulk(*f.desc)
			} else {
				c.w.null(false)
			}
			c.w.bulk("flags")
			var names []string
			for _, fl := range scriptFlagNames {
				if f.flags&fl.flag != 0 {
					names = append(names, fl.name)
				}
			}
			c.w.setHeader(len(names))
			for _, s := range names {
				c.w.status(s)
			}
		}
		if withCode {
			c.w.bulk("library_code")
			c.w.bulk(l.code)
		}
	}
}

// functionStats is FUNCTION STATS.
func (c *client) functionStats() {
	sc := &c.srv.scripts
	sc.mu.Lock()
	var run *scriptRun
	for r := range sc.running {
		if !r.eval {
			run = r
		}
	}
	nlibs, nfuncs := 0, 0
	if sc.libs != nil {
		nlibs, nfuncs = len(sc.libs.libs), len(sc.libs.funcs)
	}
	sc.mu.Unlock()
	c.w.mapHeader(2)
	c.w.bulk("running_script")
	if run == nil {
		c.w.null(false)
	} else {
		c.w.mapHeader(3)
		c.w.bulk("name")
		c.w.bulk(run.name)
		c.w.bulk("command")
		c.w.array(len(run.args))
		for _, s := range run.args {
			c.w.bulk(s)
		}
		c.w.bulk("duration_ms")
		c.w.integer(time.Since(run.start).Milliseconds())
	}
	c.w.bulk("engines")
	c.w.mapHeader(1)
	c.w.bulk("LUA")
	c.w.mapHeader(2)
	c.w.bulk("libraries_count")
	c.w.integer(int64(nlibs))
	c.w.bulk("functions_count")
	c.w.integer(int64(nfuncs))
}

// cmdFCall is FCALL and FCALL_RO function numkeys [key ...] [arg ...].
func cmdFCall(ro bool) func(c *client, a []string) bool {
	return func(c *client, a []string) bool {
		sc := &c.srv.scripts
		sc.mu.Lock()
		var f *libFunction
		if sc.libs != nil {
			f = sc.libs.funcs[a[1]]
		}
		sc.mu.Unlock()
		if f == nil {
			c.w.errorReply("ERR Function not found")
			return false
		}
		keys, args, err := evalKeys(a)
		if err != nil {
			c.w.errorReply(err.Error())
			return false
		}
		if ro && f.flags&flagNoWrites == 0 {
			c.w.errorReply("ERR Can not execute a script with write flag using *_ro command.")
			return false
		}
		run := &scriptRun{name: f.name, fn: f, readOnly: ro || f.flags&flagNoWrites != 0, args: a}
		c.runScript(run, nil, keys, args)
		return false
	}
}
