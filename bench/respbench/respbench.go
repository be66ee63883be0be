// Package respbench measures zlite over the Redis protocol: redis-benchmark against
// a redis-server and against a zlite server with the same flags in the same run,
// and go-redis on an embedded DB through the in-process [server.Dialer] against
// go-redis on miniredis.
//
//	rep, err := respbench.Run(ctx, respbench.Config{})
//	fmt.Print(rep.Markdown())
//
// The redis-benchmark rows need redis-benchmark (Debian's redis-tools) and a
// redis-server (REDIS_ADDR, or redis-server from PATH, started on a free loopback
// port); without them those rows are left out and Report.Skipped says why. Every
// figure is the median of [Config.Rounds] runs; in each round the systems take
// turns for each test and flag combination, so machine load affects both alike;
// compare ratios, not absolute figures, on a shared machine.
package respbench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/server"
)

// Config sets what Run measures; every zero field takes the default shown.
type Config struct {
	Tests     string        // redis-benchmark -t: "zadd,zpopmin,lpush,rpop,set,get,incr,hset,sadd,mset"
	Requests  int           // redis-benchmark -n: 200000
	Random    int           // redis-benchmark -r (random keys): 100000
	Pipelines []int         // redis-benchmark -P values: 1, 64
	Clients   []int         // redis-benchmark -c values: 1, 50
	Duration  time.Duration // timed work per go-redis run: 200ms
	Rounds    int           // runs per figure, the systems taking turns in each: 5
	// Server starts the zlite server that redis-benchmark measures and returns its
	// address and a function that stops it; nil serves a [server.Server] from this
	// process, sharing its heap and its garbage collector with the caller's.
	// [ChildServer] serves it from a process of its own, as redis-server is.
	Server func(ctx context.Context) (addr string, stop func(), err error)
}

func (c *Config) defaults() {
	if c.Tests == "" {
		c.Tests = "zadd,zpopmin,lpush,rpop,set,get,incr,hset,sadd,mset"
	}
	if c.Requests == 0 {
		c.Requests = 200000
	}
	if c.Random == 0 {
		c.Random = 100000
	}
	if len(c.Pipelines) == 0 {
		c.Pipelines = []int{1, 64}
	}
	if len(c.Clients) == 0 {
		c.Clients = []int{1, 50}
	}
	if c.Duration == 0 {
		c.Duration = 200 * time.Millisecond
	}
	if c.Rounds <= 0 {
		c.Rounds = 5
	}
}

// Row is one workload's throughput on two systems.
type Row struct {
	Workload  string    // e.g. "ZADD -P 64 -c 50"
	Base      string    // the system compared with: "redis-server" or "miniredis"
	Zlite     float64   // requests per second on zlite: the median of ZliteRuns
	Other     float64   // requests per second on Base: the median of OtherRuns
	ZliteRuns []float64 // the figure of each round on zlite, in round order
	OtherRuns []float64 // the figure of each round on Base, in round order
}

// newRow returns the row of workload from the runs of each system.
func newRow(workload, base string, zlite, other []float64) Row {
	return Row{Workload: workload, Base: base, Zlite: median(zlite), Other: median(other), ZliteRuns: zlite, OtherRuns: other}
}

// median returns the median of xs (the mean of the middle two for an even
// count), 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// spread returns the range of xs as a fraction of their median, 0 for none.
func spread(xs []float64) float64 {
	m := median(xs)
	if !(m > 0) {
		return 0
	}
	return (slices.Max(xs) - slices.Min(xs)) / m
}

// Ratio is Zlite / Other.
func (r Row) Ratio() float64 { return r.Zlite / r.Other }

// Report is Run's result.
type Report struct {
	Rows    []Row
	Skipped string // why the redis-benchmark rows are missing, if they are
}

// Markdown renders the report as a table: each figure the median of its rounds
// with their range (max-min) as a percentage of it.
func (r Report) Markdown() string {
	var b strings.Builder
	b.WriteString("| Workload | vs | zlite req/s | range | other req/s | range | zlite / other |\n|---|---|--:|--:|--:|--:|--:|\n")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "| %s | %s | %.0f | %.0f%% | %.0f | %.0f%% | %.2f× |\n", row.Workload, row.Base,
			row.Zlite, 100*spread(row.ZliteRuns), row.Other, 100*spread(row.OtherRuns), row.Ratio())
	}
	if r.Skipped != "" {
		fmt.Fprintf(&b, "\nredis-benchmark rows skipped: %s\n", r.Skipped)
	}
	return b.String()
}

// Run measures the workloads of cfg.
func Run(ctx context.Context, cfg Config) (Report, error) {
	cfg.defaults()
	var rep Report
	rows, err := benchmarkRows(ctx, cfg)
	if err != nil {
		rep.Skipped = err.Error()
	}
	rep.Rows = append(rep.Rows, rows...)
	drows, err := dialerRows(ctx, cfg)
	rep.Rows = append(rep.Rows, drows...)
	return rep, err
}

// Version returns the first line of redis-benchmark --version, e.g.
// "redis-benchmark 7.0.15", or an error when redis-benchmark is not installed.
func Version(ctx context.Context) (string, error) {
	bin, err := exec.LookPath("redis-benchmark")
	if err != nil {
		return "", errNoBenchmark
	}
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", bin, err)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line, nil
}

var errNoBenchmark = errors.New("redis-benchmark not installed (apt-get install redis-tools)")

// benchmarkRows runs redis-benchmark on both servers for each -P and -c.
func benchmarkRows(ctx context.Context, cfg Config) ([]Row, error) {
	bin, err := exec.LookPath("redis-benchmark")
	if err != nil {
		return nil, errNoBenchmark
	}
	raddr, err := redistest.Addr()
	if err != nil {
		return nil, err
	}
	start := cfg.Server
	if start == nil {
		start = inProcess
	}
	zaddr, stop, err := start(ctx)
	if err != nil {
		return nil, err
	}
	defer stop()
	tests := strings.Split(cfg.Tests, ",")
	var rows []Row
	for _, p := range cfg.Pipelines {
		for _, c := range cfg.Clients {
			zruns, rruns := map[string][]float64{}, map[string][]float64{}
			// Rounds of one test at a time on each system in turn, so that a change
			// in the machine's load falls on both alike; each server keeps its keys
			// from one test to the next (ZPOPMIN pops what ZADD added), as in one run
			// of all.
			for range cfg.Rounds {
				for _, test := range tests {
					one := cfg
					one.Tests = test
					z, err := redisBenchmark(ctx, bin, zaddr, one, p, c)
					if err != nil {
						return rows, fmt.Errorf("zlite: %w", err)
					}
					r, err := redisBenchmark(ctx, bin, raddr, one, p, c)
					if err != nil {
						return rows, fmt.Errorf("redis-server: %w", err)
					}
					name := strings.ToUpper(test)
					if z[name] > 0 && r[name] > 0 { // a round too short to time is left out
						zruns[name] = append(zruns[name], z[name])
						rruns[name] = append(rruns[name], r[name])
					}
				}
			}
			for _, test := range tests {
				name := strings.ToUpper(test)
				if len(zruns[name]) == 0 {
					continue
				}
				rows = append(rows, newRow(fmt.Sprintf("%s -P %d -c %d", name, p, c), "redis-server", zruns[name], rruns[name]))
			}
		}
	}
	return rows, nil
}

// inProcess serves a new server.Server on a free loopback port from this process.
func inProcess(context.Context) (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := server.New()
	go func() { _ = srv.Serve(l) }()
	return l.Addr().String(), func() { srv.Close() }, nil
}

// childEnv marks the process that [ChildServer] starts.
const childEnv = "ZLITE_RESPBENCH_CHILD"

// ChildServer is a [Config.Server] that serves from a new process of its own: the
// running executable again, which must call [ServeIfChild] first thing in main. The
// child serves a new server.Server on a free loopback port, reports the address on
// its stdout and ends when its stdin closes (stop closes it and waits), so that
// the server's heap and garbage collector are its own, as redis-server's are.
func ChildServer(ctx context.Context) (string, func(), error) {
	exe, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		in.Close()
		_ = cmd.Wait()
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		stop()
		return "", nil, fmt.Errorf("respbench: the server process did not start: %w", err)
	}
	return strings.TrimSpace(line), stop, nil
}

// ServeIfChild serves, and then exits, when the process is one that [ChildServer]
// started; otherwise it returns at once.
func ServeIfChild() {
	if os.Getenv(childEnv) == "" {
		return
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "respbench child:", err)
		os.Exit(1)
	}
	srv := server.New()
	go func() { _ = srv.Serve(l) }()
	fmt.Println(l.Addr().String())
	_, _ = io.Copy(io.Discard, os.Stdin) // until the parent closes it or exits
	srv.Close()
	os.Exit(0)
}

// redisBenchmark runs redis-benchmark --csv and returns requests per second by test.
// A run that fails is tried once more, a second later (on a shared machine a run
// has failed once in a whole zbench for no reason it printed); the error of a second
// failure includes what redis-benchmark wrote to stderr (or else stdout).
func redisBenchmark(ctx context.Context, bin, addr string, cfg Config, pipeline, clients int) (map[string]float64, error) {
	host, port, _ := net.SplitHostPort(addr)
	run := func() (*exec.Cmd, []byte, error) {
		cmd := exec.CommandContext(ctx, bin, "-h", host, "-p", port, "-t", cfg.Tests,
			"-n", strconv.Itoa(cfg.Requests), "-r", strconv.Itoa(cfg.Random),
			"-P", strconv.Itoa(pipeline), "-c", strconv.Itoa(clients), "--csv")
		out, err := cmd.Output()
		return cmd, out, err
	}
	cmd, out, err := run()
	if err != nil && ctx.Err() == nil {
		time.Sleep(time.Second)
		cmd, out, err = run()
	}
	if err != nil {
		said := out // redis-benchmark prints some of its errors on stdout
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(ee.Stderr) > 0 {
			said = ee.Stderr
		}
		return nil, fmt.Errorf("%s: %w: %q", cmd, err, bytes.TrimSpace(said))
	}
	recs, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil {
		return nil, err
	}
	rps := map[string]float64{}
	for _, rec := range recs {
		if len(rec) < 2 || rec[0] == "test" {
			continue
		}
		f, err := strconv.ParseFloat(rec[1], 64)
		if err == nil && f > 0 && !math.IsInf(f, 0) { // too few requests to time: +Inf
			name, _, _ := strings.Cut(rec[0], " ") // "MSET (10 keys)": MSET
			rps[strings.ToUpper(name)] = f
		}
	}
	return rps, nil
}

// dialerOps are the go-redis workloads of the Dialer rows. Each starts from the
// data the ones before it left: ZADD adds members "0" to "999", which ZSCORE
// then reads.
var dialerOps = []struct {
	name string
	run  func(ctx context.Context, c *redis.Client, i int) error
}{
	{"go-redis ZADD", func(ctx context.Context, c *redis.Client, i int) error {
		return c.ZAdd(ctx, "z", redis.Z{Score: float64(i % 1000), Member: strconv.Itoa(i % 1000)}).Err()
	}},
	{"go-redis ZSCORE", func(ctx context.Context, c *redis.Client, i int) error {
		return c.ZScore(ctx, "z", strconv.Itoa(i%1000)).Err()
	}},
	{"go-redis LPUSH", func(ctx context.Context, c *redis.Client, i int) error { return c.LPush(ctx, "l", "v").Err() }},
	{"go-redis RPOP", func(ctx context.Context, c *redis.Client, i int) error { return c.RPop(ctx, "l").Err() }},
}

// dialerRows compares go-redis through the Dialer with go-redis on miniredis: an
// untimed warm-up of every workload on both (dials, the handshake, the keys ZSCORE
// reads), then cfg.Rounds rounds in which each workload runs on each system in turn.
func dialerRows(ctx context.Context, cfg Config) ([]Row, error) {
	m, err := miniredis.Run()
	if err != nil {
		return nil, err
	}
	defer m.Close()
	zc := redis.NewClient(&redis.Options{Dialer: server.Dialer(zlite.New())})
	defer zc.Close()
	mc := redis.NewClient(&redis.Options{Addr: m.Addr()})
	defer mc.Close()
	clients := []*redis.Client{zc, mc}
	runs := make([][2][]float64, len(dialerOps))
	for round := -1; round < cfg.Rounds; round++ {
		for i, op := range dialerOps {
			for j, c := range clients {
				d := cfg.Duration
				if round < 0 {
					d /= 4
				}
				v, err := rate(ctx, c, op.run, d)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", op.name, err)
				}
				if round >= 0 {
					runs[i][j] = append(runs[i][j], v)
				}
			}
		}
	}
	var rows []Row
	for i, op := range dialerOps {
		rows = append(rows, newRow(op.name+" (Dialer vs TCP)", "miniredis", runs[i][0], runs[i][1]))
	}
	return rows, nil
}

// rate runs op on c for d and returns operations per second. A miss (redis.Nil) is
// an answer, not an error.
func rate(ctx context.Context, c *redis.Client, op func(ctx context.Context, c *redis.Client, i int) error, d time.Duration) (float64, error) {
	start := time.Now()
	n := 0
	for time.Since(start) < d {
		for range 100 {
			if err := op(ctx, c, n); err != nil && !errors.Is(err, redis.Nil) {
				return 0, err
			}
			n++
		}
	}
	return float64(n) / time.Since(start).Seconds(), nil
}
