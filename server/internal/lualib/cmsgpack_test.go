package lualib

import (
	"runtime"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

func TestCMsgpackRedis(t *testing.T) {
	compareCases(t, []luaCase{
		{"positive integers", "return cmsgpack.pack(0, 1, 127, 128, 255, 256, 65535, 65536, 4294967295, 4294967296, 2^53)"},
		{"negative integers", "return cmsgpack.pack(-1, -32, -33, -128, -129, -32768, -32769, -2147483648, -2147483649, -2^53, -2^63)"},
		{"floats and doubles", "return cmsgpack.pack(0.5, 1.5, 0.1, -0.25, 1e300, 3.4028234663852886e38, 1e-45)"},
		{"invalid numbers", "return cmsgpack.pack(1/0, -1/0, 0/0, -0.0, 2^63, 2^64)"},
		{"strings", "return cmsgpack.pack('', 'a', string.rep('x', 31), string.rep('y', 32), string.rep('z', 255), string.rep('w', 256), string.rep('v', 65536))"},
		{"booleans and nil", "return cmsgpack.pack(true, false, nil)"},
		{"other types as nil", "return cmsgpack.pack(cmsgpack.pack, cjson.null, coroutine and coroutine.create(function() end) or 0)"},
		{"arrays", "return cmsgpack.pack({}, {1, 2, 3}, {'a', {true}}, {[1] = 1, [2] = 2})"},
		{"array 16", "local t = {} for i = 1, 16 do t[i] = i end return cmsgpack.pack(t)"},
		{"array 32", "local t = {} for i = 1, 65536 do t[i] = 0 end return cmsgpack.pack(t)"},
		{"holes make maps", "return cmsgpack.pack({[1] = 1, [3] = 3})"},
		{"single key maps", "return cmsgpack.pack({a = 1}, {[0] = 'z'}, {[1.5] = true}, {[-1] = 1}, {[2^31] = 1}, {[{}] = 1})"},
		{"map 16", "local t = {} for i = 2, 17 do t[i] = 0 end return #cmsgpack.pack(t)"},
		{"map 16 header", "local t = {} for i = 2, 17 do t[i] = 0 end return string.sub(cmsgpack.pack(t), 1, 3)"},
		{"nesting to the limit", "local t = {} local c = t for i = 1, 20 do c[1] = {} c = c[1] end return cmsgpack.pack(t)"},
		{"self reference", "local t = {} t[1] = t return cmsgpack.pack(t)"},
		{"self reference in map", "local t = {} t.x = t return cmsgpack.pack(t)"},
		{"pack no input", "return {pcall(function() return cmsgpack.pack() end)}"},
		{"pack too many arguments", "local t = {} for i = 1, 4001 do t[i] = i end return {pcall(function() return cmsgpack.pack(unpack(t)) end)}"},
		{"pack most arguments", "local t = {} for i = 1, 4000 do t[i] = 1 end return {pcall(function() return #cmsgpack.pack(unpack(t)) end)}"},
		{"unpack integers", "return {cmsgpack.unpack(cmsgpack.pack(0, 127, 128, 65535, -1, -32, -33, -32768, -2147483648, 4294967295))}"},
		{"unpack big integers", "return {cmsgpack.unpack('\\207\\255\\255\\255\\255\\255\\255\\255\\255\\211\\128\\0\\0\\0\\0\\0\\0\\0\\207\\0\\0\\0\\1\\0\\0\\0\\0')}"},
		{"unpack sign extensions", "return {cmsgpack.unpack('\\208\\128\\209\\128\\0\\210\\128\\0\\0\\0\\224\\255')}"},
		{"unpack floats", "local a, b = cmsgpack.unpack(cmsgpack.pack(0.1, 1.5)) return {D(a), D(b)}"},
		{"unpack float nan", "local a = cmsgpack.unpack('\\202\\127\\192\\0\\0') return D(a)"},
		{"unpack strings", "return {cmsgpack.unpack('\\163abc\\217\\2xy\\218\\0\\1z\\219\\0\\0\\0\\2qq')}"},
		{"unpack nil and booleans", "return {cmsgpack.unpack('\\195\\194')}"},
		{"unpack nil first", "return select('#', cmsgpack.unpack('\\192\\192\\195'))"},
		// Not #t: Lua 5.1 and gopher-lua find different borders in {1, nil, 3}.
		{"unpack arrays", "local t = cmsgpack.unpack('\\147\\1\\192\\3') return {t[1], t[2] == nil, t[3]}"},
		{"unpack array 16", "local t = cmsgpack.unpack('\\220\\0\\2\\5\\6') return {t[1], t[2]}"},
		{"unpack maps", "local t = cmsgpack.unpack('\\130\\161a\\1\\161b\\146\\2\\3') return {t.a, t.b[1], t.b[2]}"},
		{"unpack map 32", "local t = cmsgpack.unpack('\\223\\0\\0\\0\\1\\1\\2') return t[1]"},
		{"unpack map nil value", "local t = cmsgpack.unpack('\\130\\1\\2\\1\\192') return {t[1] == nil}"},
		{"unpack map nil key", "return {pcall(function() return cmsgpack.unpack('\\129\\192\\1') end)}"},
		{"unpack map nan key", "return {pcall(function() return cmsgpack.unpack('\\129\\203\\255\\248\\0\\0\\0\\0\\0\\0\\1') end)}"},
		{"unpack map table key", "local t = cmsgpack.unpack('\\129\\145\\1\\2') local k, v = next(t) return {k[1], v}"},
		{"unpack empty", "return select('#', cmsgpack.unpack(''))"},
		{"missing bytes", "return {pcall(function() return cmsgpack.unpack('\\205\\1') end)}"},
		{"missing bytes in string", "return {pcall(function() return cmsgpack.unpack('\\219\\255\\255\\255\\255abc') end)}"},
		{"missing bytes in array", "return {pcall(function() return cmsgpack.unpack('\\221\\255\\255\\255\\255\\1\\2') end)}"},
		{"missing bytes in map", "return {pcall(function() return cmsgpack.unpack('\\223\\255\\255\\255\\255\\1') end)}"},
		{"bad format", "return {pcall(function() return cmsgpack.unpack('\\193') end)}"},
		{"bad format bin", "return {pcall(function() return cmsgpack.unpack('\\1\\196\\1a') end)}"},
		{"bad format ext", "return {pcall(function() return cmsgpack.unpack('\\212\\1\\1') end)}"},
		{"bad format nested", "return {pcall(function() return cmsgpack.unpack('\\145\\199') end)}"},
		{"unpack not a string", "return {pcall(function() return cmsgpack.unpack({}) end)}"},
		{"unpack number", "return {cmsgpack.unpack(12)}"},
		{"unpack through pcall", "return {pcall(cmsgpack.unpack, '\\193')}"},
		{"unpack_one", "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3))}"},
		{"unpack_one offset", "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 1)}"},
		{"unpack_one last", "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 2)}"},
		{"unpack_one at end", "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2, 3), 3)}"},
		{"unpack_one empty", "return {cmsgpack.unpack_one('')}"},
		{"unpack_one past end", "return {pcall(function() return cmsgpack.unpack_one('abc', 4) end)}"},
		{"unpack_one negative", "return {pcall(function() return cmsgpack.unpack_one('abc', -1) end)}"},
		{"unpack_one bad offset", "return {pcall(function() return cmsgpack.unpack_one('abc', 'x') end)}"},
		{"unpack_one no input", "return {pcall(function() return cmsgpack.unpack_one() end)}"},
		{"unpack_limit", "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3, 4), 2)}"},
		{"unpack_limit offset", "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3, 4), 2, 2)}"},
		{"unpack_limit all", "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3, 4), 9)}"},
		{"unpack_limit zero", "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2), 0)}"},
		{"unpack_limit zero offset", "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2), 0, 1)}"},
		{"unpack_limit negative", "return {pcall(function() return cmsgpack.unpack_limit('abcd', -1, 2) end)}"},
		{"unpack_limit missing", "return {pcall(function() return cmsgpack.unpack_limit('abcd') end)}"},
		{"unpack_limit fraction", "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 1.9, 0.5)}"},
		{"unpack many values", "return select('#', cmsgpack.unpack(string.rep('\\1', 7998)))"},
		{"unpack too many values", "return {pcall(function() return select('#', cmsgpack.unpack(string.rep('\\1', 8000))) end)}"},
		{"unpack_limit too many values", "return {pcall(function() return select('#', cmsgpack.unpack_limit(string.rep('\\1', 8005), 7999)) end)}"},
		{"unpack_limit most values", "return {pcall(function() return select('#', cmsgpack.unpack_limit(string.rep('\\1', 8005), 7998)) end)}"},
		{"unpack deep arrays", "return {pcall(function() return type(cmsgpack.unpack(string.rep('\\145', 3990) .. '\\1')) end)}"},
		{"unpack too deep arrays", "return {pcall(function() return type(cmsgpack.unpack(string.rep('\\145', 4005) .. '\\1')) end)}"},
		{"unpack too deep map keys", "return {pcall(function() return type(cmsgpack.unpack(string.rep('\\129', 8005) .. '\\1')) end)}"},
		{"unpack too deep map values", "return {pcall(function() return type(cmsgpack.unpack(string.rep('\\129\\1', 4005) .. '\\1')) end)}"},
		{"unpack empty arrays deep", "return {pcall(function() return select('#', cmsgpack.unpack(string.rep('\\144', 8005))) end)}"},
		{"round trip", "local s = cmsgpack.pack({1, 'two', {3.5, false}}, {x = 'y'}, -7) local a, b, c = cmsgpack.unpack(s) return {a[1], a[2], D(a[3][1]), b.x, c, #s}"},
		{"fields", "return {cmsgpack._NAME, cmsgpack._VERSION, cmsgpack._COPYRIGHT, cmsgpack._DESCRIPTION}"},
	})
}

// FuzzCMsgpackUnpack unpacks fuzzed bytes: it must return or raise, never panic,
// and return no more values than the input has bytes.
func FuzzCMsgpackUnpack(f *testing.F) {
	f.Add([]byte("\x93\x01\xa3abc\x82\xa1a\xc3\xa1b\xcb\x3f\xb9\x99\x99\x99\x99\x99\x9a"), int64(0), int64(0))
	f.Add([]byte("\xdd\xff\xff\xff\xff\x01"), int64(1), int64(0))
	f.Add([]byte("\xdb\xff\xff\xff\xffabc"), int64(0), int64(0))
	f.Add([]byte("\xdf\x00\x00\x00\x02\xc0\x01\x01\x02"), int64(2), int64(1))
	f.Add([]byte("\x91\x91\x91\x91\x91\x91\x91\x91\x01"), int64(0), int64(3))
	f.Add([]byte("\xc1\xc4\xd4"), int64(0), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, limit, offset int64) {
		L := newState()
		defer L.Close()
		lib := CMsgpack(L)
		res, err := callLib(t, L, lib, "unpack", lua.LString(data))
		if err == nil && len(res) > len(data) {
			t.Fatalf("unpack(%q) returned %d values; want at most %d", data, len(res), len(data))
		}
		res, err = callLib(t, L, lib, "unpack_limit", lua.LString(data), lua.LNumber(limit), lua.LNumber(offset))
		if err == nil && len(res) > len(data)+1 {
			t.Fatalf("unpack_limit(%q, %d, %d) returned %d values; want at most %d", data, limit, offset, len(res), len(data)+1)
		}
	})
}

// TestHugeLengthsAllocateLittle unpacks inputs that declare lengths of up to
// 2^32-1 (strings, arrays, maps; struct's counts) without the bytes to back
// them: each must raise having allocated about nothing.
func TestHugeLengthsAllocateLittle(t *testing.T) {
	L := newState()
	defer L.Close()
	for _, tc := range []struct {
		lib     *lua.LTable
		name    string
		args    []lua.LValue
		wantErr string
	}{
		{CMsgpack(L), "unpack", []lua.LValue{lua.LString("\xdb\xff\xff\xff\xffabc")}, "Missing bytes in input."},
		{CMsgpack(L), "unpack", []lua.LValue{lua.LString("\xdd\xff\xff\xff\xff\x01\x02")}, "Missing bytes in input."},
		{CMsgpack(L), "unpack", []lua.LValue{lua.LString("\xdf\xff\xff\xff\xff\x01\x02\x03")}, "Missing bytes in input."},
		{CMsgpack(L), "unpack_limit", []lua.LValue{lua.LString("\xdc\xff\xff"), lua.LNumber(1)}, "Missing bytes in input."},
		{Struct(L), "unpack", []lua.LValue{lua.LString("c2147483647"), lua.LString("abc")}, "data string too short"},
		{Struct(L), "unpack", []lua.LValue{lua.LString("Ic0"), lua.LString("\xff\xff\xff\xffabc")}, "data string too short"},
		{Struct(L), "pack", []lua.LValue{lua.LString("c2147483647"), lua.LString("abc")}, "string too short"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := callLib(t, L, tc.lib, tc.name, tc.args...)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s(%q) = %v; want the error %q", tc.name, tc.args, err, tc.wantErr)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("%s(%q) allocated %d bytes; want under 1 MiB", tc.name, tc.args, n)
		}
	}
}
