package respbench

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zlite/zlite/internal/redistest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	redistest.Stop()
	os.Exit(code)
}

// TestRun runs a tiny benchmark: every row has both figures, and the table
// renders them.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: runs redis-benchmark")
	}
	rep, err := Run(context.Background(), Config{Tests: "zadd,lpush", Requests: 2000, Random: 100,
		Pipelines: []int{1}, Clients: []int{1}, Duration: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	want := 4 // the go-redis rows
	if rep.Skipped == "" {
		want += 2
	} else {
		t.Logf("redis-benchmark rows skipped: %s", rep.Skipped)
	}
	if len(rep.Rows) != want {
		t.Fatalf("%d rows; want %d:\n%s", len(rep.Rows), want, rep.Markdown())
	}
	for _, r := range rep.Rows {
		if r.Zlite <= 0 || r.Other <= 0 {
			t.Errorf("row %+v lacks a figure", r)
		}
		if !strings.Contains(rep.Markdown(), "| "+r.Workload+" |") {
			t.Errorf("Markdown lacks row %q", r.Workload)
		}
	}
}
