package zlite_test

import (
	"context"
	"fmt"
	"os"

	"github.com/zlite/zlite"
)

// A keyspace kept in a directory: what was written before Close is there after
// Open.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "zlite-example-*")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()

	db, err := zlite.Open(dir, zlite.WithSync(zlite.SyncAlways))
	if err != nil {
		panic(err)
	}
	db.RPush(ctx, "jobs", "a", "b", "c")
	db.LPop(ctx, "jobs")
	db.Update(func(tx *zlite.Tx) error { // one record: all or nothing after a crash
		tx.ZAdd("done", zlite.Z{Member: "a", Score: 1})
		_, err := tx.LPush("audit", "a done")
		return err
	})
	if err := db.Snapshot(); err != nil { // compacts the log
		panic(err)
	}
	db.RPush(ctx, "jobs", "d")
	db.Close()

	db, err = zlite.Open(dir)
	if err != nil {
		panic(err)
	}
	defer db.Close()
	jobs, _ := db.LRange(ctx, "jobs", 0, -1)
	done, _ := db.ZRange(ctx, "done", 0, -1)
	fmt.Println(jobs, done)
	// Output: [b c d] [a]
}
