package main

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/zlite/zlite"
)

// fakeStore counts snapshots and reports sets (write commands) and gets (reads).
type fakeStore struct {
	mu        sync.Mutex
	sets      uint64
	gets      uint64
	snapshots int
	fail      error // returned by Snapshot when set
}

func (f *fakeStore) Snapshot() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return f.fail
	}
	f.snapshots++
	return nil
}

func (f *fakeStore) CommandCalls() map[string]uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return map[string]uint64{"set": f.sets, "get": f.gets}
}

func (f *fakeStore) Close() error { return nil }

func (f *fakeStore) DBSize(context.Context) (int64, error) { return 0, nil }

func (f *fakeStore) write(n uint64) {
	f.mu.Lock()
	f.sets += n
	f.mu.Unlock()
}

func (f *fakeStore) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.snapshots
}

// TestSchedule runs the save schedule "10 3 30 1" on a fake clock and checks
// when it snapshots: only once a save point's seconds passed with its changes
// made, counting writes and not reads, and retrying a failed snapshot 5 s later.
func TestSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStore{}
		ks := &keyspace{db: f, lastSave: time.Now()}
		s := &schedule{points: func() []savePoint { return []savePoint{{10, 3}, {30, 1}} }, spaces: []*keyspace{ks}, log: slog.New(slog.DiscardHandler), now: time.Now}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { s.run(ctx) })
		// at sets the time to d after the start (just after the ticks of that
		// second) and checks the snapshots taken so far.
		start := time.Now()
		at := func(d time.Duration, want int, why string) {
			t.Helper()
			time.Sleep(time.Until(start.Add(d + time.Millisecond)))
			synctest.Wait()
			if got := f.count(); got != want {
				t.Fatalf("at %v: %d snapshots; want %d (%s)", d, got, want, why)
			}
		}
		f.write(5)
		f.mu.Lock()
		f.gets = 100
		f.mu.Unlock()
		at(9*time.Second, 0, "5 changes but 10 s have not passed")
		at(10*time.Second, 1, "10 s and 5 ≥ 3 changes")
		f.write(1)
		f.mu.Lock()
		f.gets += 1000
		f.mu.Unlock()
		at(39*time.Second, 1, "1 change: the 10 s point needs 3, the 30 s point has 29 s")
		at(40*time.Second, 2, "30 s since the last snapshot, 1 change")
		at(100*time.Second, 2, "no change since: reads do not count")
		f.mu.Lock()
		f.fail = errors.New("disk full")
		f.mu.Unlock()
		f.write(3)
		at(101*time.Second, 2, "the snapshot fails")
		f.mu.Lock()
		f.fail = nil
		f.mu.Unlock()
		at(105*time.Second, 2, "no retry within 5 s of the failure")
		at(106*time.Second, 3, "the retry 5 s after the failure")
		cancel()
		wg.Wait()
	})
}

// TestScheduleNoChanges: a save point with 0 changes snapshots every time its
// seconds pass, as in Redis, without counting writes.
func TestScheduleNoChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeStore{}
		ks := &keyspace{db: f, lastSave: time.Now()}
		s := &schedule{points: func() []savePoint { return []savePoint{{5, 0}} }, spaces: []*keyspace{ks}, log: slog.New(slog.DiscardHandler), now: time.Now}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { s.run(ctx) })
		time.Sleep(20*time.Second + time.Millisecond)
		synctest.Wait()
		if got := f.count(); got != 4 {
			t.Errorf("after 20 s of save \"5 0\": %d snapshots; want 4", got)
		}
		cancel()
		wg.Wait()
		ks.closed = true
		if s.check(ks); f.count() != 4 {
			t.Error("the schedule snapshotted a closed keyspace")
		}
	})
}

// TestReopen checks DEBUG RELOAD's function on real keyspaces: the data
// survives, the old DB is closed, the keyspace's directory is open again, and a
// DB that is not one of the keyspaces is refused.
func TestReopen(t *testing.T) {
	c := defaultConfig()
	c.dir = t.TempDir()
	log := slog.New(slog.DiscardHandler)
	spaces, _, err := openKeyspaces(c, log, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer closeKeyspaces(spaces, log)
	ctx := context.Background()
	old := spaces[2].db.(*zlite.DB)
	if err := old.Set(ctx, "k", "v", 0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := old.Get(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	if n := writes(old); n != 1 {
		t.Errorf("writes after SET and GET = %d; want 1", n)
	}
	reopen := reopener(spaces, c, log, time.Now)
	ndb, err := reopen(2, old)
	if err != nil {
		t.Fatal(err)
	}
	if ndb == old || spaces[2].db != store(ndb) {
		t.Fatal("reopen did not replace the keyspace's DB")
	}
	if v, ok, err := ndb.Get(ctx, "k"); v != "v" || !ok || err != nil {
		t.Errorf("after reopen, GET k = %q, %v, %v; want \"v\", true, nil", v, ok, err)
	}
	if _, err := reopen(2, old); err == nil {
		t.Error("reopen of the closed DB: no error")
	}
	if _, err := zlite.Open(spaces[2].dir); err == nil {
		t.Error("a second Open of the reopened keyspace's directory succeeded; want it locked")
	}
}
