package inspector_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/inspector"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

const hostile = `a:b/c <x>&"`

// fixture returns the test queues: a call queue with five calls, a reliable queue
// with an item in each state, a delayed queue with lateness, and a queue with a
// hostile name that lists nothing.
func fixture() (calls, jobs, later *fakeQueue, all []inspector.Queue) {
	calls = &fakeQueue{name: "calls", kind: inspector.KindCall, st: inspector.Stats{
		Oldest: 10 * time.Second, HasOldest: true,
		Activity: &inspector.Activity{Blocked: 2, Enqueued: 40, Dequeued: 35, Cancelled: 3},
	}}
	for i, id := range []string{"c1", "c2", "c3", "c4", "c5"} {
		calls.it = append(calls.it, inspector.Item{ID: id, Priority: float64(5 - i), Enqueued: t0.Add(-time.Duration(10-i) * time.Second)})
	}
	jobs = &fakeQueue{name: "jobs", kind: inspector.KindReliable, st: inspector.Stats{InFlight: 2, Dead: 1,
		Activity: &inspector.Activity{Enqueued: 9, Dequeued: 8, Acked: 4, Requeued: 2, Expired: 1, DeadLettered: 3}}, it: []inspector.Item{
		{ID: "r1", Value: "pay 1", State: inspector.StateWaiting},
		{ID: "r2", Value: "pay 2", State: inspector.StateLeased, LeaseExpiry: t0.Add(5 * time.Second)},
		{ID: "r3", Value: "pay 3", State: inspector.StateExpired, LeaseExpiry: t0.Add(-2 * time.Second)},
		{ID: "r4", Value: "pay 4", State: inspector.StateDead},
	}}
	later = &fakeQueue{name: "later", kind: inspector.KindDelayed, st: inspector.Stats{
		Lateness: &inspector.Lateness{Count: 9, P50: 2 * time.Millisecond, P99: 40 * time.Millisecond, Max: 1500 * time.Millisecond},
	}, it: []inspector.Item{{ID: "d1", Value: "remind", State: inspector.StateScheduled, Due: t0.Add(3 * time.Second)}}}
	return calls, jobs, later, []inspector.Queue{calls, jobs, later, lenOnly{name: hostile}}
}

// serve mounts h under /admin/ as an app would and returns the server and a client
// that does not follow redirects.
func serve(t *testing.T, h http.Handler) (*httptest.Server, *http.Client) {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/admin/", http.StripPrefix("/admin", h))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c := srv.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return srv, c
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// field returns the text of the cell data-field=name in the index row of queue q.
func field(t *testing.T, body, q, name string) string {
	t.Helper()
	row := regexp.MustCompile(`(?s)<tr data-queue="` + regexp.QuoteMeta(q) + `">(.*?)</tr>`).FindStringSubmatch(body)
	require.NotNil(t, row, "no row for queue %q", q)
	m := regexp.MustCompile(`data-field="` + name + `">(.*?)</td>`).FindStringSubmatch(row[1])
	require.NotNil(t, m, "no field %q in the row of %q", name, q)
	return regexp.MustCompile(`<[^>]*>`).ReplaceAllString(m[1], "")
}

func TestIndex(t *testing.T) {
	_, _, _, all := fixture()
	srv, c := serve(t, inspector.New(all, inspector.WithClock(func() time.Time { return t0 })))
	code, body := get(t, c, srv.URL+"/admin/")
	require.Equal(t, http.StatusOK, code)
	tests := []struct{ queue, field, want string }{
		{"calls", "depth", "5"},
		{"calls", "blocked", "2"},
		{"calls", "oldest", "10s"},
		{"calls", "lateness", "n/a"},
		{"jobs", "depth", "1"},
		{"jobs", "in_flight", "2"},
		{"jobs", "dead", "1"},
		{"calls", "dead", "0"},
		{"jobs", "blocked", "0"},
		{"jobs", "oldest", "n/a"},
		{"later", "lateness", "2ms / 40ms / 1.5s (9 delivered)"},
		{"a:b/c &lt;x&gt;&amp;&#34;", "depth", "7"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, field(t, body, tt.queue, tt.field), "%s %s", tt.queue, tt.field)
	}
	assert.NotContains(t, body, "<x>", "a queue name must be escaped")
	assert.Contains(t, body, `<a class="skip" href="#main">`)
	assert.Contains(t, body, "Read-only")
	assert.Contains(t, body, "depth: no samples yet")
}

// TestLinks follows every link of every page, as a browser resolves them, from a
// mount under /admin/: each must stay under /admin/ and load.
func TestLinks(t *testing.T) {
	_, _, _, all := fixture()
	srv, c := serve(t, inspector.New(all, inspector.WithActions(), inspector.WithPageSize(2)))
	attr := regexp.MustCompile(`(href|action)="([^"]*)"`)
	seen := map[string]bool{}
	todo := []string{srv.URL + "/admin/"}
	for len(todo) > 0 {
		page := todo[0]
		todo = todo[1:]
		code, body := get(t, c, page)
		require.Equal(t, http.StatusOK, code, "GET %s", page)
		if !strings.Contains(body, "<html") {
			continue // JSON or CSS
		}
		base, _ := url.Parse(page)
		for _, m := range attr.FindAllStringSubmatch(body, -1) {
			ref, err := url.Parse(strings.ReplaceAll(m[2], "&amp;", "&"))
			require.NoError(t, err, m[2])
			u := base.ResolveReference(ref)
			u.Fragment = ""
			require.True(t, strings.HasPrefix(u.Path, "/admin/"), "%s on %s leads to %s", m[0], page, u)
			if m[1] == "action" {
				assert.Regexp(t, `^/admin/queues/[^/]+(/(cancel|requeue|revive|delete|retry-all|pause|resume|bulk|item))?$`, u.EscapedPath(), "form on %s", page)
				continue
			}
			if !seen[u.String()] {
				seen[u.String()] = true
				todo = append(todo, u.String())
			}
		}
	}
	for _, want := range []string{
		"/admin/queues/calls", "/admin/queues/calls?offset=2", "/admin/queues/a:b%2Fc%20%3Cx%3E&%22",
		"/admin/api/queues", "/admin/api/queues/jobs", "/admin/static/style.css",
	} {
		assert.True(t, seen[srv.URL+want], "no link to %s; links: %v", want, seen)
	}
}

func TestQueuePage(t *testing.T) {
	_, _, _, all := fixture()
	srv, c := serve(t, inspector.New(all, inspector.WithActions(), inspector.WithClock(func() time.Time { return t0 })))
	tests := []struct {
		name, path string
		code       int
		want, not  []string
	}{
		{"call queue in serving order", "calls?count=2", 200,
			[]string{`data-id="c1"`, `data-id="c2"`, "10s", `data-field="blocked">2<`, `rel="next"`, `action="./calls/cancel"`},
			[]string{`data-id="c3"`, `rel="prev"`}},
		{"second page", "calls?offset=4&count=2", 200,
			[]string{`data-id="c5"`, `href="./calls?offset=2&amp;count=2" rel="prev"`, "Positions 5 to 5"},
			[]string{`data-id="c4"`, `rel="next"`}},
		{"past the end", "calls?offset=99", 200, []string{"No items from position 100 on."}, []string{"<table"}},
		{"reliable: states, leases and their actions", "jobs", 200,
			[]string{">leased<", ">expired<", ">dead<", `data-field="dead">1<`, `data-field="dead_lettered">3<`, `data-field="requeued">2<`, "(in 5s)", "(2s ago)", `action="./jobs/requeue"`, `action="./jobs/revive"`, `aria-label="Requeue r3"`, `aria-label="Move back r4"`},
			[]string{`aria-label="Cancel r2"`, `aria-label="Requeue r2"`}},
		{"call queue: no dead-letter figures", "calls", 200, []string{`data-field="cancelled">3<`}, []string{`data-field="dead"`, `data-field="dead_lettered"`}},
		{"delayed: due time", "later", 200, []string{"03:04:08.000", "(in 3s)", "2ms / 40ms / 1.5s"}, nil},
		{"unlisted", url.PathEscape(hostile), 200, []string{"This queue does not list its items.", "a:b/c &lt;x&gt;"}, []string{"<x>", "Action</th>"}},
		{"unknown queue", "nope", 404, []string{`no queue named "nope"`}, nil},
		{"negative offset", "calls?offset=-1", 400, []string{"offset must be"}, nil},
		{"huge offset", "calls?offset=9223372036854775807", 400, []string{"offset must be an integer from 0 to 4611686018427387904"}, nil},
		{"count too large", "calls?count=501", 400, []string{"count must be an integer from 1 to 500"}, nil},
		{"count not a number", "calls?count=x", 400, []string{"count must be"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := get(t, c, srv.URL+"/admin/queues/"+tt.path)
			require.Equal(t, tt.code, code, body)
			for _, w := range tt.want {
				assert.Contains(t, body, w)
			}
			for _, n := range tt.not {
				assert.NotContains(t, body, n)
			}
		})
	}
}

func TestReadOnlyPagesHaveNoForms(t *testing.T) {
	_, _, _, all := fixture()
	srv, c := serve(t, inspector.New(all))
	for _, q := range []string{"calls", "jobs", "later"} {
		_, body := get(t, c, srv.URL+"/admin/queues/"+q)
		assert.NotContains(t, body, `method="post"`, q)
		assert.NotContains(t, body, `type="checkbox"`, q)
		assert.Contains(t, body, `role="search"`, q, "the search forms are GET forms")
		assert.Contains(t, body, "Read-only", q)
	}
}

func TestActions(t *testing.T) {
	tests := []struct {
		name     string
		actions  bool
		path, id string
		header   map[string]string
		code     int
		location string // for the HTML forms
		json     string // for the API
		gone     string // an id that must have left the calls queue
	}{
		{name: "read-only form", path: "queues/calls/cancel", id: "c2", code: 403},
		{name: "read-only API", path: "api/queues/calls/cancel", id: "c2", code: 403, json: `{"error":"actions are disabled: this inspector is read-only"}`},
		{name: "cross-site form", actions: true, path: "queues/calls/cancel", id: "c2", header: map[string]string{"Sec-Fetch-Site": "cross-site"}, code: 403},
		{name: "foreign origin", actions: true, path: "queues/calls/cancel", id: "c2", header: map[string]string{"Origin": "https://evil.example"}, code: 403},
		{name: "cancel", actions: true, path: "queues/calls/cancel", id: "c2", header: map[string]string{"Sec-Fetch-Site": "same-origin"}, code: 303, location: "../calls?done=cancel&id=c2", gone: "c2"},
		{name: "cancel, already gone", actions: true, path: "queues/calls/cancel", id: "zz", code: 303, location: "../calls?done=missing&id=zz"},
		{name: "API cancel", actions: true, path: "api/queues/calls/cancel", id: "c5", code: 200, json: `{"ok":true}`, gone: "c5"},
		{name: "API requeue of a running lease", actions: true, path: "api/queues/jobs/requeue", id: "r2", code: 200, json: `{"ok":false}`},
		{name: "API requeue", actions: true, path: "api/queues/jobs/requeue", id: "r3", code: 200, json: `{"ok":true}`},
		{name: "API revive", actions: true, path: "api/queues/jobs/revive", id: "r4", code: 200, json: `{"ok":true}`},
		{name: "no id", actions: true, path: "queues/calls/cancel", code: 400},
		{name: "unknown action", actions: true, path: "api/queues/calls/explode", id: "c1", code: 404, json: `{"error":"no action \"explode\" (cancel, requeue, revive, delete, retry-all, pause, resume)"}`},
		{name: "unsupported action", actions: true, path: "api/queues/" + url.PathEscape(hostile) + "/cancel", id: "c1", code: 400},
		{name: "unknown queue", actions: true, path: "queues/nope/cancel", id: "c1", code: 404},
		{name: "GET is not an action", actions: true, path: "queues/calls/cancel?id=c1", code: 405},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, _, _, all := fixture()
			var opts []inspector.Option
			if tt.actions {
				opts = append(opts, inspector.WithActions())
			}
			srv, c := serve(t, inspector.New(all, opts...))
			method, body := http.MethodPost, strings.NewReader(url.Values{"id": {tt.id}}.Encode())
			if tt.name == "GET is not an action" {
				method = http.MethodGet
			}
			req, err := http.NewRequest(method, srv.URL+"/admin/"+tt.path, body)
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			resp, err := c.Do(req)
			require.NoError(t, err)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.Equal(t, tt.code, resp.StatusCode, string(b))
			assert.Equal(t, tt.location, resp.Header.Get("Location"))
			if tt.json != "" {
				assert.JSONEq(t, tt.json, string(b))
			}
			want := 5
			if tt.gone != "" {
				want = 4
				for _, it := range calls.it {
					assert.NotEqual(t, tt.gone, it.ID, "cancelled call still queued")
				}
			}
			assert.Len(t, calls.it, want, "calls left")
		})
	}
}

func TestActionBodyLimit(t *testing.T) {
	_, _, _, all := fixture()
	srv, c := serve(t, inspector.New(all, inspector.WithActions()))
	big := "id=" + strings.Repeat("x", 100<<10)
	resp, err := c.Post(srv.URL+"/admin/queues/calls/cancel", "application/x-www-form-urlencoded", strings.NewReader(big))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}

func TestJSON(t *testing.T) {
	_, _, _, all := fixture()
	h := inspector.New(all, inspector.WithClock(func() time.Time { return t0 }))
	srv, c := serve(t, h)
	require.NoError(t, h.Sample(t.Context()))

	code, body := get(t, c, srv.URL+"/admin/api/queues")
	require.Equal(t, http.StatusOK, code)
	var idx struct {
		Actions bool `json:"actions"`
		Queues  []map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(body), &idx))
	assert.False(t, idx.Actions)
	require.Len(t, idx.Queues, 4)
	calls := idx.Queues[0]
	assert.Equal(t, "calls", calls["name"])
	assert.Equal(t, "call", calls["kind"])
	assert.EqualValues(t, 5, calls["depth"])
	assert.EqualValues(t, 10, calls["oldest_seconds"])
	assert.Equal(t, map[string]any{"blocked": 2.0, "enqueued": 40.0, "dequeued": 35.0, "acked": 0.0, "requeued": 0.0, "expired": 0.0, "dead_lettered": 0.0, "cancelled": 3.0}, calls["activity"])
	assert.EqualValues(t, 1, idx.Queues[1]["dead"])
	assert.EqualValues(t, 3, idx.Queues[1]["activity"].(map[string]any)["dead_lettered"])
	assert.Nil(t, calls["lateness"])
	assert.Nil(t, idx.Queues[1]["oldest_seconds"], "a queue that records no times")
	assert.EqualValues(t, 0, idx.Queues[1]["due"])
	assert.Nil(t, calls["throughput_per_second"], "one sample gives no rate")
	assert.Equal(t, []any{map[string]any{"at": "2026-01-02T03:04:05Z", "depth": 5.0}}, calls["history"])
	assert.Equal(t, map[string]any{"count": 9.0, "p50_seconds": 0.002, "p99_seconds": 0.04, "max_seconds": 1.5}, idx.Queues[2]["lateness"])

	code, body = get(t, c, srv.URL+"/admin/api/queues/jobs?offset=1&count=2")
	require.Equal(t, http.StatusOK, code)
	var page struct {
		Name   string           `json:"name"`
		Offset int64            `json:"offset"`
		Count  int64            `json:"count"`
		More   bool             `json:"more"`
		Items  []map[string]any `json:"items"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &page))
	assert.Equal(t, "jobs", page.Name)
	assert.Equal(t, int64(1), page.Offset)
	assert.Equal(t, int64(2), page.Count)
	assert.True(t, page.More)
	assert.Equal(t, []map[string]any{
		{"id": "r2", "value": "pay 2", "position": 2.0, "state": "leased", "priority": 0.0, "lease_expiry": "2026-01-02T03:04:10Z"},
		{"id": "r3", "value": "pay 3", "position": 3.0, "state": "expired", "priority": 0.0, "lease_expiry": "2026-01-02T03:04:03Z"},
	}, page.Items)

	code, body = get(t, c, srv.URL+"/admin/api/queues/"+url.PathEscape(hostile))
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `"items_error": "this queue does not list its items"`)
	assert.Contains(t, body, `"items": []`)

	code, body = get(t, c, srv.URL+"/admin/api/queues/nope")
	assert.Equal(t, http.StatusNotFound, code)
	assert.JSONEq(t, `{"error":"no queue named \"nope\""}`, body)
}

func TestNewPanics(t *testing.T) {
	tests := []struct {
		name   string
		queues []inspector.Queue
		opts   []inspector.Option
	}{
		{"duplicate name", []inspector.Queue{lenOnly{"a"}, lenOnly{"a"}}, nil},
		{"empty name", []inspector.Queue{lenOnly{""}}, nil},
		{"bad trusted origin", nil, []inspector.Option{inspector.WithTrustedOrigins("not an origin")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Panics(t, func() { inspector.New(tt.queues, tt.opts...) })
		})
	}
}

func TestQueueErrors(t *testing.T) {
	broken := &fakeQueue{name: "broken", kind: inspector.KindFIFO, err: errors.New("backend down")}
	srv, c := serve(t, inspector.New([]inspector.Queue{broken}))
	_, body := get(t, c, srv.URL+"/admin/")
	assert.Contains(t, body, `<p class="error" role="alert">Error: backend down</p>`)
	code, body := get(t, c, srv.URL+"/admin/queues/broken")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, "Error reading the figures: backend down")
	assert.Contains(t, body, "Error reading the items: backend down")
	_, body = get(t, c, srv.URL+"/admin/api/queues/broken")
	assert.Contains(t, body, `"error": "backend down"`)
	assert.Contains(t, body, `"items_error": "backend down"`)
}

// TestMountWithSlash mounts the handler with http.StripPrefix("/x/"), which leaves
// paths without their leading slash.
func TestMountWithSlash(t *testing.T) {
	_, _, _, all := fixture()
	mux := http.NewServeMux()
	mux.Handle("/x/", http.StripPrefix("/x/", inspector.New(all)))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, p := range []string{"/x/", "/x/queues/calls", "/x/api/queues", "/x/static/style.css"} {
		code, body := get(t, srv.Client(), srv.URL+p)
		assert.Equal(t, http.StatusOK, code, "GET %s: %s", p, body)
	}
}

func TestSecurityHeaders(t *testing.T) {
	srv, c := serve(t, inspector.New(nil))
	resp, err := c.Get(srv.URL + "/admin/")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'none'")
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")
}
