package zlite

import (
	"errors"
	"strconv"
)

// The sorted-set commands' errors, argument types and shared helpers. The commands
// are in zset_*.go by family (write, read, range, pop, scan, algebra). Each typed
// method on *Tx validates its arguments in Redis's order (syntax and option errors,
// then numbers, then the key's type) so that bad input changes nothing; the *DB
// method of the same name, generated into db_methods.go, runs it under the keyspace
// lock. zset_cmd.go parses the same commands for Do.

// Errors of the sorted-set commands beyond those of the zset package. Each one's
// Error() is Redis's reply text.
var (
	// ErrIncrPair is ZADD's reply to INCR with more than one score-member pair.
	ErrIncrPair = errors.New("ERR INCR option supports a single increment-element pair")
	// ErrRangeLimit is ZRANGE's reply to LIMIT without BYSCORE or BYLEX.
	ErrRangeLimit = errors.New("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
	// ErrRangeWithScoresByLex is ZRANGE's reply to WITHSCORES with BYLEX.
	ErrRangeWithScoresByLex = errors.New("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
	// ErrWeightNotFloat is ZUNION's and ZINTER's reply to a malformed weight.
	ErrWeightNotFloat = errors.New("ERR weight value is not a float")
	// ErrLimitNegative is ZINTERCARD's reply to a negative or malformed LIMIT.
	ErrLimitNegative = errors.New("ERR LIMIT can't be negative")
	// ErrOutOfRange is ZRANDMEMBER's reply to a count too large to double (WITHSCORES).
	ErrOutOfRange = errors.New("ERR value is out of range")
	// ErrRandCountRange is ZRANDMEMBER's reply to the count -9223372036854775808.
	ErrRandCountRange = errors.New("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
	// ErrNoInputKeys matches (with errors.Is) the reply of ZUNION, ZINTER, ZDIFF, their
	// STORE forms and ZINTERCARD to numkeys < 1, whose text names the command:
	// "ERR at least 1 input key is needed for 'zunion' command".
	ErrNoInputKeys = errors.New("ERR at least 1 input key is needed")
)

// ZAddArgs are ZADD's options and score-member pairs, as in go-redis. NX adds new
// members only; XX updates existing members only (and never creates the key); GT and
// LT update only when the new score is greater or less than the current one; Ch
// counts changed members as well as new ones.
type ZAddArgs struct {
	NX, XX, LT, GT, Ch bool
	Members            []Z
}

// ZRangeBy is the range of ZRANGEBYSCORE and ZRANGEBYLEX, as in go-redis: Min and
// Max are Redis's bounds ("-inf", "(1.5", "+inf" or "-", "[a", "(b", "+"). Offset
// and Count are LIMIT's; both 0 means no LIMIT, a negative Count means all from
// Offset, a negative Offset gives nothing.
type ZRangeBy struct {
	Min, Max      string
	Offset, Count int64
}

// ZRangeArgs are the arguments of ZRANGE and ZRANGESTORE, as in go-redis. Start and
// Stop are ranks (integers) or, with ByScore or ByLex, bounds as in [ZRangeBy]; they
// may be strings or Go numbers. With Rev, Start is the high end of a score or lex
// range. Offset and Count are LIMIT's (both 0: none).
type ZRangeArgs struct {
	Key         string
	Start, Stop any
	ByScore     bool
	ByLex       bool
	Rev         bool
	Offset      int64
	Count       int64
}

// ZStore are the inputs of ZUNION, ZINTER and their STORE forms, as in go-redis:
// Weights multiplies each input's scores (nil: all 1; else one per key) and
// Aggregate is "SUM" (the default when empty), "MIN" or "MAX", in any case.
type ZStore struct {
	Keys      []string
	Weights   []float64
	Aggregate string
}

// zMembers returns the members of zs, never nil.
func zMembers(zs []Z) []string {
	r := make([]string, len(zs))
	for i, z := range zs {
		r[i] = z.Member
	}
	return r
}

// zOrEmpty returns zs, or an empty non-nil slice for nil.
func zOrEmpty(zs []Z) []Z {
	if zs == nil {
		return []Z{}
	}
	return zs
}

// zArg formats a ZRangeArgs bound as go-redis sends it.
func zArg(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case int:
		return strconv.Itoa(x)
	case int8:
		return strconv.FormatInt(int64(x), 10)
	case int16:
		return strconv.FormatInt(int64(x), 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint:
		return strconv.FormatUint(uint64(x), 10)
	case uint8:
		return strconv.FormatUint(uint64(x), 10)
	case uint16:
		return strconv.FormatUint(uint64(x), 10)
	case uint32:
		return strconv.FormatUint(uint64(x), 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float32:
		return strconv.FormatFloat(float64(x), 'f', -1, 32)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		if x {
			return "1"
		}
		return "0"
	case nil:
		return ""
	}
	return "\x00invalid"
}
