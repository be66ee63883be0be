package inspector_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/inspector"
)

// pausable is a fakeQueue that can be paused.
type pausable struct {
	*fakeQueue
	pmu    sync.Mutex
	paused bool
}

var _ inspector.Pauser = (*pausable)(nil)

func (q *pausable) Stats(ctx context.Context) (inspector.Stats, error) {
	st, err := q.fakeQueue.Stats(ctx)
	st.Paused, _ = q.Paused(ctx)
	return st, err
}

func (q *pausable) set(p bool) bool {
	q.pmu.Lock()
	defer q.pmu.Unlock()
	changed := q.paused != p
	q.paused = p
	return changed
}

func (q *pausable) Pause(context.Context) (bool, error)  { return q.set(true), nil }
func (q *pausable) Resume(context.Context) (bool, error) { return q.set(false), nil }
func (q *pausable) Paused(context.Context) (bool, error) {
	q.pmu.Lock()
	defer q.pmu.Unlock()
	return q.paused, nil
}

// readEvent reads one server-sent event's data line of event type "sample".
func readEvent(t *testing.T, sc *bufio.Scanner) string {
	t.Helper()
	event := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			require.Equal(t, "sample", event, "event type of %q", line)
			return strings.TrimPrefix(line, "data: ")
		}
	}
	require.NoError(t, sc.Err())
	t.Fatal("the stream ended before an event")
	return ""
}

func TestEvents(t *testing.T) {
	calls, _, _, all := fixture()
	h := inspector.New(all, inspector.WithClock(func() time.Time { return t0 }))
	srv, c := serve(t, h)

	t.Run("index", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/admin/events", nil)
		resp, err := c.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, 200, resp.StatusCode)
		assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
		assert.Equal(t, "no-store", resp.Header.Get("Cache-Control"))
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		var first struct {
			Queues []struct {
				Name  string `json:"name"`
				Depth int64  `json:"depth"`
			} `json:"queues"`
		}
		require.NoError(t, json.Unmarshal([]byte(readEvent(t, sc)), &first))
		require.Len(t, first.Queues, 4)
		assert.Equal(t, int64(5), first.Queues[0].Depth)

		// A sample sends the page again, with the change.
		calls.mu.Lock()
		calls.it = append(calls.it, inspector.Item{ID: "c6"})
		calls.mu.Unlock()
		require.NoError(t, h.Sample(t.Context()))
		var second struct {
			Queues []struct {
				Depth   int64 `json:"depth"`
				History []any `json:"history"`
			} `json:"queues"`
		}
		require.NoError(t, json.Unmarshal([]byte(readEvent(t, sc)), &second))
		assert.Equal(t, int64(6), second.Queues[0].Depth)
		assert.Len(t, second.Queues[0].History, 1)
	})

	t.Run("queue", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/admin/events/queues/calls?count=2", nil)
		resp, err := c.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, 200, resp.StatusCode)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		var page struct {
			Name  string `json:"name"`
			Count int64  `json:"count"`
			More  bool   `json:"more"`
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
		}
		require.NoError(t, json.Unmarshal([]byte(readEvent(t, sc)), &page))
		assert.Equal(t, "calls", page.Name)
		assert.Len(t, page.Items, 2)
		assert.True(t, page.More)
	})

	t.Run("ends with the request", func(t *testing.T) {
		// The handler returns when the client goes away: srv.Close (at cleanup)
		// waits for it, and goleak (TestMain) finds no goroutine left.
		ctx, cancel := context.WithCancel(t.Context())
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/admin/events", nil)
		resp, err := c.Do(req)
		require.NoError(t, err)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		readEvent(t, sc)
		cancel()
		resp.Body.Close()
	})

	for _, tt := range []struct {
		name, path string
		code       int
	}{
		{"no such queue", "events/queues/nope", 404},
		{"bad count", "events/queues/calls?count=0", 400},
		{"bad offset", "events/queues/calls?offset=-1", 400},
		{"post", "events", 405},
	} {
		t.Run(tt.name, func(t *testing.T) {
			method := "GET"
			if tt.name == "post" {
				method = "POST"
			}
			req, _ := http.NewRequest(method, srv.URL+"/admin/"+tt.path, nil)
			resp, err := c.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, tt.code, resp.StatusCode)
		})
	}
}

func TestLiveScript(t *testing.T) {
	_, _, _, all := fixture()
	srv, c := serve(t, inspector.New(all))
	code, body := get(t, c, srv.URL+"/admin/static/live.js")
	assert.Equal(t, 200, code)
	assert.Contains(t, body, "EventSource")
	resp, err := c.Get(srv.URL + "/admin/static/live.js")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "text/javascript; charset=utf-8", resp.Header.Get("Content-Type"))
	csp := resp.Header.Get("Content-Security-Policy")
	assert.Contains(t, csp, "script-src 'self'")
	assert.Contains(t, csp, "connect-src 'self'")
	assert.NotContains(t, csp, "unsafe")

	// The index and the queue pages load the script and name their stream; the
	// pages carry no inline script.
	for path, events := range map[string]string{"": `data-events="events"`, "queues/calls?count=2": `data-events="../events/queues/calls?offset=0&amp;count=2"`} {
		_, body := get(t, c, srv.URL+"/admin/"+path)
		assert.Contains(t, body, `<script src="`, path)
		assert.Contains(t, body, events, path)
		assert.NotContains(t, body, "<script>", path)
		assert.NotContains(t, body, " on", "no inline event handler attributes")
	}
}

func TestAuth(t *testing.T) {
	_, _, _, all := fixture()
	var seen []string
	var mu sync.Mutex
	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.Method+" "+r.URL.Path)
			mu.Unlock()
			if r.Header.Get("Authorization") != "Bearer ok" {
				http.Error(w, "login first", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	srv, c := serve(t, inspector.New(all, inspector.WithActions(), inspector.WithAuth(auth), inspector.WithAuth(nil)))
	routes := []struct{ method, path string }{
		{"GET", ""}, {"GET", "queues/calls"}, {"GET", "api/queues"}, {"GET", "api/queues/calls"},
		{"GET", "events"}, {"GET", "events/queues/calls"}, {"GET", "static/style.css"}, {"GET", "static/live.js"},
		{"POST", "queues/calls/cancel"}, {"POST", "api/queues/calls/cancel"}, {"GET", "nope"},
	}
	for _, rt := range routes {
		req, _ := http.NewRequest(rt.method, srv.URL+"/admin/"+rt.path, strings.NewReader("id=c1"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := c.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s %s without credentials", rt.method, rt.path)
		assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"), "security headers on a refusal")
	}
	mu.Lock()
	assert.Len(t, seen, len(routes), "the middleware saw every request")
	mu.Unlock()

	// With credentials the middleware lets requests through, and the cross-origin
	// check still runs inside it.
	req, _ := http.NewRequest("GET", srv.URL+"/admin/api/queues", nil)
	req.Header.Set("Authorization", "Bearer ok")
	resp, err := c.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	req, _ = http.NewRequest("POST", srv.URL+"/admin/api/queues/calls/cancel", strings.NewReader("id=c1"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer ok")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err = c.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "an authenticated cross-site POST")
}

func TestPause(t *testing.T) {
	_, jobs, _, all := fixture()
	p := &pausable{fakeQueue: jobs}
	all[1] = p
	post := func(c *http.Client, u string, hdr map[string]string) *http.Response {
		req, _ := http.NewRequest("POST", u, strings.NewReader(url.Values{}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := c.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}

	t.Run("read-only", func(t *testing.T) {
		srv, c := serve(t, inspector.New(all))
		_, body := get(t, c, srv.URL+"/admin/queues/jobs")
		assert.NotContains(t, body, "Pause the queue")
		assert.Equal(t, 403, post(c, srv.URL+"/admin/queues/jobs/pause", nil).StatusCode)
	})

	srv, c := serve(t, inspector.New(all, inspector.WithActions()))
	_, body := get(t, c, srv.URL+"/admin/queues/jobs")
	assert.Contains(t, body, `action="./jobs/pause"`)
	assert.Contains(t, body, "Pause the queue")
	_, body = get(t, c, srv.URL+"/admin/queues/calls")
	assert.NotContains(t, body, "Pause the queue", "a queue that is no Pauser has no button")

	assert.Equal(t, 403, post(c, srv.URL+"/admin/queues/jobs/pause", map[string]string{"Sec-Fetch-Site": "cross-site"}).StatusCode)
	assert.False(t, p.paused, "a cross-site pause changed nothing")

	resp := post(c, srv.URL+"/admin/queues/jobs/pause", map[string]string{"Sec-Fetch-Site": "same-origin"})
	assert.Equal(t, 303, resp.StatusCode)
	assert.Equal(t, "../jobs?done=pause", resp.Header.Get("Location"))
	assert.True(t, p.paused)
	_, body = get(t, c, srv.URL+"/admin/queues/jobs?done=pause")
	assert.Contains(t, body, "Paused the queue")
	assert.Contains(t, body, `action="./jobs/resume"`)
	assert.Contains(t, body, `data-field="paused"`)
	_, body = get(t, c, srv.URL+"/admin/")
	assert.Contains(t, field(t, body, "jobs", "paused"), "paused")
	_, body = get(t, c, srv.URL+"/admin/api/queues/jobs")
	assert.Contains(t, body, `"paused": true`)

	resp = post(c, srv.URL+"/admin/queues/jobs/pause", nil)
	assert.Equal(t, "../jobs?done=unchanged", resp.Header.Get("Location"), "pausing a paused queue")

	_, body = get(t, c, srv.URL+"/admin/api/queues/jobs")
	req, _ := http.NewRequest("POST", srv.URL+"/admin/api/queues/jobs/resume", nil)
	r2, err := c.Do(req)
	require.NoError(t, err)
	var ok map[string]bool
	require.NoError(t, json.NewDecoder(r2.Body).Decode(&ok))
	r2.Body.Close()
	assert.Equal(t, map[string]bool{"ok": true}, ok)
	assert.False(t, p.paused)
	assert.Contains(t, body, `"paused": true`)

	assert.Equal(t, 400, post(c, srv.URL+"/admin/queues/calls/pause", nil).StatusCode, "a queue that is no Pauser")
	assert.Equal(t, 404, post(c, srv.URL+"/admin/queues/nope/pause", nil).StatusCode)
}
