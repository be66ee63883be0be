package zlite

import (
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/zlite/zlite/blocking"
	"github.com/zlite/zlite/internal/keytable"
	"github.com/zlite/zlite/internal/shardlock"
	"github.com/zlite/zlite/list"
)

// The keyspace is split into shards by the hash of each key's hash tag (see
// [WithShards] and the package doc's section Concurrency). A shard is a keyspace of
// its own: a key table, expiry index, wait queues, watches and command counters,
// under one mutex. A command locks the shards of the keys it names, in ascending
// order (so two commands never wait for each other in a cycle), runs, serves the
// callers its writes made ready in those shards, logs its record, and unlocks.
// Commands over the whole keyspace (KEYS, SCAN, DBSIZE, FLUSHALL, RANDOMKEY,
// Update, View, Stats, snapshots) lock every shard.
//
// Blocked callers whose keys (and BLMOVE destination) all live in one shard wait in
// that shard's queues and are served by writers holding only that shard. A caller
// blocked on keys of several shards waits in the DB's global queues (gwaits), and
// while any caller does, every command locks every shard: the keyspace runs as one
// lock until the last such caller is served or gives up. Waiters in a shard's queues
// are then older than every waiter in the global queues (none enters a shard's
// queues while the global ones hold any), so serving a key's shard queue before its
// global queue is first blocked, first served.

// MaxShards is the largest number of shards a DB can have ([WithShards]).
const MaxShards = 64

// DefaultShards is the number of shards of a DB unless [WithShards] says otherwise.
const DefaultShards = 64

// shard is one part of the keyspace, with everything its keys need, under mu:
// commands hold it exclusively; batches of reads may share it (see rlockMask).
//
// Its size is a multiple of a cache line, and its first line holds all that a
// single-key command writes in it besides the key's own data: the lock word, cur,
// the command counts (pending) and the key's hash (hashKey). Commands on random keys
// from several cores find each shard's lines last written by another core about
// half the time, and each such line costs a transfer between the cores' caches:
// with the counters and the transaction's fields on lines of their own, ZSCORE from
// 2 goroutines on 2 cores ran at 0.92–1.18 times one goroutine's throughput, with
// the first line alone 1.14–1.35, and 1.30 times the throughput of the old layout
// on 2 cores (BenchmarkParallel, same rounds).
type shard struct {
	shardData
	_ [shardPad]byte
}

// newShards returns n shards starting on a cache line. The runtime puts an 8-byte
// header before a small object with pointers and none before a large one (over 32
// KiB), which starts a page: fewer shards than fill 32 KiB are given the capacity
// of a large object (TestShardLayout checks the alignment).
func newShards(n int) []shard {
	const large = int(32<<10/unsafe.Sizeof(shard{})) + 1
	return make([]shard, n, max(n, large))
}

// shardPad pads shardData to whole cache lines (TestShardLayout checks it: Go
// cannot size a type by one that refers back to it).
const shardPad = 56

// cacheLine is the size of a cache line on the processors we measure (x86-64,
// arm64's 64-byte lines; Apple's 128-byte ones share a line between two shards'
// tails and heads, which costs speed, not correctness).
const cacheLine = 64

// shardData is a shard's fields; [shard] pads them to whole cache lines.
type shardData struct {
	mu shardlock.RWMutex
	// cur is the transaction holding mu (set when it is locked): the shard's code
	// reads the command's clock and appends to its log record through it.
	cur *Tx
	// pending counts the latest commands of the shard, on the lock's cache line
	// (see [shard] and stats.go).
	pending pendingCalls
	// hashKey and hashLen are the bytes of the key that lockKey locked the shard
	// for, whole (no hash tag), and hashVal its key-table hash: the command's
	// lookups of the key reuse the hash that chose the shard. Cleared when the
	// shard is released, since a string's bytes may be reused after the command
	// (the server's read buffer). An address, not a pointer: the command's caller
	// keeps the key alive while it runs, and storing a pointer would cost a write
	// barrier per command while the collector runs.
	hashKey uintptr
	hashLen uint32
	hashVal uint32

	db *DB

	// keys holds the shard's keys and their values (internal/keytable).
	keys keytable.Table
	// exp holds the keys' expiry times (expire_store.go).
	exp expiries
	// waits holds the callers blocked on this shard's keys alone.
	waits blocking.Registry[popReq]
	// watches indexes the shard's keys watched for optimistic locking (watch.go).
	watches watchTable
	// calls and latency are the command counters of the commands whose home shard
	// this is (stats.go).
	calls   []uint64
	latency []Histogram

	// spareList holds the buffers of the last list deleted for being empty
	// (dropIfEmpty), which newList reuses, so a list key that is repeatedly filled
	// and drained (a queue) does not allocate; the List headers themselves live in
	// the key table's slots, reused there.
	spareList *list.List

	// wtx and rtx are the transactions whose home this shard is; reusing them
	// keeps commands allocation-free.
	wtx, rtx Tx
}

// shardOf returns the index of key's shard. O(len(key)).
func (db *DB) shardOf(key string) int {
	i, _, _ := db.shardHash(key)
	return i
}

// shardHash returns key's shard and the hash of key's hash tag ([keytable.TagHash]):
// its low bits choose the shard and its high 32 the key's slot in the shard's key
// table ([keytable.Hash]), so that a key whose tag is the whole key (whole) is hashed
// once for both.
func (db *DB) shardHash(key string) (i int, h uint64, whole bool) {
	h, whole = keytable.TagHash(key)
	return int(h & db.shardMask), h, whole
}

// maskOf returns the set of the shards of keys, one bit per shard.
func (db *DB) maskOf(keys ...string) uint64 {
	var m uint64
	for _, k := range keys {
		m |= 1 << db.shardOf(k)
	}
	return m
}

// lockKey locks key's shard for a command and returns the shard's writable Tx.
func (db *DB) lockKey(key string) *Tx {
	i, h, whole := db.shardHash(key)
	tx := db.lockShard(i)
	if whole {
		db.shards[i].remember(key, h)
	}
	return tx
}

// lockShard is lockMask(1<<i) in straight-line code: it locks shard i and returns
// its writable Tx, or every shard while callers wait in the global queues.
func (db *DB) lockShard(i int) *Tx {
	sh := &db.shards[i]
	if sh.mu.Lock(); db.gwaits.Blocked() == 0 || 1<<i == db.all {
		tx := &sh.wtx
		tx.reset(1 << i)
		sh.hold(tx)
		return tx
	}
	sh.mu.Unlock()
	return db.lockMask(db.all)
}

// remember leaves key's hash h (from shardHash, whose tag is the whole key) on the
// shard's first line for its lookups in this command (hashOf); the holder of the
// shard calls it, and release forgets it.
func (sh *shard) remember(key string, h uint64) {
	if uint64(len(key)) <= math.MaxUint32 {
		sh.hashKey, sh.hashLen, sh.hashVal = uintptr(unsafe.Pointer(unsafe.StringData(key))), uint32(len(key)), uint32(h>>32)
	}
}

// hashOf returns keytable.Hash(key), from the hash lockKey took of it when it can.
func (sh *shard) hashOf(key string) uint64 {
	if sh.hashKey != 0 && uintptr(unsafe.Pointer(unsafe.StringData(key))) == sh.hashKey && len(key) == int(sh.hashLen) {
		return uint64(sh.hashVal)
	}
	return keytable.Hash(key)
}

// rlockMask read-locks the shards of m for a batch of reads (a View, a pipeline of
// reads) and returns a shared Tx holding them, or nil, holding nothing, when a
// writer holds or is taking one of them or a key in one of them has a TTL (a read
// might delete it, as Redis's reads delete a key whose time has come): the batch
// then locks them exclusively. O(shards in m).
//
// Only batches share: a shared reader costs two atomic adds on its shard's word,
// and a single read of one hot key from several cores pays for that word moving
// between them on every read, which costs more than taking the lock in turn (ZSCORE
// of one key from 2 goroutines on 2 cores ran at 0.45 times one goroutine shared,
// 0.89 exclusive). A batch pays the two adds once for all its reads.
func (db *DB) rlockMask(m uint64) *Tx {
	var got uint64
	ok := true
	for b := m; b != 0 && ok; b &= b - 1 {
		i := bits.TrailingZeros64(b)
		sh := &db.shards[i]
		if ok = sh.mu.TryRLock(); ok {
			got |= 1 << i
			ok = len(sh.exp.at) == 0
		}
	}
	if !ok {
		for b := got; b != 0; b &= b - 1 {
			db.shards[bits.TrailingZeros64(b)].mu.RUnlock()
		}
		return nil
	}
	rt := readers.Get().(*Tx)
	*rt = Tx{db: db, home: &db.shards[bits.TrailingZeros64(m)], held: m, shared: true}
	return rt
}

// prime tells tx that key is in shard i, so that the command's own lookups of key
// find its shard without hashing it again.
func (tx *Tx) prime(key string, i int) {
	tx.lastKey, tx.lastLen, tx.lastSh = unsafe.StringData(key), len(key), &tx.db.shards[i]
}

// lockKeys locks the shards of keys (all of them when keys is empty, as for a
// command over the whole keyspace).
func (db *DB) lockKeys(keys ...string) *Tx { return db.lockMask(db.maskOf(keys...)) }

// storeKeys returns the keys of a ZSTORE's inputs, none for nil.
func storeKeys(s *ZStore) []string {
	if s == nil {
		return nil
	}
	return s.Keys
}

// lockAll locks every shard.
func (db *DB) lockAll() *Tx { return db.lockMask(db.all) }

// lockMask locks the shards of m (every shard when m is 0) in ascending order and
// returns the writable Tx of the lowest, which holds them. While callers wait in
// the global queues it locks every shard instead (see the top of this file).
func (db *DB) lockMask(m uint64) *Tx {
	if m == 0 {
		m = db.all
	}
	if m&(m-1) == 0 {
		return db.lockShard(bits.TrailingZeros64(m))
	}
	db.acquire(m)
	if m != db.all && db.gwaits.Blocked() > 0 {
		// The global queues' count changes only under every shard's lock, so
		// reading it under one is exact.
		db.release(m)
		m = db.all
		db.acquire(m)
	}
	tx := &db.shards[bits.TrailingZeros64(m)].wtx
	tx.begin(m)
	return tx
}

// acquire locks the shards of m, in ascending order.
func (db *DB) acquire(m uint64) {
	for b := m; b != 0; b &= b - 1 {
		db.shards[bits.TrailingZeros64(b)].mu.Lock()
	}
}

// release unlocks the shards of m.
func (db *DB) release(m uint64) {
	for b := m; b != 0; b &= b - 1 {
		db.shards[bits.TrailingZeros64(b)].release()
	}
}

// release forgets the command's key hash (see remember) and unlocks sh.
func (sh *shard) release() {
	if sh.hashKey != 0 {
		sh.hashKey = 0
	}
	sh.mu.Unlock()
}

// begin makes tx the holder of the shards of m, just locked.
//
// It writes only what changed: a shard's Tx serves one command after another,
// mostly with the same fields, and a field unchanged since another core's command
// leaves its cache line shared instead of moving it here (see [shard]).
func (tx *Tx) begin(m uint64) {
	tx.reset(m)
	for b := m; b != 0; b &= b - 1 {
		tx.db.shards[bits.TrailingZeros64(b)].hold(tx)
	}
}

// reset readies tx's own fields for a command on the shards of m (see begin).
func (tx *Tx) reset(m uint64) {
	if tx.held != m {
		tx.held = m
	}
	if tx.nowOK {
		tx.nowOK = false
	}
	if tx.lastSh != nil {
		tx.lastKey, tx.lastLen, tx.lastSh = nil, 0, nil
	}
	if tx.muted {
		tx.muted = false
	}
}

// hold makes tx the holder of sh, just locked (see begin).
func (sh *shard) hold(tx *Tx) {
	if sh.cur != tx {
		sh.cur = tx
	}
}

// sh returns key's shard, which tx must hold: a key that [DB.UpdateKeys] or
// [DB.ViewKeys] did not declare (in another shard) panics with [ErrUndeclaredKey].
//
// A command that holds one shard finds every key there without hashing: its keys
// chose that shard. A batch of the caller's (checked) hashes each key to check it.
func (tx *Tx) sh(key string) *shard {
	if tx.held&(tx.held-1) == 0 && !tx.checked {
		return tx.home
	}
	return tx.lookupShard(key)
}

// lookupShard is sh for a Tx of several shards or a caller's batch.
func (tx *Tx) lookupShard(key string) *shard {
	if tx.lastSh != nil && len(key) == tx.lastLen && unsafe.StringData(key) == tx.lastKey {
		return tx.lastSh // the same string as the last call: a command names its key often
	}
	i := tx.db.shardOf(key)
	if tx.held&(1<<i) == 0 {
		panic(fmt.Errorf("%w: %q", ErrUndeclaredKey, key))
	}
	sh := &tx.db.shards[i]
	tx.lastKey, tx.lastLen, tx.lastSh = unsafe.StringData(key), len(key), sh
	return sh
}

// allShards locks every shard, for a caller blocked in the global queues that stops
// waiting (blocking.Registry.Wait re-locks to unlink it).
type allShards DB

func (a *allShards) Lock()   { (*DB)(a).acquire(a.all) }
func (a *allShards) Unlock() { (*DB)(a).release(a.all) }
