package bench

import (
	"context"
	"strings"

	"github.com/zlite/zlite/bench/respbench"
)

// defaultRespRequests is redis-benchmark's -n for the resp group, per run: with
// the default 5 rounds, 100,000 requests behind each figure, and the group takes
// about a minute and a half.
const defaultRespRequests = 20000

// runResp runs the RESP group: [respbench.Run] with the group's settings, its rows
// put in the report's columns, the zlite figure under [Reference] and the other
// system's under "redis" (redis-server) or "miniredis", so that the ratio columns
// compare them; a column missing from the run is added. Each figure is the median
// of cfg.Runs rounds, as the other groups' are, with the range of the rounds as its
// spread: a round is a redis-benchmark run of cfg.RespRequests requests, or
// cfg.Duration of go-redis commands.
func runResp(ctx context.Context, cfg *Config, r *Report) error {
	cfg.progress("resp: redis-benchmark and go-redis over RESP")
	// The zlite server runs in a process of its own, as redis-server does: served
	// from zbench's, it would share a heap that holds every earlier group's data
	// with its garbage collector (in the default order that made the -P 64 -c 50
	// rows 0.67-0.81x Redis where a process of its own gave 0.88-1.70x).
	rep, err := respbench.Run(ctx, respbench.Config{Requests: cfg.RespRequests, Duration: cfg.Duration, Rounds: cfg.Runs,
		Server: respbench.ChildServer})
	if err != nil {
		return err
	}
	if rep.Skipped != "" {
		r.Notes = append(r.Notes, "resp: redis-benchmark rows left out: "+rep.Skipped)
	}
	for _, row := range rep.Rows {
		other := "miniredis"
		if row.Base == "redis-server" {
			other = "redis"
		}
		r.addColumn(Reference)
		r.addColumn(other)
		title := row.Workload
		if row.Base == "redis-server" {
			title = "RESP " + title + " (zlite server vs redis-server)"
		}
		out := Row{Group: "resp", Workload: title, ID: "resp-" + respID(row.Workload), Metric: OpsPerSec, Values: map[string]float64{}}
		out.set(Reference, row.ZliteRuns)
		out.set(other, row.OtherRuns)
		r.Rows = append(r.Rows, out)
	}
	cfg.bar.finished()
	return nil
}

// respID turns a respbench workload name into a benchmark-name fragment, e.g.
// "ZADD -P 64 -c 50" into "zadd-p64-c50", "go-redis ZADD (Dialer vs TCP)" into
// "go-redis-zadd".
func respID(w string) string {
	w, _, _ = strings.Cut(strings.ToLower(w), " (")
	var b strings.Builder
	flag := false // the previous word was a flag: its value follows it directly
	for i, f := range strings.Fields(w) {
		if i > 0 && !flag && !strings.HasPrefix(f, "-") {
			b.WriteByte('-')
		}
		b.WriteString(f)
		flag = strings.HasPrefix(f, "-")
	}
	return b.String()
}
