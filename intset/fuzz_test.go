package intset

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// fuzzReader hands out fuzz input bytes, then zeros once the input is used up.
type fuzzReader struct {
	b []byte
	i int
}

func (r *fuzzReader) next() byte {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

func (r *fuzzReader) done() bool { return r.i >= len(r.b) }

// value decodes a value: mostly a small one (so that members collide), else one at a
// width boundary give or take a little, else any int64 from 8 bytes.
func (r *fuzzReader) value() int64 {
	c := r.next()
	switch {
	case c < 128:
		return int64(c) - 64
	case c < 224:
		return boundaries[int(c-128)%len(boundaries)] + int64(int8(r.next()))%4
	case c < 240:
		return int64(int32(binary.LittleEndian.Uint32([]byte{r.next(), r.next(), r.next(), r.next()})))
	}
	var b [8]byte
	for k := range b {
		b[k] = r.next()
	}
	return int64(binary.LittleEndian.Uint64(b[:]))
}

// FuzzIntset decodes the input into a sequence of operations (one byte for the
// operation, then its value and an index byte), applies them to a Set and to the
// model, and compares every result and the invariants after each step.
func FuzzIntset(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 1, 0, 0, 2, 0, 0, 200, 0, 1, 1, 0})
	f.Add([]byte{0, 128 + 3, 0, 0, 0, 5, 0, 128 + 4, 0, 0, 128 + 6, 0, 8, 0, 0, 1, 128 + 4, 0})
	f.Add([]byte{0, 255, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 11, 0, 30, 4, 0, 0, 4, 0, 1})
	f.Add([]byte{11, 128 + 9, 0, 39, 0, 128 + 13, 0, 0, 4, 0, 3, 9, 0, 0, 8, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzReader{b: data}
		s, m := New(), newModel()
		r := rand.New(rand.NewPCG(uint64(len(data)), 1))
		for step := 0; !in.done() && step < 2000; step++ {
			o := op{kind: int(in.next()) % numKinds}
			o.v = in.value()
			o.i = int(in.next())
			if err := apply(s, m, o, r); err != nil {
				t.Fatalf("step %d: %s: %v", step, o, err)
			}
		}
	})
}
