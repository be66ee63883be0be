package lualib

import (
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// CJSON builds the table of Redis's cjson library (Redis's lua-cjson 2.1.0):
// encode, decode, null, the settings encode_sparse_array, encode_max_depth,
// decode_max_depth, encode_number_precision, encode_keep_buffer,
// encode_invalid_numbers and decode_invalid_numbers, new (a table of its own with
// its own settings), _NAME and _VERSION.
//
// encode writes numbers with %.14g, escapes control bytes, '"', '\\', '/' and DEL
// and passes the other bytes through, writes a table whose keys are all positive
// integers as an array (holes as null; raising when it is excessively sparse) and
// any other as an object with number or string keys, and raises once tables nest
// deeper than 1000. Its cost is O(length of the result), which is at most
// [MaxString]; long encodings check the state's context. decode reads JSON
// (and, by default, hexadecimal numbers, Infinity and NaN as strtod does) into
// tables, with null as cjson.null and arrays nested at most 1000 deep; invalid
// UTF-8 passes through, \u escapes become UTF-8. Its cost is O(len(s)).
func CJSON(L *lua.LState) *lua.LTable {
	return newCJSON(L, L.NewUserData())
}

// cjsonConfig is the settings of one cjson table.
type cjsonConfig struct {
	sparseConvert  bool
	sparseRatio    int32
	sparseSafe     int32
	encodeMaxDepth int32
	decodeMaxDepth int32
	encodeInvalid  int // 0 off, 1 on, 2 null
	precision      int32
	keepBuffer     bool
	decodeInvalid  bool
}

func newCJSON(L *lua.LState, null *lua.LUserData) *lua.LTable {
	cfg := &cjsonConfig{
		sparseRatio:    2,
		sparseSafe:     10,
		encodeMaxDepth: 1000,
		decodeMaxDepth: 1000,
		precision:      14,
		keepBuffer:     true,
		decodeInvalid:  true,
	}
	t := L.NewTable()
	set := func(name string, f lua.LGFunction) { t.RawSetString(name, L.NewFunction(f)) }
	set("encode", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			argError(L, 1, "", "expected 1 argument")
		}
		e := &jsonEncoder{L: L, cfg: cfg, null: null, slots: 1}
		e.value(L.Get(1), 0)
		L.Push(lua.LString(e.b))
		return 1
	})
	set("decode", func(L *lua.LState) int {
		if L.GetTop() != 1 {
			argError(L, 1, "", "expected 1 argument")
		}
		L.Push(jsonDecode(L, cfg, null, checkString(L, 1, "")))
		return 1
	})
	set("encode_sparse_array", func(L *lua.LState) int {
		cfgArgs(L, 3)
		boolOption(L, 1, &cfg.sparseConvert)
		intOption(L, 2, &cfg.sparseRatio, 0, math.MaxInt32)
		intOption(L, 3, &cfg.sparseSafe, 0, math.MaxInt32)
		return 3
	})
	set("encode_max_depth", func(L *lua.LState) int {
		cfgArgs(L, 1)
		return intOption(L, 1, &cfg.encodeMaxDepth, 1, math.MaxInt32)
	})
	set("decode_max_depth", func(L *lua.LState) int {
		cfgArgs(L, 1)
		return intOption(L, 1, &cfg.decodeMaxDepth, 1, math.MaxInt32)
	})
	set("encode_number_precision", func(L *lua.LState) int {
		cfgArgs(L, 1)
		return intOption(L, 1, &cfg.precision, 1, 14)
	})
	set("encode_keep_buffer", func(L *lua.LState) int {
		cfgArgs(L, 1)
		return boolOption(L, 1, &cfg.keepBuffer)
	})
	set("encode_invalid_numbers", func(L *lua.LState) int {
		cfgArgs(L, 1)
		return enumOption(L, 1, &cfg.encodeInvalid, "off", "on", "null")
	})
	set("decode_invalid_numbers", func(L *lua.LState) int {
		cfgArgs(L, 1)
		return boolOption(L, 1, &cfg.decodeInvalid)
	})
	set("new", func(L *lua.LState) int {
		L.Push(newCJSON(L, null))
		return 1
	})
	t.RawSetString("null", null)
	t.RawSetString("_NAME", lua.LString("cjson"))
	t.RawSetString("_VERSION", lua.LString("2.1.0"))
	return t
}

// cfgArgs raises the error of a setting function called with more than n
// arguments, and pads them with nils to n, so that the settings it pushes
// follow its arguments.
func cfgArgs(L *lua.LState, n int) {
	if L.GetTop() > n {
		argError(L, n+1, "", "found too many arguments")
	}
	L.SetTop(n)
}

// intOption sets *v from argument n unless it is nil, checking that the number
// (truncated to a C int) is within [lo, hi], and pushes the setting.
func intOption(L *lua.LState, n int, v *int32, lo, hi int32) int {
	if L.Get(n) != lua.LNil {
		x := int32(checkInteger(L, n))
		if x < lo || x > hi {
			// Redis's lua-cjson names argument 1 whichever argument it is.
			argError(L, 1, "", fmt.Sprintf("expected integer between %d and %d", lo, hi))
		}
		*v = x
	}
	L.Push(lua.LNumber(*v))
	return 1
}

// boolOption is enumOption for an on/off setting.
func boolOption(L *lua.LState, n int, v *bool) int {
	x := 0
	if *v {
		x = 1
	}
	enumOption(L, n, &x, "off", "on")
	*v = x == 1
	return 1
}

// enumOption sets *v from argument n unless it is nil: a boolean (false 0,
// true 1) or one of the option names. It pushes the setting: a boolean when it
// is 0 or 1, the name otherwise.
func enumOption(L *lua.LState, n int, v *int, names ...string) int {
	switch a := L.Get(n).(type) {
	case *lua.LNilType:
	case lua.LBool:
		*v = 0
		if a {
			*v = 1
		}
	default:
		name := checkString(L, n, "")
		i := 0
		for i < len(names) && names[i] != name {
			i++
		}
		if i == len(names) {
			argError(L, n, "", "invalid option '"+name+"'")
		}
		*v = i
	}
	if *v <= 1 {
		L.Push(lua.LBool(*v == 1))
	} else {
		L.Push(lua.LString(names[*v]))
	}
	return 1
}

// jsonEncoder builds one encode's result. slots counts the Lua stack slots
// Redis's encoder would hold, whose limit ends deep nesting as the depth
// setting does.
type jsonEncoder struct {
	L     *lua.LState
	cfg   *cjsonConfig
	null  *lua.LUserData
	b     []byte
	slots int
	steps int
}

// put appends s, raising when the result would pass MaxString.
func (e *jsonEncoder) put(s string) {
	checkLen(e.L, int64(len(e.b))+int64(len(s)))
	e.b = append(e.b, s...)
}

// fail raises "Cannot serialise <type of v>: reason".
func (e *jsonEncoder) fail(v lua.LValue, reason string) {
	raise(e.L, "Cannot serialise %s: %s", v.Type().String(), reason)
}

func (e *jsonEncoder) step() {
	if e.steps++; e.steps%interruptEvery == 0 {
		interrupted(e.L)
	}
}

func (e *jsonEncoder) value(v lua.LValue, depth int32) {
	e.step()
	switch v := v.(type) {
	case lua.LString:
		e.str(string(v))
	case lua.LNumber:
		e.number(v)
	case lua.LBool:
		if v {
			e.put("true")
		} else {
			e.put("false")
		}
	case *lua.LTable:
		depth++
		if depth > e.cfg.encodeMaxDepth || e.slots+3 > maxCStack {
			raise(e.L, "Cannot serialise, excessive nesting (%d)", depth)
		}
		if n := e.arrayLen(v); n > 0 {
			e.array(v, n, depth)
		} else {
			e.object(v, depth)
		}
	case *lua.LNilType:
		e.put("null")
	default:
		if v == e.null {
			e.put("null")
			return
		}
		e.fail(v, "type not supported")
	}
}

// arrayLen is the length of t as an array: its largest key when every key is a
// positive integer, or -1 (an object). The largest key is kept in a C int, as
// Redis keeps it: one past 2^31 wraps.
func (e *jsonEncoder) arrayLen(t *lua.LTable) int32 {
	var max, items int32
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		e.step()
		f, ok := k.(lua.LNumber)
		if !ok || f < 1 || math.Floor(float64(f)) != float64(f) {
			return -1
		}
		if float64(f) > float64(max) {
			max = toInt32(float64(f))
		}
		items++
	}
	c := e.cfg
	if c.sparseRatio > 0 && max > items*c.sparseRatio && max > c.sparseSafe {
		if !c.sparseConvert {
			e.fail(t, "excessively sparse array")
		}
		return -1
	}
	return max
}

// toInt32 converts f to a C int as x86-64 does: truncated, math.MinInt32 when
// out of range.
func toInt32(f float64) int32 {
	if f > -0x1p31-1 && f < 0x1p31 {
		return int32(f)
	}
	return math.MinInt32
}

func (e *jsonEncoder) array(t *lua.LTable, n, depth int32) {
	e.put("[")
	e.slots++
	for i := int32(1); i <= n; i++ {
		if i > 1 {
			e.put(",")
		}
		e.value(t.RawGet(lua.LNumber(i)), depth)
	}
	e.slots--
	e.put("]")
}

func (e *jsonEncoder) object(t *lua.LTable, depth int32) {
	e.put("{")
	e.slots += 2
	comma := false
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		if comma {
			e.put(",")
		}
		comma = true
		switch k := k.(type) {
		case lua.LNumber:
			e.put(`"`)
			e.number(k)
			e.put(`":`)
		case lua.LString:
			e.str(string(k))
			e.put(":")
		default:
			e.fail(k, "table key must be a number or string")
		}
		e.value(v, depth)
	}
	e.slots -= 2
	e.put("}")
}

func (e *jsonEncoder) number(n lua.LNumber) {
	f := float64(n)
	bad := math.IsInf(f, 0) || math.IsNaN(f)
	switch {
	case bad && e.cfg.encodeInvalid == 0:
		e.fail(n, "must not be NaN or Inf")
	case bad && e.cfg.encodeInvalid == 2:
		e.put("null")
	case math.IsNaN(f):
		e.put("nan")
	default:
		e.put(formatNumber(f, int(e.cfg.precision)))
	}
}

// jsonEscape is how encode writes each byte: "" for the byte itself.
var jsonEscape = func() (t [256]string) {
	for c := range 0x20 {
		t[c] = fmt.Sprintf(`\u%04x`, c)
	}
	t['\b'], t['\t'], t['\n'], t['\f'], t['\r'] = `\b`, `\t`, `\n`, `\f`, `\r`
	t['"'], t['\\'], t['/'], t[0x7f] = `\"`, `\\`, `\/`, `\u007f`
	return t
}()

func (e *jsonEncoder) str(s string) {
	n := int64(len(s)) + 2
	for i := range len(s) {
		if esc := jsonEscape[s[i]]; esc != "" {
			n += int64(len(esc)) - 1
		}
	}
	checkLen(e.L, int64(len(e.b))+n)
	e.b = append(e.b, '"')
	start := 0
	for i := range len(s) {
		if esc := jsonEscape[s[i]]; esc != "" {
			e.b = append(e.b, s[start:i]...)
			e.b = append(e.b, esc...)
			start = i + 1
		}
	}
	e.b = append(e.b, s[start:]...)
	e.b = append(e.b, '"')
}

// jsonToken is a token's type, as Redis's decoder names them in its errors.
type jsonToken int

const (
	tObjBegin jsonToken = iota
	tObjEnd
	tArrBegin
	tArrEnd
	tString
	tNumber
	tBoolean
	tNull
	tColon
	tComma
	tEnd
	tError
)

var jsonTokenNames = [...]string{
	"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING",
	"T_NUMBER", "T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END", "T_ERROR",
}

// jsonSingle is the type (plus one) of each one-byte token, 0 for the others.
var jsonSingle = [256]jsonToken{
	'{': tObjBegin + 1, '}': tObjEnd + 1, '[': tArrBegin + 1, ']': tArrEnd + 1,
	',': tComma + 1, ':': tColon + 1,
}

// token is one token: its type, where it starts (or where its error is), and
// its value.
type token struct {
	typ   jsonToken
	index int
	str   string  // a string's value, or an error's description
	num   float64 // a number's value; 1 for true, 0 for false
}

// jsonDecoder reads one JSON text; past its end it reads NULs, as Redis's reads
// its C string's terminator.
type jsonDecoder struct {
	L     *lua.LState
	cfg   *cjsonConfig
	null  *lua.LUserData
	s     string
	p     int
	depth int32
	slots int
	steps int
	tmp   []byte
}

func jsonDecode(L *lua.LState, cfg *cjsonConfig, null *lua.LUserData, s string) lua.LValue {
	if len(s) >= 2 && (s[0] == 0 || s[1] == 0) {
		raise(L, "JSON parser does not support UTF-16 or UTF-32")
	}
	d := &jsonDecoder{L: L, cfg: cfg, null: null, s: s, slots: 1}
	v := d.value(d.next())
	if t := d.next(); t.typ != tEnd {
		d.fail("the end", t)
	}
	return v
}

func (d *jsonDecoder) at(i int) byte {
	if i < len(d.s) {
		return d.s[i]
	}
	return 0
}

// fail raises "Expected <what> but found <token> at character <n>".
func (d *jsonDecoder) fail(what string, t token) {
	found := jsonTokenNames[t.typ]
	if t.typ == tError {
		found = t.str
	}
	raise(d.L, "Expected %s but found %s at character %d", what, found, t.index+1)
}

func (d *jsonDecoder) errorToken(msg string) token {
	return token{typ: tError, index: d.p, str: msg}
}

func (d *jsonDecoder) next() token {
	if d.steps++; d.steps%interruptEvery == 0 {
		interrupted(d.L)
	}
	for c := d.at(d.p); c == ' ' || c == '\t' || c == '\n' || c == '\r'; c = d.at(d.p) {
		d.p++
	}
	c := d.at(d.p)
	if t := jsonSingle[c]; t != 0 {
		d.p++
		return token{typ: t - 1, index: d.p - 1}
	}
	rest := d.s[min(d.p, len(d.s)):]
	switch {
	case c == 0:
		return token{typ: tEnd, index: d.p}
	case c == '"':
		return d.string()
	case c == '-' || isDigit(c):
		if !d.cfg.decodeInvalid && d.invalidNumber() {
			return d.errorToken("invalid number")
		}
		return d.number()
	case strings.HasPrefix(rest, "true"):
		d.p += 4
		return token{typ: tBoolean, index: d.p - 4, num: 1}
	case strings.HasPrefix(rest, "false"):
		d.p += 5
		return token{typ: tBoolean, index: d.p - 5}
	case strings.HasPrefix(rest, "null"):
		d.p += 4
		return token{typ: tNull, index: d.p - 4}
	case strings.IndexByte("iInN+", c) >= 0 && d.cfg.decodeInvalid && d.invalidNumber():
		return d.number()
	}
	return d.errorToken("invalid token")
}

// invalidNumber reports whether the number at p is one strict JSON forbids
// (a leading '+' or zero, hexadecimal, Infinity, NaN) but strtod reads.
func (d *jsonDecoder) invalidNumber() bool {
	p := d.p
	if d.at(p) == '+' {
		return true
	}
	if d.at(p) == '-' {
		p++
	}
	if c := d.at(p); c == '0' {
		c2 := d.at(p + 1)
		return c2|0x20 == 'x' || isDigit(c2)
	} else if c <= '9' {
		return false
	}
	rest := d.s[p:]
	return hasPrefixFold(rest, "inf") || hasPrefixFold(rest, "nan")
}

func (d *jsonDecoder) number() token {
	f, n := strtod(d.s[d.p:])
	if n == 0 {
		return d.errorToken("invalid number")
	}
	t := token{typ: tNumber, index: d.p, num: f}
	d.p += n
	return t
}

// string reads the string token at p: a slice of the input when it has no
// escapes.
func (d *jsonDecoder) string() token {
	start := d.p
	d.p++
	d.tmp = d.tmp[:0]
	plain := true
	for {
		c := d.at(d.p)
		switch {
		case c == '"':
			d.p++
			if plain {
				return token{typ: tString, index: start, str: d.s[start+1 : d.p-1]}
			}
			return token{typ: tString, index: start, str: string(d.tmp)}
		case c == 0:
			return d.errorToken("unexpected end of string")
		case c != '\\':
			d.tmp = append(d.tmp, c)
			d.p++
			continue
		}
		plain = false
		switch e := d.at(d.p + 1); e {
		case '"', '\\', '/':
			d.tmp = append(d.tmp, e)
		case 'b':
			d.tmp = append(d.tmp, '\b')
		case 't':
			d.tmp = append(d.tmp, '\t')
		case 'n':
			d.tmp = append(d.tmp, '\n')
		case 'f':
			d.tmp = append(d.tmp, '\f')
		case 'r':
			d.tmp = append(d.tmp, '\r')
		case 'u':
			if !d.unicode() {
				return d.errorToken("invalid unicode escape code")
			}
			continue
		default:
			return d.errorToken("invalid escape code")
		}
		d.p += 2
	}
}

// hex4 reads four hexadecimal digits at i, -1 when they are not.
func (d *jsonDecoder) hex4(i int) int {
	v := 0
	for j := range 4 {
		c := d.at(i + j)
		switch {
		case isDigit(c):
			v = v<<4 | int(c-'0')
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			v = v<<4 | int(c|0x20-'a'+10)
		default:
			return -1
		}
	}
	return v
}

// unicode appends the UTF-8 of the \u escape at p (a surrogate pair takes two)
// and moves past it; false when the escape is invalid.
func (d *jsonDecoder) unicode() bool {
	cp := d.hex4(d.p + 2)
	if cp < 0 {
		return false
	}
	n := 6
	if cp&0xf800 == 0xd800 {
		if cp&0x400 != 0 || d.at(d.p+6) != '\\' || d.at(d.p+7) != 'u' {
			return false
		}
		low := d.hex4(d.p + 8)
		if low < 0 || low&0xfc00 != 0xdc00 {
			return false
		}
		cp = ((cp&0x3ff)<<10 | low&0x3ff) + 0x10000
		n = 12
	}
	switch {
	case cp <= 0x7f:
		d.tmp = append(d.tmp, byte(cp))
	case cp <= 0x7ff:
		d.tmp = append(d.tmp, byte(cp>>6|0xc0), byte(cp&0x3f|0x80))
	case cp <= 0xffff:
		d.tmp = append(d.tmp, byte(cp>>12|0xe0), byte(cp>>6&0x3f|0x80), byte(cp&0x3f|0x80))
	default:
		d.tmp = append(d.tmp, byte(cp>>18|0xf0), byte(cp>>12&0x3f|0x80), byte(cp>>6&0x3f|0x80), byte(cp&0x3f|0x80))
	}
	d.p += n
	return true
}

// descend enters an object or array that holds slots stack slots, raising
// past the depth setting or the stack's limit.
func (d *jsonDecoder) descend(slots int) {
	d.depth++
	if d.depth > d.cfg.decodeMaxDepth || d.slots+slots > maxCStack {
		raise(d.L, "Found too many nested data structures (%d) at character %d", d.depth, d.p)
	}
}

func (d *jsonDecoder) value(t token) lua.LValue {
	switch t.typ {
	case tString:
		return lua.LString(t.str)
	case tNumber:
		return lua.LNumber(t.num)
	case tBoolean:
		return lua.LBool(t.num == 1)
	case tNull:
		return d.null
	case tObjBegin:
		return d.object()
	case tArrBegin:
		return d.array()
	}
	d.fail("value", t)
	return nil
}

func (d *jsonDecoder) object() lua.LValue {
	d.descend(3)
	tb := d.L.NewTable()
	d.slots += 2 // the table and a key
	defer func() { d.slots -= 2; d.depth-- }()
	t := d.next()
	if t.typ == tObjEnd {
		return tb
	}
	for {
		if t.typ != tString {
			d.fail("object key string", t)
		}
		key := t.str
		if t = d.next(); t.typ != tColon {
			d.fail("colon", t)
		}
		tb.RawSetString(key, d.value(d.next()))
		t = d.next()
		if t.typ == tObjEnd {
			return tb
		}
		if t.typ != tComma {
			d.fail("comma or object end", t)
		}
		t = d.next()
	}
}

func (d *jsonDecoder) array() lua.LValue {
	d.descend(2)
	tb := d.L.NewTable()
	d.slots++
	defer func() { d.slots--; d.depth-- }()
	t := d.next()
	if t.typ == tArrEnd {
		return tb
	}
	for i := 1; ; i++ {
		tb.RawSetInt(i, d.value(t))
		t = d.next()
		if t.typ == tArrEnd {
			return tb
		}
		if t.typ != tComma {
			d.fail("comma or array end", t)
		}
		t = d.next()
	}
}
