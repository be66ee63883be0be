package testmain

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// Seed returns the seed of a randomized test: ZLITE_SEED when it is set, else a new
// random one. It logs the seed, so that a failing run can be replayed.
func Seed(t testing.TB) uint64 {
	t.Helper()
	s := rand.Uint64()
	if env := os.Getenv("ZLITE_SEED"); env != "" {
		var err error
		if s, err = strconv.ParseUint(env, 10, 64); err != nil {
			t.Fatalf("ZLITE_SEED=%q: %v", env, err)
		}
	}
	t.Logf("seed %d (set ZLITE_SEED=%d to replay)", s, s)
	return s
}
