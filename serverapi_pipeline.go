package zlite

import (
	"context"
	"math/bits"

	"github.com/zlite/zlite/internal/keytable"
	"github.com/zlite/zlite/internal/serverapi"
)

// doPipelined is the server's serverapi.Hooks.DoPipelined (see there for its contract).
//
// Read-only commands of one key each, all in one shard, run together under that
// shard's lock shared with other reads, as [DB.Do] runs them, when no key of the
// shard has a TTL. Otherwise the commands run as one critical section (one lock
// instead of one per command) under the locks of the shards of all their keys,
// while that is observably the same as running them one at a time: when no caller
// is blocked on a key of those shards (so no command of cmds has a waiter to serve
// between it and the next, as Redis serves them), the keyspace logs no writes (a DB
// made by [Open] makes each command durable on its own) and does not time commands
// ([WithLatencyTracking]). From the first blocking command on, and for all of them
// otherwise, each command runs as its own Do with ctx. In one critical section the
// lookup of each command's key (its first argument) is started while the commands
// before it run, so that among many keys, where every read of a lookup misses the
// cache, their misses overlap (see warm). Pairs are written to w only by the
// commands that run in one critical section. The complexity is that of the commands.
func doPipelined(ctx context.Context, db *DB, cmds [][]string, results []serverapi.Result, w serverapi.PairWriter) {
	i := 0
	if len(cmds) > 1 && !db.stats.timed {
		// Look up every command and lock the shards of their keys, once. A
		// command's error waits in its result.
		var stack [128]*command
		cs := stack[:0]
		if len(cmds) > len(stack) {
			cs = make([]*command, 0, len(cmds))
		}
		var m uint64
		shared := true
		for j, args := range cmds {
			c, err := lookup(args)
			if err == nil {
				m |= c.keys.mask(db, args)
				shared = shared && c.shared
			} else {
				results[j] = serverapi.Result{Err: err}
			}
			cs = append(cs, c)
		}
		if shared && m != 0 && m&(m-1) == 0 {
			// Reads of one shard: they share it with other reads, as Do's do.
			if rt := db.rlockMask(m); rt != nil {
				for j, c := range cs {
					if c != nil {
						rt.countShared(c.stat)
						results[j].Value, results[j].Err = c.run(rt, cmds[j])
					}
				}
				rt.unlock()
				readers.Put(rt)
				return
			}
		}
		if db.dur == nil {
			i = db.pipelineLocked(cmds, cs, m, results, w)
		}
	}
	for ; i < len(cmds); i++ {
		results[i].Value, results[i].Err = db.Do(ctx, cmds[i]...)
	}
}

// pipelineLocked runs the commands cs of cmds in one critical section under the
// shards of m, up to the first blocking command, unless a caller is blocked on a key
// of those shards, and returns the number of commands it ran; with w, the commands
// that can write their pairs there.
func (db *DB) pipelineLocked(cmds [][]string, cs []*command, m uint64, results []serverapi.Result, w serverapi.PairWriter) int {
	i := 0
	tx := db.lockMask(m)
	if !tx.blocked() {
		// Each command's lookup is started ahead of it, one step of its chain of
		// reads over each of the three commands before it (see warm): among many
		// keys every read of a lookup misses the cache, and the commands of a
		// pipeline are independent, so that their misses overlap.
		var ahead [warmDepth]warmKey
		for j := range min(warmDepth, len(cmds)) {
			ahead[j] = db.warm(cs[j], cmds[j])
		}
		for ; i < len(cmds); i++ {
			if j := i + 1; j < len(cmds) {
				ahead[j%warmDepth].value()
			}
			if j := i + 2; j < len(cmds) {
				ahead[j%warmDepth].entry()
			}
			if j := i + warmDepth; j < len(cmds) {
				ahead[j%warmDepth] = db.warm(cs[j], cmds[j])
			}
			c := cs[i]
			if c == nil {
				continue
			}
			if c.block != nil {
				break
			}
			// Tx.Do without its write check, which cannot fail in the writable
			// Tx of a DB without a log.
			tx.count(c.stat)
			if w != nil && c.pairs != nil {
				if err := c.pairs(tx, cmds[i], w); err != nil {
					results[i] = serverapi.Result{Err: err}
				} else {
					results[i] = serverapi.Result{Value: serverapi.WrittenPairs{}}
				}
				continue
			}
			results[i].Value, results[i].Err = c.run(tx, cmds[i])
		}
		// The active expiry of the commands run: unlock does one command's worth.
		if i > 1 {
			for b := tx.held; b != 0; b &= b - 1 {
				db.shards[bits.TrailingZeros64(b)].reclaim((i - 1) * activeBudget)
			}
		}
	}
	tx.unlock()
	return i
}

// warmDepth is how many commands ahead of the one running pipelineLocked starts a
// command's lookup (warm); it takes the second step (warmKey.entry) two commands
// ahead and the third (warmKey.value) one ahead.
const warmDepth = 3

// warmKey is a pipelined command's key whose lookup warm has started: its shard and
// keyHash; sh is nil for a command whose key it did not start.
type warmKey struct {
	sh   *shard
	hash uint64
}

// warm starts reading the index slot of the key of c, a command of cmds run under
// locks that hold its shard, if it has one key and it is its first argument, and
// returns that key. O(len(key)).
func (db *DB) warm(c *command, args []string) warmKey {
	if c == nil || c.keys != (keySpec{}) || len(args) < 2 {
		return warmKey{}
	}
	return db.warmKey(args[1])
}

// warmKey starts reading the index slot of key, in a shard the caller holds, and
// returns the key for the next steps. O(len(key)).
func (db *DB) warmKey(key string) warmKey {
	i, h, whole := db.shardHash(key)
	w := warmKey{&db.shards[i], h >> 32}
	if !whole {
		w.hash = keytable.Hash(key)
	}
	w.sh.keys.WarmIndex(w.hash)
	return w
}

// warmBatch is how many keys warmKeys warms at once.
const warmBatch = 16

// warmKeys starts the lookups of keys (at most warmBatch, in shards tx holds) in
// three rounds over them, each taking one step of every key's chain of reads, so
// that the misses of different keys overlap where one key's come one after another:
// a command of many keys (MGET) then finds them in the cache. O(len(keys)).
func (tx *Tx) warmKeys(keys []string) {
	var ws [warmBatch]warmKey
	for j, k := range keys {
		ws[j] = tx.db.warmKey(k)
	}
	for j := range keys {
		ws[j].entry()
	}
	for j := range keys {
		ws[j].value()
	}
}

// entry takes the second step of w's lookup (keytable.Table.warmEntry). O(1).
func (w warmKey) entry() {
	if w.sh != nil {
		w.sh.keys.WarmEntry(w.hash)
	}
}

// value takes the third step of w's lookup (keytable.Table.warmValue). O(1).
func (w warmKey) value() {
	if w.sh != nil {
		w.sh.keys.WarmValue(w.hash)
	}
}

// blocked reports whether a caller is blocked on a key of the shards tx holds.
func (tx *Tx) blocked() bool {
	if tx.db.gwaits.Blocked() > 0 {
		return true
	}
	for b := tx.held; b != 0; b &= b - 1 {
		if tx.db.shards[bits.TrailingZeros64(b)].waits.Blocked() > 0 {
			return true
		}
	}
	return false
}
