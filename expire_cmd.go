package zlite

import (
	"errors"
	"math"
	"strings"
)

// The expiry commands of Do: parse the words exactly as Redis does, then call the typed
// Tx code (expire.go).

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
