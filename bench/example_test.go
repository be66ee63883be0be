package bench_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zlite/zlite/bench"
)

// Ratios read as "how many times better zlite is": above 1 zlite wins, below 1 the
// peer wins and the table says so in bold.
func ExampleRatioText() {
	faster, _ := bench.Ratio(bench.OpsPerSec, 2_000_000, 40_000)
	slower, _ := bench.Ratio(bench.LatencyP99, 300e-6, 200e-6)
	smaller, _ := bench.Ratio(bench.BytesPerElem, 72, 126)
	fmt.Println(bench.RatioText(bench.OpsPerSec, faster))
	fmt.Println(bench.RatioText(bench.LatencyP99, slower))
	fmt.Println(bench.RatioText(bench.BytesPerElem, smaller))
	// Output:
	// 50× faster
	// **1.50× slower**
	// 1.75× smaller
}

// A report renders as a Markdown table with one ratio column per peer; a figure that
// was not measured shows as a dash.
func ExampleReport_Markdown() {
	r := bench.Report{
		Systems: []string{"zlite", "redis"},
		Rows: []bench.Row{
			{Workload: "ZSCORE", N: 1000, Metric: bench.OpsPerSec,
				Values: map[string]float64{"zlite": 12.5e6, "redis": 50e3}},
			{Workload: "BLPOP hand-off", Metric: bench.LatencyP99,
				Values: map[string]float64{"zlite": 4.2e-6}},
			{Workload: "ZADD memory", N: 1_000_000, Metric: bench.BytesPerElem,
				Values: map[string]float64{"zlite": 72, "redis": 126}},
		},
	}
	fmt.Print(r.Markdown())
	// Output:
	// | Workload | n | Metric | zlite | Redis | zlite vs Redis |
	// |---|--:|---|--:|--:|--:|
	// | ZSCORE | 1k | ops/s | 12.50M/s | 50.0k/s | 250× faster |
	// | BLPOP hand-off |  | p99 | 4.2µs | — | — |
	// | ZADD memory | 1M | B/elem | 72.0 B | 126.0 B | 1.75× smaller |
}

// Run compares systems on the same workloads; this run measures only the zlite
// keyspace's core commands on 1,000 elements, briefly. It has no fixed output: the
// figures depend on the machine.
func ExampleRun() {
	zl := bench.NewZlite()
	defer zl.Close()
	r, err := bench.Run(context.Background(), bench.Config{
		Systems:  []bench.System{zl},
		Sizes:    []int{1000},
		Duration: 50 * time.Millisecond,
		Runs:     1,
		Groups:   []string{"core"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(r.Markdown())
}
