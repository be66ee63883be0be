package zlite

import (
	"math"
	"strings"
)

// The hash commands of Do: parse the words exactly as Redis does (same checks,
// same order of errors), then call the typed Tx code (hash.go).

func init() {
	register(
		&command{name: "hset", arity: -4, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.HSet(a[1], a[2:]...))
		}},
		&command{name: "hmset", arity: -4, reply: replyStatus, write: true, run: func(tx *Tx, a []string) (any, error) {
			return okReply(tx.HMSet(a[1], a[2:]...))
		}},
		&command{name: "hsetnx", arity: 4, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return boolInt(tx.HSetNX(a[1], a[2], a[3]))
		}},
		&command{name: "hget", arity: 3, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return nullableString(tx.HGet(a[1], a[2]))
		}},
		&command{name: "hmget", arity: -3, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			vs, ok, err := tx.HMGet(a[1], a[2:]...)
			if err != nil {
				return nil, err
			}
			return optionalStrings(vs, ok), nil
		}},
		&command{name: "hdel", arity: -3, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.HDel(a[1], a[2:]...))
		}},
		&command{name: "hexists", arity: 3, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return boolInt(tx.HExists(a[1], a[2]))
		}},
		&command{name: "hlen", arity: 2, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.HLen(a[1]))
		}},
		&command{name: "hstrlen", arity: 3, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.HStrLen(a[1], a[2]))
		}},
		&command{name: "hgetall", arity: 2, reply: replyMap, run: func(tx *Tx, a []string) (any, error) {
			h, err := tx.hashRead(a[1])
			if err != nil {
				return nil, err
			}
			out := []any{}
			if h != nil {
				out = make([]any, 0, 2*h.Len())
				for f, v := range h.All() {
					out = append(out, f, v)
				}
			}
			return out, nil
		}},
		&command{name: "hkeys", arity: 2, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return stringsOrErr(tx.HKeys(a[1]))
		}},
		&command{name: "hvals", arity: 2, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return stringsOrErr(tx.HVals(a[1]))
		}},
		&command{name: "hincrby", arity: 4, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			n, err := parseInt(a[3])
			if err != nil {
				return nil, err
			}
			return intReply(tx.HIncrBy(a[1], a[2], n))
		}},
		&command{name: "hincrbyfloat", arity: 4, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			r, err := tx.hincrByFloat(a[1], a[2], a[3])
			if err != nil {
				return nil, err
			}
			return r, nil
		}},
		&command{name: "hrandfield", arity: -2, reply: replyRandPairs, run: cmdHRandField},
		&command{name: "hscan", arity: -3, reply: replyBulk, run: cmdHScan},
	)
}

// optionalStrings is the reply of MGET and HMGET: each value, or nil where absent.
func optionalStrings(vs []string, ok []bool) []any {
	r := make([]any, len(vs))
	for i, v := range vs {
		if ok[i] {
			r[i] = v
		}
	}
	return r
}

// stringsOrErr turns a typed method's ([]string, error) into a Do reply.
func stringsOrErr(ss []string, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return stringsReply(ss), nil
}

// cmdHRandField is HRANDFIELD key [count [WITHVALUES]]: the count is parsed, then
// the options, then the key is read.
func cmdHRandField(tx *Tx, a []string) (any, error) {
	if len(a) == 2 {
		h, err := tx.hashRead(a[1])
		if h == nil || err != nil {
			return nil, err
		}
		f, _, _ := h.Random(nil)
		return f, nil
	}
	n, err := parseInt(a[2])
	if err != nil {
		return nil, err
	}
	if n == math.MinInt64 {
		return nil, ErrRandCountRange
	}
	if len(a) > 4 || len(a) == 4 && !strings.EqualFold(a[3], "withvalues") {
		return nil, ErrSyntax
	}
	withValues := len(a) == 4
	kvs, err := tx.hrandField(a[1], n, withValues)
	if err != nil {
		return nil, err
	}
	step := 1
	if withValues {
		step = 2
	}
	out := make([]any, 0, step*len(kvs))
	for _, kv := range kvs {
		out = append(out, kv.Key)
		if withValues {
			out = append(out, kv.Value)
		}
	}
	return out, nil
}

// cmdHScan is HSCAN key cursor [MATCH pattern] [COUNT count].
func cmdHScan(tx *Tx, a []string) (any, error) {
	return cmdScanKey(a, func(key string) (scanStep, error) {
		h, err := tx.hashRead(key)
		if h == nil || err != nil {
			return nil, err
		}
		return func(cursor uint64, match string, count int64) ([]any, uint64) {
			out, next := hscan(h, cursor, match, count)
			return stringsReply(out), next
		}, nil
	})
}
