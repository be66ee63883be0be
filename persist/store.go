package persist

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/cpu"
)

// SyncPolicy says when [Store.Wait] considers a record durable. The zero value is
// [Always].
type SyncPolicy int

const (
	// Always: Wait returns once the record is written and fsynced. Writers that wait
	// while an fsync is in flight share the next one (group commit).
	Always SyncPolicy = iota
	// EverySecond: Wait returns once the record is written to the file (write(2), so a
	// process crash loses nothing acknowledged); a background goroutine fsyncs every
	// sync interval (1 s by default), so a power loss loses at most about that much.
	EverySecond
	// Never: Wait returns once the record is written to the file; the operating system
	// decides when it reaches the disk. A process crash loses nothing acknowledged.
	Never
)

// String returns "always", "everysec" or "no", Redis's appendfsync words.
func (p SyncPolicy) String() string {
	switch p {
	case Always:
		return "always"
	case EverySecond:
		return "everysec"
	case Never:
		return "no"
	}
	return fmt.Sprintf("SyncPolicy(%d)", int(p))
}

// Option configures a [Store] at [Open].
type Option func(*config)

type config struct {
	sync     SyncPolicy
	interval time.Duration
	fs       FS
	logger   *slog.Logger
	mapper   mapper // maps the logs of EverySecond and Never; nil for write(2) (mmap.go)
	prealloc prealloc
}

// WithSync sets the sync policy; the default is [Always].
func WithSync(p SyncPolicy) Option { return func(c *config) { c.sync = p } }

// WithSyncInterval sets how often [EverySecond] fsyncs; the default is one second.
// A value ≤ 0 keeps the default.
func WithSyncInterval(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.interval = d
		}
	}
}

// WithFS sets the file system, [OSFS] by default; tests use it to inject faults.
func WithFS(fsys FS) Option { return func(c *config) { c.fs = fsys } }

// WithLogger sets where warnings go (a torn final record dropped at [Open], a stale
// file that could not be removed); the default is [slog.Default].
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// Pos is the position of a record appended to a [Store]: positions increase in the
// order of the records (not by one: in a memory-mapped log, a record's position
// follows from its offset) and are not kept across [Open]. 0 is no record: Wait(0)
// returns at once.
type Pos uint64

var (
	// ErrFailed is matched (with [errors.Is]) by the error of every write, fsync or
	// snapshot step that failed, and by the errors of [Store.Append] after such a
	// failure: the store refuses further records until it is reopened. The error
	// also wraps the operating system's error (e.g. syscall.ENOSPC, syscall.EIO).
	ErrFailed = errors.New("persist: log write failed")
	// ErrLocked is returned by [Open] when another Store (in this process or another)
	// has the directory open.
	ErrLocked = errors.New("persist: directory in use by another store")
	// ErrClosed is returned by the methods of a closed [Store].
	ErrClosed = errors.New("persist: store closed")
	// ErrEmptyRecord is returned by [Store.Append] for an empty payload.
	ErrEmptyRecord = errors.New("persist: empty record")
	// ErrTooLarge is returned by [Store.Append] for a payload over [MaxRecordSize].
	ErrTooLarge = errors.New("persist: record larger than MaxRecordSize")
	// ErrBadPos is returned by [Store.Wait] for a position not yet appended.
	ErrBadPos = errors.New("persist: wait for a position not appended")
	// ErrSnapshotInProgress is returned by [Store.StartSnapshot] while another
	// snapshot has been started and not yet committed or aborted.
	ErrSnapshotInProgress = errors.New("persist: a snapshot is already in progress")
)

// Stats are counters since [Open], for benchmarks and monitoring.
type Stats struct {
	Records uint64 // records appended
	Bytes   uint64 // bytes written to logs, framing included
	Writes  uint64 // write(2) calls to logs (none for a memory-mapped log)
	Fsyncs  uint64 // fsync(2) calls on logs (not counting directories and snapshots)
}

// Store is a directory holding a snapshot and an append-only log of records. See the
// package documentation for the guarantees and the file formats.
//
// A Store is safe for concurrent use. [Store.Append] is cheap (a copy into a buffer
// under a short internal lock, or into the mapped log without one) and is meant to be called under
// the caller's own lock, so that the order of records is the order of the changes
// they describe; [Store.Wait] does the I/O (none for a mapped log) and is meant to be
// called after that lock is released.
type Store struct {
	dir string
	cfg config

	// The words that lock-free appends to a mapped log change (direct.go), on a
	// cache line of their own: with writers on several cores, a line written by
	// every record moves between their caches, and a record then costs one such
	// move, not one per field.
	_   cpu.CacheLinePad
	res atomic.Uint64         // frozen bit, log tag, end of the reserved records
	fin atomic.Uint64         // records and bytes copied in the epoch
	ep  atomic.Pointer[epoch] // the epoch running, or the last one
	_   cpu.CacheLinePad
	// thaw wakes stopDirectLocked when a copy it waits for ends.
	thaw chan struct{}

	// done mirrors the last position durable as the policy says (synced for
	// Always, written otherwise), directFrom is, during an epoch of lock-free
	// appends, the first position it may hand out (every position from it on has
	// been copied by the Append that returned it), 0 otherwise, and failed is set
	// with err, so that Wait and Err need not take mu when there is nothing to
	// wait for and nothing failed. None changes during an epoch.
	done       atomic.Uint64
	directFrom atomic.Uint64
	failed     atomic.Bool

	mu sync.Mutex
	// tail is the log of the epoch of lock-free appends running, nil when none;
	// its size is then not kept up to date (res is).
	tail     *logFile
	appended Pos    // last position appended (before the epoch running, if any)
	records  uint64 // records appended (before the epoch running, if any)
	// mappedBytes counts the bytes Append copied into a mapping itself (a
	// flusher's copies count in bytes).
	mappedBytes uint64
	// logBytes counts the bytes of the records appended since Open or the last
	// StartSnapshot, but for those of the epoch running (LogBytes).
	logBytes atomic.Int64

	buf       []byte        // framed records not yet taken by a flusher
	spare     []byte        // a drained buffer kept for reuse
	oldBuf    []byte        // records for the log before a pending rotation
	rotate    *logFile      // the log to switch to once oldBuf is written; nil when none pending
	written   Pos           // last position written to a log, while tail is nil (writtenLocked)
	synced    Pos           // last position fsynced
	flushing  bool          // a flusher is doing I/O
	flushDone chan struct{} // closed when the flush in flight ends; made by the first waiter
	err       error         // sticky failure; wraps ErrFailed
	closed    bool          // Close has run
	snapping  bool          // a snapshot is in progress
	gen       uint64        // generation of the newest log
	mapped    bool          // logs are memory-mapped (decided at Open: mmap.go)

	syncMu sync.Mutex // held while fsyncing or switching cur
	cur    *logFile   // the log being written; only the flusher (or Open/Close) changes it

	lock io.Closer // the directory's LOCK file

	stop     chan struct{}    // closed by Close to stop the EverySecond syncer and prefaultLoop
	prefault chan prefaultReq // prefaultLoop's requests; nil when logs are not mapped
	wg       sync.WaitGroup

	bytes, writes, fsyncs atomic.Uint64
}

// logFile is one open log.
type logFile struct {
	f           File
	path        string
	gen         uint64
	version     uint16 // its header's format version
	size        int64  // bytes known to be in the file, a record boundary: the end of the records
	needDirSync bool   // its directory entry is not yet known to be durable
	// m maps the whole file (records, then preallocated zeros) when the log is
	// written by copying into a mapping (mmap.go); nil when it is written with write(2).
	// It changes under mapMu (and by the goroutine appending), which prefaultLoop
	// holds while it uses m; faulted is the end of the part asked to be prefaulted.
	m       []byte
	mapMu   sync.Mutex
	faulted int64
}

// Append adds payload (copied) as one record and returns its position, to be passed to
// [Store.Wait]. Records are written in the order of their positions. Append does no
// I/O, except on a memory-mapped log (EverySecond and Never on Linux), where it
// copies the record into the mapping, and so into the file, at once, without a lock
// (concurrent Appends copy at the same time); there, when the preallocated space is
// used up, it preallocates more (fallocate(2)), and a failure (ENOSPC) fails the
// store. Append fails with an error matching [ErrFailed] once a
// write, fsync or preallocation has failed, [ErrClosed] after Close, [ErrEmptyRecord]
// or [ErrTooLarge]. The complexity is O(len(payload)), amortised.
func (s *Store) Append(payload []byte) (Pos, error) {
	switch {
	case len(payload) == 0:
		return 0, ErrEmptyRecord
	case len(payload) > MaxRecordSize:
		return 0, ErrTooLarge
	}
	if pos, ok := s.appendDirect(payload); ok {
		return pos, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usableLocked(); err != nil {
		return 0, err
	}
	// The epoch running, if any, has no room left for the record: end it, copy the
	// record with the mutex held (growing the mapping if need be) and start
	// another.
	s.stopDirectLocked()
	n := recordSize(len(payload))
	if s.canCopyLocked() {
		lf := s.cur
		end := lf.size + n
		if err := s.reserve(lf, end); err != nil {
			s.failLocked(err)
			return 0, err
		}
		head, commit := recordWords(payload)
		putRecord(lf.m[lf.size:end], payload, head, commit)
		s.askPrefault(lf, lf.size, end)
		lf.size = end
		s.mappedBytes += uint64(n)
		s.appended++
		s.written = s.appended
		s.storeDoneLocked()
		pos := s.appended
		s.startDirectLocked()
		s.records++
		s.logBytes.Add(n)
		return pos, nil
	}
	s.buf = appendRecord(s.buf, payload)
	s.appended++
	s.records++
	s.logBytes.Add(n)
	return s.appended, nil
}

// LogBytes returns the size (framing included) of the records appended since Open
// or since the last [Store.StartSnapshot], whichever is later: how much the log
// has grown since the snapshot it follows, for deciding when to take another. It
// takes no lock, and is an estimate while records are being appended.
func (s *Store) LogBytes() int64 { return s.logBytes.Load() + s.directBytes() }

// writtenLocked returns the last position known to be written to a log: during an
// epoch of lock-free appends, the last one before it.
func (s *Store) writtenLocked() Pos {
	if s.tail != nil {
		return s.appended
	}
	return s.written
}

// Wait returns nil once the record at pos is durable as the sync policy says: written
// and fsynced for [Always], written to the file for [EverySecond] and [Never]. The
// first waiter that finds no write in flight writes (and for Always fsyncs) everything
// appended so far, so concurrent waiters share one write and one fsync. If that I/O
// fails, Wait returns the error (matching [ErrFailed] and wrapping the system's
// error) for every position it did not make durable, and the store stays failed.
// A position not yet appended is [ErrBadPos] (during lock-free appends to a mapped
// log, Wait does not look and returns nil).
func (s *Store) Wait(pos Pos) error {
	if uint64(pos) <= s.done.Load() {
		return nil
	}
	if d := s.directFrom.Load(); d != 0 && uint64(pos) >= d {
		// Copied into the mapped log by its Append, which has returned (pos is
		// what it returned), or else not appended yet (ErrBadPos is for the
		// caller's mistakes, not reported on this path). Once directFrom is 0
		// again, done covers every position it covered.
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if pos > s.appended {
		return ErrBadPos
	}
	for {
		if s.durableLocked(pos) {
			return nil
		}
		if s.err != nil {
			return s.err
		}
		if s.flushing {
			s.awaitFlushLocked()
			continue
		}
		s.flushLocked(s.cfg.sync == Always)
	}
}

// Err returns the error that made the store refuse writes, or nil.
func (s *Store) Err() error {
	if !s.failed.Load() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Stats returns the counters since Open.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	records, mapped := s.records, s.mappedBytes
	if s.tail != nil {
		f := s.fin.Load() &^ finWaiting
		records += f >> finShift
		mapped += f & finBytes
	}
	s.mu.Unlock()
	return Stats{Records: records, Bytes: s.bytes.Load() + mapped, Writes: s.writes.Load(), Fsyncs: s.fsyncs.Load()}
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// Close writes and fsyncs every record appended (whatever the policy), stops the
// background syncer and closes the log. It returns the store's failure, if any.
// Closing twice returns nil the second time.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.stopDirectLocked()
	// Wait for a flusher in flight even after a failure: it is using the log.
	for s.flushing || (s.err == nil && (s.synced < s.appended || s.rotate != nil)) {
		if s.flushing {
			s.awaitFlushLocked()
			continue
		}
		s.flushLocked(true)
	}
	s.closed = true
	err := s.err
	s.mu.Unlock()
	if s.stop != nil {
		close(s.stop)
		s.wg.Wait()
	}
	s.syncMu.Lock()
	if cerr := s.closeLog(s.cur); err == nil && cerr != nil {
		err = fmt.Errorf("persist: closing %s: %w", s.cur.path, cerr)
	}
	s.syncMu.Unlock()
	s.lock.Close()
	return err
}

// failLocked records err as the store's failure, unless one is recorded already.
func (s *Store) failLocked(err error) {
	if s.err == nil {
		s.stopDirectLocked()
		s.err = err
		s.failed.Store(true)
	}
}

// storeDoneLocked publishes the durable position for Wait's fast path.
func (s *Store) storeDoneLocked() {
	if s.cfg.sync == Always {
		s.done.Store(uint64(s.synced))
	} else {
		s.done.Store(uint64(s.written))
	}
}

func (s *Store) usableLocked() error {
	if s.closed {
		return ErrClosed
	}
	return s.err
}

func (s *Store) durableLocked(pos Pos) bool {
	if s.cfg.sync == Always {
		return pos <= s.synced
	}
	return pos <= s.writtenLocked()
}

// flushLocked takes every pending record and writes it (and fsyncs if doSync), with
// s.mu released during the I/O. Called with s.mu held, no flusher running and no
// failure recorded.
func (s *Store) flushLocked(doSync bool) {
	s.stopDirectLocked()
	s.flushing = true
	oldBuf, rot, buf, target := s.oldBuf, s.rotate, s.buf, s.appended
	s.oldBuf, s.rotate, s.buf, s.spare = nil, nil, s.spare[:0], nil
	s.mu.Unlock()

	err := s.writeOut(oldBuf, rot, buf, doSync)

	s.mu.Lock()
	if cap(buf) <= 1<<20 {
		s.spare = buf[:0]
	}
	if err == nil {
		s.written = target
		if doSync {
			s.synced = target
		}
		s.storeDoneLocked()
	} else {
		s.failLocked(err)
	}
	s.flushing = false
	if s.flushDone != nil {
		close(s.flushDone)
		s.flushDone = nil
	}
}

// awaitFlushLocked waits, with s.mu released, for the flush in flight to end.
func (s *Store) awaitFlushLocked() {
	if s.flushDone == nil {
		s.flushDone = make(chan struct{})
	}
	done := s.flushDone
	s.mu.Unlock()
	<-done
	s.mu.Lock()
}

// writeOut does a flusher's I/O: the bytes of a pending rotation to the old log, which
// is then fsynced and closed, and the rest to the current log.
func (s *Store) writeOut(oldBuf []byte, rot *logFile, buf []byte, doSync bool) error {
	if rot != nil {
		if err := s.write(s.cur, oldBuf); err != nil {
			return err
		}
		if err := s.syncCur(); err != nil {
			return err
		}
		s.syncMu.Lock()
		old := s.cur
		s.cur = rot
		s.syncMu.Unlock()
		if err := s.closeLog(old); err != nil {
			return failed("closing", old.path, err)
		}
	}
	if err := s.write(s.cur, buf); err != nil {
		return err
	}
	if doSync {
		return s.syncCur()
	}
	return nil
}

// write appends b, records framed by appendRecord, to lf: a copy into its mapping
// (one record at a time: putRecords), or a write(2). On a failed or
// short write it truncates the file back to its last record boundary (best effort:
// if that fails too, reopening drops the torn tail) and returns an error matching
// ErrFailed.
func (s *Store) write(lf *logFile, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if lf.m != nil {
		if err := s.reserve(lf, lf.size+int64(len(b))); err != nil {
			return err
		}
		s.askPrefault(lf, lf.size, lf.size+int64(len(b)))
		putRecords(lf.m[lf.size:], b)
		lf.size += int64(len(b))
		s.bytes.Add(uint64(len(b)))
		return nil
	}
	s.writes.Add(1)
	n, err := lf.f.Write(b)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	if err != nil {
		if n > 0 {
			if terr := lf.f.Truncate(lf.size); terr != nil {
				s.cfg.logger.Warn("persist: could not truncate a partial write", "file", lf.path, "err", terr)
			}
		}
		return failed("writing", lf.path, err)
	}
	lf.size += int64(n)
	s.bytes.Add(uint64(n))
	return nil
}

// syncCur fsyncs the current log, and its directory when the log is new.
func (s *Store) syncCur() error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	lf := s.cur
	s.fsyncs.Add(1)
	if err := lf.f.Sync(); err != nil {
		return failed("fsyncing", lf.path, err)
	}
	if lf.needDirSync {
		if err := s.cfg.fs.SyncDir(s.dir); err != nil {
			return failed("fsyncing directory of", lf.path, err)
		}
		lf.needDirSync = false
	}
	return nil
}

// syncLoop is EverySecond's background fsync.
func (s *Store) syncLoop() {
	defer s.wg.Done()
	t := time.NewTicker(s.cfg.interval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		s.mu.Lock()
		target := s.writtenLocked()
		need := target > s.synced && s.err == nil
		s.mu.Unlock()
		if !need {
			continue
		}
		// Every position up to target is in the current log or in an older one,
		// which was fsynced when the log was rotated.
		err := s.syncCur()
		s.mu.Lock()
		if err != nil {
			s.failLocked(err)
		} else if target > s.synced {
			s.synced = target
			s.storeDoneLocked()
		}
		s.mu.Unlock()
	}
}

// failed wraps a system error as a store failure.
func failed(op, path string, err error) error {
	return fmt.Errorf("%w: %s %s: %w", ErrFailed, op, path, err)
}

// createFile creates path exclusively and writes data to it, without fsync.
func createFile(fsys FS, path string, data []byte) (File, error) {
	f, err := fsys.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
