package lualib

import (
	"math"
	"math/bits"

	lua "github.com/yuin/gopher-lua"
)

// Bit builds the table of Redis's bit library (LuaBitOp 1.0.2): tobit, tohex,
// bnot, band, bor, bxor, lshift, rshift, arshift, rol, ror and bswap. Every
// function reads its numbers as LuaBitOp does (the low 32 bits of the number plus
// 2^52+2^51, so a fraction rounds half to even and a large number wraps) and
// returns a signed 32-bit number. Each call costs O(1), band, bor and bxor O(number
// of arguments).
func Bit(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	unary := func(name string, op func(uint32) uint32) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			return pushBits(L, op(bitArg(L, 1)))
		}))
	}
	unary("tobit", func(b uint32) uint32 { return b })
	unary("bnot", func(b uint32) uint32 { return ^b })
	unary("bswap", bits.ReverseBytes32)
	fold := func(name string, op func(a, b uint32) uint32) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			b := bitArg(L, 1)
			for i := L.GetTop(); i > 1; i-- {
				b = op(b, bitArg(L, i))
			}
			return pushBits(L, b)
		}))
	}
	fold("band", func(a, b uint32) uint32 { return a & b })
	fold("bor", func(a, b uint32) uint32 { return a | b })
	fold("bxor", func(a, b uint32) uint32 { return a ^ b })
	shift := func(name string, op func(b uint32, n int) uint32) {
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			b := bitArg(L, 1)
			return pushBits(L, op(b, int(bitArg(L, 2)&31)))
		}))
	}
	shift("lshift", func(b uint32, n int) uint32 { return b << n })
	shift("rshift", func(b uint32, n int) uint32 { return b >> n })
	shift("arshift", func(b uint32, n int) uint32 { return uint32(int32(b) >> n) })
	shift("rol", func(b uint32, n int) uint32 { return bits.RotateLeft32(b, n) })
	shift("ror", func(b uint32, n int) uint32 { return bits.RotateLeft32(b, -n) })
	t.RawSetString("tohex", L.NewFunction(bitToHex))
	return t
}

// bitArg is LuaBitOp's barg: argument n as 32 bits. An argument that is not a
// number reads as 0, and raises the type error only then, as in Lua 5.1.
func bitArg(L *lua.LState, n int) uint32 {
	f, ok := toNumber(L.Get(n))
	b := uint32(math.Float64bits(f + 6755399441055744.0))
	if b == 0 && !ok {
		typeError(L, n, "", "number")
	}
	return b
}

// pushBits pushes b as a signed 32-bit number.
func pushBits(L *lua.LState, b uint32) int {
	L.Push(lua.LNumber(int32(b)))
	return 1
}

// bitToHex is bit.tohex(x [, n]): the n low hexadecimal digits of x (8 by
// default, at most 8), in upper case when n is negative.
func bitToHex(L *lua.LState) int {
	b := bitArg(L, 1)
	n := int32(8)
	if L.GetTop() >= 2 {
		n = int32(bitArg(L, 2))
	}
	digits := "0123456789abcdef"
	switch {
	case n == math.MinInt32:
		// C negates it to itself; Redis's build prints 8 lower-case digits.
		n = 8
	case n < 0:
		n = -n
		digits = "0123456789ABCDEF"
	}
	n = min(n, 8)
	var buf [8]byte
	for i := n - 1; i >= 0; i-- {
		buf[i] = digits[b&15]
		b >>= 4
	}
	L.Push(lua.LString(buf[:n]))
	return 1
}
