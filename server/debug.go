package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/zlite/zlite"
)

// DEBUG SLEEP|OBJECT|RELOAD|SET-ACTIVE-EXPIRE|HELP and WAIT.

var debugHelp = []string{
	"DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"OBJECT <key>",
	"    Show low-level info about the <key> and associated value.",
	"RELOAD",
	"    Save the persistent keyspaces and load them again.",
	"SET-ACTIVE-EXPIRE <0|1>",
	"    Setting it to 0 disables expiring keys in background when they are not",
	"    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
	"    default.",
	"SLEEP <seconds>",
	"    Stop the server for <seconds>. Decimals allowed.",
	"HELP",
	"    Prints this help.",
}

// cmdDebug is DEBUG's subcommands; the others get Redis's error for an unknown
// one.
func cmdDebug(c *client, a []string) bool {
	sub := strings.ToLower(a[1])
	switch {
	case sub == "help" && len(a) == 2:
		c.w.array(len(debugHelp))
		for _, l := range debugHelp {
			c.w.status(l)
		}
	case sub == "sleep" && len(a) == 3:
		debugSleep(c, a[2])
	case sub == "object" && len(a) == 3:
		debugObject(c, a[2])
	case sub == "reload" && len(a) >= 2:
		if err := c.srv.reload(); err != nil {
			c.w.errorReply("ERR Error trying to save the DB: " + err.Error())
			return false
		}
		c.w.status("OK")
	case sub == "set-active-expire" && len(a) == 3:
		// zlite expires keys when they are touched and in the keyspace's own
		// sweep; the setting is kept and changes nothing.
		n, _ := strconv.Atoi(a[2])
		c.srv.activeExpire.Store(n != 0)
		c.w.status("OK")
	default:
		c.w.errorReply("ERR unknown subcommand or wrong number of arguments for '" + trunc(a[1], 128) + "'. Try DEBUG HELP.")
	}
	return false
}

// maxDebugSleep bounds DEBUG SLEEP (a day), so that a huge or infinite value is
// no overflow.
const maxDebugSleep = 24 * time.Hour

// debugSleep blocks the client (only it: zlite has no single thread to stop) for
// the seconds given, parsed as C's strtod (what does not parse is 0), until the
// server shuts down or the client is killed.
func debugSleep(c *client, arg string) {
	f := strtod(arg)
	var d time.Duration
	switch {
	case math.IsNaN(f) || f <= 0:
	case f >= maxDebugSleep.Seconds():
		d = maxDebugSleep
	default:
		d = time.Duration(f * float64(time.Second))
	}
	if d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-c.srv.closing:
		case <-c.done:
		}
		t.Stop()
	}
	c.w.status("OK")
}

// strtod parses the longest prefix of s that is a decimal number, as C's strtod
// for DEBUG SLEEP; none is 0.
func strtod(s string) float64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	for n := len(s); n > 0; n-- {
		if f, err := strconv.ParseFloat(s[:n], 64); err == nil || errors.Is(err, strconv.ErrRange) {
			return f
		}
	}
	return 0
}

// debugObject replies Redis's line for the key: the value's address, a refcount
// of 1, OBJECT ENCODING's encoding, serializedlength as MEMORY USAGE's estimate
// (zlite has no RDB encoding to measure) and an lru of 0 (zlite keeps no access
// times).
func debugObject(c *client, key string) {
	db := c.srv.DB(c.db)
	enc, ok := db.ObjectEncoding(context.Background(), key)
	if !ok {
		c.w.errorReply("ERR no such key")
		return
	}
	n, _, _ := db.MemoryUsage(context.Background(), key)
	line := fmt.Sprintf("Value at:0x%x refcount:1 encoding:%s serializedlength:%d lru:0 lru_seconds_idle:0", fakeAddr(key), enc, n)
	c.w.status(line)
}

// fakeAddr is a stable stand-in for a value's address (a hash of its key).
func fakeAddr(key string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	return 0x7f0000000000 | h&0xffffffff0
}

// cmdWait is WAIT numreplicas timeout: 0 at once, as zlite has no replicas.
func cmdWait(c *client, a []string) bool {
	if _, ok := parseLongLong(a[1]); !ok {
		c.w.errorReply(zlite.ErrNotInteger.Error())
		return false
	}
	t, ok := parseLongLong(a[2])
	if !ok {
		c.w.errorReply("ERR timeout is not an integer or out of range")
		return false
	}
	if t < 0 {
		c.w.errorReply("ERR timeout is negative")
		return false
	}
	c.w.integer(0)
	return false
}
