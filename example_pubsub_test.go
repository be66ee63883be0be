package zlite_test

import (
	"context"
	"fmt"

	"github.com/zlite/zlite"
)

// A worker is told of new jobs over Pub/Sub: the subscriber receives what is
// published after it subscribed, patterns included.
func ExampleDB_Subscribe() {
	ctx := context.Background()
	db := zlite.New()
	sub := db.Subscribe(ctx, "jobs:new")
	defer sub.Close()
	sub.PSubscribe("jobs:*")

	n, _ := db.Publish(ctx, "jobs:new", "job-17")
	fmt.Println("receivers:", n)
	for range n {
		m, err := sub.Receive(ctx)
		if err != nil {
			panic(err)
		}
		fmt.Println(m.Kind, m.Pattern, m.Channel, m.Payload)
	}
	// Output:
	// receivers: 2
	// message  jobs:new job-17
	// pmessage jobs:* jobs:new job-17
}
