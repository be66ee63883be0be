package main

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary act as zlite-server for TestSIGTERM.
func TestMain(m *testing.M) {
	if os.Getenv("ZLITE_SERVER_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// startChild starts the test binary as zlite-server on a free loopback port with
// the given flags and returns once it logged that it listens, with the scanner
// of its log.
func startChild(t *testing.T, flags ...string) (*exec.Cmd, string, *bufio.Scanner) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(os.Args[0], append([]string{"-addr", addr}, flags...)...)
	cmd.Env = append(os.Environ(), "ZLITE_SERVER_MAIN=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logs := bufio.NewScanner(stderr)
	for logs.Scan() && !strings.Contains(logs.Text(), "listening") {
	}
	return cmd, addr, logs
}

// TestSIGTERM starts zlite-server, talks to it, and checks that SIGTERM shuts it
// down gracefully (exit status 0) while a client is blocked.
func TestSIGTERM(t *testing.T) {
	cmd, addr, logs := startChild(t, "-requirepass", "pw", "-v")
	nc, err := net.Dial("tcp", addr)
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
	for logs.Scan() && !strings.Contains(logs.Text(), "client connected") {
	}
	go func() {
		for logs.Scan() {
		}
	}()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("zlite-server after SIGTERM: %v; want exit status 0", err)
	}
	if _, err := br.ReadString('\n'); err == nil {
		t.Fatal("the blocked client's connection is still open after shutdown")
	}
}

// TestSIGTERMStuckScript: SIGTERM ends the server within its shutdown timeout even
// while a script that never ends holds a keyspace (and after it passed
// busy-reply-threshold, when other clients get BUSY).
func TestSIGTERMStuckScript(t *testing.T) {
	cmd, addr, logs := startChild(t, "-busy-reply-threshold", "10ms", "-shutdown-timeout", "100ms")
	go func() {
		for logs.Scan() {
		}
	}()
	runner, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer runner.Close()
	if _, err := runner.Write([]byte("EVAL \"local s = string.rep('a', 20000) while true do s:find('.-.-.-.-.-b') end\" 0\r\n")); err != nil {
		t.Fatal(err)
	}
	other, err := net.Dial("tcp", addr)
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
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("zlite-server after SIGTERM with a stuck script: %v; want exit status 0", err)
		}
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("zlite-server did not exit after SIGTERM while a script was stuck")
	}
}
