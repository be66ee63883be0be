package lualib

import lua "github.com/yuin/gopher-lua"

// MaxString is the longest string a library call builds: Redis's default
// proto-max-bulk-len, the longest value a script could hand to redis.call.
const MaxString = 512 << 20

// errTooLarge is the error of a call whose result would pass MaxString.
const errTooLarge = "resulting string too large"

// checkLen raises errTooLarge when a result of n bytes would pass MaxString. n may
// have overflowed to a negative number on the caller's side: negative is too large.
func checkLen(L *lua.LState, n int64) {
	if n < 0 || n > MaxString {
		L.RaiseError("%s", errTooLarge)
	}
}

// interruptEvery is how many steps of a long loop pass between two checks of the
// state's context: a check costs a channel poll.
const interruptEvery = 1 << 10

// interrupted raises the state's context error, as the virtual machine does, once
// the context of L is done (the script was killed or timed out). Loops call it every
// interruptEvery steps.
func interrupted(L *lua.LState) {
	ctx := L.Context()
	if ctx == nil {
		return
	}
	select {
	case <-ctx.Done():
		L.RaiseError("%s", ctx.Err().Error())
	default:
	}
}
