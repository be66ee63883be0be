package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/tidwall/buntdb"
	"github.com/zlite/zlite"
	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/persist"
)

// BenchmarkPersistWrite measures write throughput from w concurrent writers, each on
// a key of its own: op=rpush appends a 16-byte item to a list, op=zadd adds a new
// member to a sorted set (an ordered index). impl=zlite runs on a DB made by Open
// with each sync policy and on one made by New (sync=memory); impl=redis on a
// redis-server with appendonly yes and the same appendfsync, through go-redis
// (skipped without redis-server); impl=buntdb, for zadd, on tidwall/buntdb with the
// same SyncPolicy, one key per member in a float index on its value (the score).
// Compare the impl= and sync= columns of one run.
func BenchmarkPersistWrite(b *testing.B) {
	var rdb *redis.Client
	if addr, _, err := redistest.Own(b, "--appendonly", "yes", "--appendfsync", "everysec"); err != nil {
		b.Logf("the impl=redis rows are skipped: %v", err)
	} else {
		rdb = redis.NewClient(&redis.Options{Addr: addr, PoolSize: 32})
		b.Cleanup(func() { rdb.Close() })
	}
	ctx := context.Background()
	policies := map[string]persist.SyncPolicy{"always": zlite.SyncAlways, "everysec": zlite.SyncEverySecond, "no": zlite.SyncNever}
	bunt := map[string]buntdb.SyncPolicy{"always": buntdb.Always, "everysec": buntdb.EverySecond, "no": buntdb.Never}
	for _, op := range []string{"rpush", "zadd"} {
		for _, writers := range []int{1, 4, 16} {
			for _, policy := range []string{"always", "everysec", "no", "memory"} {
				name := fmt.Sprintf("op=%s/writers=%d/sync=%s", op, writers, policy)
				b.Run(name+"/impl=zlite", func(b *testing.B) {
					db := zlite.New()
					if policy != "memory" {
						var err error
						db, err = zlite.Open(b.TempDir(), zlite.WithSync(policies[policy]), zlite.WithAutoSnapshot(-1, 0))
						if err != nil {
							b.Fatal(err)
						}
					}
					defer db.Close()
					parallelWriters(b, writers, func(w, i int) error {
						if op == "rpush" {
							_, err := db.RPush(ctx, "k"+strconv.Itoa(w), "value-of-16-byte")
							return err
						}
						_, err := db.ZAdd(ctx, "z"+strconv.Itoa(w), zlite.Z{Member: "member-" + strconv.Itoa(i), Score: float64(i)})
						return err
					})
				})
				if policy == "memory" {
					continue
				}
				if rdb != nil {
					b.Run(name+"/impl=redis", func(b *testing.B) {
						if err := rdb.ConfigSet(ctx, "appendfsync", policy).Err(); err != nil {
							b.Fatal(err)
						}
						rdb.FlushAll(ctx)
						parallelWriters(b, writers, func(w, i int) error {
							if op == "rpush" {
								return rdb.RPush(ctx, "k"+strconv.Itoa(w), "value-of-16-byte").Err()
							}
							return rdb.ZAdd(ctx, "z"+strconv.Itoa(w), redis.Z{Member: "member-" + strconv.Itoa(i), Score: float64(i)}).Err()
						})
					})
				}
				if op == "zadd" {
					b.Run(name+"/impl=buntdb", func(b *testing.B) {
						bdb := openBunt(b, bunt[policy])
						parallelWriters(b, writers, func(w, i int) error {
							return bdb.Update(func(tx *buntdb.Tx) error {
								_, _, err := tx.Set("z"+strconv.Itoa(w)+":member-"+strconv.Itoa(i), strconv.Itoa(i), nil)
								return err
							})
						})
					})
				}
			}
		}
	}
}

// openBunt opens a buntdb file in a temporary directory with sync policy p and a
// float index on the values of the keys z*, closed at the end of the benchmark.
func openBunt(b *testing.B, p buntdb.SyncPolicy) *buntdb.DB {
	bdb, err := buntdb.Open(filepath.Join(b.TempDir(), "bunt.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { bdb.Close() })
	var cfg buntdb.Config
	if err := bdb.ReadConfig(&cfg); err != nil {
		b.Fatal(err)
	}
	cfg.SyncPolicy = p
	if err := bdb.SetConfig(cfg); err != nil {
		b.Fatal(err)
	}
	if err := bdb.CreateIndex("score", "z*", buntdb.IndexFloat); err != nil {
		b.Fatal(err)
	}
	return bdb
}

// parallelWriters runs b.N calls of op split among n goroutines; op gets the
// goroutine's number and the call's (0 to b.N-1).
func parallelWriters(b *testing.B, n int, op func(w, i int) error) {
	b.ReportAllocs()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	b.ResetTimer()
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < b.N; i += n {
				if err := op(w, i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}
