package dict

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// model is the naive reference: a Go map, the iteration order as a slice, and the
// encoding Redis would use, following the documented rules: a packed map converts
// when a pair or the count would exceed the limits; the order is the insertion order,
// an update keeps a field's place; an emptied map is packed again.
type model struct {
	vals  map[string]string
	order []string
	lim   Limits
	table bool
}

func newModel(l Limits) *model {
	return &model{vals: map[string]string{}, lim: l}
}

func (m *model) set(f, v string) bool {
	if _, ok := m.vals[f]; ok {
		if !m.table && len(v) > m.lim.Value {
			m.table = true
		}
		m.vals[f] = v
		return false
	}
	if !m.table && (len(m.vals)+1 > m.lim.Entries || len(f) > m.lim.Value || len(v) > m.lim.Value) {
		m.table = true
	}
	m.vals[f] = v
	m.order = append(m.order, f)
	return true
}

func (m *model) del(f string) bool {
	if _, ok := m.vals[f]; !ok {
		return false
	}
	delete(m.vals, f)
	m.order = slices.DeleteFunc(m.order, func(s string) bool { return s == f })
	if len(m.vals) == 0 {
		m.table = false
	}
	return true
}

func (m *model) encoding() string {
	if m.table || (len(m.vals) == 0 && m.lim.Entries == 0) {
		return "hashtable"
	}
	return "listpack"
}

// compare checks everything m's Map d shows against the model: length, encoding,
// order and contents (All), and a full Scan with a random count.
func (m *model) compare(d *Map, r *rand.Rand) error {
	if err := d.check(); err != nil {
		return fmt.Errorf("check: %v", err)
	}
	if d.Len() != len(m.vals) {
		return fmt.Errorf("d.Len() = %d; want %d", d.Len(), len(m.vals))
	}
	if got, want := d.Encoding(), m.encoding(); got != want {
		return fmt.Errorf("d.Encoding() = %q; want %q (len %d)", got, want, len(m.vals))
	}
	var order []string
	for f, v := range d.All() {
		if want, ok := m.vals[f]; !ok || v != want {
			return fmt.Errorf("d.All() yields %q: %q; want %q, %v", f, v, want, ok)
		}
		order = append(order, f)
	}
	if !slices.Equal(order, m.order) {
		return fmt.Errorf("d.All() order\n%q\nwant\n%q", order, m.order)
	}
	if r != nil {
		seen := map[string]int{}
		count := 1 + r.IntN(40)
		var cursor uint64
		for calls := 0; ; calls++ {
			if calls > 2*len(m.vals)+10 {
				return fmt.Errorf("scan with count %d does not end after %d calls", count, calls)
			}
			cursor = d.Scan(cursor, count, func(f, v string) bool {
				seen[f]++
				return true
			})
			if cursor == 0 {
				break
			}
		}
		for f := range m.vals {
			if seen[f] != 1 {
				return fmt.Errorf("full scan of an unchanged map yields %q %d times", f, seen[f])
			}
		}
		if len(seen) != len(m.vals) {
			return fmt.Errorf("full scan yields %d fields; want %d", len(seen), len(m.vals))
		}
	}
	return nil
}

// testSeed returns the seed of a randomized test: DICT_SEED when it is set, else a new
// random one, logged so that a failing run can be replayed.
func testSeed(t testing.TB) uint64 {
	t.Helper()
	s := rand.Uint64()
	if env := os.Getenv("DICT_SEED"); env != "" {
		var err error
		if s, err = strconv.ParseUint(env, 10, 64); err != nil {
			t.Fatalf("DICT_SEED=%q: %v", env, err)
		}
	}
	t.Logf("seed %d (set DICT_SEED=%d to replay)", s, s)
	return s
}

// intValues are values the packed encoding stores as integers, and ones it must not
// (not canonical, or out of range).
var intValues = []string{"10", "-1", "99", "1796651992156622", "-9223372036854775808", "9223372036854775807",
	"0", "-0", "007", "+5", "1e5", " 5", "9223372036854775808", "-9223372036854775809", "12345678901234567890", "-", "--1"}

// modelValue returns a value of a random length, most often near the 64-byte limit,
// with a random first byte so that same-length updates change the bytes, and now and
// then one of intValues.
func modelValue(r *rand.Rand) string {
	var n int
	switch r.IntN(7) {
	case 6: // an integer, or a near one, which the packed encoding stores otherwise
		return intValues[r.IntN(len(intValues))]
	case 0:
		n = 0
	case 1:
		n = 62 + r.IntN(5) // 62..66
	case 2:
		n = r.IntN(200)
	default:
		n = 1 + r.IntN(8)
	}
	b := []byte(strings.Repeat("v", n))
	if n > 0 {
		b[0] = byte(r.IntN(256))
	}
	return string(b)
}

// modelField returns one of about pool fields, now and then one 64 or 65 bytes long.
func modelField(r *rand.Rand, pool int) string {
	i := r.IntN(pool)
	switch r.IntN(40) {
	case 0:
		return strings.Repeat("F", 64)
	case 1:
		return strings.Repeat("G", 65)
	case 2:
		return ""
	}
	return "field:" + strconv.Itoa(i)
}

// TestModel runs long random sequences of operations on Maps with several limits and
// on the model, comparing every result and the whole state after each step. The
// sequences go up past the entry limit and back down to empty several times, with
// values around the length limit.
func TestModel(t *testing.T) {
	seed := testSeed(t)
	limits := []Limits{DefaultLimits, {Entries: 0, Value: 64}, {Entries: 1, Value: 0}, {Entries: 5, Value: 3}, {Entries: 16, Value: 16}}
	steps := 30000
	if testing.Short() {
		steps = 3000
	}
	for li, lim := range limits {
		t.Run(fmt.Sprintf("entries=%d/value=%d", lim.Entries, lim.Value), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, uint64(li)))
			d, m := NewWithLimits(lim), newModel(lim)
			pool := 2*max(lim.Entries, 8) + 30
			grow := true
			cycles := 0
			for step := range steps {
				if grow && len(m.vals) > lim.Entries+pool/4 {
					grow = false
				} else if !grow && len(m.vals) == 0 {
					grow = true
					cycles++
				}
				var op string
				k := r.IntN(100)
				if !grow && k < 75 { // swap the shares of sets and deletes
					k = map[bool]int{true: 0, false: 60}[k < 15]
				}
				switch {
				case k < 60:
					f, v := modelField(r, pool), modelValue(r)
					op = fmt.Sprintf("Set(%q, %q)", f, v)
					if got, want := d.Set(f, v), m.set(f, v); got != want {
						t.Fatalf("step %d: d.%s = %v; want %v", step, op, got, want)
					}
				case k < 75:
					f := modelField(r, pool)
					if !grow && len(m.order) > 0 && r.IntN(2) == 0 {
						f = m.order[r.IntN(len(m.order))]
					}
					op = fmt.Sprintf("Delete(%q)", f)
					if got, want := d.Delete(f), m.del(f); got != want {
						t.Fatalf("step %d: d.%s = %v; want %v", step, op, got, want)
					}
				case k < 90:
					f := modelField(r, pool)
					op = fmt.Sprintf("Get(%q)", f)
					want, wok := m.vals[f]
					if got, ok := d.Get(f); got != want || ok != wok {
						t.Fatalf("step %d: d.Get(%q) = %q, %v; want %q, %v", step, f, got, ok, want, wok)
					}
					if n, ok := d.ValueLen(f); n != len(want) || ok != wok {
						t.Fatalf("step %d: d.ValueLen(%q) = %d, %v; want %d, %v", step, f, n, ok, len(want), wok)
					}
					if ok := d.Has(f); ok != wok {
						t.Fatalf("step %d: d.Has(%q) = %v; want %v", step, f, ok, wok)
					}
				case k < 95:
					op = "Random"
					f, v, ok := d.Random(r)
					want, inMap := m.vals[f]
					if ok != (len(m.vals) > 0) || (ok && (!inMap || want != v)) {
						t.Fatalf("step %d: d.Random() = %q, %q, %v; want a pair of the map (len %d)", step, f, v, ok, len(m.vals))
					}
				default:
					op = "Clone"
					c := d.Clone()
					if err := m.compare(c, nil); err != nil {
						t.Fatalf("step %d: clone: %v", step, err)
					}
					c.Set("clone-only", "x")
					for f := range m.vals {
						c.Set(f, "changed in the clone")
						break
					}
					if err := m.compare(d, nil); err != nil {
						t.Fatalf("step %d: after writes to a clone: %v", step, err)
					}
					d = d.Clone()
				}
				sr := r
				if r.IntN(8) != 0 {
					sr = nil
				}
				if err := m.compare(d, sr); err != nil {
					t.Fatalf("step %d, after %s: %v", step, op, err)
				}
			}
			t.Logf("%d steps, %d grow/shrink cycles, final len %d", steps, cycles, len(m.vals))
			if cycles < 5 && !testing.Short() {
				t.Errorf("only %d grow/shrink cycles", cycles)
			}
		})
	}
}
