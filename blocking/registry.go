package blocking

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// Registry is the set of callers blocked on named keys, first blocked first served:
// one FIFO wait queue per key, the list of keys made ready since the last serve, and
// a pool of waiters. R is what a waiter asks for (and where its result goes); the
// Registry never looks inside it.
//
// A Registry holds no lock. Every method, and every serve function it calls, must
// run under the one lock that the caller uses for the data the keys name (the
// sync.Locker passed to [Registry.Wait]); only [Registry.NewWaiter] and
// [Waiter.Release] may run without it. The zero Registry is empty and ready to use;
// it must not be copied after first use.
type Registry[R any] struct {
	// queues maps a key to its waiters. A key's queue stays in the map when it
	// empties (a queue key is waited on over and over) until empty queues outnumber
	// the live ones (see sweep).
	queues   map[string]*queue[R]
	free     []*queue[R] // emptied queues kept for reuse
	nblocked int         // waiters blocked now
	nlive    int         // queues with at least one live entry
	swept    int         // queues examined by sweeps, ever (Stats.Swept)

	// ready lists the keys marked since the last serve that have waiters, in
	// marking order; readySet deduplicates it once it grows long.
	ready    []string
	spare    []string // the other buffer for ready, swapped by ServeReady
	readySet map[string]struct{}

	// walking is the queue a serve is walking now: it must not be compacted or
	// reset under the walk.
	walking *queue[R]

	// lastKey and lastQ remember the queue of the key looked up last (see
	// queueOf): a blocking pop and the push that serves it name the same key,
	// and the memo spares the second a map lookup and the hash of the key.
	lastKey string
	lastQ   *queue[R]

	// hot is the waiter released last, taken before the pool: a pop that blocks
	// over and over (a consumer's loop, a hand-off ping-pong) reuses it with one
	// atomic swap, where sync.Pool's Get and Put pin the processor and cost several
	// times as much.
	hot  atomic.Pointer[Waiter[R]]
	pool sync.Pool // of *Waiter[R]; per Registry, so a waiter never changes hands
}

// queue is the first-come-first-served list of the waiters of one key. Waiters that
// were served on another key, or gave up, stay in ws as dead entries (dead counts
// them) until they reach the head or the queue is compacted.
type queue[R any] struct {
	ws   []entry[R]
	dead int
}

// entry is a queue's reference to a waiter in one of its uses.
type entry[R any] struct {
	w   *Waiter[R]
	gen uint64
}

// live reports whether the entry's waiter is still blocked in this use.
func (e entry[R]) live() bool { return e.gen == e.w.gen && !e.w.done }

// Waiter is one blocked caller: its keys, what it asks for and, once served, its
// result (both in Req). Get one from [Registry.NewWaiter], give it back with
// [Waiter.Release].
//
// Req belongs to the caller until [Registry.Wait] blocks it; from then on only serve
// functions (under the lock) touch it, until Wait returns.
type Waiter[R any] struct {
	// Req is the request, and room for its result; the Registry never reads it.
	Req R
	// Notify, if set, is called under the lock when [Registry.Wait] blocks w
	// (true) and when a serve hands w its result (false), before that serve
	// returns: the caller learns of both when they happen, not when its Wait
	// returns (a timeout or ctx is not notified). Release clears it.
	Notify func(blocked bool)

	keys   []string  // distinct, in the order given
	keybuf [4]string // backing store for keys, to spare an allocation
	gen    uint64    // bumped at each use; under the lock
	done   bool      // served or given up: in no queue as a live entry; under the lock
	ch     chan struct{}
	reg    *Registry[R]
}

// NewWaiter returns a waiter for keys, taken from r's pool, with a zero Req. It
// copies keys, dropping repeats (a caller blocks once per key, as in Redis), in
// O(len(keys)). It may run without the lock.
func (r *Registry[R]) NewWaiter(keys []string) *Waiter[R] {
	w := r.hot.Swap(nil)
	if w == nil {
		w, _ = r.pool.Get().(*Waiter[R])
	}
	if w == nil {
		w = &Waiter[R]{ch: make(chan struct{}, 1), reg: r}
	}
	if len(keys) == 1 { // a pop on one key, the usual one: no call
		w.keys = append(w.keybuf[:0], keys[0])
	} else {
		w.keys = appendDistinct(w.keybuf[:0], keys)
	}
	return w
}

// Keys returns w's keys, without repeats, in the order given to NewWaiter. The
// caller must not modify the slice.
func (w *Waiter[R]) Keys() []string { return w.keys }

// Release gives w back to its Registry's pool once the caller has read the result.
// w must not be blocked (Wait has returned, or it was never passed to Wait) and
// must not be used afterwards. It may run without the lock.
func (w *Waiter[R]) Release() {
	var zero R
	w.Req = zero
	w.Notify = nil
	w.keys = nil
	w.keybuf = [4]string{}
	if !w.reg.hot.CompareAndSwap(nil, w) {
		w.reg.pool.Put(w)
	}
}

// smallKeys is the number of keys up to which appendDistinct compares pairs instead
// of building a set.
const smallKeys = 8

// appendDistinct appends keys to dst without repeats, keeping the first of each. The
// complexity is O(len(keys)): quadratic comparison only for a handful of keys.
func appendDistinct(dst, keys []string) []string {
	if len(keys) <= smallKeys {
	next:
		for i, k := range keys {
			for _, p := range keys[:i] {
				if p == k {
					continue next
				}
			}
			dst = append(dst, k)
		}
		return dst
	}
	seen := make(map[string]struct{}, len(keys))
	for _, k := range keys {
		if _, dup := seen[k]; !dup {
			seen[k] = struct{}{}
			dst = append(dst, k)
		}
	}
	return dst
}

// enqueue blocks w on each of its keys, behind the waiters already there. The
// complexity is amortised O(len(w.Keys())): one map lookup per key, plus the
// amortised share of sweep when a key gets its first queue.
func (r *Registry[R]) enqueue(w *Waiter[R]) {
	if r.queues == nil {
		r.queues = make(map[string]*queue[R])
	}
	// A new use: entries left in queues by earlier uses of w stop being live.
	w.gen++
	w.done = false
	for _, k := range w.keys {
		q := r.queueOf(k)
		if q == nil {
			r.sweep()
			q = r.newQueue()
			r.queues[k] = q
			r.lastKey, r.lastQ = k, q
		}
		if len(q.ws) == q.dead {
			r.nlive++
		}
		q.ws = append(q.ws, entry[R]{w, w.gen})
	}
	r.nblocked++
}

// queueOf returns key's queue, nil if it has none, and remembers it. It costs a
// string comparison when key is the key looked up last (the same string data
// compares without reading the bytes), else one map lookup.
func (r *Registry[R]) queueOf(key string) *queue[R] {
	if r.lastQ != nil && key == r.lastKey {
		return r.lastQ
	}
	q := r.queues[key]
	if q != nil {
		r.lastKey, r.lastQ = key, q
	}
	return q
}

// newQueue returns an empty queue, reusing a freed one if there is one.
func (r *Registry[R]) newQueue() *queue[R] {
	if n := len(r.free); n > 0 {
		q := r.free[n-1]
		r.free = r.free[:n-1]
		return q
	}
	return &queue[R]{}
}

// sweepMin is the number of queues below which sweep never runs, and freeMax the
// number of emptied queues kept for reuse.
const (
	sweepMin = 64
	freeMax  = 64
)

// sweep removes the empty queues from the map once they outnumber the live ones
// (and sweepMin). It runs only when a key gets a new queue. A sweep costs O(len(map))
// and removes at least half of the map, every removed queue was added by one
// enqueue of one key, so the cost is amortised O(1) per key enqueued, whatever the
// mix of waiters and keys. The queue queueOf remembers may be freed here; enqueue,
// the only caller, remembers the new key's queue right after, so the memo never
// names a freed queue.
func (r *Registry[R]) sweep() {
	if len(r.queues) < sweepMin || len(r.queues) < 2*r.nlive+sweepMin {
		return
	}
	r.swept += len(r.queues)
	for k, q := range r.queues {
		if len(q.ws) == q.dead {
			delete(r.queues, k)
			reset(q)
			if len(r.free) < freeMax {
				r.free = append(r.free, q)
			}
		}
	}
}

// reset empties q, keeping its slice.
func reset[R any](q *queue[R]) {
	drop(q.ws)
	q.ws = q.ws[:0]
	q.dead = 0
}

// drop zeroes ws, so that the entries keep no waiter alive. A queue of one entry,
// the usual one, takes one store, where clear calls memclrHasPointers.
func drop[R any](ws []entry[R]) {
	if len(ws) == 1 {
		ws[0] = entry[R]{}
		return
	}
	clear(ws)
}

// unlink marks w done and takes it out of all its queues: its entries stay in the
// slices, counted as dead, and each queue is tidied (see tidy), except the one a
// serve is walking, which the walk tidies when it ends. So no queue is more than
// half dead (beyond 8 entries) between calls. The complexity is amortised
// O(len(w.Keys())): a compaction's cost is paid by the appends of the entries it
// removes.
func (r *Registry[R]) unlink(w *Waiter[R]) { r.unlinkServed(w, "", nil) }

// unlinkServed is unlink for a waiter served on key, whose queue kq the caller
// holds: it spares that key's map lookup.
func (r *Registry[R]) unlinkServed(w *Waiter[R], key string, kq *queue[R]) {
	w.done = true
	r.nblocked--
	for _, k := range w.keys {
		q := kq
		if kq == nil || k != key {
			q = r.queueOf(k)
		}
		if q == nil {
			continue
		}
		q.dead++
		if q.dead == len(q.ws) {
			r.nlive--
		}
		if q != r.walking {
			tidy(q)
		}
	}
}

// tidy keeps q's dead entries few: it empties q when none is live, compacts it when
// more than half of it (and more than 8 entries) is dead, and otherwise drops the
// dead entries at its head (the served ones, usually). Compaction costs O(len(q))
// and removes at least half of q; every other case costs O(entries dropped).
func tidy[R any](q *queue[R]) {
	switch {
	case q.dead == len(q.ws):
		reset(q)
	case q.dead > 8 && 2*q.dead > len(q.ws):
		live := q.ws[:0]
		for _, e := range q.ws {
			if e.live() {
				live = append(live, e)
			}
		}
		drop(q.ws[len(live):])
		q.ws = live
		q.dead = 0
	default:
		trim(q)
	}
}

// trim drops the dead entries at the head of q. It costs O(entries dropped).
func trim[R any](q *queue[R]) {
	n := 0
	for n < len(q.ws) && !q.ws[n].live() {
		n++
	}
	if n > 0 {
		drop(q.ws[:n])
		q.ws = q.ws[n:]
		q.dead -= n
	}
}

// waiting returns key's queue if it has live waiters, else nil.
func (r *Registry[R]) waiting(key string) *queue[R] {
	if r.nblocked == 0 {
		return nil
	}
	if q := r.queueOf(key); q != nil && len(q.ws) > q.dead {
		return q
	}
	return nil
}

// Waiting reports whether a caller is blocked on key. It costs one map lookup, and
// nothing when nobody is blocked.
func (r *Registry[R]) Waiting(key string) bool { return r.waiting(key) != nil }

// Blocked returns the number of callers blocked now. O(1).
func (r *Registry[R]) Blocked() int { return r.nblocked }

// readyIndexed is the length from which MarkReady indexes the ready list in a set
// instead of scanning it.
const readyIndexed = 8

// MarkReady notes that key may now satisfy its waiters, for the next
// [Registry.ServeReady]; it does nothing when nobody waits on key, or when key is
// already marked. The complexity is O(1) (one map lookup when nobody waits).
func (r *Registry[R]) MarkReady(key string) {
	if r.waiting(key) == nil {
		return
	}
	if len(r.ready) < readyIndexed {
		for _, k := range r.ready {
			if k == key {
				return
			}
		}
	} else {
		if r.readySet == nil {
			r.readySet = make(map[string]struct{})
		}
		if len(r.readySet) == 0 {
			for _, k := range r.ready {
				r.readySet[k] = struct{}{}
			}
		}
		if _, ok := r.readySet[key]; ok {
			return
		}
		r.readySet[key] = struct{}{}
	}
	r.ready = append(r.ready, key)
}

// HasReady reports whether keys were marked since the last ServeReady. O(1).
func (r *Registry[R]) HasReady() bool { return len(r.ready) > 0 }

// ServeFunc offers key to one of its waiters, w. It reports whether w is served
// (its Wait returns served; the element, or an error for the caller, is in w.Req),
// and whether key has nothing left to offer (no later waiter of key is offered it).
// It runs under the lock, may call [Registry.MarkReady], and must not call any other
// method of the Registry.
type ServeFunc[R any] func(key string, w *Waiter[R]) (served, exhausted bool)

// ServeReady serves the keys marked ready since the last call, in marking order:
// each key is offered to its waiters first blocked first, by [Registry.Serve]. Keys
// that serve marks (a BLMOVE's destination) are served in a later round of the same
// call, until no key is marked. The complexity is that of the Serve calls.
func (r *Registry[R]) ServeReady(serve ServeFunc[R]) {
	r.EachReady(func(key string) { r.Serve(key, serve) })
}

// EachReady is [Registry.ServeReady] with the serving left to fn: it calls fn for
// each key marked ready, in marking order and in rounds as ServeReady does, so
// that a caller can offer the key to other waiters first (those of another
// Registry that blocked earlier). fn may call [Registry.Serve] and
// [Registry.MarkReady]. The complexity is that of the fn calls.
func (r *Registry[R]) EachReady(fn func(key string)) {
	for len(r.ready) > 0 {
		// Take the list as it stands; serving may mark more keys, which start a
		// new list served in the next round, as in Redis.
		batch := r.ready
		r.ready = r.spare[:0]
		clear(r.readySet)
		for _, key := range batch {
			fn(key)
		}
		clear(batch)
		r.spare = batch[:0]
	}
}

// Serve offers key to its live waiters, first blocked first, until serve reports
// the key exhausted: each waiter served is removed from the queues of all its keys
// and woken, so it is served exactly once. A writer calls Serve directly to hand an
// element to a waiter without storing it first. The complexity is O(entries walked
// + the keys of the waiters served): entries walked are the waiters offered key and
// the dead entries among them, which unlink keeps below half of each queue.
func (r *Registry[R]) Serve(key string, serve ServeFunc[R]) {
	q := r.waiting(key)
	if q == nil {
		return
	}
	r.walking = q
	for i := 0; i < len(q.ws); i++ {
		e := q.ws[i]
		if !e.live() {
			continue
		}
		served, exhausted := serve(key, e.w)
		if served {
			r.unlinkServed(e.w, key, q)
			if f := e.w.Notify; f != nil {
				f(false)
			}
			e.w.ch <- struct{}{}
		}
		if exhausted {
			break
		}
	}
	r.walking = nil
	tidy(q)
}

// Stats counts what a Registry holds, for tests and monitoring.
type Stats struct {
	Blocked int // callers blocked now
	Queues  int // wait queues in the map, live or empty
	Entries int // queue entries, live and dead
	// Swept counts the queues examined by sweeps since r was created: at most
	// twice the number of keys ever enqueued (see Costs in the package doc).
	Swept int
}

// Stats returns r's counts. The complexity is O(number of queues).
func (r *Registry[R]) Stats() Stats {
	s := Stats{Blocked: r.nblocked, Queues: len(r.queues), Swept: r.swept}
	for _, q := range r.queues {
		s.Entries += len(q.ws)
	}
	return s
}

// Check verifies r's invariants, for tests: dead counts match, live counts match,
// every blocked waiter is in the queue of each of its keys, dead entries are at most
// half of a compacted queue, and no key is left marked ready. The complexity is
// O(entries).
func (r *Registry[R]) Check() error {
	var errs []error
	blocked := map[*Waiter[R]]int{}
	live := 0
	for k, q := range r.queues {
		d := 0
		for _, e := range q.ws {
			if e.live() {
				blocked[e.w]++
			} else {
				d++
			}
		}
		if d != q.dead {
			errs = append(errs, fmt.Errorf("queue %q counts %d dead entries, holds %d", k, q.dead, d))
		}
		if d < len(q.ws) {
			live++
		}
		if d > 8 && 2*d > len(q.ws) {
			errs = append(errs, fmt.Errorf("queue %q holds %d dead entries of %d", k, d, len(q.ws)))
		}
	}
	for w, n := range blocked {
		if n != len(w.keys) {
			errs = append(errs, fmt.Errorf("waiter on %q is live in %d queues", w.keys, n))
		}
	}
	if len(blocked) != r.nblocked {
		errs = append(errs, fmt.Errorf("%d waiters queued, %d counted blocked", len(blocked), r.nblocked))
	}
	if live != r.nlive {
		errs = append(errs, fmt.Errorf("%d live queues, %d counted", live, r.nlive))
	}
	if len(r.ready) != 0 {
		errs = append(errs, fmt.Errorf("%d ready keys left unserved", len(r.ready)))
	}
	return errors.Join(errs...)
}
