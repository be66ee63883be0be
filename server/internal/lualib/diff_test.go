package lualib

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	lua "github.com/yuin/gopher-lua"
	"github.com/zlite/zlite/internal/testmain"
)

// The differential tests run each Lua chunk on a state opened with this
// package's libraries and as EVAL on redis-server, and require the same string.
//
// Named loosenings, which the cases avoid rather than hide:
//   - a function's name in an argument error is the library's name for it, so a
//     call through a local alias or as a method (s:rep()) is not compared;
//   - loadstring's syntax errors are gopher-lua's texts;
//   - tostring of a table or function shows a different address.

// newState returns a state with the package's libraries as the server's sandbox
// opens them (without its protections), with a data stack large enough for Lua
// 5.1's 8,000 results.
func newState() *lua.LState {
	L := lua.NewState(lua.Options{SkipOpenLibs: true, RegistrySize: 1 << 14, RegistryMaxSize: 1 << 16})
	OpenBase(L)
	OpenTable(L)
	OpenString(L)
	OpenMath(L)
	L.SetGlobal("cjson", CJSON(L))
	L.SetGlobal("cmsgpack", CMsgpack(L))
	L.SetGlobal("bit", Bit(L))
	L.SetGlobal("struct", Struct(L))
	return L
}

// run runs chunk on L under ctx and returns its result as a string, or the
// error's text.
func run(ctx context.Context, L *lua.LState, chunk string) (string, error) {
	L.SetContext(ctx)
	defer L.RemoveContext()
	fn, err := L.Load(strings.NewReader(chunk), "user_script")
	if err != nil {
		return "", err
	}
	L.Push(fn)
	if err := L.PCall(0, 1, nil); err != nil {
		return "", err
	}
	v := L.Get(-1)
	L.Pop(1)
	s, _ := toString(v)
	return s, nil
}

// probe wraps a Lua expression list so that the chunk returns every value it
// produces (or its error), each by tostring, joined by "|".
func probe(expr string) string {
	return `local function pack(...) return {n = select('#', ...), ...} end
local r = pack(pcall(function() return ` + expr + ` end))
local o = {}
for i = 1, r.n do o[i] = tostring(r[i]) end
return table.concat(o, '|')`
}

// evalRedis runs chunk as EVAL and returns its string, or the error's text.
func evalString(t *testing.T, c *redis.Client, chunk string) string {
	t.Helper()
	v, err := c.Eval(context.Background(), chunk, nil).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return "error: " + err.Error()
	}
	return fmt.Sprint(v)
}

// compare runs each chunk on both sides and reports every difference.
func compare(t *testing.T, chunks []string) {
	t.Helper()
	c := redisClient(t)
	for _, chunk := range chunks {
		want := evalString(t, c, chunk)
		L := newState()
		got, err := run(context.Background(), L, chunk)
		L.Close()
		if err != nil {
			got = "error: " + err.Error()
		}
		if got != want {
			t.Errorf("%s\n got %q\nwant %q", chunk, got, want)
		}
	}
}

// compareExprs compares the probes of exprs.
func compareExprs(t *testing.T, exprs []string) {
	t.Helper()
	chunks := make([]string, len(exprs))
	for i, e := range exprs {
		chunks[i] = probe(e)
	}
	compare(t, chunks)
}

func TestDiffPattern(t *testing.T) {
	compareExprs(t, []string{
		`string.find("hello world", "o w")`,
		`string.find("hello world", "o", 6)`,
		`string.find("hello world", "l", -3)`,
		`string.find("hello", "l", -100)`,
		`string.find("hello", "", 10)`,
		`string.find("hello", "", 6)`,
		`string.find("a.b", ".", 1, true)`,
		`string.find("a+b", "+", 1, true)`,
		`string.find("abc", "[a-")`,
		`string.find("abc", "[a")`,
		`string.find("abc", "%")`,
		`string.find("abc", "(a")`,
		`string.find("abc", "a)")`,
		`string.find("abc", "%1")`,
		`string.find("abc", "(a)%2")`,
		`string.find("abc", "(a%1)")`,
		`string.find("abc", "%f")`,
		`string.find("abc", "%fa")`,
		`string.find("THE (quick) fox", "%f[%a]%a+")`,
		`string.find("THE (quick) fox", "%f[%l]%a+")`,
		`string.find("x(a(b)c)y", "%b()")`,
		`string.find("x(a(b)c", "%b()")`,
		`string.find("abc", "%b")`,
		`string.find("abc", "%ba")`,
		`string.find("key = value", "(%w+)%s*=%s*(%w+)")`,
		`string.find("abc", "()b()")`,
		`string.find("aaa", "a-b")`,
		`string.find("aaab", "a-b")`,
		`string.find("aaab", "^a*b$")`,
		`string.find("aaab", "^b")`,
		`string.find("a$b", "$b")`,
		`string.find("ab", "b$")`,
		`string.find("abc", "b?c")`,
		`string.find("ac", "ab?c")`,
		`string.find("hello", "l+")`,
		`string.find(" \t\n x", "%S")`,
		`string.find("a1_B2", "[%d_]+")`,
		`string.find("a]b", "[]]")`,
		`string.find("a^b", "[b^]")`,
		`string.find("a-b", "[a%-]+")`,
		`string.find("abc-", "[^%a]")`,
		`string.find("\0a\0", "%z")`,
		`string.find("a\0b", "\0")`,
		`string.find("a\0b", "b\0.")`,
		`string.find("x12.5e3y", "%d+%.?%d*")`,
		`string.find("hello", "(l)(l)")`,
		`string.find(12345, 3)`,
		`string.find("ab", "((((((((((((((((((((((((((((((((a))))))))))))))))))))))))))))))))")`,
		`string.find("ab", "(((((((((((((((((((((((((((((((a)))))))))))))))))))))))))))))))")`,
		`string.find("abc", "%x%X%c%C%p%P%u%U%l%L%w%W")`,
		`string.find("ABC abc 123 !?", "%u+ %l+ %d+ %p+")`,
		`string.find()`,
		`string.find("a")`,
		`string.find("a", {})`,
		`string.match("key=val", "(%w+)=(%w+)")`,
		`string.match("hello", "()ll()")`,
		`string.match("hello", "xyz")`,
		`string.match("hello", ".-")`,
		`string.match("  trim  ", "^%s*(.-)%s*$")`,
		`string.match("2024-01-15", "(%d+)-(%d+)-(%d+)")`,
		`string.match("hello", "h(.)", 1)`,
		`string.match("hello", "l", -2)`,
		`string.match("abab", "(ab)%1")`,
		`string.match("[[x]]", "%[(%b[])%]")`,
		`string.match("abc", "(a)(b)(c)")`,
		`string.match("x", "(()x)")`,
		`string.match("abc", "((a)(b))")`,
		`string.match("abc", "^(a)")`,
		`string.match("abc", "^(b)")`,
		`string.find("abc", "b", "2")`,
		`string.find("abc", "b", "x")`,
		`string.find("abc", "b", 1e300)`,
		`string.find("abc", "b", -1e300)`,
		`string.find("abc", "b", 0/0)`,
		`string.match("abc", "()", 4)`,
		`string.match("abc", "%w+", 2.9)`,
		`string.find("a.b.c", ".", 2, 1)`,
		`string.find("abc", "[%w-]+")`,
		`string.find("a-z", "[%w-z]+")`,
		`string.find("]", "[]")`,
		`string.find("x", "[^]")`,
		`string.find("%", "[%%]")`,
		`string.find("a", "(()")`,
		`string.find("ab", "(a)(b)%0")`,
		`string.match("aXb", "%f[%u](%u)")`,
		`string.match("hello world", "%f[%w]%w+$")`,
		`string.gsub("hello world", "%f[%w]%w", string.upper)`,
		`string.match(string.rep("a", 30) .. "b", "^(a*)(a-)b$")`,
	})
}

func TestDiffGsub(t *testing.T) {
	compareExprs(t, []string{
		`string.gsub("hello world", "o", "0")`,
		`string.gsub("hello world", "o", "0", 1)`,
		`string.gsub("hello world", "o", "0", 0)`,
		`string.gsub("hello world", "o", "0", -1)`,
		`string.gsub("hello world", "(o)", "[%1]")`,
		`string.gsub("hello world", "o", "[%0]")`,
		`string.gsub("hello world", "o", "%%")`,
		`string.gsub("hello world", "o", "%")`,
		`string.gsub("hello world", "o", "%x")`,
		`string.gsub("hello world", "o", "%2")`,
		`string.gsub("hello world", "(o)", "%2")`,
		`string.gsub("hello", "", "-")`,
		`string.gsub("hello", "^", ">")`,
		`string.gsub("hello", "$", "<")`,
		`string.gsub("hello", "^h", "H")`,
		`string.gsub("hello", "l*", "L")`,
		`string.gsub("abc", "%w", "%0%0")`,
		`string.gsub("abc", "%w", {a = 1, b = true})`,
		`string.gsub("abc", "%w", {a = {}})`,
		`string.gsub("abc", "%w", {a = false})`,
		`string.gsub("abc", "(%w)", function(c) return c:upper() .. "." end)`,
		`string.gsub("abc", "%w", function(c) return nil end)`,
		`string.gsub("abc", "%w", function(c) return 1.5 end)`,
		`string.gsub("abc", "%w", function(c) return {} end)`,
		`string.gsub("abc", "()", "%1")`,
		`string.gsub("abc", "(b)()", function(a, b) return a .. b end)`,
		`string.gsub("abc", "b", 1/3)`,
		`string.gsub("abc", "b")`,
		`string.gsub("abc", "b", true)`,
		`string.gsub("abc", "(", "x")`,
		`string.gsub("abc", "b", "x", "2")`,
		`string.gsub("abc", "b", "x", "z")`,
		`string.gsub(123, 2, 9)`,
		`string.gsub("a,b,,c", ",", ";")`,
		`string.gsub("  x  ", "^%s+", "")`,
		`string.gsub("abc", "%w", {[1] = "one"})`,
		`string.gsub("a1", "%d", {["1"] = "one"})`,
		`string.gsub("abc", "", "", 2)`,
		`string.gsub("abc", "b*", "-")`,
		`string.gsub("abc", ".", "%1")`,
		`string.gsub("abc", "(b)", "%0%1%%")`,
		`string.gsub("abc", "b", "x", 1e12)`,
		`string.gsub("abc", "b", "x", -1e12)`,
		`string.gsub("a b c", "%s", "", 1.5)`,
		`string.gsub("abc", "(a)(b)(c)", function(...) return select("#", ...) end)`,
		`string.gsub("abc", "%w", setmetatable({}, {__index = function(t, k) return k .. k end}))`,
		`string.gsub("abc", "b", function() error("in repl") end)`,
		`string.gsub()`,
		`string.gsub("x")`,
		`string.gsub("x", "x")`,
	})
}

// TestDiffNames compares the names in the four libraries, the coroutine table
// and the globals that the base library owns.
func TestDiffNames(t *testing.T) {
	compare(t, []string{`
local others = {KEYS = true, ARGV = true, redis = true, cjson = true, bit = true, struct = true, cmsgpack = true,
	__redis__err__handler = true, string = true, table = true, math = true}
local out = {}
for _, lib in ipairs({"string", "table", "math", "coroutine", "_G"}) do
	local names = {}
	for k, v in pairs(_G[lib]) do
		if lib ~= "_G" or not others[k] then names[#names + 1] = k .. ":" .. type(v) end
	end
	table.sort(names)
	out[#out + 1] = lib .. " " .. table.concat(names, " ")
end
return table.concat(out, "\n")`})
}

func TestDiffGmatch(t *testing.T) {
	compare(t, []string{
		`local o = {} for w in string.gmatch("one two  three", "%a+") do o[#o+1] = w end return table.concat(o, ",")`,
		`local o = {} for k, v in string.gmatch("a=1, b=2", "(%w+)=(%w+)") do o[#o+1] = k .. ":" .. v end return table.concat(o, ",")`,
		`local o = {} for w in string.gmatch("abc", "") do o[#o+1] = "[" .. w .. "]" end return table.concat(o, ",")`,
		`local o = {} for w in string.gmatch("abc", "^a") do o[#o+1] = w end return table.concat(o, ",") .. "#" .. #o`,
		`local o = {} for p in string.gmatch("abc", "()") do o[#o+1] = p end return table.concat(o, ",")`,
		`local o = {} for w in string.gfind("a b", "%a") do o[#o+1] = w end return table.concat(o, ",")`,
		`return select(2, pcall(function() for w in string.gmatch("abc", "(") do end end))`,
		`return select(2, pcall(string.gmatch, "abc"))`,
		`return select(2, pcall(string.rep))`,
		`return select(2, pcall(string.find, "a", "("))`,
		`return select(2, pcall(table.concat, {{}}))`,
	})
}

func TestDiffString(t *testing.T) {
	compareExprs(t, []string{
		`string.rep("ab", 3)`,
		`string.rep("ab", 0)`,
		`string.rep("ab", -1)`,
		`#string.rep("x", 1e12)`,
		`string.rep("x", 2.9)`,
		`string.rep("x", "3")`,
		`string.rep("", 1e7)`,
		`string.rep(5, 2)`,
		`string.rep()`,
		`string.rep("x")`,
		`string.rep("x", "y")`,
		`string.rep({}, 1)`,
		`string.sub("hello", 2, 4)`,
		`string.sub("hello", -3)`,
		`string.sub("hello", 0)`,
		`string.sub("hello", 4, 2)`,
		`string.sub("hello", -100, 100)`,
		`string.sub("hello", 2.7)`,
		`string.sub("hello", 1e100)`,
		`string.sub("hello")`,
		`string.sub()`,
		`string.byte("ABC")`,
		`string.byte("ABC", 2)`,
		`string.byte("ABC", 1, -1)`,
		`string.byte("ABC", 10)`,
		`string.byte("ABC", -1)`,
		`string.byte("")`,
		`string.byte(string.rep("x", 9000), 1, -1)`,
		`select("#", string.byte(string.rep("x", 7990), 1, -1))`,
		`string.char(72, 105)`,
		`string.char()`,
		`string.char(256)`,
		`string.char(-1)`,
		`string.char("65")`,
		`string.char("x")`,
		`string.len("abc")`,
		`string.len(123)`,
		`string.len()`,
		`string.lower("HeLLo 123 ÀB")`,
		`string.upper("HeLLo 123 àb")`,
		`string.reverse("abc")`,
		`string.reverse("")`,
		`string.upper()`,
		`("abc"):upper()`,
		`("x"):rep(3)`,
		`#("abc")`,
		`string.dump(string.len)`,
		`string.dump()`,
		`tostring(1/3), tostring(1e15), tostring(1e14), tostring(123456789012), tostring(2^53), tostring(-123.456e-7)`,
		`string.len(1/3)`,
		`string.upper(1e100)`,
	})
}

func TestDiffFormat(t *testing.T) {
	compareExprs(t, []string{
		`string.format("%d")`,
		`string.format("%")`,
		`string.format("%", 1)`,
		`string.format("%5.2s|%-5d|%05d|%+d|% d|%x|%X|%#x|%#o|%o|%u|%c", "abc", 3, -3, 3, 3, 255, 255, 0, 0, 8, -1, 65)`,
		`string.format("%d %d %d %i", 3.7, -3.7, 1e100, -0.5)`,
		`string.format("%x %u %o %X", -1, -1.5, 1e100, 2^63)`,
		`string.format("%x", 0/0)`,
		`string.format("%d", 0/0)`,
		`string.format("%5.1f|%e|%g|%G|%10.3E|%#g|%g|%g", 3.14159, 12345.678, 0.0001, 1e-10, 123.456, 1, 1e20, 100000)`,
		`string.format("%f %e %g %5.1f %-6g| %05f %+f %E %G", 1/0, -1/0, 0/0, 1/0, -(0/0), 1/0, 1/0, 1/0, 0/0)`,
		`string.format("%123d", 1)`,
		`string.format("%1.123d", 1)`,
		`string.format("%99.99f", 1):len()`,
		`string.format("%------d", 1)`,
		`string.format("%-----d|", 1)`,
		`string.format("%s %s %s %s", 1, 0.1, 1e15, -0.0)`,
		`string.format("%q", 1/3)`,
		`string.format("%q", "a\"b\\c\nd\re\0f")`,
		`string.format("%s", {})`,
		`string.format("%s", nil)`,
		`string.format("%z", 1)`,
		`string.format("%5c|", 0)`,
		`string.format("%-5c|", 65)`,
		`string.format("%s|", "a\0b")`,
		`string.format("%.3s|", "a\0b")`,
		`string.format("%s|", string.rep("a\0", 60)):len()`,
		`string.format("%.1s|", string.rep("ab", 60))`,
		`string.format("%5s|%-5s|%.0s|", "ab", "ab", "ab")`,
		`string.format("%i", "12")`,
		`string.format("%d", "x")`,
		`string.format("%d", "0x10")`,
		`string.format("%.0f %.20f %.3f", 0.5, 0.1, 2.0005)`,
		`string.format("%#.0e %#.0f %#x %#X %#o", 1, 1, 255, 255, 8)`,
		`string.format("%.0d|%.0x|%5.0d|", 0, 0, 0)`,
		`string.format("%c", 256 + 65)`,
		`string.format("%.3d|%08.3d|%-8.3d|%+.2d|% 5d", 5, 5, -5, 5, -5)`,
		`string.format("%08.3f|%-08.3f|%+08.3f|% 08.3f|%08.3e", -1.5, 1.5, 1.5, 1.5, -1.5)`,
		`string.format("%g %g %g %g %g %g", 1e-5, 123456, 1234567, 0.1, 2^63, -0.0)`,
		`string.format("%.3g %.10g %.0g %#.3g %G", 1234.5, 1/3, 0.5, 1, 1e-20)`,
		`string.format("%e %.0e %E", 0, 12345, 1e300)`,
		`string.format("%f", 1e300):len()`,
		`string.format("%05s|%05c", "ab", 65)`,
		`string.format("%%d %s", "x")`,
		`string.format("no directives")`,
		`string.format("%s %s", "a")`,
		`string.format()`,
		`string.format(12)`,
		`string.format("%d", 2^31) .. string.format("%d", -2^63) .. string.format("%d", 2^63)`,
		`string.format("%5.2d|", -3)`,
	})
}

func TestDiffTable(t *testing.T) {
	compareExprs(t, []string{
		`table.concat({1, 2, 3})`,
		`table.concat({1, 2, 3}, ", ")`,
		`table.concat({1, 2, 3}, ", ", 2)`,
		`table.concat({1, 2, 3}, ", ", 2, 3)`,
		`table.concat({1, 2, 3}, ", ", 3, 2)`,
		`table.concat({}, "x")`,
		`table.concat({1, 2.5, "x", 1/3})`,
		`table.concat({1, {}})`,
		`table.concat({1, 2}, "", 1, 3)`,
		`table.concat({1, 2}, {})`,
		`table.concat()`,
		`table.concat("x")`,
		`table.concat({"a", "b"}, 1)`,
		`table.setn({}, 1)`,
		`table.insert({})`,
		`table.insert({}, 1, 2, 3)`,
		`table.insert(nil, 1)`,
		`table.insert({}, "x", 1)`,
		`(function() local t = {1, 2, 3} table.insert(t, 1, 0) return table.concat(t, ",") end)()`,
		`(function() local t = {1, 2, 3} table.insert(t, 4) return table.concat(t, ",") end)()`,
		`(function() local t = {1, 2, 3} table.insert(t, 6, 6) return table.maxn(t) .. "," .. tostring(t[6]) end)()`,
		`(function() local t = {1, 2, 3} table.insert(t, 2, "x") return table.concat(t, ",") end)()`,
		`table.remove({})`,
		`table.remove({1, 2, 3}, 1)`,
		`table.remove({1, 2, 3})`,
		`table.remove({1, 2, 3}, 7)`,
		`table.remove({1, 2, 3}, 0)`,
		`(function() local t = {1, 2, 3} table.remove(t, 2) return table.concat(t, ",") .. #t end)()`,
		`table.remove()`,
		`table.getn({1, 2, 3})`,
		`table.getn()`,
		`table.maxn({1, 2, [10] = 1, [12.5] = 1, x = 3, [-5] = 1})`,
		`table.maxn({})`,
		`(function() local t = {5, 2, 8, 1, 9, 3} table.sort(t) return table.concat(t, ",") end)()`,
		`(function() local t = {5, 2, 8, 1, 9, 3} table.sort(t, function(a, b) return a > b end) return table.concat(t, ",") end)()`,
		`(function() local t = {"b", "a", "c", "B"} table.sort(t) return table.concat(t, ",") end)()`,
		`(function() local t = {} for i = 1, 100 do t[i] = (i * 37) % 101 end table.sort(t) return table.concat(t, ",") end)()`,
		`(function() local t = {} for i = 1, 50 do t[i] = i % 5 end table.sort(t, function(a, b) return a <= b end) return table.concat(t, ",") end)()`,
		`(function() local t = {} for i = 1, 20 do t[i] = i end table.sort(t, function(a, b) return true end) return table.concat(t, ",") end)()`,
		`table.sort({3, 1, "x"})`,
		`table.sort({{}, {}})`,
		`table.sort({3, 2, 1}, 1)`,
		`table.sort()`,
		`table.foreachi({"a", "b"}, function(i, v) if v == "b" then return i end end)`,
		`table.foreachi({"a", "b"}, function(i, v) end)`,
		`table.foreach({x = 1}, function(k, v) return k .. v end)`,
		`table.foreach({}, 1)`,
		`#{unpack({1, 2, 3})}`,
		`unpack({1, 2, 3}, 2)`,
		`unpack({1, 2, 3}, 2, 3)`,
		`unpack({1, 2, 3}, -1, 1)`,
		`unpack({}, 1, 1e10)`,
		`unpack({}, -1e10, 1e10)`,
		`unpack({1, 2}, 3, 2)`,
		`unpack()`,
		`(function() local t = {} for i = 1, 7999 do t[i] = i end return #{unpack(t)} end)()`,
		`(function() local t = {} for i = 1, 8000 do t[i] = i end return #{unpack(t)} end)()`,
		`(function() local t = {} for i = 1, 100000 do t[i] = i end return #{unpack(t)} end)()`,
		`(function() local t = {} for i = 1, 9000 do t[i] = i end return #{unpack(t, 1, 7997)} end)()`,
		`(function() local t = {} for i = 1, 9000 do t[i] = i end return #{unpack(t, 1, 7998)} end)()`,
		`unpack({1, 2, 3}, "2", "3")`,
		`unpack({1, 2, 3}, 1.9, 2.9)`,
		`unpack({1, 2, 3}, "x")`,
		`unpack({n = 2, "a", "b", "c"})`,
		`table.concat({1, 2, 3}, 0)`,
		`table.concat({1, 2, 3}, "", 1.9, 2.9)`,
		`table.concat({[0] = "z", "a"}, "", 0)`,
		`table.concat({"a"}, "", "1", "1")`,
		`(function() local t = {1, 2, 3} table.insert(t, 1.9, "x") return table.concat(t, ",") end)()`,
		`(function() local t = {1, 2, 3} table.insert(t, "2", "x") return table.concat(t, ",") end)()`,
		`(function() local t = {1, 2, 3} table.insert(t, 0, "x") return tostring(t[0]) .. table.concat(t, ",") end)()`,
		`(function() local t = {1, 2, 3} table.insert(t, -2, "x") return tostring(t[-2]) .. table.concat(t, ",") end)()`,
		`(function() local t = {1, 2, 3} return table.remove(t, "1"), table.concat(t, ",") end)()`,
		`(function() local t = {3, 1, 2} table.sort(t, nil) return table.concat(t, ",") end)()`,
		`(function() local t = {"10", "9", "1"} table.sort(t) return table.concat(t, ",") end)()`,
		`(function() local t = {3, 1, 2} table.sort(t, function(a, b) return a > b end) return unpack(t) end)()`,
		`(function() local mt = {__lt = function(a, b) return a.v < b.v end} local t = {} for i = 1, 10 do t[i] = setmetatable({v = (i * 7) % 11}, mt) end table.sort(t) local o = {} for i = 1, 10 do o[i] = t[i].v end return table.concat(o, ",") end)()`,
		`(function() local t = {} for i = 1, 200 do t[i] = (i * 7) % 13 end local n = 0 table.sort(t, function(a, b) n = n + 1 return a < b end) return n, table.concat(t, ",") end)()`,
		`(function() local t = {} for i = 1, 200 do t[i] = (i * 7) % 13 end table.sort(t, function(a, b) return a <= b end) return table.concat(t, ",") end)()`,
		`table.foreachi({1, 2}, 1)`,
		`table.foreachi()`,
		`table.maxn()`,
		`table.getn({n = 5})`,
	})
}

func TestDiffMath(t *testing.T) {
	compareExprs(t, []string{
		`(function() math.randomseed(10) local o = {} for i = 1, 5 do o[#o+1] = math.random() end for i = 1, 5 do o[#o+1] = math.random(10) end for i = 1, 5 do o[#o+1] = math.random(5, 10) end return table.concat(o, ",") end)()`,
		`(function() math.randomseed(-7) return math.random(1000000) end)()`,
		`(function() math.randomseed(2^40) return math.random(), math.random(-2^31, 2^31), math.random(3.9) end)()`,
		`(function() math.randomseed("10") return math.random(100) end)()`,
		`math.random(1, 2, 3)`,
		`math.random(0)`,
		`math.random(5, 1)`,
		`math.random("x")`,
		`math.random(2^31)`,
		`math.randomseed()`,
		`math.floor("3.7"), math.ceil("3.2"), math.abs("-2")`,
		`math.floor()`,
		`math.floor("x")`,
		`math.max()`,
		`math.max(1, 5, 3), math.min(4, 2, 8)`,
		`math.min(1, "x")`,
		`math.max(1, 0/0, 3), math.min(0/0, 1)`,
		`math.frexp(8)`,
		`math.frexp(0)`,
		`math.ldexp(1, 3)`,
		`math.ldexp(1, 1e12)`,
		`math.mod(7, 3), math.fmod(-7, 3), math.fmod(7, 0), math.fmod(5.5, 2)`,
		`math.modf(-3.5)`,
		`math.modf(1/0)`,
		`math.modf(-1/0)`,
		`math.log10(1000), math.pow(2, 10), math.log(0), math.sqrt(-1), math.abs(-0)`,
		`math.log(-1), math.acos(2), math.asin(2)`,
		`math.ceil(-0.5), math.floor(-0.0)`,
		`math.atan2(1, 2), math.deg(1), math.rad(180), math.exp(1), math.cosh(1)`,
		`math.sin(1), math.cos(1), math.tan(1), math.asin(0.5), math.acos(0.5), math.atan(1), math.sinh(1), math.tanh(1)`,
		`math.huge, -math.huge, math.pi`,
		`math.sqrt(2), math.log(10), math.exp(0.5)`,
		`math.pow("2", "3")`,
		`math.pow(2)`,
		`math.fmod(1)`,
	})
}

func TestDiffBase(t *testing.T) {
	compareExprs(t, []string{
		`tonumber("0x10"), tonumber("  10  "), tonumber("1e1"), tonumber("10", 16)`,
		`tonumber("inf"), tonumber("nan"), tonumber("-inf"), tonumber("infinity"), tonumber("0x1p4")`,
		`tonumber("1e"), tonumber(".5"), tonumber("5."), tonumber("0x"), tonumber("  0x1F  ")`,
		`tonumber("1 2"), tonumber(""), tonumber(" "), tonumber("-0x10"), tonumber("+5")`,
		`tonumber("0x7fffffffffffffffff"), tonumber("1e400"), tonumber("-0"), tonumber("10\0")`,
		`tonumber("zz", 36), tonumber("  ff  ", 16), tonumber("8", 8), tonumber("-ff", 16), tonumber("1.5", 10)`,
		`tonumber("", 10), tonumber(15, 16), tonumber("ffffffffffffffffff", 16), tonumber("0x1f", 16), tonumber("101", 2)`,
		`tonumber("1", 1)`,
		`tonumber("1", 37)`,
		`tonumber({}, 16)`,
		`tonumber({}), tonumber(nil), tonumber(true)`,
		`tonumber()`,
		`tonumber("z", "36")`,
		`tostring(1/0), tostring(-1/0), tostring(0/0), tostring(-(0/0))`,
		`tostring(nil), tostring(true), tostring(12), tostring(-0.0), tostring(1e100), tostring(0.1)`,
		`tostring(setmetatable({}, {__tostring = function() return "T" end}))`,
		`tostring()`,
		`tostring(setmetatable({}, {__tostring = function() return 42 end}))`,
		`tonumber("  0x  "), tonumber("0x-1"), tonumber("- 1"), tonumber("1e+"), tonumber("1e+5"), tonumber("1.e5"), tonumber(".e5")`,
		`tonumber("1", 10.5)`,
		`tonumber("1", "x")`,
		`tonumber(nil, 16)`,
		`tonumber("7fffffff", 16), tonumber("-1", 10), tonumber("-1", 16), tonumber("+ff", 16)`,
		`assert(false)`,
		`assert(nil, "msg")`,
		`assert(1, 2, 3)`,
		`assert(false, 42)`,
		`assert(false, {})`,
		`assert()`,
		`error("x", 0)`,
		`error("x")`,
		`error("x", 1)`,
		`error("x", 2)`,
		`error(42)`,
		`error()`,
		`(function() error("deep", 2) end)()`,
		`select("#")`,
		`select("#", 1, nil, 3)`,
		`select(2, "a", "b", "c")`,
		`select(-1, 1, 2, 3)`,
		`select(-4, 1, 2, 3)`,
		`select(0, 1)`,
		`select("x", 1)`,
		`select(5, 1)`,
		`select(2.9, "a", "b", "c")`,
		`select("2", "a", "b")`,
		`select(-2.5, "a", "b", "c")`,
		`select("#x", 1, 2)`,
		`rawequal(1)`,
		`rawequal(1, 1), rawequal({}, {}), rawequal("a", "a")`,
		`rawget({})`,
		`rawget({x = 1}, "x")`,
		`rawget(1, 1)`,
		`rawset({}, nil, 1)`,
		`rawset({}, 0/0, 1)`,
		`rawset({}, 1)`,
		`type()`,
		`type(nil), type(1), type("x"), type({}), type(type), type(true)`,
		`ipairs()`,
		`pairs(nil)`,
		`next({})`,
		`next()`,
		`(function() local t = {} for i, v in ipairs({1, 2, nil, 4}) do t[#t+1] = i .. "=" .. v end return table.concat(t, ",") end)()`,
		`(function() local n = 0 for k, v in pairs({1, 2, x = 3}) do n = n + v end return n end)()`,
		`getmetatable(setmetatable({}, {__metatable = "p"}))`,
		`setmetatable(setmetatable({}, {__metatable = 1}), {})`,
		`setmetatable({}, 1)`,
		`setmetatable(1, {})`,
		`getmetatable("x").__index == string`,
		`getmetatable()`,
		`getmetatable({})`,
		`pcall(error)`,
		`pcall(error, "m")`,
		`xpcall(error, function(m) return "h:" .. tostring(m) end)`,
		`xpcall(function() error("e") end, function(m) return "h:" .. m end)`,
		`collectgarbage("count") > 0, collectgarbage("step"), collectgarbage()`,
		`collectgarbage("bogus")`,
		`collectgarbage("collect")`,
		`gcinfo() > 0`,
		`loadstring("return 1 + 1")()`,
		`type(loadstring("x="))`,
		`type(loadstring("error('e')"))`,
		`pcall(loadstring("error('e')"))`,
		`pcall(loadstring("error('e')", "name"))`,
		`pcall(loadstring("local x = 1\nerror('e')"))`,
		`pcall(loadstring("error('" .. string.rep("x", 80) .. "')"))`,
		`type(load(function() return nil end))`,
		`pcall(load(function() return nil end))`,
		`_VERSION`,
		`coroutine.running()`,
		`coroutine.resume(coroutine.create(function(a) return a + 1 end), 1)`,
		`coroutine.wrap(function() coroutine.yield(1) end)()`,
		`coroutine.resume(coroutine.create(function() error("in") end))`,
		`coroutine.status(coroutine.create(function() end))`,
		`coroutine.resume()`,
		`coroutine.create(1)`,
		`coroutine.yield()`,
		`xpcall()`,
		`xpcall(function() return 1, 2 end, error)`,
		`pcall(function(...) return select("#", ...) end, 1, nil)`,
		`string.format("%s", setmetatable({}, {__tostring = function() return "E" end}))`,
		`rawget(_G, "dofile"), rawget(_G, "loadfile"), rawget(_G, "print"), rawget(_G, "require"), rawget(_G, "module")`,
		`rawget(_G, "getfenv"), rawget(_G, "setfenv"), rawget(_G, "newproxy"), rawget(_G, "debug")`,
		`type(coroutine), type(gcinfo), type(loadstring), type(load), type(unpack), type(_G)`,
	})
}

// luaQuote is s as a Lua string literal.
func luaQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "\\%d", s[i])
	}
	b.WriteByte('"')
	return b.String()
}

// batch compares exprs in chunks that each return the probes of many, one a
// line, so that a few hundred cases cost a few EVALs.
func batch(t *testing.T, exprs []string) {
	t.Helper()
	c := redisClient(t)
	const per = 50
	for len(exprs) > 0 {
		n := min(per, len(exprs))
		var b strings.Builder
		b.WriteString("local function pack(...) return {n = select('#', ...), ...} end\nlocal out = {}\n")
		for _, e := range exprs[:n] {
			fmt.Fprintf(&b, "do local r = pack(pcall(function() return %s end)) local o = {} for i = 1, r.n do o[i] = tostring(r[i]) end out[#out+1] = (table.concat(o, '|'):gsub('\\n', '\\\\n')) end\n", e)
		}
		b.WriteString("return table.concat(out, '\\n')")
		want := evalString(t, c, b.String())
		L := newState()
		got, err := run(context.Background(), L, b.String())
		L.Close()
		if err != nil {
			got = "error: " + err.Error()
		}
		gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
		if len(gl) != n || len(wl) != n {
			t.Errorf("batch of %d: got %d lines, want %d:\n%s\n got %q\nwant %q", n, len(gl), len(wl), b.String(), got, want)
		} else {
			for i := range n {
				if gl[i] != wl[i] {
					t.Errorf("%s\n got %q\nwant %q", exprs[i], gl[i], wl[i])
				}
			}
		}
		exprs = exprs[n:]
	}
}

// TestDiffPatternRandom compares find, match and gsub of random short subjects
// and patterns made of Lua's pattern items.
func TestDiffPatternRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(testmain.Seed(t), 0))
	items := []string{"a", "b", "(", ")", ".", "%a", "%d", "%s", "%W", "[ab]", "[^a]", "[a-c%d]", "*", "+", "-", "?",
		"%1", "%2", "^", "$", "%b()", "%f[a]", "%f[%W]", "()", "%", "[", "]", "%%", "1", " ",
		"%b", "%f", "[]a]", "[^]]", "[a-]", "[%a-c]", "%0", "%z", "(()", "%x", "%P", "[%]"}
	letters := "ab1 ()c"
	var exprs []string
	for range 600 {
		var p, s strings.Builder
		for range 1 + r.IntN(6) {
			p.WriteString(items[r.IntN(len(items))])
		}
		for range r.IntN(10) {
			s.WriteByte(letters[r.IntN(len(letters))])
		}
		sq, pq := luaQuote(s.String()), luaQuote(p.String())
		switch r.IntN(4) {
		case 0:
			exprs = append(exprs, fmt.Sprintf("string.find(%s, %s, %d)", sq, pq, r.IntN(7)-3))
		case 1:
			exprs = append(exprs, fmt.Sprintf("string.match(%s, %s)", sq, pq))
		case 2:
			exprs = append(exprs, fmt.Sprintf("string.gsub(%s, %s, %q, %d)", sq, pq, []string{"<%0>", "%1", "x", "%%"}[r.IntN(4)], r.IntN(4)))
		default:
			exprs = append(exprs, fmt.Sprintf("(function() local o = {} for a, b in string.gmatch(%s, %s) do o[#o+1] = tostring(a) .. ':' .. tostring(b) end return table.concat(o, ',') end)()", sq, pq))
		}
	}
	batch(t, exprs)
}

// TestDiffNumbersRandom compares tostring and string.format's number
// directives on random numbers of every magnitude.
func TestDiffNumbersRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(testmain.Seed(t), 0))
	var exprs []string
	for range 400 {
		var f float64
		switch r.IntN(3) {
		case 0:
			f = float64(r.Int64N(1<<53) - 1<<52)
		case 1:
			f = (r.Float64()*2 - 1) * math.Pow(10, float64(r.IntN(40)-20))
		default:
			f = math.Float64frombits(r.Uint64())
			if math.IsNaN(f) || math.IsInf(f, 0) {
				f = 0.5
			}
		}
		lit := strconv.FormatFloat(f, 'g', -1, 64)
		exprs = append(exprs, fmt.Sprintf("tostring(%s), string.format(%q, %s)", lit, randomDirective(r), lit))
	}
	batch(t, exprs)
}

// TestDiffToNumberRandom compares tonumber of random number-like strings, with
// and without a base.
func TestDiffToNumberRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(testmain.Seed(t), 0))
	const alphabet = "0123456789xXeEpP.+- \t\nabfFinINaz\x00"
	bases := []string{"", ", 10", ", 16", ", 2", ", 36", ", 8"}
	var exprs []string
	for range 400 {
		var b strings.Builder
		for range 1 + r.IntN(8) {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		exprs = append(exprs, fmt.Sprintf("tonumber(%s%s)", luaQuote(b.String()), bases[r.IntN(len(bases))]))
	}
	batch(t, exprs)
}

// randomDirective returns a random number directive of string.format: flags,
// width and precision of up to two digits, and a conversion.
func randomDirective(r *rand.Rand) string {
	var b strings.Builder
	b.WriteByte('%')
	for _, c := range "-+ #0" {
		if r.IntN(4) == 0 {
			b.WriteRune(c)
		}
	}
	if r.IntN(2) == 0 {
		fmt.Fprintf(&b, "%d", r.IntN(25))
	}
	if r.IntN(2) == 0 {
		b.WriteByte('.')
		if r.IntN(4) != 0 {
			fmt.Fprintf(&b, "%d", r.IntN(20))
		}
	}
	b.WriteByte("diouxXcfeEgGsq"[r.IntN(14)])
	return b.String()
}

// TestDiffSortRandom sorts random arrays with strict, non-strict and
// inconsistent order functions and compares the order, the number of calls to
// the function and the error, which show that the quicksort is Lua 5.1's step
// for step.
func TestDiffSortRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(testmain.Seed(t), 0))
	orders := []string{
		"function(a, b) return a < b end",
		"function(a, b) return a <= b end",
		"function(a, b) return a > b end",
		"function(a, b) return a == nil or b == nil or (a * 7 + b * 3) % 5 < 2 end",
		"function(a, b) return true end",
		"nil",
	}
	var exprs []string
	for range 300 {
		var b strings.Builder
		n := r.IntN(70)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d", r.IntN(20))
		}
		order := orders[r.IntN(len(orders))]
		exprs = append(exprs, fmt.Sprintf("(function() local t, n, f = {%s}, 0, %s local g = f and function(a, b) n = n + 1 return f(a, b) end "+
			"local ok, err = pcall(table.sort, t, g) return table.concat(t, ','), n, err end)()", b.String(), order))
	}
	batch(t, exprs)
}
