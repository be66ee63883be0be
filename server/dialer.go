package server

import (
	"context"
	"io"
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
// Each dialed connection is served by one goroutine that ends when the client
// closes the connection (rdb.Close()), so nothing outlives the client.
func Dialer(db *zlite.DB) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return New(WithDB(0, db)).Dialer()
}

// Dialer returns a go-redis Options.Dialer connecting to s in-process; see the
// package function [Dialer]. The connection is an in-memory pipe that, unlike
// net.Pipe, buffers writes, so a request and its reply cost one goroutine hand-off
// each way.
func (s *Server) Dialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		client, srv := memPipe()
		s.ServeConn(srv)
		return client, nil
	}
}

// memPipe returns the two ends of an in-memory, buffered, full-duplex connection.
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
