package zlite

import (
	"math"
	"strings"
)

// The string commands of Do: parse the words exactly as Redis does (same checks,
// same order of errors), then call the typed Tx code (string.go).

func init() {
	register(
		&command{name: "get", arity: 2, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return nullableString(tx.Get(a[1]))
		}},
		&command{name: "set", arity: -3, reply: replySet, write: true, run: cmdSet},
		&command{name: "setnx", arity: 3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			_, _, done, err := tx.set(a[1], a[2], setOptions{nx: true})
			return boolInt(done, err)
		}},
		&command{name: "setex", arity: 4, reply: replyStatus, write: true, run: cmdSetEx(1000)},
		&command{name: "psetex", arity: 4, reply: replyStatus, write: true, run: cmdSetEx(1)},
		&command{name: "getset", arity: 3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return nullableString(tx.GetSet(a[1], a[2]))
		}},
		&command{name: "getdel", arity: 2, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return nullableString(tx.GetDel(a[1]))
		}},
		&command{name: "getex", arity: -2, reply: replyBulk, write: true, run: cmdGetEx},
		&command{name: "mget", arity: -2, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			vs, ok, _ := tx.MGet(a[1:]...)
			return optionalStrings(vs, ok), nil
		}},
		&command{name: "mset", arity: -3, reply: replyStatus, write: true, run: func(tx *Tx, a []string) (any, error) {
			return okReply(tx.MSet(a[1:]...))
		}},
		&command{name: "msetnx", arity: -3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return boolInt(tx.MSetNX(a[1:]...))
		}},
		&command{name: "append", arity: 3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.Append(a[1], a[2]))
		}},
		&command{name: "strlen", arity: 2, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.StrLen(a[1]))
		}},
		&command{name: "incr", arity: 2, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.incrBy(a[1], 1))
		}},
		&command{name: "decr", arity: 2, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.incrBy(a[1], -1))
		}},
		&command{name: "incrby", arity: 3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			n, err := parseInt(a[2])
			if err != nil {
				return nil, err
			}
			return intReply(tx.incrBy(a[1], n))
		}},
		&command{name: "decrby", arity: 3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			n, err := parseInt(a[2])
			if err != nil {
				return nil, err
			}
			return intReply(tx.DecrBy(a[1], n))
		}},
		&command{name: "incrbyfloat", arity: 3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			r, err := tx.incrByFloat(a[1], a[2])
			if err != nil {
				return nil, err
			}
			return r, nil
		}},
		&command{name: "getrange", arity: 4, reply: replyBulk, run: cmdGetRange},
		&command{name: "substr", arity: 4, reply: replyBulk, run: cmdGetRange},
		&command{name: "setrange", arity: 4, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			off, err := parseInt(a[2])
			if err != nil {
				return nil, err
			}
			return intReply(tx.SetRange(a[1], off, a[3]))
		}},
	)
}

// expireArg is an expiry option's unit: seconds or milliseconds, relative (EX, PX)
// or absolute (EXAT, PXAT).
type expireArg struct {
	word string // the option, as set (nil when none)
	abs  bool
	unit int64 // ms per unit
}

// expireArgs are SET's and GETEX's expiry options.
var expireArgs = []expireArg{{"ex", false, 1000}, {"px", false, 1}, {"exat", true, 1000}, {"pxat", true, 1}}

// parseExpireArg converts an expiry option's value to Unix ms as Redis's
// getExpireMillisecondsOrReply: an integer, positive, not overflowing.
func (tx *Tx) parseExpireArg(name string, e expireArg, v string) (int64, error) {
	n, err := parseInt(v)
	if err != nil {
		return 0, err
	}
	if n <= 0 || e.unit == 1000 && n > math.MaxInt64/1000 {
		return 0, errExpireTime(name)
	}
	n *= e.unit
	if !e.abs {
		n += tx.nowMs() // wraps on overflow, as Redis's does, and is refused below
	}
	if n <= 0 {
		return 0, errExpireTime(name)
	}
	return n, nil
}

// cmdSet is SET key value [NX|XX] [GET] [EX s|PX ms|EXAT s|PXAT ms|KEEPTTL]: the
// options in any order, a repeated one allowed, conflicting ones a syntax error (as
// Redis's parseExtendedStringArgumentsOrReply); the expiry value is checked before
// GET's type check.
func cmdSet(tx *Tx, a []string) (any, error) {
	var o setOptions
	var exp *expireArg
	var expWord string
	for j := 3; j < len(a); j++ {
		w := a[j]
		switch {
		case strings.EqualFold(w, "nx") && !o.xx:
			o.nx = true
		case strings.EqualFold(w, "xx") && !o.nx:
			o.xx = true
		case strings.EqualFold(w, "get"):
			o.get = true
		case strings.EqualFold(w, "keepttl") && exp == nil:
			o.keepTTL = true
		default:
			e := expireOption(w)
			if e == nil || o.keepTTL || exp != nil && exp != e || j == len(a)-1 {
				return nil, ErrSyntax
			}
			exp, expWord = e, a[j+1]
			j++
		}
	}
	if exp != nil {
		at, err := tx.parseExpireArg("set", *exp, expWord)
		if err != nil {
			return nil, err
		}
		o.at = at
	}
	old, had, done, err := tx.set(a[1], a[2], o)
	switch {
	case err != nil:
		return nil, err
	case o.get:
		if !had {
			return nil, nil
		}
		return old, nil
	case !done:
		return nil, nil
	}
	return "OK", nil
}

// expireOption returns the expiry option w names (case-insensitively), nil if none.
func expireOption(w string) *expireArg {
	for i := range expireArgs {
		if strings.EqualFold(w, expireArgs[i].word) {
			return &expireArgs[i]
		}
	}
	return nil
}

// cmdSetEx returns SETEX (unit 1000: seconds) or PSETEX (1: milliseconds).
func cmdSetEx(unit int64) func(tx *Tx, a []string) (any, error) {
	return func(tx *Tx, a []string) (any, error) {
		name := strings.ToLower(a[0])
		at, err := tx.parseExpireArg(name, expireArg{unit: unit}, a[2])
		if err != nil {
			return nil, err
		}
		_, _, _, err = tx.set(a[1], a[3], setOptions{at: at})
		return okReply(err)
	}
}

// cmdGetEx is GETEX key [EX s|PX ms|EXAT s|PXAT ms|PERSIST]; the key's type is
// checked before the expiry value, as in Redis.
func cmdGetEx(tx *Tx, a []string) (any, error) {
	var o getExOptions
	var exp *expireArg
	var expWord string
	for j := 2; j < len(a); j++ {
		w := a[j]
		if strings.EqualFold(w, "persist") && exp == nil {
			o.persist = true
			continue
		}
		e := expireOption(w)
		if e == nil || o.persist || exp != nil && exp != e || j == len(a)-1 {
			return nil, ErrSyntax
		}
		exp, expWord = e, a[j+1]
		j++
	}
	s, err := tx.stringRead(a[1])
	if s == nil || err != nil {
		return nil, err
	}
	if exp != nil {
		at, err := tx.parseExpireArg("getex", *exp, expWord)
		if err != nil {
			return nil, err
		}
		o.at, o.abs = at, exp.abs
	}
	return nullableString(tx.getEx(a[1], o))
}

// cmdGetRange is GETRANGE and its old name SUBSTR.
func cmdGetRange(tx *Tx, a []string) (any, error) {
	start, end, err := parseStartStop(a)
	if err != nil {
		return nil, err
	}
	r, err := tx.GetRange(a[1], start, end)
	if err != nil {
		return nil, err
	}
	return r, nil
}
