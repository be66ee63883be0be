package dict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// mustCheck fails the test if m's invariants do not hold.
func mustCheck(t testing.TB, m *Map, after string) {
	t.Helper()
	if err := m.check(); err != nil {
		t.Fatalf("after %s: %v", after, err)
	}
}

// pairs returns m's entries in iteration order, as "field=value".
func pairs(m *Map) []string {
	var s []string
	for f, v := range m.All() {
		s = append(s, f+"="+v)
	}
	return s
}

// fill returns a map with the limits l and fields f0..f(n-1), each with value v<i>.
func fill(t testing.TB, l Limits, n int) *Map {
	t.Helper()
	m := NewWithLimits(l)
	for i := range n {
		if !m.Set("f"+strconv.Itoa(i), "v"+strconv.Itoa(i)) {
			t.Fatalf("m.Set(%q) = false; want true", "f"+strconv.Itoa(i))
		}
	}
	mustCheck(t, m, "fill")
	return m
}

func TestZeroValue(t *testing.T) {
	var m Map
	if got := m.Limits(); got != DefaultLimits {
		t.Errorf("zero Map: m.Limits() = %v; want %v", got, DefaultLimits)
	}
	if got := New().Limits(); got != DefaultLimits {
		t.Errorf("New().Limits() = %v; want %v", got, DefaultLimits)
	}
	if v, ok := m.Get("a"); v != "" || ok {
		t.Errorf("empty map: m.Get(%q) = %q, %v; want \"\", false", "a", v, ok)
	}
	if n, ok := m.ValueLen("a"); n != 0 || ok {
		t.Errorf("empty map: m.ValueLen(%q) = %d, %v; want 0, false", "a", n, ok)
	}
	if m.Has("a") || m.Delete("a") || m.Len() != 0 {
		t.Errorf("empty map: Has, Delete, Len = %v, %v, %d; want false, false, 0", m.Has("a"), m.Delete("a"), m.Len())
	}
	if f, v, ok := m.Random(nil); ok {
		t.Errorf("empty map: m.Random(nil) = %q, %q, true; want false", f, v)
	}
	for f, v := range m.All() {
		t.Errorf("empty map: m.All() yields %q, %q", f, v)
	}
	if next := m.Scan(0, 10, func(f, v string) bool { t.Errorf("empty map: Scan yields %q", f); return true }); next != 0 {
		t.Errorf("empty map: m.Scan(0, 10) = %d; want 0", next)
	}
	if got := m.Encoding(); got != "listpack" {
		t.Errorf("empty map: m.Encoding() = %q; want %q", got, "listpack")
	}
	if got, want := m.MemoryUsage(), int(unsafe.Sizeof(m)); got != want {
		t.Errorf("empty map: m.MemoryUsage() = %d; want %d", got, want)
	}
	if got := unsafe.Sizeof(m); got > 40 {
		t.Errorf("unsafe.Sizeof(Map{}) = %d; want at most 40", got)
	}
	mustCheck(t, &m, "nothing")
	if !m.Set("a", "1") {
		t.Errorf("zero Map: m.Set(%q, %q) = false; want true", "a", "1")
	}
	if v, ok := m.Get("a"); v != "1" || !ok {
		t.Errorf("m.Get(%q) = %q, %v; want %q, true", "a", v, ok, "1")
	}
	mustCheck(t, &m, "Set")
}

func TestLimits(t *testing.T) {
	for _, tt := range []struct{ in, want Limits }{
		{DefaultLimits, DefaultLimits},
		{Limits{}, Limits{}},
		{Limits{Entries: -1, Value: -5}, Limits{}},
		{Limits{Entries: 1 << 20, Value: math.MaxInt}, Limits{Entries: 65535, Value: 65535}},
		{Limits{Entries: 3, Value: 1000}, Limits{Entries: 3, Value: 1000}},
	} {
		if got := NewWithLimits(tt.in).Limits(); got != tt.want {
			t.Errorf("NewWithLimits(%v).Limits() = %v; want %v", tt.in, got, tt.want)
		}
	}
}

// TestOps runs the same sequences of operations on each encoding.
func TestOps(t *testing.T) {
	for _, lim := range []Limits{DefaultLimits, {Entries: 0}, {Entries: 3, Value: 64}} {
		t.Run(fmt.Sprintf("entries=%d", lim.Entries), func(t *testing.T) {
			m := NewWithLimits(lim)
			for i, tt := range []struct {
				op, field, value string
				want             bool // Set: added; Delete: removed
				pairs            []string
			}{
				{"set", "a", "1", true, []string{"a=1"}},
				{"set", "b", "2", true, []string{"a=1", "b=2"}},
				{"set", "a", "9", false, []string{"a=9", "b=2"}}, // same length: stays
				{"set", "", "", true, []string{"a=9", "b=2", "="}},
				{"del", "zz", "", false, []string{"a=9", "b=2", "="}},
				{"del", "b", "", true, []string{"a=9", "="}},
				{"del", "b", "", false, []string{"a=9", "="}},
				{"set", "b", "22", true, []string{"a=9", "=", "b=22"}},
				{"set", "\x00\xff", "\n", true, []string{"a=9", "=", "b=22", "\x00\xff=\n"}},
				{"del", "a", "", true, []string{"=", "b=22", "\x00\xff=\n"}},
				{"del", "", "", true, []string{"b=22", "\x00\xff=\n"}},
				{"del", "\x00\xff", "", true, []string{"b=22"}},
				{"del", "b", "", true, nil},
				{"set", "c", "3", true, []string{"c=3"}},
			} {
				var got bool
				if tt.op == "set" {
					got = m.Set(tt.field, tt.value)
				} else {
					got = m.Delete(tt.field)
				}
				if got != tt.want {
					t.Errorf("step %d: m.%s(%q) = %v; want %v", i, tt.op, tt.field, got, tt.want)
				}
				mustCheck(t, m, fmt.Sprintf("step %d", i))
				if p := pairs(m); !slices.Equal(p, tt.pairs) {
					t.Errorf("step %d: %s %q: m.All() = %q; want %q", i, tt.op, tt.field, p, tt.pairs)
				}
				if m.Len() != len(tt.pairs) {
					t.Errorf("step %d: m.Len() = %d; want %d", i, m.Len(), len(tt.pairs))
				}
				for _, p := range tt.pairs {
					f, v, _ := strings.Cut(p, "=")
					if got, ok := m.Get(f); got != v || !ok {
						t.Errorf("step %d: m.Get(%q) = %q, %v; want %q, true", i, f, got, ok, v)
					}
					if n, ok := m.ValueLen(f); n != len(v) || !ok {
						t.Errorf("step %d: m.ValueLen(%q) = %d, %v; want %d, true", i, f, n, ok, len(v))
					}
				}
			}
		})
	}
}

// TestUpdateOrder checks that an update keeps the field's place in both encodings,
// whatever the value's length.
func TestUpdateOrder(t *testing.T) {
	for _, tt := range []struct {
		lim   Limits
		value string
		want  []string
	}{
		{DefaultLimits, "X", []string{"f0=v0", "f1=X", "f2=v2"}},
		{DefaultLimits, "longer", []string{"f0=v0", "f1=longer", "f2=v2"}},
		{DefaultLimits, "", []string{"f0=v0", "f1=", "f2=v2"}},
		{Limits{}, "XY", []string{"f0=v0", "f1=XY", "f2=v2"}},
		{Limits{}, "longer", []string{"f0=v0", "f1=longer", "f2=v2"}},
		{Limits{}, "", []string{"f0=v0", "f1=", "f2=v2"}},
		// The update converts the map.
		{Limits{Entries: 10, Value: 4}, "longer", []string{"f0=v0", "f1=longer", "f2=v2"}},
	} {
		m := fill(t, tt.lim, 3)
		if m.Set("f1", tt.value) {
			t.Errorf("%v: m.Set(%q, %q) = true; want false", tt.lim, "f1", tt.value)
		}
		mustCheck(t, m, "Set")
		if got := pairs(m); !slices.Equal(got, tt.want) {
			t.Errorf("%v: after m.Set(%q, %q), m.All() = %q; want %q", tt.lim, "f1", tt.value, got, tt.want)
		}
	}
}

// TestEncodingLimits crosses Redis's thresholds: 128/129 entries and 64/65-byte fields
// and values.
func TestEncodingLimits(t *testing.T) {
	long := strings.Repeat("x", 64)
	for _, tt := range []struct {
		name  string
		n     int // fields f0.. first
		field string
		value string
		want  string
	}{
		{"127+1", 127, "new", "v", "listpack"},
		{"128+1", 128, "new", "v", "hashtable"},
		{"128+update", 128, "f5", "v", "listpack"},
		{"128+update64", 128, "f5", long, "listpack"},
		{"value64", 1, "new", long, "listpack"},
		{"value65", 1, "new", long + "x", "hashtable"},
		{"field64", 1, long, "v", "listpack"},
		{"field65", 1, long + "x", "v", "hashtable"},
		{"update65", 3, "f1", long + "x", "hashtable"},
		{"empty65", 0, "new", long + "x", "hashtable"},
	} {
		m := fill(t, DefaultLimits, tt.n)
		m.Set(tt.field, tt.value)
		mustCheck(t, m, tt.name)
		if got := m.Encoding(); got != tt.want {
			t.Errorf("%s: m.Encoding() = %q; want %q", tt.name, got, tt.want)
		}
		if got, ok := m.Get(tt.field); got != tt.value || !ok {
			t.Errorf("%s: m.Get(%q) = %q, %v; want %q, true", tt.name, tt.field, got, ok, tt.value)
		}
		// A table stays a table until emptied, then is packed again.
		if tt.want == "hashtable" {
			m.Set(tt.field, "short")
			for m.Len() > 1 {
				f, _, _ := m.Random(nil)
				m.Delete(f)
				mustCheck(t, m, "Delete")
			}
			if got := m.Encoding(); got != "hashtable" {
				t.Errorf("%s: one field left: m.Encoding() = %q; want %q", tt.name, got, "hashtable")
			}
			f, _, _ := m.Random(nil)
			m.Delete(f)
			mustCheck(t, m, "last Delete")
			if got := m.Encoding(); got != "listpack" {
				t.Errorf("%s: emptied: m.Encoding() = %q; want %q", tt.name, got, "listpack")
			}
			if got := m.MemoryUsage(); got != int(unsafe.Sizeof(*m)) {
				t.Errorf("%s: emptied: m.MemoryUsage() = %d; want %d", tt.name, got, unsafe.Sizeof(*m))
			}
		}
	}
	m := NewWithLimits(Limits{Entries: 0, Value: 64})
	if got := m.Encoding(); got != "hashtable" {
		t.Errorf("Entries 0, empty: m.Encoding() = %q; want %q", got, "hashtable")
	}
	m.Set("a", "b")
	if got := m.Encoding(); got != "hashtable" {
		t.Errorf("Entries 0: m.Encoding() = %q; want %q", got, "hashtable")
	}
}

// TestHostile stores fields and values that are empty, binary, or 1 MB long, in both
// encodings.
func TestHostile(t *testing.T) {
	big := strings.Repeat("\xff\x00", 1<<19)
	cases := []struct{ field, value string }{
		{"", ""},
		{"", "v"},
		{"\x00", "\x00\x00"},
		{"\x80\x81\xfe\xff", "not utf-8 \xc3\x28"},
		{big, "v"},
		{"k", big},
		{big[:1000], big[:200000]},
	}
	for _, lim := range []Limits{DefaultLimits, {}, {Entries: 65535, Value: 65535}} {
		m := NewWithLimits(lim)
		for round := range 3 {
			for i, c := range cases {
				m.Set(c.field, c.value)
				mustCheck(t, m, fmt.Sprintf("Set %d", i))
				if got, ok := m.Get(c.field); got != c.value || !ok {
					t.Fatalf("%v round %d: m.Get(field %d) = %d bytes, %v; want %d bytes, true", lim, round, i, len(got), ok, len(c.value))
				}
			}
			for i, c := range cases {
				if round == 1 {
					m.Set(c.field, c.value+"x")
				}
				if round == 2 {
					m.Delete(c.field)
				}
				mustCheck(t, m, fmt.Sprintf("round %d op %d", round, i))
			}
		}
		if m.Len() != 0 {
			t.Errorf("%v: m.Len() = %d after deleting everything; want 0", lim, m.Len())
		}
	}
}

// TestGetCopies checks that results do not alias the map's storage.
func TestGetCopies(t *testing.T) {
	for _, lim := range []Limits{DefaultLimits, {}} {
		m := NewWithLimits(lim)
		m.Set("a", "1234")
		v, _ := m.Get("a")
		var all []string
		for f, v := range m.All() {
			all = append(all, f, v)
		}
		rf, rv, _ := m.Random(nil)
		m.Set("a", "5678") // same length: in place
		m.Delete("a")
		m.Set("a", "9999")
		if v != "1234" || rf != "a" || rv != "1234" || !slices.Equal(all, []string{"a", "1234"}) {
			t.Errorf("%v: results changed with the map: %q, %q, %q, %q", lim, v, rf, rv, all)
		}
	}
}

func TestNoAllocs(t *testing.T) {
	for _, n := range []int{10, 1000} {
		m := fill(t, DefaultLimits, n)
		if a := testing.AllocsPerRun(100, func() {
			m.Has("f5")
			m.ValueLen("f7")
			m.Has("missing")
			m.Set("f3", "v9")  // same length
			m.Set("f3", "v3")  // same length
			m.Delete("absent") // nothing
		}); a != 0 {
			t.Errorf("n=%d: Has, ValueLen, same-length Set allocate %v times; want 0", n, a)
		}
	}
}

func TestClone(t *testing.T) {
	for _, n := range []int{0, 5, 500} {
		m := fill(t, DefaultLimits, n)
		m.Delete("f1")
		c := m.Clone()
		mustCheck(t, c, "Clone")
		if got, want := pairs(c), pairs(m); !slices.Equal(got, want) || c.Encoding() != m.Encoding() || c.Len() != m.Len() {
			t.Errorf("n=%d: clone %q (%s); want %q (%s)", n, got, c.Encoding(), want, m.Encoding())
		}
		want := pairs(m)
		c.Set("f2", "changed")
		c.Set("new", "x")
		c.Delete("f3")
		mustCheck(t, c, "writes to the clone")
		mustCheck(t, m, "writes to the clone")
		if got := pairs(m); !slices.Equal(got, want) {
			t.Errorf("n=%d: writes to the clone change the original: %q; want %q", n, got, want)
		}
	}
}

func TestMemoryUsage(t *testing.T) {
	var m Map
	base := m.MemoryUsage()
	m.Set("field", "value")
	if got := m.MemoryUsage(); got <= base || got > base+16 {
		t.Errorf("one 12-byte entry: m.MemoryUsage() = %d; want %d..%d", got, base+1, base+16)
	}
	big := fill(t, DefaultLimits, 10000)
	if got := big.MemoryUsage(); got < 10000*20 || got > 10000*80 {
		t.Errorf("10000 entries: m.MemoryUsage() = %d; want 200000..800000", got)
	}
}

// TestTableShrinks grows a table, deletes most of it and checks that the index and the
// storage shrink with it (check verifies the load and the capacities).
func TestTableShrinks(t *testing.T) {
	m := fill(t, DefaultLimits, 20000)
	full := m.MemoryUsage()
	for i := range 19990 {
		m.Delete("f" + strconv.Itoa(i*7919%20000)) // scattered
		if i%997 == 0 {
			mustCheck(t, m, "Delete")
		}
	}
	mustCheck(t, m, "Deletes")
	if m.Len() != 10 || len(m.tab().index) > 64 {
		t.Errorf("after deleting all but %d: %d index slots; want at most 64", m.Len(), len(m.tab().index))
	}
	if got := m.MemoryUsage(); got > full/100 {
		t.Errorf("10 of 20000 left: m.MemoryUsage() = %d; want at most %d", got, full/100)
	}
	// Deleting in reverse insertion order trims the arena from the end.
	m = fill(t, DefaultLimits, 20000)
	for i := 19999; i >= 5; i-- {
		m.Delete("f" + strconv.Itoa(i))
	}
	mustCheck(t, m, "reverse Deletes")
	if got := m.MemoryUsage(); got > full/100 {
		t.Errorf("5 of 20000 left: m.MemoryUsage() = %d; want at most %d", got, full/100)
	}
}

// TestUpdatesCompact rewrites values with alternating lengths and checks that the
// garbage stays bounded (check verifies it) and the order follows the updates.
func TestUpdatesCompact(t *testing.T) {
	m := fill(t, Limits{}, 1000)
	for round := range 5 {
		for i := range 1000 {
			m.Set("f"+strconv.Itoa(i), strings.Repeat("u", 1+(round+i)%3*10))
			if i%101 == 0 {
				mustCheck(t, m, "Set")
			}
		}
	}
	mustCheck(t, m, "updates")
	i := 0
	for f := range m.All() {
		if want := "f" + strconv.Itoa(i); f != want {
			t.Fatalf("field %d is %q; want %q", i, f, want)
		}
		i++
	}
	// One huge value updated to small ones must not keep its arena.
	m.Set("big", strings.Repeat("B", 1<<20))
	m.Set("big", "b")
	mustCheck(t, m, "big value shrunk")
	if got := m.MemoryUsage(); got > 200000 {
		t.Errorf("after a 1 MB value was replaced: m.MemoryUsage() = %d; want at most 200000", got)
	}
}

// TestScanGuarantee scans tables with small counts while adding, deleting and
// updating fields between the calls, and checks that every field present from the
// start to the end of the scan is yielded exactly once, and no field absent throughout
// is yielded. The heavy cases delete and rewrite much of the map between two calls, so
// that compactions and index resizes happen mid-scan.
func TestScanGuarantee(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 3))
	for _, tt := range []struct {
		n, count int
		adds     int // new fields added between calls (fewer than count, for the scan to end)
		churn    int // deletes and updates between calls
	}{
		{200, 1, 0, 3},
		{200, 3, 2, 3},
		{1000, 7, 3, 20},
		{1000, 50, 20, 400},
		{5000, 100, 50, 2000},
		{5000, 1000, 0, 4000},
		{129, 1000, 5, 5},
	} {
		m := fill(t, DefaultLimits, tt.n)
		start := map[string]bool{}
		for f := range m.All() {
			start[f] = true
		}
		removed := map[string]bool{}
		ever := maps(start)
		seen := map[string]int{}
		var cursor uint64
		calls := 0
		for {
			cursor = m.Scan(cursor, tt.count, func(f, v string) bool {
				if want, ok := m.Get(f); !ok || want != v {
					t.Fatalf("Scan yields %q=%q; the map holds %q, %v", f, v, want, ok)
				}
				seen[f]++
				return true
			})
			calls++
			if cursor == 0 {
				break
			}
			if calls > 100*tt.n {
				t.Fatalf("n=%d count=%d: scan does not end", tt.n, tt.count)
			}
			for range tt.adds {
				f := "new" + strconv.Itoa(r.IntN(tt.n*4))
				m.Set(f, "n")
				ever[f] = true
			}
			for range tt.churn {
				switch r.IntN(3) {
				case 0:
					f := "f" + strconv.Itoa(r.IntN(tt.n))
					if m.Delete(f) {
						removed[f] = true
					}
				case 1:
					m.Delete("new" + strconv.Itoa(r.IntN(tt.n*4)))
				default:
					f := "f" + strconv.Itoa(r.IntN(tt.n))
					if m.Has(f) {
						m.Set(f, strings.Repeat("w", r.IntN(12)))
					}
				}
			}
			if calls%16 == 0 {
				mustCheck(t, m, "churn")
			}
		}
		mustCheck(t, m, "scan")
		for f := range start {
			if !removed[f] && seen[f] != 1 {
				t.Errorf("n=%d count=%d: %q present throughout, yielded %d times; want once", tt.n, tt.count, f, seen[f])
			}
		}
		for f := range seen {
			if !ever[f] {
				t.Errorf("n=%d: scan yields %q, never in the map", tt.n, f)
			}
		}
		t.Logf("n=%d count=%d adds=%d churn=%d: %d calls, %d distinct fields seen, final len %d",
			tt.n, tt.count, tt.adds, tt.churn, calls, len(seen), m.Len())
	}
}

// maps returns a copy of s.
func maps(s map[string]bool) map[string]bool {
	c := make(map[string]bool, len(s))
	for k := range s {
		c[k] = true
	}
	return c
}

// TestScan checks the packed encoding's one-call scans, counts, cursors of nothing,
// and stopping early.
func TestScan(t *testing.T) {
	m := fill(t, DefaultLimits, 10)
	for _, cursor := range []uint64{0, 1, 12345} {
		n := 0
		if next := m.Scan(cursor, 1, func(string, string) bool { n++; return true }); next != 0 || n != 10 {
			t.Errorf("packed: m.Scan(%d, 1) yields %d, returns %d; want 10, 0", cursor, n, next)
		}
	}
	m = fill(t, DefaultLimits, 1000)
	for _, tt := range []struct {
		count, want int
	}{{1, 1}, {10, 10}, {0, 10}, {-3, 10}, {999, 999}, {1000, 1000}, {math.MaxInt, 1000}} {
		n := 0
		next := m.Scan(0, tt.count, func(string, string) bool { n++; return true })
		if n != tt.want || (next == 0) != (tt.want == 1000) {
			t.Errorf("table: m.Scan(0, %d) yields %d, returns %d; want %d", tt.count, n, next, tt.want)
		}
	}
	if next := m.Scan(1<<62, 10, func(f, _ string) bool { t.Errorf("Scan past the end yields %q", f); return true }); next != 0 {
		t.Errorf("m.Scan(1<<62, 10) = %d; want 0", next)
	}
	// Stopping early: the returned cursor continues after the last field yielded.
	var got []string
	var cursor uint64
	for {
		k := 0
		cursor = m.Scan(cursor, 10, func(f, _ string) bool { got = append(got, f); k++; return k < 3 })
		if cursor == 0 {
			break
		}
	}
	var want []string
	for f := range m.All() {
		want = append(want, f)
	}
	if !slices.Equal(got, want) {
		t.Errorf("scan stopped every 3 fields yields %d fields; want the %d of All in order", len(got), len(want))
	}
	// Deleted records are skipped at most 10*count per call.
	for i := range 900 {
		m.Delete("f" + strconv.Itoa(i+50))
	}
	mustCheck(t, m, "deletes")
	n := 0
	for cursor, calls := m.Scan(0, 1, func(string, string) bool { n++; return true }), 1; cursor != 0; calls++ {
		cursor = m.Scan(cursor, 1, func(string, string) bool { n++; return true })
		if calls > 2000 {
			t.Fatal("scan does not end")
		}
	}
	if n != 100 {
		t.Errorf("scan after deletes yields %d; want 100", n)
	}
}

// TestRandomUniform draws many fields from packed and table maps, one of them sparse
// after deletes, and checks the counts with a loose chi-square bound (fixed seed).
func TestRandomUniform(t *testing.T) {
	for _, tt := range []struct {
		name string
		m    func() *Map
	}{
		{"packed", func() *Map { return fill(t, DefaultLimits, 10) }},
		{"table", func() *Map { return fill(t, DefaultLimits, 300) }},
		{"sparse", func() *Map {
			m := fill(t, DefaultLimits, 5000)
			for i := 0; i < 5000; i++ {
				if i%50 != 0 {
					m.Delete("f" + strconv.Itoa(i))
				}
			}
			return m
		}},
	} {
		m := tt.m()
		mustCheck(t, m, tt.name)
		r := rand.New(rand.NewPCG(1, 2))
		n := m.Len()
		const per = 400
		counts := map[string]int{}
		for range n * per {
			f, v, ok := m.Random(r)
			if !ok || v != "v"+f[1:] {
				t.Fatalf("%s: m.Random() = %q, %q, %v", tt.name, f, v, ok)
			}
			counts[f]++
		}
		if len(counts) != n {
			t.Errorf("%s: %d of %d fields drawn", tt.name, len(counts), n)
		}
		chi := 0.0
		for _, c := range counts {
			d := float64(c - per)
			chi += d * d / per
		}
		chi += float64(n-len(counts)) * per
		// With n-1 degrees of freedom, chi is about n ± sqrt(2n); allow far more.
		if lim := float64(n) + 8*math.Sqrt(2*float64(n)) + 10; chi > lim {
			t.Errorf("%s: chi-square %.1f for %d fields; want at most %.1f", tt.name, chi, n, lim)
		}
		t.Logf("%s: %d fields, chi-square %.1f", tt.name, n, chi)
	}
	// The global source.
	m := fill(t, DefaultLimits, 300)
	if _, _, ok := m.Random(nil); !ok {
		t.Error("m.Random(nil) = false; want true")
	}
}

// TestModifyDuringIteration writes to the map from the loop bodies of All and Scan:
// unspecified results, but no panic and a sound map after.
func TestModifyDuringIteration(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 5))
	for _, n := range []int{5, 128, 1000} {
		for round := range 10 {
			m := fill(t, DefaultLimits, n)
			write := func() {
				k := 1 + r.IntN(4)
				if r.IntN(20) == 0 {
					k = r.IntN(n)
				}
				for range k {
					f := "f" + strconv.Itoa(r.IntN(2*n))
					if r.IntN(2) == 0 {
						m.Set(f, strings.Repeat("z", r.IntN(70)))
					} else {
						m.Delete(f)
					}
				}
			}
			steps := 0
			for range m.All() {
				write()
				if steps++; steps > 3*n {
					break
				}
			}
			mustCheck(t, m, fmt.Sprintf("n=%d round %d: writes in All", n, round))
			var cursor uint64
			for calls := 0; calls < n; calls++ {
				cursor = m.Scan(cursor, 5, func(string, string) bool { write(); return true })
				if cursor == 0 {
					break
				}
			}
			mustCheck(t, m, fmt.Sprintf("n=%d round %d: writes in Scan", n, round))
		}
	}
}

// TestBreak stops iterations early.
func TestBreak(t *testing.T) {
	for _, n := range []int{5, 500} {
		m := fill(t, DefaultLimits, n)
		k := 0
		for range m.All() {
			if k++; k == 3 {
				break
			}
		}
		if k != 3 {
			t.Errorf("n=%d: break after 3: %d iterations", n, k)
		}
	}
}

// TestPackedIntegers: a value that is the canonical decimal form of an int64, and
// longer than its varint, is stored as an integer and read back as the same
// string; every other value is stored as it is. Updates between the two forms,
// in place or not, and the conversion to the table keep every value.
func TestPackedIntegers(t *testing.T) {
	for _, c := range []struct {
		v     string
		asInt bool
	}{
		{"10", true}, {"-1", true}, {"1796651992156622", true}, {"9223372036854775807", true},
		{"-9223372036854775808", true}, {"0", false}, {"7", false}, {"-0", false}, {"007", false},
		{"+5", false}, {"1e5", false}, {" 5", false}, {"5 ", false}, {"9223372036854775808", false},
		{"-9223372036854775809", false}, {"12345678901234567890", false}, {"-", false}, {"", false},
	} {
		n, ok := pintValue(c.v)
		if ok != c.asInt {
			t.Errorf("pintValue(%q) = %d, %v; want stored as an integer: %v", c.v, n, ok, c.asInt)
		}
		if ok && strconv.FormatInt(n, 10) != c.v {
			t.Errorf("pintValue(%q) = %d", c.v, n)
		}
		m := New()
		m.Set("f", "x")
		m.Set("f", c.v)
		m.Set("g", c.v)
		for _, f := range []string{"f", "g"} {
			if got, _ := m.Get(f); got != c.v {
				t.Errorf("Get(%q) after Set(%q) = %q", f, c.v, got)
			}
			if n, _ := m.ValueLen(f); n != len(c.v) {
				t.Errorf("ValueLen(%q) = %d; want %d", c.v, n, len(c.v))
			}
		}
		if err := m.check(); err != nil {
			t.Errorf("%q: %v", c.v, err)
		}
		m.toTable()
		if got, _ := m.Get("g"); got != c.v {
			t.Errorf("Get after the conversion = %q; want %q", got, c.v)
		}
	}
	// Four 18-byte fields with timestamps: the values take 8 bytes each, not 16.
	m := New()
	for i := range 4 {
		m.Set(fmt.Sprintf("%016d:t", i), "1796651992156622")
	}
	if want := 4 * (1 + 18 + 1 + 8); len(m.packed()) != want {
		t.Errorf("packed bytes %d; want %d", len(m.packed()), want)
	}
}
