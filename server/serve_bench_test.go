package server

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/internal/testmain"
)

// batchConn is a net.Conn that a benchmark feeds one pipelined batch at a time:
// Read hands out the batch once it is armed, Write discards the replies. It has
// no socket, so a benchmark of the serving path measures the server's own work
// per command, without the system calls.
type batchConn struct {
	batch []byte
	armed bool // Read has the batch to give
	wrote int  // bytes of replies written
}

func (c *batchConn) Read(p []byte) (int, error) {
	if !c.armed {
		return 0, io.EOF
	}
	c.armed = false
	return copy(p, c.batch), nil
}

func (c *batchConn) Write(p []byte) (int, error) {
	c.wrote += len(p)
	return len(p), nil
}

func (c *batchConn) Close() error                     { return nil }
func (c *batchConn) LocalAddr() net.Addr              { return memAddr("bench") }
func (c *batchConn) RemoteAddr() net.Addr             { return memAddr("bench") }
func (c *batchConn) SetDeadline(time.Time) error      { return nil }
func (c *batchConn) SetReadDeadline(time.Time) error  { return nil }
func (c *batchConn) SetWriteDeadline(time.Time) error { return nil }

// request encodes args as a RESP multibulk request, as redis-benchmark sends it.
func request(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

// BenchmarkServe measures the serving path of one connection (parsing, dispatch,
// the keyspace command and the reply) per pipelined command of redis-benchmark's
// tests, at -P 64 and -P 1, without a socket: ns/op is per command.
func BenchmarkServe(b *testing.B) {
	tests := []struct {
		name string
		req  func(i int) string
		fill string // the test's "before" command, run between rounds when the key runs low
	}{
		{"zadd", func(i int) string {
			r := strconv.Itoa(i * 7919 % 100000)
			return request("ZADD", "myzset", r, "element:"+r)
		}, ""},
		{"zpopmin", func(int) string { return request("ZPOPMIN", "myzset") }, "zadd"},
		{"lpush", func(int) string { return request("LPUSH", "mylist", "xxx") }, ""},
		{"rpop", func(int) string { return request("RPOP", "mylist") }, "lpush"},
	}
	for _, tc := range tests {
		for _, p := range []int{1, 64} {
			b.Run("cmd="+tc.name+"/P="+strconv.Itoa(p), func(b *testing.B) {
				var batch strings.Builder
				for i := range p {
					batch.WriteString(tc.req(i))
				}
				db := zlite.New()
				s := New(WithDB(0, db))
				nc := &batchConn{batch: []byte(batch.String())}
				c := newClient(s, nc)
				key := map[string]string{"zadd": "myzset", "lpush": "mylist"}[tc.fill]
				refill := func() {
					for i := range 100000 {
						r := strconv.Itoa(i * 7919 % 100000)
						var err error
						if tc.fill == "zadd" {
							_, err = db.Do(b.Context(), "ZADD", key, r, "element:"+r)
						} else {
							_, err = db.Do(b.Context(), "LPUSH", key, "xxx")
						}
						if err != nil {
							b.Fatal(err)
						}
					}
				}
				left := 0
				b.ReportAllocs()
				for b.Loop() {
					if tc.fill != "" && left < p {
						b.StopTimer()
						refill()
						left = 100000
						b.StartTimer()
					}
					left -= p
					nc.armed = true
					// One read, p commands, one flush at the next read (EOF).
					for nc.armed || c.rd.br.Buffered() > 0 {
						if !c.step() {
							b.Fatal("connection ended")
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*p), "ns/cmd")
			})
		}
	}
}

// chunkConn is a net.Conn whose reads hand out a request stream in pieces of
// random sizes, so that commands straddle reads, and whose writes collect the
// replies.
type chunkConn struct {
	batchConn
	in  []byte
	r   *rand.Rand
	out bytes.Buffer
}

func (c *chunkConn) Read(p []byte) (int, error) {
	if len(c.in) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.in), 1+c.r.IntN(300))
	copy(p, c.in[:n])
	c.in = c.in[n:]
	return n, nil
}

func (c *chunkConn) Write(p []byte) (int, error) { return c.out.Write(p) }

// TestStraddlingReads sends LPUSH v and LINDEX 0 pairs (small values, whose
// arguments share one string, and values past arenaMax, which do not), inline
// commands and empty lines, in pieces that make commands straddle reads, and
// requires every reply: a command parsed from a stale or partial buffer would
// return another value. The values are compared after the whole stream, once the
// read buffer has been overwritten many times.
func TestStraddlingReads(t *testing.T) {
	r := rand.New(rand.NewPCG(testmain.Seed(t), 3))
	var in, want bytes.Buffer
	n := 0
	for i := range 3000 {
		v := strconv.Itoa(i) + ":" + strings.Repeat(string(rune('a'+i%26)), r.IntN(40))
		if r.IntN(10) == 0 {
			v += strings.Repeat("z", arenaMax+r.IntN(3000))
		}
		n++
		in.WriteString(request("LPUSH", "l", v))
		fmt.Fprintf(&want, ":%d\r\n", n)
		switch r.IntN(5) {
		case 0:
			in.WriteString("LINDEX l 0\r\n") // inline: read by next
		case 1:
			in.WriteString("\r\n" + request("LINDEX", "l", "0"))
		default:
			in.WriteString(request("LINDEX", "l", "0"))
		}
		fmt.Fprintf(&want, "$%d\r\n%s\r\n", len(v), v)
	}
	nc := &chunkConn{in: in.Bytes(), r: r}
	c := newClient(New(), nc)
	for c.step() {
	}
	if got := nc.out.String(); got != want.String() {
		i := 0
		for i < len(got) && i < want.Len() && got[i] == want.String()[i] {
			i++
		}
		t.Fatalf("replies differ at byte %d of %d: got %.80q, want %.80q", i, want.Len(), got[i:], want.String()[i:])
	}
}
