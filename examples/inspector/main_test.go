package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// lineWriter hands each write to a channel, so the test learns the printed address.
type lineWriter chan string

func (w lineWriter) Write(p []byte) (int, error) { w <- string(p); return len(p), nil }

func TestDemo(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	out := make(lineWriter, 1)
	done := make(chan error, 1)
	go func() { done <- run(ctx, "127.0.0.1:0", true, 5, out) }()
	var line string
	select {
	case line = <-out:
	case err := <-done:
		t.Fatalf("run returned before serving: %v", err)
	}
	u := regexp.MustCompile(`http://\S+/inspector/`).FindString(line)
	if u == "" {
		t.Fatalf("run printed %q; want the page's URL", line)
	}
	for _, page := range []string{"", "queues/support", "queues/nightly%20work", "api/queues", "keys?type=list", "api/keys"} {
		resp, err := http.Get(u + page)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s%s = %d %s", u, page, resp.StatusCode, b)
		}
		if page == "" {
			for _, q := range []string{"emails", "tickets", "renders", "support", "reminders", "nightly", "payments", "tables"} {
				if !strings.Contains(string(b), `data-queue="`+q+`"`) {
					t.Errorf("the index lists no queue %q", q)
				}
			}
			if !strings.Contains(string(b), `<h2 id="keyspace">Keyspace</h2>`) {
				t.Error("the index has no keyspace panel")
			}
		}
	}
	// Every queue reports counters and lists its items.
	for _, q := range []string{"emails", "tickets", "renders", "support", "reminders", "nightly", "nightly%20work", "payments", "tables"} {
		resp, err := http.Get(u + "api/queues/" + q)
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Activity   *struct{ Enqueued int64 } `json:"activity"`
			Items      []json.RawMessage         `json:"items"`
			ItemsError string                    `json:"items_error"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		switch {
		case err != nil:
			t.Errorf("GET api/queues/%s: %v", q, err)
		case page.Activity == nil || page.ItemsError != "" || page.Items == nil:
			t.Errorf("GET api/queues/%s: activity %v, items %v, items_error %q; want counters and a list", q, page.Activity, page.Items, page.ItemsError)
		}
	}
	// Cancelling the first waiting item of each queue: 200 and a JSON verdict
	// (false when a consumer took the item first); with no waiting item, an id
	// that names nothing: 200 and false.
	for _, q := range []string{"emails", "tickets", "renders", "reminders", "nightly", "payments", "support", "tables"} {
		resp, err := http.Get(u + "api/queues/" + q + "?count=1")
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Items []struct{ ID, State string } `json:"items"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("GET api/queues/%s: %v", q, err)
		}
		id, real := "no such item", false
		if len(page.Items) > 0 && (page.Items[0].State == "waiting" || page.Items[0].State == "scheduled") {
			id, real = page.Items[0].ID, true
		}
		resp, err = http.PostForm(u+"api/queues/"+q+"/cancel", url.Values{"id": {id}})
		if err != nil {
			t.Fatal(err)
		}
		var verdict struct{ OK *bool }
		err = json.NewDecoder(resp.Body).Decode(&verdict)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || err != nil || verdict.OK == nil || (!real && *verdict.OK) {
			t.Errorf("POST api/queues/%s/cancel id=%q = %d (%v), ok %v; want 200 and a verdict", q, id, resp.StatusCode, err, verdict.OK)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run after cancel = %v; want nil", err)
	}
}

func TestDemoLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:80", "example.com:80"} {
		if err := run(t.Context(), addr, false, 1, io.Discard); err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Errorf("run(%q) = %v; want a refusal naming loopback", addr, err)
		}
	}
}

func TestBasicAuth(t *testing.T) {
	h := basicAuth("admin", "s3cret")(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "in") }))
	for _, tt := range []struct {
		user, pass string
		set        bool
		code       int
	}{{"", "", false, 401}, {"admin", "wrong", true, 401}, {"root", "s3cret", true, 401}, {"admin", "s3cret", true, 200}} {
		req := httptest.NewRequest("GET", "/inspector/", nil)
		if tt.set {
			req.SetBasicAuth(tt.user, tt.pass)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tt.code {
			t.Errorf("basic auth %q:%q = %d; want %d", tt.user, tt.pass, rec.Code, tt.code)
		}
		if tt.code == 401 && rec.Header().Get("WWW-Authenticate") == "" {
			t.Errorf("a 401 without WWW-Authenticate")
		}
	}
}
