package zlite

import (
	"strings"
)

// The set commands of Do: parse the words exactly as Redis does (same checks, same
// order of errors), then call the typed Tx code (set.go).

func init() {
	register(
		&command{name: "sadd", arity: -3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.SAdd(a[1], a[2:]...))
		}},
		&command{name: "srem", arity: -3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.SRem(a[1], a[2:]...))
		}},
		&command{name: "smembers", arity: 2, reply: replySetOf, run: func(tx *Tx, a []string) (any, error) {
			return stringsOrErr(tx.SMembers(a[1]))
		}},
		&command{name: "sismember", arity: 3, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return boolInt(tx.SIsMember(a[1], a[2]))
		}},
		&command{name: "smismember", arity: -3, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			in, err := tx.SMIsMember(a[1], a[2:]...)
			if err != nil {
				return nil, err
			}
			out := make([]any, len(in))
			for i, b := range in {
				out[i] = int64(0)
				if b {
					out[i] = int64(1)
				}
			}
			return out, nil
		}},
		&command{name: "scard", arity: 2, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.SCard(a[1]))
		}},
		&command{name: "spop", arity: -2, reply: replySPop, write: true, run: cmdSPop},
		&command{name: "srandmember", arity: -2, reply: replyBulk, run: cmdSRandMember},
		&command{name: "smove", arity: 4, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return boolInt(tx.SMove(a[1], a[2], a[3]))
		}},
		&command{name: "sinter", arity: -2, reply: replySetOf, run: func(tx *Tx, a []string) (any, error) {
			return stringsOrErr(tx.SInter(a[1:]...))
		}},
		&command{name: "sunion", arity: -2, reply: replySetOf, run: func(tx *Tx, a []string) (any, error) {
			return stringsOrErr(tx.SUnion(a[1:]...))
		}},
		&command{name: "sdiff", arity: -2, reply: replySetOf, run: func(tx *Tx, a []string) (any, error) {
			return stringsOrErr(tx.SDiff(a[1:]...))
		}},
		&command{name: "sinterstore", arity: -3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.SInterStore(a[1], a[2:]...))
		}},
		&command{name: "sunionstore", arity: -3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.SUnionStore(a[1], a[2:]...))
		}},
		&command{name: "sdiffstore", arity: -3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.SDiffStore(a[1], a[2:]...))
		}},
		&command{name: "sintercard", arity: -3, reply: replyBulk, run: cmdSInterCard},
		&command{name: "sscan", arity: -3, reply: replyBulk, run: cmdSScan},
	)
}

// cmdSPop is SPOP key [count].
func cmdSPop(tx *Tx, a []string) (any, error) {
	switch len(a) {
	case 2:
		return nullableString(tx.SPop(a[1]))
	case 3:
		n, err := parseInt(a[2])
		if err != nil {
			return nil, ErrNotPositive
		}
		return stringsOrErr(tx.SPopN(a[1], n))
	}
	return nil, ErrSyntax
}

// cmdSRandMember is SRANDMEMBER key [count].
func cmdSRandMember(tx *Tx, a []string) (any, error) {
	switch len(a) {
	case 2:
		return nullableString(tx.SRandMember(a[1]))
	case 3:
		n, err := parseInt(a[2])
		if err != nil {
			return nil, err
		}
		return stringsOrErr(tx.SRandMemberN(a[1], n))
	}
	return nil, ErrSyntax
}

// cmdSInterCard is SINTERCARD numkeys key... [LIMIT limit].
func cmdSInterCard(tx *Tx, a []string) (any, error) {
	n, err := parseInt(a[1])
	if err != nil || n < 1 {
		return nil, ErrNumKeys
	}
	if n > int64(len(a)-2) {
		return nil, ErrNumKeysArgs
	}
	keys := a[2 : 2+n]
	var limit int64
	for j := 2 + int(n); j < len(a); j++ {
		if !strings.EqualFold(a[j], "limit") || j+1 == len(a) {
			return nil, ErrSyntax
		}
		j++
		if limit, err = parseInt(a[j]); err != nil || limit < 0 {
			return nil, ErrLimitNegative
		}
	}
	return intReply(tx.SInterCard(limit, keys...))
}

// cmdSScan is SSCAN key cursor [MATCH pattern] [COUNT count].
func cmdSScan(tx *Tx, a []string) (any, error) {
	return cmdScanKey(a, func(key string) (scanStep, error) {
		s, err := tx.setRead(key)
		if s == nil || err != nil {
			return nil, err
		}
		return func(cursor uint64, match string, count int64) ([]any, uint64) {
			out, next := sscan(s, cursor, match, count)
			return stringsReply(out), next
		}, nil
	})
}
