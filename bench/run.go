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
	Group    string             // "core", "blocking", "queues" or "memory"
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
	Duration   time.Duration // timed work per run of each figure
	Runs       int           // runs per figure; the median is reported
	MinSamples int           // fewest hand-offs behind a latency figure; 0 means 20
	Groups     []string      // subset of "core", "blocking", "memory", "queues"; nil means all
	Progress   io.Writer     // progress lines; nil for none
	Notes      []string      // carried into the report
	Flags      string        // the command line's flags, for the report's provenance

	start time.Time // when Run started, for the progress lines
}

// AllGroups lists the workload groups in the order they run.
var AllGroups = []string{"core", "blocking", "queues", "memory"}

func (c *Config) wants(group string) bool {
	return c.Groups == nil || slices.Contains(c.Groups, group)
}

func (c *Config) progress(format string, args ...any) {
	if c.Progress != nil {
		fmt.Fprintf(c.Progress, "[%5.1fs] "+format+"\n", append([]any{time.Since(c.start).Seconds()}, args...)...)
	}
}

// Run measures every workload of cfg on every system of cfg and returns the report.
// Systems run one after the other on the same data and arguments; each figure is the
// median of cfg.Runs runs of cfg.Duration of timed work, after an untimed warm-up.
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
	cfg.start = time.Now()
	r := &Report{Started: cfg.start, Config: cfg, Notes: cfg.Notes, Load: loadAverage()}
	for _, s := range cfg.Systems {
		r.Systems = append(r.Systems, s.Name())
	}
	var err error
	if r.Provenance, err = provenance(ctx, &cfg); err != nil {
		return r, err
	}
	steps := []struct {
		group string
		fn    func(context.Context, *Config, *Report) error
	}{
		{"core", runCore},
		{"blocking", runBlocking},
		{"queues", runQueues},
		{"memory", runMemory},
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
		for _, s := range cfg.Systems {
			cfg.progress("filling n=%d on %s", n, s.Name())
			if err := fill(ctx, s, keysFor(s), d); err != nil {
				return fmt.Errorf("%s: fill: %w", s.Name(), err)
			}
		}
		for _, op := range coreOps {
			row, err := measureCore(ctx, cfg, op, d)
			if err != nil {
				return fmt.Errorf("%s n=%d: %w", op.id, n, err)
			}
			r.Rows = append(r.Rows, row)
		}
		for _, s := range cfg.Systems {
			k := keysFor(s)
			if err := s.Del(ctx, k.zset, k.list); err != nil {
				return err
			}
		}
	}
	return nil
}

// measureCore measures op on every system: an untimed warm-up on each, then
// cfg.Runs rounds in which every system runs once in turn, so that a burst of other
// work on the machine is spread over the systems rather than hitting one of them.
// Each figure is the median of a system's runs.
func measureCore(ctx context.Context, cfg *Config, op coreOp, d *dataset) (Row, error) {
	row := Row{Group: "core", Workload: op.title, ID: op.id, N: d.n, Metric: OpsPerSec, Values: map[string]float64{}}
	meters := make([]*meter, len(cfg.Systems))
	runs := make([][]float64, len(cfg.Systems))
	for round := -1; round < cfg.Runs; round++ {
		for i, s := range cfg.Systems {
			dur := cfg.Duration
			if round < 0 {
				meters[i] = newMeter(op, d)
				dur /= 4 // warm-up, untimed
			}
			runtime.GC() // no system pays for the garbage of the one measured before it
			v, err := meters[i].measure(ctx, op, s, keysFor(s), d, dur)
			if err != nil {
				return row, fmt.Errorf("%s: %w", s.Name(), err)
			}
			if round >= 0 {
				runs[i] = append(runs[i], v)
			}
		}
	}
	for i, s := range cfg.Systems {
		row.set(s.Name(), runs[i])
		cfg.progress("%-20s n=%-8d %-10s %s", op.id, d.n, s.Name(), formatValue(OpsPerSec, row.Values[s.Name()]))
	}
	return row, nil
}
