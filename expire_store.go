package zlite

import (
	"context"
	"slices"
	"time"
)

// expiries records the keys that have an expiry time (a TTL), beside the key table:
// a key without one pays nothing but its entry's ttl flag, which sits in padding.
//
//   - at maps a key's SCAN sequence number (stable for the key's life, across the key
//     table's compactions) to its expiry time in Unix milliseconds: 8+8 bytes of map
//     payload per key with a TTL, and no pointer for the garbage collector to scan.
//   - heap is a min-heap of (time, seq) refs, 16 bytes each, so the keys due first are
//     found without visiting the keyspace. Changing or removing a TTL leaves the old
//     ref in place: a ref whose time is not at[seq] is stale and skipped when it
//     reaches the top, and the heap is rebuilt from at when stale refs outnumber live
//     ones, so it holds at most about twice as many refs as keys with a TTL.
//
// Expired keys are deleted on access (every lookup checks the flag, and reads the
// clock only for keys that have it) and, at most activeBudget of them, at the end of
// every write command (Tx.unlock), so memory is reclaimed without a scan.
type expiries struct {
	at   map[uint64]int64
	heap []expiryRef
	// expired counts the keys deleted because their time came (INFO's expired_keys).
	expired uint64
}

// expiryRef is a heap entry: the key whose seq is seq expires at at (Unix ms), unless
// the ref is stale.
type expiryRef struct {
	at  int64
	seq uint64
}

// activeBudget is the number of due heap refs that a write command reclaims on its
// way out (as Redis's active expiry cycle, which visits 20 keys per round): bounded
// work per command, enough to outpace keys expiring at up to 20 per write.
const activeBudget = 20

// nowMs returns the expiry clock in Unix milliseconds, read at most once per
// command or batch (per acquisition of the locks, see Tx.begin).
func (tx *Tx) nowMs() int64 {
	if !tx.nowOK {
		tx.now, tx.nowOK = tx.db.cfg.now().UnixMilli(), true
	}
	return tx.now
}

// nowMs is the clock of the command holding the shard.
func (sh *shard) nowMs() int64 { return sh.cur.nowMs() }

// lookup returns the entry number of key, deleting the key first (as expired) if its
// time has come: every access to a key goes through it. It reads the clock only for
// a key with a TTL. The complexity is O(1) on average.
func (sh *shard) lookup(key string) (int, bool) {
	i, _, ok := sh.lookupValue(key)
	return i, ok
}

// lookupValue is lookup that also returns the key's value.
func (sh *shard) lookupValue(key string) (int, any, bool) {
	i, v, ok := sh.keys.FindValue(key, sh.hashOf(key))
	if ok {
		if seq, ttl := sh.keys.Expiring(i); ttl && sh.exp.at[seq] <= sh.nowMs() {
			sh.expireEntry(i, key)
			return 0, nil, false
		}
	}
	return i, v, ok
}

// expiry returns entry i's expiry time in Unix ms, if it has one.
func (sh *shard) expiry(i int) (int64, bool) {
	seq, ttl := sh.keys.Expiring(i)
	if !ttl {
		return 0, false
	}
	return sh.exp.at[seq], true
}

// expiredAt reports whether entry i, a live one, is expired at now (Unix ms), for the
// walks over the keyspace (KEYS, SCAN), which skip such keys without deleting them.
func (sh *shard) expiredAt(i int, now int64) bool {
	seq, ttl := sh.keys.Expiring(i)
	return ttl && sh.exp.at[seq] <= now
}

// setExpiry makes at (Unix ms) entry i's expiry time. O(log k) for k keys with a TTL.
func (sh *shard) setExpiry(i int, at int64) {
	if sh.exp.at == nil {
		sh.exp.at = make(map[uint64]int64)
	}
	seq := sh.keys.SetExpiring(i, true)
	if old, ok := sh.exp.at[seq]; ok && old == at {
		return
	}
	sh.exp.at[seq] = at
	sh.exp.push(expiryRef{at: at, seq: seq})
	sh.dropStale()
}

// clearExpiry removes entry i's expiry time, reporting whether it had one. O(1).
func (sh *shard) clearExpiry(i int) bool {
	seq, ttl := sh.keys.Expiring(i)
	if !ttl {
		return false
	}
	sh.keys.SetExpiring(i, false)
	delete(sh.exp.at, seq)
	sh.dropStale()
	return true
}

// dropStale rebuilds the heap once stale refs outnumber live ones (plus 64), so the
// heap holds at most about twice as many refs as there are keys with a TTL. A
// rebuild costs O(k) for k keys with a TTL and follows at least (k+64)/2 changes of
// a TTL, so the amortised cost per change is O(1).
func (sh *shard) dropStale() {
	if len(sh.exp.heap) > 2*len(sh.exp.at)+64 {
		sh.rebuildHeap()
	}
}

// remove deletes entry i, named key, with its expiry time: the WATCH hook runs first,
// so key may be a view of the key table's arena. O(1) amortised.
func (sh *shard) remove(i int, key string) {
	sh.clearExpiry(i)
	sh.touch(key)
	sh.keys.DelAt(i, key)
}

// expireEntry deletes entry i, named key, because its time came.
func (sh *shard) expireEntry(i int, key string) {
	sh.db.notify(EventsExpired, "expired", key) // before remove, which may reuse key's bytes
	sh.remove(i, key)
	sh.exp.expired++
	if d := sh.cur.log(); d != nil {
		d.cmd(nil, "del", key) // as Redis propagates an expiry (open_log.go)
	}
}

// expireSome reclaims up to activeBudget heap refs whose time has come, when a key of
// the shard has a TTL: every command does it as it ends, under the shard's lock.
func (sh *shard) expireSome() {
	if len(sh.exp.heap) > 0 {
		sh.reclaim(activeBudget)
	}
}

// reclaim deletes the keys whose time has come, visiting at most budget heap refs
// (stale ones included); budget < 0 means all that are due. Each ref costs
// O(log k) to pop and O(log n) to find its entry by seq. It reports whether refs
// that are due remain.
func (sh *shard) reclaim(budget int) bool {
	h := &sh.exp
	if len(h.heap) == 0 {
		return false
	}
	now := sh.nowMs()
	for ; budget != 0 && len(h.heap) > 0 && h.heap[0].at <= now; budget-- {
		r := h.pop()
		if at, ok := h.at[r.seq]; !ok || at != r.at {
			continue // stale: the TTL changed or went away
		}
		t := &sh.keys
		i := t.Seek(r.seq)
		sh.expireEntry(i, t.Key(i))
	}
	if len(h.at) == 0 {
		h.heap = h.heap[:0]
	}
	return len(h.heap) > 0 && h.heap[0].at <= now
}

// DefaultExpiryInterval is the period of [DB.StartExpiry] unless told otherwise:
// Redis's active expiry runs hz (10) times a second.
const DefaultExpiryInterval = 100 * time.Millisecond

// StartExpiry starts a goroutine that reclaims expired keys in the background until
// ctx is done, as Redis's active expiry cycle: every interval (≤ 0:
// [DefaultExpiryInterval]) it deletes every key whose time has come, in rounds of
// at most 20 releasing the lock in between, so that commands run between rounds and
// wait for at most one round (about 20 × O(log n)). Without it, expired keys are
// still invisible, and are reclaimed on access and by write commands (at most 20 per
// command); it is for a DB that may go without writes while keys expire. The
// goroutine reads time with the time package (a [WithClock] clock only decides which
// keys are due). StartExpiry returns at once; each call starts one goroutine.
func (db *DB) StartExpiry(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultExpiryInterval
	}
	go func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			for i := range db.shards {
				db.reclaimShard(ctx, i)
			}
		}
	}()
}

// reclaimShard deletes the keys of shard i whose time has come, in rounds of at
// most activeBudget, locking the shard (or every shard, while callers wait in the
// global queues) for each round.
func (db *DB) reclaimShard(ctx context.Context, i int) {
	for more := true; more && ctx.Err() == nil; {
		tx := db.lockMask(1 << i)
		more = db.shards[i].reclaim(activeBudget)
		tx.commit() // logs the deletions of a DB made by Open; a failure is the next write's
	}
}

// expireAt returns key's expiry time in Unix milliseconds, if the key exists and has
// one: what a persistence log writes as PEXPIREAT. The caller holds the shard.
func (sh *shard) expireAt(key string) (unixMs int64, ok bool) {
	i, ok := sh.lookup(key)
	if !ok {
		return 0, false
	}
	return sh.expiry(i)
}

// setExpireAt sets key's expiry time to unixMs without Redis's past-time deletion,
// as Redis does while loading: a key loaded with a past time expires on its first
// access or the next reclaim. It reports whether key exists. The caller holds the shard.
func (sh *shard) setExpireAt(key string, unixMs int64) bool {
	i, ok := sh.keys.FindHash(key, sh.hashOf(key))
	if ok {
		sh.setExpiry(i, unixMs)
	}
	return ok
}

// resetExpiries forgets every expiry time, for FLUSHALL.
func (sh *shard) resetExpiries() {
	sh.exp.at, sh.exp.heap = nil, nil
}

// rebuildHeap drops the stale refs: the heap becomes the live expiry times.
// O(k) for k keys with a TTL.
func (sh *shard) rebuildHeap() {
	h := &sh.exp
	h.heap = h.heap[:0]
	for seq, at := range h.at {
		h.heap = append(h.heap, expiryRef{at: at, seq: seq})
	}
	for i := len(h.heap)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
	if cap(h.heap) > 2*len(h.heap)+8 {
		h.heap = slices.Clone(h.heap) // give back what a shrunken heap no longer needs
	}
}

func (h *expiries) push(r expiryRef) {
	h.heap = append(h.heap, r)
	for i := len(h.heap) - 1; i > 0; {
		p := (i - 1) / 2
		if h.heap[p].at <= h.heap[i].at {
			break
		}
		h.heap[p], h.heap[i] = h.heap[i], h.heap[p]
		i = p
	}
}

func (h *expiries) pop() expiryRef {
	r := h.heap[0]
	last := len(h.heap) - 1
	h.heap[0] = h.heap[last]
	h.heap = h.heap[:last]
	h.down(0)
	return r
}

func (h *expiries) down(i int) {
	n := len(h.heap)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && h.heap[c+1].at < h.heap[c].at {
			c++
		}
		if h.heap[i].at <= h.heap[c].at {
			return
		}
		h.heap[i], h.heap[c] = h.heap[c], h.heap[i]
		i = c
	}
}

// walkNow returns the time against which a walk over the keyspace checks TTLs: the
// clock, read only when some key has a TTL.
func (sh *shard) walkNow() int64 {
	if len(sh.exp.at) == 0 {
		return 0
	}
	return sh.nowMs()
}
