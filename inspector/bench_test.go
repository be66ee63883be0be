package inspector_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/inspector"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
)

// BenchmarkPages renders the index (every queue with full chart history) and a queue
// page of 50 items, in process, without the network.
func BenchmarkPages(b *testing.B) {
	for _, n := range []int{1, 10} {
		qs := make([]inspector.Queue, n)
		for i := range qs {
			q := &fakeQueue{name: fmt.Sprintf("q%d", i), kind: inspector.KindCall, st: inspector.Stats{Activity: &inspector.Activity{}}}
			for j := range 200 {
				q.it = append(q.it, inspector.Item{ID: fmt.Sprint(j), Priority: float64(j % 3), Enqueued: t0})
			}
			qs[i] = q
		}
		now := t0
		h := inspector.New(qs, inspector.WithClock(func() time.Time { return now }))
		for range 120 { // a full history
			h.Sample(b.Context())
			now = now.Add(time.Second)
		}
		for _, p := range []struct{ name, path string }{{"index", "/"}, {"queue", "/queues/q0"}, {"json", "/api/queues"}} {
			b.Run(fmt.Sprintf("page=%s/queues=%d", p.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					w := httptest.NewRecorder()
					h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, p.path, nil))
					if w.Code != http.StatusOK {
						b.Fatal(w.Code)
					}
				}
			})
		}
	}
}

// BenchmarkCallQueuePage reads one page of 50 calls through the adapter from call
// queues of growing size: the cost is the queue's paged Items, O(log n + k), not a
// read of every call.
func BenchmarkCallQueuePage(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		calls := queues.NewCallQueue(embedded.New(zlite.New()), "calls")
		for i := range n {
			if err := calls.Enqueue(b.Context(), strconv.Itoa(i), float64(i%5)); err != nil {
				b.Fatal(err)
			}
		}
		q := inspector.CallQueue("calls", calls)
		b.Run(fmt.Sprintf("op=items/n=%d/impl=adapter", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				it, err := q.Items(b.Context(), int64(n/2), 50)
				if err != nil || len(it) != 50 {
					b.Fatal(len(it), err)
				}
			}
		})
	}
}
