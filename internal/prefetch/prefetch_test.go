package prefetch

import (
	"testing"
	"unsafe"
)

// TestLineReadsOnly checks that Line accepts every offset of a buffer, aligned or
// not, including its last byte, and addresses that cannot be read, and changes
// nothing.
func TestLineReadsOnly(t *testing.T) {
	buf := make([]byte, 130)
	for i := range buf {
		buf[i] = byte(i)
	}
	for i := range buf {
		Line(unsafe.Pointer(&buf[i]))
	}
	Line(nil)
	for i, b := range buf {
		if b != byte(i) {
			t.Fatalf("buf[%d] = %d after Line; want %d", i, b, i)
		}
	}
}

// TestSpanReadsOnly checks that Span accepts every length of a buffer from 0 (the
// line it reads then is the buffer's first) to past 256, and changes nothing.
func TestSpanReadsOnly(t *testing.T) {
	buf := make([]byte, 600)
	for i := range buf {
		buf[i] = byte(i)
	}
	for n := range len(buf) + 1 {
		Span(unsafe.Pointer(&buf[0]), uintptr(n))
	}
	Span(nil, 0)
	for i, b := range buf {
		if b != byte(i) {
			t.Fatalf("buf[%d] = %d after Span; want %d", i, b, i)
		}
	}
}
