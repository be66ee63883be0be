package zlite

import (
	"sync"

	"github.com/zlite/zlite/blocking"
	"github.com/zlite/zlite/list"
	"github.com/zlite/zlite/zset"
)

// Z is a sorted-set member with its score, as in go-redis.
type Z = zset.Entry

// DB is an in-process keyspace of named sorted sets and lists.
//
// A DB is safe for concurrent use by any number of goroutines: every command runs
// under one unexported mutex, so each command, and each [DB.Update] batch, is atomic
// with respect to all others, as in single-threaded Redis. Blocked callers (BLPOP,
// BZPOPMIN, ...) do not hold the mutex while they wait. Create a DB with [New].
type DB struct {
	mu  sync.Mutex
	cfg config
	// stats counts the commands run, for Stats (guarded by mu).
	stats counters

	// keys holds every key and its value (see keytable.go).
	keys keyTable
	// exp holds the keys' expiry times (expire.go).
	exp expiries

	// waits holds the callers blocked on keys (BLPOP, BZPOPMIN, ...) and the keys
	// written since the last serve that have some; it lives under mu.
	waits blocking.Registry[popReq]

	// dropped is the last list or set deleted for being empty during the current
	// command; unlock moves it to spareList/spareSet, which newList/newZSet reuse,
	// so a key that is repeatedly filled and drained (a queue) does not allocate.
	dropped   interface{ Len() int }
	spareList *list.List
	spareSet  *zset.Set

	// watches indexes the keys watched for optimistic locking (watch.go).
	watches watchTable

	// wtx and rtx are the transactions handed out under mu; reusing them keeps
	// commands allocation-free.
	wtx, rtx Tx

	// dur is the log and snapshots of a DB made by Open, nil for New (persist.go).
	dur *durable
}

// New returns an empty keyspace configured by opts (none: Redis's defaults).
func New(opts ...Option) *DB {
	db := &DB{
		cfg: newConfig(opts),
	}
	db.stats = newCounters(&db.cfg)
	db.wtx = Tx{db: db, writable: true}
	db.rtx = Tx{db: db}
	return db
}

// Update runs fn as one atomic batch, like a Redis MULTI/EXEC block or Lua script: no
// other command runs between fn's operations. Callers blocked on keys that fn wrote
// are served after fn returns, with the keys' final state, before any other command
// runs. Blocking commands inside fn do not block: they behave as in MULTI and report
// nothing ready at once.
//
// There is no rollback: if fn returns an error, the writes it made before stay, as
// in a Redis script that fails halfway (and EXEC, whose later commands still run).
// Update returns fn's error. fn must not call methods of db (that would deadlock) and
// must not keep tx after returning.
//
// On a DB made by [Open], the batch's writes are one log record (all or none of
// them survive a crash), durable as the sync policy says when Update returns; if
// the log fails, Update returns a [*MisconfError] (when fn returned nil).
func (db *DB) Update(fn func(tx *Tx) error) (err error) {
	tx := db.lock()
	tx.batch = true
	defer func() {
		tx.batch = false
		if werr := db.unlock(); err == nil {
			err = werr
		}
	}()
	return fn(tx)
}

// View runs fn with a read-only [Tx]: it sees one consistent state of the keyspace.
// Writes through tx fail with [ErrReadOnly] and change nothing. View returns fn's
// error; fn must not call methods of db or keep tx after returning.
func (db *DB) View(fn func(tx *Tx) error) error {
	db.lockKeys()
	defer db.mu.Unlock()
	return fn(&db.rtx)
}

// lock acquires the keyspace for a write and returns its writable Tx.
func (db *DB) lock() *Tx {
	db.lockKeys()
	return &db.wtx
}

// unlock serves the callers blocked on keys that became ready, then releases the
// keyspace: every write ends here, so hand-offs happen under the same lock as the
// write that made them possible, after it completes. On a DB made by Open it logs
// the write and returns once it is durable (commit), or the log's error.
func (db *DB) unlock() error {
	if len(db.exp.heap) > 0 {
		db.reclaim(activeBudget)
	}
	if db.waits.HasReady() {
		db.waits.ServeReady(db.serveWaiter)
	}
	if db.dropped != nil {
		switch v := db.dropped.(type) {
		case *list.List:
			db.spareList = v
		case *zset.Set:
			db.spareSet = v
		}
		db.dropped = nil
	}
	return db.commit()
}

// Tx is a view of the keyspace inside [DB.Update] or [DB.View], with the same typed
// methods as DB (without the context) and [Tx.Do]. A Tx is valid only during the
// function it was passed to, and only on that goroutine.
type Tx struct {
	db       *DB
	writable bool
	// batch is set inside Update: writes then leave waiters to be served when the
	// batch completes (see Tx.direct).
	batch bool
}

// value returns the value at key, or nil.
func (tx *Tx) value(key string) any {
	return tx.db.value(key)
}

// zsetRead returns the sorted set at key for reading: nil if the key does not exist,
// ErrWrongType if it holds a list.
func (tx *Tx) zsetRead(key string) (*zset.Set, error) {
	switch v := tx.db.value(key).(type) {
	case nil:
		return nil, nil
	case *zset.Set:
		return v, nil
	}
	return nil, ErrWrongType
}

// zsetWrite is zsetRead for a command that will modify the set (ErrReadOnly in View).
func (tx *Tx) zsetWrite(key string) (*zset.Set, error) {
	if err := tx.writeErr(); err != nil {
		return nil, err
	}
	s, err := tx.zsetRead(key)
	if s != nil {
		tx.db.touch(key) // WATCH: conservatively, the command may modify it
	}
	return s, err
}

// listRead returns the list at key for reading: nil if the key does not exist,
// ErrWrongType if it holds a sorted set.
func (tx *Tx) listRead(key string) (*list.List, error) {
	switch v := tx.db.value(key).(type) {
	case nil:
		return nil, nil
	case *list.List:
		return v, nil
	}
	return nil, ErrWrongType
}

// listWrite is listRead for a command that will modify the list (ErrReadOnly in View).
func (tx *Tx) listWrite(key string) (*list.List, error) {
	if err := tx.writeErr(); err != nil {
		return nil, err
	}
	l, err := tx.listRead(key)
	if l != nil {
		tx.db.touch(key) // WATCH: conservatively, the command may modify it
	}
	return l, err
}

// newZSet creates an empty sorted set at key, which must not exist. The caller must
// add to it (then call signal) or delete it again with dropIfEmpty before returning:
// empty keys never outlive a command.
func (tx *Tx) newZSet(key string) *zset.Set {
	s := tx.db.spareSet
	if s != nil && s.Len() == 0 {
		tx.db.spareSet = nil
	} else {
		s = zset.NewWithLimits(tx.db.cfg.zsetLimits)
	}
	tx.db.add(key, s)
	return s
}

// newList creates an empty list at key, which must not exist; see newZSet.
func (tx *Tx) newList(key string) *list.List {
	l := tx.db.spareList
	if l != nil && l.Len() == 0 {
		tx.db.spareList = nil
	} else {
		l = list.New()
	}
	tx.db.add(key, l)
	return l
}

// dropIfEmpty deletes key if v, its value, has become empty.
func (tx *Tx) dropIfEmpty(key string, v interface{ Len() int }) {
	if v.Len() == 0 {
		tx.db.del(key)
		tx.db.dropped = v
	}
}

// store makes v (a *zset.Set or *list.List) the value of key, replacing any value of
// any type and clearing its TTL, or deletes key when v is empty (as the *STORE
// commands do). It signals key as ready for blocked callers.
func (tx *Tx) store(key string, v interface{ Len() int }) {
	db := tx.db
	if v.Len() == 0 {
		if db.del(key) && db.dur != nil {
			db.dur.cmd(nil, "del", key)
		}
		return
	}
	db.touch(key)
	if i, ok := db.lookup(key); ok {
		db.clearExpiry(i)
	}
	db.keys.set(key, v)
	if d := db.dur; d != nil {
		d.value(key, v)
	}
	tx.signal(key)
}

// signal marks key as ready after a push or add: if callers are blocked on it, they
// are served when the current command or batch completes. It costs one map lookup
// when nobody waits.
func (tx *Tx) signal(key string) { tx.db.waits.MarkReady(key) }

// value returns the value at key (a *zset.Set or *list.List), or nil; an expired
// key is deleted and reads as absent.
func (db *DB) value(key string) any {
	if i, ok := db.lookup(key); ok {
		return db.keys.value(i)
	}
	return nil
}

// add stores v under a new key.
func (db *DB) add(key string, v any) {
	db.touch(key)
	db.keys.add(key, v)
}

// del deletes key with its TTL, reporting whether it existed (an expired key did
// not).
func (db *DB) del(key string) bool {
	i, ok := db.lookup(key)
	if ok {
		db.remove(i, key)
	}
	return ok
}

// flush deletes every key. Blocked callers stay blocked.
func (db *DB) flush() {
	db.touchAll()
	db.keys.reset()
	db.resetExpiries()
}
