package zlite_test

import (
	"context"
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
