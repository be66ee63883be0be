package zlite

import (
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/zlite/zlite/list"
	"github.com/zlite/zlite/zset"
)

var (
	// ErrInvalidExpireTime matches (with errors.Is) the error of EXPIRE, PEXPIRE,
	// EXPIREAT and PEXPIREAT when the time overflows 64-bit milliseconds, an [*Error]
	// whose text names the command: "ERR invalid expire time in 'expire' command".
	ErrInvalidExpireTime = errors.New("ERR invalid expire time")
	// ErrSameObject is COPY's reply when the source and destination are one key.
	ErrSameObject = errors.New("ERR source and destination objects are the same")
	// ErrDBIndex is COPY's reply to a DB option other than 0: a DB is one keyspace,
	// as a Redis server configured with "databases 1".
	ErrDBIndex = errors.New("ERR DB index is out of range")
)

// errExpireTime is the expire commands' overflow error, naming the command.
func errExpireTime(name string) error {
	return &Error{Kind: ErrInvalidExpireTime, Command: name,
		msg: "ERR invalid expire time in '" + name + "' command"}
}

// expireCond is a set of EXPIRE options: NX, XX, GT, LT (XX combines with GT or LT).
type expireCond uint8

const (
	expireAlways expireCond = 0
	expireNX     expireCond = 1 << iota // only if the key has no TTL
	expireXX                            // only if the key has a TTL
	expireGT                            // only if the new time is later (no TTL counts as infinite)
	expireLT                            // only if the new time is earlier (no TTL counts as infinite)
)

// expire sets key's expiry time to at (Unix ms) under cond, as Redis's
// expireGenericCommand: false if the key does not exist or cond fails; a time not
// after now deletes the key (a deletion, not an expiry, in Stats).
func (tx *Tx) expire(key string, at int64, cond expireCond) (bool, error) {
	if err := tx.writeErr(); err != nil {
		return false, err
	}
	sh := tx.sh(key)
	i, ok := sh.lookup(key)
	if !ok {
		return false, nil
	}
	cur, has := sh.expiry(i)
	if cond&expireNX != 0 && has ||
		cond&expireXX != 0 && !has ||
		cond&expireGT != 0 && (!has || at <= cur) ||
		cond&expireLT != 0 && has && at >= cur {
		return false, nil
	}
	if at <= tx.nowMs() {
		sh.remove(i, key)
		if d := tx.log(); d != nil {
			d.cmd(nil, "del", key)
		}
		return true, nil
	}
	sh.setExpiry(i, at)
	sh.touch(key)
	if d := tx.log(); d != nil {
		// Absolute, so that a replay sets the same time.
		d.start(3)
		d.word("pexpireat")
		d.word(key)
		d.int(at)
	}
	return true, nil
}

// after is the Unix time in ms that d from now is, saturating instead of
// overflowing.
func (tx *Tx) after(d time.Duration) int64 {
	ms, now := d.Milliseconds(), tx.nowMs()
	if ms > 0 && now > math.MaxInt64-ms {
		return math.MaxInt64
	}
	return now + ms
}

// Expire is EXPIRE (PEXPIRE for a duration that is not whole seconds, as go-redis
// sends it): key expires expiration from now, at millisecond precision; a duration
// ≤ 0 deletes it. It reports whether the key exists. O(log k) for k keys with a TTL.
//
//zlite:command expire key
func (tx *Tx) Expire(key string, expiration time.Duration) (bool, error) {
	return tx.expire(key, tx.after(expiration), expireAlways)
}

// ExpireNX is EXPIRE NX: [Tx.Expire] only if key has no TTL.
//
//zlite:command expire key
func (tx *Tx) ExpireNX(key string, expiration time.Duration) (bool, error) {
	return tx.expire(key, tx.after(expiration), expireNX)
}

// ExpireXX is EXPIRE XX: [Tx.Expire] only if key has a TTL.
//
//zlite:command expire key
func (tx *Tx) ExpireXX(key string, expiration time.Duration) (bool, error) {
	return tx.expire(key, tx.after(expiration), expireXX)
}

// ExpireGT is EXPIRE GT: [Tx.Expire] only if key has a TTL that ends sooner than the
// new one (no TTL counts as infinite, so it never applies).
//
//zlite:command expire key
func (tx *Tx) ExpireGT(key string, expiration time.Duration) (bool, error) {
	return tx.expire(key, tx.after(expiration), expireGT)
}

// ExpireLT is EXPIRE LT: [Tx.Expire] only if key has no TTL or one that ends later
// than the new one.
//
//zlite:command expire key
func (tx *Tx) ExpireLT(key string, expiration time.Duration) (bool, error) {
	return tx.expire(key, tx.after(expiration), expireLT)
}

// PExpire is PEXPIRE: [Tx.Expire], named as go-redis names it.
//
//zlite:command pexpire key
func (tx *Tx) PExpire(key string, expiration time.Duration) (bool, error) {
	return tx.expire(key, tx.after(expiration), expireAlways)
}

// ExpireAt is EXPIREAT: key expires at tm, truncated to the second as go-redis
// sends it; a time not after now deletes it. It reports whether the key exists.
// O(log k) for k keys with a TTL.
//
//zlite:command expireat key
func (tx *Tx) ExpireAt(key string, tm time.Time) (bool, error) {
	return tx.expire(key, tm.Unix()*1000, expireAlways)
}

// PExpireAt is PEXPIREAT: [Tx.ExpireAt] at millisecond precision.
//
//zlite:command pexpireat key
func (tx *Tx) PExpireAt(key string, tm time.Time) (bool, error) {
	return tx.expire(key, tm.UnixMilli(), expireAlways)
}

// ttl is the TTL family: -2 for a missing key, -1 without a TTL, else the time left
// (abs false) or the expiry time (abs true) in ms, never below 0.
func (tx *Tx) ttl(key string, abs bool) int64 {
	sh := tx.sh(key)
	i, ok := sh.lookup(key)
	if !ok {
		return -2
	}
	at, ok := sh.expiry(i)
	if !ok {
		return -1
	}
	if !abs {
		at -= tx.nowMs()
	}
	return max(at, 0)
}

// seconds rounds a TTL in ms to seconds, half up, as Redis's TTL does (-1 and -2
// kept), without overflowing near the largest times (Redis replies 9223372036854776
// for PEXPIREAT 9223372036854775807).
func seconds(ms int64) int64 {
	if ms < 0 {
		return ms
	}
	if ms%1000 >= 500 {
		return ms/1000 + 1
	}
	return ms / 1000
}

// durationOf is go-redis's DurationCmd value: -1 and -2 as they are (nanoseconds),
// other values times unit.
func durationOf(n int64, unit time.Duration) time.Duration {
	if n < 0 {
		return time.Duration(n)
	}
	return time.Duration(n) * unit
}

// TTL is TTL: the time key has left, rounded to the second; as go-redis, -2 (ns)
// when key does not exist and -1 when it has no TTL. O(1).
//
//zlite:command ttl key
func (tx *Tx) TTL(key string) (time.Duration, error) {
	return durationOf(seconds(tx.ttl(key, false)), time.Second), nil
}

// PTTL is PTTL: [Tx.TTL] in milliseconds.
//
//zlite:command pttl key
func (tx *Tx) PTTL(key string) (time.Duration, error) {
	return durationOf(tx.ttl(key, false), time.Millisecond), nil
}

// ExpireTime is EXPIRETIME: key's expiry time as a Unix time in seconds (as a
// Duration since the epoch, as go-redis returns it), or -2 (ns) when key does not
// exist and -1 when it has no TTL. O(1).
//
//zlite:command expiretime key
func (tx *Tx) ExpireTime(key string) (time.Duration, error) {
	return durationOf(seconds(tx.ttl(key, true)), time.Second), nil
}

// PExpireTime is PEXPIRETIME: [Tx.ExpireTime] in milliseconds.
//
//zlite:command pexpiretime key
func (tx *Tx) PExpireTime(key string) (time.Duration, error) {
	return durationOf(tx.ttl(key, true), time.Millisecond), nil
}

// Persist is PERSIST: it removes key's TTL, reporting whether it had one. O(1).
//
//zlite:command persist key
func (tx *Tx) Persist(key string) (bool, error) {
	if err := tx.writeErr(); err != nil {
		return false, err
	}
	sh := tx.sh(key)
	i, ok := sh.lookup(key)
	if !ok || !sh.clearExpiry(i) {
		return false, nil
	}
	sh.touch(key)
	if d := tx.log(); d != nil {
		d.cmd(nil, "persist", key)
	}
	return true, nil
}

// Copy is COPY source destination [DB db] [REPLACE]: it copies source's value and
// TTL to destination and returns 1, or 0 when source does not exist or destination
// does and replace is false. destDB must be 0 ([ErrDBIndex] otherwise: a DB is one
// keyspace); [ErrSameObject] when the keys are the same. Callers blocked on
// destination are served. O(n) for a value of n elements.
//
//zlite:command copy source destination
func (tx *Tx) Copy(source, destination string, destDB int, replace bool) (int64, error) {
	if err := tx.writeErr(); err != nil {
		return 0, err
	}
	if destDB != 0 {
		return 0, ErrDBIndex
	}
	if source == destination {
		return 0, ErrSameObject
	}
	src, dst := tx.sh(source), tx.sh(destination)
	i, ok := src.lookup(source)
	if !ok {
		return 0, nil
	}
	v := src.keys.value(i)
	at, ttl := src.expiry(i)
	if _, ok := dst.lookup(destination); ok {
		if !replace {
			return 0, nil
		}
		dst.del(destination)
	}
	dst.add(destination, clone(v))
	if ttl {
		dst.setExpiry(len(dst.keys.ents)-1, at)
	}
	if d := tx.log(); d != nil {
		d.cmd(nil, "copy", source, destination, "REPLACE")
	}
	tx.signal(destination)
	return 1, nil
}

// clone returns a deep copy of a key's value.
func clone(v any) any {
	switch v := v.(type) {
	case *zset.Set:
		return v.Clone()
	case *list.List:
		c := list.New()
		for _, s := range v.All() {
			c.PushBack(s)
		}
		return c
	}
	panic("zlite: cannot copy a value of this type")
}

// RenameNX is RENAMENX: [Tx.Rename] only if newKey does not exist; it reports
// whether the key was renamed (false when key and newKey are the same). O(1).
//
//zlite:command renamenx key newKey
func (tx *Tx) RenameNX(key, newKey string) (bool, error) {
	return tx.rename(key, newKey, true)
}

// Unlink is UNLINK: [Tx.Del] (zlite frees values through the garbage collector, so
// every delete is already non-blocking). O(1) per key.
//
//zlite:command unlink keys...
func (tx *Tx) Unlink(keys ...string) (int64, error) {
	return tx.Del(keys...)
}

// Touch is TOUCH: how many of keys exist (zlite keeps no access times to update).
// O(1) per key.
//
//zlite:command touch keys...
func (tx *Tx) Touch(keys ...string) (int64, error) {
	return tx.Exists(keys...)
}

// RandomKey is RANDOMKEY: a key chosen uniformly at random, false when the keyspace
// is empty. Expired keys it meets are deleted and the draw repeated. O(1) expected
// (at most half the key table's entries are deleted ones), plus O(1) per expired
// key deleted.
//
//zlite:command randomkey *
func (tx *Tx) RandomKey() (string, bool, error) {
	db := tx.db
	for {
		n := 0
		for b := tx.held; b != 0; b &= b - 1 {
			n += db.shards[bits.TrailingZeros64(b)].keys.n
		}
		if n == 0 {
			return "", false, nil
		}
		// The shard holding the r-th key, counting shard by shard.
		r := rand.IntN(n)
		var sh *shard
		for b := tx.held; b != 0; b &= b - 1 {
			sh = &db.shards[bits.TrailingZeros64(b)]
			if r < sh.keys.n {
				break
			}
			r -= sh.keys.n
		}
		if key, ok := sh.randomKey(); ok {
			return key, true, nil
		}
	}
}

// randomKey returns one of the shard's keys chosen uniformly, or false when the
// one drawn had expired (it is deleted: draw again). The shard holds a key.
func (sh *shard) randomKey() (string, bool) {
	t := &sh.keys
	for {
		i := rand.IntN(len(t.ents))
		if !t.live(i) {
			continue
		}
		if sh.expiredAt(i, sh.walkNow()) {
			sh.expireEntry(i, t.key(i))
			return "", false
		}
		return t.keyCopy(i), true
	}
}

// cmdExpire returns the Do form of EXPIRE, PEXPIRE, EXPIREAT or PEXPIREAT: relative
// adds the current time, unit is the argument's in ms (1000 or 1).
func cmdExpire(name string, relative bool, unit int64) *command {
	return &command{name: name, arity: -3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
		cond, err := parseExpireCond(a[3:])
		if err != nil {
			return nil, err
		}
		when, err := parseInt(a[2])
		if err != nil {
			return nil, err
		}
		if when > math.MaxInt64/unit || when < math.MinInt64/unit {
			return nil, errExpireTime(name)
		}
		when *= unit
		if relative {
			base := tx.nowMs()
			if when > math.MaxInt64-base {
				return nil, errExpireTime(name)
			}
			when += base
		}
		ok, err := tx.expire(a[1], when, cond)
		return boolInt(ok, err)
	}}
}

// parseExpireCond parses EXPIRE's options as Redis does: any number of NX, XX, GT,
// LT, then the compatibility checks.
func parseExpireCond(opts []string) (expireCond, error) {
	var c expireCond
	for _, o := range opts {
		switch {
		case strings.EqualFold(o, "nx"):
			c |= expireNX
		case strings.EqualFold(o, "xx"):
			c |= expireXX
		case strings.EqualFold(o, "gt"):
			c |= expireGT
		case strings.EqualFold(o, "lt"):
			c |= expireLT
		default:
			// Redis formats the option with %s (it ends at a NUL).
			o, _, _ = strings.Cut(o, "\x00")
			return 0, errors.New(errorText("ERR Unsupported option " + o))
		}
	}
	switch {
	case c&expireNX != 0 && c != expireNX:
		return 0, errors.New("ERR NX and XX, GT or LT options at the same time are not compatible")
	case c&(expireGT|expireLT) == expireGT|expireLT:
		return 0, errors.New("ERR GT and LT options at the same time are not compatible")
	}
	return c, nil
}

// boolInt turns a typed method's (bool, error) into a Do reply: 1 or 0.
func boolInt(ok bool, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	if ok {
		return int64(1), nil
	}
	return int64(0), nil
}

// cmdTTL returns the Do form of TTL, PTTL, EXPIRETIME or PEXPIRETIME.
func cmdTTL(name string, ms, abs bool) *command {
	return &command{name: name, arity: 2, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
		n := tx.ttl(a[1], abs)
		if !ms {
			n = seconds(n)
		}
		return n, nil
	}}
}

// cmdCopy is COPY source destination [DB destination-db] [REPLACE].
func cmdCopy(tx *Tx, a []string) (any, error) {
	replace, db := false, int64(0)
	for j := 3; j < len(a); j++ {
		switch {
		case strings.EqualFold(a[j], "replace"):
			replace = true
		case strings.EqualFold(a[j], "db") && j+1 < len(a):
			n, err := parseInt(a[j+1])
			if err != nil {
				return nil, err
			}
			if n != int64(int32(n)) {
				return nil, errors.New("ERR value is out of range, value must between -2147483648 and 2147483647")
			}
			if n != 0 {
				return nil, ErrDBIndex
			}
			db = n
			j++
		default:
			return nil, ErrSyntax
		}
	}
	return intReply(tx.Copy(a[1], a[2], int(db), replace))
}

func init() {
	register(
		cmdExpire("expire", true, 1000),
		cmdExpire("pexpire", true, 1),
		cmdExpire("expireat", false, 1000),
		cmdExpire("pexpireat", false, 1),
		cmdTTL("ttl", false, false),
		cmdTTL("pttl", true, false),
		cmdTTL("expiretime", false, true),
		cmdTTL("pexpiretime", true, true),
		&command{name: "persist", arity: 2, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return boolInt(tx.Persist(a[1]))
		}},
		&command{name: "copy", arity: -3, reply: replyBulk, write: true, run: cmdCopy},
		&command{name: "renamenx", arity: 3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return boolInt(tx.RenameNX(a[1], a[2]))
		}},
		&command{name: "unlink", arity: -2, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.Unlink(a[1:]...))
		}},
		&command{name: "touch", arity: -2, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.Touch(a[1:]...))
		}},
		&command{name: "randomkey", arity: 1, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return nullableString(tx.RandomKey())
		}},
	)
}
