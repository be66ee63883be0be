package zlite

import (
	"math/bits"
	"sync/atomic"

	"github.com/zlite/zlite/blocking"
	"github.com/zlite/zlite/list"
	"github.com/zlite/zlite/pubsub"
	"github.com/zlite/zlite/zset"
)

// Z is a sorted-set member with its score, as in go-redis.
type Z = zset.Entry

// DB is an in-process keyspace of named sorted sets, lists, strings, hashes and
// sets, with its Pub/Sub.
//
// A DB is safe for concurrent use by any number of goroutines. Its keys are split
// into shards by hash (see [WithShards]), each under its own unexported mutex: a
// command locks the shards of the keys it names, so commands on keys of different
// shards run in parallel, and each command, and each [DB.Update] batch, is atomic
// with respect to all others, as in single-threaded Redis. Blocked callers (BLPOP,
// BZPOPMIN, ...) hold no lock while they wait. Create a DB with [New].
type DB struct {
	cfg config
	// shards holds the keys, split by the hash of their hash tag (shard.go).
	shards []shard
	// shardMask is len(shards)-1; all has one bit per shard.
	shardMask, all uint64
	// gwaits holds the callers blocked on keys of several shards; while it holds
	// any, every command locks every shard (shard.go).
	gwaits blocking.Registry[popReq]
	// stats is the configuration of the command counters, which live in the
	// shards, and the counters of the blocking commands (stats.go).
	stats counters
	// dur is the log and snapshots of a DB made by Open, nil for New (open_log.go).
	dur *durable
	// limits are the thresholds of the compact encodings that new values get
	// (SetEncodingLimits).
	limits atomic.Pointer[EncodingLimits]
	// hub is the DB's Pub/Sub (pubsub.go).
	hub *pubsub.Hub
	// events is the KeyspaceEvents enabled, and target where they are published
	// (notify.go).
	events atomic.Uint32
	target atomic.Pointer[eventTarget]
}

// New returns an empty keyspace configured by opts (none: Redis's defaults).
func New(opts ...Option) *DB {
	db := &DB{cfg: newConfig(opts), hub: pubsub.NewHub()}
	db.limits.Store(&EncodingLimits{ZSet: db.cfg.zsetLimits, Hash: db.cfg.hashLimits, Set: db.cfg.setLimits})
	db.events.Store(uint32(db.cfg.events))
	db.target.Store(newEventTarget(db.hub, db.cfg.eventsDB))
	n := db.cfg.shards
	db.shards = newShards(n)
	db.shardMask = uint64(n - 1)
	db.all = ^uint64(0) >> (64 - n)
	db.stats = newCounters(&db.cfg)
	for i := range db.shards {
		sh := &db.shards[i]
		sh.db = db
		sh.mu.Init()
		sh.wtx = Tx{db: db, home: sh, writable: true}
		sh.rtx = Tx{db: db, home: sh}
		db.stats.reset(sh)
	}
	return db
}

// Update runs fn as one atomic batch, like a Redis MULTI/EXEC block or Lua script: no
// other command runs between fn's operations. Callers blocked on keys that fn wrote
// are served after fn returns, with the keys' final state, before any other command
// runs. Blocking commands inside fn do not block: they behave as in MULTI and report
// nothing ready at once. Update locks every shard; [DB.UpdateKeys] locks only those
// of the keys it is given, so that batches on unrelated keys run in parallel.
//
// There is no rollback: if fn returns an error, the writes it made before stay, as
// in a Redis script that fails halfway (and EXEC, whose later commands still run).
// Update returns fn's error. fn must not call methods of db (that would deadlock) and
// must not keep tx after returning.
//
// On a DB made by [Open], the batch's writes are one log record (all or none of
// them survive a crash), durable as the sync policy says when Update returns; if
// the log fails, Update returns a [*MisconfError] (when fn returned nil).
func (db *DB) Update(fn func(tx *Tx) error) error {
	return db.lockAll().batchRun(fn)
}

// UpdateKeys is [DB.Update] for a batch that touches only the given keys: it locks
// their shards alone (every shard when keys is empty), so that batches on keys of
// different shards run in parallel. A key that fn reaches and keys did not name
// panics with an error matching [ErrUndeclaredKey] unless it shares a shard with a
// named one; keys with the same hash tag always do ("{order:17}:items",
// "{order:17}:log"). Commands over the whole keyspace (KEYS, SCAN, DBSIZE,
// RANDOMKEY, FLUSHALL) see only the locked shards. The cost is that of Update plus
// O(len(keys)).
func (db *DB) UpdateKeys(keys []string, fn func(tx *Tx) error) error {
	return db.lockKeys(keys...).batchRun(fn)
}

// batchRun runs fn as Update's batch under the locks tx holds.
func (tx *Tx) batchRun(fn func(tx *Tx) error) (err error) {
	tx.batch, tx.checked = true, true
	defer func() {
		tx.batch, tx.checked = false, false
		if werr := tx.unlock(); err == nil {
			err = werr
		}
	}()
	return fn(tx)
}

// View runs fn with a read-only [Tx]: it sees one consistent state of the keyspace.
// Writes through tx fail with [ErrReadOnly] and change nothing. View returns fn's
// error; fn must not call methods of db or keep tx after returning. View locks
// every shard; [DB.ViewKeys] only those of the keys it is given. Views and the reads
// of one key share shards with each other when no key in them has a TTL (a read
// deletes a key whose time has come, as in Redis): then they run in parallel.
func (db *DB) View(fn func(tx *Tx) error) error {
	return db.view(db.all, fn)
}

// ViewKeys is [DB.View] for a function that reads only the given keys, locking
// their shards alone (every shard when keys is empty); a key it reaches in another
// shard panics as in [DB.UpdateKeys]. The cost is that of View plus O(len(keys)).
func (db *DB) ViewKeys(keys []string, fn func(tx *Tx) error) error {
	return db.view(db.maskOf(keys...), fn)
}

// view runs fn with a read-only Tx of the shards of m (every shard when m is 0):
// one that shares them with other reads when that is possible (see rlockMask), else
// the home shard's read-only Tx, holding them exclusively.
func (db *DB) view(m uint64, fn func(tx *Tx) error) error {
	if m == 0 {
		m = db.all
	}
	if rt := db.rlockMask(m); rt != nil {
		rt.checked = true
		defer func() {
			rt.unlock()
			readers.Put(rt)
		}()
		return fn(rt)
	}
	tx := db.lockMask(m)
	rtx := &tx.home.rtx
	rtx.begin(tx.held)
	rtx.checked = true
	defer func() {
		rtx.checked = false
		rtx.release()
	}()
	return fn(rtx)
}

// release ends a read (View, or a read-only walk): it logs the deletions of the
// expired keys the read met, if any, without waiting, and unlocks.
func (tx *Tx) release() {
	if tx.db.dur != nil {
		tx.appendRec() // a failure is the next write's
	}
	tx.db.release(tx.held)
}

// unlock serves the callers blocked on keys that became ready, then releases the
// shards tx holds: every write ends here, so hand-offs happen under the same lock as
// the write that made them possible, after it completes. On a DB made by Open it
// logs the write and returns once it is durable (commit), or the log's error.
func (tx *Tx) unlock() error {
	db := tx.db
	if tx.shared {
		for b := tx.held; b != 0; b &= b - 1 {
			db.shards[bits.TrailingZeros64(b)].mu.RUnlock()
		}
		return nil
	}
	if m := tx.held; m&(m-1) == 0 && db.dur == nil {
		// One shard, its home, in memory: most commands, in straight-line code.
		sh := tx.home
		sh.expireSome()
		if sh.waits.HasReady() || db.gwaits.HasReady() {
			tx.serveReady()
		}
		sh.release()
		return nil
	}
	for b := tx.held; b != 0; b &= b - 1 {
		db.shards[bits.TrailingZeros64(b)].expireSome()
	}
	tx.serveReady()
	return tx.commit()
}

// Tx is a view of the keyspace inside [DB.Update] or [DB.View], with the same typed
// methods as DB (without the context) and [Tx.Do]. A Tx is valid only during the
// function it was passed to, and only on that goroutine.
type Tx struct {
	db *DB
	// home is the shard whose Tx this is, the lowest of those it holds: the
	// command's counters are kept there.
	home *shard
	// held has a bit for each shard the Tx holds locked.
	held     uint64
	writable bool
	// shared is set for a read that holds its one shard's lock shared with other
	// reads (rlockMask): it must change nothing, not even the shard's Tx fields.
	shared bool
	// batch is set inside Update: writes then leave waiters to be served when the
	// batch completes (see Tx.handsOff).
	batch bool
	// checked is set for a caller's batch (Update, View and their Keys forms):
	// sh then checks every key against the shards held, since the caller may
	// reach keys it did not declare.
	checked bool
	// muted silences the keyspace events of the commands run through tx
	// (MuteEvents) until the locks are released; beside the other flags, in
	// their word's padding.
	muted bool
	// now is the expiry clock in Unix ms as first read since the locks were taken
	// (nowOK), so that one command or batch sees one time, as a Redis command or
	// script does.
	now   int64
	nowOK bool
	// rec is the log record of the command or batch (open_log.go).
	rec recorder
	// lastKey and lastLen are the bytes of the key that sh last looked up, and
	// lastSh its shard: a string at the same address with the same length is the
	// same key (strings are immutable), so a command that names its key several
	// times hashes it once.
	lastKey *byte
	lastLen int
	lastSh  *shard
}

// value returns the value at key, or nil; an expired key is deleted and reads as
// absent. It is Redis's write lookup (lookupKeyWrite), which publishes nothing for
// a missing key: for the commands that write key, for those that serve blocked
// callers and for OBJECT's and MEMORY's. A command that reads key calls read.
func (tx *Tx) value(key string) any {
	return tx.sh(key).value(key)
}

// read is value for a command that reads key, Redis's lookupKeyRead: a key that
// does not exist (or whose time had come, after its "expired") publishes
// "keymiss". While the class is off it costs what value does, plus one atomic
// load and a branch when the key is missing.
func (tx *Tx) read(key string) any {
	v := tx.value(key)
	if v == nil {
		tx.missed(key)
	}
	return v
}

// missed publishes "keymiss" for key, which a read found missing: read's event,
// for the commands that look keys up without their value (EXISTS, TTL, COPY).
func (tx *Tx) missed(key string) {
	tx.notify(EventsKeyMiss, "keymiss", key)
}

// zsetRead returns the sorted set at key for a command that reads it (see read):
// nil if the key does not exist, ErrWrongType if it holds another type.
func (tx *Tx) zsetRead(key string) (*zset.Set, error) {
	return zsetOf(tx.read(key))
}

// zsetOf is zsetRead for a value already looked up.
func zsetOf(v any) (*zset.Set, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case *zset.Set:
		return v, nil
	}
	return nil, ErrWrongType
}

// zsetWrite is zsetRead for a command that may modify the set (ErrReadOnly in
// View), with the write lookup (value: no "keymiss"). It does touch's
// copy-on-write; the command reports a change with touchWatches, as Redis
// signals a key only when it changed.
func (tx *Tx) zsetWrite(key string) (*zset.Set, error) {
	if err := tx.writeErr(); err != nil {
		return nil, err
	}
	s, err := zsetOf(tx.value(key))
	if s != nil {
		tx.sh(key).cow(key)
	}
	return s, err
}

// listRead returns the list at key for a command that reads it (see read): nil if
// the key does not exist, ErrWrongType if it holds another type.
func (tx *Tx) listRead(key string) (*list.List, error) {
	return listOf(tx.read(key))
}

// listOf is listRead for a value already looked up.
func listOf(v any) (*list.List, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case *list.List:
		return v, nil
	}
	return nil, ErrWrongType
}

// listWrite is listRead for a command that may modify the list (ErrReadOnly in
// View), with the write lookup, as zsetWrite: touch's copy-on-write now,
// touchWatches from the command when it changed the list.
func (tx *Tx) listWrite(key string) (*list.List, error) {
	if err := tx.writeErr(); err != nil {
		return nil, err
	}
	l, err := listOf(tx.value(key))
	if l != nil {
		tx.sh(key).cow(key)
	}
	return l, err
}

// newZSet creates an empty sorted set at key, which must not exist. The caller must
// add to it (then call signal) or delete it again with dropIfEmpty before returning:
// empty keys never outlive a command.
func (tx *Tx) newZSet(key string) *zset.Set {
	sh := tx.sh(key)
	sh.touch(key)
	s := sh.keys.AddZSet(key) // in the key table's own storage (internal/keytable)
	tx.notify(EventsNew, "new", key)
	if l := tx.db.limits.Load().ZSet; l != zset.DefaultLimits {
		s.SetLimits(l)
	}
	return s
}

// newList creates an empty list at key, which must not exist; see newZSet.
func (tx *Tx) newList(key string) *list.List {
	sh := tx.sh(key)
	sh.touch(key)
	l := sh.keys.AddList(key) // in the key table's own storage (internal/keytable)
	tx.notify(EventsNew, "new", key)
	if sh.spareList != nil {
		l.Swap(sh.spareList) // the buffers of the last list drained, if any
	}
	return l
}

// dropIfEmpty deletes key if v, its value, has become empty, with the "del" event
// Redis publishes then.
func (tx *Tx) dropIfEmpty(key string, v interface{ Len() int }) {
	if v.Len() == 0 {
		sh := tx.sh(key)
		if l, ok := v.(*list.List); ok {
			// Keep the drained list's buffers for the next new list (newList), so
			// that a queue that fills and drains does not allocate.
			if sh.spareList == nil {
				sh.spareList = new(list.List)
			}
			sh.spareList.Swap(l)
		}
		sh.del(key)
		tx.notify(EventsGeneric, "del", key)
	}
}

// store makes v (a *zset.Set, *list.List or set) the value of key, replacing any
// value of any type and clearing its TTL, or deletes key when v is empty (as the
// *STORE commands do), and logs it. It signals key as ready for blocked callers.
// It publishes the events Redis does: "new" and event (of class) for a value
// stored, "del" for a key deleted.
func (tx *Tx) store(event string, class KeyspaceEvents, key string, v interface{ Len() int }) {
	sh := tx.sh(key)
	d := tx.log()
	if v.Len() == 0 {
		if sh.del(key) {
			tx.notify(EventsGeneric, "del", key)
			if d != nil {
				d.cmd(nil, "del", key)
			}
		}
		return
	}
	tx.notifyNew(key)
	sh.touch(key)
	if i, ok := sh.lookup(key); ok {
		sh.clearExpiry(i)
	}
	sh.keys.Set(key, v)
	if d != nil {
		d.value(key, sh.keys.Get(key)) // the table's copy: Set moves a list's contents out of v
	}
	tx.notify(class, event, key)
	tx.signal(key)
}

// signal marks key as ready after a push or add: if callers are blocked on it, they
// are served when the current command or batch completes. It costs one map lookup
// when nobody waits.
func (tx *Tx) signal(key string) {
	tx.sh(key).waits.MarkReady(key)
	if g := &tx.db.gwaits; g.Blocked() > 0 {
		g.MarkReady(key)
	}
}

// value returns the value at key (a *zset.Set or *list.List), or nil; an expired
// key is deleted and reads as absent.
func (sh *shard) value(key string) any {
	_, v, _ := sh.lookupValue(key)
	return v
}

// add stores v under a new key and returns its entry's number.
func (sh *shard) add(key string, v any) int {
	sh.touch(key)
	return sh.keys.Add(key, v)
}

// del deletes key with its TTL, reporting whether it existed (an expired key did
// not).
func (sh *shard) del(key string) bool {
	i, ok := sh.lookup(key)
	if ok {
		sh.remove(i, key)
	}
	return ok
}

// flush deletes every key of the shard. Blocked callers stay blocked.
func (sh *shard) flush() {
	sh.touchAll()
	sh.keys.Reset()
	sh.resetExpiries()
}
