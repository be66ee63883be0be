package server

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// tcpPair returns the two ends of a loopback TCP connection.
func tcpPair(t *testing.T) (a, b net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		accepted <- c
	}()
	a, err = net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	b = <-accepted
	if b == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// TestRawIO checks that the raw I/O of a socket behaves as its net.Conn: a write
// larger than the socket's buffers completes (waiting in the poller while the
// peer reads), reads return what was written, then io.EOF after the peer closes;
// a read past its deadline fails with os.ErrDeadlineExceeded, and one on a closed
// connection with net.ErrClosed.
func TestRawIO(t *testing.T) {
	a, b := tcpPair(t)
	ra, ok := newRawIO(a)
	if !ok {
		t.Fatal("newRawIO(*net.TCPConn) = false; want true")
	}
	rb, _ := newRawIO(b)
	if _, ok := newRawIO(&memConn{}); ok {
		t.Error("newRawIO(memConn) = true; want false")
	}

	want := bytes.Repeat([]byte("0123456789abcdef"), 1<<20) // 16 MiB
	wrote := make(chan error, 1)
	go func() {
		n, err := ra.Write(want)
		if err == nil && n != len(want) {
			err = io.ErrShortWrite
		}
		a.Close()
		wrote <- err
	}()
	got, err := io.ReadAll(rb)
	if err != nil {
		t.Fatalf("ReadAll = %v", err)
	}
	if err := <-wrote; err != nil {
		t.Fatalf("Write = %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, not the %d written", len(got), len(want))
	}
	if n, err := rb.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("Read after the peer closed = %d, %v; want 0, EOF", n, err)
	}

	c, d := tcpPair(t)
	rc, _ := newRawIO(c)
	_ = c.SetReadDeadline(time.Unix(1, 0))
	if _, err := rc.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("Read past the deadline = %v; want os.ErrDeadlineExceeded", err)
	}
	_ = c.SetReadDeadline(time.Time{})
	if _, err := d.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	p := make([]byte, 4)
	if n, err := rc.Read(p); n != 1 || err != nil || p[0] != 'x' {
		t.Errorf("Read = %d, %v, %q; want 1, nil, \"x\"", n, err, p[:n])
	}
	c.Close()
	if _, err := rc.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Read after Close = %v; want net.ErrClosed", err)
	}
}
