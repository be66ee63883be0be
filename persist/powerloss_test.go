package persist

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/zlite/zlite/internal/testmain"
)

// powerWorkload appends records 1..n one at a time (snapshots every 8) on fsys, until
// it is done or a step fails; it returns the highest record acknowledged.
func powerWorkload(t *testing.T, fsys FS, p SyncPolicy, n int) int {
	t.Helper()
	var q quietLogger
	s, last, err := crashState("/mem", WithFS(fsys), WithSync(p), WithLogger(q.logger()), WithSyncInterval(1<<40), withMapper(memMapper{}), withPrealloc(4096, 4096))
	if err != nil {
		if errors.Is(err, errCrash) {
			return 0
		}
		t.Fatal(err)
	}
	defer s.Close()
	if m, ok := fsys.(*memFS); ok && p != Always && !s.mapped && !m.crashed() {
		t.Fatal("the log is not mapped") // only a simulated crash at Open falls back to write(2)
	}
	acked := 0
	for i := last + 1; i <= n; i++ {
		pos, err := s.Append([]byte(crashPayload(i)))
		if err == nil && i%8 == 0 {
			var w *SnapshotWriter
			if w, err = s.StartSnapshot(); err == nil {
				w.WriteList("upto", 0, func(yield func(string) bool) { yield(strconv.Itoa(i)) })
				err = w.Commit()
			}
		}
		if err == nil {
			err = s.Wait(pos)
		}
		if err != nil {
			if !errors.Is(err, errCrash) {
				t.Fatalf("record %d: %v; want the simulated crash", i, err)
			}
			return acked
		}
		acked = i
	}
	return acked
}

// TestPowerLoss cuts the power at every file-system step of a workload of appends and
// snapshots: losing what was not fsynced (and, in half the cases, the directory
// changes not fsynced), keeping a random part of the unsynced appends (under
// EverySecond and Never, of the records copied into the mapped log). Reopening, with
// write(2) or mapped, must always succeed with records 1..M exactly, and with Always
// every acknowledged record must be there.
func TestPowerLoss(t *testing.T) {
	for _, p := range []SyncPolicy{Always, EverySecond, Never} {
		t.Run("sync="+p.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(testmain.Seed(t), 0))
			const n = 30
			for step := 1; ; step++ {
				fsys := newMemFS()
				fsys.crashAt = step
				acked := powerWorkload(t, fsys, p, n)
				for _, lose := range []bool{true, false} {
					after := fsys.powerLoss(rng, lose)
					// Reopened with Always (write(2)) or mapped, whatever wrote it.
					reopen := []Option{WithFS(after), WithLogger((&quietLogger{}).logger())}
					if step%2 == 0 {
						reopen = append(reopen, WithSync(EverySecond), WithSyncInterval(1<<40), withMapper(memMapper{}), withPrealloc(4096, 4096))
					}
					s, got, err := crashState("/mem", reopen...)
					if err != nil {
						t.Fatalf("step %d (dir changes lost: %v): reopen: %v", step, lose, err)
					}
					s.Close()
					if p == Always && got < acked {
						t.Fatalf("step %d (dir changes lost: %v): records 1..%d after the power loss; %d was acknowledged", step, lose, got, acked)
					}
				}
				if acked == n {
					t.Logf("%d steps, a power loss at each one recovers", step)
					return
				}
			}
		})
	}
}
