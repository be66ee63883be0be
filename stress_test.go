package zlite

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zlite/zlite/zset"
)

// TestStress moves items from 16 producers to 16 consumers through BRPOP and through
// BZPOPMIN, with random timeouts and cancellations, and checks that every item is
// delivered exactly once. 1e6 items per command (1e5 under -race or -short).
// ZLITE_SEED sets the seed.
func TestStress(t *testing.T) {
	n := 1_000_000
	if raceEnabled || testing.Short() {
		n = 100_000
	}
	seed := rand.Uint64()
	if s := os.Getenv("ZLITE_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (set ZLITE_SEED to repeat), %d items", seed, n)
	t.Run("cmd=BRPOP", func(t *testing.T) { stress(t, false, n, seed) })
	t.Run("cmd=BZPOPMIN", func(t *testing.T) { stress(t, true, n, seed+1) })
}

func stress(t *testing.T, zsets bool, n int, seed uint64) {
	const producers, consumers = 16, 16
	keys := []string{"q0", "q1", "q2", "q3"}
	db := New()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()

	var consumed atomic.Int64
	allDone := make(chan struct{})
	var closeOnce sync.Once
	got := make([][]int, consumers)
	var wg sync.WaitGroup

	for c := range consumers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(seed, uint64(1000+c)))
			for ctx.Err() == nil {
				// A random timeout (0 = forever) on all keys, or a short one on a
				// random subset (so no item can be stranded behind callers that wait
				// forever on other keys), and, now and then, a context that expires at
				// a random instant.
				ks, timeout := keys, time.Duration(0)
				if r.IntN(2) == 0 {
					first := r.IntN(len(keys))
					ks = keys[first : first+1+r.IntN(len(keys)-first)]
					timeout = time.Duration(1+r.IntN(2000)) * time.Microsecond
				}
				cctx, cancel := ctx, context.CancelFunc(func() {})
				if r.IntN(8) == 0 {
					cctx, cancel = context.WithTimeout(ctx, time.Duration(r.IntN(1000))*time.Microsecond)
				}
				var member string
				var ok bool
				var err error
				if zsets {
					var z Z
					_, z, ok, err = db.BZPopMin(cctx, timeout, ks...)
					member = z.Member
				} else {
					_, member, ok, err = db.BRPop(cctx, timeout, ks...)
				}
				cancel()
				if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("consumer %d: %v", c, err)
					return
				}
				if !ok {
					continue
				}
				id, perr := strconv.Atoi(member)
				if perr != nil {
					t.Errorf("consumer %d: bad item %q", c, member)
					return
				}
				got[c] = append(got[c], id)
				if consumed.Add(1) == int64(n) {
					closeOnce.Do(func() { close(allDone) })
				}
			}
		})
	}

	var pwg sync.WaitGroup
	for p := range producers {
		pwg.Go(func() {
			r := rand.New(rand.NewPCG(seed, uint64(p)))
			lo, hi := p*n/producers, (p+1)*n/producers
			for id := lo; id < hi; {
				batch := min(hi-id, 1+r.IntN(8))
				k := keys[r.IntN(len(keys))]
				if zsets {
					db.Update(func(tx *Tx) error {
						s, err := tx.zsetWrite(k)
						if err != nil {
							return err
						}
						if s == nil {
							s = tx.newZSet(k)
						}
						for i := id; i < id+batch; i++ {
							s.Add(zset.AddOptions{}, Z{Member: strconv.Itoa(i), Score: r.Float64()})
						}
						tx.signal(k)
						return nil
					})
				} else {
					vals := make([]string, batch)
					for i := range vals {
						vals[i] = strconv.Itoa(id + i)
					}
					db.LPush(ctx, k, vals...)
				}
				id += batch
			}
		})
	}
	pwg.Wait()
	select {
	case <-allDone:
	case <-time.After(2 * time.Minute): // deadlock guard only
		t.Errorf("only %d of %d items consumed", consumed.Load(), n)
	}
	stop()
	wg.Wait()

	seen := make([]uint8, n)
	for _, ids := range got {
		for _, id := range ids {
			if id < 0 || id >= n {
				t.Fatalf("item %d out of range", id)
			}
			seen[id]++
		}
	}
	for id, c := range seen {
		if c != 1 {
			t.Fatalf("item %d delivered %d times", id, c)
		}
	}
	mustCheck(t, db)
	if size, _ := db.DBSize(context.Background()); size != 0 {
		t.Fatalf("DBSIZE = %d after all items were consumed", size)
	}
	if b := db.blockedCount(); b != 0 {
		t.Fatalf("%d callers still registered as blocked", b)
	}
}
