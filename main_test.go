package zlite

import (
	"testing"

	"github.com/zlite/zlite/internal/testmain"
)

// Test conventions of this package: table-driven subtests; testify's require for a
// check whose failure makes the rest meaningless and where it shortens the test
// (hardening_test.go, stats_test.go, db_methods_test.go); elsewhere
// hand-written "f(x) = got; want w" messages, which say more than a generic diff.
// Randomized tests take their seed from ZLITE_SEED (zTestSeed) and print it
// (stress_test.go still reads ZLITE_STRESS_SEED).
func TestMain(m *testing.M) { testmain.Run(m, closeRedisClient) }
