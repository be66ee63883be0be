package bench

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// machine describes where the report was produced.
func (r *Report) machine() string {
	cpu := ""
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "model name"); ok {
				cpu = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":")) + ", "
				break
			}
		}
	}
	return fmt.Sprintf("%s/%s, %s%d CPUs, %s", runtime.GOOS, runtime.GOARCH, cpu, runtime.NumCPU(), runtime.Version())
}

// Document renders the report as a Markdown document: where and how it was
// measured, notes, the table of [Report.Markdown] and how to read its ratios.
func (r *Report) Document() string {
	var b strings.Builder
	c := r.Config
	fmt.Fprintf(&b, "## zlite benchmark results\n\n")
	fmt.Fprintf(&b, "Measured %s on %s; the run took %s.\n", r.Started.UTC().Format("2006-01-02 15:04 MST"), r.machine(), r.Elapsed.Round(time.Second))
	if r.Load != "" {
		fmt.Fprintf(&b, "Load average when it started (1, 5, 15 min): %s; a busy machine lowers every figure.\n", r.Load)
	}
	fmt.Fprintf(&b, "Versions and command line: %s.\n", r.Provenance)
	fmt.Fprintf(&b, "Each figure is the median of %d runs of %s of timed work after an untimed warm-up "+
		"(the RESP rows: %d redis-benchmark runs of %d requests, or %d go-redis runs of %s), "+
		"± half the range of the runs; the systems took turns within each round. "+
		"Every system got the same data, built the same way, and the same command arguments.\n", c.Runs, c.Duration, c.Runs, c.RespRequests, c.Runs, c.Duration)
	b.WriteString(Legend + "\n")
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\n> %s\n", n)
	}
	b.WriteString("\n")
	b.WriteString(r.Markdown())
	b.WriteString(`
How to read it: ops/s is commands per second from one client (LPUSH + RPOP counts
as one; a queue row's ops are whole enqueue+dequeue pairs), or hand-offs per second
for the blocking rows (producers/consumers, closed loop, one item in flight per
consumer). p50/p99 are the times from just before a push to the blocked consumer's
return; for the delayed queue and the scheduler, from the job's due time (2 ms after
it was scheduled) to the consumer's return, that is how late the job is delivered. B/elem is the memory
added per element (Go heap in use after GC for zlite and miniredis, used_memory
less the clients' buffers for Redis), including the 15-byte member strings. The many-keys rows spread the data
over keys (sorted sets, lists, hashes, sets and integer sets; strings of 16 bytes and
INCR counters, whose one element is the key, have B/key only; one hash or set holding
every element has B/elem only): n is keys×elements per key, B/key the memory added
per key (key names, per-key overhead and elements), and their throughput rows send
each command to a random one of the keys (an MGET of 10 random keys counts as one
command). "zlite vs X" is how many times better zlite's
figure is than X's (faster, lower latency, smaller); the cases where zlite is worse
are in bold. Against Redis with one round trip per command the ratio is mostly the
network hop and protocol that zlite does not have; against Redis pipelined ×100 most
of that cost is shared among 100 commands, so that ratio is closer to the cost of
Redis's own data structures; miniredis is the in-process Go peer (it still speaks
RESP over a loopback socket). The RESP rows (group resp) put zlite behind the
protocol too: redis-benchmark's requests per second (-t zadd,zpopmin,lpush,rpop,
set,get,incr,hset,sadd,mset -r 100000, MSET of 10 keys, each -P and -c shown)
against a zlite server and against redis-server in turn, and go-redis through the in-process server.Dialer against go-redis on
miniredis over TCP; their zlite figure is in the zlite column.
`)
	return b.String()
}

// Legend says what the ⚠ on a ratio means, for the report and the chart.
const Legend = "⚠ on a ratio: the ranges of the two systems' runs overlap, so this run does not " +
	"settle which is better; rerun that row with more -runs (or on a quieter machine) before quoting it. " +
	"A ratio without ⚠ held in every round."

// loadAverage returns the 1, 5 and 15 minute load averages, or "" where unknown.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], ", ")
}
