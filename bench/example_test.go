package bench_test

import (
	"fmt"

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
