package zlite

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/list"
	"github.com/zlite/zlite/zset"
)

// Run: go test -run '^$' -bench . -benchtime 1s .
// Compare implementations: benchstat -col /impl.

const benchMembers = 1024

func benchNames() ([]string, []string) {
	ms := make([]string, benchMembers)
	ss := make([]string, benchMembers)
	for i := range ms {
		ms[i] = "member:" + strconv.Itoa(i)
		ss[i] = strconv.Itoa(i)
	}
	return ms, ss
}

// BenchmarkOverhead measures what the keyspace adds to the engine: the typed method
// (lock, key lookup, type check) and Do (plus lookup and parsing) against calling
// zset.Set or list.List directly.
func BenchmarkOverhead(b *testing.B) {
	ctx := context.Background()
	ms, ss := benchNames()
	b.Run("op=ZADD/impl=zset", func(b *testing.B) {
		s := zset.New()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			s.Add(zset.AddOptions{}, zset.Entry{Member: ms[i%benchMembers], Score: float64(i)})
			i++
		}
	})
	b.Run("op=ZADD/impl=typed", func(b *testing.B) {
		db := New()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			db.ZAdd(ctx, "k", Z{Member: ms[i%benchMembers], Score: float64(i)})
			i++
		}
	})
	b.Run("op=ZADD/impl=do", func(b *testing.B) {
		db := New()
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			db.Do(ctx, "ZADD", "k", ss[i%benchMembers], ms[i%benchMembers])
			i++
		}
	})
	b.Run("op=ZSCORE/impl=zset", func(b *testing.B) {
		s := zset.New()
		for i, m := range ms {
			s.Add(zset.AddOptions{}, zset.Entry{Member: m, Score: float64(i)})
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			s.Score(ms[i%benchMembers])
			i++
		}
	})
	b.Run("op=ZSCORE/impl=typed", func(b *testing.B) {
		db := New()
		for i, m := range ms {
			db.ZAdd(ctx, "k", Z{Member: m, Score: float64(i)})
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			db.ZScore(ctx, "k", ms[i%benchMembers])
			i++
		}
	})
	b.Run("op=ZSCORE/impl=do", func(b *testing.B) {
		db := New()
		for i, m := range ms {
			db.ZAdd(ctx, "k", Z{Member: m, Score: float64(i)})
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			db.Do(ctx, "ZSCORE", "k", ms[i%benchMembers])
			i++
		}
	})
	// ZCARD's own work is one field: this is the keyspace's cost of a command (hash,
	// shard lock, key lookup, type check, counters, unlock).
	b.Run("op=ZCARD/impl=typed", func(b *testing.B) {
		db := New()
		db.ZAdd(ctx, "user:00000001", Z{Member: "m", Score: 1})
		b.ReportAllocs()
		for b.Loop() {
			if n, _ := db.ZCard(ctx, "user:00000001"); n != 1 {
				b.Fatalf("ZCARD = %d", n)
			}
		}
	})
	// The same with a key of 27 bytes, as prefixed names are ("app:kind:user:id").
	b.Run("op=ZCARD-27B-key/impl=typed", func(b *testing.B) {
		db := New()
		const key = "bench:zlite:z:user:00012345"
		db.ZAdd(ctx, key, Z{Member: "m", Score: 1})
		b.ReportAllocs()
		for b.Loop() {
			if n, _ := db.ZCard(ctx, key); n != 1 {
				b.Fatalf("ZCARD = %d", n)
			}
		}
	})
	// A small set's reads that copy members out: ZRANGE 0 -1 of 10 members, and
	// ZPOPMIN with the member put back.
	small10 := func() *DB {
		db := New()
		for i, m := range ms[:10] {
			db.ZAdd(ctx, "user:00000001", Z{Member: m, Score: float64(i)})
		}
		return db
	}
	b.Run("op=ZRANGE-10/impl=typed", func(b *testing.B) {
		db := small10()
		b.ReportAllocs()
		for b.Loop() {
			if v, _ := db.ZRange(ctx, "user:00000001", 0, -1); len(v) != 10 {
				b.Fatalf("ZRANGE = %q", v)
			}
		}
	})
	b.Run("op=ZPOPMIN+ZADD-10/impl=typed", func(b *testing.B) {
		db := small10()
		b.ReportAllocs()
		for b.Loop() {
			zs, _ := db.ZPopMin(ctx, "user:00000001")
			if len(zs) != 1 {
				b.Fatalf("ZPOPMIN = %v", zs)
			}
			db.ZAdd(ctx, "user:00000001", zs[0])
		}
	})
	b.Run("op=LPUSH+RPOP/impl=list", func(b *testing.B) {
		l := list.New()
		l.PushFront("base")
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			l.PushFront(ms[i%benchMembers])
			l.PopBack()
			i++
		}
	})
	b.Run("op=LPUSH+RPOP/impl=typed", func(b *testing.B) {
		db := New()
		db.LPush(ctx, "k", "base")
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			db.LPush(ctx, "k", ms[i%benchMembers])
			db.RPop(ctx, "k")
			i++
		}
	})
	b.Run("op=LPUSH+RPOP/impl=do", func(b *testing.B) {
		db := New()
		db.LPush(ctx, "k", "base")
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			db.Do(ctx, "LPUSH", "k", ms[i%benchMembers])
			db.Do(ctx, "RPOP", "k")
			i++
		}
	})
}

// handoff is one way to move items between goroutines: push onto key, and pop
// (blocking) from any of keys.
type handoff struct {
	push func(key, item string)
	pop  func(key string) string
}

func zliteLists(db *DB) handoff {
	ctx := context.Background()
	return handoff{
		push: func(key, item string) { db.LPush(ctx, key, item) },
		pop: func(key string) string {
			_, v, _, _ := db.BRPop(ctx, 0, key)
			return v
		},
	}
}

func zliteZSets(db *DB) handoff {
	ctx := context.Background()
	return handoff{
		push: func(key, item string) { db.ZAdd(ctx, key, Z{Member: item, Score: 1}) },
		pop: func(key string) string {
			_, z, _, _ := db.BZPopMin(ctx, 0, key)
			return z.Member
		},
	}
}

func redisLists(rc *redis.Client) handoff {
	ctx := context.Background()
	return handoff{
		push: func(key, item string) { rc.LPush(ctx, key, item) },
		pop: func(key string) string {
			kv, _ := rc.BRPop(ctx, 0, key).Result()
			return kv[1]
		},
	}
}

func redisZSets(rc *redis.Client) handoff {
	ctx := context.Background()
	return handoff{
		push: func(key, item string) { rc.ZAdd(ctx, key, redis.Z{Member: item, Score: 1}) },
		pop: func(key string) string {
			z, _ := rc.BZPopMin(ctx, 0, key).Result()
			return z.Member.(string)
		},
	}
}

// pingPong: one iteration is a round trip: push "ping", the other goroutine pops it
// and pushes "pong", which this goroutine pops.
//
// It and throughput loop over b.N rather than b.Loop, as every benchmark here meant
// to be run with -cpu must: the testing package sets GOMAXPROCS from the -cpu list
// after a benchmark's first call, and b.Loop measures everything in that first call,
// so with -cpu 1,2 the "1" row of a b.Loop benchmark runs with the default
// GOMAXPROCS.
func pingPong(b *testing.B, h handoff) {
	run, stop := trips(h)
	b.ReportAllocs()
	b.ResetTimer()
	run(b.N)
	b.StopTimer()
	stop()
}

// trips starts the other side of a ping-pong over h (it pops "ping" and pushes
// "pong") and returns a function that runs n round trips and returns their wall
// time, and one that stops the other side.
func trips(h handoff) (run func(n int) time.Duration, stop func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for h.pop("ping") != "stop" {
			h.push("pong", "pong")
		}
	}()
	run = func(n int) time.Duration {
		t0 := time.Now()
		for range n {
			h.push("ping", "ping")
			h.pop("pong")
		}
		return time.Since(t0)
	}
	return run, func() { h.push("ping", "stop"); <-done }
}

// chanTrips is trips over two bare unbuffered channels: the floor of any goroutine
// hand-off.
func chanTrips() (run func(n int) time.Duration, stop func()) {
	ping, pong := make(chan string), make(chan string)
	go func() {
		for v := range ping {
			pong <- v
		}
		close(pong)
	}()
	run = func(n int) time.Duration {
		t0 := time.Now()
		for range n {
			ping <- "ping"
			<-pong
		}
		return time.Since(t0)
	}
	return run, func() { close(ping); <-pong }
}

// throughput moves batch items per iteration from p producers to c consumers and
// reports the time per item.
func throughput(b *testing.B, h handoff, p, c int) {
	const batch = 1200
	items := make([]string, batch)
	for i := range items {
		items[i] = "item:" + strconv.Itoa(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N { // not b.Loop: see pingPong
		var wg sync.WaitGroup
		for i := range p {
			wg.Go(func() {
				for _, it := range items[i*batch/p : (i+1)*batch/p] {
					h.push("q", it)
				}
			})
		}
		for range c {
			wg.Go(func() {
				for range batch / c {
					h.pop("q")
				}
			})
		}
		wg.Wait()
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*batch), "ns/item")
}

// BenchmarkHandoff measures pushes handed to blocked pops: latency (ping-pong) and
// throughput with 1 and 4 producers/consumers, on zlite and on a real redis-server
// through go-redis (skipped without Redis), beside a bare channel ping-pong, the
// floor of any goroutine hand-off.
func BenchmarkHandoff(b *testing.B) {
	b.Run("op=chan/mode=pingpong/impl=chan", func(b *testing.B) {
		run, stop := chanTrips()
		b.ReportAllocs()
		run(b.N) // not b.Loop: see pingPong
		b.StopTimer()
		stop()
	})
	impls := []struct {
		name   string
		lists  func(b *testing.B) handoff
		zsets  func(b *testing.B) handoff
		remote bool
	}{
		{"zlite", func(*testing.B) handoff { return zliteLists(New()) }, func(*testing.B) handoff { return zliteZSets(New()) }, false},
		{"redis", func(b *testing.B) handoff { return redisLists(benchRedis(b)) }, func(b *testing.B) handoff { return redisZSets(benchRedis(b)) }, true},
	}
	for _, op := range []string{"LPUSH-BRPOP", "ZADD-BZPOPMIN"} {
		for _, impl := range impls {
			mk := impl.lists
			if op == "ZADD-BZPOPMIN" {
				mk = impl.zsets
			}
			b.Run("op="+op+"/mode=pingpong/impl="+impl.name, func(b *testing.B) { pingPong(b, mk(b)) })
			b.Run("op="+op+"/mode=1x1/impl="+impl.name, func(b *testing.B) { throughput(b, mk(b), 1, 1) })
			b.Run("op="+op+"/mode=4x4/impl="+impl.name, func(b *testing.B) { throughput(b, mk(b), 4, 4) })
			if !impl.remote {
				// x: a round trip over the keyspace in channel round trips (see reportRatios).
				b.Run("op="+op+"/mode=ratio/impl="+impl.name, func(b *testing.B) {
					run, stop := trips(mk(b))
					defer stop()
					floor, stopChan := chanTrips()
					defer stopChan()
					reportRatios(b, run, floor)
				})
			}
		}
	}
}

// benchRedis returns a go-redis client on a flushed test database, or skips b.
func benchRedis(b *testing.B) *redis.Client {
	addr := redistest.Require(b)
	rc := redis.NewClient(&redis.Options{Addr: addr, DB: redisTestDB, PoolSize: 16})
	b.Cleanup(func() { rc.Close() })
	if err := rc.FlushDB(context.Background()).Err(); err != nil {
		b.Fatal(err)
	}
	return rc
}
