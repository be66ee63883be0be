package zlite

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"

	"github.com/zlite/zlite/dict"
	"github.com/zlite/zlite/internal/glob"
	"github.com/zlite/zlite/zset"
)

// The hash commands: HSET and its variants, HGET, HMGET, HDEL, HEXISTS, HGETALL,
// HKEYS, HVALS, HLEN, HSTRLEN, HINCRBY, HINCRBYFLOAT, HRANDFIELD and HSCAN. A
// hash's value is a *dict.Map. The Do forms are in hash_cmd.go.

var (
	// ErrHashNotInteger is HINCRBY's error when the field's value is not a 64-bit
	// integer.
	ErrHashNotInteger = errors.New("ERR hash value is not an integer")
	// ErrHashNotFloat is HINCRBYFLOAT's error when the field's value is not a
	// number.
	ErrHashNotFloat = errors.New("ERR hash value is not a float")
	// ErrNaNOrInfinity is HINCRBYFLOAT's error for an infinite increment.
	ErrNaNOrInfinity = errors.New("ERR value is NaN or Infinity")
)

// KeyValue is a hash field with its value (HRANDFIELD ... WITHVALUES), as go-redis's
// redis.KeyValue.
type KeyValue struct {
	Key   string
	Value string
}

// hashRead returns the hash at key for a command that reads it (see read): nil if
// the key does not exist, ErrWrongType if it holds another type.
func (tx *Tx) hashRead(key string) (*dict.Map, error) {
	return hashOf(tx.read(key))
}

// hashOf is hashRead for a value already looked up.
func hashOf(v any) (*dict.Map, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case *dict.Map:
		return v, nil
	}
	return nil, ErrWrongType
}

// hashWrite is hashRead for a command that will modify the hash in place
// (ErrReadOnly in View).
func (tx *Tx) hashWrite(key string) (*dict.Map, error) {
	h, err := tx.hashChange(key)
	if h != nil {
		tx.sh(key).touch(key) // WATCH, and a snapshot's copy-on-write, before the change
	}
	return h, err
}

// hashChange is hashWrite for a command that may leave the hash as it was: it
// touches the key itself before its first change (see shard.touchy). Both use
// the write lookup (value: no "keymiss").
func (tx *Tx) hashChange(key string) (*dict.Map, error) {
	if err := tx.writeErr(); err != nil {
		return nil, err
	}
	return hashOf(tx.value(key))
}

// newHash creates an empty hash at key, which must not exist; the caller sets a
// field in it before returning (empty keys never outlive a command).
func (tx *Tx) newHash(key string) *dict.Map {
	sh := tx.sh(key)
	sh.touch(key)
	h := sh.keys.AddHash(key, tx.db.limits.Load().Hash) // in the key table's own storage (internal/keytable)
	tx.notify(EventsNew, "new", key)
	return h
}

// HSet is HSET: it sets the fields of the hash at key to their values, given as
// field, value pairs, creating the key if needed, and returns the number of fields
// added (not updated). An odd number of words is an [ErrArity] error. The
// complexity is O(1) per field (O(n) per field while the hash is small and packed).
//
//zlite:command hset key
func (tx *Tx) HSet(key string, pairs ...string) (int64, error) {
	if len(pairs) == 0 || len(pairs)%2 != 0 {
		return 0, errArity("hset")
	}
	return tx.hset(key, pairs)
}

// HMSet is HMSET: [Tx.HSet] without the count.
//
//zlite:command hmset key
func (tx *Tx) HMSet(key string, pairs ...string) error {
	if len(pairs) == 0 || len(pairs)%2 != 0 {
		return errArity("hmset")
	}
	_, err := tx.hset(key, pairs)
	return err
}

// hset sets the field, value pairs (an even, non-zero number of words).
func (tx *Tx) hset(key string, pairs []string) (int64, error) {
	h, err := tx.hashWrite(key)
	if err != nil {
		return 0, err
	}
	if h == nil {
		h = tx.newHash(key)
	}
	var n int64
	for i := 0; i < len(pairs); i += 2 {
		if h.Set(pairs[i], pairs[i+1]) {
			n++
		}
	}
	tx.notify(EventsHash, "hset", key)
	if d := tx.log(); d != nil {
		d.cmd(pairs, "hset", key)
	}
	return n, nil
}

// HSetNX is HSETNX: it sets field to value only if the field does not exist, and
// reports whether it did. O(1).
//
//zlite:command hsetnx key
func (tx *Tx) HSetNX(key, field, value string) (bool, error) {
	h, err := tx.hashChange(key)
	if err != nil || h != nil && h.Has(field) {
		return false, err
	}
	if h == nil {
		h = tx.newHash(key)
	} else {
		tx.sh(key).touch(key)
	}
	h.Set(field, value)
	tx.notify(EventsHash, "hset", key)
	if d := tx.log(); d != nil {
		d.cmd(nil, "hset", key, field, value)
	}
	return true, nil
}

// HGet is HGET: the value of field in the hash at key, or ("", false) when the key
// or the field does not exist. O(1).
//
//zlite:command hget key
func (tx *Tx) HGet(key, field string) (string, bool, error) {
	h, err := tx.hashRead(key)
	if h == nil || err != nil {
		return "", false, err
	}
	v, ok := h.Get(field)
	return v, ok, nil
}

// HMGet is HMGET: the values of fields, with ok[i] false for a field (or key) that
// does not exist. O(1) per field.
//
//zlite:command hmget key
func (tx *Tx) HMGet(key string, fields ...string) (values []string, ok []bool, err error) {
	h, err := tx.hashRead(key)
	if err != nil {
		return nil, nil, err
	}
	values, ok = make([]string, len(fields)), make([]bool, len(fields))
	if h != nil {
		for i, f := range fields {
			values[i], ok[i] = h.Get(f)
		}
	}
	return values, ok, nil
}

// HDel is HDEL: it deletes fields from the hash at key, deleting the key when it
// becomes empty, and returns the number deleted. O(1) per field.
//
//zlite:command hdel key
func (tx *Tx) HDel(key string, fields ...string) (int64, error) {
	h, err := tx.hashChange(key)
	if h == nil || err != nil {
		return 0, err
	}
	sh := tx.sh(key)
	pending := sh.touchy()
	var n int64
	for _, f := range fields {
		if pending && h.Has(f) {
			sh.touch(key)
			pending = false
		}
		if h.Delete(f) {
			n++
			if h.Len() == 0 {
				break
			}
		}
	}
	if n > 0 {
		tx.notify(EventsHash, "hdel", key)
		if d := tx.log(); d != nil {
			d.cmd(fields, "hdel", key)
		}
	}
	tx.dropIfEmpty(key, h)
	return n, nil
}

// HExists is HEXISTS: whether field exists in the hash at key. O(1).
//
//zlite:command hexists key
func (tx *Tx) HExists(key, field string) (bool, error) {
	h, err := tx.hashRead(key)
	if h == nil || err != nil {
		return false, err
	}
	return h.Has(field), nil
}

// HLen is HLEN: the number of fields of the hash at key, 0 when it does not exist.
// O(1).
//
//zlite:command hlen key
func (tx *Tx) HLen(key string) (int64, error) {
	h, err := tx.hashRead(key)
	if h == nil || err != nil {
		return 0, err
	}
	return int64(h.Len()), nil
}

// HStrLen is HSTRLEN: the length of field's value, 0 when the key or the field does
// not exist. O(1).
//
//zlite:command hstrlen key
func (tx *Tx) HStrLen(key, field string) (int64, error) {
	h, err := tx.hashRead(key)
	if h == nil || err != nil {
		return 0, err
	}
	n, _ := h.ValueLen(field)
	return int64(n), nil
}

// HGetAll is HGETALL: the fields of the hash at key with their values, empty when
// the key does not exist. O(n).
//
//zlite:command hgetall key
func (tx *Tx) HGetAll(key string) (map[string]string, error) {
	h, err := tx.hashRead(key)
	if h == nil || err != nil {
		return map[string]string{}, err
	}
	m := make(map[string]string, h.Len())
	for f, v := range h.All() {
		m[f] = v
	}
	return m, nil
}

// HKeys is HKEYS: the fields of the hash at key, in the order they were added in.
// O(n).
//
//zlite:command hkeys key
func (tx *Tx) HKeys(key string) ([]string, error) {
	h, err := tx.hashRead(key)
	if h == nil || err != nil {
		return []string{}, err
	}
	out := make([]string, 0, h.Len())
	for f := range h.All() {
		out = append(out, f)
	}
	return out, nil
}

// HVals is HVALS: the values of the hash at key, in the order of [Tx.HKeys]. O(n).
//
//zlite:command hvals key
func (tx *Tx) HVals(key string) ([]string, error) {
	h, err := tx.hashRead(key)
	if h == nil || err != nil {
		return []string{}, err
	}
	out := make([]string, 0, h.Len())
	for _, v := range h.All() {
		out = append(out, v)
	}
	return out, nil
}

// HIncrBy is HINCRBY: it adds incr to the integer value of field (a missing key or
// field counts as 0) and returns the result. Errors: [ErrHashNotInteger],
// [ErrIncrOverflow]. O(1).
//
//zlite:command hincrby key
func (tx *Tx) HIncrBy(key, field string, incr int64) (int64, error) {
	h, err := tx.hashWrite(key)
	if err != nil {
		return 0, err
	}
	var n int64
	if h != nil {
		if v, ok := h.Get(field); ok {
			if n, err = parseInt(v); err != nil {
				return 0, ErrHashNotInteger
			}
		}
	}
	if incr < 0 && n < 0 && incr < math.MinInt64-n || incr > 0 && n > 0 && incr > math.MaxInt64-n {
		return 0, ErrIncrOverflow
	}
	n += incr
	tx.hsetOne(h, key, field, strconv.FormatInt(n, 10))
	tx.notify(EventsHash, "hincrby", key)
	return n, nil
}

// hsetOne sets one field of the hash h at key (nil: create it) and logs it as HSET.
func (tx *Tx) hsetOne(h *dict.Map, key, field, value string) {
	if h == nil {
		h = tx.newHash(key)
	}
	h.Set(field, value)
	if d := tx.log(); d != nil {
		d.cmd(nil, "hset", key, field, value)
	}
}

// HIncrByFloat is HINCRBYFLOAT: it adds incr to the number in field (a missing key
// or field counts as 0), keeps the result formatted as Redis formats it and returns
// it. Errors: [ErrNaNOrInfinity] for an infinite or NaN incr, [ErrHashNotFloat],
// [ErrIncrNaN]. O(1).
//
//zlite:command hincrbyfloat key
func (tx *Tx) HIncrByFloat(key, field string, incr float64) (float64, error) {
	if math.IsNaN(incr) || math.IsInf(incr, 0) {
		return 0, ErrNaNOrInfinity
	}
	r, err := tx.hincrByFloat(key, field, strconv.FormatFloat(incr, 'f', -1, 64))
	if err != nil {
		return 0, err
	}
	f, _ := strconv.ParseFloat(r, 64)
	return f, nil
}

// hincrByFloat is HINCRBYFLOAT with the increment as its word, in Redis's order of
// checks: the increment, the key's type, the field's value, the sum.
func (tx *Tx) hincrByFloat(key, field, incr string) (string, error) {
	b, ok := longDouble(incr)
	if !ok {
		return "", zset.ErrNotFloat
	}
	if b.IsInf() {
		return "", ErrNaNOrInfinity
	}
	h, err := tx.hashWrite(key)
	if err != nil {
		return "", err
	}
	a := new(big.Float).SetPrec(64)
	if h != nil {
		if v, ok := h.Get(field); ok {
			if a, ok = longDouble(v); !ok || a.IsInf() {
				return "", ErrHashNotFloat
			}
		}
	}
	r := formatLongDouble(new(big.Float).SetPrec(64).Add(a, b))
	if r == "" {
		return "", ErrIncrNaN
	}
	tx.hsetOne(h, key, field, r)
	tx.notify(EventsHash, "hincrbyfloat", key)
	return r, nil
}

// hrandField implements HRANDFIELD key count after Redis's checks: count > 0 gives
// distinct fields (the whole hash, in its order, when count is at least its size),
// count < 0 picks -count fields independently.
func (tx *Tx) hrandField(key string, count int64, withValues bool) ([]KeyValue, error) {
	if count == math.MinInt64 {
		return nil, ErrRandCountRange
	}
	if withValues && (count < -math.MaxInt64/2 || count > math.MaxInt64/2) {
		return nil, ErrOutOfRange
	}
	h, err := tx.hashRead(key)
	if err != nil {
		return nil, err
	}
	if h == nil || count == 0 {
		return []KeyValue{}, nil
	}
	if max := tx.db.cfg.maxReply; count < -int64(max) {
		return nil, errReplyTooLarge("hrandfield", max)
	}
	n := h.Len()
	if count >= int64(n) {
		out := make([]KeyValue, 0, n)
		for f, v := range h.All() {
			out = append(out, KeyValue{f, v})
		}
		return out, nil
	}
	if count < 0 {
		out := make([]KeyValue, -count)
		for i := range out {
			out[i].Key, out[i].Value, _ = h.Random(nil)
		}
		return out, nil
	}
	return randDistinct(int(count), n, func() []KeyValue {
		out := make([]KeyValue, 0, n)
		for f, v := range h.All() {
			out = append(out, KeyValue{f, v})
		}
		return out
	}, func() (KeyValue, string) {
		f, v, _ := h.Random(nil)
		return KeyValue{f, v}, f
	}), nil
}

// randDistinct draws count distinct elements at random from a collection of
// n > count, as Redis's SRANDMEMBER and HRANDFIELD do: for a count above n/3, all
// its elements (all) shuffled and cut to count; else independent draws (random,
// which also returns the element's identity), repeats dropped. The complexity is
// O(n) in the first case, O(count) expected in the second.
func randDistinct[T any](count, n int, all func() []T, random func() (T, string)) []T {
	if count*3 > n {
		xs := all()
		for i := range count {
			j := i + rand.IntN(len(xs)-i)
			xs[i], xs[j] = xs[j], xs[i]
		}
		return xs[:count]
	}
	out := make([]T, 0, count)
	seen := make(map[string]struct{}, count)
	for len(out) < count {
		e, id := random()
		if _, dup := seen[id]; !dup {
			seen[id] = struct{}{}
			out = append(out, e)
		}
	}
	return out
}

// HRandField is HRANDFIELD key count: with count > 0, count distinct random fields
// (the whole hash, in its order, when count is at least its size); with count < 0,
// -count fields picked independently (repeats possible), an error matching
// [ErrReplyTooLarge] beyond [WithMaxReplyElements]. Empty for a missing key or
// count 0. The complexity is O(|count|) expected.
//
//zlite:command hrandfield key
func (tx *Tx) HRandField(key string, count int) ([]string, error) {
	kvs, err := tx.hrandField(key, int64(count), false)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(kvs))
	for i, kv := range kvs {
		out[i] = kv.Key
	}
	return out, nil
}

// HRandFieldWithValues is HRANDFIELD key count WITHVALUES: [Tx.HRandField] with the
// values. A |count| above MaxInt64/2 is [ErrOutOfRange], as in Redis.
//
//zlite:command hrandfield key
func (tx *Tx) HRandFieldWithValues(key string, count int) ([]KeyValue, error) {
	return tx.hrandField(key, int64(count), true)
}

// HScan is HSCAN: one step of an iteration over the hash at key, starting at cursor
// 0 and ending when the returned cursor is 0; it returns field, value, field,
// value... match filters fields with a glob pattern as SCAN's ("" matches all);
// count is the work per call (≤ 0: 10). A small (packed) hash is returned whole
// with the cursor 0, as Redis returns a listpack. For a larger one, every field
// present for the whole iteration is returned exactly once (see [dict.Map.Scan]).
// The complexity is O(count) per call.
//
//zlite:command hscan key
func (tx *Tx) HScan(key string, cursor uint64, match string, count int64) ([]string, uint64, error) {
	h, err := tx.hashRead(key)
	if h == nil || err != nil {
		return []string{}, 0, err
	}
	out, next := hscan(h, cursor, match, count)
	return out, next, nil
}

// hscan is one HSCAN step over h (see [Tx.HScan]).
func hscan(h *dict.Map, cursor uint64, match string, count int64) ([]string, uint64) {
	if match == "*" {
		match = ""
	}
	if count <= 0 {
		count = 10
	}
	out := []string{}
	next := h.Scan(cursor, int(min(count, math.MaxInt32)), func(f, v string) bool {
		if match == "" || glob.Match(match, f) {
			out = append(out, f, v)
		}
		return true
	})
	return out, next
}
