package server

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zlite/zlite"
)

// openDB opens a persistent keyspace in a new directory.
func openDB(t *testing.T, dir string) *zlite.DB {
	t.Helper()
	db, err := zlite.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestSavePersistent(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir)
	addr, _ := startServer(t, WithDB(0, db))
	t.Cleanup(func() { db.Close() })
	c := dial(t, addr)
	for _, tc := range []struct{ args, want string }{
		{"CONFIG GET appendonly", "*2\r\n$10\r\nappendonly\r\n$3\r\nyes\r\n"},
		{"CONFIG GET appendfsync", "*2\r\n$11\r\nappendfsync\r\n$8\r\neverysec\r\n"},
		{"CONFIG SET appendfsync everysec", "+OK\r\n"},
		{"CONFIG SET appendonly yes", "+OK\r\n"},
		{"SET k v", "+OK\r\n"},
		{"SAVE", "+OK\r\n"},
	} {
		if r := c.do(strings.Fields(tc.args)...); r != tc.want {
			t.Errorf("%s = %q; want %q", tc.args, r, tc.want)
		}
	}
	if r := c.do("CONFIG", "GET", "dir"); !strings.Contains(r, dir) {
		t.Errorf("CONFIG GET dir = %q; want %s", r, dir)
	}
	if r := c.do("INFO", "persistence"); !strings.Contains(r, "aof_enabled:1\r\n") || !strings.Contains(r, "rdb_saves:1\r\n") || !strings.Contains(r, "rdb_changes_since_last_save:0\r\n") {
		t.Errorf("INFO persistence after SAVE: %q", r)
	}
	c.do("SET", "k2", "v")
	if r := c.do("INFO", "persistence"); !strings.Contains(r, "rdb_changes_since_last_save:1\r\n") {
		t.Errorf("INFO persistence after a write: %q", r)
	}
	if r := c.do("BGSAVE"); r != "+Background saving started\r\n" && r != "-ERR Background save already in progress\r\n" {
		t.Errorf("BGSAVE = %q", r)
	}
	waitSaves(t, c)
	if r := c.do("BGREWRITEAOF"); r != "+Background append only file rewriting started\r\n" {
		t.Errorf("BGREWRITEAOF = %q", r)
	}
	waitSaves(t, c)
	if r := c.do("INFO", "persistence"); !strings.Contains(r, "aof_rewrites:1\r\n") || !strings.Contains(r, "aof_rewrite_in_progress:0\r\n") {
		t.Errorf("INFO persistence after BGREWRITEAOF: %q", r)
	}
	if r := c.do("DEBUG", "RELOAD"); r != "+OK\r\n" {
		t.Errorf("DEBUG RELOAD = %q", r)
	}
}

func TestDebugReloadReopen(t *testing.T) {
	dir := t.TempDir()
	db := openDB(t, dir)
	var reopened *zlite.DB
	addr, s := startServer(t, WithDB(0, db), WithReopen(func(i int, old *zlite.DB) (*zlite.DB, error) {
		if err := old.Snapshot(); err != nil {
			return nil, err
		}
		if err := old.Close(); err != nil {
			return nil, err
		}
		ndb, err := zlite.Open(dir)
		reopened = ndb
		return ndb, err
	}))
	t.Cleanup(func() {
		if reopened != nil {
			reopened.Close()
		}
	})
	c := dial(t, addr)
	c.do("SET", "k", "v")
	if r := c.do("DEBUG", "RELOAD"); r != "+OK\r\n" {
		t.Fatalf("DEBUG RELOAD = %q", r)
	}
	if s.DB(0) != reopened || reopened == nil {
		t.Fatalf("DB(0) is not the reopened keyspace")
	}
	if r := c.do("GET", "k"); r != "$1\r\nv\r\n" {
		t.Errorf("GET k after DEBUG RELOAD = %q; want v", r)
	}
}

func TestInMemorySaveAndDebug(t *testing.T) {
	addr, s := startServer(t)
	c := dial(t, addr)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"SAVE"}, "+OK\r\n"},
		{[]string{"DEBUG", "RELOAD"}, "+OK\r\n"},
		{[]string{"DEBUG", "SET-ACTIVE-EXPIRE", "0"}, "+OK\r\n"},
		{[]string{"DEBUG", "JMAP"}, "-ERR unknown subcommand or wrong number of arguments for 'JMAP'. Try DEBUG HELP.\r\n"},
		{[]string{"DEBUG", "OBJECT", "nokey"}, "-ERR no such key\r\n"},
		{[]string{"DEBUG", "SLEEP", "x"}, "+OK\r\n"},
		{[]string{"DEBUG", "SLEEP", "-5"}, "+OK\r\n"},
		{[]string{"DEBUG", "SLEEP", "0"}, "+OK\r\n"},
		{[]string{"CLIENT", "TRACKING", "on"}, "-ERR CLIENT TRACKING is not supported by zlite (no client-side caching)\r\n"},
		{[]string{"CLIENT", "GETREDIR"}, "-ERR CLIENT GETREDIR is not supported by zlite (no client-side caching)\r\n"},
		{[]string{"CONFIG", "SET", "appendonly", "yes"}, "-ERR CONFIG SET failed (possibly related to argument 'appendonly') - zlite cannot turn persistence on or off at run time (a keyspace is persistent when opened with zlite.Open)\r\n"},
		{[]string{"MEMORY", "USAGE", "nokey", "SAMPLES", "99999999999"}, "$-1\r\n"},
	} {
		if r := c.do(tc.args...); r != tc.want {
			t.Errorf("%q = %q; want %q", tc.args, r, tc.want)
		}
	}
	if s.activeExpire.Load() {
		t.Error("DEBUG SET-ACTIVE-EXPIRE 0 not kept")
	}
	c.do("RPUSH", "l", "a", "b")
	if r := c.do("DEBUG", "OBJECT", "l"); !strings.HasPrefix(r, "+Value at:0x") || !strings.Contains(r, " refcount:1 encoding:quicklist serializedlength:") {
		t.Errorf("DEBUG OBJECT l = %q", r)
	}
	r := c.do("MEMORY", "USAGE", "l")
	if !strings.HasPrefix(r, ":") || r == ":0\r\n" {
		t.Errorf("MEMORY USAGE l = %q; want a positive size", r)
	}
	if r := c.do("MEMORY", "STATS"); !strings.Contains(r, "keys.count") || !strings.Contains(r, "db.0") {
		t.Errorf("MEMORY STATS = %q", r)
	}
}

// TestDebugSleepShutdown: a DEBUG SLEEP of a day ends when the server shuts down.
func TestDebugSleepShutdown(t *testing.T) {
	addr, s := startServer(t)
	c := dial(t, addr)
	c.send("DEBUG", "SLEEP", "1e300")
	other := dial(t, addr)
	// The sleeper shows in CLIENT LIST with cmd=debug once it runs.
	for !strings.Contains(other.do("CLIENT", "LIST"), "cmd=debug") {
	}
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	<-done
	if r, err := c.read(); err == nil && r != "+OK\r\n" {
		t.Errorf("DEBUG SLEEP after Close = %q", r)
	}
}

// TestShutdownSave: SHUTDOWN SAVE snapshots the persistent keyspaces before the
// handler runs; NOSAVE does not.
func TestShutdownSave(t *testing.T) {
	for _, tc := range []struct {
		opt   string
		saves int64
	}{{"SAVE", 1}, {"NOSAVE", 0}} {
		t.Run(tc.opt, func(t *testing.T) {
			db := openDB(t, t.TempDir())
			t.Cleanup(func() { db.Close() })
			called := make(chan int64, 1)
			var ref atomic.Pointer[Server]
			addr, s := startServer(t, WithDB(0, db), WithShutdownHandler(func() {
				s := ref.Load()
				s.saves.mu.Lock()
				called <- s.saves.saves
				s.saves.mu.Unlock()
			}))
			ref.Store(s)
			c := dial(t, addr)
			c.do("SET", "k", "v")
			c.send("SHUTDOWN", tc.opt)
			if n := <-called; n != tc.saves {
				t.Errorf("SHUTDOWN %s: %d saves before the handler; want %d", tc.opt, n, tc.saves)
			}
		})
	}
}

// waitSaves asks INFO persistence until no background save runs.
func waitSaves(t *testing.T, c *wire) {
	t.Helper()
	for {
		r := c.do("INFO", "persistence")
		if strings.Contains(r, "rdb_bgsave_in_progress:0\r\n") && strings.Contains(r, "aof_rewrite_in_progress:0\r\n") {
			return
		}
	}
}
