package respbench

import (
	"bufio"
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/zlite/zlite/internal/redistest"
)

func TestMain(m *testing.M) {
	ServeIfChild()
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

// TestChildServer starts the server process, talks RESP to it and stops it: the
// process must be gone afterwards (its port refuses connections).
func TestChildServer(t *testing.T) {
	addr, stop, err := ChildServer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		stop()
		t.Fatal(err)
	}
	_, _ = c.Write([]byte("*3\r\n$4\r\nZADD\r\n$1\r\nz\r\n$1\r\n1\r\n"))
	_, _ = c.Write([]byte("*4\r\n$4\r\nZADD\r\n$1\r\nz\r\n$1\r\n1\r\n$1\r\nm\r\n"))
	_, _ = c.Write([]byte("PING\r\n"))
	br := bufio.NewReader(c)
	for _, want := range []string{"-ERR wrong number of arguments for 'zadd' command\r\n", ":1\r\n", "+PONG\r\n"} {
		got, err := br.ReadString('\n')
		if err != nil || got != want {
			stop()
			t.Fatalf("reply %q, %v; want %q", got, err, want)
		}
	}
	c.Close()
	stop()
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Fatalf("%s still accepts connections after stop", addr)
	}
}
