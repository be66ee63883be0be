package fuzz

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/zlite/zlite"
)

// Words FuzzDo builds argument vectors from, besides the generator's pools.
var doWords = []string{"NX", "XX", "GT", "LT", "CH", "INCR", "WITHSCORES", "WITHSCORE", "LIMIT", "BYSCORE",
	"BYLEX", "REV", "LEFT", "RIGHT", "BEFORE", "AFTER", "MIN", "MAX", "COUNT", "RANK", "MAXLEN", "MATCH",
	"TYPE", "WEIGHTS", "AGGREGATE", "SUM", "REPLACE", "*", "0", "1", "-1", "2", "inf", "-inf", "(1", "[a",
	"-", "+", "", "z1", "l1", "x1", "missing"}

var blockingCommands = map[string]bool{"BLPOP": true, "BRPOP": true, "BLMOVE": true, "BRPOPLPUSH": true,
	"BLMPOP": true, "BZPOPMIN": true, "BZPOPMAX": true, "BZMPOP": true}

// redisError is the shape of every Redis error reply: an upper-case code, a space,
// a message.
var redisError = regexp.MustCompile(`^[A-Z]+ \S`)

type dodecoder struct {
	byteSource
	g *gen
}

// args decodes one argument vector: either a command from the transcript generator
// (well-formed or nearly) or a name followed by arbitrary words and bytes.
func (d *dodecoder) args() []string {
	if d.intn(2) == 0 {
		s := d.g.draw()
		return s[len(s)-1]
	}
	names := allCommands()
	var out []string
	switch d.intn(10) {
	case 0:
		out = []string{d.g.pick([]string{"", "PING", "GET", "NOSUCH", "zadd\x00", "Z"})}
	default:
		out = []string{d.g.cased(names[d.intn(len(names))])}
	}
	for range d.intn(7) {
		switch d.intn(4) {
		case 0:
			b := make([]byte, d.intn(6))
			for i := range b {
				b[i] = byte(d.intn(256))
			}
			out = append(out, string(b))
		case 1:
			out = append(out, d.g.score())
		case 2:
			out = append(out, d.g.pick(doWords))
		default:
			out = append(out, d.g.pick(slices.Concat(anyKeys, boundPl, lexPl, idxPl, valuePl)))
		}
	}
	return out
}

// FuzzDo sends argument vectors decoded from the input to DB.Do. Do must not panic
// or hang (each call runs in a synctest bubble with a deadline, so blocking commands
// return as soon as nothing else can happen), every error must be Redis-shaped, every
// reply shaped like go-redis's, and after each command the keyspace's invariants must
// hold: no empty keys, TYPE agreeing with the commands that read the key, ZCARD ==
// len(ZRANGE 0 -1) with members in (score, member) order and ZSCORE/ZRANK agreeing,
// LLEN == len(LRANGE 0 -1), DBSIZE == len(KEYS *).
func FuzzDo(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x00\x01\x00\x02\x00\x03\x00\x04\x00\x05\x00\x06\x00\x07"))
	f.Add([]byte("\x01\x05\x03\x00\x01\x02\x01\x05\x04\x00\x01\x02\x01\x05\x03\x00\x01"))
	f.Add([]byte("blpop l1 0; rpush l1 a; bzpopmin z1 0; zadd z1 1 a"))
	f.Fuzz(func(t *testing.T, data []byte) {
		synctest.Test(t, func(t *testing.T) {
			d := &dodecoder{byteSource: byteSource{b: data}}
			d.g = &gen{src: &d.byteSource}
			db := zlite.New()
			var log []string
			for n := 0; n < 100 && !d.done(); n++ {
				args := d.args()
				log = append(log, formatCmd(args))
				v, panicked, err := doRecover(db, args)
				if panicked != nil {
					t.Fatalf("after:\n  %s\nDo panicked: %v", strings.Join(log, "\n  "), panicked)
				}
				blocking := len(args) > 0 && blockingCommands[strings.ToUpper(args[0])]
				switch {
				case err == nil:
				case blocking && errors.Is(err, context.DeadlineExceeded):
				case !redisError.MatchString(err.Error()):
					t.Fatalf("%s\nDo(%s) error %q is not Redis-shaped", strings.Join(log, "\n"), formatCmd(args), err)
				}
				if msg := replyShape(v); msg != "" {
					t.Fatalf("%s\nDo(%s) = %#v: %s", strings.Join(log, "\n"), formatCmd(args), v, msg)
				}
				if msg := keyspaceInvariants(db); msg != "" {
					t.Fatalf("after:\n  %s\n%s", strings.Join(log, "\n  "), msg)
				}
			}
		})
	})
}

// doRecover runs one command with a deadline and turns a panic into a value.
func doRecover(db *zlite.DB, args []string) (v, panicked any, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	defer func() { panicked = recover() }()
	v, err = db.Do(ctx, args...)
	return v, nil, err
}

// replyShape returns "" when v is a reply go-redis's Do could return with RESP2.
func replyShape(v any) string {
	switch x := v.(type) {
	case nil, string, int64:
		return ""
	case []any:
		for _, e := range x {
			if msg := replyShape(e); msg != "" {
				return msg
			}
		}
		return ""
	}
	return fmt.Sprintf("reply of type %T", v)
}

// keyspaceInvariants checks db through its own commands and returns what is wrong.
func keyspaceInvariants(db *zlite.DB) string {
	ctx := context.Background()
	do := func(args ...string) (any, error) { return db.Do(ctx, args...) }
	keys, err := do("KEYS", "*")
	if err != nil {
		return "KEYS *: " + err.Error()
	}
	ks, _ := keys.([]any)
	if size, _ := do("DBSIZE"); size != int64(len(ks)) {
		return fmt.Sprintf("DBSIZE = %v; KEYS * lists %d keys", size, len(ks))
	}
	for _, k := range ks {
		key, _ := k.(string)
		typ, _ := do("TYPE", key)
		switch typ {
		case "zset":
			card, _ := do("ZCARD", key)
			r, err := do("ZRANGE", key, "0", "-1", "WITHSCORES")
			rs, _ := r.([]any)
			if err != nil || card == int64(0) || card != int64(len(rs)/2) {
				return fmt.Sprintf("zset %q: ZCARD = %v, ZRANGE 0 -1 WITHSCORES = %v, %v", key, card, r, err)
			}
			var prevM string
			var prevS float64
			for i := 0; i < len(rs); i += 2 {
				m, _ := rs[i].(string)
				ss, _ := rs[i+1].(string)
				sc, err := strconv.ParseFloat(ss, 64)
				if err != nil {
					return fmt.Sprintf("zset %q: score %q does not parse", key, ss)
				}
				if i > 0 && (sc < prevS || sc == prevS && m <= prevM) {
					return fmt.Sprintf("zset %q out of order: (%v, %q) after (%v, %q)", key, sc, m, prevS, prevM)
				}
				if got, _ := do("ZSCORE", key, m); got != ss {
					return fmt.Sprintf("zset %q: ZSCORE %q = %v; ZRANGE says %s", key, m, got, ss)
				}
				if got, _ := do("ZRANK", key, m); got != int64(i/2) {
					return fmt.Sprintf("zset %q: ZRANK %q = %v; want %d", key, m, got, i/2)
				}
				prevM, prevS = m, sc
			}
			if _, err := do("LLEN", key); err == nil || !strings.HasPrefix(err.Error(), "WRONGTYPE") {
				return fmt.Sprintf("LLEN on zset %q: %v; want WRONGTYPE", key, err)
			}
		case "list":
			n, _ := do("LLEN", key)
			r, err := do("LRANGE", key, "0", "-1")
			rs, _ := r.([]any)
			if err != nil || n == int64(0) || n != int64(len(rs)) {
				return fmt.Sprintf("list %q: LLEN = %v, LRANGE 0 -1 = %d items, %v", key, n, len(rs), err)
			}
			if first, _ := do("LINDEX", key, "0"); first != rs[0] {
				return fmt.Sprintf("list %q: LINDEX 0 = %v; LRANGE starts %v", key, first, rs[0])
			}
			if last, _ := do("LINDEX", key, "-1"); last != rs[len(rs)-1] {
				return fmt.Sprintf("list %q: LINDEX -1 = %v; LRANGE ends %v", key, last, rs[len(rs)-1])
			}
			if _, err := do("ZCARD", key); err == nil || !strings.HasPrefix(err.Error(), "WRONGTYPE") {
				return fmt.Sprintf("ZCARD on list %q: %v; want WRONGTYPE", key, err)
			}
		default:
			return fmt.Sprintf("KEYS lists %q but TYPE says %v", key, typ)
		}
		if n, _ := do("EXISTS", key); n != int64(1) {
			return fmt.Sprintf("EXISTS %q = %v", key, n)
		}
	}
	return ""
}
