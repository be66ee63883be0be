//go:build unix

package server

import (
	"syscall"
	"time"
)

// cpuTimes returns the CPU time the process has spent in the kernel and in user
// space (INFO cpu's used_cpu_sys and used_cpu_user).
func cpuTimes() (sys, user time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, false
	}
	return time.Duration(ru.Stime.Nano()), time.Duration(ru.Utime.Nano()), true
}
