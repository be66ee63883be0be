package redisq_test

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/redisq"
)

// The queue types run unchanged on Redis: wrap a go-redis client (single node,
// Sentinel or Cluster) and pass it where the embedded backend went.
func ExampleNew() {
	ctx := context.Background()
	c := redis.NewUniversalClient(&redis.UniversalOptions{Addrs: []string{"127.0.0.1:6379"}})
	defer c.Close()
	b := redisq.New(c, &redisq.Options{Slice: 100 * time.Millisecond})

	q := queues.NewPriority(b, "tasks") // highest priority first
	if _, err := q.Push(ctx, "page on-call", 99999); err != nil {
		fmt.Println(err)
		return
	}
	v, p, ok, err := q.Pop(ctx, time.Second)
	fmt.Println(v, p, ok, err)
}
