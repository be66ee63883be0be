package inspector_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/inspector"
	"github.com/zlite/zlite/queues"
)

// An app mounts the inspector under a prefix of its own; a script reads the JSON.
func Example() {
	ctx := context.Background()
	b := queues.NewEmbedded(zlite.New())
	jobs := queues.NewFIFO(b, "jobs")
	jobs.Push(ctx, "resize:1", "resize:2")
	calls := queues.NewCallQueue(b, "support")
	calls.Enqueue(ctx, "ann", 1)

	h := inspector.New([]inspector.Queue{
		inspector.FIFO("jobs", jobs),
		inspector.CallQueue("support", calls, nil),
	}) // read-only: add inspector.WithActions() for the buttons
	h.Sample(ctx) // or: go h.Run(ctx)

	mux := http.NewServeMux()
	mux.Handle("/admin/queues/", http.StripPrefix("/admin/queues", h))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/admin/queues/api/queues")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var idx struct {
		Queues []struct {
			Name  string `json:"name"`
			Kind  string `json:"kind"`
			Depth int64  `json:"depth"`
		} `json:"queues"`
	}
	json.NewDecoder(resp.Body).Decode(&idx)
	for _, q := range idx.Queues {
		fmt.Println(q.Name, q.Kind, q.Depth)
	}
	// Output:
	// jobs fifo 2
	// support call 1
}
