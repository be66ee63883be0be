package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// scriptSource reads a Lua program's grammar choices from fuzz input, one byte per
// choice; once the bytes run out every choice is 0, so every input decodes to a
// program and decoding ends.
type scriptSource struct {
	b []byte
	i int
}

// intn returns a choice in [0, n); n is at most 256.
func (s *scriptSource) intn(n int) int {
	if n <= 1 || s.i >= len(s.b) {
		return 0
	}
	v := int(s.b[s.i]) % n
	s.i++
	return v
}

func (s *scriptSource) pick(xs ...string) string { return xs[s.intn(len(xs))] }

// Pools of the script grammar. Each list's first entries are its plain cases; the
// killers the server must survive are among the others.
var (
	luaStrings  = []string{"'x'", "'a'", "''", "'leaked'", "'1'", "'{\"a\":[1,2]}'", "'\\0'", "'%s%d'"}
	luaCounts   = []string{"3", "10", "100", "1e5", "1e12", "-1", "0", "2^31", "2^53"}
	luaNumbers  = []string{"0", "1", "-1", "0.5", "1e308", "0/0", "1/0", "-2^63", "2^53"}
	luaPatterns = []string{"'a'", "'.-.-.-.-.-b'", "'%d+'", "'(.-)x'", "'[a-'", "'%'", "'(()'", "'.*.*.*.*.*b'", "'%f[%w]'"}
	luaLibFuncs = []string{"string.len", "string.rep", "table.insert", "math.floor", "cjson.encode", "redis.call",
		"tostring", "pcall", "error", "setmetatable", "rawset", "loadstring"}
	// Commands in scope for scripts, then bad ones: unknown, blocking (which must
	// not block inside a script), and names the sandbox must refuse.
	luaCommands = []string{"ZADD", "ZRANGE", "ZSCORE", "ZCARD", "ZREM", "ZINCRBY", "LPUSH", "RPUSH", "LRANGE",
		"LPOP", "LLEN", "DEL", "EXISTS", "TYPE", "ZPOPMIN", "LINDEX", "NOSUCH", "", "BLPOP", "BZPOPMIN",
		"EVAL", "MULTI", "SUBSCRIBE", "SHUTDOWN"}
	luaArgs = []string{"'k'", "'z'", "'l'", "KEYS[1]", "ARGV[1]", "'0'", "'-1'", "'1'", "'WITHSCORES'", "'a'", "1.5",
		"t", "nil", "{}", "s"}
)

// luaGen builds a program from a scriptSource. Its statements work on a string s,
// a table t and a number n, which they may declare (local) or not: every statement
// is valid Lua whatever came before it, and one that uses an undeclared variable
// fails when it runs, an error reply the server must get right as any other.
type luaGen struct {
	src   *scriptSource
	depth int // expression nesting left
}

// program returns the script's source: up to six statements and, usually, a
// return. Its text is the statements and the return joined by spaces, with no
// prelude, so that a seed can spell a known script exactly.
func (g *luaGen) program() string {
	var parts []string
	for range g.src.intn(7) {
		parts = append(parts, g.stmt(2))
	}
	if g.src.intn(4) != 0 {
		g.depth = 3
		parts = append(parts, "return "+g.expr())
	}
	return strings.Join(parts, " ")
}

// stmt returns one statement; nest bounds the loops and pcalls inside it.
func (g *luaGen) stmt(nest int) string {
	g.depth = 3
	switch g.src.intn(19) {
	case 0:
		return "local s=" + g.str()
	case 1:
		return "local t=" + g.table()
	case 2:
		return "local n=" + g.num()
	case 3:
		k := g.src.pick("1", "#t+1", "'k'", "n", "0/0")
		if g.src.intn(2) == 0 {
			return "t[" + k + "]=t"
		}
		return "t[" + k + "]=" + g.expr()
	case 4:
		if g.src.intn(2) == 0 {
			return "s=s..s"
		}
		return "s=s.." + g.str()
	case 5:
		body := ""
		if nest > 0 && g.src.intn(4) != 0 {
			body = " " + g.stmt(nest-1)
		}
		switch g.src.intn(4) {
		case 0:
			return "while true do" + body + " end"
		case 1:
			return "repeat" + body + " until false"
		}
		return "for i=1," + g.count() + " do" + body + " end"
	case 6, 7:
		return g.redisCall()
	case 8:
		if nest > 0 && g.src.intn(2) == 0 {
			return "pcall(function() " + g.stmt(nest-1) + " end)"
		}
		return "pcall(function() error(" + g.expr() + ") end)"
	case 9:
		return g.src.pick("x", "KEYS", "redis", "_G.y") + "=" + g.expr()
	case 10:
		return g.src.pick(luaLibFuncs...) + "=function() return 42 end"
	case 11:
		return "local function f(d) if d<=0 then return 0 end return f(d-1)+1 end n=f(" + g.count() + ")"
	case 12:
		return "table.insert(t," + g.expr() + ")"
	case 13:
		return "table.sort(t" + g.src.pick("", ",function(a,b) return true end", ",function(a,b) error('x') end") + ")"
	case 14:
		return "n=" + g.num()
	case 15:
		return "setmetatable(t,{__index=function(t,k) return t[k] end})"
	case 16:
		return "s=" + g.str()
	case 17:
		return "string.find(" + g.str() + "," + g.pattern() + ")"
	}
	return "error(" + g.expr() + ")"
}

// redisCall returns a redis.call or redis.pcall: a command in scope with arguments
// of every kind, or a bad one.
func (g *luaGen) redisCall() string {
	args := []string{"'" + g.src.pick(luaCommands...) + "'"}
	for range g.src.intn(5) {
		args = append(args, g.src.pick(luaArgs...))
	}
	return g.src.pick("redis.call", "redis.pcall") + "(" + strings.Join(args, ",") + ")"
}

// expr returns an expression of any type.
func (g *luaGen) expr() string {
	switch g.src.intn(6) {
	case 0, 1:
		return g.str()
	case 2, 3:
		return g.num()
	case 4:
		return g.table()
	}
	if i := g.src.intn(7); i < 6 {
		return []string{"t", "s", "n", "nil", "true", "x"}[i]
	}
	return g.redisCall()
}

// deeper reports whether an expression may nest another, and uses up one level.
func (g *luaGen) deeper() bool {
	if g.depth <= 0 {
		return false
	}
	g.depth--
	return true
}

func (g *luaGen) str() string {
	if !g.deeper() {
		return g.src.pick(luaStrings...)
	}
	switch g.src.intn(16) { // 0 and 15: a plain string
	case 14:
		return "string.rep(" + g.str() + "," + g.count() + ")"
	case 1:
		return g.str() + ".." + g.str()
	case 2:
		return "tostring(" + g.expr() + ")"
	case 3:
		return "string.format(" + g.src.pick("'%d'", "'%s %q'", "'%99999d'", "'%'", "'%5.2f'") + "," + g.expr() + "," + g.expr() + ")"
	case 4:
		return "string.sub(" + g.str() + "," + g.num() + "," + g.num() + ")"
	case 5:
		return "string.gsub(" + g.str() + "," + g.pattern() + "," + g.src.pick("'%0%0'", "'y'", "'%1'") + ")"
	case 6:
		return "table.concat(t," + g.str() + ")"
	case 7:
		return "cjson.encode(" + g.expr() + ")"
	case 8:
		return "cmsgpack.pack(" + g.expr() + ")"
	case 9:
		return "struct.pack(" + g.src.pick("'>I4'", "'<d'", "'s'", "'i99'") + "," + g.expr() + ")"
	case 10:
		return "bit.tohex(" + g.num() + ")"
	case 11:
		return "string.char(" + g.num() + ")"
	case 12:
		return "string.upper(" + g.str() + ")"
	case 13:
		return g.src.pick("KEYS[1]", "ARGV[1]", "s")
	}
	return g.src.pick(luaStrings...)
}

func (g *luaGen) num() string {
	if !g.deeper() {
		return g.src.pick(luaNumbers...)
	}
	switch g.src.intn(12) { // 0 and 11: a plain number
	case 10:
		return "#" + g.str()
	case 1:
		return "#t"
	case 2:
		return "string.find(" + g.str() + "," + g.pattern() + ")"
	case 3:
		return "string.len(" + g.str() + ")"
	case 4:
		return "bit.band(" + g.num() + "," + g.num() + ")"
	case 5:
		return "math.floor(" + g.num() + ")"
	case 6:
		return "tonumber(" + g.str() + ")"
	case 7:
		return g.num() + g.src.pick("+", "*", "/", "%", "^") + g.num()
	case 8:
		return "select('#',unpack(t))"
	case 9:
		return "n"
	}
	return g.src.pick(luaNumbers...)
}

func (g *luaGen) table() string {
	if !g.deeper() {
		return "{}"
	}
	switch g.src.intn(7) { // 0: {}
	case 6:
		return "{" + g.expr() + "," + g.expr() + "}"
	case 1:
		return "{a=" + g.expr() + "}"
	case 2:
		return "cjson.decode(" + g.str() + ")"
	case 3:
		return "{cmsgpack.unpack(" + g.str() + ")}"
	case 4:
		return "{struct.unpack(" + g.src.pick("'>I4'", "'s'", "'b'") + "," + g.str() + ")}"
	case 5:
		return "{string.byte(" + g.str() + ",1," + g.count() + ")}"
	}
	return "{}"
}

func (g *luaGen) count() string   { return g.src.pick(luaCounts...) }
func (g *luaGen) pattern() string { return g.src.pick(luaPatterns...) }

// decodeScript returns the Lua program data decodes to.
func decodeScript(data []byte) string {
	return (&luaGen{src: &scriptSource{b: data}}).program()
}

// choices spells a seed: the choice the decoder makes at each step, as a byte each.
func choices(c ...int) []byte {
	b := make([]byte, len(c))
	for i, v := range c {
		b[i] = byte(v)
	}
	return b
}

// scriptKillers are scripts that crashed, hung or leaked in Lua sandboxes (Redis's
// among them), each with the fuzz input that decodes to it. TestScriptSeeds checks
// that the inputs still spell them.
var scriptKillers = []struct {
	src  string
	data []byte
}{
	// A table holding itself: the reply conversion must not recurse forever.
	{"local t={} t[1]=t return t", choices(2, 1, 0, 3, 0, 0, 1, 5, 0)},
	// A 1 TB string: string.rep must refuse, not allocate.
	{"return #string.rep('x',1e12)", choices(0, 1, 2, 10, 14, 0, 0, 4)},
	// A global: Redis refuses the write; it must not leak into the next script.
	{"x='leaked'", choices(1, 9, 0, 0, 0, 3)},
	// A library function replaced: the next script must see the real one.
	{"string.len=function() return 42 end", choices(1, 10, 0, 0)},
	// Backtracking: a pattern search that is exponential in the pattern's length.
	{"string.find(string.rep('a',1e5),'.-.-.-.-.-b')", choices(1, 17, 14, 0, 1, 3, 1)},
	// Memory doubling: must hit a memory bound or the time limit, not the OOM killer.
	{"local s='x' while true do s=s..s end", choices(2, 0, 0, 0, 5, 1, 4)},
	// A busy loop: must end at the script time limit.
	{"while true do end", choices(1, 5)},
}

// errorShaped reports whether an error reply's text (after '-') is Redis-shaped: an
// upper-case code and a space.
func errorShaped(s string) bool {
	code := 0
	for code < len(s) && 'A' <= s[code] && s[code] <= 'Z' {
		code++
	}
	return code > 0 && code < len(s) && s[code] == ' '
}

// sandboxProbe is a script run after each fuzzed one, on the same connection: it
// sees a global the fuzzed script set or a library function it replaced, which
// Redis refuses ("Attempt to modify a readonly table"). Redis 7.0.15 answers it
// sandboxProbeReply.
const (
	sandboxProbe      = "return {string.len('abc'), rawget(_G,'x') == nil}"
	sandboxProbeReply = "*2\r\n:3\r\n:1\r\n"
)

const (
	// scriptRunFor is how long a script may run before FuzzScript stops it with
	// SCRIPT KILL; scriptBusy is the server's busy-reply-threshold, after which
	// SCRIPT KILL is served; scriptMargin is how long a killed script may take to
	// answer (and any other command of the check).
	scriptRunFor = 500 * time.Millisecond
	scriptBusy   = 50 * time.Millisecond
	scriptMargin = 3 * time.Second
	// scriptMemory is the servers' bound on a script's heap growth, below
	// scriptHeapCeiling so that the server stops a hungry script before the test
	// ends the process.
	scriptMemory = 256 << 20
	// scriptHeapGrowth bounds how much the live heap may grow over one input, its
	// server closed: what a script leaves behind it.
	scriptHeapGrowth = 64 << 20
	// scriptHeapCeiling is the live heap at which a script is stopped by ending the
	// process: past it the machine's memory, not the test, would fail first.
	scriptHeapCeiling = 1 << 30
)

// liveHeap returns the bytes of live heap objects after a garbage collection.
func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// heapWatch ends the process with a message naming src when the heap passes
// scriptHeapCeiling while a script runs: nothing else can stop a running script,
// and the out-of-memory killer would end the process anyway, without the message.
// stop ends the watch.
func heapWatch(src *atomic.Pointer[string]) (stop func()) {
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			metrics.Read(s)
			if h := s[0].Value.Uint64(); h > scriptHeapCeiling {
				panic(fmt.Sprintf("FuzzScript: the heap reached %d MiB (ceiling %d MiB) while the server ran the script %q",
					h>>20, scriptHeapCeiling>>20, *src.Load()))
			}
		}
	}()
	return func() { close(done); <-ended }
}

// scriptConn is one client connection to an in-process server, each command run on
// a goroutine of its own so that the test can give up on one that hangs.
type scriptConn struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

// Bounds of a reply readReply takes in: deeper nesting fails it, and a longer
// bulk string is read but not kept past its first maxKeptBulk bytes. A script's
// reply is nested at most as deep as Lua 5.1's stack allows (luaStackLimit, as in
// Redis): a deeper one would be endless.
const (
	maxReplyDepth = luaStackLimit
	maxKeptBulk   = 1 << 20
)

// errTooDeep is readReply's error for a reply nested deeper than maxReplyDepth.
type errTooDeep struct{}

func (errTooDeep) Error() string {
	return "reply nested deeper than " + strconv.Itoa(maxReplyDepth) + " levels"
}

// formatArgs returns a command for a failure message, its arguments quoted and cut
// at 200 bytes each.
func formatArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = fmt.Sprintf("%.200q", a)
	}
	return strings.Join(q, " ")
}

// readReply reads one RESP2 reply into out, at nesting level depth: replies of
// any size, and nested as deep as maxReplyDepth, so that a hostile reply (a table
// holding itself) fails the test instead of overflowing its stack. O(size).
func readReply(br *bufio.Reader, out *bytes.Buffer, depth int) error {
	if depth > maxReplyDepth {
		return errTooDeep{}
	}
	line, err := br.ReadString('\n')
	if err != nil {
		return err
	}
	out.WriteString(line)
	if len(line) < 3 || !strings.HasSuffix(line, "\r\n") {
		return fmt.Errorf("malformed reply line %q", line)
	}
	n, numErr := strconv.ParseInt(line[1:len(line)-2], 10, 64)
	switch line[0] {
	case '+', '-', ':':
		return nil
	case '$':
		if numErr != nil || n < 0 {
			return numErr
		}
		keep := min(n, maxKeptBulk)
		if _, err := io.CopyN(out, br, keep); err != nil {
			return err
		}
		_, err := io.CopyN(io.Discard, br, n-keep+2)
		out.WriteString("\r\n")
		return err
	case '*':
		if numErr != nil {
			return numErr
		}
		for range max(n, 0) {
			if err := readReply(br, out, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown reply type in %q", line)
}

// send sends args on a goroutine of its own (a Dialer connection runs the command
// on the writing goroutine); the channel receives what that goroutine recovered,
// nil when the command did not panic.
func (c *scriptConn) send(args ...string) <-chan any {
	var req bytes.Buffer
	fmt.Fprintf(&req, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&req, "$%d\r\n%s\r\n", len(a), a)
	}
	panicked := make(chan any, 1)
	go func() {
		defer func() { panicked <- recover() }()
		_, _ = c.nc.Write(req.Bytes())
	}()
	return panicked
}

// read reads one reply within limit; ok is false when none came whole by then.
// It fails the test when the command panicked, and ends the process on a reply
// nested past maxReplyDepth (see errTooDeep).
func (c *scriptConn) read(panicked <-chan any, limit time.Duration, args []string) (reply string, err error) {
	c.t.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(limit))
	var out bytes.Buffer
	err = readReply(c.br, &out, 0)
	select {
	case p := <-panicked:
		if p != nil {
			c.t.Fatalf("the server panicked: %v", p)
		}
	default:
	}
	var deep errTooDeep
	if errors.As(err, &deep) {
		// The server is still writing the endless reply, into memory: nothing can
		// stop it but the end of the process, before it runs out of memory.
		panic(fmt.Sprintf("FuzzScript: %s: %v, the server still writing it; the process ends here", formatArgs(args), err))
	}
	return out.String(), err
}

// do sends args and returns the reply's RESP text, failing the test when the server
// panics or has not replied within limit.
func (c *scriptConn) do(limit time.Duration, args ...string) string {
	c.t.Helper()
	reply, err := c.read(c.send(args...), limit, args)
	if err != nil {
		c.t.Fatalf("%s: no whole reply within %v: %v (so far %.200q)", formatArgs(args), limit, err, reply)
	}
	return reply
}

// checkScript runs src with EVAL on a new server and checks the server's answers:
// no panic; a reply within scriptRunFor, or else the script stopped by SCRIPT KILL
// (or, when it wrote, by SHUTDOWN NOSAVE) within scriptMargin, as Redis's busy
// model has it; a Redis-shaped error if any; PONG to a PING afterwards; a
// sandbox the script did not change; and no heap left behind.
func checkScript(t *testing.T, src string) {
	var cur atomic.Pointer[string]
	cur.Store(&src)
	stop := heapWatch(&cur)
	defer func() {
		// After a failure the server may still be running the script: the watch
		// stays, so that a runaway one still ends with its message.
		if !t.Failed() {
			stop()
		}
	}()
	before := liveHeap()
	s := New(WithBusyReplyThreshold(scriptBusy))
	s.scriptMemory.Store(scriptMemory)
	conn := func() (*scriptConn, net.Conn) {
		nc, err := s.Dialer()(context.Background(), "tcp", "")
		if err != nil {
			t.Fatal(err)
		}
		return &scriptConn{t: t, nc: nc, br: bufio.NewReader(nc)}, nc
	}
	c, cnc := conn()
	k, knc := conn()
	defer func() {
		_ = cnc.Close()
		_ = knc.Close()
		_ = s.Close()
	}()
	args := []string{"EVAL", src, "1", "k", "arg"}
	pending := c.send(args...)
	reply, err := c.read(pending, scriptRunFor, args)
	if err != nil { // still running: stop it as an operator would
		switch kill := k.do(scriptMargin, "SCRIPT", "KILL"); {
		case strings.HasPrefix(kill, "-UNKILLABLE"):
			k.send("SHUTDOWN", "NOSAVE")
			if _, err := c.read(pending, scriptMargin, args); err == nil {
				t.Fatalf("EVAL %q answered after SHUTDOWN NOSAVE", src)
			} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatalf("EVAL %q still running %v after SHUTDOWN NOSAVE", src, scriptMargin)
			}
			return
		case kill == "+OK\r\n", strings.HasPrefix(kill, "-NOTBUSY"):
			if reply, err = c.read(pending, scriptMargin, args); err != nil {
				t.Fatalf("EVAL %q: no reply %v after SCRIPT KILL answered %q: %v", src, scriptMargin, kill, err)
			}
		default:
			t.Fatalf("SCRIPT KILL while EVAL %q ran = %q", src, kill)
		}
	}
	if msg, ok := strings.CutPrefix(reply, "-"); ok && !errorShaped(msg) {
		t.Fatalf("EVAL %q = %q: not a Redis-shaped error", src, reply)
	}
	if got := c.do(time.Second, "PING"); got != "+PONG\r\n" {
		t.Fatalf("PING after EVAL %q = %q; want +PONG", src, got)
	}
	if got := c.do(scriptMargin, "EVAL", sandboxProbe, "0"); got != sandboxProbeReply {
		t.Fatalf("after EVAL %q, EVAL %q = %q; want %q (what the script changed outlived it)", src, sandboxProbe, got, sandboxProbeReply)
	}
	_ = cnc.Close()
	_ = knc.Close()
	_ = s.Close()
	if after := liveHeap(); after > before+scriptHeapGrowth {
		t.Fatalf("EVAL %q left the heap %d MiB larger (bound %d MiB)", src, (after-before)>>20, scriptHeapGrowth>>20)
	}
}

// FuzzScript decodes its input into a small Lua program (see luaGen: the sandbox's
// libraries, loops bounded and not, concatenation, tables, pcall and error,
// recursion, redis.call of commands in scope and of bad ones) and runs it with
// EVAL on an in-process server: the server must not panic, must answer within
// scriptRunFor or be stopped by SCRIPT KILL or SHUTDOWN NOSAVE within scriptMargin,
// with a Redis-shaped error if any, must answer PING afterwards, and must not leave
// the heap more than scriptHeapGrowth larger. The seeds are the scripts of
// scriptKillers.
func FuzzScript(f *testing.F) {
	for _, k := range scriptKillers {
		f.Add(k.data)
	}
	f.Add([]byte{})
	f.Add(choices(3, 6, 2, 0, 1, 0, 0, 7, 8, 4, 2, 1, 3))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkScript(t, decodeScript(data))
	})
}

// TestScriptSeeds checks that each seed of FuzzScript decodes to its script.
func TestScriptSeeds(t *testing.T) {
	for _, k := range scriptKillers {
		if got := decodeScript(k.data); got != k.src {
			t.Errorf("decodeScript(%v) = %q; want %q", k.data, got, k.src)
		}
	}
}
