package fuzz

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/zlite/zlite/list"
)

var fuzzValues = []string{"a", "b", "c", "", "pivot", "\x00", "\xff\xfe", "a\x00b", "é", "1", "-1"}

type ldecoder struct{ byteSource }

func (d *ldecoder) value() string {
	switch d.intn(12) {
	case 0:
		b := make([]byte, d.intn(40))
		for i := range b {
			b[i] = byte(d.intn(256))
		}
		return string(b)
	case 1:
		return strings.Repeat(string(rune('A'+d.intn(26))), 100+d.intn(2000))
	}
	return fuzzValues[d.intn(len(fuzzValues))]
}

func (d *ldecoder) idx(n int) int { return d.intn(2*n+7) - n - 3 }

// lmodelRange is LRANGE on a slice, with Redis's clamping.
func lmodelRange(m []string, start, stop int) []string {
	n := len(m)
	if start < 0 {
		start += n
	}
	if stop < 0 {
		stop += n
	}
	start = max(start, 0)
	if start > stop || start >= n {
		return nil
	}
	return m[start : min(stop, n-1)+1]
}

func lmodelIndex(m []string, i int) (int, bool) {
	if i < 0 {
		i += len(m)
	}
	return i, i >= 0 && i < len(m)
}

// FuzzList runs operations decoded from the input on two list.Lists and on slices,
// comparing every result and the whole contents after each step.
func FuzzList(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"))
	f.Add([]byte("rpush queue job1 job2 job3; lpop queue; lmove queue done left right"))
	f.Add([]byte{1, 0, 50, 1, 1, 50, 2, 0, 50, 3, 1, 7, 7, 7, 7, 7, 7, 7, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &ldecoder{byteSource{b: data}}
		ls := [2]*list.List{list.New(), {}} // New and the zero value
		ms := [2][]string{}
		var log []string
		fail := func(format string, args ...any) {
			t.Helper()
			if len(log) > 60 {
				log = append([]string{"…"}, log[len(log)-60:]...)
			}
			t.Fatalf("after:\n  %s\n%s", strings.Join(log, "\n  "), fmt.Sprintf(format, args...))
		}
		short := func(s string) string {
			if len(s) > 20 {
				return fmt.Sprintf("%q…(%d bytes)", s[:20], len(s))
			}
			return fmt.Sprintf("%q", s)
		}
		for step := 0; step < 300 && !d.done(); step++ {
			i := d.intn(2)
			l, m := ls[i], ms[i]
			switch op := d.intn(16); op {
			case 0, 1: // PushFront / PushBack
				vs := make([]string, 1+d.intn(3))
				for j := range vs {
					vs[j] = d.value()
				}
				if d.intn(4) == 0 && len(m) < 3000 { // many at once, to span pages
					for range 20 + d.intn(200) {
						vs = append(vs, vs[0])
					}
				}
				log = append(log, fmt.Sprintf("l%d push front=%v %d values starting %s", i, op == 0, len(vs), short(vs[0])))
				if op == 0 {
					l.PushFront(vs...)
					for _, v := range vs {
						m = append([]string{v}, m...)
					}
				} else {
					l.PushBack(vs...)
					m = append(m, vs...)
				}
			case 2, 3: // PopFront / PopBack
				log = append(log, fmt.Sprintf("l%d pop front=%v", i, op == 2))
				var got string
				var ok bool
				if op == 2 {
					got, ok = l.PopFront()
				} else {
					got, ok = l.PopBack()
				}
				want, wok := "", len(m) > 0
				if wok && op == 2 {
					want, m = m[0], m[1:]
				} else if wok {
					want, m = m[len(m)-1], m[:len(m)-1]
				}
				if got != want || ok != wok {
					fail("pop = %s, %v; want %s, %v", short(got), ok, short(want), wok)
				}
			case 4, 5: // PopFrontN / PopBackN
				n := d.intn(6) - 1
				log = append(log, fmt.Sprintf("l%d popN front=%v %d", i, op == 4, n))
				var got, want []string
				k := min(max(n, 0), len(m))
				if op == 4 {
					got = l.PopFrontN(n)
					want, m = slices.Clone(m[:k]), m[k:]
				} else {
					got = l.PopBackN(n)
					want = slices.Clone(m[len(m)-k:])
					slices.Reverse(want)
					m = m[:len(m)-k]
				}
				if !slices.Equal(got, want) {
					fail("popN(%d) = %q; want %q", n, got, want)
				}
			case 6: // Index, Range
				x := d.idx(len(m))
				wi, wok := lmodelIndex(m, x)
				got, ok := l.Index(x)
				if ok != wok || ok && got != m[wi] {
					fail("Index(%d) = %s, %v; want ok=%v", x, short(got), ok, wok)
				}
				a, b := d.idx(len(m)), d.idx(len(m))
				if got, want := l.Range(a, b), lmodelRange(m, a, b); !slices.Equal(got, want) {
					fail("Range(%d, %d) = %q; want %q", a, b, got, want)
				}
			case 7: // Set
				x, v := d.idx(len(m)), d.value()
				log = append(log, fmt.Sprintf("l%d Set(%d, %s)", i, x, short(v)))
				wi, wok := lmodelIndex(m, x)
				err := l.Set(x, v)
				if wok {
					m[wi] = v
				}
				if (err == nil) != wok || err != nil && !errors.Is(err, list.ErrIndexOutOfRange) {
					fail("Set(%d) = %v; want ok=%v", x, err, wok)
				}
			case 8: // Insert
				before, pivot, v := d.intn(2) == 0, d.value(), d.value()
				log = append(log, fmt.Sprintf("l%d Insert(%v, %s, %s)", i, before, short(pivot), short(v)))
				want := -1
				if at := slices.Index(m, pivot); at >= 0 {
					if !before {
						at++
					}
					m = slices.Insert(m, at, v)
					want = len(m)
				}
				if got := l.Insert(before, pivot, v); got != want {
					fail("Insert = %d; want %d", got, want)
				}
			case 9: // Remove
				count, v := d.intn(7)-3, d.value()
				log = append(log, fmt.Sprintf("l%d Remove(%d, %s)", i, count, short(v)))
				want := 0
				if count >= 0 {
					out := m[:0]
					for _, x := range m {
						if x == v && (count == 0 || want < count) {
							want++
							continue
						}
						out = append(out, x)
					}
					m = out
				} else {
					for j := len(m) - 1; j >= 0 && want < -count; j-- {
						if m[j] == v {
							m = slices.Delete(m, j, j+1)
							want++
						}
					}
				}
				if got := l.Remove(count, v); got != want {
					fail("Remove = %d; want %d", got, want)
				}
			case 10: // Trim
				a, b := d.idx(len(m)), d.idx(len(m))
				log = append(log, fmt.Sprintf("l%d Trim(%d, %d)", i, a, b))
				l.Trim(a, b)
				m = slices.Clone(lmodelRange(m, a, b))
			case 11: // Pos
				v := d.value()
				if len(m) > 0 && d.intn(2) == 0 {
					v = m[d.intn(len(m))]
				}
				rank, count, maxLen := d.intn(7)-3, d.intn(4)-1, d.intn(5)-1
				got, err := l.Pos(v, rank, count, maxLen)
				werr := list.ValidatePos(rank, count, maxLen)
				var want []int
				if werr == nil {
					skip := max(rank, -rank) - 1
					for k := 0; k < len(m) && (maxLen == 0 || k < maxLen); k++ {
						j := k
						if rank < 0 {
							j = len(m) - 1 - k
						}
						if m[j] != v {
							continue
						}
						if skip > 0 {
							skip--
							continue
						}
						want = append(want, j)
						if count != 0 && len(want) == count {
							break
						}
					}
				}
				if err != werr || !slices.Equal(got, want) {
					fail("Pos(%s, rank %d, count %d, maxlen %d) = %v, %v; want %v, %v", short(v), rank, count, maxLen, got, err, want, werr)
				}
			case 12, 13: // Move, to the other list or the same one
				j := d.intn(2)
				sf, df := d.intn(2) == 0, d.intn(2) == 0
				log = append(log, fmt.Sprintf("Move(l%d, l%d, %v, %v)", i, j, sf, df))
				ms[i] = m
				got, ok := list.Move(ls[i], ls[j], sf, df)
				src := ms[i]
				want, wok := "", len(src) > 0
				if wok {
					if sf {
						want, ms[i] = src[0], src[1:]
					} else {
						want, ms[i] = src[len(src)-1], src[:len(src)-1]
					}
					if df {
						ms[j] = append([]string{want}, ms[j]...)
					} else {
						ms[j] = append(ms[j], want)
					}
				}
				if got != want || ok != wok {
					fail("Move = %s, %v; want %s, %v", short(got), ok, short(want), wok)
				}
				m = ms[i]
			default: // iterate while reading
				var got []string
				for k, v := range l.All() {
					if k != len(got) {
						fail("All() index %d at position %d", k, len(got))
					}
					got = append(got, v)
				}
				if !slices.Equal(got, m) {
					fail("All() = %d items; want %d", len(got), len(m))
				}
				got = got[:0]
				for k, v := range l.Backward() {
					if k != len(m)-1-len(got) {
						fail("Backward() index %d at position %d", k, len(got))
					}
					got = append(got, v)
				}
				slices.Reverse(got)
				if !slices.Equal(got, m) {
					fail("Backward() differs from the model")
				}
			}
			ms[i] = m
			for j := range ls {
				if ls[j].Len() != len(ms[j]) {
					fail("l%d.Len() = %d; want %d", j, ls[j].Len(), len(ms[j]))
				}
				if got := ls[j].Range(0, -1); !slices.Equal(got, ms[j]) {
					fail("l%d.Range(0, -1) differs from the model:\n got %q\nwant %q", j, got, ms[j])
				}
			}
		}
	})
}
