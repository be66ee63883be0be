package persist

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

func TestDiskFull(t *testing.T) {
	for _, p := range []SyncPolicy{Always, EverySecond, Never} {
		t.Run("sync="+p.String(), func(t *testing.T) {
			dir := t.TempDir()
			ffs := newFaultFS()
			s, _ := openT(t, dir, WithSync(p), WithFS(ffs))
			ok := recs(0, 10)
			appendWait(t, s, ok...)
			size := fileSize(t, filepath.Join(dir, logName(1)))

			ffs.mu.Lock()
			ffs.writeSpace = 7 // the next write is cut short after 7 bytes
			ffs.mu.Unlock()
			pos, err := s.Append([]byte("does not fit"))
			if err != nil {
				t.Fatalf("Append = %v", err)
			}
			err = s.Wait(pos)
			if !errors.Is(err, syscall.ENOSPC) || !errors.Is(err, ErrFailed) {
				t.Fatalf("Wait = %v; want ErrFailed wrapping ENOSPC", err)
			}
			if got := fileSize(t, filepath.Join(dir, logName(1))); got != size {
				t.Errorf("log is %d bytes after the failed write, want %d (truncated back)", got, size)
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
			s, m := openT(t, dir)
			defer s.Close()
			if !slices.Equal(m.records, ok) {
				t.Fatalf("reopened: %q, want the %d acknowledged records", m.records, len(ok))
			}
		})
	}
}

func TestFsyncFailure(t *testing.T) {
	dir := t.TempDir()
	ffs := newFaultFS()
	s, _ := openT(t, dir, WithFS(ffs))
	appendWait(t, s, "a")
	ffs.mu.Lock()
	ffs.syncErr = &os.PathError{Op: "sync", Path: "log", Err: syscall.EIO}
	ffs.mu.Unlock()
	pos, _ := s.Append([]byte("b"))
	if err := s.Wait(pos); !errors.Is(err, syscall.EIO) || !errors.Is(err, ErrFailed) {
		t.Fatalf("Wait = %v; want ErrFailed wrapping EIO", err)
	}
	if err := s.Wait(1); err != nil {
		t.Errorf("Wait(1) for a record fsynced before the failure = %v; want nil", err)
	}
	if !errors.Is(s.Err(), syscall.EIO) {
		t.Errorf("Err() = %v; want the EIO failure", s.Err())
	}
	s.Close()
}

// TestGroupCommit holds the first fsync until 15 more writers have appended and are
// waiting: they must all share the second fsync.
func TestGroupCommit(t *testing.T) {
	ffs := newFaultFS()
	s, _ := openT(t, t.TempDir(), WithFS(ffs))
	ffs.mu.Lock()
	ffs.syncGate, ffs.syncCalled = make(chan struct{}), make(chan struct{})
	ffs.mu.Unlock()
	const writers = 16
	errs := make(chan error, writers)
	var wg sync.WaitGroup
	wait := func(pos Pos) {
		defer wg.Done()
		errs <- s.Wait(pos)
	}
	pos, _ := s.Append([]byte("first"))
	wg.Add(1)
	go wait(pos)
	<-ffs.syncCalled // the first flusher is in fsync
	for i := 1; i < writers; i++ {
		pos, _ := s.Append([]byte("next"))
		wg.Add(1)
		go wait(pos)
	}
	close(ffs.syncGate) // let every fsync through
	go func() {
		for range ffs.syncCalled {
		}
	}()
	wg.Wait()
	close(ffs.syncCalled)
	for range writers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	st := s.Stats()
	if st.Records != writers || st.Fsyncs != 2 || st.Writes != 2 {
		t.Fatalf("Stats() = %+v; want %d records in 2 writes and 2 fsyncs", st, writers)
	}
	s.Close()
}

// TestEverySecond checks that Wait does not fsync and the background syncer does, one
// interval later.
func TestEverySecond(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		s, _ := openT(t, dir, WithSync(EverySecond), WithSyncInterval(time.Second))
		appendWait(t, s, recs(0, 5)...)
		writes := uint64(5)
		if s.mapped {
			writes = 0 // copied into the mapping
		}
		if st := s.Stats(); st.Fsyncs != 0 || st.Writes != writes {
			t.Fatalf("after Wait: Stats() = %+v; want %d writes, no fsync", st, writes)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if st := s.Stats(); st.Fsyncs != 1 {
			t.Fatalf("after 1 s: Stats() = %+v; want 1 fsync", st)
		}
		time.Sleep(3 * time.Second) // nothing new: no more fsyncs
		synctest.Wait()
		if st := s.Stats(); st.Fsyncs != 1 {
			t.Fatalf("after 4 s idle: Stats() = %+v; want still 1 fsync", st)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

func fileSize(t *testing.T, p string) int64 {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
