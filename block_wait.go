package zlite

import (
	"context"
	"math/bits"
	"sync"
	"time"

	"github.com/zlite/zlite/blocking"
	"github.com/zlite/zlite/list"
	"github.com/zlite/zlite/zset"
)

// The keyspace's side of the blocking pops: what a pop asks for (popReq), how a
// key's value serves it (take), and the direct hand-off of pushed values. The wait
// queues, the ready keys and the wait itself are package blocking's.

// popKind says what a pop wants from a key.
type popKind uint8

const (
	popList popKind = iota // LPOP, BLPOP, LMPOP, BLMPOP...: pop from a list
	popMove                // LMOVE, BLMOVE, BRPOPLPUSH: pop from a list, push onto dst
	popZSet                // BZPOPMIN, ZMPOP, BZMPOP...: pop from a sorted set
)

// popReq is one pop, blocking or not: its request and, once done, its result. While
// a blocking pop is blocked, its popReq is its waiter's Req, read and written only
// under the locks of the shards of its keys.
//
// The one-byte fields come first, together, so that the request is 184 bytes rather
// than 200: a blocking pop copies it into its waiter and back, and the waiter's
// release clears it.
type popReq struct {
	kind    popKind
	left    bool   // pop from the head of a list, or the minimum of a set
	dstLeft bool   // popMove: push onto dst's head
	ok      bool   // served with an element (or elements)
	count   int    // 0: one element; > 0: up to count (the MPOP commands)
	dst     string // popMove: destination key
	// timeout is how long a blocking pop waits; 0 waits until served or ctx is done.
	timeout time.Duration
	// reply shapes the result as Do replies it.
	reply func(r popReq) any

	// mask is the shards of the keys; hash is the shardHash of a single key
	// whose hash tag is the whole key, else 0.
	mask uint64
	hash uint64

	key  string // the key served from
	val  string // single list element
	vals []string
	z    Z
	zs   []Z
	err  error // WRONGTYPE met while serving (nothing was consumed)
}

// waiter is a blocking pop registered with the keyspace's blocking.Registry.
type waiter = blocking.Waiter[popReq]

// blockPop is a blocking command parsed for Do: its request, its keys as given
// (repeats included) and the caller's notices (see doNotify).
type blockPop struct {
	req    popReq
	keys   []string
	notify func(blocked bool)
}

// newPop returns the blocking pop of r on keys, routed (see route).
func (db *DB) newPop(r popReq, keys []string) blockPop {
	db.route(&r, keys)
	return blockPop{req: r, keys: keys}
}

// route works out the shards of a pop's keys, and the hash of a single key, for
// wait. O(len(keys)).
func (db *DB) route(r *popReq, keys []string) {
	if len(keys) == 1 {
		i, h, whole := db.shardHash(keys[0])
		r.mask = 1 << i
		if whole {
			r.hash = h
		}
	} else {
		r.mask = db.maskOf(keys...)
	}
}

// mpopReq is the request of LMPOP, ZMPOP, BLMPOP and BZMPOP: up to count elements of
// a list (kind popList) or a sorted set (popZSet), from the head or the minimum
// when first is set.
func mpopReq(kind popKind, first bool, count int) popReq {
	r := popReq{kind: kind, left: first, count: count, reply: mpopListReply}
	if kind == popZSet {
		r.reply = zmpopReply
	}
	return r
}

// typedMPop builds the request of the typed LMPop, ZMPop, BLMPop and BZMPop methods:
// where is "LEFT"/"RIGHT" for lists, "MIN"/"MAX" for sorted sets.
func typedMPop(kind popKind, where string, count int64, keys []string) (popReq, error) {
	parse := parsePosition
	if kind == popZSet {
		parse = parseMinMax
	}
	first, err := parse(where)
	if err != nil {
		return popReq{}, err
	}
	if err := checkMPop(keys, count); err != nil {
		return popReq{}, err
	}
	return mpopReq(kind, first, clampInt(count)), nil
}

// mpopArgs parses the "numkeys key... where [COUNT n]" tail of LMPOP, ZMPOP, BLMPOP
// and BZMPOP from a[at] into the keys and the request.
func mpopArgs(kind popKind, a []string, at int) ([]string, popReq, error) {
	parse := parsePosition
	if kind == popZSet {
		parse = parseMinMax
	}
	keys, first, count, err := parseMPop(a, at, parse)
	if err != nil {
		return nil, popReq{}, err
	}
	return keys, mpopReq(kind, first, count), nil
}

// mpopOnce runs LMPOP or ZMPOP (by kind) for Do.
func (tx *Tx) mpopOnce(kind popKind, a []string) (any, error) {
	keys, r, err := mpopArgs(kind, a, 1)
	if err == nil {
		err = tx.once(&r, keys)
	}
	if err != nil {
		return nil, err
	}
	return popReply(&r)
}

// accepts reports whether r can be served from a value of v's type.
func (r *popReq) accepts(v any) bool {
	switch v.(type) {
	case *zset.Set:
		return r.kind == popZSet
	case *list.List:
		return r.kind != popZSet
	}
	return false
}

// tryKeys serves r at once from the first of keys that holds a value, as the
// non-blocking form of the command would, and reports whether it did (r.ok) or met
// an error (r.err). It returns false when every key is missing: a blocking caller
// must block. Called with a writable tx.
func (tx *Tx) tryKeys(r *popReq, keys []string) bool {
	for _, k := range keys {
		v := tx.value(k)
		if v == nil {
			continue
		}
		if !r.accepts(v) {
			r.err = ErrWrongType
			return true
		}
		tx.take(r, k, v)
		return true
	}
	return false
}

// take performs r's pop on key, whose value v is non-empty and of r's type, and
// records the result in r. A BLMOVE whose destination holds a sorted set gets
// ErrWrongType and consumes nothing, as in Redis. (Tx.pop is LPOP/RPOP's
// implementation.)
func (tx *Tx) take(r *popReq, key string, v any) {
	tx.sh(key).touch(key)
	switch r.kind {
	case popList:
		l := v.(*list.List)
		switch {
		case r.count > 0 && r.left:
			r.vals = l.PopFrontN(r.count)
		case r.count > 0:
			r.vals = l.PopBackN(r.count)
		case r.left:
			r.val, _ = l.PopFront()
		default:
			r.val, _ = l.PopBack()
		}
		tx.notify(EventsList, popEvent(r.left), key)
		tx.dropIfEmpty(key, l)
	case popMove:
		l := v.(*list.List)
		d, err := listOf(tx.value(r.dst))
		if err != nil {
			r.err = err
			return
		}
		if d == nil {
			d = tx.newList(r.dst)
		}
		tx.sh(r.dst).touch(r.dst)
		r.val, _ = list.Move(l, d, r.left, r.dstLeft)
		tx.notify(EventsList, pushEvent(r.dstLeft), r.dst)
		tx.notify(EventsList, popEvent(r.left), key)
		tx.dropIfEmpty(key, l)
		tx.signal(r.dst)
	case popZSet:
		s := v.(*zset.Set)
		switch {
		case r.count > 0 && r.left:
			r.zs = s.PopMinN(r.count)
		case r.count > 0:
			r.zs = s.PopMaxN(r.count)
		case r.left:
			r.z, _ = s.PopMin()
		default:
			r.z, _ = s.PopMax()
		}
		tx.notify(EventsZSet, zpopEvent(r.left), key)
		tx.dropIfEmpty(key, s)
	}
	r.key = key
	r.ok = true
	if d := tx.log(); d != nil {
		d.pop(r, key)
	}
}

// serveWaiter is the keyspace's blocking.ServeFunc: it offers key's value to w.
// Waiters of the other type are skipped (they stay blocked); a BLMOVE meeting a
// sorted set as destination is served its WRONGTYPE and consumes nothing.
func (tx *Tx) serveWaiter(key string, w *waiter) (served, exhausted bool) {
	v := tx.value(key)
	if v == nil {
		return false, true
	}
	if !w.Req.accepts(v) {
		return false, false
	}
	tx.take(&w.Req, key, v)
	return true, tx.value(key) == nil
}

// serveReady serves the callers blocked on the keys that the command or batch made
// ready, in the shards tx holds and then, while callers wait in them, the global
// queues, until no key is left ready (a served BLMOVE makes its destination ready).
// A key ready in the global queues is offered to its shard's queue first, whose
// waiters are older (see shard.go), so that each key serves first blocked first.
func (tx *Tx) serveReady() {
	db := tx.db
	for {
		served := false
		for b := tx.held; b != 0; b &= b - 1 {
			if sh := &db.shards[bits.TrailingZeros64(b)]; sh.waits.HasReady() {
				sh.waits.ServeReady(tx.serveWaiter)
				served = true
			}
		}
		if db.gwaits.HasReady() {
			db.gwaits.EachReady(func(key string) {
				tx.sh(key).waits.Serve(key, tx.serveWaiter)
				db.gwaits.Serve(key, tx.serveWaiter)
			})
			served = true
		}
		if !served {
			return
		}
	}
}

// serve offers key to its waiters through fn: those of its shard's queue first,
// then those of the global queue (younger: see shard.go) unless fn has reported
// the key exhausted (done).
func (tx *Tx) serve(key string, done *bool, fn blocking.ServeFunc[popReq]) {
	tx.sh(key).waits.Serve(key, fn)
	if g := &tx.db.gwaits; !*done && g.Blocked() > 0 {
		g.Serve(key, fn)
	}
}

// handsOff reports whether a write that creates a key may hand its elements
// straight to blocked callers instead of storing them (handList, handZSet): someone
// is blocked, and the write is a command of its own. Inside an Update batch later
// commands must see the key, so batches take the general path (create the key,
// serve when the batch completes). O(1).
func (tx *Tx) handsOff(key string) bool {
	return !tx.batch && (tx.sh(key).waits.Blocked() > 0 || tx.db.gwaits.Blocked() > 0) &&
		tx.db.events.Load() == 0 // events need the key created, then popped, as in Redis
}

// handList serves the waiters of the missing key from values pushed onto it, as
// serveWaiter would serve them from the list the push creates (LPUSH puts the last
// value at the head), without creating that list. Positions 0 to len(values)-1
// number the list from head to tail; handList returns the positions [lo, hi) that
// are left once the waiters are served. It stops at the first BLMOVE waiter (whose
// push may target key itself): the caller creates the list with what is left and
// signals key, so the serve after the command takes over from that waiter, in the
// same order.
func (tx *Tx) handList(key string, left bool, values []string) (lo, hi int) {
	tx.sh(key).touch(key) // WATCH: the push modifies key, handed off or not
	n := len(values)
	hi = n
	elem := func(p int) string {
		if left {
			return values[n-1-p]
		}
		return values[p]
	}
	done := false
	tx.serve(key, &done, func(key string, w *waiter) (served, exhausted bool) {
		r := &w.Req
		switch {
		case r.kind == popZSet:
			return false, false
		case r.kind == popMove:
			done = true
			return false, true
		case r.count > 0 && r.left:
			r.vals = make([]string, min(r.count, hi-lo))
			for i := range r.vals {
				r.vals[i] = elem(lo + i)
			}
			lo += len(r.vals)
		case r.count > 0:
			r.vals = make([]string, min(r.count, hi-lo))
			for i := range r.vals {
				r.vals[i] = elem(hi - 1 - i)
			}
			hi -= len(r.vals)
		case r.left:
			r.val = elem(lo)
			lo++
		default:
			hi--
			r.val = elem(hi)
		}
		r.key, r.ok = key, true
		if d := tx.log(); d != nil {
			d.pop(r, key) // after the push's own words, as serveWaiter would pop
		}
		done = lo == hi
		return true, done
	})
	return lo, hi
}

// handZSet hands z, the single member added to the missing key, to the first
// sorted-set waiter of key, as serveWaiter would from the set the add creates,
// without creating that set. It reports false, changing nothing, when no waiter
// takes it.
func (tx *Tx) handZSet(key string, z Z) (handed bool) {
	tx.sh(key).touch(key) // WATCH: the add modifies key, handed off or not
	tx.serve(key, &handed, func(key string, w *waiter) (served, exhausted bool) {
		r := &w.Req
		if r.kind != popZSet {
			return false, false
		}
		if r.count > 0 {
			r.zs = []Z{z}
		} else {
			r.z = z
		}
		r.key, r.ok, handed = key, true, true
		if d := tx.log(); d != nil {
			d.cmd(nil, "zpopmin", key) // the set ZADD would create holds only z
		}
		return true, true
	})
	return handed
}

// wait runs the blocking pop r, routed, on keys (as given, repeats included): served
// at once if a key holds a value; otherwise it blocks (see blocking.Registry.Wait)
// until an element is handed to it, its timeout expires (r.ok false, nil error) or
// ctx is done (ctx.Err()); notify, if set, is the waiter's Notify (doNotify).
//
// A pop served at once takes no waiter; one that blocks takes it from the pool of
// the Registry it blocks in (waitIn). The keys and r are separate parameters, not
// one struct, so that the keys of a typed call (BRPop's variadic slice) stay on the
// caller's stack: escape analysis would send every pointer of a struct to the heap
// with r's.
//
// A pop whose keys (and BLMOVE destination) live in one shard waits in that
// shard's queues, unless callers already wait in the global queues; otherwise it
// tries again with every shard locked and waits in the global queues (shard.go).
func (db *DB) wait(ctx context.Context, r *popReq, keys []string, notify func(blocked bool)) error {
	m := r.mask
	if r.kind == popMove {
		m |= 1 << db.shardOf(r.dst)
	}
	tx := db.lockMask(m)
	var memo *shard // the shard remembering the key's hash, forgotten before Wait
	if len(keys) == 1 {
		i := bits.TrailingZeros64(r.mask)
		tx.prime(keys[0], i)
		if r.hash != 0 {
			memo = &db.shards[i]
			memo.remember(keys[0], r.hash)
		}
	}
	if tx.tryKeys(r, keys) {
		return tx.unlock()
	}
	if memo != nil {
		// Wait unlocks the shard itself, not through release, and the
		// caller's key may be gone by the next command.
		memo.hashKey = 0
	}
	if tx.held != db.all && m&(m-1) != 0 { // keys of several shards
		if err := tx.unlock(); err != nil {
			return err
		}
		if tx = db.lockAll(); tx.tryKeys(r, keys) {
			return tx.unlock()
		}
	}
	if err := tx.appendRec(); err != nil { // the expired keys the tries deleted
		db.release(tx.held)
		return misconf(err)
	}
	var err error
	if db.gwaits.Blocked() == 0 && m&(m-1) == 0 { // one shard
		// lockMask may have taken every shard for global waiters that have gone
		// since: Wait releases the one it is given.
		db.release(tx.held &^ m)
		sh := &db.shards[bits.TrailingZeros64(m)]
		err = db.waitIn(ctx, &sh.waits, &sh.mu, r, keys, notify)
	} else {
		err = db.waitIn(ctx, &db.gwaits, (*allShards)(db), r, keys, notify)
	}
	if err == nil && r.ok {
		err = db.servedDurable(m)
	}
	return err
}

// waitIn blocks r on keys in reg (see blocking.Registry.Wait), mu held, as a waiter
// from reg's pool (a Registry keeps dead entries of its waiters, which it reads
// under its own lock, so a waiter must wait in the Registry it came from), and
// leaves the outcome in r.
func (db *DB) waitIn(ctx context.Context, reg *blocking.Registry[popReq], mu sync.Locker, r *popReq, keys []string, notify func(blocked bool)) error {
	w := reg.NewWaiter(keys)
	w.Req, w.Notify = *r, notify
	_, err := reg.Wait(ctx, mu, w, r.timeout)
	*r = w.Req
	w.Release()
	return err
}

// blockReply runs p for Do and shapes the reply (null on timeout).
func (db *DB) blockReply(ctx context.Context, p *blockPop) (any, error) {
	if err := db.wait(ctx, &p.req, p.keys, p.notify); err != nil {
		return nil, err
	}
	return popReply(&p.req)
}

// popReply is the Do reply of a finished pop: its error, null when nothing was
// popped, else the reply its command shapes.
func popReply(r *popReq) (any, error) {
	if r.err != nil || !r.ok {
		return nil, r.err
	}
	return r.reply(*r), nil
}

// runBlockingOnce derives a blocking command's Tx form: parse, try once, and reply
// null (as inside MULTI) when nothing is ready.
func runBlockingOnce(parse func(db *DB, args []string) (blockPop, error)) func(tx *Tx, args []string) (any, error) {
	return func(tx *Tx, args []string) (any, error) {
		p, err := parse(tx.db, args)
		if err != nil {
			return nil, err
		}
		if err := tx.once(&p.req, p.keys); err != nil {
			return nil, err
		}
		return popReply(&p.req)
	}
}

// once runs r on keys without blocking, for the non-blocking pops and the Tx forms
// of the blocking ones.
func (tx *Tx) once(r *popReq, keys []string) error {
	if err := tx.writeErr(); err != nil {
		return err
	}
	tx.tryKeys(r, keys)
	return r.err
}
