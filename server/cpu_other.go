//go:build !unix

package server

import "time"

// cpuTimes reports no CPU times where the process cannot read them: INFO cpu is
// then empty.
func cpuTimes() (sys, user time.Duration, ok bool) { return 0, 0, false }
