package server

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"slices"
	"testing"
)

// FuzzRequest sends arbitrary bytes to a connection and checks that the server
// never panics or hangs: every reply it writes is well-formed RESP, and the
// connection's goroutine ends once the client closes (Close waits for it).
func FuzzRequest(f *testing.F) {
	for _, seed := range []string{
		"PING\r\n",
		"*3\r\n$4\r\nZADD\r\n$1\r\nk\r\n$1\r\n1\r\n",
		"*4\r\n$4\r\nZADD\r\n$1\r\nk\r\n$1\r\n1\r\n$1\r\nm\r\n*4\r\n$6\r\nZRANGE\r\n$1\r\nk\r\n$1\r\n0\r\n$2\r\n-1\r\n",
		"*1\r\n$999999999999\r\n", "*-1\r\n*0\r\n", "*2147483648\r\n", "$5\r\n", "*1\r\n:1\r\n",
		"ECHO \"a\\x41\\n\" 'b'\r\n", "ECHO \"unbalanced\r\n",
		"HELLO 3\r\nZADD k 1 a\r\nZRANGE k 0 -1 WITHSCORES\r\nBLPOP q 0\r\n",
		"MULTI\r\nZADD k 1 a\r\nWATCH k\r\nEXEC\r\n",
		"AUTH x\r\nCLIENT KILL ID 1\r\nSELECT 15\r\nSWAPDB 0 15\r\nFLUSHALL\r\n",
		"CLIENT REPLY SKIP\r\nPING\r\nMULTI\r\nCLIENT REPLY OFF\r\nPING\r\nEXEC\r\nBLPOP q 0\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := New(WithProtoMaxBulkLen(1 << 20))
		cli, srv := memPipe()
		s.ServeConn(srv)
		if _, err := cli.Write(data); err != nil {
			t.Fatal(err)
		}
		// The end of the request stream ends the connection, even in the middle of
		// a request or of a blocking command.
		_ = cli.(*memConn).CloseWrite()
		out, err := io.ReadAll(cli)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		checkFrames(t, data, out)
	})
}

// checkFrames checks that out, the replies to the request bytes data, is whole
// RESP frames. It does not when data may hold CLIENT REPLY: OFF or SKIP inside
// EXEC drops replies that EXEC's array counts, as in Redis.
func checkFrames(t *testing.T, data, out []byte) {
	t.Helper()
	if bytes.Contains(bytes.ToLower(data), []byte("reply")) {
		return
	}
	br := bufio.NewReader(bytes.NewReader(out))
	for {
		if _, err := br.Peek(1); err == io.EOF {
			return
		}
		var b bytes.Buffer
		if err := readFrame(br, &b); err != nil {
			t.Fatalf("malformed reply after %q: %v (output %q)", b.String(), err, out)
		}
	}
}

// FuzzRequestInline sends arbitrary bytes, in two writes, through a Dialer
// connection (commands run in the writer's goroutine): no panic, no hang (a
// blocked command is cancelled by Close), well-formed replies.
func FuzzRequestInline(f *testing.F) {
	f.Add([]byte("*2\r\n$4\r\nECHO\r\n$3\r\nabc\r\n"), 7)
	f.Add([]byte("PING\r\n*1\r\n$999999999999\r\n"), 3)
	f.Add([]byte("*3\r\n$5\r\nBLPOP\r\n$1\r\nq\r\n$1\r\n0\r\nPING\r\n"), 20)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		s := New(WithProtoMaxBulkLen(1 << 20))
		nc, err := s.dialInline()
		if err != nil {
			t.Fatal(err)
		}
		cut = min(max(cut, 0), len(data))
		wrote := make(chan struct{})
		go func() {
			defer close(wrote)
			_, _ = nc.Write(data[:cut])
			_, _ = nc.Write(data[cut:])
		}()
	wait:
		for {
			select {
			case <-wrote:
				break wait
			default:
				if s.blocked.Load() > 0 {
					nc.Close()
				}
				runtime.Gosched()
			}
		}
		nc.Close()
		out, err := io.ReadAll(nc)
		if err != nil {
			t.Fatal(err)
		}
		checkFrames(t, data, out)
	})
}

// FuzzBuffered checks the in-place parser against the streaming one: whenever
// reader.buffered parses a command from bytes, reader.next parses the same
// arguments from the same bytes and stops at the same place.
func FuzzBuffered(f *testing.F) {
	for _, seed := range []string{
		"*3\r\n$4\r\nZADD\r\n$1\r\nk\r\n$1\r\n1\r\n", "*1\r\n$0\r\n\r\n", "*2\r\n$3\r\nabc\r\n$1\r\nd\r\n*1\r\n$4\r\nPING\r\n",
		"*1\r\n$01\r\nx\r\n", "*01\r\n$1\r\nx\r\n", "*1\r\n$-1\r\n", "*1\n$1\nx\r\n", "*1\r\n$2\r\nab", "*12\r\n",
		"*1\r\n$200\r\n" + string(bytes.Repeat([]byte("y"), 200)) + "\r\n",
	} {
		f.Add([]byte(seed), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, unauth bool) {
		const maxBulk = 100
		fast := reader{br: bufio.NewReaderSize(bytes.NewReader(data), 16<<10)}
		_, _ = fast.br.Peek(len(data))
		args, ok := fast.buffered(maxBulk, unauth)
		if !ok {
			if fast.br.Buffered() != min(len(data), 16<<10) {
				t.Fatalf("buffered(%q) refused but consumed bytes", data)
			}
			return
		}
		slow := reader{br: bufio.NewReaderSize(bytes.NewReader(data), 16<<10)}
		want, err := slow.next(maxBulk, unauth)
		if err != nil || !slices.Equal(args, want) {
			t.Fatalf("buffered(%q) = %q; next = %q, %v", data, args, want, err)
		}
		if fast.br.Buffered() != slow.br.Buffered() {
			t.Fatalf("buffered(%q) left %d bytes; next left %d", data, fast.br.Buffered(), slow.br.Buffered())
		}
	})
}
