package zlite

import (
	"context"
	"sync"
	"time"

	"github.com/zlite/zlite/list"
	"github.com/zlite/zlite/zset"
)

// waitKind says what a blocked caller wants from a key.
type waitKind uint8

const (
	waitList waitKind = iota // BLPOP, BRPOP, BLMPOP: pop from a list
	waitMove                 // BLMOVE, BRPOPLPUSH: pop from a list, push onto dst
	waitZSet                 // BZPOPMIN, BZPOPMAX, BZMPOP: pop from a sorted set
)

// waiter is one blocking pop: its request, its state in the keyspace's wait queues
// and, once served, its result. Everything but ch is read and written under db.mu,
// except that the caller reads the result after receiving from ch (the send happens
// after the result is written, under the lock).
//
// Waiters are recycled through waiterPool. A queue entry names the waiter and its
// generation, so an entry left behind in a queue (queues are cleaned lazily) cannot
// be mistaken for the waiter's next use.
type waiter struct {
	gen    uint64     // bumped by enqueue at each use; under db.mu
	pool   *sync.Pool // the DB's pool, where release returns it
	keybuf [4]string  // backing store for keys, to spare an allocation

	kind  waitKind
	keys  []string // distinct, in the order given
	left  bool     // pop from the head of a list, or the minimum of a set
	count int      // 0: one element; > 0: up to count (BLMPOP, BZMPOP)
	dst   string   // waitMove: destination key
	dstL  bool     // waitMove: push onto dst's head
	// timeout is how long to wait; 0 waits until served or ctx is done.
	timeout time.Duration
	// reply shapes the result as Do replies it.
	reply func(w *waiter) any

	ch   chan struct{} // buffered; receives one value when served
	done bool          // served or given up: no longer in any queue

	ok   bool   // served with an element (or elements)
	key  string // the key served from
	val  string // single list element
	vals []string
	z    Z
	zs   []Z
	err  error // WRONGTYPE met while serving (nothing was consumed)
}

// waitQueue is the first-come-first-served list of callers blocked on one key.
// Waiters that were served on another key, or gave up, stay in ws as dead entries
// (dead counts them) until they reach the head or the queue is compacted.
type waitQueue struct {
	ws   []qent
	dead int
}

// qent is a queue entry: a waiter in one of its uses.
type qent struct {
	w   *waiter
	gen uint64
}

// live reports whether the entry's waiter is still blocked in this use.
func (e qent) live() bool { return e.gen == e.w.gen && !e.w.done }

// newWaiter returns a clean waiter for keys (which it copies) from db's pool. The
// pool is per DB so that a waiter, and its channel, never moves between keyspaces
// (nor between testing/synctest bubbles).
func (db *DB) newWaiter(kind waitKind, keys []string) *waiter {
	w, _ := db.waiterPool.Get().(*waiter)
	if w == nil {
		w = &waiter{ch: make(chan struct{}, 1), pool: &db.waiterPool}
	}
	// Field by field: gen and done may be read (under db.mu) through stale queue
	// entries at any time, so they are written only under db.mu, by enqueue.
	w.kind, w.left, w.count, w.dst, w.dstL, w.timeout = kind, false, 0, "", false, 0
	w.ok, w.key, w.val, w.z = false, "", "", Z{}
	w.keys = append(w.keybuf[:0], distinct(keys)...)
	return w
}

// release returns w to the pool once its caller has taken the results. w is done
// (not in any queue as a live entry) and its channel is empty.
func (w *waiter) release() {
	w.keys = nil
	w.keybuf = [4]string{}
	w.vals, w.zs, w.reply, w.err = nil, nil, nil, nil
	w.pool.Put(w)
}

// accepts reports whether w can be served from a value of v's type.
func (w *waiter) accepts(v any) bool {
	_, isSet := v.(*zset.Set)
	return isSet == (w.kind == waitZSet)
}

// distinct returns keys without repetitions, keeping the first of each (Redis blocks
// once per key).
func distinct(keys []string) []string {
	for i := 1; i < len(keys); i++ {
		for j := range i {
			if keys[i] == keys[j] {
				out := make([]string, 0, len(keys))
				seen := make(map[string]bool, len(keys))
				for _, k := range keys {
					if !seen[k] {
						seen[k] = true
						out = append(out, k)
					}
				}
				return out
			}
		}
	}
	return keys
}

// try serves w at once from the first of its keys that holds a value, as the
// non-blocking form of the command would, and reports whether it did (w.ok) or met
// an error (w.err). It returns false when every key is missing: the caller must
// block. Called under db.mu with a writable tx.
func (db *DB) try(w *waiter) bool {
	for _, k := range w.keys {
		v := db.keys[k].val
		if v == nil {
			continue
		}
		if !w.accepts(v) {
			w.err = ErrWrongType
			return true
		}
		db.pop(w, k, v)
		return true
	}
	return false
}

// pop performs w's operation on key, whose value v is non-empty and of w's type,
// and records the result in w. A BLMOVE whose destination holds a sorted set gets
// ErrWrongType and consumes nothing, as in Redis.
func (db *DB) pop(w *waiter, key string, v any) {
	tx := &db.wtx
	db.touch(key)
	switch w.kind {
	case waitList:
		l := v.(*list.List)
		switch {
		case w.count > 0 && w.left:
			w.vals = l.PopFrontN(w.count)
		case w.count > 0:
			w.vals = l.PopBackN(w.count)
		case w.left:
			w.val, _ = l.PopFront()
		default:
			w.val, _ = l.PopBack()
		}
		tx.dropIfEmpty(key, l)
	case waitMove:
		l := v.(*list.List)
		d, err := tx.listRead(w.dst)
		if err != nil {
			w.err = err
			return
		}
		if d == nil {
			d = tx.newList(w.dst)
		}
		db.touch(w.dst)
		w.val, _ = list.Move(l, d, w.left, w.dstL)
		tx.dropIfEmpty(key, l)
		tx.signal(w.dst)
	case waitZSet:
		s := v.(*zset.Set)
		switch {
		case w.count > 0 && w.left:
			w.zs = s.PopMinN(w.count)
		case w.count > 0:
			w.zs = s.PopMaxN(w.count)
		case w.left:
			w.z, _ = s.PopMin()
		default:
			w.z, _ = s.PopMax()
		}
		tx.dropIfEmpty(key, s)
	}
	w.key = key
	w.ok = true
}

// enqueue blocks w on each of its keys, behind the callers already there.
func (db *DB) enqueue(w *waiter) {
	// A new use: entries left in queues by earlier uses of w stop being live.
	w.gen++
	w.done = false
	for _, k := range w.keys {
		q := db.waiters[k]
		if q == nil {
			db.sweepQueues()
			if n := len(db.freeQueues); n > 0 {
				q = db.freeQueues[n-1]
				db.freeQueues = db.freeQueues[:n-1]
			} else {
				q = &waitQueue{}
			}
			db.waiters[k] = q
		}
		q.ws = append(q.ws, qent{w, w.gen})
	}
	db.nblocked++
}

// direct returns key's wait queue when a write that creates key may hand its
// elements straight to the waiters: key has live waiters and the write is a command
// of its own. Inside an Update batch later commands must see the key, so batches
// take the general path (create the key, serve when the batch completes).
func (tx *Tx) direct(key string) *waitQueue {
	if tx.batch || tx.db.nblocked == 0 {
		return nil
	}
	q := tx.db.waited(key)
	if q != nil {
		tx.db.touch(key) // the push or add modifies key, handed off or not
	}
	return q
}

// handList serves the waiters of the missing key from values pushed onto it, as
// serveKey would serve them from the list the push creates (LPUSH puts the last
// value at the head), without creating that list. Positions 0 to len(values)-1
// number the list from head to tail; handList returns the positions [lo, hi) that
// are left once the waiters are served. It stops at the first live BLMOVE waiter
// (whose push may target key itself): the caller creates the list with what is left
// and signals key, so serveReady takes over from that waiter, in the same order.
func (db *DB) handList(key string, q *waitQueue, left bool, values []string) (lo, hi int) {
	n := len(values)
	hi = n
	elem := func(p int) string {
		if left {
			return values[n-1-p]
		}
		return values[p]
	}
	for _, e := range q.ws {
		if lo == hi {
			break
		}
		w := e.w
		if !e.live() || w.kind == waitZSet {
			continue
		}
		if w.kind == waitMove {
			break
		}
		switch {
		case w.count > 0 && w.left:
			k := min(w.count, hi-lo)
			w.vals = make([]string, k)
			for i := range w.vals {
				w.vals[i] = elem(lo + i)
			}
			lo += k
		case w.count > 0:
			k := min(w.count, hi-lo)
			w.vals = make([]string, k)
			for i := range w.vals {
				w.vals[i] = elem(hi - 1 - i)
			}
			hi -= k
		case w.left:
			w.val = elem(lo)
			lo++
		default:
			hi--
			w.val = elem(hi)
		}
		w.key = key
		w.ok = true
		db.unlinkFrom(w, key, q, false)
		w.ch <- struct{}{}
	}
	db.trimQueue(q)
	return lo, hi
}

// handZSet hands z, the single member added to the missing key, to the first live
// sorted-set waiter of key, as serveKey would from the set the add creates, without
// creating that set. It reports false, changing nothing, when no waiter takes it.
func (db *DB) handZSet(key string, q *waitQueue, z Z) bool {
	for _, e := range q.ws {
		w := e.w
		if !e.live() || w.kind != waitZSet {
			continue
		}
		if w.count > 0 {
			w.zs = []Z{z}
		} else {
			w.z = z
		}
		w.key = key
		w.ok = true
		db.unlinkFrom(w, key, q, false)
		w.ch <- struct{}{}
		db.trimQueue(q)
		return true
	}
	return false
}

// unlink marks w done and takes it out of all its queues. Its entries stay in the
// queues' slices, counted as dead; a queue with only dead entries is dropped, and
// when compact is set (never while serveKey walks a queue) a mostly dead queue is
// compacted, so callers that give up cannot make a queue grow without bound.
func (db *DB) unlink(w *waiter, compact bool) {
	db.unlinkFrom(w, "", nil, compact)
}

// unlinkFrom is unlink for a caller that holds the queue kq of one of w's keys,
// key, which it spares a map lookup.
func (db *DB) unlinkFrom(w *waiter, key string, kq *waitQueue, compact bool) {
	w.done = true
	db.nblocked--
	for _, k := range w.keys {
		q := kq
		if kq == nil || k != key {
			q = db.waiters[k]
		}
		if q == nil {
			continue
		}
		q.dead++
		switch {
		case q.dead == len(q.ws):
			// Empty now. It stays in the map, ready for the key's next waiter (a
			// queue key is waited on over and over); sweepQueues drops it if empty
			// queues pile up. serveKey may still be walking q: it resets q itself.
			if compact {
				db.resetQueue(q)
			}
		case compact && q.dead > 8 && 2*q.dead > len(q.ws):
			live := q.ws[:0]
			for _, x := range q.ws {
				if x.live() {
					live = append(live, x)
				}
			}
			clear(q.ws[len(live):])
			q.ws = live
			q.dead = 0
		}
	}
}

// resetQueue empties q, keeping its slice.
func (db *DB) resetQueue(q *waitQueue) {
	clear(q.ws)
	q.ws = q.ws[:0]
	q.dead = 0
}

// sweepQueues removes the empty queues from db.waiters, keeping a few for reuse,
// when they outnumber the live ones. It runs only when a key gets its first waiter,
// and each sweep removes at least half the map, so its cost is amortised O(1).
func (db *DB) sweepQueues() {
	if len(db.waiters) < 64 || len(db.waiters) < 2*db.nblocked+64 {
		return
	}
	for k, q := range db.waiters {
		if len(q.ws) == q.dead {
			delete(db.waiters, k)
			db.resetQueue(q)
			if len(db.freeQueues) < 64 {
				db.freeQueues = append(db.freeQueues, q)
			}
		}
	}
}

// waited returns key's queue if it has live waiters, else nil.
func (db *DB) waited(key string) *waitQueue {
	if q := db.waiters[key]; q != nil && len(q.ws) > q.dead {
		return q
	}
	return nil
}

// serveReady serves the callers blocked on the keys signalled since the last call,
// in signal order. Serving a BLMOVE can signal its destination, which is served in
// a later round of the same loop, so chains of BLMOVEs complete within one write.
func (db *DB) serveReady() {
	for len(db.ready) > 0 {
		// Take the list as it stands; serving may signal more keys (BLMOVE), which
		// start a new list served in the next round, as in Redis.
		batch := db.ready
		db.ready = db.spareReady[:0]
		clear(db.readySet)
		for _, key := range batch {
			if q := db.waited(key); q != nil {
				db.serveKey(key, q)
			}
		}
		clear(batch)
		db.spareReady = batch[:0]
	}
}

// serveKey hands elements of key to its waiters, first blocked first served, while
// the key holds any. Waiters of the other type are skipped and stay blocked.
// Each served waiter is removed from all its keys, so it is served exactly once.
func (db *DB) serveKey(key string, q *waitQueue) {
	for _, e := range q.ws {
		v := db.keys[key].val
		if v == nil {
			break
		}
		w := e.w
		if !e.live() || !w.accepts(v) {
			continue
		}
		db.pop(w, key, v)
		db.unlinkFrom(w, key, q, false)
		w.ch <- struct{}{}
	}
	db.trimQueue(q)
}

// trimQueue drops the dead entries at the head of q (the served ones, usually), or
// empties q when none is live.
func (db *DB) trimQueue(q *waitQueue) {
	if len(q.ws) == q.dead {
		db.resetQueue(q)
		return
	}
	n := 0
	for n < len(q.ws) && !q.ws[n].live() {
		n++
	}
	if n > 0 {
		clear(q.ws[:n])
		q.ws = q.ws[n:]
		q.dead -= n
	}
}

// wait runs the blocking command w: served at once if a key holds a value;
// otherwise it blocks until an element is handed to it, its timeout expires
// (w.ok false, nil error) or ctx is done (ctx.Err()).
//
// The hand-off happens under db.mu in serveKey, which writes the result, removes w
// from every queue and then signals w.ch; the select only learns of it. When the
// timer or ctx fires, wait re-locks and checks w.done: if serveKey got there first,
// the element is already w's and is returned (an element is never lost); otherwise
// w is still queued, so removing it under the lock guarantees that no later write
// can serve it (an element is never delivered twice).
func (db *DB) wait(ctx context.Context, w *waiter) error {
	db.mu.Lock()
	if db.try(w) {
		db.unlock()
		return nil
	}
	if err := ctx.Err(); err != nil {
		db.mu.Unlock()
		return err
	}
	db.enqueue(w)
	db.mu.Unlock()

	done := ctx.Done()
	if done == nil && w.timeout == 0 {
		// Nothing can end the wait but a hand-off: a plain receive is cheaper
		// than a select.
		<-w.ch
		return nil
	}
	var expired <-chan time.Time
	if w.timeout > 0 {
		t := time.NewTimer(w.timeout)
		defer t.Stop()
		expired = t.C
	}
	cancelled := false
	select {
	case <-w.ch:
		return nil
	case <-done:
		cancelled = true
	case <-expired:
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if w.done {
		// Served between the select and the lock: the element has left the key and
		// belongs to this caller, so it must be returned despite the timeout. The
		// hand-off's signal is in w.ch (sent under the lock we now hold): take it, so
		// the channel is empty when w is reused.
		<-w.ch
		return nil
	}
	db.unlink(w, true)
	if cancelled {
		return ctx.Err()
	}
	return nil
}

// blockReply runs w for Do, shapes the reply (null on timeout) and releases w.
func (db *DB) blockReply(ctx context.Context, w *waiter) (any, error) {
	defer w.release()
	if err := db.wait(ctx, w); err != nil {
		return nil, err
	}
	if w.err != nil {
		return nil, w.err
	}
	if !w.ok {
		return nil, nil
	}
	return w.reply(w), nil
}

// runBlockingOnce derives a blocking command's Tx form: parse, try once, and reply
// null (as inside MULTI) when nothing is ready.
func runBlockingOnce(parse func(db *DB, args []string) (*waiter, error)) func(tx *Tx, args []string) (any, error) {
	return func(tx *Tx, args []string) (any, error) {
		w, err := parse(tx.db, args)
		if err != nil {
			return nil, err
		}
		defer w.release()
		if !tx.writable {
			return nil, ErrReadOnly
		}
		tx.db.try(w)
		if w.err != nil {
			return nil, w.err
		}
		if !w.ok {
			return nil, nil
		}
		return w.reply(w), nil
	}
}

// once runs w without blocking, for the Tx forms of the blocking commands.
func (tx *Tx) once(w *waiter) error {
	if !tx.writable {
		return ErrReadOnly
	}
	tx.db.try(w)
	return w.err
}
