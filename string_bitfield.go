package zlite

import (
	"errors"
	"math"
	"strings"
)

// BITFIELD and BITFIELD_RO: integers of 1 to 64 bits at any bit offset of a string,
// read, written and incremented with Redis's overflow rules.

var (
	// ErrBitfieldType is BITFIELD's error for a type other than i1..i64 or u1..u63.
	//lint:ignore ST1005 Redis's reply, byte for byte, ends with a full stop.
	ErrBitfieldType = errors.New("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.")
	// ErrBitfieldOverflow is BITFIELD's error for an OVERFLOW other than WRAP, SAT
	// or FAIL.
	ErrBitfieldOverflow = errors.New("ERR Invalid OVERFLOW type specified")
	// ErrBitfieldRO is BITFIELD_RO's error for a subcommand other than GET.
	ErrBitfieldRO = errors.New("ERR BITFIELD_RO only supports the GET subcommand")
)

// bitfieldOp is one GET, SET or INCRBY of a BITFIELD command.
type bitfieldOp struct {
	op       byte // 'g', 's' or 'i'
	signed   bool
	bits     uint
	offset   uint64
	value    int64
	overflow byte // 'w'rap, 's'at or 'f'ail, as set by the OVERFLOW before it
}

// parseBitfield parses BITFIELD's subcommands (the words after the key) in Redis's
// order of checks, and returns the operations and the highest bit a write reaches
// (-1 when there is no write).
func parseBitfield(args []string) ([]bitfieldOp, int64, error) {
	var ops []bitfieldOp
	overflow := byte('w')
	highest := int64(-1)
	for j := 0; j < len(args); j++ {
		rem := len(args) - j - 1
		var op byte
		switch sub := args[j]; {
		case strings.EqualFold(sub, "get") && rem >= 2:
			op = 'g'
		case strings.EqualFold(sub, "set") && rem >= 3:
			op = 's'
		case strings.EqualFold(sub, "incrby") && rem >= 3:
			op = 'i'
		case strings.EqualFold(sub, "overflow") && rem >= 1:
			j++
			switch w := args[j]; {
			case strings.EqualFold(w, "wrap"):
				overflow = 'w'
			case strings.EqualFold(w, "sat"):
				overflow = 's'
			case strings.EqualFold(w, "fail"):
				overflow = 'f'
			default:
				return nil, 0, ErrBitfieldOverflow
			}
			continue
		default:
			return nil, 0, ErrSyntax
		}
		o := bitfieldOp{op: op, overflow: overflow}
		t := args[j+1]
		if t == "" || t[0] != 'i' && t[0] != 'u' {
			return nil, 0, ErrBitfieldType
		}
		o.signed = t[0] == 'i'
		n, err := parseInt(t[1:])
		if err != nil || n < 1 || o.signed && n > 64 || !o.signed && n > 63 {
			return nil, 0, ErrBitfieldType
		}
		o.bits = uint(n)
		off := args[j+2]
		hash := strings.HasPrefix(off, "#")
		if hash {
			off = off[1:]
		}
		at, err := parseInt(off)
		if err != nil {
			return nil, 0, ErrBitOffset
		}
		if hash {
			at *= n // wraps as Redis's long long multiplication does
		}
		if at < 0 || at>>3 >= maxStringLen {
			return nil, 0, ErrBitOffset
		}
		o.offset = uint64(at)
		if op != 'g' {
			highest = max(highest, at+n-1)
			if o.value, err = parseInt(args[j+3]); err != nil {
				return nil, 0, err
			}
		}
		ops = append(ops, o)
		j += 3
		if op == 'g' {
			j--
		}
	}
	return ops, highest, nil
}

// getBits returns the bits-wide unsigned integer at bit offset of b, most
// significant bit first; bits past the end of b read as 0.
func getBits(b []byte, offset uint64, bits uint) uint64 {
	var v uint64
	for i := range uint64(bits) {
		at := offset + i
		v <<= 1
		if at>>3 < uint64(len(b)) && b[at>>3]&(0x80>>(at&7)) != 0 {
			v |= 1
		}
	}
	return v
}

// setBits writes the low bits of v at bit offset of b, which holds them.
func setBits(b []byte, offset uint64, bits uint, v uint64) {
	for i := range uint64(bits) {
		at := offset + i
		mask := byte(0x80 >> (at & 7))
		if v>>(uint64(bits)-1-i)&1 != 0 {
			b[at>>3] |= mask
		} else {
			b[at>>3] &^= mask
		}
	}
}

// signExtend reads the low bits of v as a two's-complement integer.
func signExtend(v uint64, bits uint) int64 {
	if bits < 64 && v&(1<<(bits-1)) != 0 {
		v |= math.MaxUint64 << bits
	}
	return int64(v)
}

// unsignedOverflow is Redis's checkUnsignedBitfieldOverflow: whether value+incr
// leaves bits unsigned bits, and the value to store then (WRAP or SAT).
func unsignedOverflow(value uint64, incr int64, bits uint, overflow byte) (bool, uint64) {
	maxv := uint64(1)<<bits - 1
	maxIncr, minIncr := int64(maxv-value), -int64(value)
	switch {
	case value > maxv || incr > 0 && incr > maxIncr:
		if overflow == 's' {
			return true, maxv
		}
	case incr < 0 && incr < minIncr:
		if overflow == 's' {
			return true, 0
		}
	default:
		return false, 0
	}
	return true, (value + uint64(incr)) &^ (math.MaxUint64 << bits)
}

// signedOverflow is Redis's checkSignedBitfieldOverflow for bits-wide signed
// integers.
func signedOverflow(value, incr int64, bits uint, overflow byte) (bool, int64) {
	maxv := int64(math.MaxInt64)
	if bits < 64 {
		maxv = 1<<(bits-1) - 1
	}
	minv := -maxv - 1
	maxIncr, minIncr := int64(uint64(maxv)-uint64(value)), minv-value // wrap as in Redis
	switch {
	case value > maxv || bits != 64 && incr > maxIncr || value >= 0 && incr > 0 && incr > maxIncr:
		if overflow == 's' {
			return true, maxv
		}
	case value < minv || bits != 64 && incr < minIncr || value < 0 && incr < 0 && incr < minIncr:
		if overflow == 's' {
			return true, minv
		}
	default:
		return false, 0
	}
	c := uint64(value) + uint64(incr)
	return true, signExtend(c, bits)
}

// bitfield runs BITFIELD (readOnly: BITFIELD_RO) on key with the parsed words:
// one reply per GET, SET and INCRBY, ok false for a write that OVERFLOW FAIL
// refused. words are logged when the string changed.
func (tx *Tx) bitfield(key string, words []string, readOnly bool) ([]int64, []bool, error) {
	ops, highest, err := parseBitfield(words)
	if err != nil {
		return nil, nil, err
	}
	var s *stringValue
	dirty := false
	if highest < 0 {
		if s, err = tx.stringRead(key); err != nil {
			return nil, nil, err
		}
	} else {
		if readOnly {
			return nil, nil, ErrBitfieldRO
		}
		if s, err = tx.stringChange(key); err != nil {
			return nil, nil, err
		}
		size := int(highest>>3) + 1
		switch {
		case s == nil:
			tx.putString(key, make([]byte, size), encRaw, false)
			s, _ = stringOf(tx.value(key))
			dirty = true
		case size > len(s.b):
			tx.sh(key).touch(key)
			s.b = append(s.b, make([]byte, size-len(s.b))...)
			dirty = true
		default:
			tx.sh(key).cow(key) // the encoding becomes raw even if no bit changes
		}
		s.enc = encRaw
	}
	out, ok := make([]int64, len(ops)), make([]bool, len(ops))
	var b []byte
	if s != nil {
		b = s.b
	}
	changed := dirty
	for i, o := range ops {
		old := getBits(b, o.offset, o.bits)
		if o.op == 'g' {
			out[i], ok[i] = int64(old), true
			if o.signed {
				out[i] = signExtend(old, o.bits)
			}
			continue
		}
		var store uint64
		var over bool
		if o.signed {
			oldv, v, incr := signExtend(old, o.bits), o.value, int64(0)
			if o.op == 'i' {
				v, incr = oldv, o.value
			}
			var wrapped int64
			over, wrapped = signedOverflow(v, incr, o.bits, o.overflow)
			nv := v + incr
			if over {
				nv = wrapped
			}
			out[i] = oldv
			if o.op == 'i' {
				out[i] = nv
			}
			store = uint64(nv)
		} else {
			v, incr := uint64(o.value), int64(0)
			if o.op == 'i' {
				v, incr = old, o.value
			}
			var wrapped uint64
			over, wrapped = unsignedOverflow(v, incr, o.bits, o.overflow)
			nv := v + uint64(incr)
			if over {
				nv = wrapped
			}
			out[i] = int64(old)
			if o.op == 'i' {
				out[i] = int64(nv)
			}
			store = nv
		}
		if over && o.overflow == 'f' {
			continue
		}
		ok[i] = true
		differs := store&(math.MaxUint64>>(64-o.bits)) != old
		if differs && !changed {
			tx.sh(key).touch(key) // the first change: as Redis, not before
		}
		setBits(b, o.offset, o.bits, store)
		changed = changed || differs
	}
	if highest >= 0 {
		tx.settle(key, s)
	}
	if changed {
		tx.notify(EventsString, "setbit", key)
		if d := tx.log(); d != nil {
			d.cmd(words, "bitfield", key)
		}
	}
	return out, ok, nil
}

// BitField is BITFIELD: it runs args (GET type offset, SET type offset value,
// INCRBY type offset increment, OVERFLOW WRAP|SAT|FAIL, as go-redis passes them)
// on the string at key, creating or growing it with zero bytes for a write, and
// returns one integer per GET, SET (the old value) and INCRBY (the new value); ok[i]
// is false where OVERFLOW FAIL refused a write. Types are i1..i64 and u1..u63; an
// offset "#n" counts in units of the type's width. O(number of operations).
//
//zlite:command bitfield key
func (tx *Tx) BitField(key string, args ...string) (values []int64, ok []bool, err error) {
	return tx.bitfield(key, args, false)
}

// BitFieldRO is BITFIELD_RO: [Tx.BitField] with GET operations only
// ([ErrBitfieldRO] otherwise).
//
//zlite:command bitfield_ro key
func (tx *Tx) BitFieldRO(key string, args ...string) ([]int64, error) {
	vs, _, err := tx.bitfield(key, args, true)
	return vs, err
}

func init() {
	register(
		&command{name: "bitfield", arity: -2, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return bitfieldReply(tx.bitfield(a[1], a[2:], false))
		}},
		&command{name: "bitfield_ro", arity: -2, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return bitfieldReply(tx.bitfield(a[1], a[2:], true))
		}},
	)
}

// bitfieldReply is BITFIELD's array reply: an integer per operation, nil where
// OVERFLOW FAIL refused it.
func bitfieldReply(vs []int64, ok []bool, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	out := make([]any, len(vs))
	for i, v := range vs {
		if ok[i] {
			out[i] = v
		}
	}
	return out, nil
}
