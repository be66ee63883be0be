package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

// binary is the zlite-server built by TestMain for the tests that run it.
var binary string

// TestMain builds zlite-server once (with -race when the tests run with it), runs
// the tests and checks that they leave no goroutine behind.
func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "zlite-server-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(tmp, "zlite-server")
	args := []string{"build", "-o", binary}
	if raceEnabled() {
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building zlite-server:", err)
		os.RemoveAll(tmp)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(tmp)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// raceEnabled reports whether the test binary was built with -race.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" && s.Value == "true" {
			return true
		}
	}
	return false
}

// child is a zlite-server started by a test.
type child struct {
	cmd  *exec.Cmd
	addr string
	logs *logReader
}

// logReader collects a child's log lines as they come (its stderr pipe), so a
// test can wait for a line and still read every line after the child exited.
type logReader struct {
	mu    sync.Mutex
	lines []string
	more  chan struct{} // closed and replaced at each line; closed for good at EOF
	done  chan struct{} // closed at EOF
}

func newLogReader(r io.Reader) *logReader {
	lr := &logReader{more: make(chan struct{}), done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lr.mu.Lock()
			lr.lines = append(lr.lines, sc.Text())
			close(lr.more)
			lr.more = make(chan struct{})
			lr.mu.Unlock()
		}
		lr.mu.Lock()
		close(lr.done)
		lr.mu.Unlock()
	}()
	return lr
}

// wait returns the first line from line index from on that contains s, and its
// index, or false if the log ended first.
func (lr *logReader) wait(from int, s string) (string, int, bool) {
	for i := from; ; {
		lr.mu.Lock()
		for ; i < len(lr.lines); i++ {
			if strings.Contains(lr.lines[i], s) {
				line := lr.lines[i]
				lr.mu.Unlock()
				return line, i, true
			}
		}
		more, done := lr.more, lr.done
		lr.mu.Unlock()
		select {
		case <-more:
		case <-done:
			lr.mu.Lock()
			n := len(lr.lines)
			lr.mu.Unlock()
			if i == n {
				return "", 0, false
			}
		}
	}
}

// all waits for the end of the log and returns it.
func (lr *logReader) all() string {
	<-lr.done
	lr.mu.Lock()
	defer lr.mu.Unlock()
	return strings.Join(lr.lines, "\n")
}

// freeAddr returns a loopback address with a port free at the time of the call.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startChild starts zlite-server on a free loopback port with the given arguments
// and returns once it logged that it is ready. The child is killed at the end of
// the test if it still runs.
func startChild(t *testing.T, args ...string) *child {
	t.Helper()
	c := startChildNoWait(t, args...)
	if _, _, ok := c.logs.wait(0, "Ready to accept connections"); !ok {
		t.Fatalf("zlite-server %q ended before it was ready: %v\n%s", args, c.cmd.Wait(), c.logs.all())
	}
	return c
}

// startChildNoWait starts zlite-server like startChild but does not wait.
func startChildNoWait(t *testing.T, args ...string) *child {
	t.Helper()
	addr := freeAddr(t)
	return startRaw(t, addr, append([]string{"-addr", addr}, args...)...)
}

// startRaw starts zlite-server with exactly args, to listen on addr.
func startRaw(t *testing.T, addr string, args ...string) *child {
	t.Helper()
	cmd := exec.Command(binary, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, addr: addr, logs: newLogReader(stderr)}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			c.logs.all()
			_ = cmd.Wait()
		}
	})
	return c
}

// stop sends sig to the child and waits for it to exit, returning Wait's error
// and the whole log.
func (c *child) stop(t *testing.T, sig os.Signal) (string, error) {
	t.Helper()
	if err := c.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	logs := c.logs.all() // the pipe must be drained before Wait
	return logs, c.cmd.Wait()
}

// TestSIGTERM starts zlite-server, talks to it, and checks that SIGTERM shuts it
// down gracefully (exit status 0) while a client is blocked.
func TestSIGTERM(t *testing.T) {
	t.Parallel()
	c := startChild(t, "-requirepass", "pw", "-v")
	nc, err := net.Dial("tcp", c.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	br := bufio.NewReader(nc)
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	for _, tc := range []struct{ req, want string }{
		{"PING\r\n", "-NOAUTH Authentication required.\r\n"},
		{"AUTH pw\r\n", "+OK\r\n"},
		{"ZADD z 1 a\r\n", ":1\r\n"},
	} {
		if _, err := nc.Write([]byte(tc.req)); err != nil {
			t.Fatal(err)
		}
		if got, err := br.ReadString('\n'); got != tc.want {
			t.Fatalf("%q: got %q, %v; want %q", tc.req, got, err, tc.want)
		}
	}
	if _, err := nc.Write([]byte("BLPOP q 0\r\n")); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := c.logs.wait(0, "client connected"); !ok {
		t.Fatal("no connection event in the log at loglevel debug")
	}
	logs, err := c.stop(t, syscall.SIGTERM)
	if err != nil {
		t.Fatalf("zlite-server after SIGTERM: %v; want exit status 0\n%s", err, logs)
	}
	if !strings.Contains(logs, "bye bye") {
		t.Errorf("log after SIGTERM lacks the last line:\n%s", logs)
	}
	if strings.Contains(logs, "Saving the final snapshot") {
		t.Errorf("an in-memory server logged a snapshot:\n%s", logs)
	}
	if _, err := br.ReadString('\n'); err == nil {
		t.Fatal("the blocked client's connection is still open after shutdown")
	}
}

// TestSIGTERMStuckScript: SIGTERM ends the server within its shutdown timeout even
// while a script that never ends holds a keyspace (and after it passed
// busy-reply-threshold, when other clients get BUSY).
func TestSIGTERMStuckScript(t *testing.T) {
	t.Parallel()
	c := startChild(t, "-busy-reply-threshold", "10ms", "-shutdown-timeout", "100ms", "-dir", t.TempDir())
	runner, err := net.Dial("tcp", c.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer runner.Close()
	if _, err := runner.Write([]byte("EVAL \"local s = string.rep('a', 20000) while true do s:find('.-.-.-.-.-b') end\" 0\r\n")); err != nil {
		t.Fatal(err)
	}
	other, err := net.Dial("tcp", c.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_ = other.SetDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(other)
	for {
		if _, err := other.Write([]byte("PING\r\n")); err != nil {
			t.Fatal(err)
		}
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, "-BUSY") {
			break
		}
	}
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { c.logs.all(); done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("zlite-server after SIGTERM with a stuck script: %v; want exit status 0", err)
		}
	case <-time.After(20 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
		t.Fatal("zlite-server did not exit after SIGTERM while a script was stuck")
	}
	if _, _, ok := c.logs.wait(0, "bye bye"); !ok {
		t.Errorf("log lacks the last line:\n%s", c.logs.all())
	}
}

// TestBindPort starts zlite-server with -port and -bind instead of -addr, one
// of the bind addresses optional.
func TestBindPort(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	c := startRaw(t, addr, "-port", port, "-bind", "-192.0.2.1 127.0.0.1")
	if _, _, ok := c.logs.wait(0, "Ready to accept connections"); !ok {
		t.Fatalf("zlite-server did not start:\n%s", c.logs.all())
	}
	for _, want := range []string{`msg="Could not listen on an optional bind address" addr=192.0.2.1:` + port, `msg="zlite-server listening" addr=` + addr} {
		if _, _, ok := c.logs.wait(0, want); !ok {
			t.Errorf("log lacks %q", want)
		}
	}
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := nc.Write([]byte("PING\r\n")); err != nil {
		t.Fatal(err)
	}
	if got, err := bufio.NewReader(nc).ReadString('\n'); got != "+PONG\r\n" {
		t.Errorf("PING on %s: %q, %v; want +PONG", addr, got, err)
	}
	if logs, err := c.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("zlite-server after SIGTERM: %v\n%s", err, logs)
	}
}

// TestRuntimeDirectives checks that a configuration file's Redis directives for
// CONFIG SET parameters are applied (CONFIG GET shows them), and that those the
// server has no parameter for, or refuses, are logged as ignored.
func TestRuntimeDirectives(t *testing.T) {
	t.Parallel()
	conf := filepath.Join(t.TempDir(), "zlite.conf")
	text := "slowlog-max-len 5\nnotify-keyspace-events KEA\nhash-max-listpack-entries 7\n" +
		"tcp-keepalive 300\nslowlog-log-slower-than abc\n"
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startChild(t, conf)
	rdb := redis.NewClient(&redis.Options{Addr: c.addr})
	defer rdb.Close()
	ctx := context.Background()
	for name, want := range map[string]string{"slowlog-max-len": "5", "notify-keyspace-events": "AKE",
		"hash-max-listpack-entries": "7", "slowlog-log-slower-than": "10000"} {
		got, err := rdb.ConfigGet(ctx, name).Result()
		if err != nil || got[name] != want {
			t.Errorf("CONFIG GET %s = %v, %v; want %q", name, got, err, want)
		}
	}
	logs, err := c.stop(t, syscall.SIGTERM)
	if err != nil {
		t.Fatalf("exit: %v\n%s", err, logs)
	}
	for _, want := range []string{"does not implement\" directive=\"line 4: tcp-keepalive\"",
		"cannot apply\" directive=\"line 5: slowlog-log-slower-than\""} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %s:\n%s", want, logs)
		}
	}
}

// TestVersion checks -version's line and that it starts nothing.
func TestVersion(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--version", "-version"} {
		out, err := exec.Command(binary, flag).CombinedOutput()
		if err != nil {
			t.Fatalf("zlite-server %s: %v\n%s", flag, err, out)
		}
		if !regexp.MustCompile(`^zlite-server v=(devel|v\S+) go=go1\.\S+\n$`).Match(out) {
			t.Errorf("zlite-server %s = %q; want \"zlite-server v=<version> go=<go version>\\n\"", flag, out)
		}
	}
}

// TestBadStartup checks that a bad configuration stops the server before it
// starts, with the error on standard error and exit status 1.
func TestBadStartup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	conf := filepath.Join(dir, "zlite.conf")
	if err := os.WriteFile(conf, []byte("# a comment\nport 6379\nappendfsync sometimes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{conf}, "\n*** FATAL CONFIG FILE ERROR ***\nReading the configuration file, at line 3\n>>> 'appendfsync sometimes'\nargument(s) must be one of the following: everysec, always, no\n"},
		{[]string{filepath.Join(dir, "missing.conf")}, "can't open config file"},
		{[]string{"-appendfsync", "sometimes"}, `invalid value "sometimes" for flag -appendfsync: argument(s) must be one of the following: everysec, always, no`},
		{[]string{"-save", "60"}, `invalid value "60" for flag -save: Invalid save parameters`},
		{[]string{conf, "extra.conf"}, `unexpected argument "extra.conf"`},
	} {
		out, err := exec.Command(binary, tc.args...).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("zlite-server %q: %v; want exit status 1", tc.args, err)
		}
		if !strings.Contains(string(out), tc.want) {
			t.Errorf("zlite-server %q printed\n%s\nwant it to contain\n%s", tc.args, out, tc.want)
		}
	}
}
