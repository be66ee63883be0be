package zlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/persist"
)

// BenchmarkPersistVsMemory measures RPUSH or ZADD (as BenchmarkPersistWrite in bench: each
// writer on a key of its own) from w concurrent writers on a DB made by Open with
// EverySecond or Never and on one made by New, alternating the two in rounds (each
// writer makes 1024 writes to one DB, all writers at once, then the same on the
// other) so that both see the same machine load and the same contention, and
// reports each one's time per write (wall time of the rounds over the writes) and
// the persistent DB's write rate as a fraction of the in-memory one
// (rate-vs-memory; the target for EverySecond is 0.5 or more), and the same ratio
// of the CPU time they took (cpu-rate-vs-memory). ns/op counts both.
// Run it with -cpu 1,2: writers=16 is 16 goroutines whatever GOMAXPROCS is.
func BenchmarkPersistVsMemory(b *testing.B) {
	for _, op := range []string{"rpush", "zadd"} {
		for _, writers := range []int{1, 16} {
			for _, policy := range []persist.SyncPolicy{SyncEverySecond, SyncNever} {
				b.Run(fmt.Sprintf("op=%s/writers=%d/sync=%s", op, writers, policy), func(b *testing.B) {
					persistVsMemory(b, op, writers, policy)
				})
			}
		}
	}
}

func persistVsMemory(b *testing.B, op string, writers int, policy persist.SyncPolicy) {
	ctx := context.Background()
	dbs := []*DB{openT(b, b.TempDir(), WithSync(policy), WithAutoSnapshot(-1, 0)), New()}
	defer dbs[0].Close()
	const batch = 1024 // writes per writer and round
	// Each writer w has a goroutine that runs a round on dbs[d] when sent d, and
	// answers on done.
	start := make([]chan int, writers)
	done := make(chan error, writers)
	var next [2][]int // each writer's next member number, per DB
	for d := range next {
		next[d] = make([]int, writers)
	}
	for w := range writers {
		start[w] = make(chan int)
		key := "k" + strconv.Itoa(w)
		go func() {
			for d := range start[w] {
				var err error
				for j := next[d][w]; j < next[d][w]+batch && err == nil; j++ {
					if op == "rpush" {
						_, err = dbs[d].RPush(ctx, key, "value-of-16-byte")
					} else {
						_, err = dbs[d].ZAdd(ctx, key, Z{Member: "member-" + strconv.Itoa(j), Score: float64(j)})
					}
				}
				next[d][w] += batch
				done <- err
			}
		}()
	}
	defer func() {
		for _, c := range start {
			close(c)
		}
	}()
	var took, cpu [2]time.Duration
	cpuOK := true
	round := func(d int) {
		t0 := time.Now()
		c0, ok0 := processCPU()
		for _, c := range start {
			c <- d
		}
		for range start {
			if err := <-done; err != nil {
				b.Fatal(err)
			}
		}
		took[d] += time.Since(t0)
		c1, ok1 := processCPU()
		cpu[d] += c1 - c0
		cpuOK = cpuOK && ok0 && ok1
	}
	rounds := 0
	per := writers * batch // writes per round
	b.ReportAllocs()
	b.ResetTimer()
	// An iteration is a write to each DB, made per writes at a time. Not b.Loop, so
	// that -cpu applies (see pingPong).
	for i := 1; i <= b.N; i++ {
		if i%per != 1 {
			continue
		}
		rounds++
		for d := range dbs {
			round(d)
		}
	}
	n := float64(rounds * per) // writes to each DB
	b.ReportMetric(float64(took[0].Nanoseconds())/n, "persist-ns/write")
	b.ReportMetric(float64(took[1].Nanoseconds())/n, "memory-ns/write")
	b.ReportMetric(float64(took[1])/float64(took[0]), "rate-vs-memory")
	if cpuOK && cpu[0] > 0 {
		// The process's CPU time (the log's background goroutines included): it
		// does not depend on how much of the machine other work leaves.
		b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "cpu-rate-vs-memory")
	}
}

// startRedis starts a redis-server of the benchmark's own with the given options and
// returns a client and the server's directory, or a nil client when there is none.
func startRedis(b *testing.B, args ...string) (*redis.Client, string) {
	addr, dir, err := redistest.Own(b, args...)
	if err != nil {
		b.Logf("the impl=redis rows are skipped: %v", err)
		return nil, ""
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 32})
	b.Cleanup(func() { rdb.Close() })
	return rdb, dir
}

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

// snapShape is a keyspace for the snapshot and load benchmarks: keys keys of kind
// "zset" or "list", per elements each, element j being "member-<j>" with score j, or
// "item-<j>".
type snapShape struct {
	kind      string
	keys, per int
}

// snapShapes are 1e6 elements in big and in small values.
var snapShapes = []snapShape{{"zset", 1, 1_000_000}, {"list", 1000, 1000}, {"zset", 100_000, 10}, {"list", 100_000, 10}}

func (sh snapShape) String() string {
	return fmt.Sprintf("shape=%s/keys=%d/per=%d", sh.kind, sh.keys, sh.per)
}

func (sh snapShape) elems() int { return sh.keys * sh.per }

// fill calls add for every key, with batches of at most 1000 of its elements.
func (sh snapShape) fill(b *testing.B, add func(key string, elems []string, scores []float64) error) {
	prefix := map[string]string{"zset": "member-", "list": "item-"}[sh.kind]
	var elems []string
	var scores []float64
	for k := range sh.keys {
		key := sh.kind[:1] + strconv.Itoa(k)
		for j := 0; j < sh.per; j += 1000 {
			elems, scores = elems[:0], scores[:0]
			for e := j; e < min(j+1000, sh.per); e++ {
				elems = append(elems, prefix+strconv.Itoa(e))
				scores = append(scores, float64(e))
			}
			if err := add(key, elems, scores); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// fillZlite fills db with the shape.
func (sh snapShape) fillZlite(b *testing.B, db *DB) {
	ctx := context.Background()
	var zs []Z
	sh.fill(b, func(key string, elems []string, scores []float64) error {
		if sh.kind == "list" {
			_, err := db.RPush(ctx, key, elems...)
			return err
		}
		zs = zs[:0]
		for i, m := range elems {
			zs = append(zs, Z{Member: m, Score: scores[i]})
		}
		_, err := db.ZAdd(ctx, key, zs...)
		return err
	})
}

// fillRedis fills a redis-server with the shape, through a pipeline.
func (sh snapShape) fillRedis(b *testing.B, rdb *redis.Client) {
	ctx := context.Background()
	pipe := rdb.Pipeline()
	exec := func() error {
		_, err := pipe.Exec(ctx)
		return err
	}
	sh.fill(b, func(key string, elems []string, scores []float64) error {
		if sh.kind == "list" {
			pipe.RPush(ctx, key, elems)
		} else {
			zs := make([]redis.Z, len(elems))
			for i, m := range elems {
				zs[i] = redis.Z{Member: m, Score: scores[i]}
			}
			pipe.ZAdd(ctx, key, zs...)
		}
		if pipe.Len() < 1000 {
			return nil
		}
		return exec()
	})
	if err := exec(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSnapshotSize takes snapshots of 1e6 elements in each shape and reports
// their bytes per element: impl=zlite is DB.Snapshot's file, impl=redis the
// dump.rdb of SAVE on a redis-server (default rdbcompression yes; skipped without
// redis-server). The time per op is one snapshot or one SAVE.
func BenchmarkSnapshotSize(b *testing.B) {
	rdb, rdir := startRedis(b, "--appendonly", "no")
	ctx := context.Background()
	for _, sh := range snapShapes {
		b.Run(sh.String()+"/impl=zlite", func(b *testing.B) {
			dir := b.TempDir()
			db := openT(b, dir, WithSync(SyncNever), WithAutoSnapshot(-1, 0))
			defer db.Close()
			sh.fillZlite(b, db)
			for b.Loop() {
				if err := db.Snapshot(); err != nil {
					b.Fatal(err)
				}
			}
			snaps, err := filepath.Glob(filepath.Join(dir, "snapshot-*.zsnap"))
			if err != nil || len(snaps) != 1 {
				b.Fatalf("snapshots in %s: %q, %v; want one", dir, snaps, err)
			}
			b.ReportMetric(float64(fileBytes(b, snaps[0]))/float64(sh.elems()), "B/elem")
		})
		if rdb == nil {
			continue
		}
		b.Run(sh.String()+"/impl=redis", func(b *testing.B) {
			rdb.FlushAll(ctx)
			sh.fillRedis(b, rdb)
			if n := rdb.DBSize(ctx).Val(); n != int64(sh.keys) {
				b.Fatalf("redis holds %d keys, want %d", n, sh.keys)
			}
			for b.Loop() {
				if err := rdb.Save(ctx).Err(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(fileBytes(b, filepath.Join(rdir, "dump.rdb")))/float64(sh.elems()), "B/elem")
		})
	}
}

// BenchmarkPersistLoad measures Open of 1e6 elements in each shape, from a snapshot
// and from a log alone, and reports the directory's bytes per element.
func BenchmarkPersistLoad(b *testing.B) {
	for _, sh := range snapShapes {
		for _, from := range []string{"snapshot", "log"} {
			b.Run(sh.String()+"/from="+from, func(b *testing.B) {
				dir := b.TempDir()
				db := openT(b, dir, WithSync(SyncNever), WithAutoSnapshot(-1, 0))
				sh.fillZlite(b, db)
				if from == "snapshot" {
					if err := db.Snapshot(); err != nil {
						b.Fatal(err)
					}
				}
				db.Close()
				for b.Loop() {
					db := openT(b, dir, WithSync(SyncAlways), WithAutoSnapshot(-1, 0)) // cuts the log's preallocated tail
					db.Close()
				}
				b.ReportMetric(float64(dirSize(b, dir))/float64(sh.elems()), "B/elem")
			})
		}
	}
}

func fileBytes(b *testing.B, p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
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
