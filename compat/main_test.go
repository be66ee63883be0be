package compat

import (
	"testing"

	"github.com/zlite/zlite/internal/testmain"
)

// TestMain stops the redis-server the tests started and fails a passing run that
// leaves goroutines behind, but for rmq's heartbeats: an rmq connection keeps its
// heartbeat goroutine to the end of the process (rmq has no Close).
func TestMain(m *testing.M) {
	testmain.RunIgnoring(m, []string{"github.com/adjust/rmq/v5.(*redisConnection).heartbeat"})
}
