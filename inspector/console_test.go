package inspector_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/inspector"
)

// withDead is a fakeQueue with a dead-letter list: its items in StateDead.
type withDead struct{ *fakeQueue }

var _ inspector.DeadLetters = withDead{}

func (q withDead) DeadItems(_ context.Context, offset, count int64) ([]inspector.Item, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var dead []inspector.Item
	for _, it := range q.it {
		if it.State == inspector.StateDead {
			it.Position = int64(len(dead)) + 1
			dead = append(dead, it)
		}
	}
	lo, hi := min(offset, int64(len(dead))), min(offset+count, int64(len(dead)))
	return dead[lo:hi], nil
}

func (q withDead) RetryAllDead(context.Context) (int64, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var n int64
	for i := range q.it {
		if q.it[i].State == inspector.StateDead {
			q.it[i].State = inspector.StateWaiting
			n++
		}
	}
	return n, nil
}

func (q withDead) DeleteDead(_ context.Context, id string) (bool, error) {
	return q.take(id, inspector.StateDead), nil
}

// deadFixture is the fixture with the reliable queue "jobs" given two more dead
// items, with attempts and errors, and a dead-letter list.
func deadFixture() (*fakeQueue, []inspector.Queue) {
	_, jobs, _, all := fixture()
	jobs.it[3].Attempt, jobs.it[3].LastError, jobs.it[3].Died = 3, "card <declined>", t0.Add(-time.Minute)
	jobs.it = append(jobs.it,
		inspector.Item{ID: "r5", Value: "pay 5", State: inspector.StateDead, Attempt: 1, Died: t0},
		inspector.Item{ID: "r6", Value: "pay 6", State: inspector.StateDead, Attempt: 2, LastError: "lease expired", Died: t0})
	jobs.st.Dead = 3
	all[1] = withDead{jobs}
	return jobs, all
}

func postForm(t *testing.T, c *http.Client, u string, form url.Values, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("POST", u, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestItemPage(t *testing.T) {
	jobs, all := deadFixture()
	jobs.it[0].Value = "<script>\x00\xff"
	jobs.it[0].Enqueued = t0.Add(-time.Minute)
	srv, c := serve(t, inspector.New(all, inspector.WithActions(), inspector.WithClock(func() time.Time { return t0 })))

	code, body := get(t, c, srv.URL+"/admin/queues/jobs/item?id=r4")
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `data-field="state" class="state state-dead">dead</dd>`)
	assert.Contains(t, body, `data-field="attempt">3</dd>`)
	assert.Contains(t, body, "card &lt;declined&gt;")
	assert.Contains(t, body, `data-field="died"`)
	assert.Contains(t, body, `action="./revive"`)
	assert.Contains(t, body, `action="./delete"`)

	_, body = get(t, c, srv.URL+"/admin/queues/jobs/item?id=r1")
	assert.Contains(t, body, `data-field="payload">&lt;script&gt;\x00\xff</pre>`, "escaped as the key browser does")
	assert.Contains(t, body, "(1m0s ago)")
	assert.Contains(t, body, `action="./cancel"`)
	_, body = get(t, c, srv.URL+"/admin/queues/jobs/item?id=r2")
	assert.Contains(t, body, `data-field="lease"`)
	assert.NotContains(t, body, `method="post"`, "a running lease has no action")

	code, body = get(t, c, srv.URL+"/admin/api/queues/jobs/item?id=r4")
	require.Equal(t, 200, code)
	var it map[string]any
	require.NoError(t, json.Unmarshal([]byte(body), &it))
	assert.Equal(t, "card <declined>", it["last_error"])
	assert.EqualValues(t, 3, it["attempt"])
	assert.Equal(t, "dead", it["state"])
	assert.Equal(t, t0.Add(-time.Minute).Format(time.RFC3339), it["died"])

	for _, tt := range []struct {
		path string
		code int
	}{
		{"queues/jobs/item?id=nope", 404},
		{"api/queues/jobs/item?id=nope", 404},
		{"queues/jobs/item", 400},
		{"queues/nope/item?id=r1", 404},
		{"queues/" + url.PathEscape(hostile) + "/item?id=x", 404}, // lists nothing
	} {
		code, _ := get(t, c, srv.URL+"/admin/"+tt.path)
		assert.Equal(t, tt.code, code, tt.path)
	}
}

func TestDeadPage(t *testing.T) {
	jobs, all := deadFixture()
	srv, c := serve(t, inspector.New(all, inspector.WithActions(), inspector.WithPageSize(2), inspector.WithClock(func() time.Time { return t0 })))

	_, body := get(t, c, srv.URL+"/admin/queues/jobs")
	assert.Contains(t, body, `href="./jobs/dead"`, "the queue page links to its dead letters")
	code, body := get(t, c, srv.URL+"/admin/queues/jobs/dead")
	require.Equal(t, 200, code, body)
	assert.Contains(t, body, `<tr data-id="r4">`)
	assert.Contains(t, body, `<tr data-id="r5">`)
	assert.NotContains(t, body, `<tr data-id="r6">`, "page size 2")
	assert.Contains(t, body, `href="dead?offset=2"`)
	assert.Contains(t, body, "card &lt;declined&gt;")
	assert.Contains(t, body, `aria-label="Retry r4"`)
	assert.Contains(t, body, `aria-label="Delete r4"`)
	assert.Contains(t, body, `action="./retry-all"`)

	code, body = get(t, c, srv.URL+"/admin/api/queues/jobs/dead?offset=1&count=5")
	require.Equal(t, 200, code)
	var page struct {
		Items []struct {
			ID        string `json:"id"`
			Attempt   int64  `json:"attempt"`
			LastError string `json:"last_error"`
		} `json:"items"`
		More bool `json:"more"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &page))
	require.Len(t, page.Items, 2)
	assert.Equal(t, "r6", page.Items[1].ID)
	assert.Equal(t, "lease expired", page.Items[1].LastError)
	assert.False(t, page.More)

	for _, tt := range []struct {
		path string
		code int
	}{
		{"queues/calls/dead", 404}, // no dead-letter list
		{"queues/nope/dead", 404},
		{"queues/jobs/dead?count=0", 400},
		{"api/queues/jobs/dead?offset=x", 400},
	} {
		code, _ := get(t, c, srv.URL+"/admin/"+tt.path)
		assert.Equal(t, tt.code, code, tt.path)
	}

	// Delete one from the dead-letter page: back to it, with the flash.
	resp, _ := postForm(t, c, srv.URL+"/admin/queues/jobs/delete", url.Values{"id": {"r5"}, "back": {"dead"}})
	assert.Equal(t, 303, resp.StatusCode)
	assert.Equal(t, "dead?done=delete&id=r5", resp.Header.Get("Location"))
	_, body = get(t, c, srv.URL+"/admin/queues/jobs/dead?done=delete&id=r5")
	assert.Contains(t, body, `Deleted &#34;r5&#34; for good.`)
	assert.NotContains(t, body, `data-id="r5"`)
	// Retry all: the rest are waiting again.
	resp, _ = postForm(t, c, srv.URL+"/admin/queues/jobs/retry-all", url.Values{"back": {"dead"}})
	assert.Equal(t, "dead?done=retry-all&n=2", resp.Header.Get("Location"))
	_, body = get(t, c, srv.URL+"/admin/queues/jobs/dead?done=retry-all&n=2")
	assert.Contains(t, body, "Moved 2 dead items back to the queue.")
	assert.Contains(t, body, "No dead letters.")
	resp, body = postForm(t, c, srv.URL+"/admin/api/queues/jobs/retry-all", nil)
	assert.Equal(t, 200, resp.StatusCode)
	assert.JSONEq(t, `{"ok":false,"count":0}`, body)
	resp, _ = postForm(t, c, srv.URL+"/admin/queues/calls/retry-all", nil)
	assert.Equal(t, 400, resp.StatusCode, "no dead-letter list")
	resp, _ = postForm(t, c, srv.URL+"/admin/queues/calls/delete", url.Values{"id": {"c1"}})
	assert.Equal(t, 400, resp.StatusCode, "no dead-letter list")
	resp, _ = postForm(t, c, srv.URL+"/admin/queues/jobs/retry-all", nil, "Sec-Fetch-Site", "cross-site")
	assert.Equal(t, 403, resp.StatusCode)
	assert.Len(t, jobs.it, 5)
}

func TestSearch(t *testing.T) {
	_, all := deadFixture()
	srv, c := serve(t, inspector.New(all, inspector.WithActions()))
	_, body := get(t, c, srv.URL+"/admin/queues/jobs?q=pay+5")
	assert.Contains(t, body, `data-id="r5"`)
	assert.NotContains(t, body, `data-id="r1"`)
	assert.Contains(t, body, "Showing the 1 of 6 items of this page")
	_, body = get(t, c, srv.URL+"/admin/queues/jobs?q=r")
	assert.Contains(t, body, "Showing the 6 of 6")
	_, body = get(t, c, srv.URL+"/admin/queues/jobs?q=%3Cnothing%3E")
	assert.Contains(t, body, "No item of this page matches.")
	assert.Contains(t, body, `value="&lt;nothing&gt;"`)
	_, body = get(t, c, srv.URL+"/admin/queues/jobs")
	assert.Contains(t, body, `action="./jobs/item"`, "the exact-id form opens the item page")
}

func TestBulk(t *testing.T) {
	tests := []struct {
		name     string
		path     string
		form     url.Values
		hdr      []string
		actions  bool
		code     int
		location string
		body     string   // contained in the answer
		left     []string // the jobs' ids after
	}{
		{name: "read-only", path: "queues/jobs/bulk", form: url.Values{"action": {"delete"}, "id": {"r4"}}, code: 403},
		{name: "cross-site", actions: true, path: "queues/jobs/bulk", form: url.Values{"action": {"delete"}, "id": {"r4"}, "confirm": {"yes"}},
			hdr: []string{"Sec-Fetch-Site", "cross-site"}, code: 403},
		{name: "confirm page", actions: true, path: "queues/jobs/bulk", form: url.Values{"action": {"delete"}, "id": {"r4", "r5"}}, code: 200,
			body: `<input type="hidden" name="id" value="r5">`},
		{name: "confirmed", actions: true, path: "queues/jobs/bulk", form: url.Values{"action": {"delete"}, "id": {"r4", "r5", "r1"}, "confirm": {"yes"}},
			code: 303, location: "../jobs?done=bulk&n=2&missing=1", left: []string{"r1", "r2", "r3", "r6"}},
		{name: "confirmed from the dead page", actions: true, path: "queues/jobs/bulk", form: url.Values{"action": {"revive"}, "id": {"r4", "r6"}, "confirm": {"yes"}, "back": {"dead"}},
			code: 303, location: "dead?done=bulk&n=2&missing=0"},
		{name: "API", actions: true, path: "api/queues/jobs/bulk", form: url.Values{"action": {"cancel"}, "id": {"r1", "r2"}},
			code: 200, body: `"done": 1`, left: []string{"r2", "r3", "r4", "r5", "r6"}},
		{name: "no ids", actions: true, path: "queues/jobs/bulk", form: url.Values{"action": {"delete"}}, code: 400},
		{name: "bad action", actions: true, path: "queues/jobs/bulk", form: url.Values{"action": {"explode"}, "id": {"r1"}}, code: 400},
		{name: "unsupported", actions: true, path: "queues/calls/bulk", form: url.Values{"action": {"delete"}, "id": {"c1"}}, code: 400},
		{name: "no queue", actions: true, path: "queues/nope/bulk", form: url.Values{"action": {"delete"}, "id": {"c1"}}, code: 404},
		{name: "too many", actions: true, path: "api/queues/jobs/bulk", form: url.Values{"action": {"delete"}, "id": make([]string, 0)}, code: 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobs, all := deadFixture()
			var opts []inspector.Option
			if tt.actions {
				opts = append(opts, inspector.WithActions())
			}
			srv, c := serve(t, inspector.New(all, opts...))
			hdr := tt.hdr
			if tt.name == "too many" {
				for i := range inspector.MaxPageSize + 1 {
					tt.form.Add("id", "x"+string(rune('a'+i%26)))
				}
			}
			resp, body := postForm(t, c, srv.URL+"/admin/"+tt.path, tt.form, hdr...)
			require.Equal(t, tt.code, resp.StatusCode, body)
			assert.Equal(t, tt.location, resp.Header.Get("Location"))
			assert.Contains(t, body, tt.body)
			if tt.left != nil {
				var ids []string
				for _, it := range jobs.it {
					ids = append(ids, it.ID)
				}
				assert.Equal(t, tt.left, ids)
			}
			if tt.code != 303 && tt.code != 200 || tt.name == "confirm page" {
				assert.Len(t, jobs.it, 6, "nothing changed")
			}
		})
	}

	// The queue page offers the bulk form with the queue's actions, and checkboxes.
	_, all := deadFixture()
	srv, c := serve(t, inspector.New(all, inspector.WithActions()))
	_, body := get(t, c, srv.URL+"/admin/queues/jobs")
	assert.Contains(t, body, `<form id="bulk" method="post" action="./jobs/bulk"`)
	assert.Contains(t, body, `<input type="checkbox" name="id" value="r1" form="bulk"`)
	for _, op := range []string{"cancel", "requeue", "revive", "delete"} {
		assert.Contains(t, body, `<option value="`+op+`">`)
	}
	assert.Contains(t, body, `<dialog id="bulk-confirm"`)
}
