package lualib

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Objects of more than one key are left out: Lua 5.1 and gopher-lua iterate a
// table's keys in different orders.
func TestCJSONRedis(t *testing.T) {
	compareCases(t, []luaCase{
		{"scalars", "return {cjson.encode(1), cjson.encode('a'), cjson.encode(true), cjson.encode(false), cjson.encode(nil), cjson.encode(cjson.null)}"},
		{"numbers", "return {cjson.encode(0.1), cjson.encode(1/3), cjson.encode(1e100), cjson.encode(123456789012345678), cjson.encode(-0.0), cjson.encode(2^53), cjson.encode(1e-5), cjson.encode(100000), cjson.encode(-1.5e-300)}"},
		{"string escapes", "return cjson.encode('a\\0b\\1/\\\\\"\\127\\128\\255\\b\\t\\n\\f\\r\\31 ~')"},
		{"every byte", "local t = {} for i = 0, 255 do t[#t + 1] = string.char(i) end return cjson.encode(table.concat(t))"},
		{"arrays", "return {cjson.encode({1, 2, 3}), cjson.encode({1, 2, nil, 4}), cjson.encode({{}, {{}}}), cjson.encode({'a', {true, false}})}"},
		{"empty table", "return cjson.encode({})"},
		{"sparse allowed", "return {cjson.encode({[1] = 1, [10] = 2}), cjson.encode({[3] = 'x'})}"},
		{"sparse ratio", "return cjson.encode({[1] = 1, [2] = 1, [3] = 1, [4] = 1, [5] = 1, [6] = 1, [12] = 1})"},
		{"excessively sparse", "return {pcall(function() return cjson.encode({[1] = 1, [12] = 2}) end)}"},
		{"excessively sparse through pcall", "return {pcall(cjson.encode, {[20] = 1})}"},
		{"single key objects", "return {cjson.encode({a = 1}), cjson.encode({[0] = 1}), cjson.encode({[1.5] = 1}), cjson.encode({[-1] = 1}), cjson.encode({['a\\n'] = {}})}"},
		{"huge integer key", "return cjson.encode({[2^40] = 1})"},
		{"key types", "return {pcall(function() return cjson.encode({[true] = 1}) end)}"},
		{"table key", "return {pcall(function() return cjson.encode({[{}] = 1}) end)}"},
		{"inf key", "return {pcall(function() return cjson.encode({[1/0] = 1}) end)}"},
		{"nan", "return {pcall(function() return cjson.encode(0/0) end)}"},
		{"inf", "return {pcall(function() return cjson.encode({1, 1/0}) end)}"},
		{"inf through pcall", "return {pcall(cjson.encode, 1/0)}"},
		{"function", "return {pcall(function() return cjson.encode(function() end) end)}"},
		{"function in array", "return {pcall(function() return cjson.encode({1, cjson.encode}) end)}"},
		{"coroutine", "return {pcall(function() return cjson.encode(coroutine.create(function() end)) end)}"},
		{"no argument", "return {pcall(function() return cjson.encode() end)}"},
		{"two arguments", "return {pcall(function() return cjson.encode(1, 2) end)}"},
		{"self reference", "return {pcall(function() local t = {} t[1] = t return cjson.encode(t) end)}"},
		{"self reference in object", "return {pcall(function() local t = {} t.a = t return cjson.encode(t) end)}"},
		{"nesting 1000", "local t = {} local c = t for i = 1, 999 do c[1] = {} c = c[1] end return #cjson.encode(t)"},
		{"nesting 1001", "return {pcall(function() local t = {} local c = t for i = 1, 1000 do c[1] = {} c = c[1] end return cjson.encode(t) end)}"},
		{"nesting past the stack", "local c = cjson.new() c.encode_max_depth(100000) return {pcall(function() local t = {} local x = t for i = 1, 5000 do x[1] = {} x = x[1] end return #c.encode(t) end)}"},
		{"nesting objects past the stack", "local c = cjson.new() c.encode_max_depth(100000) return {pcall(function() local t = {} local x = t for i = 1, 5000 do x.a = {} x = x.a end return #c.encode(t) end)}"},
		{"decode scalars", "return {cjson.decode('1'), cjson.decode('\"a\"'), cjson.decode('true'), cjson.decode('false'), cjson.decode('null') == cjson.null, type(cjson.decode('null'))}"},
		{"decode numbers", "return {D(cjson.decode('0.1')), D(cjson.decode('-1e400')), D(cjson.decode('1e-400')), D(cjson.decode('4.9e-324')), D(cjson.decode('123456789012345678901234567890'))}"},
		{"decode invalid numbers", "return cjson.encode(cjson.decode('[0x10, +5, 007, 0x1p4, 0x.8, 1.5e+3, -0, 1E2]'))"},
		{"decode infinity", "local t = cjson.decode('[Infinity, -inf, INF, infinity]') return {D(t[1]), D(t[2]), D(t[3]), D(t[4])}"},
		{"decode nan", "local t = cjson.decode('[nan, -NaN, NAN]') return {D(t[1]), D(t[2]), D(t[3])}"},
		{"decode nan with payload", "local t = cjson.decode('[nan(123), nan(]') return {pcall(function() return D(t[1]) end)}"},
		{"decode nan with open payload", "return {pcall(function() return cjson.decode('[nan(]') end)}"},
		{"decode bad numbers", "return {pcall(function() return cjson.decode('-') end)}"},
		{"decode minus letters", "return {pcall(function() return cjson.decode('-abc') end)}"},
		{"decode dot", "return {pcall(function() return cjson.decode('[.5]') end)}"},
		{"decode number then junk", "return {pcall(function() return cjson.decode('1x') end)}"},
		{"decode exponent without digits", "return {pcall(function() return cjson.decode('[1e]') end)}"},
		{"decode hex without digits", "return {pcall(function() return cjson.decode('[0x]') end)}"},
		{"decode plus inf", "return {pcall(function() return D(cjson.decode('+inf')) end)}"},
		{"decode strings", "return {cjson.decode('\"\\\\ud83d\\\\ude00\\\\u00e9\\\\/\\\\b\\\\f\\\\n\\\\r\\\\t\\\\\"\\\\\\\\\"'), cjson.decode('\"\\\\u0000\\\\u007f\\\\u0800\\\\uFFFF\"')}"},
		{"decode invalid utf8", "return cjson.decode('\"\\255\\254\\192\"')"},
		{"decode lone high surrogate", "return {pcall(function() return cjson.decode('\"\\\\ud800\"') end)}"},
		{"decode lone low surrogate", "return {pcall(function() return cjson.decode('\"\\\\udc00\"') end)}"},
		{"decode bad pair", "return {pcall(function() return cjson.decode('\"\\\\ud800\\\\u0041\"') end)}"},
		{"decode short unicode", "return {pcall(function() return cjson.decode('\"\\\\u12\"') end)}"},
		{"decode bad escape", "return {pcall(function() return cjson.decode('\"\\\\q\"') end)}"},
		{"decode escape at end", "return {pcall(function() return cjson.decode('\"abc\\\\') end)}"},
		{"decode unterminated", "return {pcall(function() return cjson.decode('\"abc') end)}"},
		{"decode NUL in string", "return {pcall(function() return cjson.decode('\"ab\\0c\"') end)}"},
		{"decode NUL after value", "return cjson.decode('12\\0junk')"},
		{"decode UTF-16", "return {pcall(function() return cjson.decode('\\0a') end)}"},
		{"decode UTF-16 second", "return {pcall(function() return cjson.decode('1\\0') end)}"},
		{"decode empty", "return {pcall(function() return cjson.decode('') end)}"},
		{"decode spaces", "return {pcall(function() return cjson.decode(' \\t\\r\\n ') end)}"},
		{"decode arrays", "return cjson.encode(cjson.decode(' [ 1 , [ ] , [ [ 2 ] ] , \"x\" , null , true ] '))"},
		{"decode objects", "local t = cjson.decode('{\"a\": {\"b\": [1, 2]}, \"c\": null, \"a\": 5}') return {t.a, t.c == cjson.null}"},
		{"decode object empty", "return cjson.encode(cjson.decode('{ }'))"},
		{"decode unclosed array", "return {pcall(function() return cjson.decode('[1,2') end)}"},
		{"decode array comma", "return {pcall(function() return cjson.decode('[1,]') end)}"},
		{"decode array missing comma", "return {pcall(function() return cjson.decode('[1 2]') end)}"},
		{"decode object colon", "return {pcall(function() return cjson.decode('{\"a\" 1}') end)}"},
		{"decode object key", "return {pcall(function() return cjson.decode('{1: 2}') end)}"},
		{"decode object comma", "return {pcall(function() return cjson.decode('{\"a\": 1 \"b\"}') end)}"},
		{"decode object end", "return {pcall(function() return cjson.decode('{\"a\": 1,}') end)}"},
		{"decode trailing", "return {pcall(function() return cjson.decode('[1] [2]') end)}"},
		{"decode trailing comma", "return {pcall(function() return cjson.decode('1,') end)}"},
		{"decode bad token", "return {pcall(function() return cjson.decode('@') end)}"},
		{"decode bad literal", "return {pcall(function() return cjson.decode('[tru]') end)}"},
		{"decode literal prefix", "return {pcall(function() return cjson.decode('nulls') end)}"},
		{"decode colon", "return {pcall(function() return cjson.decode(':') end)}"},
		{"decode close", "return {pcall(function() return cjson.decode(']') end)}"},
		{"decode depth 1000", "return {pcall(function() return type(cjson.decode(string.rep('[', 1000) .. string.rep(']', 1000))) end)}"},
		{"decode depth 1001", "return {pcall(function() return cjson.decode(string.rep('[', 1001)) end)}"},
		{"decode depth objects", "return {pcall(function() return cjson.decode(string.rep('{\"a\":', 1001)) end)}"},
		{"decode depth past the stack", "local c = cjson.new() c.decode_max_depth(100000) return {pcall(function() return c.decode(string.rep('[', 9000)) end)}"},
		{"decode depth objects past the stack", "local c = cjson.new() c.decode_max_depth(100000) return {pcall(function() return c.decode(string.rep('{\"a\":', 5000)) end)}"},
		{"decode no argument", "return {pcall(function() return cjson.decode() end)}"},
		{"decode table", "return {pcall(function() return cjson.decode({}) end)}"},
		{"decode number argument", "return cjson.decode(12)"},
		{"precision", "local c = cjson.new() return {c.encode_number_precision(3), c.encode(1/3), cjson.encode(1/3), c.encode_number_precision(), c.encode({[1/3] = 1})}"},
		{"precision bounds", "local c = cjson.new() return {pcall(function() return c.encode_number_precision(15) end)}"},
		{"precision zero", "local c = cjson.new() return {pcall(function() return c.encode_number_precision(0) end)}"},
		{"precision wraps as C int", "local c = cjson.new() return {c.encode_number_precision(2^32 + 3), c.encode(1/3)}"},
		{"precision through pcall", "local c = cjson.new() return {pcall(c.encode_number_precision, 15)}"},
		{"precision string", "local c = cjson.new() return {pcall(function() return c.encode_number_precision('x') end)}"},
		{"precision numeric string", "local c = cjson.new() return {c.encode_number_precision('5'), c.encode(1/3)}"},
		{"too many arguments", "local c = cjson.new() return {pcall(function() return c.encode_number_precision(1, 2) end)}"},
		{"sparse settings", "local c = cjson.new() local a, b, d = c.encode_sparse_array() return {tostring(a), b, d, c.encode_sparse_array(true, 3, 4)}"},
		{"sparse convert", "local c = cjson.new() c.encode_sparse_array(true) return {c.encode({[1] = 1, [30] = 2}) == '{\"1\":1,\"30\":2}' or c.encode({[1] = 1, [30] = 2}) == '{\"30\":2,\"1\":1}', c.encode({[40] = 1})}"},
		{"sparse ratio zero", "local c = cjson.new() c.encode_sparse_array(false, 0) return #c.encode({[100] = 1})"},
		{"sparse safe", "local c = cjson.new() c.encode_sparse_array(false, 2, 100) return #c.encode({[100] = 1})"},
		{"sparse bad option", "local c = cjson.new() return {pcall(function() return c.encode_sparse_array('maybe') end)}"},
		{"sparse bad ratio", "local c = cjson.new() return {pcall(function() return c.encode_sparse_array(nil, -1) end)}"},
		{"sparse on off names", "local c = cjson.new() return {tostring(c.encode_sparse_array('on')), tostring(c.encode_sparse_array('off'))}"},
		{"sparse too many", "local c = cjson.new() return {pcall(function() return c.encode_sparse_array(1, 2, 3, 4) end)}"},
		{"invalid numbers on", "local c = cjson.new() return {tostring(c.encode_invalid_numbers(true)), c.encode({1/0, -1/0, 0/0, -(0/0)}), c.encode({[1/0] = 1})}"},
		{"invalid numbers null", "local c = cjson.new() return {c.encode_invalid_numbers('null'), c.encode({1/0, 0/0, 1})}"},
		{"invalid numbers off", "local c = cjson.new() return {tostring(c.encode_invalid_numbers('off')), pcall(c.encode, 1/0)}"},
		{"invalid numbers bad", "local c = cjson.new() return {pcall(function() return c.encode_invalid_numbers('maybe') end)}"},
		{"decode invalid numbers off", "local c = cjson.new() return {tostring(c.decode_invalid_numbers(false)), pcall(c.decode, '[Infinity]')}"},
		{"decode invalid numbers off hex", "local c = cjson.new() c.decode_invalid_numbers(false) return {pcall(function() return c.decode('[0x10]') end)}"},
		{"decode invalid numbers off minus hex", "local c = cjson.new() c.decode_invalid_numbers(false) return {pcall(function() return c.decode('[-0x1]') end)}"},
		{"decode invalid numbers off minus inf", "local c = cjson.new() c.decode_invalid_numbers(false) return {pcall(function() return c.decode('[-Infinity]') end)}"},
		{"decode invalid numbers off leading zero", "local c = cjson.new() c.decode_invalid_numbers(false) return {pcall(function() return c.decode('007') end)}"},
		{"decode invalid numbers off plus", "local c = cjson.new() c.decode_invalid_numbers(false) return {pcall(function() return c.decode('+1') end)}"},
		{"decode invalid numbers off null prefix", "local c = cjson.new() c.decode_invalid_numbers(false) return {pcall(function() return c.decode('nul') end)}"},
		{"decode invalid numbers off valid", "local c = cjson.new() c.decode_invalid_numbers(false) return c.encode(c.decode('[0, -0.5, 1e3, 10]'))"},
		{"encode max depth", "local c = cjson.new() return {c.encode_max_depth(2), pcall(function() return c.encode({{{1}}}) end)}"},
		{"encode max depth ok", "local c = cjson.new() c.encode_max_depth(3) return c.encode({{{1}}})"},
		{"decode max depth", "local c = cjson.new() return {c.decode_max_depth(2), pcall(function() return c.decode('[[[1]]]') end)}"},
		{"decode max depth zero", "local c = cjson.new() return {pcall(function() return c.decode_max_depth(0) end)}"},
		{"keep buffer", "local c = cjson.new() return {tostring(c.encode_keep_buffer()), tostring(c.encode_keep_buffer('off')), c.encode({1}), tostring(c.encode_keep_buffer(true))}"},
		{"keep buffer number", "local c = cjson.new() return {pcall(function() return c.encode_keep_buffer(1) end)}"},
		{"keep buffer table", "local c = cjson.new() return {pcall(function() return c.encode_keep_buffer({}) end)}"},
		{"new is separate", "local c = cjson.new() c.encode_number_precision(2) local d = c.new() return {c.encode(1/3), d.encode(1/3), cjson.encode(1/3)}"},
		{"null is shared", "return {cjson.new().decode('null') == cjson.null, cjson.new().null == cjson.null}"},
		{"null encodes", "return cjson.encode({cjson.null, 1})"},
		{"fields", "local n = 0 for k in pairs(cjson) do n = n + 1 end return {n, cjson._NAME, cjson._VERSION, type(cjson.null), tostring(cjson.decode_array_with_array_mt), tostring(cjson.array_mt)}"},
		{"round trip", "return cjson.encode(cjson.decode('[1,\"a\\\\u0001\",[true,false,null],{\"k\":[0.5]},-3e-7]'))"},
	})
}

// FuzzCJSONDecode decodes fuzzed text: it must return or raise, never panic, and
// what it returns must encode.
func FuzzCJSONDecode(f *testing.F) {
	for _, s := range []string{
		`[1,"a",{"b":null},true,false,-0.5e3]`, `"\ud83d\ude00\u00e9\/"`, `{"a" 1}`, `[0x1p4, Infinity, nan(12)]`,
		`"\ud800\u0041"`, "[[[[[[[[[[", `{"a":{"a":{"a":[]}}}`, "\x00a", "12\x00x", `"\u12`, "-", "+inf",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		L := newState()
		defer L.Close()
		lib := CJSON(L)
		res, err := callLib(t, L, lib, "decode", lua.LString(s))
		if err != nil {
			return
		}
		if len(res) != 1 {
			t.Fatalf("decode(%q) returned %d values; want 1", s, len(res))
		}
		if _, err := callLib(t, L, lib, "encode_invalid_numbers", lua.LTrue); err != nil {
			t.Fatalf("encode_invalid_numbers(true): %v", err)
		}
		if _, err := callLib(t, L, lib, "encode", res[0]); err != nil {
			t.Fatalf("encode(decode(%q)): %v; want a JSON text", s, err)
		}
	})
}

// TestEncodeStopsOnContext encodes tables whose shared subtables make the
// encoding exponentially long (2^40 leaves for cjson, 8^16 for cmsgpack): the
// encoders must stop with the context's error once it is done, as Redis's script
// timeout and SCRIPT KILL stop them.
func TestEncodeStopsOnContext(t *testing.T) {
	for _, tc := range []struct {
		name, script string
	}{
		{"cjson", "local t = {1} for i = 1, 40 do t = {t, t} end return cjson.encode(t)"},
		{"cmsgpack", "local t = {1} for i = 1, 15 do t = {t, t, t, t, t, t, t, t} end return cmsgpack.pack(t)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			L := newState()
			defer L.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			L.SetContext(ctx)
			start := time.Now()
			got := runLocal(L, tc.script)
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("%s took %v after a 100ms deadline", tc.script, took)
			}
			if !strings.Contains(got, context.DeadlineExceeded.Error()) {
				t.Errorf("%s = %.200s; want the error %q", tc.script, got, context.DeadlineExceeded)
			}
		})
	}
}

// TestCJSONEncodeTooLarge encodes a string whose escaped form passes MaxString:
// encode must raise before building it.
func TestCJSONEncodeTooLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: builds a 90 MiB string")
	}
	L := newState()
	defer L.Close()
	n := (MaxString-2)/6 + 1 // every byte escapes to \u0001
	got := runLocal(L, fmt.Sprintf("return {pcall(function() return cjson.encode(string.rep('\\1', %d)) end)}", n))
	if want := "[nil, " + strconv.Quote("user_script:1: "+errTooLarge) + "]"; got != want {
		t.Errorf("cjson.encode of %d escaped bytes = %.200s; want %s", n, got, want)
	}
	got = runLocal(L, fmt.Sprintf("return #cjson.encode(string.rep('a', %d))", n))
	if want := fmt.Sprintf("(integer) %d", n+2); got != want {
		t.Errorf("#cjson.encode of %d plain bytes = %s; want %s", n, got, want)
	}
}
