package zlite_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zlite/zlite"
)

func ExampleDB() {
	ctx := context.Background()
	db := zlite.New()
	db.RPush(ctx, "tasks", "build", "test", "deploy")
	first, _, _ := db.LPop(ctx, "tasks")
	rest, _ := db.LRange(ctx, "tasks", 0, -1)
	fmt.Println(first, rest)
	// Output: build [test deploy]
}

func ExampleDB_Do() {
	ctx := context.Background()
	db := zlite.New()
	fmt.Println(db.Do(ctx, "rpush", "l", "a", "b"))
	fmt.Println(db.Do(ctx, "LRANGE", "l", "0", "-1"))
	fmt.Println(db.Do(ctx, "LPOP", "missing"))
	fmt.Println(db.Do(ctx, "LPUSH", "l"))
	// Output:
	// 2 <nil>
	// [a b] <nil>
	// <nil> <nil>
	// <nil> ERR wrong number of arguments for 'lpush' command
}

func ExampleDB_Update() {
	ctx := context.Background()
	db := zlite.New()
	db.RPush(ctx, "pending", "job1", "job2")
	// Move a job and record it, atomically: no other command sees one without the other.
	err := db.Update(func(tx *zlite.Tx) error {
		job, ok, err := tx.LMove("pending", "running", "LEFT", "RIGHT")
		if err != nil || !ok {
			return err
		}
		_, err = tx.RPush("log", "started "+job)
		return err
	})
	running, _ := db.LRange(ctx, "running", 0, -1)
	log, _ := db.LRange(ctx, "log", 0, -1)
	fmt.Println(err, running, log)
	// Output: <nil> [job1] [started job1]
}

func ExampleDB_BRPop() {
	ctx := context.Background()
	db := zlite.New()
	done := make(chan string)
	go func() {
		// Waits until a push hands it an element (or a minute passes).
		key, value, ok, err := db.BRPop(ctx, time.Minute, "queue")
		done <- fmt.Sprint(key, " ", value, " ", ok, " ", err)
	}()
	db.LPush(ctx, "queue", "hello")
	fmt.Println(<-done)
	// A timeout reports ok false.
	_, _, ok, err := db.BRPop(ctx, time.Millisecond, "queue")
	fmt.Println(ok, err)
	// Output:
	// queue hello true <nil>
	// false <nil>
}

func ExampleDB_View() {
	ctx := context.Background()
	db := zlite.New()
	db.RPush(ctx, "ready", "a", "b")
	db.ZAdd(ctx, "delayed", zlite.Z{Member: "c", Score: 10})
	// Both lengths come from one consistent state of the keyspace.
	err := db.View(func(tx *zlite.Tx) error {
		ready, err := tx.LLen("ready")
		if err != nil {
			return err
		}
		delayed, err := tx.ZCard("delayed")
		if err != nil {
			return err
		}
		fmt.Println("ready", ready, "delayed", delayed)
		// Writes through a read-only Tx fail and change nothing.
		_, err = tx.RPush("ready", "d")
		fmt.Println(errors.Is(err, zlite.ErrReadOnly))
		return nil
	})
	fmt.Println(err)
	// Output:
	// ready 2 delayed 1
	// true
	// <nil>
}

func ExampleDB_LPos() {
	ctx := context.Background()
	db := zlite.New()
	db.RPush(ctx, "l", "a", "b", "c", "a", "b", "a")
	fmt.Println(db.LPos(ctx, "l", "a", zlite.LPosArgs{}))
	fmt.Println(db.LPos(ctx, "l", "a", zlite.LPosArgs{Rank: 2}))   // the second match
	fmt.Println(db.LPos(ctx, "l", "a", zlite.LPosArgs{Rank: -1}))  // the last match
	fmt.Println(db.LPos(ctx, "l", "c", zlite.LPosArgs{MaxLen: 2})) // only "a", "b" compared
	fmt.Println(db.LPosCount(ctx, "l", "a", 0, zlite.LPosArgs{}))  // every match
	// Output:
	// 0 true <nil>
	// 3 true <nil>
	// 5 true <nil>
	// 0 false <nil>
	// [0 3 5] <nil>
}

func ExampleDB_Expire() {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	db := zlite.New(zlite.WithClock(func() time.Time { return now }))
	db.RPush(ctx, "session", "token")
	db.Expire(ctx, "session", 90*time.Second)
	ttl, _ := db.TTL(ctx, "session")
	fmt.Println(ttl)
	now = now.Add(90 * time.Second) // the clock moves past the expiry time
	n, _ := db.Exists(ctx, "session")
	ttl, _ = db.TTL(ctx, "session")
	fmt.Println(n, ttl == -2)
	// Output:
	// 1m30s
	// 0 true
}

// UpdateKeys locks only the shards of the keys it declares: keys that share a hash
// tag ({order:17}) share a shard, so this batch locks one shard, and batches on
// other orders run in parallel with it.
func ExampleDB_UpdateKeys() {
	ctx := context.Background()
	db := zlite.New()
	db.RPush(ctx, "{order:17}:items", "pen", "ink")
	err := db.UpdateKeys([]string{"{order:17}:items"}, func(tx *zlite.Tx) error {
		item, _, err := tx.LPop("{order:17}:items")
		if err != nil {
			return err
		}
		_, err = tx.RPush("{order:17}:packed", item) // same tag: same shard
		return err
	})
	packed, _ := db.LRange(ctx, "{order:17}:packed", 0, -1)
	fmt.Println(packed, err)
	// Output: [pen] <nil>
}
