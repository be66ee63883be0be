package server

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// MONITOR: every command the server runs, one line per command, streamed to the
// connections that asked for it, in Redis 7.0's format:
//
//	+1700000000.123456 [0 127.0.0.1:50000] "set" "k" "v"
//
// A command is shown once it has run (EVAL, EVALSHA and FCALL before, as Redis
// shows them before their script's commands, which appear as "[db lua]"); one
// refused before it runs (unknown, wrong arity, NOAUTH, queued by MULTI) is not,
// nor are Redis's admin commands (CONFIG GET|SET|RESETSTAT, CLIENT
// KILL|LIST|UNBLOCK|NO-EVICT, SLOWLOG GET|LEN|RESET, DEBUG, MONITOR, SAVE, BGSAVE,
// BGREWRITEAOF, SHUTDOWN); AUTH's arguments and HELLO's AUTH pair read
// "(redacted)".
//
// The command's goroutine formats the line once and appends it to each monitor's
// queue, which a goroutine of the monitoring connection writes out (sharing its
// writer under c.wmu as the Pub/Sub pusher does, see pubsub.go). A monitor whose
// unsent lines pass monitorLimit bytes is disconnected, so that no command waits
// for a slow monitor and none grows the server without bound.

// monitorLimit bounds the bytes of lines a monitor may have unsent (Redis puts
// monitors in the normal class, unlimited by default; zlite applies Pub/Sub's
// hard limit).
const monitorLimit = 32 << 20

// monitorAdmin names the commands (and subcommands) Redis 7.0 flags admin, which it
// never shows to monitors; eval-family commands are shown before they run.
var monitorAdmin = map[string]bool{
	"config|get": true, "config|set": true, "config|resetstat": true, "config|rewrite": true,
	"client|kill": true, "client|list": true, "client|unblock": true, "client|no-evict": true,
	"client|pause": true, "client|unpause": true,
	"slowlog|get": true, "slowlog|len": true, "slowlog|reset": true,
	"debug": true, "monitor": true, "save": true, "bgsave": true, "bgrewriteaof": true, "shutdown": true,
	"eval": true, "evalsha": true, "eval_ro": true, "evalsha_ro": true, "fcall": true, "fcall_ro": true,
}

// monitorKeyspace names the server commands Redis counts as reading, writing or
// replicating, which a monitoring connection may not run ("Replica can't interact
// with the keyspace"); every keyspace command is one too.
var monitorKeyspace = map[string]bool{
	"eval": true, "evalsha": true, "eval_ro": true, "evalsha_ro": true, "fcall": true, "fcall_ro": true,
	"publish": true, "spublish": true, "flushdb": true, "flushall": true, "swapdb": true, "move": true,
	"object|encoding": true, "object|freq": true, "object|idletime": true, "object|refcount": true,
	"function|load": true, "function|delete": true, "function|flush": true, "script|load": true,
	"script|flush": true, "memory|usage": true,
}

// monitors is the server's set of monitoring connections. n is read on every
// command without the lock: nothing is formatted while it is 0.
type monitors struct {
	n  atomic.Int32
	mu sync.Mutex
	qs map[*client]*monitorQueue
}

// monitorQueue is one monitor's lines not yet written, bounded by monitorLimit.
type monitorQueue struct {
	mu     sync.Mutex
	buf    []byte
	limit  int // monitorLimit, or the server's for tests
	closed bool
	ready  chan struct{} // one token: lines are waiting or the queue closed
	done   chan struct{} // closed when the writer goroutine ends
}

// cmdMonitor is MONITOR: +OK, then every command's line. A connection already
// monitoring gets no reply, as in Redis; inside EXEC it is Redis's error.
func cmdMonitor(c *client, a []string) bool {
	if c.inExec {
		c.w.errorReply("ERR MONITOR isn't allowed for DENY BLOCKING client")
		return false
	}
	if c.monitor != nil {
		return false
	}
	c.subscriber() // shares the writer with a pusher goroutine (pubsub.go)
	q := &monitorQueue{ready: make(chan struct{}, 1), done: make(chan struct{}), limit: monitorLimit}
	if c.srv.monLimit > 0 {
		q.limit = c.srv.monLimit
	}
	c.w.status("OK")
	c.monitor = q
	c.monitoring.Store(true)
	m := &c.srv.mon
	m.mu.Lock()
	if m.qs == nil {
		m.qs = map[*client]*monitorQueue{}
	}
	m.qs[c] = q
	m.n.Store(int32(len(m.qs)))
	m.mu.Unlock()
	go c.monitorWriter(q)
	return false
}

// endMonitor takes the client out of the monitors and ends its writer: RESET
// (which holds the writer, so the writer goroutine ends on its own once it sees
// the queue closed) and the end of the connection (wait: its goroutine waits for
// the writer to end).
func (c *client) endMonitor(wait bool) {
	q := c.monitor
	if q == nil {
		return
	}
	c.monitor = nil
	c.monitoring.Store(false)
	m := &c.srv.mon
	m.mu.Lock()
	delete(m.qs, c)
	m.n.Store(int32(len(m.qs)))
	m.mu.Unlock()
	q.close()
	if wait {
		<-q.done
	}
}

func (q *monitorQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// add appends a line, or reports false when the queue is past its limit.
func (q *monitorQueue) add(line string) bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return true
	}
	if len(q.buf)+len(line) > q.limit {
		q.mu.Unlock()
		return false
	}
	q.buf = append(q.buf, line...)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return true
}

// monitorWriter writes the queue's lines to the connection until the queue closes
// or a write fails.
func (c *client) monitorWriter(q *monitorQueue) {
	defer close(q.done)
	var out []byte
	for range q.ready {
		q.mu.Lock()
		out, q.buf = q.buf, out[:0]
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return
		}
		if len(out) == 0 {
			continue
		}
		c.wmu.Lock()
		q.mu.Lock()
		closed = q.closed
		q.mu.Unlock()
		if closed { // RESET or the end of the connection came first
			c.wmu.Unlock()
			return
		}
		restore := c.w.unmuted()
		_, _ = c.w.bw.Write(out)
		restore()
		err := c.w.flush()
		c.wmu.Unlock()
		if b, ok := c.nc.(interface{ Buffered() int }); ok && err == nil && b.Buffered() > q.limit {
			err = errMonitorSlow // in process: what the client has not read counts
		}
		if err != nil {
			if err == errMonitorSlow {
				c.srv.log.Warn("client closed for overcoming of output buffer limits", "id", c.id, "class", "monitor")
			}
			c.kill()
			return
		}
		if cap(out) > 1<<20 {
			out = nil // do not keep a burst's buffer
		}
	}
}

type monitorError string

func (e monitorError) Error() string { return string(e) }

const errMonitorSlow = monitorError("server: monitor too slow")

// feedMonitors shows a command of client c (lua: one a script of c ran) that ran on
// keyspace db to every monitor. The complexity is O(monitors + the command's bytes).
func (s *Server) feedMonitors(c *client, db int, lua bool, args []string) {
	if s.mon.n.Load() == 0 {
		return
	}
	line := s.monitorLine(c, db, lua, args)
	m := &s.mon
	var slow []*client
	m.mu.Lock()
	for o, q := range m.qs {
		if !q.add(line) {
			slow = append(slow, o)
		}
	}
	m.mu.Unlock()
	for _, o := range slow {
		s.log.Warn("client closed for overcoming of output buffer limits", "id", o.id, "class", "monitor")
		o.kill()
	}
}

// monitorLine formats Redis's monitor line for args.
func (s *Server) monitorLine(c *client, db int, lua bool, args []string) string {
	now := s.now()
	b := make([]byte, 0, 64+16*len(args))
	b = append(b, '+')
	b = strconv.AppendInt(b, now.Unix(), 10)
	b = append(b, '.')
	us := strconv.Itoa(now.Nanosecond() / 1000)
	b = append(b, "000000"[len(us):]...)
	b = append(b, us...)
	b = append(b, " ["...)
	b = strconv.AppendInt(b, int64(db), 10)
	switch {
	case lua:
		b = append(b, " lua"...)
	case c.nc.LocalAddr().Network() == "unix":
		b = append(b, " unix:"...)
		b = append(b, c.nc.LocalAddr().String()...)
	default:
		b = append(b, ' ')
		b = append(b, c.nc.RemoteAddr().String()...)
	}
	b = append(b, "] "...)
	for i, a := range redacted(args) {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendRepr(b, a)
	}
	b = append(b, "\r\n"...)
	return string(b)
}

// redacted returns args with the secrets Redis redacts replaced: every argument of
// AUTH, the pair after HELLO's AUTH.
func redacted(args []string) []string {
	switch strings.ToLower(args[0]) {
	case "auth":
		out := make([]string, len(args))
		out[0] = args[0]
		for i := 1; i < len(out); i++ {
			out[i] = "(redacted)"
		}
		return out
	case "hello":
		for i := 2; i+2 < len(args); i++ {
			if strings.EqualFold(args[i], "auth") {
				out := append([]string(nil), args...)
				out[i+1], out[i+2] = "(redacted)", "(redacted)"
				return out
			}
		}
	}
	return args
}

// appendRepr appends s quoted as Redis's sdscatrepr: \\ and \" escaped, \n \r \t
// \a \b as such, other bytes outside printable ASCII as \xhh.
func appendRepr(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; ch {
		case '\\', '"':
			b = append(b, '\\', ch)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\a':
			b = append(b, '\\', 'a')
		case '\b':
			b = append(b, '\\', 'b')
		default:
			if ch >= ' ' && ch <= '~' {
				b = append(b, ch)
			} else {
				b = append(b, '\\', 'x', hex[ch>>4], hex[ch&15])
			}
		}
	}
	return append(b, '"')
}

// now is the server's clock (tests replace it).
func (s *Server) now() time.Time {
	if s.clock != nil {
		return s.clock()
	}
	return time.Now()
}
