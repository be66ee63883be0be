package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// TestStartStop starts a server of its own and checks that Stop ends it (and any
// server Addr started), may be called again, and that Addr then finds a server anew.
func TestStartStop(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("skipping: redis-server is not in PATH")
	}
	a, err := Start(bin)
	if err != nil {
		t.Fatalf("Start(%q): %v", bin, err)
	}
	if got := rawPing(t, a); got != "+PONG\r\n" {
		t.Fatalf("PING on %s = %q; want %q", a, got, "+PONG\r\n")
	}
	mu.Lock()
	d := servers[len(servers)-1].dir
	mu.Unlock()
	Stop()
	mu.Lock()
	left := len(servers)
	mu.Unlock()
	if left != 0 {
		t.Fatalf("after Stop: %d servers still recorded; want 0", left)
	}
	if c, err := net.DialTimeout("tcp", a, time.Second); err == nil {
		c.Close()
		t.Fatalf("after Stop, %s still accepts connections", a)
	}
	if _, err := os.Stat(d); !os.IsNotExist(err) {
		t.Fatalf("after Stop, the server's directory %s: %v; want it removed", d, err)
	}
	Stop() // a second Stop has nothing to do and must not panic

	// Addr looks again after Stop: a stopped server's address must not be handed out.
	again := Require(t)
	if got := rawPing(t, again); got != "+PONG\r\n" {
		t.Fatalf("after Stop, PING on Addr() %s = %q; want %q", again, got, "+PONG\r\n")
	}
}

func TestStartMissingBinary(t *testing.T) {
	mu.Lock()
	before := len(servers)
	mu.Unlock()
	bin := filepath.Join(t.TempDir(), "no-such-redis-server")
	if a, err := Start(bin); err == nil {
		t.Fatalf("Start(%q) = %q, nil; want an error", bin, a)
	}
	mu.Lock()
	after := len(servers)
	mu.Unlock()
	if after != before {
		t.Fatalf("after a failed Start: %d servers recorded; want %d", after, before)
	}
}

// TestOrigin checks that Origin names REDIS_ADDR when the server came from it, and
// the binary otherwise.
func TestOrigin(t *testing.T) {
	a := Require(t)
	got := Origin()
	want := "REDIS_ADDR"
	if os.Getenv("REDIS_ADDR") == "" {
		bin, _ := exec.LookPath("redis-server")
		want = "started from " + bin
	}
	if got != want {
		t.Fatalf("Origin() with the server at %s = %q; want %q", a, got, want)
	}
}

// TestOwn checks that Own's flags reach the server (CONFIG GET appendonly reads what
// was asked for) and that the server stops when the test that started it ends.
func TestOwn(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("skipping: redis-server is not in PATH")
	}
	var a string
	t.Run("own", func(t *testing.T) {
		var dir string
		var err error
		a, dir, err = Own(t, "--appendonly", "yes")
		if err != nil {
			t.Fatal(err)
		}
		c, err := net.DialTimeout("tcp", a, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprint(c, "CONFIG GET appendonly\r\nCONFIG GET dir\r\n")
		r := bufio.NewReader(c)
		var lines []string
		for range 10 {
			l, err := r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, strings.TrimRight(l, "\r\n"))
		}
		if lines[4] != "yes" {
			t.Errorf("CONFIG GET appendonly = %q; want %q", lines[4], "yes")
		}
		if lines[9] != dir {
			t.Errorf("CONFIG GET dir = %q; want the directory Own returned, %q", lines[9], dir)
		}
	})
	if c, err := net.DialTimeout("tcp", a, time.Second); err == nil {
		c.Close()
		t.Fatalf("after the test that started it, %s still accepts connections", a)
	}
}
