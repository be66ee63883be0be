package lualib

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// CMsgpack builds the table of Redis's cmsgpack library (lua-cmsgpack 0.4.0):
// pack(...), unpack(s), unpack_one(s [, offset]) and unpack_limit(s, limit
// [, offset]), and its _NAME, _VERSION, _COPYRIGHT and _DESCRIPTION.
//
// pack encodes each argument and concatenates them: a number that is an integer
// of 64 bits as the shortest integer, another as a float when a float holds it
// exactly and as a double otherwise; a table whose keys are exactly 1..n as an
// array, another as a map; a table nested 16 deep, and every value that is not a
// string, number, boolean or table, as nil. Its cost is O(length of the result),
// which is at most [MaxString]. unpack decodes every value of s; unpack_one and
// unpack_limit decode one or up to limit values from the byte offset and return
// first the offset after them, or -1 at the end of s. Unpacking costs O(len(s)):
// every decoded value takes a byte of s at least, and lengths read from s are
// checked against what is left of it before anything is built.
func CMsgpack(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(mpPack))
	t.RawSetString("unpack", L.NewFunction(func(L *lua.LState) int {
		return mpUnpack(L, 0, 0, L.GetTop())
	}))
	t.RawSetString("unpack_one", L.NewFunction(func(L *lua.LState) int {
		offset := optInteger(L, 2, "", 0)
		return mpUnpack(L, 1, offset, 1)
	}))
	t.RawSetString("unpack_limit", L.NewFunction(func(L *lua.LState) int {
		limit := checkInteger(L, 2)
		offset := optInteger(L, 3, "", 0)
		return mpUnpack(L, limit, offset, 1)
	}))
	t.RawSetString("_NAME", lua.LString("cmsgpack"))
	t.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	t.RawSetString("_COPYRIGHT", lua.LString("Copyright (C) 2012, Salvatore Sanfilippo"))
	t.RawSetString("_DESCRIPTION", lua.LString("MessagePack C implementation for Lua"))
	return t
}

// mpMaxNesting is LUACMSGPACK_MAX_NESTING: a table this deep packs as nil.
const mpMaxNesting = 16

type mpEncoder struct {
	L     *lua.LState
	b     []byte
	steps int
}

// mpPack is cmsgpack.pack(...).
func mpPack(L *lua.LState) int {
	nargs := L.GetTop()
	if nargs == 0 {
		argError(L, 0, "", "MessagePack pack needs input.")
	}
	if 2*nargs > maxCStack {
		argError(L, 0, "", "Too many arguments for MessagePack pack.")
	}
	e := &mpEncoder{L: L}
	for i := 1; i <= nargs; i++ {
		e.value(L.Get(i), 0)
	}
	L.Push(lua.LString(e.b))
	return 1
}

// put appends p, raising when the result would pass MaxString.
func (e *mpEncoder) put(p ...byte) {
	checkLen(e.L, int64(len(e.b))+int64(len(p)))
	e.b = append(e.b, p...)
}

// head appends the type byte c and n as a big-endian number of size bytes.
func (e *mpEncoder) head(c byte, n uint64, size int) {
	var buf [9]byte
	buf[0] = c
	for i := size; i > 0; i-- {
		buf[i] = byte(n)
		n >>= 8
	}
	e.put(buf[:1+size]...)
}

func (e *mpEncoder) value(v lua.LValue, level int) {
	if e.steps++; e.steps%interruptEvery == 0 {
		interrupted(e.L)
	}
	switch v := v.(type) {
	case lua.LString:
		e.bytes(string(v))
	case lua.LBool:
		if v {
			e.put(0xc3)
		} else {
			e.put(0xc2)
		}
	case lua.LNumber:
		e.number(float64(v))
	case *lua.LTable:
		if level == mpMaxNesting {
			e.put(0xc0)
			return
		}
		e.table(v, level)
	default:
		e.put(0xc0)
	}
}

func (e *mpEncoder) bytes(s string) {
	n := uint64(len(s))
	switch {
	case n < 32:
		e.head(0xa0|byte(n), 0, 0)
	case n <= 0xff:
		e.head(0xd9, n, 1)
	case n <= 0xffff:
		e.head(0xda, n, 2)
	default:
		e.head(0xdb, n, 4)
	}
	checkLen(e.L, int64(len(e.b))+int64(len(s)))
	e.b = append(e.b, s...)
}

func (e *mpEncoder) number(f float64) {
	if !math.IsInf(f, 0) && float64(toInt64(f)) == f {
		e.integer(toInt64(f))
		return
	}
	if f32 := float32(f); float64(f32) == f {
		e.head(0xca, uint64(math.Float32bits(f32)), 4)
		return
	}
	e.head(0xcb, math.Float64bits(f), 8)
}

func (e *mpEncoder) integer(n int64) {
	switch {
	case n >= 0 && n <= 127:
		e.put(byte(n))
	case n >= 0 && n <= 0xff:
		e.head(0xcc, uint64(n), 1)
	case n >= 0 && n <= 0xffff:
		e.head(0xcd, uint64(n), 2)
	case n >= 0 && n <= 0xffffffff:
		e.head(0xce, uint64(n), 4)
	case n >= 0:
		e.head(0xcf, uint64(n), 8)
	case n >= -32:
		e.put(byte(n))
	case n >= -128:
		e.head(0xd0, uint64(n), 1)
	case n >= -32768:
		e.head(0xd1, uint64(n), 2)
	case n >= -2147483648:
		e.head(0xd2, uint64(n), 4)
	default:
		e.head(0xd3, uint64(n), 8)
	}
}

// count appends an array's or map's header: fix (c), 16-bit (c16) or 32-bit.
func (e *mpEncoder) count(fix, c16 byte, n int) {
	switch {
	case n <= 15:
		e.put(fix | byte(n))
	case n <= 0xffff:
		e.head(c16, uint64(n), 2)
	default:
		e.head(c16+1, uint64(n), 4)
	}
}

func (e *mpEncoder) table(t *lua.LTable, level int) {
	n, array := e.arrayLen(t)
	if array {
		e.count(0x90, 0xdc, n)
		for i := 1; i <= n; i++ {
			e.value(t.RawGet(lua.LNumber(i)), level+1)
		}
		return
	}
	e.count(0x80, 0xde, n)
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		e.value(k, level+1)
		e.value(v, level+1)
	}
}

// arrayLen counts t's keys and reports whether they are exactly 1..n, numbers
// that a C int holds.
func (e *mpEncoder) arrayLen(t *lua.LTable) (int, bool) {
	n, max, array := 0, 0.0, true
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		if n++; n%interruptEvery == 0 {
			interrupted(e.L)
		}
		f, ok := k.(lua.LNumber)
		if !ok || f <= 0 || f > math.MaxInt32 || f != lua.LNumber(math.Trunc(float64(f))) {
			array = false
			continue
		}
		max = math.Max(max, float64(f))
	}
	return n, array && max == float64(n)
}

// mpDecoder reads MessagePack values from s, counting the Lua stack slots Redis's
// decoder would hold, for its "stack overflow" errors.
type mpDecoder struct {
	L     *lua.LState
	s     string
	slots int
	steps int
}

const (
	errMissingBytes = "Missing bytes in input."
	errBadFormat    = "Bad data format in input."
)

// need raises the error of a value that s does not hold n more bytes of.
func (d *mpDecoder) need(n uint64) {
	if uint64(len(d.s)) < n {
		raise(d.L, errMissingBytes)
	}
}

// checkStack is luaL_checkstack(L, 1, msg) on the slots held.
func (d *mpDecoder) checkStack(msg string) {
	if d.slots+1 > maxCStack {
		raise(d.L, "stack overflow (%s)", msg)
	}
}

// uint reads the n-byte big-endian number after the type byte.
func (d *mpDecoder) uint(n int) uint64 {
	d.need(uint64(1 + n))
	var v uint64
	for i := 1; i <= n; i++ {
		v = v<<8 | uint64(d.s[i])
	}
	return v
}

func (d *mpDecoder) consume(n uint64) { d.s = d.s[n:] }

// value decodes one value; it holds one more slot when it returns.
func (d *mpDecoder) value() lua.LValue {
	d.need(1)
	d.checkStack("too many return values at once; use unpack_one or unpack_limit instead.")
	if d.steps++; d.steps%interruptEvery == 0 {
		interrupted(d.L)
	}
	c := d.s[0]
	var v lua.LValue
	switch c {
	case 0xcc:
		v = lua.LNumber(d.uint(1))
		d.consume(2)
	case 0xd0:
		v = lua.LNumber(int8(d.uint(1)))
		d.consume(2)
	case 0xcd:
		v = lua.LNumber(d.uint(2))
		d.consume(3)
	case 0xd1:
		v = lua.LNumber(int16(d.uint(2)))
		d.consume(3)
	case 0xce:
		v = lua.LNumber(d.uint(4))
		d.consume(5)
	case 0xd2:
		v = lua.LNumber(int32(d.uint(4)))
		d.consume(5)
	case 0xcf, 0xd3:
		v = lua.LNumber(int64(d.uint(8)))
		d.consume(9)
	case 0xc0:
		v = lua.LNil
		d.consume(1)
	case 0xc3, 0xc2:
		v = lua.LBool(c == 0xc3)
		d.consume(1)
	case 0xca:
		v = lua.LNumber(math.Float32frombits(uint32(d.uint(4))))
		d.consume(5)
	case 0xcb:
		v = lua.LNumber(math.Float64frombits(d.uint(8)))
		d.consume(9)
	case 0xd9:
		v = d.str(1)
	case 0xda:
		v = d.str(2)
	case 0xdb:
		v = d.str(4)
	case 0xdc, 0xdd, 0xde, 0xdf:
		size := 2 // the 16-bit forms have even type bytes, the 32-bit odd ones
		if c&1 == 1 {
			size = 4
		}
		n := d.uint(size)
		d.consume(uint64(1 + size))
		if c < 0xde {
			return d.array(n)
		}
		return d.hash(n)
	default:
		switch {
		case c&0x80 == 0:
			v = lua.LNumber(c)
			d.consume(1)
		case c&0xe0 == 0xe0:
			v = lua.LNumber(int8(c))
			d.consume(1)
		case c&0xe0 == 0xa0:
			n := uint64(c & 0x1f)
			d.need(1 + n)
			v = lua.LString(d.s[1 : 1+n])
			d.consume(1 + n)
		case c&0xf0 == 0x90:
			d.consume(1)
			return d.array(uint64(c & 0xf))
		case c&0xf0 == 0x80:
			d.consume(1)
			return d.hash(uint64(c & 0xf))
		default:
			raise(d.L, errBadFormat)
		}
	}
	d.slots++
	return v
}

// str decodes a string whose length takes size bytes after the type byte.
func (d *mpDecoder) str(size int) lua.LValue {
	n := d.uint(size)
	d.consume(uint64(1 + size))
	d.need(n)
	v := lua.LString(d.s[:n])
	d.consume(n)
	return v
}

// array decodes n values into a table indexed from 1. The table grows with the
// values read, each of which takes a byte of input at least.
func (d *mpDecoder) array(n uint64) lua.LValue {
	t := d.L.NewTable()
	d.slots++
	d.checkStack("in function mp_decode_to_lua_array")
	for i := uint64(1); i <= n; i++ {
		d.slots++ // the index
		v := d.value()
		d.slots -= 2
		t.RawSet(lua.LNumber(i), v)
	}
	return t
}

// hash decodes n key-value pairs into a table.
func (d *mpDecoder) hash(n uint64) lua.LValue {
	t := d.L.NewTable()
	d.slots++
	for range n {
		k := d.value()
		v := d.value()
		d.slots -= 2
		setField(d.L, t, k, v)
	}
	return t
}

// setField is lua_settable's raw part: the errors of a nil or NaN key, and a nil
// value removing the key.
func setField(L *lua.LState, t *lua.LTable, k, v lua.LValue) {
	switch k := k.(type) {
	case *lua.LNilType:
		L.Error(lua.LString("table index is nil"), 0)
	case lua.LNumber:
		if math.IsNaN(float64(k)) {
			L.Error(lua.LString("table index is NaN"), 0)
		}
	}
	t.RawSet(k, v)
}

// mpUnpack decodes up to limit values (every value when limit and offset are 0)
// from the byte offset of argument 1; slots is how many stack slots the function
// holds before it pushes its results.
func mpUnpack(L *lua.LState, limit, offset int64, slots int) int {
	s := checkString(L, 1, "")
	all := limit == 0 && offset == 0
	switch {
	case offset < 0 || limit < 0:
		raise(L, "Invalid request to unpack with offset of %d and limit of %d.", int32(offset), int32(len(s)))
	case offset > int64(len(s)):
		raise(L, "Start offset %d greater than input length %d.", int32(offset), int32(len(s)))
	}
	if all {
		limit = math.MaxInt32
	}
	d := &mpDecoder{L: L, s: s[offset:], slots: slots}
	var res []lua.LValue
	for cnt := int64(0); len(d.s) > 0 && cnt < limit; cnt++ {
		res = append(res, d.value())
	}
	if !all {
		d.checkStack("in function mp_unpack_full")
		next := int64(len(s) - len(d.s))
		if len(d.s) == 0 {
			next = -1
		}
		L.Push(lua.LNumber(next))
	}
	for _, v := range res {
		L.Push(v)
	}
	if all {
		return len(res)
	}
	return len(res) + 1
}
