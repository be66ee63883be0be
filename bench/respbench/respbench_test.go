package respbench

import (
	"bufio"
	"context"
	"errors"
	"math"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/server"
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
		Pipelines: []int{1}, Clients: []int{1}, Duration: 20 * time.Millisecond, Rounds: 3})
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
		if len(r.ZliteRuns) != 3 || len(r.OtherRuns) != 3 || r.Zlite != median(r.ZliteRuns) || r.Other != median(r.OtherRuns) {
			t.Errorf("row %+v: want 3 runs of each system and their medians", r)
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

// TestDialerRows runs the go-redis rows briefly: every row has one figure per
// round on each system, and its figure is their median.
func TestDialerRows(t *testing.T) {
	rows, err := dialerRows(context.Background(), Config{Duration: 2 * time.Millisecond, Rounds: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(dialerOps) {
		t.Fatalf("%d rows; want %d", len(rows), len(dialerOps))
	}
	for i, r := range rows {
		if want := dialerOps[i].name + " (Dialer vs TCP)"; r.Workload != want || r.Base != "miniredis" {
			t.Errorf("row %d is %q vs %q; want %q vs miniredis", i, r.Workload, r.Base, want)
		}
		if len(r.ZliteRuns) != 3 || len(r.OtherRuns) != 3 {
			t.Errorf("%s: %d and %d runs; want 3 and 3", r.Workload, len(r.ZliteRuns), len(r.OtherRuns))
		}
		if r.Zlite != median(r.ZliteRuns) || r.Other != median(r.OtherRuns) || !(r.Zlite > 0) || !(r.Other > 0) {
			t.Errorf("%s: figures %v, %v; want the positive medians of %v, %v", r.Workload, r.Zlite, r.Other, r.ZliteRuns, r.OtherRuns)
		}
	}
}

// TestDialerZScoreHits checks that the ZSCORE row measures hits: after the ZADD
// workload has run for as few as 1000 operations, every member ZSCORE asks for is
// there (a miss is a shorter path, and a row of misses measures the wrong thing).
func TestDialerZScoreHits(t *testing.T) {
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Dialer: server.Dialer(zlite.New())})
	defer c.Close()
	op := func(name string) func(ctx context.Context, c *redis.Client, i int) error {
		for _, op := range dialerOps {
			if op.name == name {
				return op.run
			}
		}
		t.Fatalf("no workload %q", name)
		return nil
	}
	zadd, zscore := op("go-redis ZADD"), op("go-redis ZSCORE")
	for i := range 1000 {
		if err := zadd(ctx, c, i); err != nil {
			t.Fatalf("ZADD %d: %v", i, err)
		}
	}
	for i := range 3000 {
		if err := zscore(ctx, c, i); err != nil {
			t.Fatalf("ZSCORE op %d: %v; want a hit (redis.Nil is a miss: %v)", i, err, errors.Is(err, redis.Nil))
		}
	}
}

func TestMedianSpread(t *testing.T) {
	tests := []struct {
		xs             []float64
		median, spread float64
	}{
		{nil, 0, 0},
		{[]float64{4}, 4, 0},
		{[]float64{3, 1, 2}, 2, 1},
		{[]float64{10, 40, 20, 30}, 25, 30.0 / 25},
		{[]float64{100, 100, 797, 100, 100}, 100, 6.97},
	}
	for _, tt := range tests {
		if m, s := median(tt.xs), spread(tt.xs); m != tt.median || math.Abs(s-tt.spread) > 1e-9 {
			t.Errorf("median, spread of %v = %v, %v; want %v, %v", tt.xs, m, s, tt.median, tt.spread)
		}
	}
}
