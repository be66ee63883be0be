package server

import (
	"strconv"
	"testing"
)

// BenchmarkEval is one EVAL round trip over loopback TCP: a script that makes one
// write (op=zadd), one that only returns (op=return), the cost of a run (sandbox,
// watch, redis.call) beside the protocol's.
func BenchmarkEval(b *testing.B) {
	for _, bc := range []struct{ op, script string }{
		{"return", "return 1"},
		{"zadd", "return redis.call('zadd', KEYS[1], ARGV[1], 'm')"},
	} {
		b.Run("op="+bc.op, func(b *testing.B) {
			addr, _ := startServer(b)
			w := dial(b, addr)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				if got := w.do("EVAL", bc.script, "1", "z", strconv.Itoa(i)); got[0] == '-' {
					b.Fatal(got)
				}
			}
		})
	}
}
