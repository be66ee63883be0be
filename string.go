package zlite

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/zlite/zlite/internal/keytable"
	"github.com/zlite/zlite/zset"
)

// The string commands: GET, SET and its variants, MGET, MSET, APPEND, STRLEN, the
// INCR family, GETRANGE and SETRANGE. The Do forms are in string_cmd.go.

var (
	// ErrStringTooLong is the error of a write that would make a string longer than
	// Redis's proto-max-bulk-len (512 MB): APPEND, SETRANGE. It is checked before
	// anything is allocated.
	ErrStringTooLong = errors.New("ERR string exceeds maximum allowed size (proto-max-bulk-len)")
	// ErrOffsetOutOfRange is SETRANGE's error for a negative offset.
	ErrOffsetOutOfRange = errors.New("ERR offset is out of range")
	// ErrIncrOverflow is the INCR family's error when the result leaves int64.
	ErrIncrOverflow = errors.New("ERR increment or decrement would overflow")
	// ErrDecrOverflow is DECRBY's error for a decrement of -2^63, which cannot be
	// negated.
	ErrDecrOverflow = errors.New("ERR decrement would overflow")
	// ErrIncrNaN is INCRBYFLOAT's error when the result would be infinite or NaN.
	ErrIncrNaN = errors.New("ERR increment would produce NaN or Infinity")
)

// KeepTTL, as the expiration of [Tx.Set], [Tx.SetNX] or [Tx.SetXX], keeps the key's
// TTL (SET ... KEEPTTL), as go-redis's redis.KeepTTL does.
const KeepTTL time.Duration = -1

// maxStringLen is Redis's default proto-max-bulk-len: the longest string a write may
// make.
const maxStringLen = 512 << 20

// stringValue is the value of a string key longer than keytable.ShortMax bytes:
// its bytes, and how Redis would encode them, for OBJECT ENCODING. A shorter string
// lives in the key table as a *keytable.Short (no heap object, nothing for the
// collector); stringRead hands it out as a stringValue whose b is a view of it and
// short is set, and settle stores a change back.
type stringValue struct {
	b     []byte
	enc   stringEnc
	short bool
}

// stringEnc says how Redis would hold a string, which depends on the command that
// made it.
type stringEnc uint8

const (
	// encAuto: by content, as Redis's tryObjectEncoding (SET, MSET, INCR, a new
	// key's APPEND): "int" for a canonical 64-bit integer, "embstr" up to 44 bytes,
	// else "raw".
	encAuto stringEnc = iota
	// encEmbstr: "embstr" up to 44 bytes, else "raw" (INCRBYFLOAT's results).
	encEmbstr
	// encRaw: "raw" (APPEND to an existing key, SETRANGE).
	encRaw
)

// Len is 1: a string counts as one element (in Stats, and in a snapshot's batches
// of copies), even when it is empty.
func (s *stringValue) Len() int { return 1 }

// MemoryUsage is the bytes the string holds on the heap: its header and its bytes
// capacity (the key table's slot for it aside).
func (s *stringValue) MemoryUsage() int { return int(unsafe.Sizeof(*s)) + cap(s.b) }

// embstrMax is the longest string Redis allocates with its object header.
const embstrMax = 44

// Encoding is OBJECT ENCODING's reply for the string.
func (s *stringValue) Encoding() string {
	switch {
	case s.enc == encRaw || len(s.b) > embstrMax:
		return "raw"
	case s.enc == encAuto && len(s.b) <= 20:
		if _, err := parseInt(string(s.b)); err == nil {
			return "int"
		}
	}
	return "embstr"
}

// stringRead returns the string at key for a command that reads it (see read):
// nil if the key does not exist, ErrWrongType if it holds another type. A command
// that changes a short string's bytes other than in place (a new b) calls settle
// after.
func (tx *Tx) stringRead(key string) (*stringValue, error) {
	return stringOf(tx.read(key))
}

// stringOf is stringRead for a value already looked up.
func stringOf(v any) (*stringValue, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case *stringValue:
		return v, nil
	case *keytable.Short:
		return &stringValue{b: v.Bytes(), enc: stringEnc(v.Enc), short: true}, nil
	}
	return nil, ErrWrongType
}

// stringView returns the bytes of the string at key for a read, without copying
// or allocating: a view, valid until the key next changes. ok is false when the
// key does not exist; ErrWrongType when it holds another type. It is a read
// lookup (see read).
func (tx *Tx) stringView(key string) (b []byte, ok bool, err error) {
	v := tx.read(key)
	if b, ok := stringBytes(v); ok {
		return b, true, nil
	}
	if v != nil {
		return nil, false, ErrWrongType
	}
	return nil, false, nil
}

// stringBytes returns the bytes of a string value (v a *stringValue or
// *keytable.Short), without allocating; ok is false for another type.
func stringBytes(v any) (b []byte, ok bool) {
	switch v := v.(type) {
	case *stringValue:
		return v.b, true
	case *keytable.Short:
		return v.Bytes(), true
	}
	return nil, false
}

// settle stores s, the string at key changed by a command, back where it lives: a
// short string's slot takes the new bytes if they fit, else the key gets a heap
// value (keeping its TTL). A heap string stays one.
func (tx *Tx) settle(key string, s *stringValue) {
	if !s.short {
		return
	}
	if len(s.b) <= keytable.ShortMax {
		// s.b stays valid: a view of the table's string is written back in place
		// (same length, same place), and a new b is the caller's.
		tx.sh(key).keys.SetShort(key, s.b, uint8(s.enc))
		return
	}
	tx.sh(key).keys.Set(key, &stringValue{b: s.b, enc: s.enc})
	s.short = false
}

// stringChange is stringRead for a command that may modify the string in place
// (ErrReadOnly in View). The command touches the key (WATCH, and a snapshot's
// copy-on-write) just before it changes it, and not when it fails or leaves the
// string as it was, as Redis signals a key only when it changed. It uses the
// write lookup (value: no "keymiss").
func (tx *Tx) stringChange(key string) (*stringValue, error) {
	if err := tx.writeErr(); err != nil {
		return nil, err
	}
	return stringOf(tx.value(key))
}

// putString makes b the string at key, replacing any value of any type, and clears
// the key's TTL unless keepTTL. The caller logs the write.
func (tx *Tx) putString(key string, b []byte, enc stringEnc, keepTTL bool) {
	tx.notifyNew(key)
	sh := tx.sh(key)
	sh.touch(key)
	if i, ok := sh.lookup(key); ok && !keepTTL {
		sh.clearExpiry(i)
	}
	if len(b) <= keytable.ShortMax {
		sh.keys.SetShort(key, b, uint8(enc))
		return
	}
	sh.keys.Set(key, &stringValue{b: b, enc: enc})
}

// Get is GET: the string at key, or ("", false) when the key does not exist. O(1).
//
//zlite:command get key
func (tx *Tx) Get(key string) (string, bool, error) {
	b, ok, err := tx.stringView(key)
	return string(b), ok, err
}

// setOptions are SET's options: NX or XX, GET, and an expiry time (Unix ms, 0 for
// none) or KEEPTTL.
type setOptions struct {
	nx, xx, get, keepTTL bool
	at                   int64
}

// set is SET with options o: the old value when o.get asked for it (and whether
// there was one), and whether the value was set (NX and XX may refuse). With GET, a
// key of another type is ErrWrongType and nothing changes.
func (tx *Tx) set(key, value string, o setOptions) (old string, had, done bool, err error) {
	if err := tx.writeErr(); err != nil {
		return "", false, false, err
	}
	sh := tx.sh(key)
	_, v, found := sh.lookupValue(key)
	if o.get && !found {
		tx.missed(key) // GET reads the key first, as Redis's getGenericCommand
	}
	if o.get && found {
		b, ok := stringBytes(v)
		if !ok {
			return "", false, false, ErrWrongType
		}
		old, had = string(b), true
	}
	if o.nx && found || o.xx && !found {
		return old, had, false, nil
	}
	tx.putString(key, []byte(value), encAuto, o.keepTTL)
	if o.at != 0 {
		i, _ := sh.keys.FindHash(key, sh.hashOf(key))
		sh.setExpiry(i, o.at) // a time already past expires the key at its next access
	}
	tx.notify(EventsString, "set", key)
	if o.at != 0 {
		tx.notify(EventsGeneric, "expire", key)
	}
	if d := tx.log(); d != nil {
		switch {
		case o.at != 0:
			d.start(5)
			d.word("set")
			d.word(key)
			d.word(value)
			d.word("pxat")
			d.int(o.at)
		case o.keepTTL:
			d.cmd(nil, "set", key, value, "keepttl")
		default:
			d.cmd(nil, "set", key, value)
		}
	}
	return old, had, true, nil
}

// expiration converts a typed method's expiration to SET's options: > 0 expires
// that long from now (at millisecond precision), KeepTTL keeps the TTL, anything
// else sets none (as go-redis sends them).
func (tx *Tx) expiration(o setOptions, expiration time.Duration) setOptions {
	switch {
	case expiration > 0:
		o.at = tx.after(max(expiration, time.Millisecond))
	case expiration == KeepTTL:
		o.keepTTL = true
	}
	return o
}

// Set is SET key value with an expiration as go-redis's Set takes it: > 0 sets a TTL
// (EX or PX), [KeepTTL] keeps the key's, 0 clears it. It replaces a value of any
// type. O(1), plus O(log k) for k keys with a TTL when it sets one.
//
//zlite:command set key
func (tx *Tx) Set(key, value string, expiration time.Duration) error {
	_, _, _, err := tx.set(key, value, tx.expiration(setOptions{}, expiration))
	return err
}

// SetNX is SET key value NX (with an expiration as [Tx.Set]'s): it sets only a key
// that does not exist, and reports whether it did. O(1).
//
//zlite:command set key
func (tx *Tx) SetNX(key, value string, expiration time.Duration) (bool, error) {
	_, _, done, err := tx.set(key, value, tx.expiration(setOptions{nx: true}, expiration))
	return done, err
}

// SetXX is SET key value XX (with an expiration as [Tx.Set]'s): it sets only a key
// that exists, and reports whether it did. O(1).
//
//zlite:command set key
func (tx *Tx) SetXX(key, value string, expiration time.Duration) (bool, error) {
	_, _, done, err := tx.set(key, value, tx.expiration(setOptions{xx: true}, expiration))
	return done, err
}

// SetArgs are the options of [Tx.SetArgs], as go-redis's redis.SetArgs: Mode "NX" or
// "XX" (or empty), a TTL or an ExpireAt time (or KeepTTL), and Get for the old value.
type SetArgs struct {
	Mode     string
	TTL      time.Duration
	ExpireAt time.Time
	Get      bool
	KeepTTL  bool
}

// SetArgs is SET with every option. With a.Get it returns the old value, or ("",
// false) when the key did not exist; without, ("OK", true) when it set the value and
// ("", false) when NX or XX refused. Errors: ErrSyntax for an unknown Mode or both a
// TTL and a time; [ErrWrongType] with Get on a key of another type. O(1).
//
//zlite:command set key
func (tx *Tx) SetArgs(key, value string, a SetArgs) (string, bool, error) {
	o := setOptions{get: a.Get, keepTTL: a.KeepTTL}
	switch {
	case strings.EqualFold(a.Mode, "nx"):
		o.nx = true
	case strings.EqualFold(a.Mode, "xx"):
		o.xx = true
	case a.Mode != "":
		return "", false, ErrSyntax
	}
	if (a.TTL > 0 || a.KeepTTL) && !a.ExpireAt.IsZero() || a.TTL > 0 && a.KeepTTL {
		return "", false, ErrSyntax
	}
	switch {
	case !a.ExpireAt.IsZero():
		if o.at = a.ExpireAt.UnixMilli(); o.at <= 0 {
			return "", false, errExpireTime("set")
		}
	case a.TTL > 0:
		o.at = tx.after(max(a.TTL, time.Millisecond))
	}
	old, had, done, err := tx.set(key, value, o)
	if a.Get || err != nil {
		return old, had, err
	}
	if !done {
		return "", false, nil
	}
	return "OK", true, nil
}

// SetEx is SETEX: SET with a TTL, which must be positive (else
// [ErrInvalidExpireTime]). O(log k) for k keys with a TTL.
//
//zlite:command setex key
func (tx *Tx) SetEx(key, value string, expiration time.Duration) error {
	if expiration <= 0 {
		return errExpireTime("setex")
	}
	return tx.Set(key, value, expiration)
}

// GetSet is GETSET: it sets key to value (clearing its TTL) and returns the old
// string, or ("", false) when there was none. O(1).
//
//zlite:command getset key
func (tx *Tx) GetSet(key, value string) (string, bool, error) {
	old, had, _, err := tx.set(key, value, setOptions{get: true})
	return old, had, err
}

// GetDel is GETDEL: the string at key, which it deletes, or ("", false) when the key
// does not exist. O(1).
//
//zlite:command getdel key
func (tx *Tx) GetDel(key string) (string, bool, error) {
	if err := tx.writeErr(); err != nil {
		return "", false, err
	}
	s, err := tx.stringRead(key) // a read lookup, as Redis's getGenericCommand
	if s == nil || err != nil {
		return "", false, err
	}
	v := string(s.b) // before the delete frees a short string's slot
	tx.sh(key).del(key)
	tx.notify(EventsGeneric, "del", key)
	if d := tx.log(); d != nil {
		d.cmd(nil, "del", key)
	}
	return v, true, nil
}

// getExOptions are GETEX's options: an expiry time (Unix ms; 0 for none), and
// whether that time was given absolute (EXAT, PXAT: a past one deletes the key), or
// PERSIST.
type getExOptions struct {
	at      int64
	abs     bool
	persist bool
}

// getEx is GETEX with options o.
func (tx *Tx) getEx(key string, o getExOptions) (string, bool, error) {
	if o.at == 0 && !o.persist {
		return tx.Get(key)
	}
	if err := tx.writeErr(); err != nil {
		return "", false, err
	}
	s, err := tx.stringRead(key) // a read lookup, as Redis's GETEX
	if s == nil || err != nil {
		return "", false, err
	}
	v := string(s.b)
	sh := tx.sh(key)
	i, _ := sh.lookup(key)
	d := tx.log()
	switch {
	case o.abs && o.at <= tx.nowMs():
		sh.remove(i, key)
		tx.notify(EventsGeneric, "del", key)
		if d != nil {
			d.cmd(nil, "del", key)
		}
	case o.at != 0:
		sh.touch(key)
		sh.setExpiry(i, o.at)
		tx.notify(EventsGeneric, "expire", key)
		if d != nil {
			d.start(3)
			d.word("pexpireat")
			d.word(key)
			d.int(o.at)
		}
	default:
		if !sh.clearExpiry(i) {
			break
		}
		sh.touch(key)
		tx.notify(EventsGeneric, "persist", key)
		if d != nil {
			d.cmd(nil, "persist", key)
		}
	}
	return v, true, nil
}

// GetEx is GETEX with an expiration as go-redis's GetEx takes it: > 0 sets the TTL
// (EX or PX), 0 removes it (PERSIST), < 0 leaves it. It returns the string, or ("",
// false) when the key does not exist. O(log k) for k keys with a TTL.
//
//zlite:command getex key
func (tx *Tx) GetEx(key string, expiration time.Duration) (string, bool, error) {
	switch {
	case expiration > 0:
		return tx.getEx(key, getExOptions{at: tx.after(max(expiration, time.Millisecond))})
	case expiration == 0:
		return tx.getEx(key, getExOptions{persist: true})
	}
	return tx.Get(key)
}

// MGet is MGET: for each key its string and whether it has one (a missing key and a
// key of another type have none). O(1) per key.
//
//zlite:command mget keys...
func (tx *Tx) MGet(keys ...string) (values []string, ok []bool, err error) {
	values, ok = make([]string, len(keys)), make([]bool, len(keys))
	for i, k := range keys {
		if i%warmBatch == 0 && len(keys) > 1 {
			tx.warmKeys(keys[i:min(i+warmBatch, len(keys))])
		}
		if b, isString := stringBytes(tx.read(k)); isString {
			values[i], ok[i] = string(b), true
		}
	}
	return values, ok, nil
}

// pairKeys returns the keys of MSET's key-value pairs.
func pairKeys(pairs []string) []string {
	keys := make([]string, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		keys = append(keys, pairs[i])
	}
	return keys
}

// MSet is MSET: it sets each key of the key-value pairs to its value, clearing their
// TTLs; an odd number of words is an arity error. O(1) per pair.
//
//zlite:command mset pairKeys(pairs)...
func (tx *Tx) MSet(pairs ...string) error {
	_, err := tx.mset("mset", pairs, false)
	return err
}

// MSetNX is MSETNX: [Tx.MSet] only if none of the keys exists; it reports whether it
// set them. O(1) per pair.
//
//zlite:command msetnx pairKeys(pairs)...
func (tx *Tx) MSetNX(pairs ...string) (bool, error) {
	return tx.mset("msetnx", pairs, true)
}

// mset is MSET and, with nx, MSETNX.
func (tx *Tx) mset(name string, pairs []string, nx bool) (bool, error) {
	if len(pairs) == 0 || len(pairs)%2 != 0 {
		return false, errArity(name)
	}
	if err := tx.writeErr(); err != nil {
		return false, err
	}
	if nx {
		for i := 0; i < len(pairs); i += 2 {
			if _, ok := tx.sh(pairs[i]).lookup(pairs[i]); ok {
				return false, nil
			}
		}
	}
	d := tx.log()
	for i := 0; i < len(pairs); i += 2 {
		tx.putString(pairs[i], []byte(pairs[i+1]), encAuto, false)
		tx.notify(EventsString, "set", pairs[i])
		if d != nil {
			d.cmd(nil, "set", pairs[i], pairs[i+1])
		}
	}
	return true, nil
}

// checkLength checks that a string of n bytes may grow by more, without overflow.
func checkLength(n, more int64) error {
	if more > maxStringLen-n {
		return ErrStringTooLong
	}
	return nil
}

// Append is APPEND: it appends value to the string at key (creating it) and returns
// the new length. O(len(value)) amortised.
//
//zlite:command append key
func (tx *Tx) Append(key, value string) (int64, error) {
	s, err := tx.stringChange(key)
	if err != nil {
		return 0, err
	}
	if s == nil {
		tx.putString(key, []byte(value), encAuto, false)
	} else {
		if err := checkLength(int64(len(s.b)), int64(len(value))); err != nil {
			return 0, err
		}
		tx.sh(key).touch(key)
		s.b = append(s.b, value...)
		s.enc = encRaw
		tx.settle(key, s)
	}
	tx.notify(EventsString, "append", key)
	if d := tx.log(); d != nil {
		d.cmd(nil, "append", key, value)
	}
	if s == nil {
		return int64(len(value)), nil
	}
	return int64(len(s.b)), nil
}

// StrLen is STRLEN: the length of the string at key, 0 when the key does not exist.
// O(1).
//
//zlite:command strlen key
func (tx *Tx) StrLen(key string) (int64, error) {
	b, ok, err := tx.stringView(key)
	if !ok || err != nil {
		return 0, err
	}
	return int64(len(b)), nil
}

// incrBy adds by to the integer at key (a missing key counts as 0) and returns the
// result: ErrNotInteger when the string is not a 64-bit integer, ErrIncrOverflow
// when the sum leaves int64. The TTL is kept.
func (tx *Tx) incrBy(key string, by int64) (int64, error) {
	if err := tx.writeErr(); err != nil {
		return 0, err
	}
	var n int64
	if v := tx.value(key); v != nil {
		b, ok := stringBytes(v)
		if !ok {
			return 0, ErrWrongType
		}
		var err error
		if n, err = parseInt(unsafe.String(unsafe.SliceData(b), len(b))); err != nil {
			return 0, err
		}
	}
	if by < 0 && n < 0 && by < math.MinInt64-n || by > 0 && n > 0 && by > math.MaxInt64-n {
		return 0, ErrIncrOverflow
	}
	n += by
	var buf [20]byte
	b := strconv.AppendInt(buf[:0], n, 10) // at most 20 bytes: always a short string
	tx.notifyNew(key)
	sh := tx.sh(key)
	sh.touch(key)
	sh.keys.SetShort(key, b, uint8(encAuto)) // a key's TTL is kept
	tx.notify(EventsString, "incrby", key)
	if d := tx.log(); d != nil {
		d.cmd(nil, "set", key, string(b), "keepttl")
	}
	return n, nil
}

// Incr is INCR: [Tx.IncrBy] 1.
//
//zlite:command incr key
func (tx *Tx) Incr(key string) (int64, error) { return tx.incrBy(key, 1) }

// Decr is DECR: [Tx.IncrBy] -1.
//
//zlite:command decr key
func (tx *Tx) Decr(key string) (int64, error) { return tx.incrBy(key, -1) }

// IncrBy is INCRBY: it adds value to the integer at key (a missing key counts as 0)
// and returns the result, keeping the TTL. Errors: [ErrNotInteger] when the string
// is not a 64-bit integer, [ErrIncrOverflow]. O(1).
//
//zlite:command incrby key
func (tx *Tx) IncrBy(key string, value int64) (int64, error) { return tx.incrBy(key, value) }

// DecrBy is DECRBY: [Tx.IncrBy] -decrement; [ErrDecrOverflow] for -2^63.
//
//zlite:command decrby key
func (tx *Tx) DecrBy(key string, decrement int64) (int64, error) {
	if decrement == math.MinInt64 {
		return 0, ErrDecrOverflow
	}
	return tx.incrBy(key, -decrement)
}

// IncrByFloat is INCRBYFLOAT: it adds value to the number at key (a missing key
// counts as 0), keeps the result as Redis formats it and returns it. Errors:
// zset.ErrNotFloat when the string is not a number, [ErrIncrNaN]. O(1).
//
//zlite:command incrbyfloat key
func (tx *Tx) IncrByFloat(key string, value float64) (float64, error) {
	r, err := tx.incrByFloat(key, strconv.FormatFloat(value, 'f', -1, 64))
	if err != nil {
		return 0, err
	}
	f, _ := strconv.ParseFloat(r, 64)
	return f, nil
}

// incrByFloat is INCRBYFLOAT with the increment as its word: the sum is taken, as in
// Redis, in 64-bit-mantissa (long double) arithmetic and formatted with 17 decimals,
// trailing zeros dropped.
func (tx *Tx) incrByFloat(key, incr string) (string, error) {
	s, err := tx.stringChange(key)
	if err != nil {
		return "", err
	}
	cur := "0"
	if s != nil {
		cur = string(s.b)
	}
	a, ok1 := longDouble(cur)
	b, ok2 := longDouble(incr)
	if !ok1 || !ok2 {
		return "", zset.ErrNotFloat
	}
	if a.IsInf() || b.IsInf() {
		return "", ErrIncrNaN
	}
	r := formatLongDouble(new(big.Float).SetPrec(64).Add(a, b))
	if r == "" {
		return "", ErrIncrNaN
	}
	if s != nil {
		tx.sh(key).touch(key)
		s.b, s.enc = []byte(r), encEmbstr
		tx.settle(key, s)
	} else {
		tx.putString(key, []byte(r), encEmbstr, false)
	}
	tx.notify(EventsString, "incrbyfloat", key)
	if d := tx.log(); d != nil {
		d.cmd(nil, "set", key, r, "keepttl")
	}
	return r, nil
}

// longDouble parses s as Redis's string2ld does into a 64-bit-mantissa float, as
// an x87 long double: strtold's syntax over the whole string (no leading space, no
// NaN), fewer than 5120 bytes, and within the long double's range (a number that
// would overflow it, or underflow to zero, is refused; a float64 would refuse far
// more, from 1e309 and 1e-324).
func longDouble(s string) (*big.Float, bool) {
	if f, err := zset.ParseScore(s); err == nil && (math.IsInf(f, 0) || strings.ContainsAny(s, "xX")) {
		return new(big.Float).SetPrec(64).SetFloat64(f), true
	}
	// Syntax as strtod's (ParseScoreBound, less what it allows beyond string2ld);
	// the value then from the decimal digits, in the long double's precision.
	if s == "" || len(s) >= 5120 || strings.ContainsAny(s[:1], " \t\n\v\f\r(") || strings.IndexByte(s, 0) >= 0 {
		return nil, false
	}
	b, err := zset.ParseScoreBound(s)
	if err != nil || b.Exclusive {
		return nil, false
	}
	if math.IsInf(b.Value, 0) && strings.ContainsAny(s, "xX") {
		return nil, false // a hexadecimal number beyond float64: not worth a parser of its own
	}
	v, _, err := big.ParseFloat(s, 10, 64, big.ToNearestEven)
	if err != nil {
		return nil, false
	}
	if e := v.MantExp(nil); v.Sign() != 0 && (e > 16384 || e < -16444) {
		return nil, false // strtold's ERANGE: beyond the long double, or below its least subnormal
	}
	return v, true
}

// formatLongDouble formats f as Redis's ld2string in its human mode: 17 decimals,
// trailing zeros and a trailing point dropped, "-0" as "0". It returns "" for a
// result beyond the long double's range (an infinity in Redis).
func formatLongDouble(f *big.Float) string {
	if f.IsInf() || f.MantExp(nil) > 16384 {
		return ""
	}
	s := f.Text('f', 17)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// GetRange is GETRANGE: the bytes of the string at key from start to end inclusive
// (negative counts from the end), "" when the range is empty or the key does not
// exist. O(end-start).
//
//zlite:command getrange key
func (tx *Tx) GetRange(key string, start, end int64) (string, error) {
	b, found, err := tx.stringView(key)
	if !found || err != nil {
		return "", err
	}
	if start < 0 && end < 0 && start > end {
		return "", nil
	}
	start, end, ok := clampRange(start, end, int64(len(b)))
	if !ok {
		return "", nil
	}
	return string(b[start : end+1]), nil
}

// clampRange resolves a string command's start and end (inclusive; negative counts
// from the end) over a length of n, as Redis's GETRANGE, BITCOUNT and BITPOS do,
// and reports whether the range holds anything.
func clampRange(start, end, n int64) (int64, int64, bool) {
	if start < 0 {
		start = max(n+start, 0)
	}
	if end < 0 {
		end = max(n+end, 0)
	}
	end = min(end, n-1)
	return start, end, start <= end
}

// SetRange is SETRANGE: it overwrites the string at key from offset with value,
// padding with zero bytes (creating the key), and returns the new length. Errors:
// [ErrOffsetOutOfRange] for a negative offset, [ErrStringTooLong] past 512 MB
// (before anything is allocated). O(len(value)), plus the padding.
//
//zlite:command setrange key
func (tx *Tx) SetRange(key string, offset int64, value string) (int64, error) {
	if offset < 0 {
		return 0, ErrOffsetOutOfRange
	}
	s, err := tx.stringChange(key)
	if err != nil {
		return 0, err
	}
	if value == "" {
		if s == nil {
			return 0, nil
		}
		return int64(len(s.b)), nil
	}
	if err := checkLength(offset, int64(len(value))); err != nil {
		return 0, err
	}
	end := int(offset) + len(value)
	if s == nil {
		b := make([]byte, end)
		copy(b[offset:], value)
		tx.putString(key, b, encRaw, false)
	} else {
		tx.sh(key).touch(key)
		if end > len(s.b) {
			s.b = append(s.b, make([]byte, end-len(s.b))...)
		}
		copy(s.b[offset:], value)
		s.enc = encRaw
		end = len(s.b)
		tx.settle(key, s)
	}
	tx.notify(EventsString, "setrange", key)
	if d := tx.log(); d != nil {
		d.start(4)
		d.word("setrange")
		d.word(key)
		d.int(offset)
		d.word(value)
	}
	return int64(end), nil
}
