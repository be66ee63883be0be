package fuzz

import (
	"bytes"
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

var (
	// doNames and doPool are the command names and the argument pool that
	// [dodecoder.args] picks from, built once: building them for every argument
	// took four tenths of FuzzDo's time.
	doNames = allCommands()
	doPool  = slices.Concat(anyKeys, boundPl, lexPl, idxPl, valuePl)
)

var blockingCommands = map[string]bool{"BLPOP": true, "BRPOP": true, "BLMOVE": true, "BRPOPLPUSH": true,
	"BLMPOP": true, "BZPOPMIN": true, "BZPOPMAX": true, "BZMPOP": true}

// redisShaped reports whether s has the shape of every Redis error reply: an
// upper-case code, a space, then a message that does not start with white space.
// It is a loop rather than a regular expression because package regexp keeps its
// matchers in a sync.Pool: whether a match reuses one depends on when the garbage
// collector last ran, which made the fuzzer's coverage of the same input differ from
// one execution to the next.
func redisShaped(s string) bool {
	code := 0
	for code < len(s) && 'A' <= s[code] && s[code] <= 'Z' {
		code++
	}
	return code > 0 && code+1 < len(s) && s[code] == ' ' && strings.IndexByte(" \t\n\f\r", s[code+1]) < 0
}

// maxDoCommands bounds the commands of one FuzzDo input. The fuzzer's coverage
// counts how often each edge ran, so a longer input finds "new" counts of the same
// paths more often, and its minimal form stays long: the minimiser's last pass
// tries every pair of cut points, O(n²) runs of the input, and at 100 or 32
// commands it ran to -fuzzminimizetime on inputs a few hundred bytes long.
const maxDoCommands = 16

// maxLineBytes bounds the bytes of a line its command is decoded from; the rest of
// the line is ignored. A command that read every byte of a long line (a ZADD of
// hundreds of members) made every byte of it matter, and the minimiser could remove
// none.
const maxLineBytes = 64

type dodecoder struct {
	byteSource
	g *gen
}

// doCommands decodes FuzzDo's input: each line (up to maxDoCommands of them) is one
// command, decoded by [dodecoder.args] from that line's bytes alone. A line's bytes
// choose only its own command, so the minimiser's cuts and the mutator's changes
// stay within the lines they touch: removing a line removes one command and leaves
// the others as they were. (When every choice read the next byte of the whole input,
// removing one byte changed every command after it, no cut kept the coverage of an
// input found mid-way, and minimising one input ran until -fuzzminimizetime.)
func doCommands(data []byte) [][]string {
	var cmds [][]string
	for line := range bytes.SplitSeq(data, []byte{'\n'}) {
		if len(cmds) == maxDoCommands {
			break
		}
		d := &dodecoder{byteSource: byteSource{b: line[:min(len(line), maxLineBytes)]}}
		d.g = &gen{src: &d.byteSource}
		cmds = append(cmds, d.args())
	}
	return cmds
}

// args decodes one argument vector: either a command from the transcript generator
// (well-formed or nearly) or a name followed by arbitrary words and bytes.
func (d *dodecoder) args() []string {
	if d.intn(2) == 0 {
		s := d.g.draw()
		return s[len(s)-1]
	}
	var out []string
	switch d.intn(10) {
	case 0:
		out = []string{d.g.pick([]string{"", "PING", "GET", "NOSUCH", "zadd\x00", "Z"})}
	default:
		out = []string{d.g.cased(doNames[d.intn(len(doNames))])}
	}
	for range d.intn(7) {
		switch d.intn(4) {
		case 0:
			b := make([]byte, d.intn(6))
			for i := range b {
				b[i] = byte(d.intn(256))
				if b[i] == '\v' { // a line holds no '\n': '\v' stands for it
					b[i] = '\n'
				}
			}
			out = append(out, string(b))
		case 1:
			out = append(out, d.g.score())
		case 2:
			out = append(out, d.g.pick(doWords))
		default:
			out = append(out, d.g.pick(doPool))
		}
	}
	return out
}

// FuzzDo sends argument vectors decoded from the input, one command a line (see
// doCommands), to DB.Do. Do must not panic or hang (each call runs in a synctest
// bubble with a deadline, so blocking commands return as soon as nothing else can
// happen), every error must be Redis-shaped, every reply shaped like go-redis's, and
// after each command the keyspace's invariants must hold: no empty keys, TYPE
// agreeing with the commands that read the key, ZCARD == len(ZRANGE 0 -1) with
// members in (score, member) order and ZSCORE/ZRANK agreeing, LLEN ==
// len(LRANGE 0 -1), DBSIZE == len(KEYS *).
//
// The coverage of an input must depend on the input alone, or the fuzzer takes
// inputs for new that are not and spends its time failing to minimise them: nothing
// here may keep state between executions or draw on randomness of its own.
func FuzzDo(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x00\x01\n\x00\x02\n\x00\x03\n\x00\x04\n\x00\x05\n\x00\x06\n\x00\x07"))
	f.Add([]byte("\x01\x05\x03\x00\x01\x02\n\x01\x05\x04\x00\x01\x02\n\x01\x05\x03\x00\x01"))
	f.Add([]byte("blpop l1 0\nrpush l1 a\nbzpopmin z1 0\nzadd z1 1 a"))
	f.Fuzz(checkDo)
}

// checkDo runs FuzzDo's checks on one input.
func checkDo(t *testing.T, data []byte) {
	synctest.Test(t, func(t *testing.T) {
		db := zlite.New()
		var log []string
		for _, args := range doCommands(data) {
			log = append(log, formatCmd(args))
			v, panicked, err := doRecover(db, args)
			if panicked != nil {
				t.Fatalf("after:\n  %s\nDo panicked: %v", strings.Join(log, "\n  "), panicked)
			}
			blocking := len(args) > 0 && blockingCommands[strings.ToUpper(args[0])]
			switch {
			case err == nil:
			case blocking && errors.Is(err, context.DeadlineExceeded):
			case !redisShaped(err.Error()):
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

// TestRedisShaped checks redisShaped against the regular expression it replaces.
func TestRedisShaped(t *testing.T) {
	re := regexp.MustCompile(`^[A-Z]+ \S`)
	for _, s := range []string{"ERR syntax error", "WRONGTYPE Operation", "ERR", "ERR ", "ERR  x", "ERR \tx", "ERR \nx",
		"err x", " ERR x", "E x", "ERR\x00 x", "ERR \xff", "ERR é", "", "NOSCRIPT No", "ERR\vx", "ERR \vx"} {
		if got, want := redisShaped(s), re.MatchString(s); got != want {
			t.Errorf("redisShaped(%q) = %v; want %v", s, got, want)
		}
	}
}

// TestDoCommandsLines checks that a FuzzDo input's lines decode independently:
// removing one removes its command and leaves the others as they were.
func TestDoCommandsLines(t *testing.T) {
	lines := [][]byte{[]byte("\x01\x05\x03\x00"), []byte("blpop l1 0"), []byte("\xff\x10\x07"), []byte("zadd z1 1 a")}
	all := doCommands(bytes.Join(lines, []byte{'\n'}))
	if len(all) != len(lines) {
		t.Fatalf("doCommands of %d lines = %d commands; want %d", len(lines), len(all), len(lines))
	}
	for i := range lines {
		rest := slices.Concat(lines[:i:i], lines[i+1:])
		got := doCommands(bytes.Join(rest, []byte{'\n'}))
		want := slices.Concat(all[:i:i], all[i+1:])
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("without line %d: doCommands = %q; want %q", i, got, want)
		}
	}
	long := bytes.Repeat([]byte("x\x93"), maxLineBytes)
	if got, want := doCommands(long), doCommands(long[:maxLineBytes]); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("doCommands of a %d-byte line = %q; want %q, the command of its first %d bytes", len(long), got, want, maxLineBytes)
	}
}
