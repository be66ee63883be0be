package server

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/internal/redistest"
)

// TestInfo checks INFO's sections and Redis's field names.
func TestInfo(t *testing.T) {
	addr, _ := startServer(t)
	w := dial(t, addr)
	w.do("ZADD", "z", "1", "a")
	w.do("SELECT", "3")
	w.do("RPUSH", "l", "x", "y")
	w.do("RPUSH", "t", "x")
	w.do("PEXPIRE", "t", "100000")
	tests := []struct {
		args     []string
		has, not []string
	}{
		{[]string{"INFO"}, []string{"# Server\r\nredis_version:" + Version + "\r\n", "# Clients\r\nconnected_clients:1\r\n", "blocked_clients:0\r\n",
			"# Memory\r\nused_memory:", "# Stats\r\n", "total_commands_processed:", "expired_keys:0\r\n", "# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\ndb3:keys=2,expires=1,avg_ttl=0\r\n"},
			[]string{"# Commandstats"}},
		{[]string{"INFO", "keyspace"}, []string{"# Keyspace\r\n"}, []string{"# Server"}},
		{[]string{"INFO", "all"}, []string{"# Commandstats\r\ncmdstat_info:calls=2,", "cmdstat_pexpire:calls=1,usec=0,", "cmdstat_rpush:calls=2,",
			"cmdstat_select:calls=1,", "cmdstat_zadd:calls=1,"}, []string{"cmdstat_dbsize"}},
	}
	for _, tt := range tests {
		r := w.do(tt.args...)
		for _, s := range tt.has {
			if !strings.Contains(r, s) {
				t.Errorf("%q lacks %q:\n%s", tt.args, s, r)
			}
		}
		for _, s := range tt.not {
			if strings.Contains(r, s) {
				t.Errorf("%q has %q", tt.args, s)
			}
		}
	}
	w.do("HELLO", "3")
	if r := w.do("INFO", "keyspace"); !strings.HasPrefix(r, "=") || !strings.Contains(r, "txt:# Keyspace") {
		t.Errorf("RESP3 INFO = %q; want a verbatim string", r)
	}
}

// TestInfoExpiredKeys checks expired_keys and expires= on a keyspace whose clock the
// test moves.
func TestInfoExpiredKeys(t *testing.T) {
	var now atomic.Int64 // Unix seconds, read by the server's goroutines
	now.Store(1e9)
	db := zlite.New(zlite.WithClock(func() time.Time { return time.Unix(now.Load(), 0) }))
	addr, _ := startServer(t, WithDB(0, db))
	w := dial(t, addr)
	w.do("RPUSH", "a", "x")
	w.do("RPUSH", "b", "x")
	w.do("PEXPIRE", "a", "10")
	if r := w.do("INFO", "keyspace"); !strings.Contains(r, "db0:keys=2,expires=1,") {
		t.Errorf("INFO keyspace = %q; want keys=2,expires=1", r)
	}
	now.Add(1)
	w.do("LLEN", "a") // deletes a: its time has come
	r := w.do("INFO")
	for _, want := range []string{"expired_keys:1\r\n", "db0:keys=1,expires=0,"} {
		if !strings.Contains(r, want) {
			t.Errorf("INFO lacks %q after a expired:\n%s", want, r)
		}
	}
}

// TestInfoOperatorSections checks the sections tools read beyond the keyspace's:
// each of their fields is one redis-server's INFO has in the same section, and
// their values say what zlite-server is (a master without replicas or
// persistence), what errors it replied (errorstats, reset by CONFIG RESETSTAT) and
// the CPU it used.
func TestInfoOperatorSections(t *testing.T) {
	addr, _ := startServer(t)
	w := dial(t, addr)
	w.do("GET")                 // ERR
	w.do("SET", "k", "v")       //
	w.do("LPUSH", "k", "x")     // WRONGTYPE
	w.do("LPUSH", "k", "x")     // WRONGTYPE
	w.do("EVAL", "return", "x") // ERR
	r := w.do("INFO")
	for _, s := range []string{
		"# Replication\r\nrole:master\r\nconnected_slaves:0\r\n", "master_repl_offset:0\r\n",
		"# Persistence\r\nloading:0\r\n", "aof_enabled:0\r\n", "rdb_bgsave_in_progress:0\r\n",
		"# CPU\r\nused_cpu_sys:", "used_cpu_user:",
		"# Errorstats\r\nerrorstat_ERR:count=2\r\nerrorstat_WRONGTYPE:count=2\r\n", "total_error_replies:4\r\n",
	} {
		if !strings.Contains(r, s) {
			t.Errorf("INFO lacks %q", s)
		}
	}
	if i := strings.Index(r, "# Persistence"); i < 0 || i > strings.Index(r, "# Stats") || strings.Index(r, "# Replication") > strings.Index(r, "# CPU") {
		t.Errorf("INFO's sections are not in Redis's order:\n%s", r)
	}
	w.do("CONFIG", "RESETSTAT")
	if r := w.do("INFO", "errorstats"); r != "$14\r\n# Errorstats\r\n\r\n" {
		t.Errorf("errorstats after CONFIG RESETSTAT: %q", r)
	}
	// Field names: every one zlite reports is in redis-server's same section.
	rw := dial(t, redistest.Require(t))
	for _, sec := range []string{"persistence", "replication", "cpu", "stats"} {
		fields := func(info string) map[string]bool {
			out := map[string]bool{}
			for _, l := range strings.Split(info, "\r\n") {
				if k, _, ok := strings.Cut(l, ":"); ok && !strings.HasPrefix(l, "$") {
					out[k] = true
				}
			}
			return out
		}
		theirs := fields(rw.do("INFO", sec))
		for k := range fields(w.do("INFO", sec)) {
			if !theirs[k] {
				t.Errorf("INFO %s: zlite's field %q is not Redis's", sec, k)
			}
		}
	}
}
