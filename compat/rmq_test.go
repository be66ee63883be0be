package compat

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adjust/rmq/v5"
	"github.com/redis/go-redis/v9"

	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/server"

	// rmq's own tests import these; go test of rmq from this module needs them
	// in the module's requirements and go.sum.
	_ "github.com/alicebob/miniredis/v2"
	_ "github.com/stretchr/testify/assert"
)

// rmqAttempts bounds the runs of one of rmq's tests. Some of them check what a
// consumer goroutine received right after the list it moved the delivery to has
// the expected length, so a run can fail on Redis too (one in three or so on a
// loaded machine); a test passes if one of its runs does.
const rmqAttempts = 3

// TestRMQSuite runs the test suite of github.com/adjust/rmq, unchanged: its test
// binary, built from the module's source, once against a zlite server that this
// process serves on a loopback port and once against a redis-server of its own
// (rmq's tests take a Redis address, REDIS_ADDR, and use its database 0). Each of
// rmq's tests runs alone on a freshly flushed server, up to rmqAttempts times;
// every one must pass on both. rmq's cluster tests run on miniredis unless given a
// cluster, so they are left out.
func TestRMQSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs rmq's test suite")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH to build rmq's tests:", err)
	}
	bin := filepath.Join(t.TempDir(), "rmq.test")
	build := exec.Command(gobin, "test", "-c", "-o", bin, "github.com/adjust/rmq/v5")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c github.com/adjust/rmq/v5: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "-test.list", ".").Output()
	if err != nil {
		t.Fatalf("rmq.test -test.list: %v", err)
	}
	var tests []string
	for _, name := range strings.Fields(string(out)) {
		if strings.HasPrefix(name, "Test") && !strings.Contains(name, "Cluster") {
			tests = append(tests, name)
		}
	}
	if len(tests) < 20 {
		t.Fatalf("rmq.test lists %d tests (%q): fewer than its suite has", len(tests), tests)
	}

	t.Run("impl=zlite", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := server.New()
		done := make(chan error, 1)
		go func() { done <- srv.Serve(l) }()
		t.Cleanup(func() {
			srv.Close()
			if err := <-done; err != nil && !errors.Is(err, server.ErrServerClosed) {
				t.Errorf("Serve: %v", err)
			}
		})
		runRMQTests(t, bin, l.Addr().String(), tests)
	})
	t.Run("impl=redis", func(t *testing.T) {
		redistest.Require(t)
		addr, _, err := redistest.Own(t)
		if err != nil {
			t.Fatal(err)
		}
		runRMQTests(t, bin, addr, tests)
	})
}

// runRMQTests runs each of tests from the rmq test binary bin against the server at
// addr, flushing it before every run, and fails t for a test that fails
// rmqAttempts runs in a row. It logs the tests that needed more than one.
func runRMQTests(t *testing.T, bin, addr string, tests []string) {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	ctx := context.Background()
	var retried []string
	for _, name := range tests {
		var out []byte
		passed := false
		for attempt := 1; attempt <= rmqAttempts && !passed; attempt++ {
			if err := rdb.FlushAll(ctx).Err(); err != nil {
				t.Fatalf("FLUSHALL on %s: %v", addr, err)
			}
			cmd := exec.Command(bin, "-test.run", "^"+name+"$", "-test.count", "1", "-test.timeout", "2m")
			cmd.Env = append(os.Environ(), "REDIS_ADDR="+addr)
			var err error
			out, err = cmd.CombinedOutput()
			passed = err == nil && bytes.Contains(out, []byte("PASS\n")) && !bytes.Contains(out, []byte("no tests to run"))
			if !passed && attempt == 1 {
				retried = append(retried, name)
			}
		}
		if !passed {
			t.Errorf("rmq's %s failed %d runs in a row on %s; the last:\n%s", name, rmqAttempts, addr, out)
		}
	}
	if len(retried) > 0 {
		t.Logf("passed on a later run: %s", strings.Join(retried, ", "))
	}
	t.Logf("%d of rmq's tests run", len(tests))
}

// TestRMQ drives rmq through its API as an application does (publish, consume with
// acks and rejections, return the rejected, and the cleaner's recovery of a dead
// connection's unacked deliveries), on go-redis through server.Dialer and on
// redis-server, with the same expectations.
func TestRMQ(t *testing.T) {
	eachTarget(t, func(t *testing.T, tg target) {
		errs := make(chan error, 16)
		conn, err := rmq.OpenConnectionWithRedisClient("app", tg.client(), errs)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { <-conn.StopAllConsuming() }()
		q, err := conn.OpenQueue("things")
		if err != nil {
			t.Fatal(err)
		}
		const n = 40
		for i := range n {
			if err := q.Publish("p" + strconv.Itoa(i)); err != nil {
				t.Fatal(err)
			}
		}
		stats := func() rmq.QueueStat {
			t.Helper()
			s, err := conn.CollectStats([]string{"things"})
			if err != nil {
				t.Fatal(err)
			}
			return s.QueueStats["things"]
		}
		if s := stats(); s.ReadyCount != n {
			t.Fatalf("ready after %d publishes = %d", n, s.ReadyCount)
		}

		// Even payloads are acked, odd ones rejected; each is reported after its
		// Ack or Reject returned.
		seen := make(chan string, n)
		if err := q.StartConsuming(10, time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if _, err := q.AddConsumerFunc("worker", func(d rmq.Delivery) {
			i, _ := strconv.Atoi(strings.TrimPrefix(d.Payload(), "p"))
			var err error
			if i%2 == 0 {
				err = d.Ack()
			} else {
				err = d.Reject()
			}
			if err != nil {
				errs <- err
			}
			seen <- d.Payload()
		}); err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for len(got) < n {
			select {
			case p := <-seen:
				if got[p] {
					t.Fatalf("%s delivered twice", p)
				}
				got[p] = true
			case err := <-errs:
				t.Fatal(err)
			case <-time.After(slack):
				t.Fatalf("%d of %d deliveries consumed within %v", len(got), n, slack)
			}
		}
		<-q.StopConsuming()
		if s := stats(); s.ReadyCount != 0 || s.RejectedCount != n/2 || s.UnackedCount() != 0 {
			t.Fatalf("after consuming: ready %d, rejected %d, unacked %d; want 0, %d, 0",
				s.ReadyCount, s.RejectedCount, s.UnackedCount(), n/2)
		}
		if m, err := q.ReturnRejected(n); err != nil || m != n/2 {
			t.Fatalf("ReturnRejected = %d, %v; want %d", m, err, n/2)
		}
		if s := stats(); s.ReadyCount != n/2 || s.RejectedCount != 0 {
			t.Fatalf("after ReturnRejected: ready %d, rejected %d; want %d, 0", s.ReadyCount, s.RejectedCount, n/2)
		}

		// A second connection, on a client of its own, takes deliveries and dies
		// without acking them: its client is closed, so its heartbeat stops, and
		// its heartbeat key is deleted as its expiry would. The cleaner returns
		// what it held.
		deadClient := tg.dial()
		dead, err := rmq.OpenConnectionWithRedisClient("dead", deadClient, make(chan error, 64))
		if err != nil {
			t.Fatal(err)
		}
		dq, err := dead.OpenQueue("things")
		if err != nil {
			t.Fatal(err)
		}
		held := make(chan struct{}, n)
		if err := dq.StartConsuming(5, time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if _, err := dq.AddConsumerFunc("stuck", func(rmq.Delivery) { held <- struct{}{} }); err != nil {
			t.Fatal(err)
		}
		for range 5 {
			select {
			case <-held:
			case <-time.After(slack):
				t.Fatalf("the dead connection's consumer got nothing within %v", slack)
			}
		}
		<-dead.StopAllConsuming()
		s, err := dead.CollectStats([]string{"things"})
		if err != nil {
			t.Fatal(err)
		}
		unacked := s.QueueStats["things"].UnackedCount()
		if unacked < 5 {
			t.Fatalf("the dead connection holds %d unacked deliveries; want at least 5", unacked)
		}
		deadClient.Close()
		if err := tg.client().Del(context.Background(), "rmq::connection::"+dead.(fmt.Stringer).String()+"::heartbeat").Err(); err != nil {
			t.Fatal(err)
		}
		returned, err := rmq.NewCleaner(conn).Clean()
		if err != nil || returned != unacked {
			t.Fatalf("Clean = %d, %v; want %d", returned, err, unacked)
		}
		if s := stats(); s.ReadyCount != n/2 || s.UnackedCount() != 0 {
			t.Fatalf("after Clean: ready %d, unacked %d; want %d, 0", s.ReadyCount, s.UnackedCount(), n/2)
		}
		select {
		case err := <-errs:
			t.Fatal(fmt.Errorf("rmq reported: %w", err))
		default:
		}
	})
}
