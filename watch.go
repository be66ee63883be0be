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
	db     *DB
	keys   []string
	dirty  atomic.Bool
	closed atomic.Bool
}

// watchTable is the keyspace's index of watched keys (Redis's db->watched_keys).
type watchTable struct {
	keys map[string][]*Watch
	n    int // watches of the shard's keys, one per key watched; touch costs one integer check while it is 0
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
	tx := db.lockKeys(w.keys...)
	defer db.release(tx.held)
	for _, k := range w.keys {
		t := &tx.sh(k).watches
		if t.keys == nil {
			t.keys = make(map[string][]*Watch)
		}
		t.keys[k] = append(t.keys[k], w)
		t.n++
	}
	return w
}

// Dirty reports whether a watched key was modified since [DB.Watch]. Inside
// [DB.Update] of the same DB the answer cannot change before the batch ends.
// The complexity is O(1).
func (w *Watch) Dirty() bool { return w.dirty.Load() }

// Close stops watching. It is safe to call more than once. The complexity is
// O(number of watchers of each key).
func (w *Watch) Close() {
	if w.closed.Swap(true) {
		return
	}
	tx := w.db.lockKeys(w.keys...)
	defer w.db.release(tx.held)
	for _, k := range w.keys {
		t := &tx.sh(k).watches
		ws := t.keys[k]
		for i, x := range ws {
			if x == w {
				ws = append(ws[:i], ws[i+1:]...)
				t.n--
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
}

// touch marks the watches of key dirty: Redis's signalModifiedKey. Called from
// the keyspace's write paths under the shard's lock; it costs two checks, in line,
// when nothing is watched in the shard and the keyspace is not persisted.
func (sh *shard) touch(key string) {
	if sh.touchy() {
		sh.touchSlow(key)
	}
}

// touchy reports whether touch has work to do in the shard. A command that may
// leave a key as it was (SADD of a member there, HDEL of a field not) checks it,
// and when it is set touches the key just before its first change, so that a
// WATCH of the key stays clean when nothing changes, as in Redis.
func (sh *shard) touchy() bool { return sh.db.dur != nil || sh.watches.n != 0 }

// touchSlow is touch for a persisted keyspace (a snapshot's copy-on-write) or a
// shard with watches.
func (sh *shard) touchSlow(key string) {
	sh.cow(key)
	sh.touchWatches(key)
}

// cow is touch's snapshot half: a snapshot being written copies key's value
// before it changes (open_snapshot.go).
func (sh *shard) cow(key string) {
	if d := sh.db.dur; d != nil && d.snap != nil {
		d.snap.cow(sh.keys.Get(key))
	}
}

// touchWatches is touch's WATCH half, for a command that learns only after its
// change whether it changed key (ZADD): cow before, this after.
func (sh *shard) touchWatches(key string) {
	if sh.watches.n == 0 {
		return
	}
	for _, w := range sh.watches.keys[key] {
		w.dirty.Store(true)
	}
}

// touchAll marks dirty the watches of every key of the shard that exists, before a
// flush.
func (sh *shard) touchAll() {
	if sh.watches.n == 0 {
		return
	}
	for k, ws := range sh.watches.keys {
		if sh.value(k) != nil {
			for _, w := range ws {
				w.dirty.Store(true)
			}
		}
	}
}
