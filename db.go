package zlite

import (
	"sort"
	"sync"

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

	keys map[string]entry

	// order lists every key by creation sequence number, ascending, for SCAN. Deleted
	// keys leave a dead slot that is compacted away once dead slots are the majority.
	order   []slot
	dead    int
	nextSeq uint64

	// waiters maps a key to the callers blocked on it, first blocked first. A key's
	// queue may stay in the map empty for a while (see sweepQueues).
	waiters  map[string]*waitQueue
	nblocked int

	// ready holds the keys written since the last serve that have waiters;
	// readySet deduplicates it.
	ready    []string
	readySet map[string]struct{} // built only when ready grows long

	spareReady []string // the other buffer for ready, swapped by serveReady

	// waiterPool recycles the waiters of blocking calls (see newWaiter).
	waiterPool sync.Pool

	// freeQueues holds emptied wait queues for reuse.
	freeQueues []*waitQueue

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
}

// entry is a key's value (*zset.Set or *list.List, never empty) and its SCAN sequence
// number.
type entry struct {
	val any
	seq uint64
}

// slot is a key's place in the SCAN order; live is false once the key is deleted.
type slot struct {
	seq  uint64
	key  string
	live bool
}

// New returns an empty keyspace configured by opts (none: Redis's defaults).
func New(opts ...Option) *DB {
	db := &DB{
		cfg:      newConfig(opts),
		keys:     make(map[string]entry),
		waiters:  make(map[string]*waitQueue),
		readySet: make(map[string]struct{}),
		nextSeq:  1,
	}
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
func (db *DB) Update(fn func(tx *Tx) error) error {
	tx := db.lock()
	tx.batch = true
	defer func() {
		tx.batch = false
		db.unlock()
	}()
	return fn(tx)
}

// View runs fn with a read-only [Tx]: it sees one consistent state of the keyspace.
// Writes through tx fail with [ErrReadOnly] and change nothing. View returns fn's
// error; fn must not call methods of db or keep tx after returning.
func (db *DB) View(fn func(tx *Tx) error) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	return fn(&db.rtx)
}

// lock acquires the keyspace for a write and returns its writable Tx.
func (db *DB) lock() *Tx {
	db.mu.Lock()
	return &db.wtx
}

// unlock serves the callers blocked on keys that became ready, then releases the
// keyspace: every write ends here, so hand-offs happen under the same lock as the
// write that made them possible, after it completes.
func (db *DB) unlock() {
	if len(db.ready) > 0 {
		db.serveReady()
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
	db.mu.Unlock()
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
	return tx.db.keys[key].val
}

// zsetRead returns the sorted set at key for reading: nil if the key does not exist,
// ErrWrongType if it holds a list.
func (tx *Tx) zsetRead(key string) (*zset.Set, error) {
	switch v := tx.db.keys[key].val.(type) {
	case nil:
		return nil, nil
	case *zset.Set:
		return v, nil
	}
	return nil, ErrWrongType
}

// zsetWrite is zsetRead for a command that will modify the set (ErrReadOnly in View).
func (tx *Tx) zsetWrite(key string) (*zset.Set, error) {
	if !tx.writable {
		return nil, ErrReadOnly
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
	switch v := tx.db.keys[key].val.(type) {
	case nil:
		return nil, nil
	case *list.List:
		return v, nil
	}
	return nil, ErrWrongType
}

// listWrite is listRead for a command that will modify the list (ErrReadOnly in View).
func (tx *Tx) listWrite(key string) (*list.List, error) {
	if !tx.writable {
		return nil, ErrReadOnly
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
		s = zset.New()
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
// any type, or deletes key when v is empty (as the *STORE commands do). It signals
// key as ready for blocked callers.
func (tx *Tx) store(key string, v interface{ Len() int }) {
	db := tx.db
	if v.Len() == 0 {
		db.del(key)
		return
	}
	db.touch(key)
	if e, ok := db.keys[key]; ok {
		e.val = v
		db.keys[key] = e
	} else {
		db.add(key, v)
	}
	tx.signal(key)
}

// signal marks key as ready after a push or add: if callers are blocked on it, they
// are served when the current command or batch completes. It costs one map lookup
// when nobody waits.
func (tx *Tx) signal(key string) {
	db := tx.db
	if db.nblocked == 0 || db.waited(key) == nil {
		return
	}
	// Deduplicate: a short ready list is scanned, a long one indexed by readySet.
	if len(db.ready) < 8 {
		for _, k := range db.ready {
			if k == key {
				return
			}
		}
	} else {
		if len(db.readySet) == 0 {
			for _, k := range db.ready {
				db.readySet[k] = struct{}{}
			}
		}
		if _, ok := db.readySet[key]; ok {
			return
		}
		db.readySet[key] = struct{}{}
	}
	db.ready = append(db.ready, key)
}

// add stores v under a new key.
func (db *DB) add(key string, v any) {
	db.touch(key)
	seq := db.nextSeq
	db.nextSeq++
	db.keys[key] = entry{val: v, seq: seq}
	db.order = append(db.order, slot{seq: seq, key: key, live: true})
}

// del deletes key, reporting whether it existed.
func (db *DB) del(key string) bool {
	e, ok := db.keys[key]
	if !ok {
		return false
	}
	db.touch(key)
	delete(db.keys, key)
	i := db.slotIndex(e.seq)
	if i == len(db.order)-1 {
		// The newest key: drop its slot outright (the common create-then-delete case).
		db.order = db.order[:i]
	} else {
		db.order[i] = slot{seq: e.seq}
		db.dead++
		if db.dead > 32 && db.dead*2 > len(db.order) {
			db.compact()
		}
	}
	return true
}

// slotIndex returns the index in db.order of the first slot with seq ≥ seq.
func (db *DB) slotIndex(seq uint64) int {
	return sort.Search(len(db.order), func(i int) bool { return db.order[i].seq >= seq })
}

// compact removes the dead slots from db.order; sequence numbers do not change, so
// SCAN cursors stay valid.
func (db *DB) compact() {
	live := db.order[:0]
	for _, s := range db.order {
		if s.live {
			live = append(live, s)
		}
	}
	clear(db.order[len(live):])
	db.order = live
	db.dead = 0
}

// flush deletes every key. Blocked callers stay blocked.
func (db *DB) flush() {
	db.touchAll()
	clear(db.keys)
	db.order = nil
	db.dead = 0
}
