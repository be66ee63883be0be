package fuzz

import (
	"testing"

	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/internal/testmain"
)

// TestDifferentialRedisSelf checks the harness itself: the same transcript on two
// databases of one redis-server must compare equal, so every random or
// order-dependent reply the generator can provoke is covered by a loosening.
func TestDifferentialRedisSelf(t *testing.T) {
	addr := redistest.Require(t)
	a, b := newRedisClient(addr, redisDB, "zlite-fuzz-a"), newRedisClient(addr, redisDB+1, "zlite-fuzz-b")
	defer a.Close()
	defer b.Close()
	d := &differ{zl: redisTarget{b}, rd: redisTarget{a}, redis72: true}
	s := testmain.Seed(t)
	t.Logf("ZLITE_SEED=%d", s)
	n := transcriptLen(t) / 40
	if testing.Short() {
		n = 1000
	}
	runSeeded(t, d, s, n, nil)
	t.Logf("compared %d commands", d.compared)
}
