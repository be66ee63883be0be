package lualib

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// valueGen makes random Lua values: numbers of every width the libraries
// distinguish, strings of any bytes, booleans, arrays and maps nested up to a
// depth.
type valueGen struct {
	r *rand.Rand
	L *lua.LState
	// exact keeps numbers to those %.14g writes exactly (cjson's round trip).
	exact bool
	// oneKey makes every map a single key (Lua 5.1 and gopher-lua order a
	// table's keys differently, so the differential test has one at most).
	oneKey bool
}

func (g *valueGen) value(depth int) lua.LValue {
	switch k := g.r.IntN(8); {
	case depth > 0 && k < 2:
		return g.array(depth - 1)
	case depth > 0 && k < 3:
		return g.hash(depth - 1)
	case k < 5:
		return lua.LString(g.str())
	case k < 6:
		return lua.LBool(g.r.IntN(2) == 0)
	}
	return g.number()
}

func (g *valueGen) number() lua.LNumber {
	switch g.r.IntN(6) {
	case 0:
		return lua.LNumber(g.r.IntN(401) - 200)
	case 1:
		return lua.LNumber(g.r.Int64N(1<<33) - 1<<32)
	case 2:
		e := g.r.IntN(46)
		return lua.LNumber(math.Ldexp(1, e) + float64(g.r.IntN(3)-1))
	case 3:
		return lua.LNumber(float64(g.r.IntN(4001)-2000) / 8)
	case 4:
		if !g.exact {
			return lua.LNumber(float32(g.r.NormFloat64() * 1e6))
		}
	}
	if g.exact {
		return lua.LNumber(g.r.Int64N(1e14))
	}
	for {
		if f := math.Float64frombits(g.r.Uint64()); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return lua.LNumber(f)
		}
	}
}

func (g *valueGen) str() string {
	n := g.r.IntN(12)
	switch g.r.IntN(10) {
	case 0:
		n = 28 + g.r.IntN(8)
	case 1:
		n = 250 + g.r.IntN(12)
	}
	b := make([]byte, n)
	for i := range b {
		if g.r.IntN(3) == 0 {
			b[i] = byte(g.r.IntN(256))
		} else {
			b[i] = byte('a' + g.r.IntN(26))
		}
	}
	return string(b)
}

func (g *valueGen) array(depth int) *lua.LTable {
	n := g.r.IntN(6)
	if g.r.IntN(8) == 0 {
		n = 14 + g.r.IntN(4)
	}
	t := g.L.NewTable()
	for i := 1; i <= n; i++ {
		t.RawSetInt(i, g.value(depth))
	}
	return t
}

func (g *valueGen) hash(depth int) *lua.LTable {
	n := 1
	if !g.oneKey {
		n = 1 + g.r.IntN(5)
	}
	t := g.L.NewTable()
	for range n {
		t.RawSetString(g.str(), g.value(depth))
	}
	return t
}

// literal writes v as Lua source.
func literal(v lua.LValue) string {
	switch v := v.(type) {
	case lua.LNumber:
		return "(" + strconv.FormatFloat(float64(v), 'g', 17, 64) + ")"
	case lua.LString:
		var b strings.Builder
		b.WriteByte('"')
		for i := range len(v) {
			fmt.Fprintf(&b, "\\%d", v[i])
		}
		b.WriteByte('"')
		return b.String()
	case lua.LBool:
		return strconv.FormatBool(bool(v))
	case *lua.LTable:
		var parts []string
		for k, e := v.Next(lua.LNil); k != lua.LNil; k, e = v.Next(k) {
			parts = append(parts, "["+literal(k)+"]="+literal(e))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return "nil"
}

// equalValues reports whether a and b are equal, tables by their contents.
func equalValues(a, b lua.LValue) bool {
	ta, ok := a.(*lua.LTable)
	if !ok {
		return a == b
	}
	tb, ok := b.(*lua.LTable)
	if !ok {
		return false
	}
	n := 0
	for k, v := ta.Next(lua.LNil); k != lua.LNil; k, v = ta.Next(k) {
		if !equalValues(v, tb.RawGet(k)) {
			return false
		}
		n++
	}
	for k, _ := tb.Next(lua.LNil); k != lua.LNil; k, _ = tb.Next(k) {
		n--
	}
	return n == 0
}

// TestRoundTrip encodes random nested values with cjson and cmsgpack and
// decodes them back, and packs random struct formats and unpacks them: what
// comes back must equal what went in.
func TestRoundTrip(t *testing.T) {
	r := newRand(t)
	L := newState()
	defer L.Close()
	cj, mp := CJSON(L), CMsgpack(L)
	for i := range 300 {
		g := &valueGen{r: r, L: L, exact: i%2 == 0}
		v := g.value(4)
		if g.exact {
			enc, err := callLib(t, L, cj, "encode", v)
			if err != nil {
				t.Fatalf("cjson.encode(%s): %v", literal(v), err)
			}
			dec, err := callLib(t, L, cj, "decode", enc[0])
			if err != nil || !equalValues(dec[0], v) {
				t.Fatalf("cjson.decode(cjson.encode(%s)) = %s, %v; want the value back (encoded %q)", literal(v), literal(dec[0]), err, enc[0])
			}
		}
		w := g.value(4)
		enc, err := callLib(t, L, mp, "pack", v, w)
		if err != nil {
			t.Fatalf("cmsgpack.pack(%s, %s): %v", literal(v), literal(w), err)
		}
		dec, err := callLib(t, L, mp, "unpack", enc[0])
		if err != nil || len(dec) != 2 || !equalValues(dec[0], v) || !equalValues(dec[1], w) {
			t.Fatalf("cmsgpack.unpack(cmsgpack.pack(%s, %s)) = %v, %v; want the values back", literal(v), literal(w), dec, err)
		}
	}
	st := Struct(L)
	for range 300 {
		format, args := randomStruct(r)
		packed, err := callLib(t, L, st, "pack", append([]lua.LValue{lua.LString(format)}, args...)...)
		if err != nil {
			t.Fatalf("struct.pack(%q, %v): %v", format, args, err)
		}
		got, err := callLib(t, L, st, "unpack", lua.LString(format), packed[0])
		if err != nil {
			t.Fatalf("struct.unpack(%q, %q): %v", format, packed[0], err)
		}
		want := append(args, lua.LNumber(len(packed[0].(lua.LString))+1))
		if len(got) != len(want) {
			t.Fatalf("struct.unpack(%q, struct.pack(%q, %v)) = %v; want %v", format, format, args, got, want)
		}
		for i := range got {
			if !equalValues(got[i], want[i]) {
				t.Fatalf("struct.unpack(%q, struct.pack(%q, %v)) = %v; want %v", format, format, args, got, want)
			}
		}
	}
}

// randomStruct returns a random struct format and arguments that pack into it
// and unpack back equal.
func randomStruct(r *rand.Rand) (string, []lua.LValue) {
	var b strings.Builder
	var args []lua.LValue
	for range 1 + r.IntN(8) {
		switch r.IntN(12) {
		case 0:
			b.WriteString([]string{"<", ">", "!", "!4", "!2", " "}[r.IntN(6)])
		case 1:
			b.WriteString("b")
			args = append(args, lua.LNumber(r.IntN(256)-128))
		case 2:
			b.WriteString("B")
			args = append(args, lua.LNumber(r.IntN(256)))
		case 3:
			b.WriteString("h")
			args = append(args, lua.LNumber(r.IntN(65536)-32768))
		case 4:
			b.WriteString("H")
			args = append(args, lua.LNumber(r.IntN(65536)))
		case 5:
			b.WriteString("i")
			args = append(args, lua.LNumber(r.Int64N(1<<32)-1<<31))
		case 6:
			n := 1 + r.IntN(7)
			fmt.Fprintf(&b, "I%d", n)
			args = append(args, lua.LNumber(r.Int64N(1<<(8*n-1))))
		case 7:
			b.WriteString("l")
			args = append(args, lua.LNumber(r.Int64N(1<<53)-1<<52))
		case 8:
			b.WriteString("f")
			args = append(args, lua.LNumber(float32(r.NormFloat64())))
		case 9:
			b.WriteString("d")
			args = append(args, lua.LNumber(r.NormFloat64()*1e10))
		case 10:
			s := strings.Repeat("z", r.IntN(5))
			fmt.Fprintf(&b, "c%d", len(s))
			if len(s) == 0 {
				b.WriteString("1") // c0 would take the string's own length
				s = "y"
			}
			args = append(args, lua.LString(s))
		default:
			b.WriteString("s")
			args = append(args, lua.LString(strings.Repeat("q", r.IntN(5))))
		}
	}
	return b.String(), args
}

// TestRandomRedis runs random values through the four libraries on both sides:
// cjson.encode and cmsgpack.pack of each (and of what their decoders make of
// it), and struct.pack of random formats, compared byte for byte with Redis.
func TestRandomRedis(t *testing.T) {
	c := redisClient(t)
	r := newRand(t)
	L := newState()
	defer L.Close()
	for i := range 150 {
		g := &valueGen{r: r, L: L, oneKey: true}
		lit := literal(g.value(3))
		format, args := randomStruct(r)
		lits := make([]string, len(args))
		for j, a := range args {
			lits[j] = literal(a)
		}
		packArgs := strings.Join(append([]string{strconv.Quote(format)}, lits...), ",")
		for _, script := range []string{
			"return cjson.encode(" + lit + ")",
			"return cjson.encode(cjson.decode(cjson.encode(" + lit + ")))",
			"return cmsgpack.pack(" + lit + ")",
			"return cmsgpack.pack(cmsgpack.unpack(cmsgpack.pack(" + lit + ")))",
			"local s = struct.pack(" + packArgs + ") return s .. '|' .. struct.pack(" + strconv.Quote(format) + ", struct.unpack(" + strconv.Quote(format) + ", s))",
		} {
			want := evalRedis(t, c, script)
			if got := runLocal(L, script); got != want {
				t.Fatalf("value %d: script %q\ngot  %s\nwant %s (redis)", i, script, got, want)
			}
		}
	}
}

// canonScript defines run(f, ...): f's results, or its error, as one string
// that does not depend on the order of table keys.
const canonScript = `local function canon(v)
  if v == cjson.null then return 'null' end
  local t = type(v)
  if t == 'table' then
    local ks = {}
    for k in pairs(v) do ks[#ks + 1] = k end
    table.sort(ks, function(a, b) return canon(a) < canon(b) end)
    local out = {}
    for i = 1, #ks do out[i] = canon(ks[i]) .. '=' .. canon(v[ks[i]]) end
    return '{' .. table.concat(out, ',') .. '}'
  elseif t == 'number' then return 'n' .. D(v)
  elseif t == 'string' then return 's' .. #v .. ':' .. v
  end
  return tostring(v)
end
local function pack(...) return {n = select('#', ...), ...} end
local function run(f, ...)
  local r = pack(pcall(f, ...))
  if not r[1] then return 'error: ' .. tostring(r[2]) end
  local out = {}
  for i = 2, r.n do out[#out + 1] = canon(r[i]) end
  return table.concat(out, ' ')
end
`

// mutate makes up to three random edits to s: a byte replaced, removed or
// inserted, from alphabet or any byte.
func mutate(r *rand.Rand, s, alphabet string) string {
	b := []byte(s)
	for range r.IntN(4) {
		c := alphabet[r.IntN(len(alphabet))]
		if r.IntN(4) == 0 {
			c = byte(r.IntN(256))
		}
		i := r.IntN(len(b) + 1)
		switch {
		case r.IntN(3) == 0 && i < len(b):
			b[i] = c
		case r.IntN(2) == 0 && i < len(b):
			b = append(b[:i], b[i+1:]...)
		default:
			b = append(b[:i], append([]byte{c}, b[i:]...)...)
		}
	}
	return string(b)
}

// TestDecodeRandomRedis decodes random and mutated inputs with cjson.decode,
// cmsgpack's unpack functions and struct.unpack on both sides: the values, or
// the errors, must be the same.
func TestDecodeRandomRedis(t *testing.T) {
	c := redisClient(t)
	r := newRand(t)
	L := newState()
	defer L.Close()
	cj, mp := CJSON(L), CMsgpack(L)
	jsonTokens := []string{"{", "}", "[", "]", ",", ":", `"abc"`, `"\u00e9"`, `"\ud83d\ude00"`, `"\ud800"`, `"\q"`, "1", "-0.5e3", "0x1F",
		"Infinity", "-inf", "nan", "true", "false", "null", "tru", `"`, `\`, "\x00", "+1", "007", "1e", "-", ".5", "\xff"}
	check := func(script string, args ...string) {
		t.Helper()
		want := evalRedis(t, c, canonScript+script, args...)
		if got := runLocal(L, canonScript+script, args...); got != want {
			t.Fatalf("script %q, ARGV %q\ngot  %s\nwant %s (redis)", script, args, got, want)
		}
	}
	for range 300 {
		var in string
		if r.IntN(2) == 0 {
			var b strings.Builder
			for range 1 + r.IntN(8) {
				b.WriteString(jsonTokens[r.IntN(len(jsonTokens))])
				b.WriteString([]string{"", "", " ", "\n\t"}[r.IntN(4)])
			}
			in = b.String()
		} else {
			g := &valueGen{r: r, L: L, exact: true}
			enc, err := callLib(t, L, cj, "encode", g.value(3))
			if err != nil {
				t.Fatalf("cjson.encode: %v", err)
			}
			in = mutate(r, string(enc[0].(lua.LString)), `{}[],:"\u0123456789eE+-.xnatrufl `)
		}
		check("return run(cjson.decode, ARGV[1])", in)
	}
	for range 300 {
		g := &valueGen{r: r, L: L}
		enc, err := callLib(t, L, mp, "pack", g.value(3), g.value(1))
		if err != nil {
			t.Fatalf("cmsgpack.pack: %v", err)
		}
		in := mutate(r, string(enc[0].(lua.LString)), "\x00\x01\x7f\x80\x90\x91\xa1\xc0\xc1\xca\xcb\xcc\xd0\xd9\xdc\xdd\xde\xdf\xe0\xff")
		off := strconv.Itoa(r.IntN(len(in)+3) - 1)
		check("return run(cmsgpack.unpack, ARGV[1])", in)
		check("return run(cmsgpack.unpack_one, ARGV[1], tonumber(ARGV[2]))", in, off)
		check("return run(cmsgpack.unpack_limit, ARGV[1], tonumber(ARGV[3]), tonumber(ARGV[2]))", in, off, strconv.Itoa(r.IntN(4)))
	}
	const structChars = "bBhHlLTiIfdxcs<>!0123456789 c0"
	for range 300 {
		f := make([]byte, 1+r.IntN(8))
		for i := range f {
			f[i] = structChars[r.IntN(len(structChars))]
		}
		data := make([]byte, r.IntN(24))
		for i := range data {
			data[i] = byte(r.IntN(256))
			if r.IntN(3) == 0 {
				data[i] = byte(r.IntN(8))
			}
		}
		check("return run(struct.unpack, ARGV[1], ARGV[2], tonumber(ARGV[3]))", string(f), string(data), strconv.Itoa(r.IntN(12)-2))
		check("return run(struct.size, ARGV[1])", string(f))
	}
}
