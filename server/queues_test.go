package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/redisq"
	"github.com/zlite/zlite/server"
)

// TestQueuesOverDialer runs queue types of package queues through queues/redisq
// (go-redis, their Lua scripts by EVALSHA) on an embedded DB through the Dialer.
// The whole queue suite runs against zlite-server with
// REDIS_ADDR=<zlite-server address> go test ./queues/...
func TestQueuesOverDialer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db := zlite.New()
	rdb := redis.NewClient(&redis.Options{Dialer: server.Dialer(db)})
	defer rdb.Close()
	b := redisq.New(rdb, &redisq.Options{Slice: 50 * time.Millisecond})

	fifo := queues.NewFIFO(b, "jobs")
	if err := fifo.Push(ctx, "a", "b"); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := fifo.Pop(ctx, time.Second); err != nil || !ok || v != "a" {
		t.Fatalf("FIFO Pop = %q, %v, %v; want a", v, ok, err)
	}

	s := queues.NewScheduler(b, "sched", queues.WithBatch(10))
	job := queues.FutureJob{Queue: "mail", Func: "send", Args: []byte(`[1,"x"]`)}
	if _, err := s.AddFutureJob(ctx, job, time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	moved, err := s.Step(ctx)
	if err != nil || len(moved) != 1 || moved[0].Func != "send" {
		t.Fatalf("Scheduler Step = %v, %v; want the send job (its Lua decodes JSON with cjson)", moved, err)
	}
	if n, err := s.Queue("mail").Len(ctx); err != nil || n != 1 {
		t.Fatalf("mail queue length = %d, %v; want 1", n, err)
	}
}
