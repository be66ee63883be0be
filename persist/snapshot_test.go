package persist

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// testKeys is a keyspace for snapshots: lists, sorted sets and strings, some large
// enough to span several element frames, scores of every encoding, expiry times.
type testKeys struct {
	lists   map[string][]string
	zsets   map[string]map[string]float64
	strs    map[string]string
	sets    map[string][]string
	hashes  map[string][][2]string
	expires map[string]int64
}

func newTestKeys() testKeys {
	k := testKeys{lists: map[string][]string{}, zsets: map[string]map[string]float64{}, strs: map[string]string{},
		sets: map[string][]string{}, hashes: map[string][][2]string{}, expires: map[string]int64{}}
	k.lists["small"] = []string{"a", "", "ccc"}
	big := make([]string, 20000)
	for i := range big {
		big[i] = fmt.Sprintf("item-%06d", i)
	}
	k.lists["big"] = big
	k.expires["big"] = 1_900_000_000_123
	k.zsets["scores"] = map[string]float64{
		"int": 42, "neg": -7, "zero": 0, "negzero": math.Copysign(0, -1), "frac": 1.25,
		"inf": math.Inf(1), "-inf": math.Inf(-1), "huge": 1 << 60, "limit": 1 << 53, "tiny": 5e-324,
	}
	k.expires["scores"] = -1 // a negative time round-trips too
	z := map[string]float64{}
	for i := range 5000 {
		z[fmt.Sprintf("m%d", i)] = float64(i) / 3
	}
	k.zsets["many"] = z
	k.strs["empty"] = ""
	k.strs["counter"] = "-42"
	k.strs["blob"] = strings.Repeat("\x00\xffbytes", 10_000) // spans frames
	k.expires["counter"] = 1_900_000_000_456
	k.sets["tags"] = []string{"", "a", "\x00b"}
	members := make([]string, 9000)
	for i := range members {
		members[i] = fmt.Sprintf("member-%05d", i)
	}
	k.sets["members"] = members // spans frames
	k.expires["tags"] = 1_900_000_000_789
	k.hashes["user"] = [][2]string{{"name", "ada"}, {"", "empty field"}, {"empty value", ""}}
	fields := make([][2]string, 6000)
	for i := range fields {
		fields[i] = [2]string{fmt.Sprintf("f%d", i), strings.Repeat("v", i%20)}
	}
	k.hashes["wide"] = fields
	return k
}

func (k testKeys) write(t testing.TB, w *SnapshotWriter) error {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(k.lists)) {
		if err := w.WriteList(name, k.expires[name], slices.Values(k.lists[name])); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(k.zsets)) {
		if err := w.WriteZSet(name, k.expires[name], maps.All(k.zsets[name])); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(k.strs)) {
		if err := w.WriteString(name, k.expires[name], k.strs[name]); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(k.sets)) {
		if err := w.WriteSet(name, k.expires[name], slices.Values(k.sets[name])); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(k.hashes)) {
		fields := func(yield func(string, string) bool) {
			for _, fv := range k.hashes[name] {
				if !yield(fv[0], fv[1]) {
					return
				}
			}
		}
		if err := w.WriteHash(name, k.expires[name], fields); err != nil {
			return err
		}
	}
	return nil
}

// equal compares the model's keys with k, scores bit for bit.
func (k testKeys) equal(m *model) error {
	if !maps.EqualFunc(k.lists, m.lists, slices.Equal) {
		return fmt.Errorf("lists differ: %d keys loaded, want %d", len(m.lists), len(k.lists))
	}
	if !maps.Equal(k.strs, m.strs) {
		return fmt.Errorf("strings differ: %d keys loaded, want %d", len(m.strs), len(k.strs))
	}
	if !maps.EqualFunc(k.sets, m.sets, slices.Equal) {
		return fmt.Errorf("sets differ: %d keys loaded, want %d", len(m.sets), len(k.sets))
	}
	if !maps.EqualFunc(k.hashes, m.hashes, slices.Equal) {
		return fmt.Errorf("hashes differ: %d keys loaded, want %d", len(m.hashes), len(k.hashes))
	}
	for name, z := range k.zsets {
		got := m.zsets[name]
		if len(got) != len(z) {
			return fmt.Errorf("zset %q: %d entries loaded, want %d", name, len(got), len(z))
		}
		for mem, sc := range z {
			if g, ok := got[mem]; !ok || math.Float64bits(g) != math.Float64bits(sc) {
				return fmt.Errorf("zset %q member %q: score %v, want %v", name, mem, g, sc)
			}
		}
	}
	for name := range m.expires {
		if m.expires[name] != k.expires[name] {
			return fmt.Errorf("key %q expires at %d, want %d", name, m.expires[name], k.expires[name])
		}
	}
	return nil
}

func TestSnapshotRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s, _ := openT(t, dir)
	appendWait(t, s, recs(0, 20)...) // replaced by the snapshot
	w, err := s.StartSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	appendWait(t, s, recs(20, 5)...) // the tail after the snapshot, written while it is taken
	keys := newTestKeys()
	if err := keys.write(t, w); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err == nil {
		t.Error("second Commit = nil error")
	}
	appendWait(t, s, recs(25, 5)...)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	names, _ := OSFS{}.ReadDir(dir)
	slices.Sort(names)
	if want := []string{lockName, logName(2), snapName(2)}; !slices.Equal(names, want) {
		t.Fatalf("files after compaction: %q; want %q", names, want)
	}
	s, m := openT(t, dir)
	defer s.Close()
	if err := keys.equal(m); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.records, recs(20, 10)) {
		t.Fatalf("log tail: %d records, want the 10 appended after StartSnapshot", len(m.records))
	}
}

// partialLoader reads only part of each key's value; the rest must be skipped.
type partialLoader struct{ model }

func (p *partialLoader) LoadKey(k *Key) error {
	for range k.ListItems() {
		break
	}
	for range k.ZSetEntries() {
		break
	}
	for range k.HashFields() {
		break
	}
	p.expires[k.Name] = k.ExpireAt
	return nil
}

func TestSnapshotPartialRead(t *testing.T) {
	dir := t.TempDir()
	s, _ := openT(t, dir)
	w, _ := s.StartSnapshot()
	keys := newTestKeys()
	keys.write(t, w)
	w.Commit()
	appendWait(t, s, "tail")
	s.Close()
	p := &partialLoader{*newModel()}
	s, err := Open(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := len(keys.lists) + len(keys.zsets) + len(keys.strs) + len(keys.sets) + len(keys.hashes)
	if len(p.expires) != want || !slices.Equal(p.records, []string{"tail"}) {
		t.Fatalf("loaded %d keys and records %q; want %d keys and the tail", len(p.expires), p.records, want)
	}
}

func TestSnapshotCorruption(t *testing.T) {
	dir := t.TempDir()
	s, _ := openT(t, dir)
	w, _ := s.StartSnapshot()
	newTestKeys().write(t, w)
	w.Commit()
	s.Close()
	p := filepath.Join(dir, snapName(2))
	full, _ := os.ReadFile(p)
	for _, tc := range []struct {
		name   string
		edit   func([]byte) []byte
		reason string
	}{
		{"flipped byte", func(b []byte) []byte { b[len(b)/2] ^= 4; return b }, "checksum mismatch"},
		{"truncated", func(b []byte) []byte { return b[:len(b)-3] }, "ends before its end frame"},
		{"end frame dropped", func(b []byte) []byte { return b[:len(b)-recordHeaderSize-1-3-4] }, "ends before its end frame"},
		{"bad magic", func(b []byte) []byte { b[3] = 'x'; return b }, "bad magic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := copyDir(t, dir)
			os.WriteFile(filepath.Join(d, snapName(2)), tc.edit(slices.Clone(full)), 0o644)
			_, err := Open(d, newModel())
			var ce *CorruptError
			if !errors.As(err, &ce) || !strings.Contains(ce.Reason, tc.reason) || ce.Path != filepath.Join(d, snapName(2)) {
				t.Fatalf("Open = %v; want a CorruptError for %s: %s", err, snapName(2), tc.reason)
			}
		})
	}
}

// TestSnapshotInterrupted crashes the snapshot-and-compaction sequence at every one of
// its file-system steps in turn, then reopens: the state must always be the keys of
// the first snapshot plus every record acknowledged after it, or the keys of the
// second snapshot plus the records after that one.
func TestSnapshotInterrupted(t *testing.T) {
	keys1 := testKeys{lists: map[string][]string{"v": {"1"}}, zsets: map[string]map[string]float64{}, expires: map[string]int64{}}
	keys2 := testKeys{lists: map[string][]string{"v": {"2"}}, zsets: map[string]map[string]float64{}, expires: map[string]int64{}}
	var q quietLogger
	for step := 1; ; step++ {
		dir := t.TempDir()
		s, _ := openT(t, dir, WithLogger(q.logger()))
		w, _ := s.StartSnapshot()
		keys1.write(t, w)
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		appendWait(t, s, "a", "b") // covered by the second snapshot
		ffs := newFaultFS()
		s.cfg.fs = ffs // from here on, the step-th operation "crashes"
		ffs.crashAt = step
		var acked []string
		err := func() error {
			w, err := s.StartSnapshot()
			if err != nil {
				return err
			}
			for _, r := range []string{"c", "d"} {
				pos, err := s.Append([]byte(r))
				if err != nil {
					return err
				}
				if err := s.Wait(pos); err != nil {
					return err
				}
				acked = append(acked, r)
			}
			if err := keys2.write(t, w); err != nil {
				return err
			}
			return w.Commit()
		}()
		if err != nil && !errors.Is(err, errCrash) {
			t.Fatalf("step %d: %v; want the simulated crash", step, err)
		}
		s.Close()
		s2, m := openT(t, dir, WithLogger(q.logger()))
		s2.Close()
		switch {
		case keys1.equal(m) == nil:
			if want := append([]string{"a", "b"}, acked...); !slices.Equal(m.records[:min(len(m.records), len(want))], want) || len(m.records) > 4 {
				t.Fatalf("step %d: first snapshot + records %q; want %q (acknowledged) and at most c, d", step, m.records, want)
			}
		case keys2.equal(m) == nil:
			if !slices.Equal(m.records[:min(len(m.records), len(acked))], acked) || len(m.records) > 2 {
				t.Fatalf("step %d: second snapshot + records %q; want %q (acknowledged)", step, m.records, acked)
			}
		default:
			t.Fatalf("step %d: loaded neither snapshot: %v", step, m.lists)
		}
		if err == nil {
			t.Logf("the sequence has %d file-system steps; a crash at each one recovers", step-1)
			break
		}
	}
}

func TestSnapshotTooLarge(t *testing.T) {
	dir := t.TempDir()
	s, _ := openT(t, dir)
	defer s.Close()
	w, _ := s.StartSnapshot()
	b := hugeSlice(t, maxElemSize+1)
	big := unsafe.String(&b[0], len(b)) // no copy of the mapped (untouched) memory
	if err := w.WriteList("k", 0, slices.Values([]string{"ok", big})); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("WriteList(an item over the limit) = %v; want ErrTooLarge", err)
	}
	if err := w.Commit(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Commit = %v; want ErrTooLarge", err)
	}
	if err := s.Err(); err != nil {
		t.Fatalf("Err() = %v; an oversized element must not fail the store", err)
	}
	appendWait(t, s, "still writable")
	if w, err := s.StartSnapshot(); err != nil || w.Commit() != nil {
		t.Fatalf("a snapshot after the abandoned one: %v", err)
	}
}
