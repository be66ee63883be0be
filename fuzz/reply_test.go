package fuzz

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// kind is the type of a reply: the RESP2 types plus a double for replies that a
// keyspace might hand back as float64.
type kind byte

const (
	kNil kind = iota
	kStr
	kInt
	kFloat
	kArr
	kErr
)

// val is a reply from either side in one comparable form.
type val struct {
	kind kind
	s    string // kStr, kErr
	i    int64
	f    float64
	a    []val
}

// toVal converts a go-redis style (reply, error) pair, as returned by
// redis.Cmd.Result() and by the keyspace's Do, into a val. A nil bulk reply may come
// as redis.Nil, as any error whose text is "redis: nil", or as (nil, nil).
func toVal(v any, err error) val {
	if err != nil {
		if errors.Is(err, redis.Nil) || err.Error() == string(redis.Nil) {
			return val{kind: kNil}
		}
		return val{kind: kErr, s: err.Error()}
	}
	switch x := v.(type) {
	case nil:
		return val{kind: kNil}
	case string:
		return val{kind: kStr, s: x}
	case []byte:
		return val{kind: kStr, s: string(x)}
	case int64:
		return val{kind: kInt, i: x}
	case int:
		return val{kind: kInt, i: int64(x)}
	case bool:
		if x {
			return val{kind: kInt, i: 1}
		}
		return val{kind: kInt, i: 0}
	case float64:
		return val{kind: kFloat, f: x}
	case []any:
		out := val{kind: kArr, a: make([]val, len(x))}
		for i, e := range x {
			out.a[i] = toVal(e, nil)
		}
		return out
	case []string:
		out := val{kind: kArr, a: make([]val, len(x))}
		for i, e := range x {
			out.a[i] = val{kind: kStr, s: e}
		}
		return out
	case error:
		return toVal(nil, x)
	}
	// Anything else (a RESP3 map, a struct) cannot equal a RESP2 reply: show its type.
	return val{kind: kErr, s: fmt.Sprintf("unexpected reply type %T: %v", v, v)}
}

func (v val) String() string {
	var b strings.Builder
	v.write(&b)
	return b.String()
}

func (v val) write(b *strings.Builder) {
	switch v.kind {
	case kNil:
		b.WriteString("(nil)")
	case kStr:
		b.WriteString(quote(v.s))
	case kInt:
		fmt.Fprintf(b, "(integer) %d", v.i)
	case kFloat:
		fmt.Fprintf(b, "(double) %v", v.f)
	case kErr:
		fmt.Fprintf(b, "(error) %s", v.s)
	case kArr:
		b.WriteByte('[')
		for i, e := range v.a {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b)
		}
		b.WriteByte(']')
	}
}

// quote writes an argument the way redis-cli accepts it: bare when plain, otherwise
// double-quoted with escapes.
func quote(s string) string {
	if s == "" {
		return `""`
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || c == '"' || c == '\'' || c == '\\' {
			return strconv.Quote(s)
		}
	}
	return s
}

func formatCmd(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = quote(a)
	}
	return strings.Join(q, " ")
}

// equalVal reports whether a and b are identical; with floats, two strings also match
// when both parse as the same double (see the "score-format" loosening), and a
// double matches a string holding the same value.
func equalVal(a, b val, floats bool) bool {
	if floats {
		if fa, ok := asFloat(a); ok {
			if fb, ok := asFloat(b); ok && sameFloat(fa, fb) {
				return true
			}
		}
	}
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case kStr, kErr:
		return a.s == b.s
	case kInt:
		return a.i == b.i
	case kFloat:
		return sameFloat(a.f, b.f)
	case kArr:
		return len(a.a) == len(b.a) && equalElems(a.a, b.a, floats)
	}
	return true
}

func equalElems(a, b []val, floats bool) bool {
	for i := range a {
		if !equalVal(a[i], b[i], floats) {
			return false
		}
	}
	return true
}

func asFloat(v val) (float64, bool) {
	switch v.kind {
	case kFloat:
		return v.f, true
	case kStr:
		f, err := strconv.ParseFloat(v.s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, false
		}
		return f, !math.IsNaN(f)
	}
	return 0, false
}

func sameFloat(a, b float64) bool {
	return a == b && math.Signbit(a) == math.Signbit(b)
}
