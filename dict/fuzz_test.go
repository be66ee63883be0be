package dict

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// fuzzLimits are the limits the first input byte picks from.
var fuzzLimits = []Limits{DefaultLimits, {Entries: 0, Value: 64}, {Entries: 1, Value: 0}, {Entries: 4, Value: 4}, {Entries: 16, Value: 16}, {Entries: 3, Value: 1}}

// FuzzMap decodes the input into a sequence of operations, runs them on a Map and on
// the model (a Go map and the insertion order), compares every result, and compares
// the whole state (check, Len, Encoding, All in order) after each step. Each operation
// is an opcode byte followed by argument bytes; fields come from a small alphabet, so
// that operations collide, and values from lengths around the limits. Bulk opcodes add
// or delete up to 255 fields at once so that short inputs cross the 128-entry limit
// and grow, shrink and compact the table. The first byte picks the limits.
func FuzzMap(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 0, 3, 4, 1, 1, 2, 1, 7})
	f.Add([]byte{0, 3, 200, 5, 9, 4, 150, 0, 1, 65, 8, 16, 6, 7, 5, 3})
	f.Add([]byte{1, 3, 40, 4, 20, 0, 33, 0, 8, 100, 1, 2, 4, 255, 5, 1})
	f.Add([]byte{3, 0, 1, 5, 0, 2, 6, 0, 3, 7, 8, 1, 9, 1, 1, 1, 2, 4, 4})
	f.Add([]byte{0, 3, 129, 8, 30, 200, 4, 100, 3, 60, 4, 88, 5, 1, 6, 7, 4, 255})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		lim := fuzzLimits[int(data[0])%len(fuzzLimits)]
		data = data[1:]
		d, m := NewWithLimits(lim), newModel(lim)
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return int(b)
		}
		field := func() string {
			b := next()
			s := string([]byte{"\x00ab\xff"[b&3], "abcdefgh"[b>>2&7], 'z'})
			return s[:b>>5&3]
		}
		value := func() string {
			b := next()
			if b >= 240 {
				return intValues[int(b-240)%len(intValues)]
			}
			return strings.Repeat(string(rune('A'+b%26)), b%70)
		}
		r := rand.New(rand.NewPCG(uint64(len(data)), 9))
		for step := 0; len(data) > 0; step++ {
			var op string
			switch next() % 9 {
			case 0:
				f, v := field(), value()
				op = fmt.Sprintf("Set(%q, %q)", f, v)
				if got, want := d.Set(f, v), m.set(f, v); got != want {
					t.Fatalf("step %d: d.%s = %v; want %v", step, op, got, want)
				}
			case 1:
				f := field()
				op = fmt.Sprintf("Delete(%q)", f)
				if got, want := d.Delete(f), m.del(f); got != want {
					t.Fatalf("step %d: d.%s = %v; want %v", step, op, got, want)
				}
			case 2:
				f := field()
				op = fmt.Sprintf("Get(%q)", f)
				want, wok := m.vals[f]
				if got, ok := d.Get(f); got != want || ok != wok {
					t.Fatalf("step %d: d.Get(%q) = %q, %v; want %q, %v", step, f, got, ok, want, wok)
				}
				if n, ok := d.ValueLen(f); n != len(want) || ok != wok || d.Has(f) != wok {
					t.Fatalf("step %d: d.ValueLen(%q) = %d, %v, Has %v; want %d, %v", step, f, n, ok, d.Has(f), len(want), wok)
				}
			case 3:
				k, vl := next(), next()%80
				op = fmt.Sprintf("bulk Set of %d", k)
				for i := range k {
					f, v := "bulk"+strconv.Itoa(i), strings.Repeat("v", vl)
					if got, want := d.Set(f, v), m.set(f, v); got != want {
						t.Fatalf("step %d: d.Set(%q, %q) = %v; want %v", step, f, v, got, want)
					}
				}
			case 4:
				k, stride := next(), 1+next()%4
				op = fmt.Sprintf("bulk Delete of %d every %d", k, stride)
				fields := []string{}
				for i := 0; i < len(m.order) && len(fields) < k; i += stride {
					fields = append(fields, m.order[i])
				}
				for _, f := range fields {
					if got, want := d.Delete(f), m.del(f); got != want {
						t.Fatalf("step %d: d.Delete(%q) = %v; want %v", step, f, got, want)
					}
				}
			case 5:
				op = "Scan"
				count := next() % 20
				seen := map[string]int{}
				var cursor uint64
				for calls := 0; ; calls++ {
					// A call yields at least one live field or skips 10 dead
					// records, and the dead are never more than the live.
					if calls > len(m.vals)+len(m.vals)/10+3 {
						t.Fatalf("step %d: scan with count %d does not end", step, count)
					}
					cursor = d.Scan(cursor, count, func(f, v string) bool {
						if want, ok := m.vals[f]; !ok || want != v {
							t.Fatalf("step %d: Scan yields %q=%q; want %q, %v", step, f, v, want, ok)
						}
						seen[f]++
						return true
					})
					if cursor == 0 {
						break
					}
				}
				for f := range m.vals {
					if seen[f] != 1 {
						t.Fatalf("step %d: Scan yields %q %d times; want once", step, f, seen[f])
					}
				}
			case 6:
				op = "Random"
				f, v, ok := d.Random(r)
				want, in := m.vals[f]
				if ok != (len(m.vals) > 0) || ok && (!in || want != v) {
					t.Fatalf("step %d: d.Random() = %q, %q, %v; want a pair of the map (len %d)", step, f, v, ok, len(m.vals))
				}
			case 7:
				op = "Clone"
				c := d.Clone()
				c.Set("clone", "only")
				d = d.Clone()
			case 8:
				f, v := field(), strings.Repeat("L", next()*4)
				op = fmt.Sprintf("Set(%q, %d bytes)", f, len(v))
				if got, want := d.Set(f, v), m.set(f, v); got != want {
					t.Fatalf("step %d: d.%s = %v; want %v", step, op, got, want)
				}
			}
			if err := m.compare(d, nil); err != nil {
				t.Fatalf("step %d, after %s: %v", step, op, err)
			}
		}
	})
}
