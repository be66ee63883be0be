package persist

import (
	"sync/atomic"
	"unsafe"
)

// Appending to a memory-mapped log without a lock. While nothing else uses the
// mapped log (no flusher, no pending rotation, no record waiting in buf, no failure:
// see canCopyLocked), Append reserves a record's bytes with a compare-and-swap on
// one word, res, which holds the end of the reserved part of the log, copies the
// record into its range and counts the copy in fin. Writers that hold different
// locks of their own (a keyspace's shards) so copy their records at the same time;
// a writer's records are in the log in the order of its Append calls, as the
// reservations are. Such a run of lock-free appends is an epoch: the store's
// mutex starts one (startDirectLocked) and ends one (stopDirectLocked: it sets the
// frozen bit, which makes every later Append take the mutex, and waits until fin
// counts every byte reserved), before anything else touches the log: a growth of
// its mapping, a rotation, a flush, a failure, Close.
//
// A writer that dies between its reservation and the end of its copy (a process
// crash) leaves a hole: a range of zeros, or a record whose header is written and
// whose commit word is not, possibly followed by records other writers completed.
// A log of format version 3 tells such a hole from damage, and Open skips it (see
// the package documentation's Recovery section); no record in a hole was
// acknowledged, since its Append never returned.

const (
	// frozen, in res, stops lock-free appends.
	frozen = 1 << 63
	// tagShift and tagMask place the log's generation (its low 23 bits) in res, so
	// that a reservation prepared against a log is not made in the next one with
	// the same end offset (only 2^23 rotations between an Append's load of res and
	// its compare-and-swap, a few instructions apart, could fool it). Within one
	// log the end only grows, and a mapping only grows too.
	tagShift = 40
	tagMask  = 1<<23 - 1
	// offMask is the end offset of the reserved part of the log, in res.
	offMask = 1<<tagShift - 1
	// finShift places the count of records copied in fin, above the count of
	// bytes copied; finWaiting, its top bit, is set while stopDirectLocked waits
	// for copies to end.
	finShift   = 40
	finBytes   = 1<<finShift - 1
	finWaiting = 1 << 63
	// epochBytes bounds an epoch's records' bytes so that fin's 23 bits of records
	// (each at least recordAlign*2 bytes: at most 2^22 of them) cannot overflow.
	epochBytes = 1 << 26
)

// epoch is what lock-free appends need of the mapped log they append to; it does
// not change during an epoch.
type epoch struct {
	lf    *logFile
	m     []byte // lf's mapping
	start int64  // the end of lf's records when the epoch began
	limit int64  // the end of the part of m that appends may reserve
	// posBase is added to a record's end offset to make its position.
	posBase uint64
}

// appendDirect appends payload to the mapped log without the mutex, if an epoch is
// running and its room is not used up, and returns its position; ok is false when
// the caller must take the slow path.
func (s *Store) appendDirect(payload []byte) (pos Pos, ok bool) {
	n := uint64(recordSize(len(payload)))
	// The checksums first: the shorter the time from the reservation to the count
	// of its copy, the more often the line holding both stays in this core's cache.
	head, commit := recordWords(payload)
	var r uint64
	for {
		r = s.res.Load()
		if r&frozen != 0 {
			return 0, false
		}
		// ep may be newer than r (an epoch began since): then the swap fails.
		if ep := s.ep.Load(); r&offMask+n > uint64(ep.limit) {
			return 0, false
		}
		if s.res.CompareAndSwap(r, r+n) {
			break
		}
	}
	// The reservation holds the epoch: stopDirectLocked waits for its copy, and
	// a new epoch starts after that, so ep is the epoch r belongs to (the same log,
	// as the tag says, whose limit only grows).
	ep := s.ep.Load()
	off := r & offMask
	putRecord(ep.m[off:off+n], payload, head, commit)
	if s.fin.Add(1<<finShift|n)&finWaiting != 0 {
		// stopDirectLocked waits for this copy, or another.
		select {
		case s.thaw <- struct{}{}:
		default:
		}
	}
	s.askPrefault(ep.lf, int64(off), int64(off+n))
	return Pos(ep.posBase + off + n), true
}

// startDirectLocked begins an epoch of lock-free appends to the current log, which
// canCopyLocked allows. Every position appended so far is written.
func (s *Store) startDirectLocked() {
	lf := s.cur
	s.ep.Store(&epoch{lf: lf, m: lf.m, start: lf.size, limit: min(int64(len(lf.m)), lf.size+epochBytes),
		posBase: uint64(s.appended) - uint64(lf.size)})
	s.fin.Store(0)
	s.tail = lf
	s.directFrom.Store(uint64(s.appended) + 1)
	s.res.Store(uint64(lf.gen&tagMask)<<tagShift | uint64(lf.size))
}

// stopDirectLocked ends the epoch of lock-free appends, if one is running: no
// Append reserves room after it, and it waits for the copies of those that did.
// It then hands the log's end back to the log (tail.size) and the positions
// appended to the mutex's fields, and publishes them for Wait's fast path.
func (s *Store) stopDirectLocked() {
	lf := s.tail
	if lf == nil {
		return
	}
	r := s.res.Or(frozen)
	ep := s.ep.Load()
	end := r & offMask
	// A copy that ends after the Or below sees finWaiting and wakes this loop; one
	// that ended before it is counted in what the loop reads.
	for f := s.fin.Or(finWaiting); f&finBytes != end-uint64(ep.start); f = s.fin.Load() {
		<-s.thaw
	}
	f := s.fin.Load() &^ finWaiting
	lf.size = int64(end)
	s.tail = nil
	s.appended = Pos(ep.posBase + end)
	s.records += f >> finShift
	s.mappedBytes += f & finBytes
	s.logBytes.Add(int64(end) - ep.start)
	s.written = s.appended
	s.storeDoneLocked()
	s.directFrom.Store(0)
}

// canCopyLocked reports whether Append may copy records into the current log
// itself: it is mapped, no flusher is writing to it, no rotation is pending, no
// record waits in buf (they go first), and the store is open and has not failed.
// (A flusher changes cur: it is read only when none runs.)
func (s *Store) canCopyLocked() bool {
	return !s.flushing && s.rotate == nil && len(s.buf) == 0 && s.err == nil && !s.closed &&
		s.cur.m != nil && uint64(len(s.cur.m)) <= offMask
}

// directBytes returns the bytes reserved by the epoch running, 0 when none; an
// estimate when an epoch begins or ends meanwhile.
func (s *Store) directBytes() int64 {
	r := s.res.Load()
	ep := s.ep.Load()
	if r&frozen != 0 || ep == nil {
		return 0
	}
	return max(int64(r&offMask)-ep.start, 0)
}

// storeUint64 and storeUint32 store v into b (aligned) in one write, so that a crash
// leaves either all of its bytes or none in the mapping.
func storeUint64(b []byte, v uint64) {
	(*atomic.Uint64)(unsafe.Pointer(unsafe.SliceData(b[:8]))).Store(v)
}

func storeUint32(b []byte, v uint32) {
	(*atomic.Uint32)(unsafe.Pointer(unsafe.SliceData(b[:4]))).Store(v)
}
