package list

import (
	"strings"
	"testing"
)

// byteReader hands out fuzz input bytes, then zeros once the input is used up.
type byteReader struct {
	b []byte
	i int
}

func (r *byteReader) next() byte {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

func (r *byteReader) done() bool { return r.i >= len(r.b) }

// value decodes an item: mostly one of a few letters, sometimes a run long enough to
// need a two-byte length or a page of its own.
func (r *byteReader) value() string {
	c := r.next()
	switch {
	case c < 200:
		return string(rune('a' + c%5))
	case c < 250:
		return strings.Repeat("q", int(r.next()))
	default:
		return strings.Repeat("L", 40+int(r.next())*2)
	}
}

// FuzzList decodes the input into a sequence of operations, applies them to two Lists
// and to slice models, and compares every result and the invariants after each step.
// It runs the sequence twice: with 48-byte pages, so that splits and merges happen
// often, and with 300-byte pages, so that a first page grows by half through the size
// classes up to the page size, and pages slide their bytes both within smallSlide and
// beyond it.
func FuzzList(f *testing.F) {
	for _, seed := range []string{
		"",
		"\x00\x03abc\x01\x02xy\x02\x03\x06\x01",
		"\x01\x05aaaaa\x09\x01\x00\x00\xff\x08\x00\xff",
		"\x00\x04\xfa\x10\xfa\x20ab\x0a\xfe\x00\x0b\x01\xfe",
		"\x01\x08abcdabcd\x0c\x01\x00\x00a\x0c\xfe\x00\x00a\x0d\x01\x0e\x03",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, size := range []int{48, 300} {
			r := &byteReader{b: data}
			h := newHarness(size)
			for step := 0; !r.done() && step < 2000; step++ {
				a := opArgs{op: int(r.next()) % numOps}
				a.x, a.y, a.z = int(int8(r.next())), int(int8(r.next())), int(r.next())
				bits := r.next()
				a.flag, a.flag2 = bits&1 != 0, bits&2 != 0
				a.v, a.pivot = r.value(), r.value()
				switch a.op {
				case 0, 1:
					for range 1 + a.z%5 {
						a.vs = append(a.vs, r.value())
					}
				case 12:
					a.y, a.z = a.y&7, a.z%20
				}
				if err := h.apply(a); err != nil {
					t.Fatalf("page size %d, step %d: %+v: %v", size, step, a, err)
				}
			}
			if err := h.same(); err != nil {
				t.Fatalf("page size %d: %v", size, err)
			}
		}
	})
}
