package server

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startServer serves a new Server on a free loopback port for the test.
func startServer(t testing.TB, opts ...Option) (string, *Server) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(opts...)
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Serve(l) }()
	t.Cleanup(func() { _ = s.Close(); <-done })
	return l.Addr().String(), s
}

// wire is a raw RESP connection for tests: it sends commands and reads replies as
// the exact bytes the server sent.
type wire struct {
	t  testing.TB
	nc net.Conn
	br *bufio.Reader
}

func dial(t testing.TB, addr string) *wire {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &wire{t: t, nc: nc, br: bufio.NewReader(nc)}
}

// encode is args as a RESP multibulk request.
func encode(args ...string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.Bytes()
}

func (w *wire) send(args ...string) { w.write(encode(args...)) }

func (w *wire) write(p []byte) {
	w.t.Helper()
	_ = w.nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := w.nc.Write(p); err != nil {
		w.t.Fatalf("write: %v", err)
	}
}

// read returns the next reply's bytes, or "" and the error.
func (w *wire) read() (string, error) {
	_ = w.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	var b bytes.Buffer
	err := readFrame(w.br, &b)
	return b.String(), err
}

// do sends one command and returns its reply's bytes.
func (w *wire) do(args ...string) string {
	w.t.Helper()
	w.send(args...)
	r, err := w.read()
	if err != nil {
		w.t.Fatalf("%q: reading the reply: %v", args, err)
	}
	return r
}

// readFrame copies one RESP2 or RESP3 reply from br to out.
func readFrame(br *bufio.Reader, out *bytes.Buffer) error {
	line, err := br.ReadString('\n')
	if err != nil {
		return err
	}
	out.WriteString(line)
	if len(line) < 3 {
		return fmt.Errorf("short line %q", line)
	}
	body := strings.TrimSuffix(line[1:], "\r\n")
	switch line[0] {
	case '+', '-', ':', ',', '_', '#', '(':
		return nil
	case '$', '=', '!':
		n, err := strconv.Atoi(body)
		if err != nil {
			return err
		}
		if n < 0 {
			return nil
		}
		_, err = io.CopyN(out, br, int64(n)+2)
		return err
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(body)
		if err != nil {
			return err
		}
		if line[0] == '%' || line[0] == '|' {
			n *= 2
		}
		for range max(n, 0) {
			if err := readFrame(br, out); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown reply type in %q", line)
}
