package queuevar_test

import (
	"context"
	"encoding/json"
	"errors"
	"expvar"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
	"github.com/zlite/zlite/queues/queuevar"
)

// TestPublish: a published queue shows its Stats as JSON on /debug/vars, and a
// failing Stats shows its error.
func TestPublish(t *testing.T) {
	start := time.Now()
	q := queues.NewFIFO(embedded.New(zlite.New()), "published", queues.WithClock(func() time.Time { return start }))
	require.NoError(t, q.Push(context.Background(), "a"))
	queuevar.Publish("zlite.queues.published", q, 0)
	queuevar.Publish("zlite.queues.failing", failing{}, time.Second)

	rec := httptest.NewRecorder()
	expvar.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/vars", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	var vars struct {
		Published queues.Stats      `json:"zlite.queues.published"`
		Failing   map[string]string `json:"zlite.queues.failing"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &vars))
	require.Equal(t, queues.Stats{Name: "published", Type: "fifo", Depth: 1, Enqueued: 1}, vars.Published)
	require.Equal(t, map[string]string{"error": "down"}, vars.Failing)
}

type failing struct{}

func (failing) Stats(context.Context) (queues.Stats, error) {
	return queues.Stats{}, errors.New("down")
}

// Publish serves a queue's live Stats on /debug/vars.
func ExamplePublish() {
	ctx := context.Background()
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	now := start
	q := queues.NewFIFO(embedded.New(zlite.New()), "mail", queues.WithClock(func() time.Time { return now }))
	q.Push(ctx, "a", "b")
	now = start.Add(time.Second)
	queuevar.Publish("queues.mail", q, time.Second)
	fmt.Println(expvar.Get("queues.mail"))
	// Output:
	// {"name":"mail","type":"fifo","depth":2,"oldest_age_ns":0,"has_age":false,"blocked":0,"enqueued":2,"dequeued":0,"uptime_ns":1000000000}
}
