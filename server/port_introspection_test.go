package server

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/zlite/zlite/internal/redistest"
)

// Ports of Redis 7.0's tests/unit/introspection.tcl, as a checklist. Its MONITOR
// tests run on both servers, the lines compared once the timestamp and client
// address (which differ by nature) are masked: the "monitor-mask" loosening.
// The other cases are scenarios (scenario_test.go) compared byte for byte.
//
// Left out, and why:
//   - CLIENT LIST/INFO/KILL/REPLY and CLIENT SETNAME cases: admin_test.go and
//     scenario_test.go cover them.
//   - "MONITOR supports redacting command arguments": it needs MIGRATE
//     (replication); AUTH and HELLO redaction is checked below.
//   - "CONFIG save params special case", "CONFIG sanity", "CONFIG REWRITE
//     sanity", the config file and command-line cases: zlite has no
//     configuration file and only the settings server/doc.go lists.
//   - CLIENT TRACKING tests (tracking.tcl): zlite has no client-side caching.
var introspectionScenarios = []scenario{
	{"introspection-errors", 1, []string{
		"0: PING", "0: PING redis", "0: PING hello redis",
		"0: MONITOR x", "0: WAIT 0 0", "0: WAIT x 0", "0: WAIT 1 -1", "0: WAIT 1 x", "0: WAIT 1",
		"0: MULTI", "0: MONITOR", "0: EXEC",
		"0: SAVE x", "0: BGSAVE foo", "0: BGSAVE a b", "0: BGREWRITEAOF x",
		"0: SHUTDOWN foo", "0: SHUTDOWN SAVE NOSAVE", "0: SHUTDOWN ABORT", "0: SHUTDOWN NOW ABORT",
		"0: MULTI", "0: SAVE", "0: EXEC",
		"0: MEMORY", "0: MEMORY foo", "0: MEMORY HELP", "0: MEMORY USAGE nokey", "0: MEMORY USAGE",
		"0: SET k v", "0: MEMORY USAGE k samples -1", "0: MEMORY USAGE k samples x", "0: MEMORY USAGE k foo",
		"0: MEMORY USAGE k samples", "0: MEMORY PURGE", "0: MEMORY STATS x",
		"0: CONFIG SET save 3600~1~300~100", "0: CONFIG GET save", cmdStep("CONFIG", "SET", "save", ""),
		"0: CONFIG SET appendfsync sometimes", "0: CONFIG GET appendfsync", "0: CONFIG SET appendfsync everysec",
		"0: CONFIG SET appendonly maybe", "0: CONFIG SET appendonly no",
		"0: CLIENT CACHING", "0: CLIENT TRACKING",
	}},
}

func TestIntrospectionScenarios(t *testing.T) {
	restoreRedis(t, redistest.Require(t))
	for _, sc := range introspectionScenarios {
		for _, proto := range []int{2, 3} {
			t.Run(sc.name+"/resp="+strconv.Itoa(proto), func(t *testing.T) {
				runScenario(t, sc, proto)
			})
		}
	}
}

// monitorLineRE matches a monitor line; its groups are the time and the source.
var monitorLineRE = regexp.MustCompile(`^\+(\d+\.\d{6}) \[(\d+ [^\]]+)\] (.*)\r\n$`)

// masked is a monitor line with its time and client address masked.
func masked(t *testing.T, line string) string {
	t.Helper()
	m := monitorLineRE.FindStringSubmatch(line)
	if m == nil {
		return "not a monitor line: " + line
	}
	src := m[2]
	if !strings.HasSuffix(src, " lua") {
		src = strings.SplitN(src, " ", 2)[0] + " addr"
	}
	return "[" + src + "] " + m[3]
}

// TestMonitorPort runs introspection.tcl's MONITOR tests on both servers: the
// lines of plain commands, of a script's and a function's commands, of a
// transaction, and the redaction of AUTH and HELLO, masked (monitor-mask).
func TestMonitorPort(t *testing.T) {
	redistest.Require(t)
	for _, proto := range []int{2, 3} {
		t.Run("resp="+strconv.Itoa(proto), func(t *testing.T) {
			ps := sides(t, 2, proto)
			mon, cl := ps[0], ps[1]
			cl.do("FUNCTION", "LOAD", "REPLACE", "#!lua name=montest\nredis.register_function('montest', function() return redis.call('set', 'foo', 'bar') end)")
			mon.do("MONITOR")
			steps := [][]string{
				{"SET", "foo", "bar"}, {"GET", "foo"},
				{"EVAL", "redis.call('set',KEYS[1],ARGV[1])", "1", "foo", "bar"},
				{"FCALL", "montest", "0"},
				{"MULTI"}, {"SET", "foo", "bar"}, {"EXEC"},
				{"MULTI"}, {"SYNTAX", "ERROR"}, {"EXEC"},
				{"AUTH", "not-real"}, {"AUTH", "not-real", "not-a-password"},
				{"HELLO", "2", "AUTH", "not-real", "not-a-password"},
				{"SET", "k", "a\"b\\\n\x01\xff\r\t"}, {"CONFIG", "GET", "maxclients"}, {"DBSIZE"},
			}
			for _, s := range steps {
				for _, w := range cl.conns {
					w.send(s...)
					if _, err := w.read(); err != nil {
						t.Fatalf("%q: %v", s, err)
					}
				}
			}
			// A marker: the lines before it are complete once it arrives.
			for _, w := range cl.conns {
				w.do("PING", "end")
			}
			var got [2][]string
			for side, w := range mon.conns {
				for {
					r, err := w.read()
					if err != nil {
						t.Fatalf("side %d: reading the monitor: %v (so far %q)", side, err, got[side])
					}
					got[side] = append(got[side], masked(t, r))
					if strings.HasSuffix(r, `"PING" "end"`+"\r\n") {
						break
					}
				}
			}
			if strings.Join(got[0], "\n") != strings.Join(got[1], "\n") {
				t.Errorf("monitor lines differ:\nzlite:\n%s\nredis:\n%s", strings.Join(got[0], "\n"), strings.Join(got[1], "\n"))
			}
			// The monitoring connection runs no keyspace command; PING is shown.
			for _, args := range [][]string{{"GET", "foo"}, {"OBJECT", "ENCODING", "foo"}, {"PUBLISH", "x", "y"},
				{"EVAL", "return 1", "0"}, {"FLUSHDB"}, {"MEMORY", "USAGE", "foo"}, {"SET", "a"}, {"NOSUCH"}} {
				mon.do(args...)
			}
			mon.do("RESET")
			mon.do("GET", "foo")
			cl.do("FUNCTION", "DELETE", "montest")
		})
	}
}
