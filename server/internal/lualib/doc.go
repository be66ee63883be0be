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
package lualib
