package zlite

import (
	"encoding/binary"
	"errors"
	"github.com/zlite/zlite/dict"
	"github.com/zlite/zlite/internal/keytable"
	"math"
	"math/bits"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zlite/zlite/list"
	"github.com/zlite/zlite/persist"
	"github.com/zlite/zlite/set"
	"github.com/zlite/zlite/zset"
)

// The keyspace's side of persistence (see persist/doc.go for the store): every write
// appends the Redis command words of its effect to its Tx's record while it runs
// under its shards' locks; unlock hands the record (one per command, or per Update
// batch) to the store, releases the locks and waits until the record is durable as
// the sync policy says. Records are appended under the locks of the shards they
// touch, so two records on one key are in the log in the order they ran; records
// on keys of different shards commute. That is what lets the store copy records
// of different shards into a memory-mapped log at the same time, without a lock
// (persist/doc.go, Memory-mapped logs): a crash can then lose a record that was
// being copied while keeping later ones, but those were appended under other
// shards' locks, so the state reopened is still one the writes acknowledged could
// have produced. Nothing the keyspace writes per record is shared by all shards (a
// DB-wide counter updated by every write made writers on different cores wait for
// one cache line). A DB made by New has no durable state and pays one nil check per
// write.

// durable is the persistent state of a DB opened with Open.
type durable struct {
	st *persist.Store
	// last holds, per shard, the position of the last record appended under that
	// shard's lock, read and written under it: a blocked caller served by
	// another's write waits for it before returning its value. One per cache line,
	// so that writers of different shards do not share one (a single DB-wide
	// position updated by every write was a cache line every writer contended for).
	last [MaxShards]struct {
		pos persist.Pos
		_   [56]byte
	}
	// snap is the snapshot in progress, nil when none (open_snapshot.go); it changes
	// under every shard's lock.
	snap *snapshot
	// err is a failure to log a record that the store does not know of (a record
	// larger than persist.MaxRecordSize: a batch of over 1 GiB): the keyspace then
	// differs from the log, so writes are refused as after the store's failures.
	err atomic.Pointer[error]

	// mu guards the fields below.
	mu sync.Mutex
	// base is the size of the last snapshot's elements.
	base int64
	// snapping is set from the start of a snapshot, automatic or not, to its end;
	// closing once Close has begun (no snapshot starts after it).
	snapping, closing bool
	// autoPct and autoMin are the automatic compaction's thresholds (open.go).
	autoPct int
	autoMin int64
	// maxHold is the longest the last snapshot held db.mu (for its benchmark).
	maxHold time.Duration
	// wg counts the snapshots running, automatic or not, for Close.
	wg sync.WaitGroup
}

// recorder gathers the record of one command or batch: the commands of its effect,
// encoded as persist.AppendCommand does.
type recorder struct {
	rec []byte
	// num is scratch space for formatting numbers into rec.
	num []byte
}

// log returns the recorder of tx's command, nil on a DB made by New.
func (tx *Tx) log() *recorder {
	if tx.db.dur == nil {
		return nil
	}
	return &tx.rec
}

// start begins a command of n words in the record.
func (d *recorder) start(n int) { d.rec = binary.AppendUvarint(d.rec, uint64(n)) }

// word appends one word of the current command.
func (d *recorder) word(w string) {
	d.rec = binary.AppendUvarint(d.rec, uint64(len(w)))
	d.rec = append(d.rec, w...)
}

// words appends words of the current command.
func (d *recorder) words(ws []string) {
	for _, w := range ws {
		d.word(w)
	}
}

// int appends an integer word.
func (d *recorder) int(n int64) {
	d.num = strconv.AppendInt(d.num[:0], n, 10)
	d.rec = binary.AppendUvarint(d.rec, uint64(len(d.num)))
	d.rec = append(d.rec, d.num...)
}

// score appends a score word that parses back to exactly f.
func (d *recorder) score(f float64) {
	switch {
	case math.IsInf(f, 1):
		d.num = append(d.num[:0], "+inf"...)
	case math.IsInf(f, -1):
		d.num = append(d.num[:0], "-inf"...)
	default:
		d.num = strconv.AppendFloat(d.num[:0], f, 'g', -1, 64)
	}
	d.rec = binary.AppendUvarint(d.rec, uint64(len(d.num)))
	d.rec = append(d.rec, d.num...)
}

// cmd appends a command of fixed words followed by tail.
func (d *recorder) cmd(tail []string, head ...string) {
	d.start(len(head) + len(tail))
	d.words(head)
	d.words(tail)
}

// cmdN appends "name key n": a pop of n elements.
func (d *recorder) cmdN(name, key string, n int) {
	d.start(3)
	d.word(name)
	d.word(key)
	d.int(int64(n))
}

// value appends the commands that recreate v (a *list.List, *zset.Set or string) at
// key, replacing what is there: DEL, then RPUSH or ZADD in batches of bounded size,
// or SET.
func (d *recorder) value(key string, v any) {
	d.cmd(nil, "del", key)
	const batch = 1024
	switch v := v.(type) {
	case *list.List:
		items := make([]string, 0, min(batch, v.Len()))
		for _, it := range v.All() {
			if items = append(items, it); len(items) == batch {
				d.cmd(items, "rpush", key)
				items = items[:0]
			}
		}
		if len(items) > 0 {
			d.cmd(items, "rpush", key)
		}
	case *stringValue, *keytable.Short:
		b, _ := stringBytes(v)
		d.cmd(nil, "set", key, string(b))
	case *set.Set:
		items := make([]string, 0, min(batch, v.Len()))
		for m := range v.All() {
			if items = append(items, m); len(items) == batch {
				d.cmd(items, "sadd", key)
				items = items[:0]
			}
		}
		if len(items) > 0 {
			d.cmd(items, "sadd", key)
		}
	case *dict.Map:
		items := make([]string, 0, 2*min(batch, v.Len()))
		for f, val := range v.All() {
			if items = append(items, f, val); len(items) == 2*batch {
				d.cmd(items, "hset", key)
				items = items[:0]
			}
		}
		if len(items) > 0 {
			d.cmd(items, "hset", key)
		}
	case *zset.Set:
		left := v.Len()
		n := 0
		for m, s := range v.All() {
			if n == 0 {
				n = min(batch, left)
				left -= n
				d.start(2 + 2*n)
				d.word("zadd")
				d.word(key)
			}
			d.score(s)
			d.word(m)
			n--
		}
	}
}

// pop appends the non-blocking pop equivalent to r's effect on key: what a served
// blocking pop, LMPOP, ZMPOP or LMOVE did.
func (d *recorder) pop(r *popReq, key string) {
	switch r.kind {
	case popList:
		name := "rpop"
		if r.left {
			name = "lpop"
		}
		if r.count > 0 {
			d.cmdN(name, key, len(r.vals))
		} else {
			d.cmd(nil, name, key)
		}
	case popMove:
		d.cmd(nil, "lmove", key, r.dst, side(r.left), side(r.dstLeft))
	case popZSet:
		name := "zpopmax"
		if r.left {
			name = "zpopmin"
		}
		if r.count > 0 {
			d.cmdN(name, key, len(r.zs))
		} else {
			d.cmd(nil, name, key)
		}
	}
}

// side is LMOVE's word for a list end.
func side(left bool) string {
	if left {
		return "LEFT"
	}
	return "RIGHT"
}

// MisconfError is the error of a write to a DB whose log failed: the write that
// met the failure (it was applied in memory but may be lost at a restart) and every
// later write, which is refused and changes nothing. Reads keep working. Its text
// is Redis's refusal after an AOF write error; it unwraps to the store's error,
// which matches [persist.ErrFailed] and the system's error (syscall.ENOSPC, ...).
type MisconfError struct{ Err error }

func (e *MisconfError) Error() string {
	msg := e.Err.Error()
	var se interface{ Unwrap() []error }
	if errors.As(e.Err, &se) {
		// persist's errors wrap ErrFailed and the system's error: name the latter.
		if es := se.Unwrap(); len(es) > 0 {
			msg = es[len(es)-1].Error()
		}
	}
	return "MISCONF Errors writing to the AOF file: " + msg
}

func (e *MisconfError) Unwrap() error { return e.Err }

// misconf wraps a store error for the caller of a write; nil stays nil.
func misconf(err error) error {
	if err == nil {
		return nil
	}
	return &MisconfError{Err: err}
}

// writeErr is the error that refuses a write through tx before it changes anything:
// ErrReadOnly in View, a [*MisconfError] once the log has failed, else nil.
func (tx *Tx) writeErr() error {
	if !tx.writable {
		return ErrReadOnly
	}
	if d := tx.db.dur; d != nil {
		if err := d.err.Load(); err != nil {
			return misconf(*err)
		}
		return misconf(d.st.Err())
	}
	return nil
}

// commit appends the record of the command or batch that ran under tx's locks (if
// it changed anything), releases the locks and waits until the record is durable.
// It is unlock's last step.
func (tx *Tx) commit() error {
	d := tx.db.dur
	if d == nil || len(tx.rec.rec) == 0 {
		tx.db.release(tx.held)
		return nil
	}
	pos, err := tx.appendPos()
	if err == nil {
		tx.db.maybeCompact()
	}
	tx.db.release(tx.held)
	if err != nil {
		return misconf(err)
	}
	return misconf(d.st.Wait(pos))
}

// appendRec appends the record gathered so far without waiting for it (for the
// deletions of expired keys made by reads and by a blocking pop before it waits).
// Called under tx's locks.
func (tx *Tx) appendRec() error {
	_, err := tx.appendPos()
	return err
}

// appendPos is appendRec returning the record's position, 0 when there was none.
func (tx *Tx) appendPos() (persist.Pos, error) {
	d := tx.db.dur
	if d == nil || len(tx.rec.rec) == 0 {
		return 0, nil
	}
	pos, err := d.st.Append(tx.rec.rec)
	tx.rec.rec = tx.rec.rec[:0]
	if err != nil {
		failed := err // its own variable: taking err's address would move every call's err to the heap
		d.err.CompareAndSwap(nil, &failed)
		return 0, err
	}
	for b := tx.held; b != 0; b &= b - 1 {
		d.last[bits.TrailingZeros64(b)].pos = pos
	}
	return pos, nil
}

// servedDurable waits, for a caller whose blocking pop (on the shards of m) was
// served by another caller's write, until that write's record (which holds the pop)
// is durable, so a value is never returned before its removal would survive a
// crash. The writer appended the record before releasing the shards, so taking
// them once orders the read of last after it.
func (db *DB) servedDurable(m uint64) error {
	d := db.dur
	if d == nil {
		return nil
	}
	db.acquire(m)
	var pos persist.Pos
	for b := m; b != 0; b &= b - 1 {
		pos = max(pos, d.last[bits.TrailingZeros64(b)].pos)
	}
	db.release(m)
	if pos == 0 {
		return nil
	}
	return misconf(d.st.Wait(pos))
}

// finish ends a command begun with a lock (and start from now, when latency is
// tracked): it records the latency, unlocks (logging the write, see commit) and
// returns err, or the log's error when err is nil.
func (tx *Tx) finish(stat int, start int64, err error) error {
	if tx.db.stats.timed {
		tx.record(stat, start)
	}
	if werr := tx.unlock(); err == nil {
		err = werr
	}
	return err
}

// zadd appends ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member ....
func (d *recorder) zadd(key string, opt zset.AddOptions, incr bool, zs []Z) {
	flags := [...]struct {
		on   bool
		word string
	}{{opt.NX, "NX"}, {opt.XX, "XX"}, {opt.GT, "GT"}, {opt.LT, "LT"}, {opt.CH, "CH"}, {incr, "INCR"}}
	n := 2 + 2*len(zs)
	for _, f := range flags {
		if f.on {
			n++
		}
	}
	d.start(n)
	d.word("zadd")
	d.word(key)
	for _, f := range flags {
		if f.on {
			d.word(f.word)
		}
	}
	for _, z := range zs {
		d.score(z.Score)
		d.word(z.Member)
	}
}
