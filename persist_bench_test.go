package zlite

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/zlite/zlite/persist"
)

// BenchmarkPersistWrite measures RPUSH throughput from w concurrent writers (each
// on a key of its own) on a DB made by Open with each sync policy, on one made by
// New, and on a redis-server with appendonly yes and the same appendfsync through
// go-redis (skipped without redis-server). Compare the impl= columns of one run.
func BenchmarkPersistWrite(b *testing.B) {
	rdb := startAOFRedis(b)
	for _, writers := range []int{1, 4, 16} {
		for _, policy := range []string{"always", "everysec", "no", "memory"} {
			b.Run(fmt.Sprintf("op=rpush/writers=%d/sync=%s/impl=zlite", writers, policy), func(b *testing.B) {
				var db *DB
				if policy == "memory" {
					db = New()
				} else {
					sp := map[string]persist.SyncPolicy{"always": SyncAlways, "everysec": SyncEverySecond, "no": SyncNever}[policy]
					db = openT(b, b.TempDir(), WithSync(sp), WithAutoSnapshot(-1, 0))
				}
				defer db.Close()
				ctx := context.Background()
				parallelWriters(b, writers, func(w int) error {
					_, err := db.RPush(ctx, "k"+strconv.Itoa(w), "value-of-16-byte")
					return err
				})
			})
			if rdb == nil || policy == "memory" {
				continue
			}
			b.Run(fmt.Sprintf("op=rpush/writers=%d/sync=%s/impl=redis", writers, policy), func(b *testing.B) {
				ctx := context.Background()
				if err := rdb.ConfigSet(ctx, "appendfsync", policy).Err(); err != nil {
					b.Fatal(err)
				}
				rdb.FlushAll(ctx)
				parallelWriters(b, writers, func(w int) error {
					return rdb.RPush(ctx, "k"+strconv.Itoa(w), "value-of-16-byte").Err()
				})
			})
		}
	}
}

// parallelWriters runs b.N calls of op split among n goroutines.
func parallelWriters(b *testing.B, n int, op func(w int) error) {
	b.ReportAllocs()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	b.ResetTimer()
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < b.N; i += n {
				if err := op(w); err != nil {
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

// startAOFRedis starts a redis-server with appendonly yes on a free loopback port
// for the benchmark, or returns nil when there is no redis-server.
func startAOFRedis(b *testing.B) *redis.Client {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		b.Logf("no redis-server: the impl=redis rows are skipped")
		return nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "yes", "--appendfsync", "everysec", "--dir", b.TempDir(), "--loglevel", "warning")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), PoolSize: 32})
	b.Cleanup(func() {
		rdb.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	for i := 0; rdb.Ping(context.Background()).Err() != nil; i++ {
		if i == 200 {
			b.Fatal("redis-server does not answer")
		}
		time.Sleep(10 * time.Millisecond) // waiting for a process to start, not synchronizing goroutines
	}
	return rdb
}

// fill1e6 fills db with 1e6 elements: half in one sorted set, half in 500 lists.
func fill1e6(b *testing.B, db *DB) { fillKeys(b, db, 1) }

// fillKeys fills db with 500 lists of 1000 items and 500k sorted-set members in
// zkeys sets (z0, z1, ...).
func fillKeys(b *testing.B, db *DB, zkeys int) {
	ctx := context.Background()
	zs := make([]Z, 0, 1000)
	for i := range 500 {
		zs = zs[:0]
		for j := range 1000 {
			zs = append(zs, Z{Member: "member-" + strconv.Itoa(i*1000+j), Score: float64(j)})
		}
		if _, err := db.ZAdd(ctx, "z"+strconv.Itoa(i%zkeys), zs...); err != nil {
			b.Fatal(err)
		}
		items := make([]string, 1000)
		for j := range items {
			items[j] = "item-" + strconv.Itoa(j)
		}
		if _, err := db.RPush(ctx, "l"+strconv.Itoa(i), items...); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPersistLoad measures Open of 1e6 elements (one 500k-member sorted set
// and 500 lists of 1000 items) from a snapshot and from a log alone, and reports
// the snapshot's bytes per element.
func BenchmarkPersistLoad(b *testing.B) {
	for _, from := range []string{"snapshot", "log"} {
		b.Run("n=1000000/from="+from, func(b *testing.B) {
			dir := b.TempDir()
			db := openT(b, dir, WithSync(SyncNever), WithAutoSnapshot(-1, 0))
			fill1e6(b, db)
			if from == "snapshot" {
				if err := db.Snapshot(); err != nil {
					b.Fatal(err)
				}
			}
			db.Close()
			for b.Loop() {
				db := openT(b, dir, WithAutoSnapshot(-1, 0))
				db.Close()
			}
			b.ReportMetric(float64(dirSize(b, dir))/1e6, "B/elem")
		})
	}
}

func dirSize(b *testing.B, dir string) int64 {
	es, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, e := range es {
		fi, err := os.Stat(filepath.Join(dir, e.Name()))
		if err == nil {
			n += fi.Size()
		}
	}
	return n
}

// BenchmarkSnapshotStall takes snapshots of 1e6 elements while a writer pushes
// to the keys in turn, and reports the longest a write waited (max-stall-ns) and
// the time per snapshot, and the longest the snapshot itself held the lock
// (max-hold-ns: on a loaded machine the stall also holds scheduling delays). The largest value bounds the stall (it is copied under
// the lock): zkeys=1 holds half the elements in one sorted set, zkeys=500 has no
// value above 1000 elements.
func BenchmarkSnapshotStall(b *testing.B) {
	for _, zkeys := range []int{1, 500} {
		b.Run(fmt.Sprintf("n=1000000/zkeys=%d", zkeys), func(b *testing.B) { snapshotStall(b, zkeys) })
	}
}

func snapshotStall(b *testing.B, zkeys int) {
	db := openT(b, b.TempDir(), WithSync(SyncNever), WithAutoSnapshot(-1, 0))
	defer db.Close()
	fillKeys(b, db, zkeys)
	ctx := context.Background()
	stop := make(chan struct{})
	done := make(chan time.Duration)
	go func() {
		var worst time.Duration
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- worst
				return
			default:
			}
			t0 := time.Now()
			if i%2 == 0 {
				db.RPush(ctx, "l"+strconv.Itoa(i%500), "x")
			} else {
				db.ZAdd(ctx, "z0", Z{Member: "w", Score: float64(i)})
			}
			worst = max(worst, time.Since(t0))
		}
	}()
	var hold time.Duration
	for b.Loop() {
		if err := db.Snapshot(); err != nil {
			b.Fatal(err)
		}
		hold = max(hold, db.dur.maxHold)
	}
	close(stop)
	b.ReportMetric(float64(<-done), "max-stall-ns")
	b.ReportMetric(float64(hold), "max-hold-ns")
}
