package zlite

import (
	"errors"
	"math/bits"
	"strings"
)

// The bit commands on strings: SETBIT, GETBIT, BITCOUNT, BITPOS and BITOP. Bits are numbered from
// the most significant bit of the first byte, as Redis numbers them.

var (
	// ErrBitOffset is the error of a bit offset that is not an integer, is negative
	// or lies past the 512 MB string limit.
	ErrBitOffset = errors.New("ERR bit offset is not an integer or out of range")
	// ErrBitValue is SETBIT's error for a bit that is neither 0 nor 1.
	ErrBitValue = errors.New("ERR bit is not an integer or out of range")
	// ErrBitArg is BITPOS's error for a bit that is neither 0 nor 1.
	//lint:ignore ST1005 Redis's reply, byte for byte, ends with a full stop.
	ErrBitArg = errors.New("ERR The bit argument must be 1 or 0.")
	// ErrBitOpNot is BITOP NOT's error for other than one source key.
	//lint:ignore ST1005 Redis's reply, byte for byte, ends with a full stop.
	ErrBitOpNot = errors.New("ERR BITOP NOT must be called with a single source key.")
)

// parseBitOffset parses a bit offset as Redis's getBitOffsetFromArgument does.
func parseBitOffset(s string) (int64, error) {
	n, err := parseInt(s)
	if err != nil || n < 0 || n>>3 >= maxStringLen {
		return 0, ErrBitOffset
	}
	return n, nil
}

// SetBit is SETBIT: it sets or clears the bit at offset of the string at key
// (creating the key, and growing the string with zero bytes, as needed) and returns
// the bit's old value. Errors: [ErrBitOffset] for a negative offset or one past
// 512 MB, [ErrBitValue] for a value other than 0 or 1. O(1), plus the growth.
//
//zlite:command setbit key
func (tx *Tx) SetBit(key string, offset int64, value int) (int64, error) {
	if offset < 0 || offset>>3 >= maxStringLen {
		return 0, ErrBitOffset
	}
	if value&^1 != 0 {
		return 0, ErrBitValue
	}
	s, err := tx.stringChange(key)
	if err != nil {
		return 0, err
	}
	i := int(offset >> 3)
	mask := byte(1) << (7 - offset&7)
	switch {
	case s == nil:
		tx.putString(key, make([]byte, i+1), encRaw, false)
		s, _ = stringOf(tx.value(key))
	case i >= len(s.b):
		tx.sh(key).touch(key)
		s.b = append(s.b, make([]byte, i+1-len(s.b))...)
	case s.b[i]&mask != 0 == (value == 1):
		// Unchanged: not touched nor logged, as in Redis, which still makes the
		// string raw (a snapshot's copy first: the encoding is in the value).
		if s.enc != encRaw {
			tx.sh(key).cow(key)
			s.enc = encRaw
			tx.settle(key, s)
		}
		return int64(value), nil
	default:
		tx.sh(key).touch(key)
	}
	s.enc = encRaw
	old := int64(0)
	if s.b[i]&mask != 0 {
		old = 1
	}
	if value == 1 {
		s.b[i] |= mask
	} else {
		s.b[i] &^= mask
	}
	tx.settle(key, s)
	tx.notify(EventsString, "setbit", key)
	if d := tx.log(); d != nil {
		d.start(4)
		d.word("setbit")
		d.word(key)
		d.int(offset)
		d.int(int64(value))
	}
	return old, nil
}

// GetBit is GETBIT: the bit at offset of the string at key, 0 past its end or when
// the key does not exist. O(1).
//
//zlite:command getbit key
func (tx *Tx) GetBit(key string, offset int64) (int64, error) {
	if offset < 0 || offset>>3 >= maxStringLen {
		return 0, ErrBitOffset
	}
	b, ok, err := tx.stringView(key)
	if !ok || err != nil {
		return 0, err
	}
	if i := offset >> 3; i < int64(len(b)) && b[i]&(1<<(7-offset&7)) != 0 {
		return 1, nil
	}
	return 0, nil
}

// BitCount is BITCOUNT key start end [BYTE|BIT]: the set bits of the string at key
// from start to end inclusive (negative counts from the end), in bytes or, with bit,
// in bits. O(end-start).
//
//zlite:command bitcount key
func (tx *Tx) BitCount(key string, start, end int64, bit bool) (int64, error) {
	b, ok, err := tx.stringView(key)
	if !ok || err != nil {
		return 0, err
	}
	return bitCount(b, start, end, bit), nil
}

// bitCount is BITCOUNT's count over b, with Redis's range rules.
func bitCount(b []byte, start, end int64, bit bool) int64 {
	if start < 0 && end < 0 && start > end {
		return 0
	}
	total := int64(len(b))
	if bit {
		total <<= 3
	}
	start, end, ok := clampRange(start, end, total)
	if !ok {
		return 0
	}
	var first, last byte // the bits outside the range in its first and last bytes
	if bit {
		first = ^byte(0xff >> (start & 7))
		last = byte(1)<<(7-end&7) - 1
		start, end = start>>3, end>>3
	}
	var n int
	for _, c := range b[start : end+1] {
		n += bits.OnesCount8(c)
	}
	n -= bits.OnesCount8(b[start]&first) + bits.OnesCount8(b[end]&last)
	return int64(n)
}

// cmdBitCount is BITCOUNT key [start end [BYTE|BIT]]: the key is looked up before the
// range is parsed, as in Redis, so a missing key counts 0 whatever the range.
func cmdBitCount(tx *Tx, a []string) (any, error) {
	b, ok, err := tx.stringView(a[1])
	if !ok || err != nil {
		return intReply(0, err)
	}
	switch len(a) {
	case 2:
		return bitCount(b, 0, -1, false), nil
	case 4, 5:
	default:
		return nil, ErrSyntax
	}
	start, end, err := parseStartStop(a)
	if err != nil {
		return nil, err
	}
	bit := false
	if len(a) == 5 {
		switch {
		case strings.EqualFold(a[4], "bit"):
			bit = true
		case !strings.EqualFold(a[4], "byte"):
			if start < 0 && end < 0 && start > end {
				return int64(0), nil
			}
			return nil, ErrSyntax
		}
	}
	return bitCount(b, start, end, bit), nil
}

// BitPos is BITPOS key bit [start [end]] (in bytes): the position of the first bit
// equal to bit in the string at key. Not found, it is -1 for bit 1, and for bit 0
// the position just past the string, or -1 when end is given. A missing key is a
// string of zero bytes: -1 for bit 1, 0 for bit 0. Errors: [ErrBitArg] for a bit
// other than 0 or 1, ErrSyntax for more than two positions. O(end-start).
//
//zlite:command bitpos key
func (tx *Tx) BitPos(key string, bit int64, pos ...int64) (int64, error) {
	if bit&^1 != 0 {
		return 0, ErrBitArg
	}
	if len(pos) > 2 {
		return 0, ErrSyntax
	}
	b, ok, err := tx.stringView(key)
	if err != nil {
		return 0, err
	}
	if !ok {
		return -bit, nil
	}
	r := bitRange{whole: len(pos) == 0}
	if len(pos) > 0 {
		r.start = pos[0]
	}
	if r.endGiven = len(pos) == 2; r.endGiven {
		r.end = pos[1]
	}
	return bitPos(b, byte(bit), r), nil
}

// bitRange is BITPOS's range: none (whole), a start, or a start and an end, in
// bytes or (bit) in bits.
type bitRange struct {
	start, end      int64
	whole, endGiven bool
	bit             bool
}

// bitPos is BITPOS over b with Redis's range rules.
func bitPos(b []byte, want byte, r bitRange) int64 {
	n := int64(len(b))
	start, end := int64(0), n*8-1 // in bits
	if !r.whole {
		total := n
		if r.bit {
			total <<= 3
		}
		end = total - 1
		if r.endGiven {
			end = r.end
		}
		var ok bool
		if start, end, ok = clampRange(r.start, end, total); !ok {
			return -1
		}
		if !r.bit {
			start, end = start*8, end*8+7
		}
	}
	if start > end {
		return -1
	}
	for i := start; i <= end; i++ {
		if i&7 == 0 && i+7 <= end {
			if c := b[i>>3]; (want == 1 && c == 0) || (want == 0 && c == 0xff) {
				i += 7
				continue
			}
		}
		if b[i>>3]>>(7-i&7)&1 == want {
			return i
		}
	}
	if want == 1 || r.endGiven {
		return -1
	}
	return (end>>3 + 1) * 8
}

// cmdBitPos is BITPOS key bit [start [end [BYTE|BIT]]]: the bit is checked first,
// then the key, then the range, as in Redis.
func cmdBitPos(tx *Tx, a []string) (any, error) {
	bit, err := parseInt(a[2])
	if err != nil {
		return nil, err
	}
	if bit&^1 != 0 {
		return nil, ErrBitArg
	}
	b, ok, err := tx.stringView(a[1])
	if err != nil {
		return nil, err
	}
	if !ok {
		return -bit, nil
	}
	r := bitRange{whole: len(a) == 3}
	switch len(a) {
	case 3:
		return bitPos(b, byte(bit), r), nil
	case 4, 5, 6:
	default:
		return nil, ErrSyntax
	}
	if r.start, err = parseInt(a[3]); err != nil {
		return nil, err
	}
	if len(a) == 6 {
		switch {
		case strings.EqualFold(a[5], "bit"):
			r.bit = true
		case !strings.EqualFold(a[5], "byte"):
			return nil, ErrSyntax
		}
	}
	if len(a) >= 5 {
		if r.end, err = parseInt(a[4]); err != nil {
			return nil, err
		}
		r.endGiven = true
	}
	return bitPos(b, byte(bit), r), nil
}

// bitOp is BITOP op dest keys...: it stores the bitwise op of the strings at keys
// (missing keys are empty strings, shorter strings padded with zero bytes) at dest,
// or deletes dest when every source is empty, and returns dest's length.
func (tx *Tx) bitOp(op, dest string, keys []string) (int64, error) {
	var f func(a, b byte) byte
	switch {
	case strings.EqualFold(op, "and"):
		f = func(a, b byte) byte { return a & b }
	case strings.EqualFold(op, "or"):
		f = func(a, b byte) byte { return a | b }
	case strings.EqualFold(op, "xor"):
		f = func(a, b byte) byte { return a ^ b }
	case strings.EqualFold(op, "not"):
		if len(keys) != 1 {
			return 0, ErrBitOpNot
		}
	default:
		return 0, ErrSyntax
	}
	if len(keys) == 0 {
		return 0, errArity("bitop")
	}
	if err := tx.writeErr(); err != nil {
		return 0, err
	}
	srcs := make([][]byte, len(keys))
	size := 0
	for i, k := range keys {
		b, _, err := tx.stringView(k)
		if err != nil {
			return 0, err
		}
		srcs[i] = b
		size = max(size, len(b))
	}
	d := tx.log()
	if size == 0 {
		if tx.sh(dest).del(dest) {
			tx.notify(EventsGeneric, "del", dest)
			if d != nil {
				d.cmd(nil, "del", dest)
			}
		}
		return 0, nil
	}
	r := make([]byte, size)
	copy(r, srcs[0])
	if f == nil {
		for i := range r {
			r[i] = ^r[i]
		}
	}
	for _, src := range srcs[1:] {
		for i := range r {
			var c byte
			if i < len(src) {
				c = src[i]
			}
			r[i] = f(r[i], c)
		}
	}
	tx.putString(dest, r, encRaw, false)
	tx.notify(EventsString, "set", dest)
	if d != nil {
		d.cmd(nil, "set", dest, string(r))
	}
	return int64(size), nil
}

// BitOpAnd is BITOP AND destKey keys...: the bitwise AND of the strings at keys
// (shorter ones padded with zero bytes), stored at destKey; it returns its length.
// O(total length).
//
//zlite:command bitop destKey keys...
func (tx *Tx) BitOpAnd(destKey string, keys ...string) (int64, error) {
	return tx.bitOp("and", destKey, keys)
}

// BitOpOr is BITOP OR: as [Tx.BitOpAnd], with OR.
//
//zlite:command bitop destKey keys...
func (tx *Tx) BitOpOr(destKey string, keys ...string) (int64, error) {
	return tx.bitOp("or", destKey, keys)
}

// BitOpXor is BITOP XOR: as [Tx.BitOpAnd], with XOR.
//
//zlite:command bitop destKey keys...
func (tx *Tx) BitOpXor(destKey string, keys ...string) (int64, error) {
	return tx.bitOp("xor", destKey, keys)
}

// BitOpNot is BITOP NOT destKey key: the bitwise NOT of the string at key, stored at
// destKey; it returns its length. O(length).
//
//zlite:command bitop destKey key
func (tx *Tx) BitOpNot(destKey, key string) (int64, error) {
	return tx.bitOp("not", destKey, []string{key})
}

func init() {
	register(
		&command{name: "bitpos", arity: -3, reply: replyBulk, run: cmdBitPos},
		&command{name: "bitop", arity: -4, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.bitOp(a[1], a[2], a[3:]))
		}},
		&command{name: "setbit", arity: 4, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			off, err := parseBitOffset(a[2])
			if err != nil {
				return nil, err
			}
			v, err := parseInt(a[3])
			if err != nil || v&^1 != 0 {
				return nil, ErrBitValue
			}
			return intReply(tx.SetBit(a[1], off, int(v)))
		}},
		&command{name: "getbit", arity: 3, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			off, err := parseBitOffset(a[2])
			if err != nil {
				return nil, err
			}
			return intReply(tx.GetBit(a[1], off))
		}},
		&command{name: "bitcount", arity: -2, reply: replyBulk, run: cmdBitCount},
	)
}
