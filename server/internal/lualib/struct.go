package lualib

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// Struct builds the table of Redis's struct library (Roberto Ierusalimschy's
// struct 0.2): pack(fmt, ...), unpack(fmt, data [, pos]) and size(fmt), with
// Redis's x86-64 sizes (short 2, int 4, long and size_t 8, alignment at most 8)
// and little-endian default.
//
// pack costs O(len(fmt) + the length of the result), which is at most
// [MaxString]; unpack O(len(fmt) + the length of the strings it returns), all
// slices of data; size O(len(fmt)).
func Struct(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	t.RawSetString("pack", L.NewFunction(structPack))
	t.RawSetString("unpack", L.NewFunction(structUnpack))
	t.RawSetString("size", L.NewFunction(structSize))
	return t
}

const (
	// structMaxIntSize is the widest integer option, i32 and I32.
	structMaxIntSize = 32
	// structMaxAlign is the alignment "!" sets without a number: a double's.
	structMaxAlign = 8
)

// structFormat walks a format string as the struct library does. The format
// ends at a NUL, as a C string.
type structFormat struct {
	L      *lua.LState
	fmt    string
	i      int
	little bool
	align  uint64
}

func newStructFormat(L *lua.LState) *structFormat {
	f := checkString(L, 1, "")
	if i := strings.IndexByte(f, 0); i >= 0 {
		f = f[:i]
	}
	return &structFormat{L: L, fmt: f, little: true, align: 1}
}

// next returns the next option and its size, false at the end of the format.
func (f *structFormat) next() (byte, uint64, bool) {
	if f.i >= len(f.fmt) {
		return 0, 0, false
	}
	opt := f.fmt[f.i]
	f.i++
	return opt, f.optSize(opt), true
}

// num reads the number that follows an option, df when there is none.
func (f *structFormat) num(df int) int {
	if f.i >= len(f.fmt) || !isDigit(f.fmt[f.i]) {
		return df
	}
	a := 0
	for f.i < len(f.fmt) && isDigit(f.fmt[f.i]) {
		d := int(f.fmt[f.i] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			raise(f.L, "integral size overflow")
		}
		a = a*10 + d
		f.i++
	}
	return a
}

func (f *structFormat) optSize(opt byte) uint64 {
	switch opt {
	case 'B', 'b', 'x':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T', 'd':
		return 8
	case 'f':
		return 4
	case 'c':
		return uint64(f.num(1))
	case 'i', 'I':
		sz := f.num(4)
		if sz > structMaxIntSize {
			raise(f.L, "integral size %d is larger than limit of %d", sz, structMaxIntSize)
		}
		return uint64(sz)
	}
	return 0
}

// toAlign is how many bytes align an item of size at offset n.
func (f *structFormat) toAlign(n uint64, opt byte, size uint64) uint64 {
	if size == 0 || opt == 'c' {
		return 0
	}
	size = min(size, f.align)
	return (size - (n & (size - 1))) & (size - 1)
}

// control applies an option that is not an item: space, endianness, alignment.
func (f *structFormat) control(opt byte) {
	switch opt {
	case ' ':
	case '>':
		f.little = false
	case '<':
		f.little = true
	case '!':
		a := f.num(structMaxAlign)
		if a <= 0 || a&(a-1) != 0 {
			raise(f.L, "alignment %d is not a power of 2", a)
		}
		f.align = uint64(a)
	default:
		argError(f.L, 1, "", fmt.Sprintf("invalid format option '%c'", rune(opt)))
	}
}

// byteOrder is an order that reads and appends.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

func (f *structFormat) order() byteOrder {
	if f.little {
		return binary.LittleEndian
	}
	return binary.BigEndian
}

func isIntOption(opt byte) bool {
	return strings.IndexByte("bBhHlLTiI", opt) >= 0
}

// structPack is struct.pack(fmt, ...).
func structPack(L *lua.LState) int {
	f := newStructFormat(L)
	// Redis's pack pushes a nil after its arguments, so a missing one reads as
	// nil rather than as no value.
	L.Push(lua.LNil)
	arg := 2
	var b []byte
	grow := func(n uint64) {
		checkLen(L, int64(len(b))+int64(min(n, MaxString+1)))
	}
	for {
		opt, size, ok := f.next()
		if !ok {
			break
		}
		pad := f.toAlign(uint64(len(b)), opt, size)
		grow(pad)
		b = append(b, make([]byte, pad)...)
		switch {
		case isIntOption(opt):
			n := checkNumber(L, arg, "")
			arg++
			v := toUint64(n)
			if n < 0 {
				v = uint64(toInt64(n))
			}
			var buf [structMaxIntSize]byte
			for i := range size {
				j := i
				if !f.little {
					j = size - 1 - i
				}
				buf[j] = byte(v)
				v >>= 8
			}
			b = append(b, buf[:size]...)
		case opt == 'x':
			b = append(b, 0)
		case opt == 'f':
			n := float32(checkNumber(L, arg, ""))
			arg++
			b = f.order().AppendUint32(b, math.Float32bits(n))
		case opt == 'd':
			n := checkNumber(L, arg, "")
			arg++
			b = f.order().AppendUint64(b, math.Float64bits(n))
		case opt == 'c' || opt == 's':
			s := checkString(L, arg, "")
			arg++
			if size == 0 {
				size = uint64(len(s))
			}
			if uint64(len(s)) < size {
				argError(L, arg, "", "string too short")
			}
			grow(size)
			b = append(b, s[:size]...)
			if opt == 's' {
				grow(1)
				b = append(b, 0)
			}
		default:
			f.control(opt)
		}
	}
	L.Push(lua.LString(b))
	return 1
}

// structUnpack is struct.unpack(fmt, data [, pos]): the values, then the
// position after them.
func structUnpack(L *lua.LState) int {
	f := newStructFormat(L)
	data := checkString(L, 2, "")
	ld := uint64(len(data))
	pos := uint64(optInteger(L, 3, "", 1))
	if pos == 0 {
		argError(L, 3, "", "offset must be 1 or greater")
	}
	pos--
	nargs := L.GetTop()
	var res []lua.LValue
	for {
		opt, size, ok := f.next()
		if !ok {
			break
		}
		pos += f.toAlign(pos, opt, size)
		if size > ld || pos > ld-size {
			argError(L, 2, "", "data string too short")
		}
		if nargs+len(res)+2 > maxCStack {
			raise(L, "stack overflow (too many results)")
		}
		switch {
		case isIntOption(opt):
			res = append(res, lua.LNumber(structInteger(data[pos:pos+size], f.little, opt >= 'a')))
		case opt == 'x':
		case opt == 'f':
			res = append(res, lua.LNumber(math.Float32frombits(f.order().Uint32([]byte(data[pos:pos+4])))))
		case opt == 'd':
			res = append(res, lua.LNumber(math.Float64frombits(f.order().Uint64([]byte(data[pos:pos+8])))))
		case opt == 'c':
			if size == 0 {
				var n float64
				if len(res) > 0 {
					n, ok = toNumber(res[len(res)-1])
				}
				if len(res) == 0 || !ok {
					raise(L, "format 'c0' needs a previous size")
				}
				size = toUint64(n)
				res = res[:len(res)-1]
				if size > ld || pos > ld-size {
					argError(L, 2, "", "data string too short")
				}
			}
			res = append(res, lua.LString(data[pos:pos+size]))
		case opt == 's':
			e := strings.IndexByte(data[pos:], 0)
			if e < 0 {
				raise(L, "unfinished string in data")
			}
			res = append(res, lua.LString(data[pos:pos+uint64(e)]))
			size = uint64(e) + 1
		default:
			f.control(opt)
		}
		pos += size
	}
	for _, v := range res {
		L.Push(v)
	}
	L.Push(lua.LNumber(int64(pos + 1)))
	return len(res) + 1
}

// structInteger reads an integer of len(b) bytes as the struct library does: a
// 64-bit accumulator (wider integers keep their low 8 bytes), sign-extended from
// the top bit of the width, the shift taken modulo 64 as x86-64 takes it.
func structInteger(b string, little, signed bool) float64 {
	var l uint64
	for i := range len(b) {
		j := i
		if little {
			j = len(b) - 1 - i
		}
		l = l<<8 | uint64(b[j])
	}
	if !signed {
		return float64(l)
	}
	mask := ^uint64(0) << ((len(b)*8 - 1) & 63)
	if l&mask != 0 {
		l |= mask
	}
	return float64(int64(l))
}

// structSize is struct.size(fmt).
func structSize(L *lua.LState) int {
	f := newStructFormat(L)
	var pos uint64
	for {
		opt, size, ok := f.next()
		if !ok {
			break
		}
		pos += f.toAlign(pos, opt, size)
		switch {
		case opt == 's':
			argError(L, 1, "", "option 's' has no fixed size")
		case opt == 'c' && size == 0:
			argError(L, 1, "", "option 'c0' has no fixed size")
		}
		if !isAlnum(opt) {
			f.control(opt)
		}
		pos += size
	}
	L.Push(lua.LNumber(int64(pos)))
	return 1
}
