package server_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/server"
)

// TestDialerGoRedis runs go-redis (RESP3, its default) on an embedded DB through the
// in-process Dialer, and checks that nothing is left running after Close.
func TestDialerGoRedis(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()
	db := zlite.New()
	for _, proto := range []int{2, 3} {
		rdb := redis.NewClient(&redis.Options{Dialer: server.Dialer(db), Protocol: proto})
		if err := rdb.ZAdd(ctx, "board", redis.Z{Score: 31, Member: "ann"}, redis.Z{Score: 42.5, Member: "bob"}).Err(); err != nil {
			t.Fatalf("resp%d: ZAdd: %v", proto, err)
		}
		zs, err := rdb.ZRangeWithScores(ctx, "board", 0, -1).Result()
		if err != nil || len(zs) != 2 || zs[1].Member != "bob" || zs[1].Score != 42.5 {
			t.Fatalf("resp%d: ZRangeWithScores = %v, %v; want [ann 31 bob 42.5]", proto, zs, err)
		}
		if s, err := rdb.ZScore(ctx, "board", "ann").Result(); err != nil || s != 31 {
			t.Fatalf("resp%d: ZScore = %v, %v; want 31", proto, s, err)
		}
		if _, err := rdb.ZScore(ctx, "board", "nobody").Result(); !errors.Is(err, redis.Nil) {
			t.Fatalf("resp%d: ZScore(missing) err = %v; want redis.Nil", proto, err)
		}
		if _, err := rdb.BLPop(ctx, 10*time.Millisecond, "nothing").Result(); !errors.Is(err, redis.Nil) {
			t.Fatalf("resp%d: BLPop timeout err = %v; want redis.Nil", proto, err)
		}
		go func() { _, _ = db.RPush(ctx, "jobs", "j1") }()
		kv, err := rdb.BRPop(ctx, 0, "jobs").Result()
		if err != nil || kv[1] != "j1" {
			t.Fatalf("resp%d: BRPop = %v, %v; want [jobs j1]", proto, kv, err)
		}
		pipe := rdb.Pipeline()
		push := pipe.LPush(ctx, "l", "a", "b")
		rng := pipe.LRange(ctx, "l", 0, -1)
		if _, err := pipe.Exec(ctx); err != nil || push.Val() != 2 || len(rng.Val()) != 2 {
			t.Fatalf("resp%d: pipeline = %v, %v, %v", proto, push.Val(), rng.Val(), err)
		}
		if _, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Del(ctx, "l")
			p.ZIncrBy(ctx, "board", 1, "ann")
			return nil
		}); err != nil {
			t.Fatalf("resp%d: TxPipelined: %v", proto, err)
		}
		if s, _, _ := db.ZScore(ctx, "board", "ann"); s != 32 {
			t.Fatalf("resp%d: ZScore after MULTI = %v", proto, s)
		}
		if err := rdb.Do(ctx, "XADD", "k", "v").Err(); err == nil || err.Error() != "ERR unknown command 'XADD', with args beginning with: 'k' 'v' " {
			t.Fatalf("resp%d: XADD err = %v; want Redis's unknown command", proto, err)
		}
		if err := rdb.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDialerBlockedClose: a BLPOP blocked through the Dialer is cancelled when the
// client closes, and takes nothing pushed afterwards.
func TestDialerBlockedClose(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()
	db := zlite.New()
	srv := server.New(server.WithDB(0, db))
	rdb := redis.NewClient(&redis.Options{Dialer: srv.Dialer(), ReadTimeout: -1})
	done := make(chan error, 1)
	go func() { done <- rdb.BLPop(ctx, 0, "q").Err() }()
	for {
		if st := db.Stats(); st.Blocked == 1 {
			break
		}
	}
	rdb.Close()
	if err := <-done; err == nil {
		t.Fatal("BLPop after Close returned no error")
	}
	if _, err := db.RPush(ctx, "q", "kept"); err != nil {
		t.Fatal(err)
	}
	if n, _ := db.LLen(ctx, "q"); n != 1 {
		t.Fatalf("LLEN q = %d; want 1: the closed client's BLPOP took the element", n)
	}
}
