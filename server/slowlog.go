package server

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// SLOWLOG GET [count] | LEN | RESET | HELP: the commands that took at least
// slowlog-log-slower-than microseconds (10000 by default; -1 logs nothing, 0
// everything), the newest first, at most slowlog-max-len (128) of them, with
// Redis's truncation of long commands (at most 32 arguments, the last of them
// "... (N more arguments)"; an argument of more than 128 bytes cut, with
// "... (N more bytes)").
//
// A command's time is that of its run, as in Redis; the commands of a pipeline
// that run together under one lock (see dispatch) each count an equal share of
// the batch's time, and a blocking command that blocked counts 0 (Redis counts
// its execution without the wait; zlite's keyspace does not separate the two).

const (
	slowlogMaxArgs   = 32
	slowlogMaxString = 128
)

// slowlog is the server's slow log; its settings are read without the lock.
type slowlog struct {
	slower atomic.Int64 // slowlog-log-slower-than, µs
	maxLen atomic.Int64 // slowlog-max-len

	mu      sync.Mutex
	entries []slowEntry // newest first
	nextID  int64
}

type slowEntry struct {
	id, unix, us int64
	args         []string
	addr, name   string
}

// record logs a command that took d, if the settings ask for it.
func (c *client) record(args []string, d time.Duration) {
	sl := &c.srv.slow
	thr := sl.slower.Load()
	us := d.Microseconds()
	if thr < 0 || us < thr {
		return
	}
	n := min(len(args), slowlogMaxArgs)
	logged := make([]string, n)
	for j, a := range redacted(args)[:n] {
		switch {
		case n != len(args) && j == n-1:
			a = "... (" + strconv.Itoa(len(args)-n+1) + " more arguments)"
		case len(a) > slowlogMaxString:
			a = a[:slowlogMaxString] + "... (" + strconv.Itoa(len(a)-slowlogMaxString) + " more bytes)"
		default:
			a = strings.Clone(a) // args may be the read buffer's
		}
		logged[j] = a
	}
	c.mu.Lock()
	name := c.name
	c.mu.Unlock()
	e := slowEntry{unix: c.srv.now().Unix(), us: us, args: logged, addr: c.nc.RemoteAddr().String(), name: name}
	sl.mu.Lock()
	e.id = sl.nextID
	sl.nextID++
	max := int(min(sl.maxLen.Load(), math.MaxInt32))
	sl.entries = append(sl.entries, slowEntry{})
	copy(sl.entries[1:], sl.entries)
	sl.entries[0] = e
	if len(sl.entries) > max {
		clear(sl.entries[max:])
		sl.entries = sl.entries[:max]
	}
	sl.mu.Unlock()
}

// trim drops the entries beyond slowlog-max-len (CONFIG SET).
func (sl *slowlog) trim() {
	sl.mu.Lock()
	if max := int(min(sl.maxLen.Load(), math.MaxInt32)); len(sl.entries) > max {
		clear(sl.entries[max:])
		sl.entries = sl.entries[:max]
	}
	sl.mu.Unlock()
}

var slowlogHelp = []string{
	"SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"GET [<count>]",
	"    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
	"    Entries are made of:",
	"    id, timestamp, time in microseconds, arguments array, client IP and port,",
	"    client name",
	"LEN",
	"    Return the length of the slowlog.",
	"RESET",
	"    Reset the slowlog.",
	"HELP",
	"    Prints this help.",
}

// cmdSlowlog is SLOWLOG GET [count] | LEN | RESET | HELP. The complexity is
// O(entries returned).
func cmdSlowlog(c *client, a []string) bool {
	sl := &c.srv.slow
	switch strings.ToLower(a[1]) {
	case "help":
		c.w.array(len(slowlogHelp))
		for _, l := range slowlogHelp {
			c.w.status(l)
		}
	case "len":
		sl.mu.Lock()
		n := len(sl.entries)
		sl.mu.Unlock()
		c.w.integer(int64(n))
	case "reset":
		sl.mu.Lock()
		sl.entries = nil
		sl.mu.Unlock()
		c.w.status("OK")
	case "get":
		count := int64(10)
		if len(a) > 3 {
			c.w.errorReply("ERR unknown subcommand or wrong number of arguments for '" + trunc(a[1], 128) + "'. Try SLOWLOG HELP.")
			return false
		}
		if len(a) == 3 {
			n, ok := parseLongLong(a[2])
			if !ok || n < -1 { // Redis's message for both
				c.w.errorReply("ERR count should be greater than or equal to -1")
				return false
			}
			count = n
		}
		sl.mu.Lock()
		es := sl.entries
		if count >= 0 && count < int64(len(es)) {
			es = es[:count]
		}
		es = append([]slowEntry(nil), es...)
		sl.mu.Unlock()
		c.w.array(len(es))
		for _, e := range es {
			c.w.array(6)
			c.w.integer(e.id)
			c.w.integer(e.unix)
			c.w.integer(e.us)
			c.w.array(len(e.args))
			for _, x := range e.args {
				c.w.bulk(x)
			}
			c.w.bulk(e.addr)
			c.w.bulk(e.name)
		}
	}
	return false
}
