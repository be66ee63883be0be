//go:build !unix

package zlite

import "time"

// processCPU is not available here: benchmarks skip the cpu-ns/op metric.
func processCPU() (time.Duration, bool) { return 0, false }
