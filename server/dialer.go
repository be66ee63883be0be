package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net"
	"os"
	"sync"
	"time"

	"github.com/zlite/zlite"
)

// Dialer returns a function that connects to an in-process server over db (keyspace
// 0; 1 to 15 are new and empty), with no port and no socket. Its signature is
// go-redis's Options.Dialer:
//
//	rdb := redis.NewClient(&redis.Options{Dialer: server.Dialer(db)})
//
// A dialed connection runs its commands on the caller's goroutine and starts none,
// so nothing outlives the client.
func Dialer(db *zlite.DB) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return New(WithDB(0, db)).Dialer()
}

// Dialer returns a go-redis Options.Dialer connecting to s in-process; see the
// package function [Dialer]. A connection runs its commands on the goroutine that
// writes them (the go-redis caller's), with no socket and no goroutine of its own:
// a request and its reply cost no goroutine hand-off. A blocking command (BLPOP)
// blocks that caller, as it would waiting for Redis's reply; closing the client
// cancels it.
func (s *Server) Dialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return s.dialInline()
	}
}

// memPipe returns the two ends of an in-memory, buffered, full-duplex connection
// (unlike net.Pipe, a write never waits for the reader), for a connection served by
// its own goroutine (FuzzRequest) and as the reply side of a syncConn.
func memPipe() (net.Conn, net.Conn) {
	a, b := newMemBuf(), newMemBuf()
	return &memConn{rd: a, wr: b, name: "zlite-client"}, &memConn{rd: b, wr: a, name: "zlite-server"}
}

// memBuf is one direction of a memPipe: bytes written and not yet read.
type memBuf struct {
	mu     sync.Mutex
	buf    []byte
	closed bool          // the writer or the reader closed: reads drain, then EOF
	ready  chan struct{} // signalled (capacity 1) when data arrives or closed changes
}

func newMemBuf() *memBuf { return &memBuf{ready: make(chan struct{}, 1)} }

func (b *memBuf) notify() {
	select {
	case b.ready <- struct{}{}:
	default:
	}
}

// memConn is one end of a memPipe.
type memConn struct {
	rd, wr *memBuf
	name   string

	dmu      sync.Mutex
	deadline time.Time
	kick     chan struct{} // closed when the read deadline changes
}

type memAddr string

func (a memAddr) Network() string { return "memory" }
func (a memAddr) String() string  { return string(a) }

func (c *memConn) LocalAddr() net.Addr  { return memAddr(c.name) }
func (c *memConn) RemoteAddr() net.Addr { return memAddr(c.name) }

// Read waits for data, the peer's close, or the read deadline.
func (c *memConn) Read(p []byte) (int, error) {
	b := c.rd
	for {
		b.mu.Lock()
		if len(b.buf) > 0 {
			n := copy(p, b.buf)
			b.buf = b.buf[n:]
			if len(b.buf) == 0 {
				b.buf = b.buf[:0:0]
			}
			b.mu.Unlock()
			return n, nil
		}
		if b.closed {
			b.mu.Unlock()
			return 0, io.EOF
		}
		b.mu.Unlock()
		deadline, kick := c.readDeadline()
		if deadline.IsZero() {
			select {
			case <-b.ready:
			case <-kick:
			}
			continue
		}
		d := time.Until(deadline)
		if d <= 0 {
			return 0, os.ErrDeadlineExceeded
		}
		t := time.NewTimer(d)
		select {
		case <-b.ready:
		case <-kick:
		case <-t.C:
			return 0, os.ErrDeadlineExceeded
		}
		t.Stop()
	}
}

// Write appends p for the peer; it never blocks on the peer's reading.
func (c *memConn) Write(p []byte) (int, error) {
	b := c.wr
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return 0, io.ErrClosedPipe
	}
	b.buf = append(b.buf, p...)
	b.mu.Unlock()
	b.notify()
	return len(p), nil
}

// Close closes both directions: the peer reads what is left, then EOF.
func (c *memConn) Close() error {
	for _, b := range []*memBuf{c.rd, c.wr} {
		b.mu.Lock()
		b.closed = true
		b.mu.Unlock()
		b.notify()
	}
	return nil
}

// CloseWrite closes the direction towards the peer only (as TCP's half-close): the
// peer reads what is left, then EOF; this end can still read.
func (c *memConn) CloseWrite() error {
	b := c.wr
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.notify()
	return nil
}

func (c *memConn) readDeadline() (time.Time, chan struct{}) {
	c.dmu.Lock()
	defer c.dmu.Unlock()
	if c.kick == nil {
		c.kick = make(chan struct{})
	}
	return c.deadline, c.kick
}

// SetReadDeadline sets the read deadline, waking a blocked Read to look at it.
func (c *memConn) SetReadDeadline(t time.Time) error {
	c.dmu.Lock()
	c.deadline = t
	if c.kick != nil {
		close(c.kick)
		c.kick = nil
	}
	c.dmu.Unlock()
	return nil
}

// SetWriteDeadline does nothing: writes never block.
func (c *memConn) SetWriteDeadline(time.Time) error { return nil }

func (c *memConn) SetDeadline(t time.Time) error { return c.SetReadDeadline(t) }

// syncConn is the client end of an in-process connection whose commands run on the
// caller's goroutine: Write parses and runs every complete command it holds and
// appends the replies to the buffer that Read returns, so a request and its reply
// cost no goroutine hand-off. A blocking command blocks the Write that carries it;
// closing the connection (from another goroutine) cancels it.
type syncConn struct {
	*memConn // reads: the replies; deadlines
	end      *syncEnd
	c        *client

	mu      sync.Mutex // one Write at a time; guards pending
	pending []byte     // the bytes of an incomplete command
	once    sync.Once
}

// syncEnd is the server's end of a syncConn: it reads the complete commands Write
// hands it and writes replies into the client's read buffer.
type syncEnd struct {
	in  bytes.Buffer
	out *memBuf
}

func (e *syncEnd) Read(p []byte) (int, error) { return e.in.Read(p) }

// Buffered is the number of bytes written and not yet read by the client: the
// output a slow subscriber has not taken (see client.push).
func (e *syncEnd) Buffered() int {
	e.out.mu.Lock()
	defer e.out.mu.Unlock()
	return len(e.out.buf)
}
func (e *syncEnd) Write(p []byte) (int, error) { return (&memConn{wr: e.out}).Write(p) }
func (e *syncEnd) Close() error {
	e.out.mu.Lock()
	e.out.closed = true
	e.out.mu.Unlock()
	e.out.notify()
	return nil
}
func (e *syncEnd) LocalAddr() net.Addr              { return memAddr("zlite-server") }
func (e *syncEnd) RemoteAddr() net.Addr             { return memAddr("zlite-client") }
func (e *syncEnd) SetDeadline(time.Time) error      { return nil }
func (e *syncEnd) SetReadDeadline(time.Time) error  { return nil }
func (e *syncEnd) SetWriteDeadline(time.Time) error { return nil }

// dialInline returns the client end of a new in-process connection to s.
func (s *Server) dialInline() (net.Conn, error) {
	out := newMemBuf()
	end := &syncEnd{out: out}
	c := s.register(end, true)
	if c == nil {
		return nil, errors.New("server: connection refused (closed, or maxclients reached)")
	}
	c.rd.br = bufio.NewReaderSize(&end.in, 16<<10)
	return &syncConn{memConn: &memConn{rd: out, wr: newMemBuf(), name: "zlite-client"}, end: end, c: c}, nil
}

// Write runs the complete commands of everything written so far.
func (sc *syncConn) Write(p []byte) (int, error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	c := sc.c
	if c.isKilled() {
		return 0, io.ErrClosedPipe
	}
	sc.pending = append(sc.pending, p...)
	n := completePrefix(sc.pending, c.srv.maxBulk.Load())
	if n == 0 {
		return len(p), nil
	}
	sc.end.in.Write(sc.pending[:n])
	sc.pending = append(sc.pending[:0], sc.pending[n:]...)
	for c.rd.br.Buffered() > 0 || sc.end.in.Len() > 0 {
		if c.stopping() || !c.step() {
			sc.finish()
			return len(p), nil
		}
	}
	c.lockW()
	_ = c.w.bw.Flush()
	c.unlockW()
	return len(p), nil
}

// finish ends the connection: replies written so far stay readable, then EOF.
func (sc *syncConn) finish() {
	sc.once.Do(func() {
		sc.c.lockW()
		_ = sc.c.w.bw.Flush()
		sc.c.unlockW()
		sc.c.endMonitor(true)
		sc.c.endPush()
		sc.c.watch.clear()
		sc.end.Close()
		sc.c.srv.unregister(sc.c)
	})
}

// Close closes the connection, cancelling a command blocked in a Write.
func (sc *syncConn) Close() error {
	sc.c.kill()
	sc.mu.Lock() // wait for a Write in progress to return
	defer sc.mu.Unlock()
	sc.finish()
	return nil
}

// completePrefix returns the length of the longest prefix of b made of whole
// commands. A malformed command counts as whole: the parser then replies its
// protocol error.
func completePrefix(b []byte, maxBulk int64) int {
	i := 0
	for i < len(b) {
		n := commandLen(b[i:], maxBulk)
		if n == 0 {
			break
		}
		i += n
	}
	return i
}

// commandLen returns the length of the command at the start of b, 0 when it is
// incomplete, or len(b) when it is malformed.
func commandLen(b []byte, maxBulk int64) int {
	line := func(from int) (int, bool) { // end of the line starting at from, after its LF
		e := bytes.IndexByte(b[from:], '\n')
		if e < 0 {
			return 0, len(b)-from > inlineMax
		}
		return from + e + 1, false
	}
	num := func(from, to int) (int64, bool) {
		l := b[from : to-1]
		if n := len(l); n > 0 && l[n-1] == '\r' {
			l = l[:n-1]
		}
		return parseLen(l)
	}
	end, bad := line(0)
	switch {
	case bad:
		return len(b)
	case end == 0:
		return 0
	case b[0] != '*':
		return end
	}
	n, ok := num(1, end)
	if !ok || n > math.MaxInt32 {
		return len(b)
	}
	pos := end
	for range max(n, 0) {
		if pos >= len(b) {
			return 0
		}
		if b[pos] != '$' {
			return len(b)
		}
		e, bad := line(pos)
		switch {
		case bad:
			return len(b)
		case e == 0:
			return 0
		}
		l, ok := num(pos+1, e)
		if !ok || l < 0 || l > maxBulk {
			return len(b)
		}
		if int64(len(b)-e) < l+2 {
			return 0
		}
		pos = e + int(l) + 2
	}
	return pos
}
