package persist

import (
	"errors"
	"strconv"
	"sync"
	"testing"
)

// TestConcurrent runs writers and snapshots together (under -race in CI), then checks
// the reopened state: records 1..N in order, exactly once.
func TestConcurrent(t *testing.T) {
	for _, p := range []SyncPolicy{Always, EverySecond, Never} {
		t.Run("sync="+p.String(), func(t *testing.T) {
			dir := t.TempDir()
			s, _, err := crashState(dir, WithSync(p))
			if err != nil {
				t.Fatal(err)
			}
			const writers, perWriter = 8, 150
			var mu sync.Mutex // the keyspace lock
			last := 0
			var wg sync.WaitGroup
			errs := make(chan error, writers*perWriter)
			for range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range perWriter {
						mu.Lock()
						last++
						n := last
						pos, err := s.Append([]byte(crashPayload(n)))
						var w *SnapshotWriter
						if err == nil && n%100 == 0 {
							if w, err = s.StartSnapshot(); errors.Is(err, ErrSnapshotInProgress) {
								err = nil
							}
						}
						mu.Unlock()
						if w != nil {
							up := strconv.Itoa(n)
							w.WriteList("upto", 0, func(yield func(string) bool) { yield(up) })
							if err := w.Commit(); err != nil {
								errs <- err
							}
						}
						if err == nil {
							err = s.Wait(pos)
						}
						if err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s, got, err := crashState(dir)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			if got != writers*perWriter {
				t.Fatalf("reopened with records 1..%d; want 1..%d", got, writers*perWriter)
			}
		})
	}
}
