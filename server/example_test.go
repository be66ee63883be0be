package server_test

import (
	"context"
	"fmt"
	"net"

	"github.com/redis/go-redis/v9"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/server"
)

// Existing go-redis code runs on an embedded DB through the in-process Dialer: no
// port, no server process.
func ExampleDialer() {
	ctx := context.Background()
	db := zlite.New()
	rdb := redis.NewClient(&redis.Options{Dialer: server.Dialer(db)})
	defer rdb.Close()

	rdb.ZAdd(ctx, "board", redis.Z{Score: 31, Member: "ann"}, redis.Z{Score: 42, Member: "bob"})
	top, _ := rdb.ZRevRangeWithScores(ctx, "board", 0, 0).Result()
	n, _, _ := db.ZScore(ctx, "board", "ann") // the same keyspace, typed
	fmt.Println(top[0].Member, top[0].Score, n)
	// Output: bob 42 31
}

// A Server speaks RESP over TCP to redis-cli and any Redis client.
func ExampleServer_Serve() {
	l, err := net.Listen("tcp", "127.0.0.1:0") // loopback only
	if err != nil {
		panic(err)
	}
	srv := server.New()
	go srv.Serve(l)
	defer srv.Close()

	rdb := redis.NewClient(&redis.Options{Addr: l.Addr().String()})
	defer rdb.Close()
	ctx := context.Background()
	rdb.RPush(ctx, "jobs", "resize:42")
	kv, _ := rdb.BLPop(ctx, 0, "jobs").Result()
	fmt.Println(kv)
	// Output: [jobs resize:42]
}
