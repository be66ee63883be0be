package lualib

import lua "github.com/yuin/gopher-lua"

func open(L *lua.LState, name string, f lua.LGFunction) {
	L.Push(L.NewFunction(f))
	L.Push(lua.LString(name))
	L.Call(1, 0)
}
func OpenBase(L *lua.LState)   { open(L, lua.BaseLibName, lua.OpenBase) }
func OpenTable(L *lua.LState)  { open(L, lua.TabLibName, lua.OpenTable) }
func OpenString(L *lua.LState) { open(L, lua.StringLibName, lua.OpenString) }
func OpenMath(L *lua.LState)   { open(L, lua.MathLibName, lua.OpenMath) }
func NumberString(f float64) string { return lua.LNumber(f).String() }
