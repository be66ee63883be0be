package persist

import (
	"encoding/binary"
	"errors"
	"os"
	"slices"
	"syscall"
	"testing"
)

// hugeSlice returns n bytes of anonymous memory, mapped but not touched (so free).
func hugeSlice(t *testing.T, n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap of %d bytes: %v", n, err)
	}
	t.Cleanup(func() { syscall.Munmap(b) })
	return b
}

func TestRoundTrip(t *testing.T) {
	for _, p := range []SyncPolicy{Always, EverySecond, Never} {
		t.Run("sync="+p.String(), func(t *testing.T) {
			dir := t.TempDir()
			s, m := openT(t, dir, WithSync(p))
			if len(m.records) != 0 {
				t.Fatalf("new store replayed %d records", len(m.records))
			}
			want := recs(0, 100)
			appendWait(t, s, want[:60]...)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s, m = openT(t, dir, WithSync(p))
			if !slices.Equal(m.records, want[:60]) {
				t.Fatalf("reopened: %d records, want 60", len(m.records))
			}
			appendWait(t, s, want[60:]...)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s, m = openT(t, dir, WithSync(p))
			defer s.Close()
			if !slices.Equal(m.records, want) {
				t.Fatalf("reopened: %d records, want %d", len(m.records), len(want))
			}
		})
	}
}

func TestAppendErrors(t *testing.T) {
	s, _ := openT(t, t.TempDir())
	tests := []struct {
		name    string
		payload []byte
		want    error
	}{
		{"empty", nil, ErrEmptyRecord},
		{"too large", hugeSlice(t, MaxRecordSize+1), ErrTooLarge},
	}
	for _, tc := range tests {
		if _, err := s.Append(tc.payload); !errors.Is(err, tc.want) {
			t.Errorf("Append(%s) = %v; want %v", tc.name, err, tc.want)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close = %v; want ErrClosed", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v; want nil", err)
	}
}

func TestOpenNotADirectory(t *testing.T) {
	f := t.TempDir() + "/file"
	if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(f, newModel()); err == nil {
		t.Fatal("Open(a regular file) = nil error")
	}
}

func TestLocked(t *testing.T) {
	dir := t.TempDir()
	s, _ := openT(t, dir)
	if _, err := Open(dir, newModel()); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open = %v; want ErrLocked", err)
	}
	s.Close()
	s, _ = openT(t, dir) // the lock is released by Close
	s.Close()
}

func TestWaitBadPos(t *testing.T) {
	s, _ := openT(t, t.TempDir())
	defer s.Close()
	appendWait(t, s, "a")
	if err := s.Wait(2); !errors.Is(err, ErrBadPos) {
		t.Fatalf("Wait(2) after one Append = %v; want ErrBadPos", err)
	}
}

func TestCRCUint32(t *testing.T) {
	for _, v := range []uint32{0, 1, 255, 256, 1 << 20, MaxRecordSize, 0xdeadbeef} {
		b := binary.LittleEndian.AppendUint32(nil, v)
		if got, want := crcUint32(v), crcOf(b); got != want {
			t.Errorf("crcUint32(%#x) = %#x; want %#x", v, got, want)
		}
	}
}
