// Package redistest gives tests and benchmarks a real redis-server to compare zlite with.
//
// [Addr] uses the server named by the REDIS_ADDR environment variable when it is set
// (CI starts one), and otherwise starts redis-server from PATH on a free 127.0.0.1
// port with persistence off, once per test binary, and stops it when [Stop] is called
// (typically from TestMain). When neither is possible, [Require] skips the test with
// the reason, so `go test ./...` passes on a machine without Redis.
//
// Tests that use the server must not assume they own it: each should use key names
// of its own or call FLUSHALL itself before it starts (tests in one package run one at
// a time unless they call t.Parallel). A server started here belongs to one test
// binary; a REDIS_ADDR server is shared by every package `go test ./...` runs at once,
// and one package's FLUSHDB empties another's keys, so run with -p 1 against it (CI
// leaves REDIS_ADDR out of its parallel run).
package redistest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	mu      sync.Mutex
	found   bool
	addr    string
	why     error
	origin  string   // how addr was found, for [Origin]
	servers []server // every server started and not yet stopped
)

type server struct {
	cmd *exec.Cmd
	dir string
}

// Addr returns the address of a reachable redis-server, starting one if needed.
// It returns an error saying why when none can be had. After [Stop], the next call
// looks again (and starts a new server if need be).
func Addr() (string, error) {
	mu.Lock()
	defer mu.Unlock()
	if !found {
		addr, why = find()
		found = true
	}
	return addr, why
}

// Require returns the address of a reachable redis-server, or skips tb with a clear
// reason when there is none. With ZLITE_REQUIRE_REDIS=1 in the environment (as in CI)
// it fails tb instead of skipping, so a broken CI set-up cannot pass silently.
func Require(tb testing.TB) string {
	tb.Helper()
	a, err := Addr()
	if err != nil {
		if os.Getenv("ZLITE_REQUIRE_REDIS") == "1" {
			tb.Fatalf("redis-server required (ZLITE_REQUIRE_REDIS=1) but unavailable: %v", err)
		}
		tb.Skipf("skipping: no Redis reachable (%v); set REDIS_ADDR or install redis-server", err)
	}
	return a
}

// Stop stops every redis-server that [Addr] or [Start] started, and makes the next
// [Addr] look again. It is safe to call when none was started, and more than once.
func Stop() {
	mu.Lock()
	defer mu.Unlock()
	found = false
	for _, sv := range servers {
		_ = sv.cmd.Process.Kill()
		_ = sv.cmd.Wait()
		_ = os.RemoveAll(sv.dir)
	}
	servers = nil
}

// Origin says where the server [Addr] returned comes from: "REDIS_ADDR" or
// "started from /usr/bin/redis-server"; "" before a successful [Addr].
func Origin() string {
	mu.Lock()
	defer mu.Unlock()
	if !found || why != nil {
		return ""
	}
	return origin
}

func find() (string, error) {
	if a := os.Getenv("REDIS_ADDR"); a != "" {
		if err := ping(a, 2*time.Second); err != nil {
			return "", fmt.Errorf("REDIS_ADDR=%s: %w", a, err)
		}
		origin = "REDIS_ADDR"
		return a, nil
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", errors.New("redis-server is not in PATH and REDIS_ADDR is not set")
	}
	origin = "started from " + bin
	return start(bin)
}

// Start runs the redis-server binary bin on a free loopback port with persistence
// off and returns its address once it answers PING. The server is stopped by [Stop].
func Start(bin string) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	return start(bin)
}

// start is Start with mu held.
func start(bin string) (string, error) {
	d, err := os.MkdirTemp("", "zlite-redis-*")
	if err != nil {
		return "", err
	}
	sv, a, err := run(bin, d)
	if err != nil {
		os.RemoveAll(d)
		return "", err
	}
	servers = append(servers, sv)
	return a, nil
}

// Own starts a redis-server of tb's own in a temporary directory, with args after the
// defaults of [Start] (a later flag wins: "--appendonly", "yes" turns the log on), and
// stops it when tb ends. It returns the server's address and directory, or an error
// when there is no redis-server in PATH or it does not start.
func Own(tb testing.TB, args ...string) (addr, dir string, err error) {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", "", errors.New("redis-server is not in PATH")
	}
	dir = tb.TempDir()
	sv, addr, err := run(bin, dir, args...)
	if err != nil {
		return "", "", err
	}
	tb.Cleanup(func() {
		_ = sv.cmd.Process.Kill()
		_ = sv.cmd.Wait()
	})
	return addr, dir, nil
}

// run starts bin on a free loopback port with its files in dir and persistence off
// unless args say otherwise, and waits until it answers PING.
func run(bin, dir string, args ...string) (server, string, error) {
	port, err := freePort()
	if err != nil {
		return server{}, "", err
	}
	cmd := exec.Command(bin, append([]string{
		"--port", fmt.Sprint(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir,
		"--protected-mode", "yes", "--loglevel", "warning"}, args...)...)
	if err := cmd.Start(); err != nil {
		return server{}, "", fmt.Errorf("start %s: %w", bin, err)
	}
	a := fmt.Sprintf("127.0.0.1:%d", port)
	if err := ping(a, 10*time.Second); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return server{}, "", fmt.Errorf("redis-server on %s did not answer: %w", a, err)
	}
	return server{cmd, dir}, a, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ping sends PING until +PONG comes back or the deadline passes. This is a start-up
// wait for an external process, not synchronisation between goroutines.
func ping(a string, within time.Duration) error {
	deadline := time.Now().Add(within)
	var last error
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", a, time.Second)
		if err == nil {
			_ = c.SetDeadline(time.Now().Add(time.Second))
			_, err = c.Write([]byte("PING\r\n"))
			if err == nil {
				var line string
				line, err = bufio.NewReader(c).ReadString('\n')
				if err == nil && !strings.HasPrefix(line, "+PONG") {
					err = fmt.Errorf("unexpected reply %q", line)
				}
			}
			c.Close()
			if err == nil {
				return nil
			}
		}
		last = err
		time.Sleep(20 * time.Millisecond)
	}
	return last
}
