package zlite_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zlite/zlite"
)

// Keyspace notifications: with "KEA" every write publishes its events, here
// read from the keyevent channels.
func ExampleDB_SetKeyspaceEvents() {
	ctx := context.Background()
	db := zlite.New()
	ev, err := zlite.ParseKeyspaceEvents("KEA")
	if err != nil {
		panic(err)
	}
	db.SetKeyspaceEvents(ev)
	sub := db.PSubscribe(ctx, "__keyevent@0__:*")
	defer sub.Close()

	db.Set(ctx, "greeting", "hello", time.Minute)
	db.LPush(ctx, "jobs", "a")
	db.RPop(ctx, "jobs")
	db.Del(ctx, "greeting")

	msgs, _ := sub.Drain(nil)
	for _, m := range msgs {
		fmt.Println(m.Channel, m.Payload)
	}
	fmt.Println(db.KeyspaceEvents())
	// Output:
	// __keyevent@0__:set greeting
	// __keyevent@0__:expire greeting
	// __keyevent@0__:lpush jobs
	// __keyevent@0__:rpop jobs
	// __keyevent@0__:del jobs
	// __keyevent@0__:del greeting
	// AKE
}
