package server_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/server"
)

// BenchmarkGoRedis measures go-redis on an embedded DB through the in-process
// Dialer, one command per round trip. The bench module's resp group (zbench) runs
// the same commands on miniredis, the usual test double, in the same run.
func BenchmarkGoRedis(b *testing.B) {
	ctx := context.Background()
	ops := []struct {
		name string
		run  func(c *redis.Client, i int) error
	}{
		{"zadd", func(c *redis.Client, i int) error {
			return c.ZAdd(ctx, "z", redis.Z{Score: float64(i % 1000), Member: strconv.Itoa(i % 1000)}).Err()
		}},
		{"zscore", func(c *redis.Client, i int) error {
			return c.ZScore(ctx, "z", strconv.Itoa(i%1000)).Err()
		}},
		{"lpush+rpop", func(c *redis.Client, i int) error {
			if err := c.LPush(ctx, "l", "v").Err(); err != nil {
				return err
			}
			return c.RPop(ctx, "l").Err()
		}},
	}
	for _, op := range ops {
		b.Run("op="+op.name, func(b *testing.B) {
			c := redis.NewClient(&redis.Options{Dialer: server.Dialer(zlite.New())})
			defer c.Close()
			for i := range 1000 {
				c.ZAdd(ctx, "z", redis.Z{Score: float64(i), Member: strconv.Itoa(i)})
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := op.run(c, i); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkPipeline sends pipelines of 64 commands over the in-memory pipe and reads
// the replies: the server's per-command cost (parse, run, encode) without sockets.
func BenchmarkPipeline(b *testing.B) {
	for _, tc := range []struct {
		name string
		cmd  func(i int) []string
	}{
		{"zadd", func(i int) []string { return []string{"ZADD", "z", strconv.Itoa(i % 1000), "m" + strconv.Itoa(i%1000)} }},
		{"lpush", func(i int) []string { return []string{"LPUSH", "l", "v"} }},
		{"rpop", func(i int) []string { return []string{"RPOP", "l"} }},
	} {
		b.Run("op="+tc.name+"/P=64/impl=zlite-server", func(b *testing.B) {
			rdb := redis.NewClient(&redis.Options{Dialer: server.Dialer(zlite.New())})
			defer rdb.Close()
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				p := rdb.Pipeline()
				for range 64 {
					args := tc.cmd(i)
					a := make([]any, len(args))
					for j, s := range args {
						a[j] = s
					}
					p.Do(ctx, a...)
					i++
				}
				if _, err := p.Exec(ctx); err != nil && err != redis.Nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*64), "ns/cmd")
		})
	}
}
