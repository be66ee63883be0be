package persist

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// logWith writes the records to a new store and returns the log's path and the
// offset at which each record starts.
func logWith(t *testing.T, records []string) (string, []int64) {
	t.Helper()
	dir := t.TempDir()
	s, _ := openT(t, dir)
	appendWait(t, s, records...)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	offs := []int64{fileHeaderSize}
	for _, r := range records {
		offs = append(offs, offs[len(offs)-1]+recordSize(len(r)))
	}
	return filepath.Join(dir, logName(1)), offs
}

func TestTornTailEveryOffset(t *testing.T) {
	records := recs(0, 5)
	path, offs := logWith(t, records)
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lastStart := offs[len(offs)-2]
	for cut := lastStart; cut < int64(len(full)); cut++ {
		dir := t.TempDir()
		p := filepath.Join(dir, logName(1))
		if err := os.WriteFile(p, full[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		var q quietLogger
		s, m := openT(t, dir, WithLogger(q.logger()))
		if !slices.Equal(m.records, records[:4]) {
			t.Fatalf("cut at %d: replayed %d records, want 4", cut, len(m.records))
		}
		if want := cut > lastStart; want != strings.Contains(q.String(), "torn final record") {
			t.Fatalf("cut at %d: warning %q; want a torn-record warning: %v", cut, q.String(), want)
		}
		// The torn bytes are gone and the log goes on from the last whole record.
		appendWait(t, s, "after")
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(p); fi.Size() != lastStart+recordSize(5) {
			t.Fatalf("cut at %d: log is %d bytes, want %d", cut, fi.Size(), lastStart+recordSize(5))
		}
		s, m = openT(t, dir)
		s.Close()
		if want := append(slices.Clone(records[:4]), "after"); !slices.Equal(m.records, want) {
			t.Fatalf("cut at %d: after append, replayed %q, want %q", cut, m.records, want)
		}
	}
}

// oldLog writes, in dir, log gen of format version v (1 or 2, framed as those
// versions were) holding records, followed by zeros zero bytes, and returns its path
// and the offset at which each record starts.
func oldLog(t *testing.T, dir string, gen uint64, v uint16, records []string, zeros int) (string, []int64) {
	t.Helper()
	data := fileHeader(logMagic, gen)
	binary.LittleEndian.PutUint16(data[8:], v)
	data = fixHeaderCRC(data)
	offs := []int64{fileHeaderSize}
	for _, r := range records {
		data = appendFrame(data, []byte(r))
		offs = append(offs, int64(len(data)))
	}
	p := filepath.Join(dir, logName(gen))
	if err := os.WriteFile(p, append(data, make([]byte, zeros)...), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, offs
}

// TestZeroTail appends zero bytes to a log, as a power loss can leave a file extended
// but not written: a version 1 log drops them with a torn-record warning; in a log of
// version 2 or 3, which may end in preallocated zeros, they are its clean end.
func TestZeroTail(t *testing.T) {
	for _, v := range []uint16{1, 2, 3} {
		t.Run(fmt.Sprintf("version=%d", v), func(t *testing.T) {
			records := recs(0, 3)
			var path string
			var offs []int64
			if v < alignedVersion {
				path, offs = oldLog(t, t.TempDir(), 1, v, records, 100)
			} else {
				path, offs = logWith(t, records)
				f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.Write(make([]byte, 100))
				f.Close()
			}
			var q quietLogger
			s, m := openT(t, filepath.Dir(path), WithLogger(q.logger()))
			defer s.Close()
			if warned := strings.Contains(q.String(), "torn final record"); !slices.Equal(m.records, records) || warned != (v == 1) {
				t.Fatalf("zero tail: replayed %d records (want 3), warning %q (want one: %v)", len(m.records), q.String(), v == 1)
			}
			if v < alignedVersion {
				return // the log is left as it is, and a new log started (TestOldVersions)
			}
			if got, want := fileSize(t, path), offs[len(offs)-1]; got != want {
				t.Fatalf("log is %d bytes after Open with Always, want %d (zeros cut off)", got, want)
			}
		})
	}
}

// TestOldVersions opens logs of format versions 1 and 2 (a version 2 log ending in
// preallocated zeros, as a mapped one does), with each sync policy: their records are
// replayed, the log is left as it is, and records appended go to a new log of the
// current version, after which the whole chain reopens.
func TestOldVersions(t *testing.T) {
	for _, v := range []uint16{1, 2} {
		for _, p := range []SyncPolicy{Always, EverySecond, Never} {
			t.Run(fmt.Sprintf("version=%d/sync=%s", v, p), func(t *testing.T) {
				dir := t.TempDir()
				zeros := 0
				if v == 2 {
					zeros = 4096
				}
				path, _ := oldLog(t, dir, 1, v, recs(0, 3), zeros)
				before, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				var q quietLogger
				s, m := openT(t, dir, WithSync(p), WithLogger(q.logger()))
				if !slices.Equal(m.records, recs(0, 3)) || q.String() != "" {
					t.Fatalf("version %d log: replayed %q, warnings %q", v, m.records, q.String())
				}
				appendWait(t, s, recs(3, 3)...)
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				if after, _ := os.ReadFile(path); !slices.Equal(after, before) {
					t.Fatalf("version %d log changed by appending after it", v)
				}
				data, err := os.ReadFile(filepath.Join(dir, logName(2)))
				if err != nil {
					t.Fatal(err)
				}
				if got := binary.LittleEndian.Uint16(data[8:]); got != formatVersion {
					t.Fatalf("new log of version %d, want %d", got, formatVersion)
				}
				s, m = openT(t, dir, WithSync(p))
				s.Close()
				if !slices.Equal(m.records, recs(0, 6)) {
					t.Fatalf("reopened: replayed %q, want %q", m.records, recs(0, 6))
				}
			})
		}
	}
}

func TestCorruption(t *testing.T) {
	records := recs(0, 5)
	path, offs := logWith(t, records)
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, data []byte, wantOff int64, wantReason string) {
		t.Helper()
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, logName(1)), data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(dir, newModel())
		var ce *CorruptError
		if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) {
			if s != nil {
				s.Close()
			}
			t.Fatalf("Open = %v; want a *CorruptError", err)
		}
		if ce.Path != filepath.Join(dir, logName(1)) || ce.Offset != wantOff || !strings.Contains(ce.Reason, wantReason) {
			t.Fatalf("Open = %v; want %s at offset %d: %s", err, logName(1), wantOff, wantReason)
		}
	}
	t.Run("flipped byte in a middle record", func(t *testing.T) {
		for i := offs[2]; i < offs[3]; i++ { // its padding too
			data := slices.Clone(full)
			data[i] ^= 0x20
			reason := "checksum mismatch"
			if i >= offs[2]+recordHeaderSize+int64(len(records[2])) {
				reason = "padding"
			}
			check(t, data, offs[2], reason)
		}
	})
	t.Run("flipped byte in the last record's payload", func(t *testing.T) {
		data := slices.Clone(full)
		data[offs[4]+recordHeaderSize+int64(len(records[4]))-1] ^= 1
		check(t, data, offs[4], "record checksum mismatch")
	})
	t.Run("length pointing past the end", func(t *testing.T) {
		data := slices.Clone(full)
		binary.LittleEndian.PutUint32(data[offs[1]:], 1<<20) // header checksum now wrong
		check(t, data, offs[1], "record header checksum mismatch")
	})
	for _, tc := range []struct {
		name   string
		at     int
		reason string
	}{
		{"magic", 0, "bad magic"},
		{"version", 8, "header checksum mismatch"},
		{"generation", 12, "header checksum mismatch"},
	} {
		t.Run("header "+tc.name, func(t *testing.T) {
			data := slices.Clone(full)
			data[tc.at] ^= 1
			check(t, data, 0, tc.reason)
		})
	}
	t.Run("newer version", func(t *testing.T) {
		data := slices.Clone(full)
		copy(data, fileHeader(logMagic, 1))
		binary.LittleEndian.PutUint16(data[8:], formatVersion+1)
		copy(data[:fileHeaderSize], fixHeaderCRC(data[:fileHeaderSize]))
		check(t, data, 0, fmt.Sprintf("unsupported format version %d", formatVersion+1))
	})
}

// fixHeaderCRC recomputes a file header's checksum after an edit.
func fixHeaderCRC(h []byte) []byte {
	h = slices.Clone(h)
	binary.LittleEndian.PutUint32(h[20:], crcOf(h[:20]))
	return h
}

func TestTornRecordInOlderLog(t *testing.T) {
	dir := t.TempDir()
	s, _ := openT(t, dir)
	appendWait(t, s, recs(0, 3)...)
	w, err := s.StartSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil { // two logs in the chain now
		t.Fatal(err)
	}
	appendWait(t, s, recs(3, 3)...)
	s.Close()
	p := filepath.Join(dir, logName(1))
	fi, _ := os.Stat(p)
	os.Truncate(p, fi.Size()-2)
	_, err = Open(dir, newModel())
	var ce *CorruptError
	if !errors.As(err, &ce) || !strings.Contains(ce.Reason, "followed by logs holding records") {
		t.Fatalf("Open = %v; want a CorruptError for a torn record in an older log", err)
	}
}

func TestMissingLog(t *testing.T) {
	dir := t.TempDir()
	s, _ := openT(t, dir)
	w, _ := s.StartSnapshot()
	w.Abort()
	w, _ = s.StartSnapshot()
	w.Abort()
	s.Close()
	os.Remove(filepath.Join(dir, logName(2)))
	_, err := Open(dir, newModel())
	var ce *CorruptError
	if !errors.As(err, &ce) || !strings.Contains(ce.Reason, "missing") || !strings.HasSuffix(ce.Path, logName(2)) {
		t.Fatalf("Open = %v; want a CorruptError naming the missing %s", err, logName(2))
	}
}

// TestTornRecordBeforeHole checks that a log starting with a hole (a crash during
// its first records' copies) still counts as holding records: a torn record in the
// log before it is damage, as a rotation fsyncs that log before the next gets any.
func TestTornRecordBeforeHole(t *testing.T) {
	dir := t.TempDir()
	s, _ := openT(t, dir)
	appendWait(t, s, recs(0, 3)...)
	s.Close()
	p := filepath.Join(dir, logName(1))
	fi, _ := os.Stat(p)
	os.Truncate(p, fi.Size()-2)
	next := append(append(fileHeader(logMagic, 2), make([]byte, 16)...), appendRecord(nil, []byte("x"))...)
	if err := os.WriteFile(filepath.Join(dir, logName(2)), next, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir, newModel())
	var ce *CorruptError
	if !errors.As(err, &ce) || !strings.Contains(ce.Reason, "followed by logs holding records") {
		t.Fatalf("Open = %v; want a CorruptError for a torn record in an older log", err)
	}
}
