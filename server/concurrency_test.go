package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestManyClients runs 100 clients at once: 50 producers pipelining RPUSH in
// batches, 50 consumers in BLPOP, and clients that disconnect in the middle of a
// blocking command or of a request. Every pushed element must be popped exactly
// once or still be in the list: none is lost to a disconnect.
func TestManyClients(t *testing.T) {
	addr, srv := startServer(t)
	const producers, consumers, batches, batch = 50, 50, 10, 20
	errs := make(chan error, producers+consumers+20)
	var wg sync.WaitGroup
	conn := func() (net.Conn, *bufio.Reader, error) {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			return nil, nil, err
		}
		return nc, bufio.NewReader(nc), nil
	}
	reply := func(br *bufio.Reader) (string, error) {
		var b bytes.Buffer
		err := readFrame(br, &b)
		return b.String(), err
	}
	got := make([][]string, consumers)
	var cwg sync.WaitGroup
	for c := range consumers {
		cwg.Add(1)
		go func() {
			defer cwg.Done()
			nc, br, err := conn()
			if err != nil {
				errs <- err
				return
			}
			defer nc.Close()
			for {
				if _, err := nc.Write(encode("BLPOP", "q", "0")); err != nil {
					errs <- err
					return
				}
				r, err := reply(br)
				if err != nil {
					errs <- fmt.Errorf("consumer %d: %v", c, err)
					return
				}
				// *2 $1 q $n value
				parts := strings.Split(r, "\r\n")
				if len(parts) < 5 {
					errs <- fmt.Errorf("consumer %d: BLPOP reply %q", c, r)
					return
				}
				if parts[4] == "stop" {
					return
				}
				got[c] = append(got[c], parts[4])
			}
		}()
	}
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nc, br, err := conn()
			if err != nil {
				errs <- err
				return
			}
			defer nc.Close()
			for b := range batches {
				var req bytes.Buffer
				for i := range batch {
					req.Write(encode("RPUSH", "q", fmt.Sprintf("p%d-%d-%d", p, b, i)))
				}
				if _, err := nc.Write(req.Bytes()); err != nil {
					errs <- err
					return
				}
				for range batch {
					if r, err := reply(br); err != nil || r[0] != ':' {
						errs <- fmt.Errorf("producer %d: RPUSH reply %q, %v", p, r, err)
						return
					}
				}
			}
		}()
	}
	// Clients that leave mid-command: blocked on another key, then gone; or gone
	// halfway through a request.
	for k := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nc, _, err := conn()
			if err != nil {
				errs <- err
				return
			}
			if k%2 == 0 {
				_, _ = nc.Write(encode("BLPOP", "gone", "0"))
			} else {
				_, _ = nc.Write([]byte("*3\r\n$5\r\nRPUSH\r\n$4\r\ngone\r\n$10\r\nhal"))
			}
			nc.Close()
		}()
	}
	// When the producers are done, one "stop" per consumer ends them.
	wg.Wait()
	stop, br, err := conn()
	if err != nil {
		t.Fatal(err)
	}
	defer stop.Close()
	for range consumers {
		if _, err := stop.Write(encode("RPUSH", "q", "stop")); err != nil {
			t.Fatal(err)
		}
		if r, err := reply(br); err != nil || r[0] != ':' {
			t.Fatalf("RPUSH stop: %q, %v", r, err)
		}
	}
	cwg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	seen := map[string]int{}
	for _, vs := range got {
		for _, v := range vs {
			seen[v]++
		}
	}
	left, _ := srv.DB(0).LRange(context.Background(), "q", 0, -1)
	for _, v := range left {
		seen[v]++
	}
	for p := range producers {
		for b := range batches {
			for i := range batch {
				if v := fmt.Sprintf("p%d-%d-%d", p, b, i); seen[v] != 1 {
					t.Fatalf("element %s popped or left %d times; want exactly once", v, seen[v])
				}
			}
		}
	}
	// The clients that left while blocked on "gone" must not take an element.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		srv.mu.Lock()
		n := len(srv.clients)
		srv.mu.Unlock()
		if n == 1 && srv.blocked.Load() == 0 {
			break // only the stop client is left
		}
		if ctx.Err() != nil {
			t.Fatalf("%d clients still connected, %d blocked, after their connections closed", n, srv.blocked.Load())
		}
		runtime.Gosched()
	}
	if _, err := stop.Write(encode("RPUSH", "gone", "kept")); err != nil {
		t.Fatal(err)
	}
	if r, err := reply(br); err != nil || r != ":1\r\n" {
		t.Fatalf("RPUSH gone kept = %q, %v; want :1 (no half-sent RPUSH ran)", r, err)
	}
	if n, _ := srv.DB(0).LLen(context.Background(), "gone"); n != 1 {
		t.Fatalf("LLEN gone = %d; want 1: a disconnected BLPOP took the element", n)
	}
}

// TestMoveBothWays runs MOVEs of one key between keyspaces 0 and 1 from two
// clients at once, each moving it away from its own keyspace: MOVE holds both
// keyspaces, the lower first, so neither deadlocks the other, and the key is
// always in exactly one of them.
func TestMoveBothWays(t *testing.T) {
	addr, _ := startServer(t)
	setup := dial(t, addr)
	setup.do("SET", "k", "v")
	const rounds = 300
	errs := make(chan error, 2)
	for db := range 2 {
		w := dial(t, addr)
		w.do("SELECT", fmt.Sprint(db))
		go func() {
			for range rounds {
				w.send("MOVE", "k", fmt.Sprint(1-db))
				r, err := w.read()
				if err == nil && r != ":0\r\n" && r != ":1\r\n" {
					err = fmt.Errorf("MOVE k %d from %d = %q", 1-db, db, r)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	in0 := setup.do("EXISTS", "k")
	setup.do("SELECT", "1")
	in1 := setup.do("EXISTS", "k")
	if in0+in1 != ":1\r\n:0\r\n" && in0+in1 != ":0\r\n:1\r\n" {
		t.Fatalf("EXISTS k in keyspaces 0 and 1: %q, %q; want the key in exactly one", in0, in1)
	}
}
