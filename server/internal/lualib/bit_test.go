package lualib

import "testing"

func TestBitRedis(t *testing.T) {
	compareCases(t, []luaCase{
		{"tobit", "return {bit.tobit(5), bit.tobit(2^32+5), bit.tobit(-1), bit.tobit(2^31), bit.tobit(-2^31-1), bit.tobit(2^53), bit.tobit(2^64+3)}"},
		{"tobit fractions", "return {bit.tobit(1.5), bit.tobit(2.5), bit.tobit(-1.5), bit.tobit(-2.5), bit.tobit(0.49999), bit.tobit(1e-300)}"},
		{"tobit invalid numbers", "return {bit.tobit(1/0), bit.tobit(-1/0), bit.tobit(0/0), bit.tobit(2^52+2^51), bit.tobit(1e300)}"},
		{"tobit strings", "return {bit.tobit('0x10'), bit.tobit(' 12 '), bit.tobit('1e2'), bit.tobit('0'), bit.tobit('-0x1'), bit.tobit('inf')}"},
		{"tobit no value", "return {pcall(function() return bit.tobit() end)}"},
		{"tobit nil", "return {pcall(function() return bit.tobit(nil) end)}"},
		{"tobit bad string", "return {pcall(function() return bit.tobit('abc') end)}"},
		{"tobit bad string zero bits", "return {pcall(function() return bit.tobit('12x') end)}"},
		{"tobit table", "return {pcall(function() return bit.tobit({}) end)}"},
		{"tobit boolean", "return {pcall(function() return bit.tobit(true) end)}"},
		{"tobit through pcall", "return {pcall(bit.tobit, 'x')}"},
		{"tobit local name", "local f = bit.tobit return {pcall(function() return f('x') end)}"},
		{"bnot", "return {bit.bnot(0), bit.bnot(-1), bit.bnot(0x12345678), bit.bnot(2^32)}"},
		{"band", "return {bit.band(0xff, 0x0f), bit.band(-1, 7, 3), bit.band(5), bit.band(0xff, '3', 6)}"},
		{"bor", "return {bit.bor(1, 2, 4, 8), bit.bor(0x80000000, 1), bit.bor(0)}"},
		{"bxor", "return {bit.bxor(1), bit.bxor(5, 3), bit.bxor(-1, 0x0f0f0f0f, 1)}"},
		{"band bad second", "return {pcall(function() return bit.band(1, {}) end)}"},
		{"bor bad third", "return {pcall(function() return bit.bor(1, 2, 'z') end)}"},
		{"bor no value", "return {pcall(function() return bit.bor() end)}"},
		{"lshift", "return {bit.lshift(1, 0), bit.lshift(1, 31), bit.lshift(1, 32), bit.lshift(1, 33), bit.lshift(3, -1), bit.lshift(0xff, 28)}"},
		{"rshift", "return {bit.rshift(-1, 1), bit.rshift(-1, 28), bit.rshift(256, 4), bit.rshift(1, 32)}"},
		{"arshift", "return {bit.arshift(-256, 4), bit.arshift(-1, 31), bit.arshift(0x7fffffff, 30), bit.arshift(-8, 2)}"},
		{"rol ror", "return {bit.rol(0x12345678, 4), bit.ror(0x12345678, 4), bit.ror(1, 1), bit.rol(1, 31), bit.rol(5, 0), bit.ror(5, 32)}"},
		{"bswap", "return {bit.bswap(0x12345678), bit.bswap(-1), bit.bswap(0xff), bit.bswap(0)}"},
		{"shift bad count", "return {pcall(function() return bit.lshift(1) end)}"},
		{"tohex", "return {bit.tohex(-1), bit.tohex(255), bit.tohex(255, -4), bit.tohex(255, 12), bit.tohex(1, 0), bit.tohex(0xabcdef, 3), bit.tohex(0xabcdef, -3)}"},
		{"tohex most negative", "return bit.tohex(1, -2^31)"},
		{"tohex -8", "return bit.tohex(0x1234abcd, -8)"},
		{"tohex bad n", "return {pcall(function() return bit.tohex(1, 'q') end)}"},
		{"fields", "local n = 0 for k in pairs(bit) do n = n + 1 end return {n, type(bit._NAME), type(bit._VERSION)}"},
	})
}
