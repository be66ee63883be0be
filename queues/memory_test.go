package queues_test

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/zlite/zlite/internal/redistest"
)

// memoryMeter returns a function reading the memory in use: the Go heap after a GC
// for the embedded backend, the server's used_memory for Redis.
func memoryMeter(tb testing.TB, impl string) func() int64 {
	if impl == "embedded" {
		return func() int64 {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			return int64(ms.HeapAlloc)
		}
	}
	c := redis.NewClient(&redis.Options{Addr: redistest.Require(tb)})
	tb.Cleanup(func() { c.Close() })
	return func() int64 {
		info, err := c.Info(context.Background(), "memory").Result()
		if err != nil {
			tb.Fatal(err)
		}
		for _, line := range strings.Split(info, "\r\n") {
			if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				return n
			}
		}
		tb.Fatal("no used_memory in INFO memory")
		return 0
	}
}
