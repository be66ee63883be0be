package redistest

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// rawPing sends PING as a RESP array over a fresh TCP connection and returns the
// reply line.
func rawPing(t *testing.T, a string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", a, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", a, err)
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		t.Fatalf("write PING: %v", err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("read PING reply: %v", err)
	}
	return line
}

func TestRequireAnswersPing(t *testing.T) {
	a := Require(t)
	if got := rawPing(t, a); got != "+PONG\r\n" {
		t.Fatalf("PING on %s = %q; want %q", a, got, "+PONG\r\n")
	}
	again, err := Addr()
	if err != nil || again != a {
		t.Fatalf("Addr() = %q, %v; want %q, nil (the same server every time)", again, err, a)
	}
}

// TestStartStop starts a server of its own, leaving the one Addr may have started
// alone, and checks that Stop ends it and may be called again.
func TestStartStop(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("skipping: redis-server is not in PATH")
	}
	prevStarted, prevDir := started, dir
	started, dir = nil, ""
	t.Cleanup(func() { started, dir = prevStarted, prevDir })

	a, err := Start(bin)
	if err != nil {
		t.Fatalf("Start(%q): %v", bin, err)
	}
	if got := rawPing(t, a); got != "+PONG\r\n" {
		t.Fatalf("PING on %s = %q; want %q", a, got, "+PONG\r\n")
	}
	d := dir
	Stop()
	if started != nil || dir != "" {
		t.Fatalf("after Stop: started = %v, dir = %q; want nil, \"\"", started, dir)
	}
	if c, err := net.DialTimeout("tcp", a, time.Second); err == nil {
		c.Close()
		t.Fatalf("after Stop, %s still accepts connections", a)
	}
	if _, err := os.Stat(d); !os.IsNotExist(err) {
		t.Fatalf("after Stop, the server's directory %s: %v; want it removed", d, err)
	}
	Stop() // a second Stop has nothing to do and must not panic
}

func TestStartMissingBinary(t *testing.T) {
	prevStarted, prevDir := started, dir
	started, dir = nil, ""
	t.Cleanup(func() { started, dir = prevStarted, prevDir })

	bin := filepath.Join(t.TempDir(), "no-such-redis-server")
	if a, err := Start(bin); err == nil {
		t.Fatalf("Start(%q) = %q, nil; want an error", bin, a)
	}
	if started != nil || dir != "" {
		t.Fatalf("after a failed Start: started = %v, dir = %q; want nil, \"\"", started, dir)
	}
}
