package compat

import (
	"testing"

	"github.com/zlite/zlite/internal/testmain"
)

// TestMain stops the redis-server the tests started and fails a passing run that
// leaves goroutines behind.
func TestMain(m *testing.M) { testmain.Run(m) }
