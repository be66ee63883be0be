package server

import (
	"regexp"
	"strings"
	"testing"

	"github.com/zlite/zlite/internal/redistest"
)

// Ports of Redis 7.0's tests/unit/info.tcl, as a checklist: the fields tools read
// are present on both servers, in the same sections, and commandstats' lines have
// Redis's shape.
//
// Left out, and why:
//   - The errorstats cases: errorstats is checked in info_test.go.
//   - latencystats (latency-tracking): zlite keeps no per-command percentiles.
//   - Values of usec and usec_per_call, and failed_calls: zlite times its server
//     commands only and counts no failed calls (server/doc.go). Calls and
//     rejected_calls are compared in TestInfoCommandstatsDiff.
func TestInfoPort(t *testing.T) {
	redistest.Require(t)
	p := sides(t, 1, 2)[0]
	fields := map[string][]string{
		"memory": {"used_memory", "used_memory_human", "used_memory_rss", "used_memory_peak",
			"used_memory_peak_human", "maxmemory", "maxmemory_human", "maxmemory_policy",
			"mem_fragmentation_ratio", "mem_allocator"},
		"persistence": {"loading", "rdb_changes_since_last_save", "rdb_bgsave_in_progress",
			"rdb_last_save_time", "rdb_last_bgsave_status", "aof_enabled", "aof_rewrite_in_progress",
			"aof_rewrite_scheduled", "aof_last_bgrewrite_status"},
	}
	for sec, names := range fields {
		for side, w := range p.conns {
			r := w.do("INFO", sec)
			for _, n := range names {
				if !strings.Contains(r, "\r\n"+n+":") {
					t.Errorf("side %d: INFO %s has no %s", side, sec, n)
				}
			}
		}
	}
	for side, w := range p.conns {
		w.do("SET", "k", "v")
		r := w.do("INFO", "commandstats")
		i := strings.Index(r, "cmdstat_set:")
		if i < 0 {
			t.Fatalf("side %d: no cmdstat_set in %q", side, r)
		}
		line := r[i : i+strings.Index(r[i:], "\r\n")]
		if !infoCmdstatRE.MatchString(line) {
			t.Errorf("side %d: %q is not Redis's cmdstat line", side, line)
		}
	}
}

var infoCmdstatRE = regexp.MustCompile(`^cmdstat_set:calls=\d+,usec=\d+,usec_per_call=\d+\.\d\d,rejected_calls=\d+,failed_calls=\d+$`)

// TestInfoCommandstatsDiff runs the same commands on both servers after CONFIG
// RESETSTAT and compares INFO commandstats' calls and rejected_calls per command:
// keyspace and server commands, a subcommand, a script's own calls, refusals by
// arity, and unknown commands and subcommands, which no line counts.
func TestInfoCommandstatsDiff(t *testing.T) {
	p := sides(t, 1, 2)[0]
	for _, w := range p.conns {
		w.do("CONFIG", "RESETSTAT")
		for _, c := range [][]string{
			{"SET", "a", "1"}, {"SET", "b", "1", "junk"}, {"GET"}, {"GET", "a"}, {"INCR", "a"},
			{"EVAL", "redis.call('set', 'c', '1') return redis.call('get', 'c')", "0"},
			{"PING"}, {"PING"}, {"CLIENT", "ID"}, {"CLIENT", "NOSUCH"}, {"CLIENT"}, {"NOSUCHCMD", "x"},
			{"SELECT", "x", "y"}, {"ZADD", "z", "1", "m"}, {"ZRANGE", "z", "0", "-1"},
		} {
			w.do(c...)
		}
	}
	stats := func(side int) map[string]string {
		out := map[string]string{}
		for _, l := range strings.Split(p.conns[side].do("INFO", "commandstats"), "\r\n") {
			m := infoCallsRE.FindStringSubmatch(l)
			if m != nil && m[1] != "info" {
				out[m[1]] = "calls=" + m[2] + ",rejected_calls=" + m[3]
			}
		}
		return out
	}
	z, r := stats(0), stats(1)
	if len(r) < 8 {
		t.Fatalf("Redis listed %d commands: %v", len(r), r)
	}
	for name, want := range r {
		if got := z[name]; got != want {
			t.Errorf("cmdstat_%s: zlite %q, Redis %q", name, got, want)
		}
	}
	for name := range z {
		if _, ok := r[name]; !ok {
			t.Errorf("cmdstat_%s: zlite lists it (%s), Redis does not", name, z[name])
		}
	}
}

var infoCallsRE = regexp.MustCompile(`^cmdstat_([^:]+):calls=(\d+),usec=\d+,usec_per_call=\d+\.\d\d,rejected_calls=(\d+),failed_calls=\d+$`)
