package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
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
	for _, page := range []string{"", "queues/support", "queues/nightly%20work", "api/queues"} {
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
