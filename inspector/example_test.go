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
	"github.com/zlite/zlite/queues/embedded"
)

// An app mounts the inspector under a prefix of its own; a script reads the JSON.
func Example() {
	ctx := context.Background()
	b := embedded.New(zlite.New())
	jobs := queues.NewFIFO(b, "jobs")
	jobs.Push(ctx, "resize:1", "resize:2")
	calls := queues.NewCallQueue(b, "support")
	calls.Enqueue(ctx, "ann", 1)
	calls.Enqueue(ctx, "bob", 5) // a higher priority: served first

	h := inspector.New([]inspector.Queue{
		inspector.FIFO("jobs", jobs),
		inspector.CallQueue("support", calls),
	}) // read-only: add inspector.WithActions() for the buttons
	h.Sample(ctx) // or: go h.Run(ctx)

	mux := http.NewServeMux()
	mux.Handle("/admin/queues/", http.StripPrefix("/admin/queues", h))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	var idx struct {
		Queues []struct {
			Name     string `json:"name"`
			Kind     string `json:"kind"`
			Depth    int64  `json:"depth"`
			Activity struct {
				Enqueued int64 `json:"enqueued"`
			} `json:"activity"`
		} `json:"queues"`
	}
	getJSON(srv.URL+"/admin/queues/api/queues", &idx)
	for _, q := range idx.Queues {
		fmt.Println(q.Name, q.Kind, "depth", q.Depth, "enqueued", q.Activity.Enqueued)
	}
	var page struct {
		Items []struct {
			ID       string  `json:"id"`
			Position int64   `json:"position"`
			Priority float64 `json:"priority"`
		} `json:"items"`
	}
	getJSON(srv.URL+"/admin/queues/api/queues/support?count=10", &page)
	for _, it := range page.Items {
		fmt.Println(it.Position, it.ID, it.Priority)
	}
	// Output:
	// jobs fifo depth 2 enqueued 2
	// support call depth 2 enqueued 2
	// 1 bob 5
	// 2 ann 1
}

func getJSON(url string, v any) {
	resp, err := http.Get(url)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		fmt.Println(err)
	}
}

// The embedding app's login guards every route of the inspector, event streams
// and actions included.
func ExampleWithAuth() {
	requireToken := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer let-me-in" {
				http.Error(w, "log in first", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	h := inspector.New(nil, inspector.WithAuth(requireToken))
	for _, token := range []string{"", "Bearer let-me-in"} {
		req := httptest.NewRequest("GET", "/api/queues", nil)
		if token != "" {
			req.Header.Set("Authorization", token)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Println(rec.Code)
	}
	// Output:
	// 401
	// 200
}
