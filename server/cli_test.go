package server

import (
	"bytes"
	"context"
	"net"
	"os/exec"
	"strings"
	"testing"
)

// redisCLI runs redis-cli against addr with args and stdin, skipping without it.
func redisCLI(t *testing.T, addr, stdin string, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("skipping: redis-cli not installed (apt-get install redis-tools)")
	}
	host, port, _ := net.SplitHostPort(addr)
	cmd := exec.CommandContext(context.Background(), bin, append([]string{"-h", host, "-p", port}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli %q: %v\n%s", args, err, out)
	}
	return string(out)
}

func TestRedisCLI(t *testing.T) {
	addr, srv := startServer(t)
	if got := redisCLI(t, addr, "", "ping"); got != "PONG\n" {
		t.Fatalf("redis-cli ping = %q; want PONG", got)
	}
	session := "ZADD board 31 ann 42 bob\nZRANGE board 0 -1 WITHSCORES\nZSCORE board nobody\nLPOP nolist\n"
	if got, want := redisCLI(t, addr, session), "2\nann\n31\nbob\n42\n\n\n"; got != want {
		t.Fatalf("redis-cli session = %q; want %q", got, want)
	}
	if got, want := redisCLI(t, addr, "", "-3", "ZRANGE", "board", "0", "0", "WITHSCORES"), "ann\n31\n"; got != want {
		t.Fatalf("redis-cli -3 ZRANGE = %q; want %q", got, want)
	}
	var mass bytes.Buffer
	for i := range 10000 {
		mass.Write(encode("RPUSH", "mass", strings.Repeat("x", i%50)))
	}
	out := redisCLI(t, addr, mass.String(), "--pipe")
	if !strings.Contains(out, "errors: 0, replies: 10000") {
		t.Fatalf("redis-cli --pipe: %q; want 0 errors and 10000 replies", out)
	}
	if n, err := srv.DB(0).LLen(context.Background(), "mass"); err != nil || n != 10000 {
		t.Fatalf("LLen(mass) = %d, %v after --pipe; want 10000", n, err)
	}
}
