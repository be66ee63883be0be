package zlite_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zlite/zlite"
)

// A lock as go-redis code takes one: SET NX with a TTL, released only by its owner.
func ExampleDB_SetNX() {
	ctx := context.Background()
	db := zlite.New()
	got, _ := db.SetNX(ctx, "lock:report", "worker-1", 30*time.Second)
	again, _ := db.SetNX(ctx, "lock:report", "worker-2", 30*time.Second)
	owner, _, _ := db.Get(ctx, "lock:report")
	ttl, _ := db.TTL(ctx, "lock:report")
	fmt.Println(got, again, owner, ttl)
	// Output: true false worker-1 30s
}

// A fixed-window rate limiter: INCR, and a TTL on the window's first hit.
func ExampleDB_Incr() {
	ctx := context.Background()
	db := zlite.New()
	for range 3 {
		n, _ := db.Incr(ctx, "hits:ann")
		if n == 1 {
			db.Expire(ctx, "hits:ann", time.Minute)
		}
		fmt.Println(n, n <= 2)
	}
	f, _ := db.IncrByFloat(ctx, "balance", 0.1)
	g, _ := db.Do(ctx, "INCRBYFLOAT", "balance", "0.2")
	fmt.Println(f, g)
	// Output:
	// 1 true
	// 2 true
	// 3 false
	// 0.1 0.3
}
