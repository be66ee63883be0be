// Package lualib implements the Lua libraries of Redis's scripting environment on
// github.com/yuin/gopher-lua, with Redis's (Lua 5.1's) behaviour and texts where
// they differ from gopher-lua's own, and with bounds that Redis's C libraries do
// not have: no call builds a string longer than [MaxString], and every call whose
// work is not bounded by its arguments' sizes (pattern matching, repetition,
// encoding of nested tables) checks the state's context and stops with the
// state's context error once it is done, as the virtual machine does between
// instructions.
//
// The server's script sandbox (server/script.go) installs these tables and makes
// them read-only; this package knows nothing of the keyspace.
//
// The cjson, cmsgpack, bit and struct tables ([CJSON], [CMsgpack], [Bit],
// [Struct]) are Redis 7.0's, texts and x86-64 conversions included, except:
//
//   - cjson's objects and cmsgpack's maps list keys in gopher-lua's table order
//     (the array part, then keys as first set), not Lua 5.1's hash order, so
//     their bytes match Redis's only for tables of one key outside 1..n.
//   - cjson.null is a full userdata, gopher-lua having no light userdata: its
//     type is "userdata" as in Redis, but tostring shows an address where Redis
//     shows "userdata: (nil)".
//   - "bad argument" errors name the function as the call site does, as Lua 5.1
//     does, but a method call (t:f()) keeps its argument number instead of
//     Lua 5.1's "calling 'f' on bad self".
//   - unpack, struct.unpack and cmsgpack.unpack* return up to the 8000 values
//     Lua 5.1 lets a C function hold; the state's registry must be able to grow
//     that far (lua.Options.RegistryMaxSize).
package lualib
