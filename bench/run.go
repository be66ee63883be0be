package bench

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"
)

// Metric says what a row's figures measure.
type Metric int

// The metrics a row can report.
const (
	OpsPerSec    Metric = iota // commands (or hand-offs) per second; higher is better
	LatencyP50                 // median latency in seconds; lower is better
	LatencyP99                 // 99th-percentile latency in seconds; lower is better
	BytesPerElem               // memory per element in bytes; lower is better
	BytesPerKey                // memory per key in bytes; lower is better
)

// HigherIsBetter reports whether a larger figure is the better one.
func (m Metric) HigherIsBetter() bool { return m == OpsPerSec }

// String returns the metric as the table's Metric column shows it.
func (m Metric) String() string {
	return [...]string{"ops/s", "p50", "p99", "B/elem", "B/key"}[m]
}

// Row is one line of the report: one workload at one size, one figure per system.
type Row struct {
	Group    string             // one of [AllGroups]
	Workload string             // a human-readable name, e.g. "ZSCORE"
	ID       string             // the benchmark name of the workload, e.g. "zscore"
	N        int                // elements in the data (per key when Keys > 0); 0 when size does not matter
	Keys     int                // keys the data is spread over, for the many-keys rows; 0 for one key
	Metric   Metric             // what Values measure
	Values   map[string]float64 // by System.Name; absent when not measured
	Spread   map[string]Spread  // by System.Name: the range of the runs behind Values; absent for single measurements
}

// Report is the outcome of [Run].
type Report struct {
	Systems    []string      // system names, in column order
	Rows       []Row         // in the order the workloads ran
	Notes      []string      // remarks for the reader, such as why a system was left out
	Started    time.Time     // when Run started
	Elapsed    time.Duration // how long Run took
	Load       string        // load averages when the run started, "" where unknown
	Config     Config        // what was measured, with Run's defaults filled in
	Provenance Provenance    // versions, Redis's origin and the command line
}

// Config says what [Run] measures.
type Config struct {
	Systems    []System      // the systems to compare, in column order
	Sizes      []int         // data sizes for the core workloads
	MemorySize int           // elements for the memory rows; 0 leaves them out
	ManyKeys   int           // keys of the many-keys group; 0 means 100,000
	Duration   time.Duration // timed work per run of each figure
	Runs       int           // runs per figure; the median is reported
	MinSamples int           // fewest hand-offs behind a latency figure; 0 means 20
	Groups     []string      // subset of [AllGroups]; nil means all
	// RespRequests is redis-benchmark's -n (requests per test, flag combination,
	// server and round) in the resp group; 0 means 20,000.
	RespRequests int
	Progress     io.Writer // progress: a bar on a terminal, lines otherwise; nil for none
	Notes        []string  // carried into the report
	Flags        string    // the command line's flags, for the report's provenance

	bar *progress // the progress of Run
}

// AllGroups lists the workload groups in the order they run.
var AllGroups = []string{"core", "blocking", "pubsub", "queues", "memory", "manykeys", "resp"}

func (c *Config) wants(group string) bool {
	return c.Groups == nil || slices.Contains(c.Groups, group)
}

// progress reports an event of the run on c.Progress.
func (c *Config) progress(format string, args ...any) {
	c.bar.event(fmt.Sprintf(format, args...))
}

// Run measures every workload of cfg on every system of cfg and returns the report.
// Systems run one after the other on the same data and arguments; each figure is the
// median of cfg.Runs runs of cfg.Duration of timed work, after an untimed warm-up.
// The pubsub and resp groups run a zlite server as a process of its own, the
// running executable started again, whose main must call respbench.ServeIfChild
// first (as zbench's and this package's tests do).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Runs <= 0 {
		cfg.Runs = 1
	}
	if cfg.MinSamples <= 0 {
		cfg.MinSamples = defaultMinSamples
	}
	if cfg.Duration <= 0 {
		cfg.Duration = 100 * time.Millisecond
	}
	if cfg.ManyKeys <= 0 {
		cfg.ManyKeys = defaultManyKeys
	}
	if cfg.RespRequests <= 0 {
		cfg.RespRequests = defaultRespRequests
	}
	memoryRows := 0
	if cfg.MemorySize > 0 {
		memoryRows = len(memoryKinds)
	}
	start := time.Now()
	steps := []struct {
		group     string
		fn        func(context.Context, *Config, *Report) error
		workloads int
	}{
		{"core", runCore, len(cfg.Sizes) * len(coreOps)},
		{"blocking", runBlocking, len(blockingOps) * len(blockingShapes)},
		{"pubsub", runPubSub, len(pubsubShapes)},
		{"queues", runQueues, len(queueOps)},
		{"memory", runMemory, memoryRows},
		{"manykeys", runManyKeys, len(manyShapes(cfg.ManyKeys)) + len(manyOps) + len(kvOps)},
		{"resp", runResp, 1},
	}
	total := 0
	for _, st := range steps {
		if cfg.wants(st.group) {
			total += st.workloads
		}
	}
	cfg.bar = newProgress(cfg.Progress, total, start)
	defer cfg.bar.end()
	r := &Report{Started: start, Config: cfg, Notes: cfg.Notes, Load: loadAverage()}
	for _, s := range cfg.Systems {
		r.Systems = append(r.Systems, s.Name())
	}
	var err error
	if r.Provenance, err = provenance(ctx, &cfg); err != nil {
		return r, err
	}
	for _, st := range steps {
		if !cfg.wants(st.group) {
			continue
		}
		if err := st.fn(ctx, &cfg, r); err != nil {
			return r, err
		}
	}
	r.Elapsed = time.Since(r.Started)
	return r, nil
}

func runCore(ctx context.Context, cfg *Config, r *Report) error {
	for _, n := range cfg.Sizes {
		d := newDataset(n)
		ks := make([]*keys, len(cfg.Systems))
		for i, s := range cfg.Systems {
			cfg.progress("filling n=%d on %s", n, s.Name())
			ks[i] = keysFor(s)
			if err := fill(ctx, s, ks[i], d); err != nil {
				return fmt.Errorf("%s: fill: %w", s.Name(), err)
			}
		}
		for _, op := range coreOps {
			row := Row{Group: "core", Workload: op.title, ID: op.id, N: d.n, Metric: OpsPerSec, Values: map[string]float64{}}
			err := measureOps(ctx, cfg, &row, func() *meter { return op.meter(d) }, func(i int, s System) batch {
				return func(pos, k int) (func() error, error) { return op.run(ctx, s, ks[i], d, pos, k) }
			})
			if err != nil {
				return fmt.Errorf("%s n=%d: %w", op.id, n, err)
			}
			r.Rows = append(r.Rows, row)
		}
		for i, s := range cfg.Systems {
			if err := s.Del(ctx, ks[i].zset, ks[i].list); err != nil {
				return err
			}
		}
	}
	return nil
}

// measureOps measures a workload on every system into row: an untimed warm-up on
// each, then cfg.Runs rounds in which every system runs once in turn, so that a
// burst of other work on the machine is spread over the systems rather than
// hitting one of them. Each figure is the median of a system's runs. newMeter
// returns a meter for the workload; run returns the workload's batches on the i-th
// system of cfg.
func measureOps(ctx context.Context, cfg *Config, row *Row, newMeter func() *meter, run func(i int, s System) batch) error {
	meters := make([]*meter, len(cfg.Systems))
	runs := make([][]float64, len(cfg.Systems))
	for round := -1; round < cfg.Runs; round++ {
		for i, s := range cfg.Systems {
			dur := cfg.Duration
			if round < 0 {
				meters[i] = newMeter()
				dur /= 4 // warm-up, untimed
			}
			runtime.GC() // no system pays for the garbage of the one measured before it
			v, err := meters[i].measure(ctx, run(i, s), dur)
			if err != nil {
				return fmt.Errorf("%s: %w", s.Name(), err)
			}
			if round >= 0 {
				runs[i] = append(runs[i], v)
			}
		}
	}
	for i, s := range cfg.Systems {
		row.set(s.Name(), runs[i])
		cfg.progress("%-20s %-10s %-10s %s", row.ID, row.sizeText(), s.Name(), formatValue(OpsPerSec, row.Values[s.Name()]))
	}
	cfg.bar.finished()
	return nil
}
