package zlite

import (
	"errors"
	"math"
	"time"
)

// The expiry commands: EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT, TTL, PTTL, EXPIRETIME,
// PEXPIRETIME and PERSIST. The Do forms are in expire_cmd.go; how expiry times are kept
// and keys reclaimed is in expire_store.go.

// ErrInvalidExpireTime matches (with errors.Is) the error of EXPIRE, PEXPIRE,
// EXPIREAT and PEXPIREAT when the time overflows 64-bit milliseconds, an [*Error]
// whose text names the command: "ERR invalid expire time in 'expire' command".
var ErrInvalidExpireTime = errors.New("ERR invalid expire time")

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
		tx.notify(EventsGeneric, "del", key)
		if d := tx.log(); d != nil {
			d.cmd(nil, "del", key)
		}
		return true, nil
	}
	sh.setExpiry(i, at)
	sh.touch(key)
	tx.notify(EventsGeneric, "expire", key)
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
		tx.missed(key)
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
	tx.notify(EventsGeneric, "persist", key)
	if d := tx.log(); d != nil {
		d.cmd(nil, "persist", key)
	}
	return true, nil
}
