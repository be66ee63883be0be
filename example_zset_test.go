package zlite_test

import (
	"context"
	"fmt"

	"github.com/zlite/zlite"
)

func ExampleDB_ZAdd() {
	ctx := context.Background()
	db := zlite.New()
	n, _ := db.ZAdd(ctx, "scores", zlite.Z{Member: "alice", Score: 31}, zlite.Z{Member: "bob", Score: 17})
	fmt.Println("added", n)
	n, _ = db.ZAdd(ctx, "scores", zlite.Z{Member: "bob", Score: 40}, zlite.Z{Member: "carol", Score: 25})
	fmt.Println("added", n)
	zs, _ := db.ZRangeWithScores(ctx, "scores", 0, -1)
	for _, z := range zs {
		fmt.Println(z.Member, z.Score)
	}
	// Output:
	// added 2
	// added 1
	// carol 25
	// alice 31
	// bob 40
}

func ExampleDB_ZAddArgsIncr() {
	ctx := context.Background()
	db := zlite.New()
	db.ZAdd(ctx, "hits", zlite.Z{Member: "/home", Score: 10})
	score, ok, _ := db.ZAddArgsIncr(ctx, "hits", zlite.ZAddArgs{XX: true, Members: []zlite.Z{{Member: "/home", Score: 5}}})
	fmt.Println(score, ok)
	// XX never adds a member: the update does not happen.
	_, ok, _ = db.ZAddArgsIncr(ctx, "hits", zlite.ZAddArgs{XX: true, Members: []zlite.Z{{Member: "/about", Score: 1}}})
	fmt.Println(ok)
	// Output:
	// 15 true
	// false
}

func ExampleDB_ZScore() {
	ctx := context.Background()
	db := zlite.New()
	db.ZAdd(ctx, "k", zlite.Z{Member: "a", Score: 1.5})
	f, ok, _ := db.ZScore(ctx, "k", "a")
	fmt.Println(f, ok)
	_, ok, _ = db.ZScore(ctx, "k", "missing")
	fmt.Println(ok)
	// Output:
	// 1.5 true
	// false
}

func ExampleDB_ZRangeByScore() {
	ctx := context.Background()
	db := zlite.New()
	for i, m := range []string{"a", "b", "c", "d", "e"} {
		db.ZAdd(ctx, "k", zlite.Z{Member: m, Score: float64(i + 1)})
	}
	// 1 < score ≤ +inf, skipping one, at most two: LIMIT 1 2.
	ms, _ := db.ZRangeByScore(ctx, "k", &zlite.ZRangeBy{Min: "(1", Max: "+inf", Offset: 1, Count: 2})
	fmt.Println(ms)
	ms, _ = db.ZRevRangeByScore(ctx, "k", &zlite.ZRangeBy{Min: "-inf", Max: "3"})
	fmt.Println(ms)
	_, err := db.ZRangeByScore(ctx, "k", &zlite.ZRangeBy{Min: "x", Max: "1"})
	fmt.Println(err)
	// Output:
	// [c d]
	// [c b a]
	// ERR min or max is not a float
}

func ExampleDB_ZRangeArgs() {
	ctx := context.Background()
	db := zlite.New()
	for _, m := range []string{"apple", "banana", "cherry", "date"} {
		db.ZAdd(ctx, "fruit", zlite.Z{Member: m, Score: 0})
	}
	ms, _ := db.ZRangeArgs(ctx, zlite.ZRangeArgs{Key: "fruit", Start: "[b", Stop: "(d", ByLex: true})
	fmt.Println(ms)
	ms, _ = db.ZRangeArgs(ctx, zlite.ZRangeArgs{Key: "fruit", Start: 0, Stop: 1, Rev: true})
	fmt.Println(ms)
	// Output:
	// [banana cherry]
	// [date cherry]
}

func ExampleDB_ZPopMin() {
	ctx := context.Background()
	db := zlite.New()
	db.ZAdd(ctx, "jobs", zlite.Z{Member: "low", Score: 9}, zlite.Z{Member: "urgent", Score: 1}, zlite.Z{Member: "normal", Score: 5})
	zs, _ := db.ZPopMin(ctx, "jobs")
	fmt.Println(zs)
	zs, _ = db.ZPopMin(ctx, "jobs", 5)
	fmt.Println(zs)
	// The emptied key is gone.
	n, _ := db.Exists(ctx, "jobs")
	fmt.Println(n)
	// Output:
	// [{urgent 1}]
	// [{normal 5} {low 9}]
	// 0
}

func ExampleDB_ZMPop() {
	ctx := context.Background()
	db := zlite.New()
	db.ZAdd(ctx, "b", zlite.Z{Member: "x", Score: 1}, zlite.Z{Member: "y", Score: 2})
	key, zs, _ := db.ZMPop(ctx, "MAX", 10, "a", "b")
	fmt.Println(key, zs)
	key, zs, _ = db.ZMPop(ctx, "MAX", 10, "a", "b")
	fmt.Println(key == "", zs == nil)
	// Output:
	// b [{y 2} {x 1}]
	// true true
}

func ExampleDB_ZUnionStore() {
	ctx := context.Background()
	db := zlite.New()
	db.ZAdd(ctx, "week1", zlite.Z{Member: "alice", Score: 3}, zlite.Z{Member: "bob", Score: 5})
	db.ZAdd(ctx, "week2", zlite.Z{Member: "alice", Score: 4}, zlite.Z{Member: "carol", Score: 1})
	n, _ := db.ZUnionStore(ctx, "total", &zlite.ZStore{Keys: []string{"week1", "week2"}, Weights: []float64{1, 2}})
	fmt.Println(n)
	zs, _ := db.ZRangeWithScores(ctx, "total", 0, -1)
	fmt.Println(zs)
	both, _ := db.ZInter(ctx, &zlite.ZStore{Keys: []string{"week1", "week2"}})
	fmt.Println(both)
	// Output:
	// 3
	// [{carol 2} {bob 5} {alice 11}]
	// [alice]
}

func ExampleDB_ZScan() {
	ctx := context.Background()
	db := zlite.New()
	db.ZAdd(ctx, "k", zlite.Z{Member: "user:1", Score: 1}, zlite.Z{Member: "user:2", Score: 2}, zlite.Z{Member: "admin", Score: 3})
	var cursor uint64
	for {
		zs, next, _ := db.ZScan(ctx, "k", cursor, "user:*", 10)
		for _, z := range zs {
			fmt.Println(z.Member, z.Score)
		}
		if next == 0 {
			break
		}
		cursor = next
	}
	// Output:
	// user:1 1
	// user:2 2
}

func ExampleDB_Do_sortedSet() {
	ctx := context.Background()
	db := zlite.New()
	fmt.Println(db.Do(ctx, "ZADD", "k", "1", "a", "2.5", "b"))
	fmt.Println(db.Do(ctx, "ZRANGE", "k", "0", "-1", "WITHSCORES"))
	fmt.Println(db.Do(ctx, "ZSCORE", "k", "missing"))
	fmt.Println(db.Do(ctx, "ZADD", "k", "INCR", "1", "a", "2", "b"))
	fmt.Println(db.Do(ctx, "ZRANGE", "k", "0", "-1", "LIMIT", "0", "1"))
	// Output:
	// 2 <nil>
	// [a 1 b 2.5] <nil>
	// <nil> <nil>
	// <nil> ERR INCR option supports a single increment-element pair
	// <nil> ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX
}

func ExampleTx_ZRangeStore() {
	ctx := context.Background()
	db := zlite.New()
	db.ZAdd(ctx, "k", zlite.Z{Member: "a", Score: 1}, zlite.Z{Member: "b", Score: 2}, zlite.Z{Member: "c", Score: 3})
	// Move the two lowest members to "top2" atomically.
	db.Update(func(tx *zlite.Tx) error {
		if _, err := tx.ZRangeStore("top2", zlite.ZRangeArgs{Key: "k", Start: 0, Stop: 1}); err != nil {
			return err
		}
		_, err := tx.ZRemRangeByRank("k", 0, 1)
		return err
	})
	top, _ := db.ZRange(ctx, "top2", 0, -1)
	rest, _ := db.ZRange(ctx, "k", 0, -1)
	fmt.Println(top, rest)
	// Output:
	// [a b] [c]
}
