package zlite

import (
	"math"
	"strings"

	"github.com/zlite/zlite/list"
)

// The list commands of Do: parse the words exactly as Redis (same checks, same order
// of errors), then call the typed Tx method.

func init() {
	register(
		&command{name: "lpush", arity: -3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.LPush(a[1], a[2:]...))
		}},
		&command{name: "rpush", arity: -3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.RPush(a[1], a[2:]...))
		}},
		&command{name: "lpushx", arity: -3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.LPushX(a[1], a[2:]...))
		}},
		&command{name: "rpushx", arity: -3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.RPushX(a[1], a[2:]...))
		}},
		&command{name: "lpop", arity: -2, reply: replyPopCount, write: true, run: cmdPop(true)},
		&command{name: "rpop", arity: -2, reply: replyPopCount, write: true, run: cmdPop(false)},
		&command{name: "llen", arity: 2, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.LLen(a[1]))
		}},
		&command{name: "lindex", arity: 3, reply: replyBulk, run: cmdLIndex},
		&command{name: "lset", arity: 4, reply: replyStatus, write: true, run: cmdLSet},
		&command{name: "lrange", arity: 4, reply: replyBulk, run: cmdLRange},
		&command{name: "linsert", arity: 5, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.LInsert(a[1], a[2], a[3], a[4]))
		}},
		&command{name: "lrem", arity: 4, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			n, err := parseInt(a[2])
			if err != nil {
				return nil, err
			}
			return intReply(tx.LRem(a[1], n, a[3]))
		}},
		&command{name: "ltrim", arity: 4, reply: replyStatus, write: true, run: cmdLTrim},
		&command{name: "lpos", arity: -3, reply: replyBulk, run: cmdLPos},
		&command{name: "lmove", arity: 5, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return nullableString(tx.LMove(a[1], a[2], a[3], a[4]))
		}},
		&command{name: "rpoplpush", arity: 3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return nullableString(tx.RPopLPush(a[1], a[2]))
		}},
		&command{name: "lmpop", arity: -4, reply: replyArray, write: true, run: cmdLMPop},
	)
}

// intReply turns a typed method's (int64, error) into a Do reply.
func intReply(n int64, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return n, nil
}

// okReply turns a typed method's error into a Do reply: "OK" on success.
func okReply(err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return "OK", nil
}

// nullableString turns a typed method's (string, bool, error) into a Do reply: the
// string, or nil (a null reply) when absent.
func nullableString(s string, ok bool, err error) (any, error) {
	if err != nil || !ok {
		return nil, err
	}
	return s, nil
}

// cmdPop is LPOP/RPOP key [count]; a count beyond one is an arity error, as in Redis.
func cmdPop(left bool) func(tx *Tx, a []string) (any, error) {
	return func(tx *Tx, a []string) (any, error) {
		switch len(a) {
		case 2:
			return nullableString(tx.popOne(a[1], left))
		case 3:
			n, err := parseInt(a[2])
			if err != nil || n < 0 {
				return nil, ErrNotPositive
			}
			vs, err := tx.popCount(a[1], left, n)
			if err != nil || vs == nil {
				return nil, err
			}
			return stringsReply(vs), nil
		}
		return nil, errArity(strings.ToLower(a[0]))
	}
}

func cmdLIndex(tx *Tx, a []string) (any, error) {
	// Redis looks the key up before it parses the index.
	l, err := tx.listRead(a[1])
	if l == nil || err != nil {
		return nil, err
	}
	i, err := parseInt(a[2])
	if err != nil {
		return nil, err
	}
	return nullableString(tx.LIndex(a[1], i))
}

func cmdLSet(tx *Tx, a []string) (any, error) {
	// Redis checks the key (no such key, WRONGTYPE) before it parses the index.
	l, err := tx.listWrite(a[1])
	if err != nil {
		return nil, err
	}
	if l == nil {
		return nil, ErrNoSuchKey
	}
	i, err := parseInt(a[2])
	if err != nil {
		return nil, err
	}
	return okReply(tx.LSet(a[1], i, a[3]))
}

func cmdLRange(tx *Tx, a []string) (any, error) {
	start, stop, err := parseStartStop(a)
	if err != nil {
		return nil, err
	}
	vs, err := tx.LRange(a[1], start, stop)
	if err != nil {
		return nil, err
	}
	return stringsReply(vs), nil
}

func cmdLTrim(tx *Tx, a []string) (any, error) {
	start, stop, err := parseStartStop(a)
	if err != nil {
		return nil, err
	}
	return okReply(tx.LTrim(a[1], start, stop))
}

// cmdLPos is LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]: options
// are checked in the order given, before the key is looked up.
func cmdLPos(tx *Tx, a []string) (any, error) {
	rank, count, maxLen := int64(1), int64(-1), int64(0)
	for j := 3; j < len(a); j++ {
		more := j+1 < len(a)
		switch {
		case strings.EqualFold(a[j], "rank") && more:
			j++
			n, err := parseInt(a[j])
			if err != nil {
				return nil, err
			}
			if n == math.MinInt64 {
				// Redis 7.2+ (followed here) bounds RANK to ±LONG_MAX; 7.0 accepted it.
				return nil, list.ErrRankOutOfRange
			}
			if n == 0 {
				return nil, list.ErrRankZero
			}
			rank = n
		case strings.EqualFold(a[j], "count") && more:
			j++
			n, err := parseInt(a[j])
			if err != nil || n < 0 {
				return nil, list.ErrNegativeCount
			}
			count = n
		case strings.EqualFold(a[j], "maxlen") && more:
			j++
			n, err := parseInt(a[j])
			if err != nil || n < 0 {
				return nil, list.ErrNegativeMaxLen
			}
			maxLen = n
		default:
			return nil, ErrSyntax
		}
	}
	if count == -1 {
		i, ok, err := tx.LPos(a[1], a[2], LPosArgs{Rank: rank, MaxLen: maxLen})
		if err != nil || !ok {
			return nil, err
		}
		return i, nil
	}
	idx, err := tx.LPosCount(a[1], a[2], count, LPosArgs{Rank: rank, MaxLen: maxLen})
	if err != nil {
		return nil, err
	}
	r := make([]any, len(idx))
	for i, x := range idx {
		r[i] = x
	}
	return r, nil
}

// parseMPop parses the "numkeys key... where [COUNT n]" tail shared by LMPOP and
// BLMPOP (from a[i]), with Redis's errors in Redis's order; parseWhere reads where.
func parseMPop(a []string, i int, parseWhere func(string) (bool, error)) (keys []string, where bool, count int, err error) {
	n, err := parseInt(a[i])
	if err != nil || n < 1 {
		return nil, false, 0, ErrNumKeys
	}
	// Compare with the arguments left before adding, so a huge numkeys cannot overflow.
	if n >= int64(len(a)-i-1) {
		return nil, false, 0, ErrSyntax
	}
	wi := int64(i) + n + 1
	where, err = parseWhere(a[wi])
	if err != nil {
		return nil, false, 0, err
	}
	count = -1
	for j := int(wi) + 1; j < len(a); j++ {
		if count == -1 && strings.EqualFold(a[j], "count") && j+1 < len(a) {
			j++
			c, err := parseInt(a[j])
			if err != nil || c < 1 {
				return nil, false, 0, ErrCountPositive
			}
			count = clampInt(c)
			continue
		}
		return nil, false, 0, ErrSyntax
	}
	if count == -1 {
		count = 1
	}
	return a[i+1 : wi], where, count, nil
}

// mpopListReply is LMPOP/BLMPOP's reply: [key, [elements...]].
func mpopListReply(r popReq) any {
	return []any{r.key, stringsReply(r.vals)}
}

func cmdLMPop(tx *Tx, a []string) (any, error) { return tx.mpopOnce(popList, a) }
