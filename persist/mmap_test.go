package persist

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// withMapper replaces the platform's mapper (nil: write(2) for every policy).
func withMapper(m mapper) Option { return func(c *config) { c.mapper = m } }

// withPrealloc makes a mapped log grow in steps of at least min bytes, to multiples
// of unit.
func withPrealloc(min, unit int64) Option {
	return func(c *config) { c.prealloc = prealloc{min: min, unit: unit} }
}

// openMapped opens dir with EverySecond, skipping the test where logs are not mapped.
func openMapped(t *testing.T, dir string, opts ...Option) (*Store, *model) {
	t.Helper()
	s, m := openT(t, dir, append([]Option{WithSync(EverySecond)}, opts...)...)
	if !s.mapped {
		s.Close()
		t.Skip("logs are not memory-mapped on this platform")
	}
	return s, m
}

// mappedLog writes records to a new store through a mapping, closes it and returns
// the log's path and the offset where the records end (preallocated zeros follow).
func mappedLog(t *testing.T, records []string) (string, int64) {
	t.Helper()
	dir := t.TempDir()
	s, _ := openMapped(t, dir)
	appendWait(t, s, records...)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	end := s.cur.size // kept up to date once lock-free appends stop
	p := filepath.Join(dir, logName(1))
	if size := fileSize(t, p); size <= end {
		t.Fatalf("mapped log is %d bytes, want more than its %d bytes of records (preallocated)", size, end)
	}
	return p, end
}

// tornCopies returns what a process killed while copying record into a mapped log
// can leave of it (putRecord): nothing, or its head and a part of its payload,
// without its commit word.
func tornCopies(record string) [][]byte {
	whole := appendRecord(nil, []byte(record))
	torn := [][]byte{make([]byte, len(whole))}
	for cut := 0; cut <= len(record); cut++ {
		b := make([]byte, len(whole))
		copy(b, whole[:recordAlign])
		copy(b[recordHeaderSize:], record[:cut])
		torn = append(torn, b)
	}
	return torn
}

// TestMappedTornCopy writes at the end of a mapped log what a process killed while
// copying a record leaves (tornCopies): every such state must reopen to the records
// before it, with a torn-record warning unless nothing was copied, and the log must
// go on from there.
func TestMappedTornCopy(t *testing.T) {
	records := recs(0, 4)
	path, end := mappedLog(t, records)
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, torn := range tornCopies(recs(4, 1)[0]) {
		dir := t.TempDir()
		data := slices.Clone(full)
		copy(data[end:], torn)
		if err := os.WriteFile(filepath.Join(dir, logName(1)), data, 0o644); err != nil {
			t.Fatal(err)
		}
		var q quietLogger
		s, m := openMapped(t, dir, WithLogger(q.logger()))
		if !slices.Equal(m.records, records) {
			t.Fatalf("torn copy %d: replayed %q, want %q", i, m.records, records)
		}
		if want := i > 0; want != strings.Contains(q.String(), "torn final record") {
			t.Fatalf("torn copy %d: warning %q; want a torn-record warning: %v", i, q.String(), want)
		}
		appendWait(t, s, "after")
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s, m = openMapped(t, dir)
		s.Close()
		if want := append(slices.Clone(records), "after"); !slices.Equal(m.records, want) {
			t.Fatalf("torn copy %d: after append, replayed %q, want %q", i, m.records, want)
		}
	}
}

// TestMappedHole writes into a mapped log what a process killed while one writer was
// copying a record and others had copied later ones leaves: a torn copy (tornCopies)
// followed by whole records. The records after the hole are replayed, with a warning
// about the hole, and the log goes on after them.
func TestMappedHole(t *testing.T) {
	records := recs(0, 2)
	path, end := mappedLog(t, records)
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hole := recs(2, 1)[0]
	later := recs(3, 2)
	for i, torn := range tornCopies(hole) {
		dir := t.TempDir()
		data := slices.Clone(full)
		at := end + int64(copy(data[end:], torn))
		for _, r := range later {
			at += int64(copy(data[at:], appendRecord(nil, []byte(r))))
		}
		if err := os.WriteFile(filepath.Join(dir, logName(1)), data, 0o644); err != nil {
			t.Fatal(err)
		}
		var q quietLogger
		s, m := openMapped(t, dir, WithLogger(q.logger()))
		want := append(slices.Clone(records), later...)
		if !slices.Equal(m.records, want) {
			t.Fatalf("hole %d: replayed %q, want %q", i, m.records, want)
		}
		if !strings.Contains(q.String(), "unfinished records skipped") || strings.Contains(q.String(), "torn") {
			t.Fatalf("hole %d: warnings %q; want one about the unfinished record", i, q.String())
		}
		appendWait(t, s, "after")
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s, m = openMapped(t, dir, WithLogger(q.logger()))
		s.Close()
		if want := append(want, "after"); !slices.Equal(m.records, want) {
			t.Fatalf("hole %d: after append, replayed %q, want %q", i, m.records, want)
		}
	}
}

// TestMappedDamage checks that damage in a mapped log is still an error naming its
// offset, the final record included: a torn copy leaves zeros, a flipped bit does not.
func TestMappedDamage(t *testing.T) {
	records := recs(0, 4)
	path, end := mappedLog(t, records)
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	last := end - recordSize(len(records[3]))
	for _, tc := range []struct {
		name   string
		at     int64
		reason string
	}{
		{"last record's payload", last + recordHeaderSize + int64(len(records[3])) - 1, "record checksum mismatch"},
		{"last record's commit word", last + recordAlign, "record checksum mismatch"},
		{"last record's header", last, "record header checksum mismatch"},
		{"a byte in the zeros after the last record", end + 5000, "record header checksum mismatch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			data := slices.Clone(full)
			data[tc.at] ^= 0x40
			if err := os.WriteFile(filepath.Join(dir, logName(1)), data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Open(dir, newModel(), WithSync(EverySecond))
			want := last
			if tc.at >= end { // zeros, then what looks like a record's head
				want = tc.at &^ (recordAlign - 1)
			}
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Offset != want || !strings.Contains(ce.Reason, tc.reason) {
				t.Fatalf("Open = %v; want a CorruptError at offset %d: %s", err, want, tc.reason)
			}
		})
	}
}

// TestMappedVersions reopens a log across the two write paths: a mapped log reopened
// with Always has its preallocated zeros cut off, and is mapped again afterwards.
// (Logs of older versions: TestOldVersions.)
func TestMappedVersions(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, logName(1))
	var q quietLogger
	s, _ := openMapped(t, dir, WithLogger(q.logger()))
	appendWait(t, s, recs(0, 6)...)
	s.Close()

	s, m := openT(t, dir, WithSync(Always), WithLogger(q.logger()))
	end := s.cur.size
	appendWait(t, s, recs(6, 3)...)
	s.Close()
	if !slices.Equal(m.records, recs(0, 6)) || q.String() != "" {
		t.Fatalf("mapped log reopened with Always: replayed %q, warnings %q", m.records, q.String())
	}
	if got, want := fileSize(t, p), end+int64(len(appendRecord(nil, []byte(recs(6, 1)[0])))); got < want || got > end+1000 {
		t.Fatalf("log is %d bytes after Always appended 3 records at %d; want no preallocated zeros", got, end)
	}
	s, m = openMapped(t, dir)
	s.Close()
	if !slices.Equal(m.records, recs(0, 9)) {
		t.Fatalf("reopened mapped: replayed %d records, want 9", len(m.records))
	}
}

// TestMappedGrowth appends more than the first preallocation, in records of 64 KiB and
// one of 9 MiB, more than the step it then grows by, so that the mapping grows and
// moves; a snapshot in between rotates to a new mapped log.
func TestMappedGrowth(t *testing.T) {
	dir := t.TempDir()
	s, _ := openMapped(t, dir)
	var want []string
	for i := range 200 {
		want = append(want, fmt.Sprintf("%d:%s", i, strings.Repeat("x", 64<<10)))
	}
	want = append(want, strings.Repeat("big", 3<<20)) // 9 MiB: more than the step it grows by then
	first := defaultPrealloc.next(fileHeaderSize, fileHeaderSize)
	appendWait(t, s, want[:120]...)
	if int64(len(s.cur.m)) <= first {
		t.Fatalf("mapping of %d bytes after appending %d; want it grown past %d", len(s.cur.m), s.cur.size, first)
	}
	w, err := s.StartSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	appendWait(t, s, want[120:]...)
	if int64(len(s.cur.m)) <= first {
		t.Fatalf("new log's mapping of %d bytes after appending %d; want it grown past %d", len(s.cur.m), s.cur.size, first)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, m := openMapped(t, dir)
	defer s.Close()
	if !slices.Equal(m.records, want) {
		t.Fatalf("replayed %d records, want %d", len(m.records), len(want))
	}
}

// fullMapper is the platform's mapper on a disk with space bytes left for
// preallocation.
type fullMapper struct {
	mapper
	space int64
}

func (m *fullMapper) allocate(f File, off, n int64) error {
	if n > m.space {
		return &os.PathError{Op: "fallocate", Path: "log", Err: syscall.ENOSPC}
	}
	m.space -= n
	return m.mapper.allocate(f, off, n)
}

// TestMappedDiskFull fills the disk while a mapped log grows: the Append that needs
// more space fails with ErrFailed wrapping ENOSPC (its record is not in the log), the
// store refuses writes from then on, and reopening gives exactly the records
// appended before.
func TestMappedDiskFull(t *testing.T) {
	for _, p := range []SyncPolicy{EverySecond, Never} {
		t.Run("sync="+p.String(), func(t *testing.T) {
			if defaultMapper == nil {
				t.Skip("logs are not memory-mapped on this platform")
			}
			dir := t.TempDir()
			space := defaultPrealloc.next(fileHeaderSize, fileHeaderSize) - fileHeaderSize // room for Open's preallocation, not for the next one
			s, _ := openT(t, dir, WithSync(p), withMapper(&fullMapper{mapper: defaultMapper, space: space}))
			if !s.mapped {
				s.Close()
				t.Fatal("the log is not mapped")
			}
			const recSize = 30 << 10
			var ok []string
			for i := 0; ; i++ {
				if i > int(space/recSize)+1 {
					s.Close()
					t.Fatalf("%d records of %d bytes appended in %d bytes of space", i, recSize, space)
				}
				rec := fmt.Sprintf("%d:%s", i, strings.Repeat("y", recSize))
				pos, err := s.Append([]byte(rec))
				if err != nil {
					if !errors.Is(err, syscall.ENOSPC) || !errors.Is(err, ErrFailed) {
						t.Fatalf("Append = %v; want ErrFailed wrapping ENOSPC", err)
					}
					break
				}
				if err := s.Wait(pos); err != nil {
					t.Fatal(err)
				}
				ok = append(ok, rec)
			}
			if want := int(space/(recSize+64)) - 1; len(ok) < want {
				t.Fatalf("only %d records of %d bytes fitted in %d bytes, want %d", len(ok), recSize, space, want)
			}
			if _, err := s.Append([]byte("refused")); !errors.Is(err, ErrFailed) {
				t.Errorf("Append after the failure = %v; want ErrFailed", err)
			}
			if _, err := s.StartSnapshot(); !errors.Is(err, ErrFailed) {
				t.Errorf("StartSnapshot after the failure = %v; want ErrFailed", err)
			}
			if err := s.Close(); !errors.Is(err, syscall.ENOSPC) {
				t.Errorf("Close = %v; want the ENOSPC failure", err)
			}
			s, m := openT(t, dir, WithSync(p))
			defer s.Close()
			if !slices.Equal(m.records, ok) {
				t.Fatalf("reopened: %d records, want the %d acknowledged", len(m.records), len(ok))
			}
		})
	}
}

// setTestCopy makes copies into mapped logs call f until the test ends.
func setTestCopy(t *testing.T, f func(dst, src []byte)) {
	t.Helper()
	testCopy = f
	t.Cleanup(func() { testCopy = nil })
}

// TestMappedFlushInterrupted stops the flusher's copy of records into a mapped log,
// as a SIGKILL could, at each step of each record: records appended during a
// rotation wait in the buffer, and the Wait that finishes the rotation copies them
// into the new log. For each record it takes the directory as it is with the
// record's payload not yet copied, with the second half of it copied (memmove may
// store a region's first bytes last) and with all of it copied but not its commit
// word. Each of those states must reopen to the records acknowledged before and
// the records copied whole so far, the interrupted one dropped as a torn tail.
func TestMappedFlushInterrupted(t *testing.T) {
	dir := t.TempDir()
	s, _ := openMapped(t, dir, withPrealloc(64<<10, 4<<10))
	acked := recs(0, 3)
	appendWait(t, s, acked...)
	w, err := s.StartSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	var pending []string
	for i, n := range []int{20 << 10, 100, 64 << 10, 7, 33 << 10} {
		pending = append(pending, fmt.Sprintf("pending %d;%s", i, strings.Repeat(string(rune('k'+i)), n)))
	}
	var last Pos
	for _, p := range pending {
		if last, err = s.Append([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	type state struct {
		dir    string
		copied int // records of pending copied whole, commit word included
		step   string
	}
	var states []state
	copied := 0
	setTestCopy(t, func(dst, src []byte) {
		take := func(step string) { states = append(states, state{copyDir(t, dir), copied, step}) }
		half := len(src) / 2
		take("nothing copied")
		copy(dst[half:], src[half:])
		take("second half copied")
		copy(dst[:half], src[:half])
		take("all copied, no commit word")
		copied++ // the commit word is stored once this returns
	})
	if err := s.Wait(last); err != nil {
		t.Fatal(err)
	}
	testCopy = nil
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, st := range states {
		var q quietLogger
		s, m, err := openModel(st.dir, WithSync(EverySecond), WithLogger(q.logger()))
		if err != nil {
			t.Fatalf("killed before record %d of the flush, %s: Open = %v; want the records before it", st.copied, st.step, err)
		}
		s.Close()
		want := append(slices.Clone(acked), pending[:st.copied]...)
		if !slices.Equal(m.records, want) {
			t.Fatalf("killed before record %d of the flush, %s: replayed %d records, want %d", st.copied, st.step, len(m.records), len(want))
		}
		if !strings.Contains(q.String(), "torn final record") {
			t.Errorf("killed before record %d of the flush, %s: warnings %q; want a torn final record dropped", st.copied, st.step, q.String())
		}
	}
	if want := 3 * len(pending); len(states) != want {
		t.Fatalf("the flush made %d copies into the mapping, want one per record (%d states)", len(states)/3, want)
	}
}

// openModel opens dir into a new model.
func openModel(dir string, opts ...Option) (*Store, *model, error) {
	m := newModel()
	s, err := Open(dir, m, opts...)
	return s, m, err
}

// TestMappedZeroedHead checks that recovery still calls damage what one unordered
// copy of a record could leave, its first bytes zero and the rest written: the
// writers never leave it (putRecords), so it is a CorruptError at the first word
// that is not zero, whether the record is the last one (never acknowledged, if a
// crash had left it) or is followed by records.
func TestMappedZeroedHead(t *testing.T) {
	records := []string{"first", strings.Repeat("m", 300), "third", strings.Repeat("z", 300)}
	path, end := mappedLog(t, records)
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	offs := []int64{fileHeaderSize}
	for _, r := range records {
		offs = append(offs, offs[len(offs)-1]+recordSize(len(r)))
	}
	if offs[len(records)] != end {
		t.Fatalf("records end at %d, want %d", offs[len(records)], end)
	}
	for _, tc := range []struct {
		name   string
		record int
	}{
		{"the last record", 3},
		{"a record followed by others", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			data := slices.Clone(full)
			at := offs[tc.record]
			clear(data[at : at+32]) // memmove on amd64 stores these last
			if err := os.WriteFile(filepath.Join(dir, logName(1)), data, 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := Open(dir, newModel(), WithSync(EverySecond))
			if err == nil {
				s.Close()
			}
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.Offset != at+32 || ce.Reason != "record header checksum mismatch" {
				t.Fatalf("Open = %v; want a CorruptError at offset %d: record header checksum mismatch", err, at+32)
			}
		})
	}
}
