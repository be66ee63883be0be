package zlite

import (
	"github.com/zlite/zlite/dict"
	"github.com/zlite/zlite/internal/keytable"
	"sync"
	"time"

	"github.com/zlite/zlite/list"
	"github.com/zlite/zlite/persist"
	"github.com/zlite/zlite/set"
	"github.com/zlite/zlite/zset"
)

// A snapshot copies each key on write: StartSnapshot (under every shard's lock)
// lists every key with its value as pending; a writer about to modify a pending
// value first replaces it in the list by a copy (touch calls cow), and the
// snapshot's goroutine copies the values still pending a few at a time under every
// shard's lock, then writes the copies without the locks. The longest write stall is therefore the listing of the keys plus the
// copy of the largest value, not the writing of the whole keyspace.

// snapshot is a snapshot in progress.
type snapshot struct {
	// mu guards pending and the keys' values against writers of different shards
	// copying at once (cow); the snapshot's goroutine copies under every shard's
	// lock, so it needs no more.
	mu   sync.Mutex
	keys []snapKey
	// pending indexes into keys the values not yet copied, by value.
	pending map[any]int
}

// snapKey is one key of a snapshot: its name and value as of StartSnapshot, the
// value being the keyspace's own until copied.
type snapKey struct {
	name     string
	v        any
	expireAt int64 // Unix ms, 0 for none
	copied   bool
}

// snapBatch bounds the elements copied under one hold of the locks.
const snapBatch = 1 << 14

// cow copies v, the value of a key about to be modified, if it is pending.
func (s *snapshot) cow(v any) {
	if v == nil {
		return
	}
	s.mu.Lock()
	if i, ok := s.pending[v]; ok {
		s.copy(i)
	}
	s.mu.Unlock()
}

// copy replaces key i's value by a copy and drops it from pending.
func (s *snapshot) copy(i int) {
	k := &s.keys[i]
	delete(s.pending, k.v)
	k.v, k.copied = clone(k.v), true
}

// Snapshot writes a snapshot of the keyspace and compacts the log to it, like
// Redis's BGREWRITEAOF, and returns once it is durable (or has failed). Writers are
// not stopped for its duration: it holds the keyspace lock to list the keys (O(keys))
// and then to copy a few values at a time, and a writer about to modify a value not
// yet written copies it first; so the longest stall is about the copy of the
// largest value. The log of the writes made meanwhile follows the snapshot. A DB
// made by [New] returns [ErrNotPersistent]; a snapshot already running,
// [persist.ErrSnapshotInProgress]; a DB being closed, [persist.ErrClosed] ([DB.Close]
// waits for a snapshot that started before it); a failure to write it, a
// [*MisconfError] (and further writes are refused, as the log's failures are). The
// cost is O(elements).
func (db *DB) Snapshot() error {
	d := db.dur
	if d == nil {
		return ErrNotPersistent
	}
	d.mu.Lock()
	switch {
	case d.closing:
		d.mu.Unlock()
		return persist.ErrClosed
	case d.snapping:
		d.mu.Unlock()
		return persist.ErrSnapshotInProgress
	}
	d.snapping = true
	d.wg.Add(1)
	d.mu.Unlock()
	defer d.wg.Done()
	return db.snapshot()
}

// maybeCompact starts a snapshot in the background when the log has grown past
// the automatic compaction's thresholds.
func (db *DB) maybeCompact() {
	d := db.dur
	if d.autoPct < 0 {
		return
	}
	n := d.st.LogBytes()
	if n < d.autoMin {
		return // the common case, without the lock
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.snapping || d.closing || n*100 <= d.base*int64(100+d.autoPct) {
		return
	}
	d.snapping = true
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		// A failure is the store's: later writes report it.
		_ = db.snapshot()
	}()
}

// snapshot runs a snapshot; d.snapping is set, and cleared on return.
func (db *DB) snapshot() error {
	d := db.dur
	defer func() {
		tx := db.lockAll()
		d.snap = nil
		tx.release()
		d.mu.Lock()
		d.snapping = false
		d.mu.Unlock()
	}()
	tx := db.lockAll()
	t0 := time.Now()
	if err := tx.appendRec(); err != nil { // the snapshot follows it
		db.release(tx.held)
		return misconf(err)
	}
	w, err := d.st.StartSnapshot()
	if err != nil {
		db.release(tx.held)
		return misconf(err)
	}
	n := 0
	for i := range db.shards {
		n += db.shards[i].keys.Len()
	}
	s := &snapshot{keys: make([]snapKey, 0, n), pending: make(map[any]int, n)}
	for i := range db.shards {
		sh := &db.shards[i]
		t := &sh.keys
		for i := range t.Entries() {
			if t.Live(i) {
				v := t.Value(i)
				at, _ := sh.expiry(i) // an expired key is written with its time, as Redis's RDB does
				s.pending[v] = len(s.keys)
				s.keys = append(s.keys, snapKey{name: t.KeyCopy(i), v: v, expireAt: at})
			}
		}
	}
	d.snap = s
	d.maxHold = time.Since(t0)
	db.release(tx.held)

	var size int64
	for i := 0; i < len(s.keys); {
		j := i
		tx := db.lockAll()
		t0 := time.Now()
		for n := 0; j < len(s.keys) && n < snapBatch; j++ {
			if !s.keys[j].copied {
				s.copy(j)
			}
			n += s.keys[j].v.(interface{ Len() int }).Len()
		}
		if j == len(s.keys) {
			d.snap = nil // every value is copied: writers need not look any more
		}
		d.maxHold = max(d.maxHold, time.Since(t0))
		db.release(tx.held)
		for ; i < j; i++ {
			if err == nil {
				size, err = writeKey(w, &s.keys[i], size)
			}
			s.keys[i] = snapKey{}
		}
	}
	if err != nil {
		w.Abort()
		return misconf(err)
	}
	if err := w.Commit(); err != nil {
		return misconf(err)
	}
	d.mu.Lock()
	d.base = size
	d.mu.Unlock()
	return nil
}

// writeKey writes one key to w and returns size plus its approximate size in bytes.
func writeKey(w *persist.SnapshotWriter, k *snapKey, size int64) (int64, error) {
	size += int64(len(k.name)) + 8
	switch v := k.v.(type) {
	case *list.List:
		err := w.WriteList(k.name, k.expireAt, func(yield func(string) bool) {
			for _, it := range v.All() {
				size += int64(len(it)) + 1
				if !yield(it) {
					return
				}
			}
		})
		return size, err
	case *zset.Set:
		err := w.WriteZSet(k.name, k.expireAt, func(yield func(string, float64) bool) {
			for m, sc := range v.All() {
				size += int64(len(m)) + 9
				if !yield(m, sc) {
					return
				}
			}
		})
		return size, err
	case *stringValue, *keytable.Short:
		b, _ := stringBytes(v)
		size += int64(len(b))
		return size, w.WriteString(k.name, k.expireAt, string(b))
	case *set.Set:
		err := w.WriteSet(k.name, k.expireAt, func(yield func(string) bool) {
			for m := range v.All() {
				size += int64(len(m)) + 1
				if !yield(m) {
					return
				}
			}
		})
		return size, err
	case *dict.Map:
		err := w.WriteHash(k.name, k.expireAt, func(yield func(string, string) bool) {
			for f, val := range v.All() {
				size += int64(len(f)+len(val)) + 2
				if !yield(f, val) {
					return
				}
			}
		})
		return size, err
	}
	return size, nil
}
