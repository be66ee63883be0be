package server

import (
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"

	"github.com/zlite/zlite/server/internal/lualib"
)

// The sandbox is Redis's scripting environment on one gopher-lua state: the
// libraries Redis loads, and Redis 7's protections. Every global and every library
// table is read-only ("Attempt to modify a readonly table"), reading a global that
// does not exist is an error ("Script attempted to access nonexistent global
// variable"), and the functions that could reach around the protections (rawset,
// setmetatable, setfenv of the thread, load and loadstring) are wrapped. A state is
// pooled and reused by later scripts of any client: nothing a script does to it
// outlives the script.
//
// gopher-lua has no read-only tables, so each protected table is an empty proxy
// whose metatable's __index is the real table and whose __newindex raises; the
// real tables are reachable only from Go. Lookups of globals and library functions
// stay raw table lookups (the proxy's __index is a table, not a function); only a
// miss of the real globals calls the nonexistent-variable error.

// Errors of the sandbox, word for word Redis's.
const (
	errReadonly      = "Attempt to modify a readonly table"
	errNoSuchGlobal  = "Script attempted to access nonexistent global variable '"
	concatGlobalName = "\x00concat" // the bounded concatenation (see rewriteConcat)
)

// sandbox is one Lua state with Redis's environment and the run it serves.
type sandbox struct {
	L       *lua.LState
	globals *lua.LTable          // the real globals behind the read-only _G
	env     *lua.LTable          // the read-only proxy of globals: _G and every chunk's environment
	proxies map[*lua.LTable]bool // every read-only proxy
	run     *scriptRun           // the script running on the state, nil between runs

	loading  *loading                                   // the library whose chunk is running (FUNCTION LOAD)
	libRedis *lua.LTable                                // the redis table of a loading library (see libAPI)
	libs     map[*functionLib]map[string]*lua.LFunction // libraries loaded on the state

	baseSetmetatable lua.LGFunction // Lua's setmetatable, wrapped by setmetatable
	guard            *lua.LTable    // what getmetatable returns for a read-only table
}

// registryMax bounds a state's value stack: Lua 5.1's LUAI_MAXCSTACK (8000) values
// in one C call, which unpack and redis.call replies reach, with room for the frames
// around them.
const registryMax = 1 << 16

// maxArrayIndex bounds the array part of a script's tables: gopher-lua fills the
// array up to an assigned integer key below lua.MaxArrayIndex with nils, so with its
// default one t[67108863] = 1 allocated a gigabyte. Keys past the bound go to the
// hash part; one assignment allocates at most 16 MiB.
const maxArrayIndex = 1 << 20

func init() { lua.MaxArrayIndex = maxArrayIndex }

// newSandbox makes a state with Redis's libraries and protections.
func newSandbox(srv *Server) *sandbox {
	L := lua.NewState(lua.Options{SkipOpenLibs: true, RegistrySize: 1024, RegistryGrowStep: 1024,
		RegistryMaxSize: registryMax, CallStackSize: 256, MinimizeStackMemory: true})
	sb := &sandbox{L: L, globals: L.G.Global, proxies: make(map[*lua.LTable]bool)}
	sb.guard = sb.protect(L.NewTable())
	lualib.OpenBase(L)
	lualib.OpenTable(L)
	lualib.OpenString(L)
	lualib.OpenMath(L)
	g := sb.globals
	for name, lib := range map[string]func(*lua.LState) *lua.LTable{
		"cjson": lualib.CJSON, "cmsgpack": lualib.CMsgpack, "bit": lualib.Bit, "struct": lualib.Struct,
	} {
		g.RawSetString(name, lib(L))
	}
	full := sb.redisAPI(srv)
	g.RawSetString("redis", full)
	for _, name := range []string{"dofile", "loadfile", "print", "require", "module", "debug", "os", "io", "package", "channel"} {
		g.RawSetString(name, lua.LNil)
	}
	sb.baseSetmetatable = sb.original("setmetatable")
	g.RawSetString("rawset", L.NewFunction(sb.rawset))
	g.RawSetString("setmetatable", L.NewFunction(sb.setmetatable))
	g.RawSetString("error", L.NewFunction(sb.raise))
	g.RawSetString("loadstring", L.NewFunction(sb.loadstring))
	g.RawSetString("load", L.NewFunction(sb.load))
	g.RawSetString(concatGlobalName, L.NewFunction(concat))
	// pcall returns a redis.call error's message, not its table, as Redis 7's does.
	g.RawSetString("pcall", L.NewFunction(sb.pcall))

	// Library tables become read-only proxies, then the globals themselves.
	g.ForEach(func(k, v lua.LValue) {
		if t, ok := v.(*lua.LTable); ok && t != g {
			g.RawSet(k, sb.protect(t))
		}
	})
	sb.protectStringMetatable()
	missing := L.NewTable()
	missing.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("%s", errNoSuchGlobal+lua.LVAsString(L.Get(2))+"'")
		return 0
	}))
	L.SetMetatable(g, missing)
	sb.libRedis = sb.libAPI(full)
	sb.env = sb.protect(g)
	g.RawSetString("_G", sb.env)
	L.Env = sb.env
	return sb
}

// protect returns the read-only proxy of t.
func (sb *sandbox) protect(t *lua.LTable) *lua.LTable {
	L := sb.L
	p := L.NewTable()
	mt := L.NewTable()
	mt.RawSetString("__index", t)
	mt.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("%s", errReadonly)
		return 0
	}))
	if sb.guard != nil {
		mt.RawSetString("__metatable", sb.guard)
	} else {
		mt.RawSetString("__metatable", lua.LFalse) // the guard itself
	}
	L.SetMetatable(p, mt)
	sb.proxies[p] = true
	return p
}

// protectStringMetatable points the strings' metatable at the read-only string
// table, so that getmetatable("").__index cannot reach the real one.
func (sb *sandbox) protectStringMetatable() {
	L := sb.L
	mt := L.NewTable()
	mt.RawSetString("__index", sb.globals.RawGetString("string"))
	mt.RawSetString("__metatable", sb.protect(mt))
	L.SetMetatable(lua.LString(""), mt)
}

// original returns the global function name as the library opened it, before the
// sandbox wraps it.
func (sb *sandbox) original(name string) lua.LGFunction {
	if f, ok := sb.globals.RawGetString(name).(*lua.LFunction); ok && f.IsG {
		return f.GFunction
	}
	return func(L *lua.LState) int { L.RaiseError("%s", name+" is not available"); return 0 }
}

// rawset is Lua's rawset, refusing the read-only tables.
func (sb *sandbox) rawset(L *lua.LState) int {
	t := L.CheckTable(1)
	if sb.proxies[t] {
		sb.raiseAt(L, errReadonly)
	}
	t.RawSet(L.CheckAny(2), L.CheckAny(3))
	L.SetTop(1)
	return 1
}

// setmetatable is Lua's setmetatable, refusing the read-only tables.
func (sb *sandbox) setmetatable(L *lua.LState) int {
	if t, ok := L.Get(1).(*lua.LTable); ok && sb.proxies[t] {
		sb.raiseAt(L, errReadonly)
	}
	return sb.baseSetmetatable(L)
}

// raiseAt raises msg without a position, as Lua does for an error of a C
// function, noting the caller's line for the error reply's suffix.
func (sb *sandbox) raiseAt(L *lua.LState, msg string) {
	if sb.run != nil {
		sb.run.line = callerLine(L)
	}
	L.Error(lua.LString(msg), 0)
}

// raise is Lua's error, noting where a table error (Redis's {err=...}) was raised,
// which Redis's error handler reads from the stack.
func (sb *sandbox) raise(L *lua.LState) int {
	obj := L.CheckAny(1)
	level := L.OptInt(2, 1)
	if sb.run != nil {
		if _, ok := obj.(*lua.LTable); ok {
			sb.run.line = callerLine(L)
		}
	}
	// Lua prefixes the position of the function level names only when that
	// function is a Lua function: error called by pcall itself has none.
	if level > 0 {
		if dbg, ok := L.GetStack(level); ok {
			if _, err := L.GetInfo("S", dbg, lua.LNil); err == nil && dbg.What == "G" {
				level = 0
			}
		}
	}
	L.Error(obj, level)
	return 0
}

// pcall is Redis 7's pcall: as Lua's, but an error that is a table with an err
// field (a redis.call error) is returned as that field's string.
func (sb *sandbox) pcall(L *lua.LState) int {
	v := L.CheckAny(1)
	if v.Type() != lua.LTFunction && L.GetMetaField(v, "__call").Type() != lua.LTFunction {
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a " + v.Type().String() + " value"))
		return 2
	}
	if err := L.PCall(L.GetTop()-1, lua.MultRet, nil); err != nil {
		var obj lua.LValue = lua.LString(err.Error())
		if ae, ok := err.(*lua.ApiError); ok {
			obj = ae.Object
		}
		if t, ok := obj.(*lua.LTable); ok {
			if s, ok := t.RawGetString("err").(lua.LString); ok {
				obj = s
			}
		}
		L.Push(lua.LFalse)
		L.Push(obj)
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// loadstring is Lua 5.1's loadstring, compiling through compileChunk so that the
// chunk's concatenations are bounded too.
func (sb *sandbox) loadstring(L *lua.LState) int {
	src := L.CheckString(1)
	return sb.loadChunk(L, src, L.OptString(2, chunkID(src)))
}

// load is Lua 5.1's load: the chunk's pieces come from calls of a function, until
// it returns nil or an empty string.
func (sb *sandbox) load(L *lua.LState) int {
	fn := L.CheckFunction(1)
	name := L.OptString(2, "=(load)")
	var b strings.Builder
	for {
		L.Push(fn)
		L.Call(0, 1)
		v := L.Get(-1)
		L.Pop(1)
		s, ok := v.(lua.LString)
		if v == lua.LNil || (ok && s == "") {
			break
		}
		if !ok {
			L.Push(lua.LNil)
			L.Push(lua.LString("reader function must return a string"))
			return 2
		}
		if b.Len()+len(s) > lualib.MaxString {
			L.RaiseError("%s", "resulting string too large")
		}
		b.WriteString(string(s))
	}
	return sb.loadChunk(L, b.String(), name)
}

func (sb *sandbox) loadChunk(L *lua.LState, src, name string) int {
	proto, err := compileChunk(src, name)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	L.Push(L.NewFunctionFromProto(proto))
	return 1
}

// chunkID is Lua 5.1's name of a chunk loaded from a string: [string "first line..."].
func chunkID(src string) string {
	const max = 60 - 15
	line, _, cut := strings.Cut(src, "\n")
	if cut || len(line) > max {
		if len(line) > max {
			line = line[:max]
		}
		return `[string "` + line + `..."]`
	}
	return `[string "` + line + `"]`
}

// callerLine is the current line of the Lua function that called the running Go
// function (0 when unknown).
func callerLine(L *lua.LState) int {
	w := L.Where(1) // "user_script:3:"
	if i := strings.LastIndexByte(strings.TrimSuffix(w, ":"), ':'); i >= 0 {
		n, _ := strconv.Atoi(strings.TrimSuffix(w[i+1:], ":"))
		return n
	}
	return 0
}

// compileChunk parses and compiles a chunk, its concatenations rewritten into
// calls of the bounded concat (see rewriteConcat).
func compileChunk(src, name string) (*lua.FunctionProto, error) {
	chunk, err := parse.Parse(strings.NewReader(src), name)
	if err != nil {
		return nil, err
	}
	rewriteStmts(chunk)
	return lua.Compile(chunk, name)
}

// concat is the .. operator of scripts: Lua 5.1's (numbers formatted as Lua 5.1
// does, __concat metamethods), refusing a result longer than lualib.MaxString
// before it is built. The virtual machine's own concatenation has no such bound:
// one instruction could join hundreds of copies of a long string.
func concat(L *lua.LState) int {
	a, b := L.Get(1), L.Get(2)
	as, aok := concatOperand(a)
	bs, bok := concatOperand(b)
	if aok && bok {
		if len(as)+len(bs) > lualib.MaxString {
			L.RaiseError("%s", "resulting string too large")
		}
		L.Push(lua.LString(as + bs))
		return 1
	}
	mm := L.GetMetaField(a, "__concat")
	if mm == lua.LNil {
		mm = L.GetMetaField(b, "__concat")
	}
	if mm.Type() != lua.LTFunction {
		bad := b
		if !aok {
			bad = a
		}
		L.RaiseError("attempt to concatenate a %s value", bad.Type().String())
	}
	L.Push(mm)
	L.Push(a)
	L.Push(b)
	L.Call(2, 1)
	return 1
}

func concatOperand(v lua.LValue) (string, bool) {
	switch v := v.(type) {
	case lua.LString:
		return string(v), true
	case lua.LNumber:
		return lualib.NumberString(float64(v)), true
	}
	return "", false
}

// rewriteStmts replaces every a .. b in the statements with a call of the bounded
// concat (concatGlobalName, a global no script can name).
func rewriteStmts(ss []ast.Stmt) {
	for _, s := range ss {
		switch s := s.(type) {
		case *ast.AssignStmt:
			rewriteExprs(s.Lhs)
			rewriteExprs(s.Rhs)
		case *ast.LocalAssignStmt:
			rewriteExprs(s.Exprs)
		case *ast.FuncCallStmt:
			s.Expr = rewriteExpr(s.Expr)
		case *ast.DoBlockStmt:
			rewriteStmts(s.Stmts)
		case *ast.WhileStmt:
			s.Condition = rewriteExpr(s.Condition)
			rewriteStmts(s.Stmts)
		case *ast.RepeatStmt:
			s.Condition = rewriteExpr(s.Condition)
			rewriteStmts(s.Stmts)
		case *ast.IfStmt:
			s.Condition = rewriteExpr(s.Condition)
			rewriteStmts(s.Then)
			rewriteStmts(s.Else)
		case *ast.NumberForStmt:
			s.Init, s.Limit = rewriteExpr(s.Init), rewriteExpr(s.Limit)
			if s.Step != nil {
				s.Step = rewriteExpr(s.Step)
			}
			rewriteStmts(s.Stmts)
		case *ast.GenericForStmt:
			rewriteExprs(s.Exprs)
			rewriteStmts(s.Stmts)
		case *ast.FuncDefStmt:
			rewriteStmts(s.Func.Stmts)
		case *ast.ReturnStmt:
			rewriteExprs(s.Exprs)
		}
	}
}

func rewriteExprs(es []ast.Expr) {
	for i, e := range es {
		es[i] = rewriteExpr(e)
	}
}

func rewriteExpr(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.StringConcatOpExpr:
		call := &ast.FuncCallExpr{Func: &ast.IdentExpr{Value: concatGlobalName},
			Args: []ast.Expr{rewriteExpr(x.Lhs), rewriteExpr(x.Rhs)}}
		call.Func.SetLine(x.Line())
		call.Func.SetLastLine(x.LastLine())
		call.SetLine(x.Line())
		call.SetLastLine(x.LastLine())
		return call
	case *ast.AttrGetExpr:
		x.Object, x.Key = rewriteExpr(x.Object), rewriteExpr(x.Key)
	case *ast.TableExpr:
		for _, f := range x.Fields {
			if f.Key != nil {
				f.Key = rewriteExpr(f.Key)
			}
			f.Value = rewriteExpr(f.Value)
		}
	case *ast.FuncCallExpr:
		if x.Func != nil {
			x.Func = rewriteExpr(x.Func)
		}
		if x.Receiver != nil {
			x.Receiver = rewriteExpr(x.Receiver)
		}
		rewriteExprs(x.Args)
	case *ast.LogicalOpExpr:
		x.Lhs, x.Rhs = rewriteExpr(x.Lhs), rewriteExpr(x.Rhs)
	case *ast.RelationalOpExpr:
		x.Lhs, x.Rhs = rewriteExpr(x.Lhs), rewriteExpr(x.Rhs)
	case *ast.ArithmeticOpExpr:
		x.Lhs, x.Rhs = rewriteExpr(x.Lhs), rewriteExpr(x.Rhs)
	case *ast.UnaryMinusOpExpr:
		x.Expr = rewriteExpr(x.Expr)
	case *ast.UnaryNotOpExpr:
		x.Expr = rewriteExpr(x.Expr)
	case *ast.UnaryLenOpExpr:
		x.Expr = rewriteExpr(x.Expr)
	case *ast.FunctionExpr:
		rewriteStmts(x.Stmts)
	}
	return e
}
