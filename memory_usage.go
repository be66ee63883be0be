package zlite

import (
	"context"
	"unsafe"

	"github.com/zlite/zlite/persist"
)

// keyEntryOverhead is what a key costs beyond its name's bytes and its value's
// heap in MEMORY USAGE: its entry in the key table (Redis counts its dictEntry).
const keyEntryOverhead = 24

// MemoryUsage is [Tx.MemoryUsage] (MEMORY USAGE) under the lock of its key's
// shard. Unlike a command, it counts in no command's statistics.
func (db *DB) MemoryUsage(ctx context.Context, key string, samples ...int) (int64, bool, error) {
	if err := ctx.Err(); err != nil {
		return 0, false, err
	}
	tx := db.lockKey(key)
	defer tx.release()
	return tx.MemoryUsage(key, samples...)
}

// MemoryUsage is MEMORY USAGE key [SAMPLES n]: an estimate of the bytes key and
// its value hold: the key's bytes, its entry in the key table and what the value
// holds on the heap (each engine's MemoryUsage, by capacity). ok is false when
// the key does not exist. Redis estimates a large aggregate from samples
// elements (5 by default, 0 for all); zlite's engines keep their sizes, so
// samples is accepted and changes nothing. The complexity is O(1) for every value
// but a large sorted set, O(n/84) for one.
func (tx *Tx) MemoryUsage(key string, samples ...int) (n int64, ok bool, err error) {
	v := tx.value(key)
	if v == nil {
		return 0, false, nil
	}
	n = int64(len(key)) + keyEntryOverhead
	switch v := v.(type) {
	case *stringValue:
		n += int64(v.MemoryUsage())
	case interface{ MemoryUsage() int }:
		n += int64(v.MemoryUsage())
	default:
		n += int64(unsafe.Sizeof(v))
	}
	return n, true, nil
}

// Persistence reports how a keyspace made by [Open] keeps its data: its sync policy
// ([WithSync]; Redis's appendfsync) and its directory; ok is false for one made by
// [New]. The complexity is O(1).
func (db *DB) Persistence() (sync persist.SyncPolicy, dir string, ok bool) {
	if db.dur == nil {
		return 0, "", false
	}
	sync = SyncEverySecond
	if db.cfg.persist.syncSet {
		sync = db.cfg.persist.sync
	}
	return sync, db.dur.st.Dir(), true
}
