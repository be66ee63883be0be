package zlite

import (
	"errors"
	"fmt"
	"github.com/zlite/zlite/dict"
	"github.com/zlite/zlite/internal/keytable"
	"time"

	"github.com/zlite/zlite/list"
	"github.com/zlite/zlite/persist"
	"github.com/zlite/zlite/set"
	"github.com/zlite/zlite/zset"
)

// The sync policies of [WithSync], Redis's appendfsync always, everysec and no (see
// persist/doc.go for what each survives).
const (
	SyncAlways      = persist.Always
	SyncEverySecond = persist.EverySecond
	SyncNever       = persist.Never
)

// Automatic compaction defaults, Redis's auto-aof-rewrite-percentage and
// auto-aof-rewrite-min-size.
const (
	DefaultAutoSnapshotPercent = 100
	DefaultAutoSnapshotMinSize = 64 << 20
)

// ErrNotPersistent is returned by [DB.Snapshot] on a DB made by [New].
var ErrNotPersistent = errors.New("zlite: the keyspace is not persistent (made by New, not Open)")

// persistConfig holds the settings of Open (unused by New).
type persistConfig struct {
	sync    persist.SyncPolicy
	syncSet bool
	// autoPct and autoMin trigger a snapshot when the log since the last one holds
	// more than autoMin bytes and more than autoPct percent of that snapshot's
	// size; autoPct < 0 disables it (0 means the default).
	autoPct int
	autoMin int64
	opts    []persist.Option
}

// WithSync sets the sync policy of a DB made by [Open]: [SyncAlways],
// [SyncEverySecond] (the default, as Redis's appendfsync everysec) or [SyncNever].
//
// EverySecond is the default, as in Redis, because here it loses nothing on a
// process crash (every acknowledged write has been written to the file) and at most
// about a second of writes on a power loss, while Always costs an fsync (0.1 to
// 10 ms) per group of concurrent writers. Under EverySecond and Never (on Linux) a
// write costs a copy of its record into the log's memory mapping, with no system
// call and no lock shared by writers of different shards, so that they scale with
// the cores as in-memory writes do (see BenchmarkPersistVsMemory).
func WithSync(p persist.SyncPolicy) Option {
	return func(c *config) { c.persist.sync, c.persist.syncSet = p, true }
}

// WithAutoSnapshot sets when a DB made by [Open] compacts its log on its own (a
// [DB.Snapshot] in the background): once the log written since the last snapshot
// is larger than minSize bytes and than percent percent of that snapshot, like
// Redis's auto-aof-rewrite-percentage and auto-aof-rewrite-min-size (defaults
// [DefaultAutoSnapshotPercent] and [DefaultAutoSnapshotMinSize]). percent < 0
// turns automatic compaction off; 0 restores the defaults.
func WithAutoSnapshot(percent int, minSize int64) Option {
	return func(c *config) { c.persist.autoPct, c.persist.autoMin = percent, minSize }
}

// WithPersistOptions passes options to [persist.Open] for a DB made by [Open]: the
// fsync interval of EverySecond, a logger, a file system (tests inject failures
// through it).
func WithPersistOptions(opts ...persist.Option) Option {
	return func(c *config) { c.persist.opts = append(c.persist.opts, opts...) }
}

// Open returns a keyspace kept in the directory dir (created if needed): it loads the
// newest snapshot and replays the log after it, then logs every write before the
// write returns, durable as the sync policy says ([WithSync]; EverySecond by
// default). A torn final record (a crash while writing it) is dropped with a
// warning; any other damage fails Open with a [*persist.CorruptError] naming the
// file and offset. Only one DB can have dir open at a time ([persist.ErrLocked]).
// Call [DB.Close] when done. The cost is one read of the snapshot and the log.
//
// Every write method of the DB, [DB.Do] and [DB.Update] then returns the log's
// error, a [*MisconfError], if the record could not be made durable; from then on
// writes are refused with that error and reads keep working. See the package doc's
// section Persistence.
func Open(dir string, opts ...Option) (*DB, error) {
	db := New(opts...)
	pc := db.cfg.persist
	if !pc.syncSet {
		pc.sync = SyncEverySecond
	}
	popts := append([]persist.Option{persist.WithSync(pc.sync)}, pc.opts...)
	// Nothing expires during the replay, as in Redis's loading: the log holds a DEL
	// for every key that expired, at its place. A clock at the epoch does that
	// (every expiry time logged is an absolute PEXPIREAT after it).
	now := db.cfg.now
	db.cfg.now = func() time.Time { return time.UnixMilli(0) }
	st, err := persist.Open(dir, (*replayer)(db), popts...)
	db.cfg.now = now
	if err != nil {
		return nil, err
	}
	db.stats = newCounters(&db.cfg) // the replayed commands are not the caller's
	for i := range db.shards {
		db.stats.reset(&db.shards[i])
	}
	db.dur = &durable{st: st, autoPct: pc.autoPct, autoMin: pc.autoMin}
	if db.dur.autoPct == 0 {
		db.dur.autoPct = DefaultAutoSnapshotPercent
	}
	if db.dur.autoMin <= 0 {
		db.dur.autoMin = DefaultAutoSnapshotMinSize
	}
	return db, nil
}

// Close waits for a snapshot in progress, makes every logged write durable (whatever
// the policy) and closes the files of a DB made by [Open]; it returns the log's
// failure, if any. The DB must not be used after Close. On a DB made by [New] it
// does nothing.
func (db *DB) Close() error {
	d := db.dur
	if d == nil {
		return nil
	}
	tx := db.lockAll()
	err := tx.appendRec()
	db.release(tx.held)
	d.mu.Lock()
	d.closing = true
	d.mu.Unlock()
	d.wg.Wait()
	if cerr := d.st.Close(); err == nil {
		err = cerr
	}
	return err
}

// replayer loads a store's state into a DB at Open.
type replayer DB

// LoadKey adds a snapshot's key.
func (r *replayer) LoadKey(k *persist.Key) error {
	db := (*DB)(r)
	sh := &db.shards[db.shardOf(k.Name)]
	if sh.keys.Get(k.Name) != nil {
		return fmt.Errorf("zlite: key %q twice in the snapshot", k.Name)
	}
	var v any
	empty := false // an empty list or sorted set is not a key
	switch k.Type {
	case persist.TypeString:
		s, ok := k.String()
		if !ok {
			return fmt.Errorf("zlite: string key %q without its value", k.Name)
		}
		v = &stringValue{b: []byte(s)}
		if len(s) <= keytable.ShortMax {
			v = keytable.NewShort([]byte(s), uint8(encAuto))
		}
	case persist.TypeSet:
		sv := set.New()
		for m := range k.SetMembers() {
			sv.Add(m, db.limits.Load().Set)
		}
		v, empty = sv, sv.Len() == 0
	case persist.TypeHash:
		h := dict.NewWithLimits(db.limits.Load().Hash)
		for f, val := range k.HashFields() {
			h.Set(f, val)
		}
		v, empty = h, h.Len() == 0
	case persist.TypeList:
		l := list.New()
		for it := range k.ListItems() {
			l.PushBack(it)
		}
		v, empty = l, l.Len() == 0
	case persist.TypeZSet:
		s := zset.NewWithLimits(db.limits.Load().ZSet)
		for m, sc := range k.ZSetEntries() {
			if _, err := s.Add(zset.AddOptions{}, Z{Member: m, Score: sc}); err != nil {
				return fmt.Errorf("zlite: loading key %q: %w", k.Name, err)
			}
		}
		v, empty = s, s.Len() == 0
	default:
		return fmt.Errorf("zlite: key %q of unknown type %d in the snapshot", k.Name, k.Type)
	}
	if !empty {
		sh.keys.Add(k.Name, v)
		if k.ExpireAt != 0 {
			sh.setExpireAt(k.Name, k.ExpireAt) // expires on first access if past
		}
	}
	return nil
}

// Replay applies one log record: its commands, as one batch.
func (r *replayer) Replay(rec []byte) error {
	return (*DB)(r).Update(func(tx *Tx) error {
		for words, err := range persist.Commands(rec) {
			if err != nil {
				return err
			}
			if _, err := tx.Do(words...); err != nil {
				return fmt.Errorf("zlite: replaying %s: %w", words[0], err)
			}
		}
		return nil
	})
}
