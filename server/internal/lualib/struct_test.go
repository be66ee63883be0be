package lualib

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

func TestStructRedis(t *testing.T) {
	compareCases(t, []luaCase{
		{"integers little", "return struct.pack('bBhHlLTiI', -1, 255, -2, 65535, -3, 7, 8, -4, 4294967295)"},
		{"integers big", "return struct.pack('>bBhHlLTiI', -1, 255, -2, 65535, -3, 7, 8, -4, 4294967295)"},
		{"wide integers", "return {struct.pack('>i16', -2), struct.pack('<I9', 2^63), struct.pack('>i1', 300), struct.pack('i0', 5)}"},
		{"integer conversions", "return {struct.pack('>L', 0/0), struct.pack('>L', 1e300), struct.pack('>l', -1e300), struct.pack('>L', 2^64), struct.pack('>L', -1), struct.pack('>L', 2^63+4096), struct.pack('>l', 1.9), struct.pack('>l', -1.9)}"},
		{"floats", "return {struct.pack('>f', 1.5), struct.pack('<d', 0.1), struct.pack('>f', 1e300), struct.pack('>d', -0.0), struct.pack('f', 0.1)}"},
		{"strings", "return {struct.pack('c3', 'abcdef'), struct.pack('c0', 'xyz'), struct.pack('s', 'ab'), struct.pack('c2', 12), struct.pack('s', 1.5)}"},
		{"string too short", "return {pcall(function() return struct.pack('c2', 'a') end)}"},
		{"string too short after others", "return {pcall(function() return struct.pack('bc5', 1, 'abc') end)}"},
		{"string expected", "return {pcall(function() return struct.pack('s', {}) end)}"},
		{"number expected", "return {pcall(function() return struct.pack('i', 'x') end)}"},
		{"number missing", "return {pcall(function() return struct.pack('ii', 1) end)}"},
		{"number from string", "return struct.pack('>i', '0x10')"},
		{"alignment", "return {struct.pack('!bd', 1, 2), struct.pack('!4bd', 1, 2), struct.pack('!2bi', 1, 2), struct.pack('!8bxh', 1, 2), struct.pack('!8bc3i', 1, 'abc', 2), struct.pack('!8bi3', 1, 2)}"},
		{"alignment not power of 2", "return {pcall(function() return struct.pack('!3', 1) end)}"},
		{"alignment zero", "return {pcall(function() return struct.pack('!0', 1) end)}"},
		{"integral size limit", "return {pcall(function() return struct.pack('i33', 1) end)}"},
		{"integral size overflow", "return {pcall(function() return struct.pack('i99999999999', 1) end)}"},
		{"integral size max int", "return {pcall(function() return struct.pack('c2147483647', 'a') end)}"},
		{"invalid option", "return {pcall(function() return struct.pack('z', 1) end)}"},
		{"invalid option in unpack", "return {pcall(function() return struct.unpack('q', 'abc') end)}"},
		{"spaces and endianness", "return struct.pack(' > h < h ', 1, 1)"},
		{"format ends at NUL", "return struct.pack('b\\0b', 1, 2)"},
		{"pack no format", "return {pcall(function() return struct.pack() end)}"},
		{"unpack integers", "return {struct.unpack('>bBhHiI', '\\255\\255\\255\\254\\255\\255\\255\\255\\255\\253\\255\\255\\255\\255')}"},
		{"unpack wide", "return {struct.unpack('<i16', string.rep('\\255', 16)), struct.unpack('>i10', '\\128\\0\\0\\0\\0\\0\\0\\0\\0\\1'), struct.unpack('>i10', '\\0\\0\\0\\0\\0\\0\\0\\0\\128\\0'), struct.unpack('>i9', '\\1\\128\\0\\0\\0\\0\\0\\0\\0')}"},
		{"unpack wide unsigned", "return {struct.unpack('<I16', string.rep('\\255', 16))}"},
		{"unpack i0", "return {struct.unpack('>i0', '')}"},
		{"unpack floats", "local a, b, n = struct.unpack('>fd', struct.pack('>fd', 0.1, 0.1)) return {D(a), D(b), n}"},
		{"unpack nan float", "local a = struct.unpack('<f', '\\0\\0\\192\\127') return D(a)"},
		{"unpack strings", "return {struct.unpack('c2s c0', 'ab' .. 'xyz\\0' .. 'q')}"},
		{"unpack c0 size", "return {struct.unpack('bc0', '\\3hello')}"},
		{"unpack c0 size from string", "return {struct.unpack('c1c0', '5hello')}"},
		{"unpack c0 without size", "return {pcall(function() return struct.unpack('xc0', '\\3hello') end)}"},
		{"unpack c0 first", "return {pcall(function() return struct.unpack('c0', 'hello') end)}"},
		{"unpack c0 after string", "return {pcall(function() return struct.unpack('c1c0', 'xhello') end)}"},
		{"unpack c0 too long", "return {pcall(function() return struct.unpack('bc0', '\\9hello') end)}"},
		{"unpack c0 nan size", "return {pcall(function() return struct.unpack('dc0', struct.pack('d', 0/0) .. 'abc') end)}"},
		{"unpack c0 negative size", "return {pcall(function() return struct.unpack('dc0', struct.pack('d', -1) .. 'abc') end)}"},
		{"unpack c0 fraction", "return {struct.unpack('dc0', struct.pack('d', 2.7) .. 'abc')}"},
		{"unpack too short", "return {pcall(function() return struct.unpack('i', 'abc') end)}"},
		{"unpack s unfinished", "return {pcall(function() return struct.unpack('s', 'abc') end)}"},
		{"unpack position", "return {struct.unpack('b', 'abc', 2), struct.unpack('bb', 'abc', 2)}"},
		{"unpack position end", "return {struct.unpack('', 'abc', 4), struct.unpack('', 'abc', 9)}"},
		{"unpack position past end", "return {pcall(function() return struct.unpack('b', 'abc', 4) end)}"},
		{"unpack position zero", "return {pcall(function() return struct.unpack('b', 'a', 0) end)}"},
		{"unpack position negative", "return {struct.unpack('', 'abc', -5)}"},
		{"unpack position negative read", "return {pcall(function() return struct.unpack('b', 'abc', -1) end)}"},
		{"unpack position wraps by alignment", "return {struct.unpack('!8d', struct.pack('d', 1.5) .. 'abcdefgh', -1)}"},
		{"unpack position fraction", "return {struct.unpack('b', 'abc', 2.9)}"},
		{"unpack position string", "return {pcall(function() return struct.unpack('b', 'abc', 'x') end)}"},
		{"unpack data number", "return {struct.unpack('c2', 12)}"},
		{"unpack aligned", "return {struct.unpack('!4bi', '\\1\\0\\0\\0\\2\\0\\0\\0')}"},
		{"unpack control too short", "return {pcall(function() return struct.unpack('<', 'abc', 5) end)}"},
		{"unpack many results", "return {pcall(function() return select('#', struct.unpack(string.rep('b', 7996), string.rep('a', 7996))) end)}"},
		{"unpack too many results", "return {pcall(function() return select('#', struct.unpack(string.rep('b', 7998), string.rep('a', 7998))) end)}"},
		{"size", "return {struct.size('bhilLTfdx'), struct.size('!bd'), struct.size('!4bd'), struct.size('bd'), struct.size('c10'), struct.size(''), struct.size('z'), struct.size('i3i5'), struct.size('!i3i5')}"},
		{"size s", "return {pcall(function() return struct.size('s') end)}"},
		{"size c0", "return {pcall(function() return struct.size('c0') end)}"},
		{"size bad alignment", "return {pcall(function() return struct.size('!6') end)}"},
		{"size invalid control", "return {pcall(function() return struct.size('#') end)}"},
		{"round trip", "local s = struct.pack('>!4hBdc3s', -300, 200, 1.25, 'abc', 'zz') return {s, struct.unpack('>!4hBdc3s', s)}"},
		{"fields", "local n = 0 for k in pairs(struct) do n = n + 1 end return n"},
	})
}

// FuzzStructUnpack unpacks fuzzed data with a fuzzed format: it must return or
// raise, never panic, and every string it returns is a slice of the data.
func FuzzStructUnpack(f *testing.F) {
	f.Add("<bBhHlLTiI", "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10", int64(1))
	f.Add(">!4bi3dfc2s", "abcdefghijklmnopqrstuvwxyz\x00", int64(1))
	f.Add("bc0", "\x05hello", int64(1))
	f.Add("c1c0", "9hello", int64(1))
	f.Add("dc0", "\x00\x00\x00\x00\x00\x00\xf8\x7fabc", int64(1))
	f.Add("!8d", "\x00\x00\x00\x00\x00\x00\xf8\x3fabcdefgh", int64(-1))
	f.Add("i16I32c2147483647", "\xff\xff", int64(2))
	f.Add("i99999999999", "", int64(1))
	f.Fuzz(func(t *testing.T, format, data string, pos int64) {
		L := newState()
		defer L.Close()
		lib := Struct(L)
		res, err := callLib(t, L, lib, "unpack", lua.LString(format), lua.LString(data), lua.LNumber(pos))
		if err != nil {
			return
		}
		if len(res) == 0 {
			t.Fatalf("unpack(%q, %q, %d) returned nothing; want at least the next position", format, data, pos)
		}
		for _, v := range res {
			if s, ok := v.(lua.LString); ok && len(s) > len(data) {
				t.Fatalf("unpack(%q, %q, %d) returned a string of %d bytes; want at most %d", format, data, pos, len(s), len(data))
			}
		}
	})
}
