package zlite

import "sync/atomic"

// Watch is a set of watched keys for optimistic locking, as Redis's WATCH: it
// becomes dirty when any of its keys is modified, and stays so. A server runs a
// client's EXEC as one [DB.Update] that first checks [Watch.Dirty], so that no write
// can slip in between the check and the queued commands.
//
// A Watch is safe for concurrent use. Create one with [DB.Watch] and release it with
// [Watch.Close] (UNWATCH, EXEC, DISCARD, a disconnect).
type Watch struct {
	db    *DB
	keys  []string
	dirty atomic.Bool
}

// watchTable is the keyspace's index of watched keys (Redis's db->watched_keys).
type watchTable struct {
	keys map[string][]*Watch
	n    int // live watches; touch costs one integer check while it is 0
}

// Watch starts watching keys: the returned Watch becomes dirty at the first
// modification of any of them (a write that changes, creates or deletes the key,
// FLUSHALL of a keyspace holding it, a blocked pop served from it). The complexity
// is O(len(keys)).
//
// Difference from Redis: a write command given an existing key marks it modified
// even when it changes nothing (ZADD XX of a missing member, LREM without a match,
// ZREM of a missing member); Redis marks only real modifications. So EXEC may
// fail where Redis's would succeed, never the reverse.
func (db *DB) Watch(keys ...string) *Watch {
	w := &Watch{db: db, keys: append([]string(nil), keys...)}
	db.mu.Lock()
	defer db.mu.Unlock()
	t := &db.watches
	if t.keys == nil {
		t.keys = make(map[string][]*Watch)
	}
	for _, k := range w.keys {
		t.keys[k] = append(t.keys[k], w)
	}
	t.n++
	return w
}

// Dirty reports whether a watched key was modified since [DB.Watch]. Inside
// [DB.Update] of the same DB the answer cannot change before the batch ends.
// The complexity is O(1).
func (w *Watch) Dirty() bool { return w.dirty.Load() }

// Close stops watching. It is safe to call more than once. The complexity is
// O(number of watchers of each key).
func (w *Watch) Close() {
	db := w.db
	db.mu.Lock()
	defer db.mu.Unlock()
	if w.keys == nil {
		return
	}
	t := &db.watches
	for _, k := range w.keys {
		ws := t.keys[k]
		for i, x := range ws {
			if x == w {
				ws = append(ws[:i], ws[i+1:]...)
				break
			}
		}
		if len(ws) == 0 {
			delete(t.keys, k)
		} else {
			t.keys[k] = ws
		}
	}
	w.keys = nil
	t.n--
}

// touch marks the watches of key dirty: Redis's signalModifiedKey. Called from
// the keyspace's write paths under db.mu; it costs one integer check when nothing
// is watched.
func (db *DB) touch(key string) {
	if d := db.dur; d != nil && d.snap != nil {
		d.snap.cow(db.keys.get(key)) // a snapshot's copy-on-write (snapshot.go)
	}
	if db.watches.n == 0 {
		return
	}
	for _, w := range db.watches.keys[key] {
		w.dirty.Store(true)
	}
}

// touchAll marks dirty the watches of every key that exists, before a flush.
func (db *DB) touchAll() {
	if db.watches.n == 0 {
		return
	}
	for k, ws := range db.watches.keys {
		if db.value(k) != nil {
			for _, w := range ws {
				w.dirty.Store(true)
			}
		}
	}
}
