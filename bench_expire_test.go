package zlite

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// The cost of expiry on the paths it touches, keys with and without a TTL side by
// side:
//
//	go test -run '^$' -bench 'BenchmarkExpiry' -benchtime 200ms -count 3 .
//
// op=zscore reads a random key of 10k one-member sets (a TTL adds a clock read and a
// map lookup); op=rpush-lpop writes a key of its own while the other keys have a TTL
// or not (a write reads the clock when some key has one, to reclaim); op=expire sets
// the TTL of a random key again (a map write and a heap push).
func BenchmarkExpiry(b *testing.B) {
	const keys = 10_000
	ctx := context.Background()
	build := func(ttl bool) *DB {
		db := New()
		for i := range keys {
			k := "k" + strconv.Itoa(i)
			db.ZAdd(ctx, k, Z{Member: "m", Score: 1})
			if ttl {
				db.Expire(ctx, k, time.Hour)
			}
		}
		return db
	}
	names := make([]string, keys)
	for i := range names {
		names[i] = "k" + strconv.Itoa((i*7919)%keys)
	}
	for _, ttl := range []bool{false, true} {
		tag := "/keys=10000/ttl=none/impl=zlite"
		if ttl {
			tag = "/keys=10000/ttl=1h/impl=zlite"
		}
		db := build(ttl)
		b.Run("op=zscore"+tag, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				db.ZScore(ctx, names[i%keys], "m")
				i++
			}
		})
		b.Run("op=rpush-lpop"+tag, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				db.RPush(ctx, "q", "v")
				db.LPop(ctx, "q")
			}
		})
		if ttl {
			b.Run("op=expire"+tag, func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					db.Expire(ctx, names[i%keys], time.Hour+time.Duration(i)*time.Millisecond)
					i++
				}
			})
		}
	}
}
