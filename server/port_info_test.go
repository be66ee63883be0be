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
//   - Values of usec and usec_per_call, failed_calls and rejected_calls: zlite
//     counts calls only (server/doc.go).
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
