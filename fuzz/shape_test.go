package fuzz

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/internal/testmain"
)

// TestGeneratorShapes checks that the seeded transcripts exercise what the
// differential tests promise: mostly small sets, sets and lists at 127, 128 and 129
// elements (Redis's listpack limit), large sets, and members around 64 bytes. It
// runs the generator on zlite alone and samples every key's size after each step.
func TestGeneratorShapes(t *testing.T) {
	s := testmain.Seed(t)
	t.Logf("ZLITE_SEED=%d", s)
	g := &gen{src: randSource{rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))}}
	db := zlite.New()
	ctx := context.Background()
	var small, nonEmpty, large int
	zsizes := map[string]map[int64]bool{}
	lsizes := map[int64]bool{}
	memberLens := map[int]bool{}
	for range 150 {
		for _, st := range g.segment() {
			for _, c := range st {
				if name(c) == "ZADD" {
					for _, a := range c[1:] {
						memberLens[len(a)] = true
					}
				}
				db.Do(ctx, c...) // errors are part of the transcript
			}
			for _, k := range []string{"z1", "z2", "z3", "zd", "zb"} {
				n, err := db.ZCard(ctx, k)
				if err != nil || n == 0 {
					continue // a list or string under that name, or no key
				}
				nonEmpty++
				if n < 128 {
					small++
				}
				if n >= 500 {
					large++
				}
				if zsizes[k] == nil {
					zsizes[k] = map[int64]bool{}
				}
				zsizes[k][n] = true
			}
			if n, err := db.LLen(ctx, "l3"); err == nil {
				lsizes[n] = true
			}
		}
	}
	if nonEmpty == 0 || small*10 < nonEmpty*6 {
		t.Errorf("%d of %d sorted-set samples have fewer than 128 members; want at least 60%%", small, nonEmpty)
	}
	if large == 0 {
		t.Errorf("no sorted set of 500 members or more in %d samples", nonEmpty)
	}
	for _, n := range []int64{127, 128, 129} {
		if !zsizes["z3"][n] {
			t.Errorf("z3 never had %d members", n)
		}
		if !lsizes[n] {
			t.Errorf("l3 never had %d values", n)
		}
	}
	for _, n := range []int{63, 64, 65} {
		if !memberLens[n] {
			t.Errorf("no ZADD argument of %d bytes", n)
		}
	}
	t.Logf("%d of %d sorted-set samples under 128 members, %d of 500 or more", small, nonEmpty, large)
}
