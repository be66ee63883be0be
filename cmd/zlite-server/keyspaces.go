package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/persist"
)

// store is what the save schedule needs of a persistent keyspace; *zlite.DB is
// one, and the schedule's tests use a fake.
type store interface {
	Snapshot() error
	CommandCalls() map[string]uint64
	DBSize(ctx context.Context) (int64, error)
	Close() error
}

// keyspace is one of the server's 16 keyspaces kept in its own directory.
type keyspace struct {
	dir string // its directory, <dir>/db<k>
	// index is its number (SELECT's), for the log; SWAPDB changes it (layout.swap)
	// without waiting for a snapshot that holds mu.
	index atomic.Int32

	// mu is held while the keyspace is snapshotted, reopened or closed, so that
	// the schedule, DEBUG RELOAD and the shutdown take turns.
	mu sync.Mutex
	db store
	// lastSave is when the last snapshot (or Open) was; base the write commands
	// counted then; retry, after a failed snapshot, the earliest time of the next.
	lastSave, retry time.Time
	base            uint64
	// nextCount is the earliest time the schedule counts the writes again: counting
	// holds every shard's lock for a moment (DB.CommandCalls), so it is spaced to
	// keep that under 1% of the time.
	nextCount time.Time
	closed    bool
}

// current returns the keyspace's DB (DEBUG RELOAD replaces it).
func (ks *keyspace) current() *zlite.DB {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return ks.db.(*zlite.DB)
}

// openOptions are the zlite.Open options of c.
func (c *config) openOptions() []zlite.Option {
	pct, minSize := c.autoPct, c.autoMin
	if pct == 0 {
		pct = -1 // Redis's 0: no automatic rewrite
	}
	if minSize <= 0 {
		minSize = 1 // Redis's 0: no minimum (zlite's 0 is its default)
	}
	return []zlite.Option{zlite.WithSync(c.fsync), zlite.WithAutoSnapshot(pct, minSize)}
}

// openKeyspaces opens the 16 keyspaces under c.dir, each at the number the
// layout file gives it (see layout), logging the keys each holds and the time the
// load took. It returns them by number and their layout. On failure it closes
// those it opened.
func openKeyspaces(c *config, log *slog.Logger, now func() time.Time) ([]*keyspace, *layout, error) {
	start := time.Now()
	names, err := readLayout(c.dir)
	if err != nil {
		return nil, nil, fmt.Errorf("reading which keyspace each number holds: %w", err)
	}
	var spaces []*keyspace
	total := int64(0)
	for i, name := range names {
		dir := filepath.Join(c.dir, name)
		t := time.Now()
		db, err := zlite.Open(dir, c.openOptions()...)
		if err != nil {
			closeKeyspaces(spaces, log)
			if errors.Is(err, persist.ErrLocked) {
				return nil, nil, fmt.Errorf("%s is in use by another zlite-server (or program): %w", dir, err)
			}
			return nil, nil, fmt.Errorf("loading keyspace %d from %s: %w", i, dir, err)
		}
		n, _ := db.DBSize(context.Background())
		total += n
		if n > 0 {
			log.Info("Keyspace loaded", "db", i, "keys", n, "seconds", seconds(time.Since(t)))
		}
		ks := &keyspace{dir: dir, db: db, lastSave: now()}
		ks.index.Store(int32(i))
		spaces = append(spaces, ks)
	}
	log.Info("DB loaded from disk", "keys", total, "seconds", seconds(time.Since(start)))
	l := &layout{path: filepath.Join(c.dir, layoutFile)}
	copy(l.at[:], spaces)
	return spaces, l, nil
}

// seconds formats d as Redis's logs do, in seconds with 3 decimals.
func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// closeKeyspaces closes every keyspace (making its log durable).
func closeKeyspaces(spaces []*keyspace, log *slog.Logger) error {
	var errs []error
	for _, ks := range spaces {
		if err := ks.close(); err != nil {
			log.Error("Closing a keyspace failed", "db", ks.index.Load(), "err", err)
			errs = append(errs, fmt.Errorf("keyspace %d: %w", ks.index.Load(), err))
		}
	}
	return errors.Join(errs...)
}

// close closes the keyspace, once.
func (ks *keyspace) close() error {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if ks.closed {
		return nil
	}
	ks.closed = true
	return ks.db.Close()
}

// writeCommands is the set of the keyspace's commands that may modify it.
var writeCommands = func() map[string]bool {
	m := map[string]bool{}
	for c := range zlite.Commands() {
		if c.Write() {
			m[c.Name()] = true
		}
	}
	return m
}()

// writes returns the number of write commands db has run since it was opened:
// the save schedule's measure of changes (Redis counts modified keys, so a
// command that changes nothing counts here and not there). The cost is
// DB.CommandCalls's, O(shards · commands), whatever the number of keys.
func writes(db store) uint64 {
	n := uint64(0)
	for name, calls := range db.CommandCalls() {
		if writeCommands[name] {
			n += calls
		}
	}
	return n
}

// snapshotLocked snapshots the keyspace (ks.mu held) and records it as the last
// save, returning the changes it covered and its duration.
func (ks *keyspace) snapshotLocked(now func() time.Time) (changes uint64, took time.Duration, err error) {
	w := writes(ks.db)
	start := time.Now()
	if err := ks.db.Snapshot(); err != nil {
		return 0, 0, err
	}
	changes = w - ks.base
	ks.base, ks.lastSave = w, now()
	return changes, time.Since(start), nil
}

// schedule snapshots each keyspace when one of the save points holds, as Redis's
// serverCron starts a BGSAVE: at least changes writes and seconds seconds since the
// keyspace's last snapshot. It checks once a second.
type schedule struct {
	points func() []savePoint // the schedule now: CONFIG SET save changes it
	spaces []*keyspace
	log    *slog.Logger
	now    func() time.Time
}

// run checks the schedule every second until ctx is done.
func (s *schedule) run(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, ks := range s.spaces {
			if ctx.Err() != nil {
				return
			}
			s.check(ks)
		}
	}
}

// retryDelay is the wait after a failed snapshot, Redis's CONFIG_BGSAVE_RETRY_DELAY.
const retryDelay = 5 * time.Second

// check snapshots ks if a save point holds.
func (s *schedule) check(ks *keyspace) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	now := s.now()
	if ks.closed || now.Before(ks.retry) {
		return
	}
	elapsed := int64(now.Sub(ks.lastSave) / time.Second)
	need, due := uint64(0), false
	for _, p := range s.points() {
		if elapsed >= p.seconds && (!due || p.changes < need) {
			need, due = p.changes, true
		}
	}
	if !due {
		return
	}
	if need > 0 {
		if now.Before(ks.nextCount) {
			return
		}
		start := time.Now()
		w := writes(ks.db)
		ks.nextCount = now.Add(100 * time.Since(start))
		if w-ks.base < need {
			return
		}
	}
	changes, took, err := ks.snapshotLocked(s.now)
	switch {
	case errors.Is(err, persist.ErrSnapshotInProgress):
		// An automatic compaction is running: it will do.
	case err != nil:
		ks.retry = now.Add(retryDelay)
		s.log.Error("Background saving error", "db", ks.index.Load(), "err", err)
	default:
		s.log.Info("DB saved on disk", "db", ks.index.Load(), "changes", changes, "after_seconds", elapsed, "seconds", seconds(took))
	}
}

// saveAll snapshots every keyspace before the server exits and reports what it
// saved.
func saveAll(spaces []*keyspace, log *slog.Logger, now func() time.Time) {
	log.Info("Saving the final snapshot of each keyspace before exiting")
	start := time.Now()
	saved, total := 0, int64(0)
	for _, ks := range spaces {
		ks.mu.Lock()
		if !ks.closed {
			changes, took, err := ks.snapshotLocked(now)
			switch {
			case errors.Is(err, persist.ErrSnapshotInProgress):
				// An automatic compaction: Close waits for it.
				log.Info("A snapshot of the keyspace is already in progress", "db", ks.index.Load())
			case err != nil:
				log.Error("Saving a keyspace failed (its log still holds every write)", "db", ks.index.Load(), "err", err)
			default:
				saved++
				keys, _ := ks.db.DBSize(context.Background())
				total += keys
				if keys > 0 || changes > 0 {
					log.Info("DB saved on disk", "db", ks.index.Load(), "keys", keys, "changes", changes, "seconds", seconds(took))
				}
			}
		}
		ks.mu.Unlock()
	}
	log.Info("DB saved on disk", "keyspaces", saved, "keys", total, "seconds", seconds(time.Since(start)))
}

// reopener returns DEBUG RELOAD's function: it snapshots and closes the keyspace
// db and opens its directory again.
func reopener(spaces []*keyspace, c *config, log *slog.Logger, now func() time.Time) func(i int, db *zlite.DB) (*zlite.DB, error) {
	return func(i int, db *zlite.DB) (*zlite.DB, error) {
		for _, ks := range spaces {
			ks.mu.Lock()
			if ks.closed || ks.db != store(db) {
				ks.mu.Unlock()
				continue
			}
			defer ks.mu.Unlock()
			// A snapshot already running (automatic, or BGSAVE's) will do: the
			// log after it is replayed at the Open below.
			if _, _, err := ks.snapshotLocked(now); err != nil && !errors.Is(err, persist.ErrSnapshotInProgress) {
				return nil, err
			}
			if err := ks.db.Close(); err != nil {
				return nil, err
			}
			ndb, err := zlite.Open(ks.dir, c.openOptions()...)
			if err != nil {
				ks.closed = true
				return nil, err
			}
			ks.db, ks.base, ks.lastSave = ndb, 0, now()
			log.Info("DB reloaded by DEBUG RELOAD", "db", ks.index.Load())
			return ndb, nil
		}
		return nil, fmt.Errorf("keyspace %d is not one of the server's persistent keyspaces", i)
	}
}
