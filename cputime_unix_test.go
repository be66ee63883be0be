//go:build unix

package zlite

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the process has used (user and system), or false
// where the platform cannot tell. Benchmarks report it per operation (cpu-ns/op):
// unlike wall time it does not depend on how many cores the machine's other work
// leaves to the benchmark.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
