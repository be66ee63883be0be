package server

import (
	"net"
	"strings"
	"sync"
	"testing"
)

// TestMonitorSlowMonitor runs commands from several clients while a monitor reads
// nothing: the commands all complete (none waits for the monitor), and the monitor
// is disconnected once its unsent lines pass monitorLimit.
func TestMonitorSlowMonitor(t *testing.T) {
	addr, s := startServer(t, func(s *Server) { s.monLimit = 1 << 20 })
	mon, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer mon.Close()
	if _, err := mon.Write(encode("MONITOR")); err != nil {
		t.Fatal(err)
	}
	// The monitor is registered once a command shows it in CLIENT LIST.
	c := dial(t, addr)
	for !strings.Contains(c.do("CLIENT", "LIST"), "flags=O") {
	}
	big := strings.Repeat("x", 16<<10)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := dial(t, addr)
			for i := 0; i < 100; i++ {
				w.send("SET", "k", big)
				if r, err := w.read(); err != nil || r != "+OK\r\n" {
					t.Errorf("client %d: SET = %q, %v", g, r, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	// 400 lines of 16 KiB are 6.4 MiB, past the socket's buffers and the limit
	// (1 MiB here): the monitor is gone.
	for {
		s.mon.mu.Lock()
		n := len(s.mon.qs)
		s.mon.mu.Unlock()
		if n == 0 {
			break
		}
		c.do("SET", "k", big) // more lines, until the socket's buffers are full too
	}
	if strings.Contains(c.do("CLIENT", "LIST"), "flags=O") {
		t.Error("the slow monitor is still listed")
	}
}

// TestMonitorLines checks the line format on zlite alone: the escaping, the
// source of a script's commands, and that admin commands are not shown.
func TestMonitorLines(t *testing.T) {
	addr, _ := startServer(t)
	mon := dial(t, addr)
	if r := mon.do("MONITOR"); r != "+OK\r\n" {
		t.Fatalf("MONITOR = %q", r)
	}
	mon.send("MONITOR") // already monitoring: no reply, as in Redis
	c := dial(t, addr)
	c.do("SELECT", "3")
	c.do("CONFIG", "GET", "timeout")
	c.do("SET", "k", "a\"\\\x00\x7f")
	c.do("EVAL", "return redis.call('get', KEYS[1])", "1", "k")
	want := []string{`[3 ADDR] "SELECT" "3"`, `[3 ADDR] "SET" "k" "a\"\\\x00\x7f"`,
		`[3 ADDR] "EVAL" "return redis.call('get', KEYS[1])" "1" "k"`, `[3 lua] "get" "k"`}
	for _, w := range want {
		r, err := mon.read()
		if err != nil {
			t.Fatal(err)
		}
		m := monitorLineRE.FindStringSubmatch(r)
		if m == nil {
			t.Fatalf("monitor line %q: not Redis's format", r)
		}
		got := "[" + m[2] + "] " + m[3]
		got = strings.Replace(got, c.nc.LocalAddr().String(), "ADDR", 1)
		if got != w {
			t.Errorf("monitor line %q; want %q", got, w)
		}
	}
}
