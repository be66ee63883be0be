// Command zbench compares zlite with a real redis-server and with miniredis on the
// same workloads, in one run on this machine, and writes the results as a Markdown
// table and an SVG chart.
//
// Usage:
//
//	go run -C bench ./cmd/zbench [flags]
//
// Redis: the server at REDIS_ADDR when set, else redis-server from PATH started on a
// free 127.0.0.1 port (persistence off) and stopped at the end; with neither, the
// Redis columns are left out and the table says so. Progress goes to stderr (a bar
// on a terminal, plain lines otherwise), the table to stdout and to -out, the chart
// to -svg; both name the versions measured and the flags given.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zlite/zlite/bench"
	"github.com/zlite/zlite/bench/respbench"
)

func main() {
	respbench.ServeIfChild() // the resp group's zlite server (see bench's runResp)
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "zbench:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		sizes    = flag.String("sizes", "1000,100000", "comma-separated data sizes for the core workloads (e.g. 1000,100000,1000000)")
		memSize  = flag.Int("memsize", 1000000, "elements in the memory rows (0 leaves them out)")
		manyKeys = flag.Int("manykeys", 100000, "keys of the many-keys group (its 100-member sorted sets use a tenth of them; its strings and counters, and its one big hash and set's elements, ten times as many)")
		respN    = flag.Int("resp-requests", 20000, "redis-benchmark -n (requests per test, flag combination and round) in the resp group")
		duration = flag.Duration("duration", 60*time.Millisecond, "timed work per run of each figure")
		runs     = flag.Int("runs", 5, "runs per figure; the median is reported")
		systems  = flag.String("systems", strings.Join(bench.SystemNames, ","), "comma-separated systems to compare")
		groups   = flag.String("groups", strings.Join(bench.AllGroups, ","), "comma-separated workload groups")
		out      = flag.String("out", "bench-results.md", "file for the Markdown table (empty: none)")
		svg      = flag.String("svg", "bench-results.svg", "file for the SVG chart (empty: none)")
	)
	flag.Parse()

	cfg := bench.Config{
		MemorySize:   *memSize,
		ManyKeys:     *manyKeys,
		RespRequests: *respN,
		Duration:     *duration,
		Runs:         *runs,
		Groups:       split(*groups),
		Progress:     os.Stderr,
		Flags:        strings.Join(os.Args[1:], " "),
	}
	for _, s := range split(*sizes) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 10 {
			return fmt.Errorf("-sizes: %q is not a size of at least 10", s)
		}
		cfg.Sizes = append(cfg.Sizes, n)
	}
	for _, g := range cfg.Groups {
		if !slices.Contains(bench.AllGroups, g) {
			return fmt.Errorf("-groups: unknown group %q (known: %s)", g, strings.Join(bench.AllGroups, ", "))
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	sys, notes, closeAll, err := bench.Open(split(*systems))
	if err != nil {
		return err
	}
	defer closeAll()
	for _, n := range notes {
		fmt.Fprintln(os.Stderr, "note:", n)
	}
	cfg.Systems, cfg.Notes = sys, notes

	rep, err := bench.Run(ctx, cfg)
	if err != nil {
		return err
	}
	doc := rep.Document()
	fmt.Print(doc)
	var errs []error
	if *out != "" {
		errs = append(errs, os.WriteFile(*out, []byte(doc), 0o644))
		fmt.Fprintln(os.Stderr, "wrote", *out)
	}
	if *svg != "" {
		errs = append(errs, os.WriteFile(*svg, []byte(rep.SVG()), 0o644))
		fmt.Fprintln(os.Stderr, "wrote", *svg)
	}
	return errors.Join(errs...)
}

func split(s string) []string {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
