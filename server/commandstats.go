package server

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// commandStats holds INFO commandstats' figures that the server counts itself, by
// command name as CLIENT LIST shows it ("client|list"): the calls and time of the
// server's own commands (CLIENT, CONFIG, PING, PUBLISH, ...), and the commands of
// either kind refused before they ran. The calls of the keyspace commands are the
// keyspaces' own counters (zlite.DB.CommandCalls: those sent by clients, in MULTI
// and from scripts, as Redis counts them), less what they were at the last CONFIG
// RESETSTAT; their time is not measured, to keep their path free of shared
// counters. Names are only those of known commands, so the table is bounded.
type commandStats struct {
	m sync.Map // name → *commandStat

	mu   sync.Mutex
	base map[string]uint64 // the keyspace commands' calls at CONFIG RESETSTAT
}

// commandStat is one command's counters.
type commandStat struct{ calls, usec, rejected atomic.Int64 }

func (cs *commandStats) stat(name string) *commandStat {
	if v, ok := cs.m.Load(name); ok {
		return v.(*commandStat)
	}
	v, _ := cs.m.LoadOrStore(strings.Clone(name), new(commandStat))
	return v.(*commandStat)
}

// ran counts a server command that ran for d.
func (cs *commandStats) ran(name string, d time.Duration) {
	st := cs.stat(name)
	st.calls.Add(1)
	st.usec.Add(d.Microseconds())
}

// rejected counts a known command refused before it ran (rejected_calls).
func (cs *commandStats) rejected(name string) { cs.stat(name).rejected.Add(1) }

// reset starts the counts again (CONFIG RESETSTAT) from the keyspace commands'
// calls now.
func (cs *commandStats) reset(calls map[string]uint64) {
	cs.m.Clear()
	cs.mu.Lock()
	cs.base = calls
	cs.mu.Unlock()
}

// write writes INFO commandstats' lines from the keyspace commands' calls (summed
// over the keyspaces), in name order: every command with a call or a refusal.
func (cs *commandStats) write(b *strings.Builder, calls map[string]uint64) {
	type line struct{ calls, usec, rejected int64 }
	lines := map[string]*line{}
	cs.mu.Lock()
	for n, k := range calls {
		if k > cs.base[n] {
			lines[n] = &line{calls: int64(k - cs.base[n])}
		}
	}
	cs.mu.Unlock()
	cs.m.Range(func(k, v any) bool {
		st := v.(*commandStat)
		l := lines[k.(string)]
		if l == nil {
			l = &line{}
			lines[k.(string)] = l
		}
		l.calls += st.calls.Load()
		l.usec, l.rejected = st.usec.Load(), st.rejected.Load()
		return true
	})
	names := make([]string, 0, len(lines))
	for n, l := range lines {
		if l.calls > 0 || l.rejected > 0 {
			names = append(names, n)
		}
	}
	sortStrings(names)
	b.WriteString("# Commandstats\r\n")
	for _, n := range names {
		l := lines[n]
		perCall := 0.0
		if l.calls > 0 {
			perCall = float64(l.usec) / float64(l.calls)
		}
		fmt.Fprintf(b, "cmdstat_%s:calls=%d,usec=%d,usec_per_call=%.2f,rejected_calls=%d,failed_calls=0\r\n",
			n, l.calls, l.usec, perCall, l.rejected)
	}
}

// keyspaceCalls sums the keyspace commands' calls over the keyspaces.
func (s *Server) keyspaceCalls() map[string]uint64 {
	calls := map[string]uint64{}
	for i := range NumDBs {
		for n, k := range s.DB(i).CommandCalls() {
			calls[n] += k
		}
	}
	return calls
}
