package server

import (
	"strings"
	"testing"
)

// TestInfo checks INFO's sections and Redis's field names.
func TestInfo(t *testing.T) {
	addr, _ := startServer(t)
	w := dial(t, addr)
	w.do("ZADD", "z", "1", "a")
	w.do("SELECT", "3")
	w.do("RPUSH", "l", "x", "y")
	tests := []struct {
		args     []string
		has, not []string
	}{
		{[]string{"INFO"}, []string{"# Server\r\nredis_version:" + Version + "\r\n", "# Clients\r\nconnected_clients:1\r\n", "blocked_clients:0\r\n",
			"# Memory\r\nused_memory:", "# Stats\r\n", "total_commands_processed:", "# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\ndb3:keys=1,expires=0,avg_ttl=0\r\n"},
			[]string{"# Commandstats"}},
		{[]string{"INFO", "keyspace"}, []string{"# Keyspace\r\n"}, []string{"# Server"}},
		{[]string{"INFO", "all"}, []string{"# Commandstats\r\ncmdstat_rpush:calls=1,", "cmdstat_zadd:calls=1,"}, []string{"cmdstat_dbsize"}},
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
