package server

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"

	lua "github.com/yuin/gopher-lua"
)

// openCJSON installs the cjson table of Redis's Lua (decode and encode of JSON),
// on encoding/json. JSON null decodes to cjson.null.
func openCJSON(L *lua.LState) {
	t := L.NewTable()
	null := L.NewUserData()
	t.RawSetString("null", null)
	t.RawSetString("decode", L.NewFunction(func(L *lua.LState) int {
		var v any
		if err := json.Unmarshal([]byte(L.CheckString(1)), &v); err != nil {
			L.RaiseError("%s", "Expected value but found invalid token")
			return 0
		}
		L.Push(jsonToLua(L, v, null))
		return 1
	}))
	t.RawSetString("encode", L.NewFunction(func(L *lua.LState) int {
		b, err := json.Marshal(luaToJSON(L.CheckAny(1), null, 0))
		if err != nil {
			L.RaiseError("%s", "Cannot serialise: "+err.Error())
			return 0
		}
		L.Push(lua.LString(b))
		return 1
	}))
	L.SetGlobal("cjson", t)
}

func jsonToLua(L *lua.LState, v any, null lua.LValue) lua.LValue {
	switch v := v.(type) {
	case nil:
		return null
	case bool:
		return lua.LBool(v)
	case float64:
		return lua.LNumber(v)
	case string:
		return lua.LString(v)
	case []any:
		t := L.CreateTable(len(v), 0)
		for _, e := range v {
			t.Append(jsonToLua(L, e, null))
		}
		return t
	case map[string]any:
		t := L.CreateTable(0, len(v))
		for k, e := range v {
			t.RawSetString(k, jsonToLua(L, e, null))
		}
		return t
	}
	return lua.LNil
}

// errDepth stops encoding a table that contains itself.
var errDepth = errors.New("excessive nesting")

func luaToJSON(v lua.LValue, null lua.LValue, depth int) any {
	if depth > 1000 {
		return errDepth.Error()
	}
	switch v := v.(type) {
	case lua.LBool:
		return bool(v)
	case lua.LNumber:
		f := float64(v)
		if f == math.Trunc(f) && math.Abs(f) < 1e15 {
			return json.Number(strconv.FormatInt(int64(f), 10))
		}
		return f
	case lua.LString:
		return string(v)
	case *lua.LTable:
		n := v.Len()
		if n > 0 {
			arr := make([]any, n)
			for i := range n {
				arr[i] = luaToJSON(v.RawGetInt(i+1), null, depth+1)
			}
			return arr
		}
		m := map[string]any{}
		v.ForEach(func(k, e lua.LValue) { m[lua.LVAsString(k)] = luaToJSON(e, null, depth+1) })
		return m
	}
	if v == null {
		return nil
	}
	return nil
}
