package bench

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/exp/stats"

	"github.com/zlite/zlite/bench/respbench"
	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/internal/testmain"
)

func TestMain(m *testing.M) {
	respbench.ServeIfChild() // the resp group's server process (see runResp)
	// buntdb's background goroutine ends at its next one-second tick after Close.
	testmain.RunIgnoring(m, []string{"github.com/tidwall/buntdb.(*DB).backgroundManager"})
}

// inProcess lists the systems that need no server.
var inProcess = []string{"zlite", "zlite-do", "miniredis"}

// tinyConfig runs every workload group but resp (see TestRunResp) on tiny data,
// quickly.
func tinyConfig(systems []System) Config {
	return Config{
		Groups:     slices.DeleteFunc(slices.Clone(AllGroups), func(g string) bool { return g == "resp" }),
		Systems:    systems,
		Sizes:      []int{100, 200},
		MemorySize: 2000,
		ManyKeys:   300,
		Duration:   4 * time.Millisecond,
		Runs:       2,
		MinSamples: 3,
	}
}

func openSystems(t *testing.T, names []string) []System {
	t.Helper()
	var known []string
	for _, n := range names {
		if slices.Contains(SystemNames, n) {
			known = append(known, n)
		}
	}
	systems, notes, closeAll, err := Open(known)
	if err != nil {
		t.Fatalf("Open(%v): %v", known, err)
	}
	t.Cleanup(closeAll)
	if len(notes) != 0 {
		t.Fatalf("Open(%v) notes %q; want none", known, notes)
	}
	return systems
}

func TestRunInProcess(t *testing.T) {
	checkRun(t, openSystems(t, inProcess), false)
}

// TestRunResp runs the resp group tiny: the go-redis rows compare zlite with
// miniredis, the redis-benchmark rows (when redis-benchmark and a redis-server are
// there) zlite's server with redis-server, each in the report's columns, with
// redis-benchmark's version in the provenance.
func TestRunResp(t *testing.T) {
	cfg := tinyConfig(openSystems(t, []string{"zlite", "miniredis"}))
	cfg.Groups, cfg.RespRequests = []string{"resp"}, 5000
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	type rowKey struct{ id, peer string }
	var dialer, benchmark []rowKey
	for _, r := range rep.Rows {
		if r.Group != "resp" || r.Metric != OpsPerSec || len(r.Values) != 2 {
			t.Fatalf("row %+v: want a resp ops/s row with two figures", r)
		}
		for s, v := range r.Values {
			if !(v > 0) || math.IsInf(v, 0) {
				t.Errorf("%s %s = %v; want a positive finite figure", r.ID, s, v)
			}
			if sp, ok := r.Spread[s]; !ok || !(sp.Min <= v && v <= sp.Max) {
				t.Errorf("%s %s = %v, spread %+v, %v; want the median of %d rounds within their range", r.ID, s, v, sp, ok, cfg.Runs)
			}
			if s == Reference {
				continue
			}
			if strings.HasPrefix(r.Workload, "go-redis ") {
				dialer = append(dialer, rowKey{r.ID, s})
			} else {
				benchmark = append(benchmark, rowKey{r.ID, s})
			}
		}
	}
	wantDialer := []rowKey{{"resp-go-redis-zadd", "miniredis"}, {"resp-go-redis-zscore", "miniredis"},
		{"resp-go-redis-lpush", "miniredis"}, {"resp-go-redis-rpop", "miniredis"}}
	if !slices.Equal(dialer, wantDialer) {
		t.Errorf("go-redis rows %v; want %v", dialer, wantDialer)
	}
	checkMarkdown(t, rep)
	checkSVG(t, rep)

	if _, err := exec.LookPath("redis-benchmark"); err != nil {
		if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, "redis-benchmark not installed") }) {
			t.Errorf("notes %q do not say why the redis-benchmark rows are missing", rep.Notes)
		}
		t.Skip("skipping the redis-benchmark rows: redis-benchmark not installed (apt-get install redis-tools)")
	}
	redistest.Require(t)
	var want []rowKey
	for _, p := range []string{"p1", "p64"} {
		for _, c := range []string{"c1", "c50"} {
			for _, op := range []string{"zadd", "zpopmin", "lpush", "rpop", "set", "get", "incr", "hset", "sadd", "mset"} {
				want = append(want, rowKey{"resp-" + op + "-" + p + "-" + c, "redis"})
			}
		}
	}
	if !slices.Equal(benchmark, want) {
		t.Errorf("redis-benchmark rows %v; want %v (notes %q)", benchmark, want, rep.Notes)
	}
	if !slices.Contains(rep.Systems, "redis") {
		t.Errorf("systems %v lack the redis column of the redis-benchmark rows", rep.Systems)
	}
	if !strings.HasPrefix(rep.Provenance.Benchmark, "redis-benchmark ") || !strings.Contains(rep.Document(), rep.Provenance.Benchmark) {
		t.Errorf("provenance %q lacks redis-benchmark's version", rep.Provenance)
	}
}

func TestRunRedis(t *testing.T) {
	addr := redistest.Require(t)
	shared := false
	if os.Getenv("REDIS_ADDR") != "" {
		// Other packages' tests run at the same time on REDIS_ADDR and flush it, which
		// would remove this test's keys and move used_memory under it: use a private
		// server when one can be started.
		shared = true
		if bin, err := exec.LookPath("redis-server"); err == nil {
			if a, err := redistest.Start(bin); err == nil {
				addr, shared = a, false
			}
		}
	}
	systems := openSystems(t, inProcess)
	for _, pipelined := range []bool{false, true} {
		s := NewRedis(addr, pipelined)
		t.Cleanup(func() { s.Close() })
		systems = append(systems, s)
	}
	checkRun(t, systems, shared)
}

// checkRun runs the tiny configuration on systems and checks the report's shape and
// figures, its Markdown table and its SVG chart. With sharedRedis, Redis's memory
// figure is only required to be finite: other clients of the server move used_memory.
func checkRun(t *testing.T, systems []System, sharedRedis bool) {
	cfg := tinyConfig(systems)
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	names := make([]string, len(systems))
	for i, s := range systems {
		names[i] = s.Name()
	}
	if !slices.Equal(rep.Systems, names) {
		t.Fatalf("report systems %v; want %v", rep.Systems, names)
	}

	// Expected rows: every core op at every size, three rows per blocking workload
	// and shape, three per pubsub shape and zlite path, the queue rows, two memory
	// rows, the many-keys memory rows (one or two per shape) and the many-keys
	// throughput rows.
	type rowKey struct {
		id     string
		n      int
		metric Metric
	}
	var want []rowKey
	for _, n := range cfg.Sizes {
		for _, op := range coreOps {
			want = append(want, rowKey{op.id, n, OpsPerSec})
		}
	}
	for _, op := range blockingOps {
		for _, sh := range blockingShapes {
			for _, m := range []Metric{OpsPerSec, LatencyP50, LatencyP99} {
				want = append(want, rowKey{fmt.Sprintf("%s-%dx%d", op.id, sh[0], sh[1]), 0, m})
			}
		}
	}
	for _, n := range pubsubShapes {
		for _, v := range pubsubVariants {
			for _, m := range []Metric{OpsPerSec, LatencyP50, LatencyP99} {
				want = append(want, rowKey{pubsubID(v, n), 0, m})
			}
		}
	}
	for _, op := range queueOps {
		want = append(want, rowKey{"queue-" + op.id, 0, OpsPerSec})
		if op.channel != nil {
			want = append(want, rowKey{"queue-" + op.id + "-handoff", 0, LatencyP50}, rowKey{"queue-" + op.id + "-handoff", 0, LatencyP99})
		}
	}
	want = append(want, rowKey{"memory-zset", cfg.MemorySize, BytesPerElem}, rowKey{"memory-list", cfg.MemorySize, BytesPerElem})
	for _, sh := range manyShapes(cfg.ManyKeys) {
		for _, m := range sh.metrics() {
			want = append(want, rowKey{sh.id(), sh.n, m})
		}
	}
	for _, op := range manyOps {
		want = append(want, rowKey{op.id, 10, OpsPerSec})
	}
	kv := newKVLoad(cfg.ManyKeys)
	for _, op := range kvOps {
		want = append(want, rowKey{op.id, kv.shape(op.load).n, OpsPerSec})
	}
	var got []rowKey
	for _, r := range rep.Rows {
		got = append(got, rowKey{r.ID, r.N, r.Metric})
	}
	if !slices.Equal(got, want) {
		t.Fatalf("rows %v;\nwant %v", got, want)
	}

	for _, r := range rep.Rows {
		for _, s := range systems {
			v, ok := r.Values[s.Name()]
			expect := true
			switch r.Group {
			case "blocking":
				expect = s.Blocking()
			case "pubsub":
				expect = hasPubSub(s)
			case "queues":
				expect = s.QueueBackend() != nil
			case "memory":
				_, expect, _ = s.Memory(context.Background())
			case "manykeys":
				if r.Metric != OpsPerSec {
					_, expect, _ = s.Memory(context.Background())
				}
			}
			if ok != expect {
				t.Errorf("%s n=%d %v %s: measured %v; want %v", r.ID, r.N, r.Metric, s.Name(), ok, expect)
			}
			if ok && sharedRedis && (r.Metric == BytesPerElem || r.Metric == BytesPerKey) && s.Name() == "redis" {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Errorf("%s %s = %v; want a finite figure", r.ID, s.Name(), v)
				}
				continue
			}
			if ok && (!(v > 0) || math.IsInf(v, 0)) {
				t.Errorf("%s n=%d %v %s = %v; want a positive finite figure", r.ID, r.N, r.Metric, s.Name(), v)
			}
		}
	}

	checkMarkdown(t, rep)
	checkSVG(t, rep)
}

func checkMarkdown(t *testing.T, rep *Report) {
	t.Helper()
	md := rep.Markdown()
	lines := strings.Split(strings.TrimSuffix(md, "\n"), "\n")
	if len(lines) != len(rep.Rows)+2 {
		t.Fatalf("Markdown has %d lines; want %d (header, rule, %d rows)", len(lines), len(rep.Rows)+2, len(rep.Rows))
	}
	header := cells(lines[0])
	wantHeader := []string{"Workload", "n", "Metric"}
	for _, s := range rep.Systems {
		wantHeader = append(wantHeader, DisplayName(s))
	}
	hasRef := slices.Contains(rep.Systems, Reference)
	for _, s := range rep.Systems {
		if hasRef && !strings.HasPrefix(s, "zlite") {
			wantHeader = append(wantHeader, "zlite vs "+DisplayName(s))
		}
	}
	if !slices.Equal(header, wantHeader) {
		t.Fatalf("Markdown header %q; want %q", header, wantHeader)
	}
	for i, line := range lines[1:] {
		if c := cells(line); len(c) != len(header) {
			t.Errorf("Markdown line %d %q has %d cells; want %d", i+2, line, len(c), len(header))
		}
	}
	// Each figure cell parses back to the measured value, within rounding.
	for i, row := range rep.Rows {
		c := cells(lines[i+2])
		for j, s := range rep.Systems {
			v, ok := row.Values[s]
			if !ok {
				if c[3+j] != "—" {
					t.Errorf("row %d %s cell %q; want —", i, s, c[3+j])
				}
				continue
			}
			figure, spread, hasSpread := strings.Cut(c[3+j], " ±")
			parsed, err := parseValue(figure)
			if err != nil || math.Abs(parsed-v) > 0.06*v {
				t.Errorf("row %d %s cell %q parses to %v, %v; want ≈ %v", i, s, c[3+j], parsed, err, v)
			}
			sp, ok := row.Spread[s]
			if wantSpread := ok && sp.Max > sp.Min; hasSpread != wantSpread {
				t.Errorf("row %d %s cell %q shows a spread: %v; want %v (%+v)", i, s, c[3+j], hasSpread, wantSpread, sp)
			} else if hasSpread && spread != fmt.Sprintf("%.0f%%", 50*sp.Relative(v)) {
				t.Errorf("row %d %s cell %q: spread %q; want half of %+v relative to %v", i, s, c[3+j], spread, sp, v)
			}
		}
		if strings.Contains(c[0], "⚠") {
			t.Errorf("row %d workload %q carries ⚠; it belongs on a ratio", i, c[0])
		}
		for j, p := range rep.peers() {
			cell := c[3+len(rep.Systems)+j]
			if flagged := strings.HasSuffix(cell, " ⚠"); flagged != row.Uncertain(p) {
				t.Errorf("row %d %q vs %s: ratio %q flagged %v; want %v (spreads %+v)", i, c[0], p, cell, flagged, row.Uncertain(p), row.Spread)
			}
		}
	}
}

func TestRowSet(t *testing.T) {
	tests := []struct {
		runs   []float64
		value  float64
		spread Spread
	}{
		{[]float64{5}, 5, Spread{5, 5}},
		{[]float64{100, 104, 96}, 100, Spread{96, 104}},
		{[]float64{100, 110, 95, 101}, 100.5, Spread{95, 110}},
		{[]float64{1, 2, 3, 4, 100}, 3, Spread{1, 100}},
	}
	for _, tt := range tests {
		row := Row{Values: map[string]float64{}}
		row.set("x", tt.runs)
		if row.Values["x"] != tt.value || row.Spread["x"] != tt.spread {
			t.Errorf("set(%v): value %v, spread %+v; want %v, %+v", tt.runs, row.Values["x"], row.Spread["x"], tt.value, tt.spread)
		}
	}
	row := Row{Values: map[string]float64{}}
	row.set("x", nil)
	if _, ok := row.Values["x"]; ok {
		t.Errorf("set(nil) recorded %v; want nothing", row.Values)
	}
}

// TestUncertain: a ratio is uncertain exactly when the two systems' ranges of runs
// overlap, whatever the spread of either on its own.
func TestUncertain(t *testing.T) {
	tests := []struct {
		name       string
		ref, other []float64 // runs; nil: no figure
		want       bool
	}{
		{"apart, wide spreads", []float64{100, 150, 200}, []float64{10, 50, 90}, false},
		{"apart, the other better", []float64{10, 11, 12}, []float64{13, 20, 30}, false},
		{"overlap, narrow spreads", []float64{100, 101, 102}, []float64{102, 103, 104}, true},
		{"one inside the other", []float64{90, 100, 110}, []float64{99, 100, 101}, true},
		{"touching ranges", []float64{1, 2}, []float64{2, 3}, true},
		{"single runs", []float64{5}, []float64{5}, false},
		{"reference missing", nil, []float64{1, 2}, false},
		{"other missing", []float64{1, 2}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := Row{Values: map[string]float64{}}
			row.set(Reference, tt.ref)
			row.set("redis", tt.other)
			if got := row.Uncertain("redis"); got != tt.want {
				t.Errorf("Uncertain(redis) with runs %v and %v = %v; want %v", tt.ref, tt.other, got, tt.want)
			}
			if got := row.anyUncertain([]string{"miniredis", "redis"}); got != tt.want {
				t.Errorf("anyUncertain = %v; want %v", got, tt.want)
			}
		})
	}
}

// parseValue inverts formatValue.
func parseValue(s string) (float64, error) {
	units := []struct {
		suffix string
		scale  float64
	}{
		{"M/s", 1e6}, {"k/s", 1e3}, {"/s", 1}, {"ms", 1e-3}, {"µs", 1e-6}, {"ns", 1e-9}, {"s", 1}, {" B", 1},
	}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(num, 64)
			return f * u.scale, err
		}
	}
	return 0, fmt.Errorf("no unit in %q", s)
}

func cells(line string) []string {
	parts := strings.Split(strings.Trim(line, "|"), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func checkSVG(t *testing.T, rep *Report) {
	t.Helper()
	svg := rep.SVG()
	dec := xml.NewDecoder(bytes.NewReader([]byte(svg)))
	bars := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("SVG is not well-formed XML: %v", err)
			}
			break
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "rect" {
			bars++
		}
	}
	want := 1 + len(rep.Systems) // background and legend
	for _, r := range rep.Rows {
		want += len(r.Values)
	}
	if bars != want {
		t.Errorf("SVG has %d rects; want %d (background, legend, one bar per figure)", bars, want)
	}
}

func TestRatio(t *testing.T) {
	tests := []struct {
		m          Metric
		ref, other float64
		want       float64
		text       string
	}{
		{OpsPerSec, 200, 100, 2, "2.0× faster"},
		{OpsPerSec, 103, 100, 1.03, "1.03× faster"},
		{OpsPerSec, 100, 400, 0.25, "**4.0× slower**"},
		{OpsPerSec, 100, 150, 100.0 / 150, "**1.50× slower**"},
		{LatencyP50, 1e-6, 3e-5, 30, "30× faster"},
		{LatencyP99, 2e-5, 1e-5, 0.5, "**2.0× slower**"},
		{BytesPerElem, 50, 100, 2, "2.0× smaller"},
		{BytesPerElem, 100, 101, 1.01, "1.01× smaller"},
		{BytesPerElem, 150, 100, 100.0 / 150, "**1.50× larger**"},
	}
	for _, tt := range tests {
		got, ok := Ratio(tt.m, tt.ref, tt.other)
		if !ok || math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Ratio(%v, %v, %v) = %v, %v; want %v, true", tt.m, tt.ref, tt.other, got, ok, tt.want)
		}
		if text := RatioText(tt.m, got); text != tt.text {
			t.Errorf("RatioText(%v, %v) = %q; want %q", tt.m, got, text, tt.text)
		}
	}
	ticks := []struct {
		m    Metric
		d    int
		want string
	}{
		{OpsPerSec, 0, "1/s"}, {OpsPerSec, 4, "10k/s"}, {OpsPerSec, 8, "100M/s"},
		{LatencyP50, -7, "100ns"}, {LatencyP99, -6, "1µs"}, {LatencyP50, -2, "10ms"},
		{BytesPerElem, 1, "10 B"}, {BytesPerElem, 3, "1 kB"},
	}
	for _, tt := range ticks {
		if got := tickText(tt.m, tt.d); got != tt.want {
			t.Errorf("tickText(%v, %d) = %q; want %q", tt.m, tt.d, got, tt.want)
		}
	}
	if _, ok := Ratio(OpsPerSec, 0, 1); ok {
		t.Errorf("Ratio with a zero figure reported ok")
	}
}

// benchSizes returns the data sizes of the Go benchmarks: 1e3, 1e5 and 1e6, or the
// comma-separated list in ZLITE_BENCH_SIZES.
func benchSizes(b *testing.B) []int {
	env := os.Getenv("ZLITE_BENCH_SIZES")
	if env == "" {
		return []int{1e3, 1e5, 1e6}
	}
	var out []int
	for f := range strings.SplitSeq(env, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 10 {
			b.Fatalf("ZLITE_BENCH_SIZES: %q is not a size of at least 10", f)
		}
		out = append(out, n)
	}
	return out
}

// openOne opens the named system for the benchmark b, skipping b when it cannot be
// had (no Redis). The system is closed when owner, b's parent, ends.
func openOne(b, owner *testing.B, name string) System {
	systems, notes, closeAll, err := Open([]string{name})
	if err != nil {
		b.Fatal(err)
	}
	if len(notes) != 0 {
		closeAll()
		b.Skipf("skipping %s: %v", name, notes)
	}
	owner.Cleanup(func() {
		for _, s := range systems {
			s.Close()
		}
	})
	return systems[0]
}

// BenchmarkCore runs the core workloads. One iteration is a batch of 100 commands
// (a pipeline of 100 for redis-pipe, 100 calls or round trips for the others), so
// ns/op is per 100 commands for every impl; ns/cmd is per command. Commands that
// change the data's size are followed, timer stopped, by the restore of the data.
//
//	go test ./bench -run '^$' -bench Core -count 6 | tee new.txt; benchstat -col /impl new.txt
func BenchmarkCore(b *testing.B) {
	ctx := context.Background()
	outer := b
	for _, n := range benchSizes(b) {
		d := newDataset(n)
		for _, name := range SystemNames {
			var s System
			var k *keys
			for _, op := range coreOps {
				b.Run(fmt.Sprintf("op=%s/n=%d/impl=%s", op.id, n, name), func(b *testing.B) {
					if name == "miniredis" && op.sorts && n > 100_000 {
						b.Skipf("miniredis sorts all %d members for each %s: an iteration of 100 would take about a minute", n, op.id)
					}
					if s == nil { // filled once per size and system, by the first op that runs
						s = openOne(b, outer, name)
						k = keysFor(s)
						if err := fill(ctx, s, k, d); err != nil {
							b.Fatal(err)
						}
						outer.Cleanup(func() { s.Del(ctx, k.zset, k.list) })
					}
					loopBatches(b, op.meter(d), func(pos, k2 int) (func() error, error) { return op.run(ctx, s, k, d, pos, k2) })
				})
			}
		}
	}
}

// benchBatch is the commands per iteration of the throughput benchmarks.
const benchBatch = 100

// loopBatches runs b's iterations, each a batch of up to benchBatch commands of run
// (fewer when m bounds the batch), and reports ns/cmd and allocations. The restores
// of a bounded workload run untimed, together once the batches not yet restored
// reach m.max commands (or before the arguments wrap around): stopping the timer
// reads the memory statistics, which stops the world and empties every processor's
// allocation cache, and doing that every batch of 100 made the commands after it pay
// for refilling them (ZPOPMIN on random keys among 100k: 1055-1134 ns/cmd so, against
// 836-856 with the restores held back, 4 interleaved rounds).
func loopBatches(b *testing.B, m *meter, run batch) {
	size := min(benchBatch, m.max)
	pos, held := 0, 0
	var pending []func() error
	restore := func() {
		for _, r := range pending {
			if err := r(); err != nil {
				b.Fatal(err)
			}
		}
		pending, held = pending[:0], 0
	}
	b.ReportAllocs()
	for b.Loop() {
		wrap := pos+size > m.limit
		if (wrap || held+size > m.max) && len(pending) > 0 {
			b.StopTimer()
			restore()
			b.StartTimer()
		}
		if wrap {
			pos = 0
		}
		r, err := run(pos, size)
		if err != nil {
			b.Fatal(err)
		}
		if r != nil {
			pending = append(pending, r)
			held += size
		}
		pos += size
	}
	restore() // the timer has stopped
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/cmd")
}

// benchKeys returns the keys of the many-keys benchmarks: ZLITE_BENCH_KEYS, or 100k.
func benchKeys(b *testing.B) int {
	env := os.Getenv("ZLITE_BENCH_KEYS")
	if env == "" {
		return defaultManyKeys
	}
	n, err := strconv.Atoi(env)
	if err != nil || n < 10 {
		b.Fatalf("ZLITE_BENCH_KEYS: %q is not a count of at least 10", env)
	}
	return n
}

// BenchmarkManyKeys runs the many-keys workloads: single commands on random keys
// among ZLITE_BENCH_KEYS (100k) sorted sets and lists of 10 elements, then (with
// those deleted) among 10·ZLITE_BENCH_KEYS strings and counters and
// ZLITE_BENCH_KEYS hashes and sets of 10 elements. Iterations are batches of 100
// commands, as in [BenchmarkCore].
//
//	go test ./bench -run '^$' -bench ManyKeys -count 6 | tee new.txt; benchstat -col /impl new.txt
func BenchmarkManyKeys(b *testing.B) {
	ctx := context.Background()
	keys := benchKeys(b)
	load := manyLoad(keys)
	zsets, lists := load, load
	lists.kind = manyList
	kv := newKVLoad(keys)
	outer := b
	for _, name := range SystemNames {
		var s System
		open := func(b *testing.B) {
			if s == nil {
				s = openOne(b, outer, name)
			}
		}
		var k *manyKeys
		for _, op := range manyOps {
			b.Run(fmt.Sprintf("op=%s/keys=%d/n=%d/impl=%s", op.id, load.keys, load.n, name), func(b *testing.B) {
				if k == nil { // filled once per system, by the first op that runs
					open(b)
					k = newManyKeys(name, load)
					for _, sh := range []manyShape{zsets, lists} {
						prefix := k.prefix + "z:"
						if sh.kind == manyList {
							prefix = k.prefix + "l:"
						}
						if err := fillMany(ctx, s, prefix, sh); err != nil {
							b.Fatal(err)
						}
						outer.Cleanup(func() { delMany(ctx, s, prefix, sh) })
					}
				}
				loopBatches(b, newMeter(op.bounded, load.keys, window), func(pos, n int) (func() error, error) { return op.run(ctx, s, k, pos, n) })
			})
		}
		var kk *kvKeys
		for _, op := range kvOps {
			sh := kv.shape(op.load)
			b.Run(fmt.Sprintf("op=%s/keys=%d/n=%d/impl=%s", op.id, sh.keys, sh.n, name), func(b *testing.B) {
				if kk == nil { // as above, once the sorted sets and lists are gone
					open(b)
					if k != nil {
						if err := delMany(ctx, s, k.prefix+"z:", zsets); err != nil {
							b.Fatal(err)
						}
						if err := delMany(ctx, s, k.prefix+"l:", lists); err != nil {
							b.Fatal(err)
						}
					}
					kk = newKVKeys(name, kv)
					if err := fillKV(ctx, nil, s, kk.prefix, kv); err != nil {
						b.Fatal(err)
					}
					outer.Cleanup(func() { delKV(ctx, s, kk.prefix, kv) })
				}
				loopBatches(b, newMeter(op.bounded, sh.keys, window), func(pos, n int) (func() error, error) { return op.run(ctx, s, kk, pos, n) })
			})
		}
	}
}

// BenchmarkManyKeysMemory builds each many-keys shape per iteration and reports the
// memory it adds per key (B/key) and per element (B/elem), as [Run] does.
func BenchmarkManyKeysMemory(b *testing.B) {
	ctx := context.Background()
	for _, sh := range manyShapes(benchKeys(b)) {
		for _, name := range SystemNames {
			b.Run(fmt.Sprintf("op=memory-%s/keys=%d/n=%d/impl=%s", manyKindNames[sh.kind].id, sh.keys, sh.n, name), func(b *testing.B) {
				s := openOne(b, b, name)
				var delta int64
				for b.Loop() {
					d, ok, err := memoryDelta(ctx, s,
						func() error { return fillMany(ctx, s, "", sh) },
						func() error { return delMany(ctx, s, "", sh) })
					if err != nil {
						b.Fatal(err)
					}
					if !ok {
						b.Skipf("%s shares its memory figure with another system", name)
					}
					delta = d
				}
				for _, m := range sh.metrics() {
					per := sh.keys
					if m == BytesPerElem {
						per *= sh.n
					}
					b.ReportMetric(float64(delta)/float64(per), m.String())
				}
			})
		}
	}
}

// BenchmarkHandoff measures one push and its delivery to a consumer blocked in BRPOP
// or BZPOPMIN, then told by a Go channel: one producer, one consumer.
func BenchmarkHandoff(b *testing.B) {
	ctx := context.Background()
	for _, op := range blockingOps {
		for _, name := range SystemNames {
			b.Run(fmt.Sprintf("op=%s/impl=%s", op.id, name), func(b *testing.B) {
				s := openOne(b, b, name)
				if !s.Blocking() {
					b.Skipf("%s has no blocking commands", name)
				}
				ch, err := systemChannel(ctx, s, op)
				if err != nil {
					b.Fatal(err)
				}
				defer ch.close()
				got := make(chan error)
				go func() {
					for {
						v, _, ok, err := ch.pop()
						if err == nil && !ok {
							err = errEmpty
						}
						if err == nil && strings.HasPrefix(v, stopPrefix) {
							close(got)
							return
						}
						got <- err
					}
				}()
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if err := ch.push(fmt.Sprintf("0:%d:0", i), time.Now()); err != nil {
						b.Fatal(err)
					}
					if err := <-got; err != nil {
						b.Fatal(err)
					}
					i++
				}
				if err := ch.push(stopPrefix+"0", time.Now()); err != nil {
					b.Fatal(err)
				}
				for range got { // wait for the consumer to stop
				}
			})
		}
	}
}

// BenchmarkPubSub measures PUBLISH to one channel of subs subscribers (1 and 100)
// on every path of the pubsub rows: impl=zlite is db.Publish and
// pubsub.Subscriber.Receive; zlite-server and zlite-dialer are go-redis on a zlite
// server over loopback TCP (a process of its own) and through server.Dialer; redis
// and miniredis are go-redis over TCP. One iteration is one PUBLISH and its receipt
// by every subscriber (closed loop, as in the rows), so ns/op is a whole fan-out;
// msgs/s counts deliveries (subs per iteration), and p50-ns and p99-ns are the
// latencies of the latest deliveries, from just before the PUBLISH to the
// subscriber's receipt. With -benchmem the allocations include the subscribers'
// and, from the 101st message on, the payload's (its sequence number).
//
//	go test -C bench -run '^$' -bench PubSub -benchmem -count 6 | tee new.txt; benchstat -col /impl new.txt
func BenchmarkPubSub(b *testing.B) {
	ctx := context.Background()
	systems, notes, closeAll, err := Open(SystemNames)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(closeAll)
	for _, n := range notes {
		b.Log(n)
	}
	var paths []*pubSubPath
	for _, s := range systems {
		if !hasPubSub(s) {
			continue
		}
		ps, closePaths, err := s.(pubSubber).pubSubPaths(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(closePaths) // before closeAll
		paths = append(paths, ps...)
	}
	for _, n := range pubsubShapes {
		for _, p := range paths {
			b.Run(fmt.Sprintf("op=publish/subs=%d/impl=%s", n, p.name), func(b *testing.B) {
				f, err := openFan(ctx, p, n, 0, 0, max(64, 1<<16/n))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := f.await(nil); err != nil { // no message in flight yet
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := f.publish(ctx); err != nil {
						b.Fatal(errors.Join(err, f.close(ctx)))
					}
					if ok, err := f.await(nil); err != nil || !ok {
						b.Fatal(errors.Join(err, f.close(ctx)))
					}
				}
				elapsed := b.Elapsed()
				if err := f.close(ctx); err != nil {
					b.Fatal(err)
				}
				q := stats.Quantiles(f.latencies(math.MaxInt64), 0.50, 0.99)
				b.ReportMetric(float64(n*b.N)/elapsed.Seconds(), "msgs/s")
				b.ReportMetric(q[0]*1e9, "p50-ns")
				b.ReportMetric(q[1]*1e9, "p99-ns")
			})
		}
	}
}

// BenchmarkQueue measures one enqueue+dequeue pair of each queue type from a single
// client.
func BenchmarkQueue(b *testing.B) {
	ctx := context.Background()
	for _, op := range queueOps {
		for _, name := range SystemNames {
			b.Run(fmt.Sprintf("op=queue-%s/impl=%s", op.id, name), func(b *testing.B) {
				s := openOne(b, b, name)
				qb := s.QueueBackend()
				if qb == nil {
					b.Skipf("%s runs no queues", name)
				}
				q, cleanup := newQueue(ctx, op, s, qb)
				defer cleanup()
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if err := op.pair(ctx, q, i); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}

// BenchmarkMemory builds a sorted set and a list of n elements per iteration and
// reports the memory each element adds (B/elem), as the memory rows of [Run] do.
func BenchmarkMemory(b *testing.B) {
	ctx := context.Background()
	n := benchSizes(b)
	for _, kind := range []string{"zset", "list"} {
		size := n[len(n)-1]
		for _, name := range SystemNames {
			b.Run(fmt.Sprintf("op=memory-%s/n=%d/impl=%s", kind, size, name), func(b *testing.B) {
				s := openOne(b, b, name)
				if _, ok, _ := s.Memory(ctx); !ok {
					b.Skipf("%s shares its memory figure with another system", name)
				}
				cfg := &Config{Systems: []System{s}, MemorySize: size, Groups: []string{"memory"}}
				var per float64
				for b.Loop() {
					r := &Report{}
					if err := runMemory(ctx, cfg, r); err != nil {
						b.Fatal(err)
					}
					for _, row := range r.Rows {
						if row.ID == "memory-"+kind {
							per = row.Values[name]
						}
					}
				}
				b.ReportMetric(per, "B/elem")
			})
		}
	}
}

func TestOpenUnknownSystem(t *testing.T) {
	if _, _, _, err := Open([]string{"zlite", "memcached"}); err == nil || !strings.Contains(err.Error(), `"memcached"`) {
		t.Fatalf("Open with an unknown system: err = %v; want one naming it", err)
	}
}

// TestSVGLabels renders charts whose longest labels differ: the label column must
// hold the longest one (its right-aligned text, at the width textWidth bounds it
// by, starts inside the chart), every bar starts right of every label, and the
// chart is wide enough for every bar and its value.
func TestSVGLabels(t *testing.T) {
	long := "RESP ZPOPMIN -P 64 -c 50 (zlite server vs redis-server)"
	tests := []struct {
		name   string
		labels []string
	}{
		{"short", []string{"ZSCORE", "ZADD"}},
		{"RESP rows", []string{"ZSCORE", long}},
		{"longer than any today", []string{strings.Repeat("MW", 40) + " " + long, "LRANGE 0 99"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := &Report{Systems: []string{Reference, "redis"}}
			for i, l := range tt.labels {
				row := Row{Workload: l, Metric: OpsPerSec, N: 1000 * (i + 1), Values: map[string]float64{}}
				row.set(Reference, []float64{100, 110, 120}) // overlaps redis's: the label gets ⚠
				row.set("redis", []float64{115, 130, 140})
				rep.Rows = append(rep.Rows, row)
			}
			rep.Rows = append(rep.Rows, Row{Workload: "latency", Metric: LatencyP99, Values: map[string]float64{Reference: 1e-6, "redis": 1e-4}})
			svg := rep.SVG()
			type text struct {
				x      float64
				anchor string
				body   string
			}
			var texts []text
			var barX []float64
			var width, barEnd float64
			dec := xml.NewDecoder(strings.NewReader(svg))
			for {
				tok, err := dec.Token()
				if err != nil {
					break
				}
				se, ok := tok.(xml.StartElement)
				if !ok {
					continue
				}
				attr := func(name string) string {
					for _, a := range se.Attr {
						if a.Name.Local == name {
							return a.Value
						}
					}
					return ""
				}
				num := func(name string) float64 {
					f, err := strconv.ParseFloat(attr(name), 64)
					if err != nil {
						t.Fatalf("<%s %s=%q>: %v", se.Name.Local, name, attr(name), err)
					}
					return f
				}
				switch se.Name.Local {
				case "svg":
					vb := strings.Fields(attr("viewBox"))
					if len(vb) != 4 {
						t.Fatalf("viewBox %q", attr("viewBox"))
					}
					width, _ = strconv.ParseFloat(vb[2], 64)
				case "text":
					var body string
					if err := dec.DecodeElement(&body, &se); err != nil {
						t.Fatal(err)
					}
					texts = append(texts, text{num("x"), attr("text-anchor"), body})
				case "rect":
					if attr("fill") != "white" && attr("width") != "14" { // not the background or legend
						barX = append(barX, num("x"))
						barEnd = max(barEnd, num("x")+num("width"))
					}
				}
			}
			labels := 0
			for _, tx := range texts {
				if tx.anchor != "end" {
					continue
				}
				labels++
				if left := tx.x - float64(textWidth(tx.body)); left < 0 {
					t.Errorf("label %q ends at x=%v and is up to %d wide: clipped by %v", tx.body, tx.x, textWidth(tx.body), -left)
				}
				for _, bx := range barX {
					if bx <= tx.x {
						t.Errorf("a bar starts at x=%v, left of the end of label %q (%v)", bx, tx.body, tx.x)
						break
					}
				}
			}
			if labels != len(rep.Rows) {
				t.Errorf("%d labels; want %d", labels, len(rep.Rows))
			}
			if !strings.Contains(svg, esc(long)) && tt.name == "RESP rows" {
				t.Errorf("chart lacks label %q", long)
			}
			if barEnd > width {
				t.Errorf("bars reach x=%v, beyond the chart's width %v", barEnd, width)
			}
		})
	}
}
