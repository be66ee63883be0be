package prom_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine behind (the blocked caller of
// TestDBCollector).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
