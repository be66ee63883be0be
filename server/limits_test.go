package server

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// TestLimits checks the server's limits with Redis's replies: maxclients,
// proto-max-bulk-len, and an idle timeout that closes slow and silent clients.
func TestLimits(t *testing.T) {
	t.Run("maxclients", func(t *testing.T) {
		addr, _ := startServer(t, WithMaxClients(1))
		first := dial(t, addr)
		if r := first.do("PING"); r != "+PONG\r\n" {
			t.Fatalf("PING = %q", r)
		}
		second := dial(t, addr)
		if r, _ := second.read(); r != "-ERR max number of clients reached\r\n" {
			t.Fatalf("second client got %q; want max number of clients reached", r)
		}
		if _, err := second.read(); err == nil {
			t.Fatal("second client's connection still open")
		}
	})
	t.Run("proto-max-bulk-len", func(t *testing.T) {
		addr, _ := startServer(t, WithProtoMaxBulkLen(1<<20))
		w := dial(t, addr)
		w.write([]byte("*1\r\n$1048577\r\n"))
		if r, _ := w.read(); r != "-ERR Protocol error: invalid bulk length\r\n" {
			t.Fatalf("oversized bulk: %q", r)
		}
		w = dial(t, addr)
		if r := w.do("CONFIG", "SET", "proto-max-bulk-len", "2mb"); r != "+OK\r\n" {
			t.Fatalf("CONFIG SET proto-max-bulk-len: %q", r)
		}
		big := make([]byte, 1<<20+1)
		if r := w.do("ECHO", string(big)); len(r) != len(big)+len("$1048577\r\n\r\n") {
			t.Fatalf("ECHO of 1 MiB + 1 after raising the limit: %d bytes", len(r))
		}
	})
	t.Run("idle-timeout", func(t *testing.T) {
		addr, _ := startServer(t, WithIdleTimeout(50*time.Millisecond))
		for _, partial := range []string{"", "*2\r\n$4\r\nECHO\r\n$5\r\nab"} {
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			if _, err := io.WriteString(nc, partial); err != nil {
				t.Fatal(err)
			}
			_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
			_, err = nc.Read(make([]byte, 1))
			if !errors.Is(err, io.EOF) {
				t.Fatalf("idle client with %q sent: read err %v; want EOF (closed by the server)", partial, err)
			}
		}
	})
	t.Run("blocked-not-idle", func(t *testing.T) {
		addr, srv := startServer(t, WithIdleTimeout(20*time.Millisecond))
		w := dial(t, addr)
		w.send("BLPOP", "q", "0")
		waitServerBlocked(t, srv, 1)
		// Still blocked after several idle timeouts: push, then the reply arrives.
		deadline := time.Now().Add(100 * time.Millisecond)
		for time.Now().Before(deadline) {
			if srv.blocked.Load() != 1 {
				t.Fatal("the blocked client was dropped by the idle timeout")
			}
		}
		if _, err := srv.DB(0).RPush(context.Background(), "q", "v"); err != nil {
			t.Fatal(err)
		}
		if r, err := w.read(); r != "*2\r\n$1\r\nq\r\n$1\r\nv\r\n" {
			t.Fatalf("BLPOP = %q, %v", r, err)
		}
	})
}

// waitServerBlocked waits until n clients of srv are blocked.
func waitServerBlocked(t *testing.T, srv *Server, n int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for srv.blocked.Load() != n {
		if ctx.Err() != nil {
			t.Fatalf("%d clients blocked; want %d", srv.blocked.Load(), n)
		}
		time.Sleep(time.Millisecond) // polling the server's state
	}
}

// TestShutdown: Shutdown lets a connection finish its command, cancels a blocked
// one (its element stays), and closes every connection.
func TestShutdown(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := New()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	blocked := dial(t, l.Addr().String())
	blocked.send("BLPOP", "q", "0")
	idle := dial(t, l.Addr().String())
	if r := idle.do("PING"); r != "+PONG\r\n" {
		t.Fatalf("PING = %q", r)
	}
	waitServerBlocked(t, srv, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := <-served; !errors.Is(err, ErrServerClosed) {
		t.Fatalf("Serve returned %v; want ErrServerClosed", err)
	}
	for _, w := range []*wire{blocked, idle} {
		if r, err := w.read(); err == nil || os.IsTimeout(err) {
			t.Fatalf("connection still open after Shutdown: %q, %v", r, err)
		}
	}
	if _, err := srv.DB(0).RPush(context.Background(), "q", "v"); err != nil {
		t.Fatal(err)
	}
	if n, _ := srv.DB(0).LLen(context.Background(), "q"); n != 1 {
		t.Fatalf("LLEN q = %d after Shutdown; want 1 (no cancelled BLPOP takes it)", n)
	}
}
