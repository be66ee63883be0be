package persist

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"iter"
	"math"
	"os"
	"strconv"
)

// KeyType is the type of a key's value in a snapshot.
type KeyType byte

const (
	// TypeList is a Redis list: a sequence of strings.
	TypeList KeyType = 1
	// TypeZSet is a Redis sorted set: (member, score) entries.
	TypeZSet KeyType = 2
	// TypeString is a Redis string: one byte string.
	TypeString KeyType = 3
	// TypeSet is a Redis set: distinct member strings.
	TypeSet KeyType = 4
	// TypeHash is a Redis hash: (field, value) string pairs.
	TypeHash KeyType = 5
)

// Frame kinds of a snapshot (the first byte of each frame's payload).
const (
	frameKey  = 'K'
	frameElem = 'E'
	frameEnd  = 'Z'
)

// chunkSize is the size above which a key's elements are cut into another frame.
const chunkSize = 32 << 10

// maxElemSize bounds a key name or an element so that its frame stays within
// MaxRecordSize.
const maxElemSize = MaxRecordSize - chunkSize - 64

// SnapshotWriter writes a snapshot, one key at a time, from any goroutine; its methods
// are not safe for concurrent use with each other. Get one from [Store.StartSnapshot],
// write every key with [SnapshotWriter.WriteList] and [SnapshotWriter.WriteZSet], then
// [SnapshotWriter.Commit] (or [SnapshotWriter.Abort]).
type SnapshotWriter struct {
	s       *Store
	gen     uint64
	tmp     string
	f       File
	w       *bufio.Writer
	crc     uint32 // CRC-32C of every frame payload so far
	keys    uint64
	elems   uint64
	frame   []byte
	rec     []byte
	err     error
	settled bool // committed or aborted
}

// StartSnapshot begins a snapshot of generation g+1, g being the newest log's, and
// rotates the log: records appended after StartSnapshot returns go to the new log
// g+1, those before it to the older logs, which the snapshot replaces. Call it under
// the lock that orders [Store.Append] calls, so that the snapshot describes the state
// after exactly the records appended before it; then write the keys (as of that
// point) from any goroutine, without that lock. It creates two files (without fsync)
// and fails with [ErrSnapshotInProgress] while another snapshot is not settled.
func (s *Store) StartSnapshot() (*SnapshotWriter, error) {
	s.mu.Lock()
	if err := s.usableLocked(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	if s.snapping {
		s.mu.Unlock()
		return nil, ErrSnapshotInProgress
	}
	s.snapping = true
	gen := s.gen + 1
	s.mu.Unlock()

	lf, err := s.createLog(gen)
	if err == nil && s.mapped {
		if err = s.mapLog(lf, fileHeaderSize); err != nil {
			s.closeLog(lf)
		}
	}
	if err != nil {
		s.endSnapshot()
		return nil, s.fail(err)
	}
	tmp := s.path(snapName(gen) + tmpSuffix)
	f, err := s.cfg.fs.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		s.closeLog(lf)
		s.endSnapshot()
		return nil, s.fail(fmt.Errorf("%w: creating %s: %w", ErrFailed, tmp, err))
	}
	w := &SnapshotWriter{s: s, gen: gen, tmp: tmp, f: f, w: bufio.NewWriterSize(f, 256<<10)}
	if _, err := w.w.Write(fileHeader(snapMagic, gen)); err != nil {
		w.err = err
	}

	s.mu.Lock()
	s.stopDirectLocked()
	s.oldBuf, s.buf = s.buf, s.spare[:0]
	s.spare = nil
	s.rotate = lf
	s.gen = gen
	s.logBytes.Store(0)
	s.mu.Unlock()
	return w, nil
}

// fail records err as the store's failure (if it is the first) and returns it.
func (s *Store) fail(err error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failLocked(err)
	return err
}

func (s *Store) endSnapshot() {
	s.mu.Lock()
	s.snapping = false
	s.mu.Unlock()
}

// finishRotation makes sure the rotation started by StartSnapshot has been carried
// out: the records before it written to the old log, fsynced, and the new log current.
func (s *Store) finishRotation() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.rotate != nil || s.flushing {
		if err := s.usableLocked(); err != nil {
			return err
		}
		if s.flushing {
			s.awaitFlushLocked()
			continue
		}
		s.flushLocked(s.cfg.sync == Always)
	}
	return s.usableLocked()
}

// WriteList writes a list key: its name, its expiry time in Unix milliseconds (0 for
// none) and its items in order. A write error, or a name or item over about
// [MaxRecordSize], fails the snapshot (this call and Commit return the error). The
// complexity is O(total bytes).
func (w *SnapshotWriter) WriteList(name string, expireAt int64, items iter.Seq[string]) error {
	return w.writeItems(TypeList, name, expireAt, items)
}

// writeItems writes a key of type t whose elements are strings (a list's items, a
// set's members).
func (w *SnapshotWriter) writeItems(t KeyType, name string, expireAt int64, items iter.Seq[string]) error {
	if w.settled {
		return errSettled
	}
	w.startKey(t, name, expireAt)
	for it := range items {
		if !w.fits(it) {
			break
		}
		w.frame = binary.AppendUvarint(w.frame, uint64(len(it)))
		w.frame = append(w.frame, it...)
		w.elem()
	}
	return w.endKey()
}

// WriteString writes a string key: its name, its expiry time in Unix milliseconds (0
// for none) and its bytes. Errors are as for [SnapshotWriter.WriteList]. The
// complexity is O(len(value)).
func (w *SnapshotWriter) WriteString(name string, expireAt int64, value string) error {
	if w.settled {
		return errSettled
	}
	w.startKey(TypeString, name, expireAt)
	if w.fits(value) {
		w.frame = binary.AppendUvarint(w.frame, uint64(len(value)))
		w.frame = append(w.frame, value...)
		w.elem()
	}
	return w.endKey()
}

// WriteSet writes a set key: its name, its expiry time in Unix milliseconds (0 for
// none) and its members. Errors are as for [SnapshotWriter.WriteList]. The
// complexity is O(total bytes).
func (w *SnapshotWriter) WriteSet(name string, expireAt int64, members iter.Seq[string]) error {
	return w.writeItems(TypeSet, name, expireAt, members)
}

// WriteHash writes a hash key: its name, its expiry time in Unix milliseconds (0 for
// none) and its (field, value) pairs. Errors are as for [SnapshotWriter.WriteList].
// The complexity is O(total bytes).
func (w *SnapshotWriter) WriteHash(name string, expireAt int64, fields iter.Seq2[string, string]) error {
	if w.settled {
		return errSettled
	}
	w.startKey(TypeHash, name, expireAt)
	for f, v := range fields {
		if !w.fits(f) || !w.fits(v) {
			break
		}
		w.frame = binary.AppendUvarint(w.frame, uint64(len(f)))
		w.frame = append(w.frame, f...)
		w.frame = binary.AppendUvarint(w.frame, uint64(len(v)))
		w.frame = append(w.frame, v...)
		w.elem()
	}
	return w.endKey()
}

// WriteZSet writes a sorted-set key: its name, its expiry time in Unix milliseconds (0
// for none) and its entries. Integral scores of magnitude up to 2^53 take a varint,
// others 8 bytes. Errors are as for [SnapshotWriter.WriteList]. The complexity is
// O(total bytes).
func (w *SnapshotWriter) WriteZSet(name string, expireAt int64, entries iter.Seq2[string, float64]) error {
	if w.settled {
		return errSettled
	}
	w.startKey(TypeZSet, name, expireAt)
	for m, sc := range entries {
		if !w.fits(m) {
			break
		}
		if i := int64(sc); float64(i) == sc && i >= -1<<53 && i <= 1<<53 && !(sc == 0 && math.Signbit(sc)) {
			w.frame = binary.AppendUvarint(w.frame, uint64(len(m))<<1|1)
			w.frame = append(w.frame, m...)
			w.frame = binary.AppendVarint(w.frame, i)
		} else {
			w.frame = binary.AppendUvarint(w.frame, uint64(len(m))<<1)
			w.frame = append(w.frame, m...)
			w.frame = binary.LittleEndian.AppendUint64(w.frame, math.Float64bits(sc))
		}
		w.elem()
	}
	return w.endKey()
}

// fits checks that a name or element can be framed, failing the snapshot if not.
func (w *SnapshotWriter) fits(b string) bool {
	if len(b) > maxElemSize && w.err == nil {
		w.err = ErrTooLarge
	}
	return w.err == nil
}

func (w *SnapshotWriter) startKey(t KeyType, name string, expireAt int64) {
	w.fits(name)
	w.frame = append(w.frame[:0], frameKey, byte(t))
	w.frame = binary.AppendVarint(w.frame, expireAt)
	w.frame = binary.AppendUvarint(w.frame, uint64(len(name)))
	w.frame = append(w.frame, name...)
	w.emit()
	w.frame = append(w.frame, frameElem)
	w.keys++
}

// elem counts one element appended to the current element frame, emitting the frame
// once it is large enough.
func (w *SnapshotWriter) elem() {
	w.elems++
	if len(w.frame) >= chunkSize {
		w.emit()
		w.frame = append(w.frame, frameElem)
	}
}

func (w *SnapshotWriter) endKey() error {
	if len(w.frame) > 1 {
		w.emit()
	}
	w.frame = w.frame[:0]
	if w.err != nil {
		return w.writeErr()
	}
	return nil
}

// emit writes w.frame as one frame and empties it.
func (w *SnapshotWriter) emit() {
	if w.err == nil && !w.settled {
		w.crc = crc32.Update(w.crc, castagnoli, w.frame)
		w.rec = appendFrame(w.rec[:0], w.frame)
		_, w.err = w.w.Write(w.rec)
	}
	w.frame = w.frame[:0]
}

// errSettled is returned by the methods of a committed or aborted SnapshotWriter.
var errSettled = errors.New("persist: snapshot already committed or aborted")

// writeErr returns the writer's first error: ErrTooLarge, or a write error as a
// failure.
func (w *SnapshotWriter) writeErr() error {
	if errors.Is(w.err, ErrTooLarge) {
		return fmt.Errorf("persist: snapshot %s: %w", w.tmp, w.err)
	}
	return fmt.Errorf("%w: writing %s: %w", ErrFailed, w.tmp, w.err)
}

// Commit finishes the snapshot and makes it the store's base: it writes the end frame,
// fsyncs the file, renames it into place and fsyncs the directory (the commit point),
// then removes the logs and snapshots it replaces. On an error nothing is replaced:
// the store goes on with the older snapshot and every log since. An I/O error
// (matching [ErrFailed]) fails the store, as a log write error does; [ErrTooLarge]
// (an element over the limit) only abandons this snapshot.
func (w *SnapshotWriter) Commit() error {
	if w.settled {
		return errSettled
	}
	s := w.s
	defer s.endSnapshot()
	err := w.commit()
	w.settled = true
	if err != nil {
		w.f.Close()
		s.cfg.fs.Remove(w.tmp)
		if errors.Is(err, ErrFailed) {
			return s.fail(err)
		}
		return err
	}
	s.removeOlder(w.gen)
	return nil
}

func (w *SnapshotWriter) commit() error {
	s := w.s
	if err := s.finishRotation(); err != nil {
		return err
	}
	if w.err != nil {
		return w.writeErr()
	}
	w.frame = append(w.frame[:0], frameEnd)
	w.frame = binary.AppendUvarint(w.frame, w.keys)
	w.frame = binary.AppendUvarint(w.frame, w.elems)
	w.frame = binary.LittleEndian.AppendUint32(w.frame, w.crc)
	w.emit()
	steps := []struct {
		op  string
		run func() error
	}{
		{"writing", func() error {
			if w.err != nil {
				return w.err
			}
			return w.w.Flush()
		}},
		{"fsyncing", w.f.Sync},
		{"closing", w.f.Close},
		{"renaming", func() error { return s.cfg.fs.Rename(w.tmp, s.path(snapName(w.gen))) }},
		{"fsyncing the directory of", func() error { return s.cfg.fs.SyncDir(s.dir) }},
	}
	for _, st := range steps {
		if err := st.run(); err != nil {
			return fmt.Errorf("%w: %s %s: %w", ErrFailed, st.op, w.tmp, err)
		}
	}
	return nil
}

// removeOlder removes the logs and snapshots of generations below gen.
func (s *Store) removeOlder(gen uint64) {
	names, err := s.cfg.fs.ReadDir(s.dir)
	if err != nil {
		s.cfg.logger.Warn("persist: could not list the directory", "dir", s.dir, "err", err)
		return
	}
	var stale []string
	for _, n := range names {
		if g, ok := parseGen(n, logPrefix, logSuffix); ok && g < gen {
			stale = append(stale, n)
		} else if g, ok := parseGen(n, snapPrefix, snapSuffix); ok && g < gen {
			stale = append(stale, n)
		}
	}
	s.removeStale(stale)
}

// Abort abandons the snapshot and removes its file; the store goes on with the older
// snapshot and every log since (the rotation stays). Abort after Commit or Abort does
// nothing.
func (w *SnapshotWriter) Abort() error {
	if w.settled {
		return nil
	}
	w.settled = true
	defer w.s.endSnapshot()
	w.f.Close()
	if err := w.s.cfg.fs.Remove(w.tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		w.s.cfg.logger.Warn("persist: could not remove an aborted snapshot", "file", w.tmp, "err", err)
	}
	if err := w.s.finishRotation(); err != nil && !errors.Is(err, ErrClosed) {
		return err
	}
	return nil
}

// Key is one key of a snapshot, handed to [Replayer.LoadKey].
type Key struct {
	Name     string  // the key
	Type     KeyType // which iterator yields its value
	ExpireAt int64   // expiry time in Unix milliseconds; 0 means none
	sr       *snapReader
}

// ListItems iterates over the items of a [TypeList] key, in order; for another type it
// yields nothing. It can be used once, during LoadKey; a damaged file stops it early
// and makes [Open] fail.
func (k *Key) ListItems() iter.Seq[string] {
	if k.Type != TypeList {
		return func(func(string) bool) {}
	}
	return k.items()
}

// String returns the value of a [TypeString] key, and false for another type or a
// damaged file (which makes [Open] fail). It can be used once, during LoadKey.
func (k *Key) String() (string, bool) {
	if k.Type != TypeString {
		return "", false
	}
	v, n := "", 0
	for it := range k.items() {
		v, n = it, n+1
	}
	if n != 1 && k.sr.err == nil {
		k.sr.bad("a string key holds " + strconv.Itoa(n) + " values")
	}
	return v, n == 1 && k.sr.err == nil
}

// SetMembers iterates over the members of a [TypeSet] key, in the order written; for
// another type it yields nothing. It can be used once, during LoadKey; a damaged file
// stops it early and makes [Open] fail.
func (k *Key) SetMembers() iter.Seq[string] {
	if k.Type != TypeSet {
		return func(func(string) bool) {}
	}
	return k.items()
}

// HashFields iterates over the (field, value) pairs of a [TypeHash] key, in the order
// written; for another type it yields nothing. It can be used once, during LoadKey; a
// damaged file stops it early and makes [Open] fail.
func (k *Key) HashFields() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		if k.Type != TypeHash {
			return
		}
		for b := range k.sr.elements() {
			n, ok := k.sr.uvarint(&b)
			if !ok || n > uint64(len(b)) {
				k.sr.bad("hash field runs past its frame")
				return
			}
			f := string(b[:n])
			b = b[n:]
			n, ok = k.sr.uvarint(&b)
			if !ok || n > uint64(len(b)) {
				k.sr.bad("hash value runs past its frame")
				return
			}
			k.sr.rest = b[n:]
			if !yield(f, string(b[:n])) {
				return
			}
		}
	}
}

// items iterates over a list's items, a set's members or a string's one value.
func (k *Key) items() iter.Seq[string] {
	return func(yield func(string) bool) {
		for b := range k.sr.elements() {
			n, ok := k.sr.uvarint(&b)
			if !ok || n > uint64(len(b)) {
				k.sr.bad("list item runs past its frame")
				return
			}
			k.sr.rest = b[n:]
			if !yield(string(b[:n])) {
				return
			}
		}
	}
}

// ZSetEntries iterates over the entries of a [TypeZSet] key, in the order written; for
// another type it yields nothing. It can be used once, during LoadKey; a damaged file
// stops it early and makes [Open] fail.
func (k *Key) ZSetEntries() iter.Seq2[string, float64] {
	return func(yield func(string, float64) bool) {
		if k.Type != TypeZSet {
			return
		}
		for b := range k.sr.elements() {
			h, ok := k.sr.uvarint(&b)
			n := h >> 1
			if !ok || n > uint64(len(b)) {
				k.sr.bad("sorted-set member runs past its frame")
				return
			}
			m := string(b[:n])
			b = b[n:]
			var sc float64
			if h&1 == 1 {
				i, w := binary.Varint(b)
				if w <= 0 {
					k.sr.bad("bad integer score")
					return
				}
				sc, b = float64(i), b[w:]
			} else {
				if len(b) < 8 {
					k.sr.bad("score runs past its frame")
					return
				}
				sc, b = math.Float64frombits(binary.LittleEndian.Uint64(b)), b[8:]
			}
			k.sr.rest = b
			if !yield(m, sc) {
				return
			}
		}
	}
}

// snapReader reads a snapshot's frames.
type snapReader struct {
	rr      *recordReader
	crc     uint32
	keys    uint64
	elems   uint64
	peek    []byte // a frame read but not consumed; nil when none
	peekOff int64  // its offset
	prevCRC uint32 // crc before the last frame read was added
	rest    []byte // unread bytes of the current element frame
	err     error
}

// frame returns the next frame and its offset, or nil at the end of the file or after
// an error.
func (sr *snapReader) frame() ([]byte, int64) {
	if sr.peek != nil {
		p := sr.peek
		sr.peek = nil
		return p, sr.peekOff
	}
	if sr.err != nil {
		return nil, sr.rr.off
	}
	p, off, err := sr.rr.next()
	switch {
	case err == nil:
		sr.prevCRC = sr.crc
		sr.crc = crc32.Update(sr.crc, castagnoli, p)
		return p, off
	case errors.Is(err, io.EOF), errors.Is(err, errTorn):
		sr.err = &CorruptError{Path: sr.rr.path, Offset: off, Reason: "snapshot ends before its end frame"}
	default:
		sr.err = err
	}
	return nil, off
}

// elements yields the encoded elements left in the current key's element frames: the
// yielded slice starts at the next element, and the consumer sets sr.rest to what it
// leaves. The frames following the key's are left for the next call of frame.
func (sr *snapReader) elements() iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for {
			for len(sr.rest) > 0 {
				sr.elems++
				if !yield(sr.rest) {
					return
				}
			}
			p, off := sr.frame()
			if p == nil {
				return
			}
			if p[0] != frameElem {
				sr.peek, sr.peekOff = p, off
				return
			}
			sr.rest = p[1:]
		}
	}
}

func (sr *snapReader) uvarint(b *[]byte) (uint64, bool) {
	v, n := binary.Uvarint(*b)
	if n <= 0 {
		return 0, false
	}
	*b = (*b)[n:]
	return v, true
}

func (sr *snapReader) bad(reason string) {
	if sr.err == nil {
		sr.err = &CorruptError{Path: sr.rr.path, Offset: sr.rr.off, Reason: reason}
	}
	sr.rest = nil
}

// loadSnapshot reads the snapshot of generation gen into r.
func (s *Store) loadSnapshot(gen uint64, r Replayer) error {
	p := s.path(snapName(gen))
	f, err := s.cfg.fs.OpenFile(p, os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("persist: opening %s: %w", p, err)
	}
	defer f.Close()
	size, err := f.Seek(0, io.SeekEnd)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		return fmt.Errorf("persist: reading %s: %w", p, err)
	}
	if _, err := readFileHeader(f, p, snapMagic, gen); err != nil {
		return err
	}
	sr := &snapReader{rr: newRecordReader(p, f, fileHeaderSize, size)}
	for {
		fr, off := sr.frame()
		if fr == nil {
			return sr.err
		}
		switch fr[0] {
		case frameKey:
			k, ok := parseKeyFrame(fr[1:])
			if !ok {
				return &CorruptError{Path: p, Offset: off, Reason: "bad key frame"}
			}
			k.sr = sr
			sr.keys++
			if err := r.LoadKey(k); err != nil {
				if sr.err != nil {
					return sr.err // the damage LoadKey met, not what it made of it
				}
				return fmt.Errorf("persist: loading key %q from %s: %w", k.Name, p, err)
			}
			switch k.Type { // skip what LoadKey did not read
			case TypeList, TypeString, TypeSet:
				for range k.items() {
				}
			case TypeHash:
				for range k.HashFields() {
				}
			case TypeZSet:
				for range k.ZSetEntries() {
				}
			}
			if sr.err != nil {
				return sr.err
			}
		case frameEnd:
			b := fr[1:]
			keys, ok1 := sr.uvarint(&b)
			elems, ok2 := sr.uvarint(&b)
			switch {
			case !ok1 || !ok2 || len(b) != 4:
				return &CorruptError{Path: p, Offset: off, Reason: "bad end frame"}
			case keys != sr.keys || elems != sr.elems:
				return &CorruptError{Path: p, Offset: off, Reason: fmt.Sprintf(
					"end frame counts %d keys and %d elements, the file holds %d and %d", keys, elems, sr.keys, sr.elems)}
			case binary.LittleEndian.Uint32(b) != sr.prevCRC:
				return &CorruptError{Path: p, Offset: off, Reason: "snapshot checksum mismatch"}
			case sr.rr.off != size:
				return &CorruptError{Path: p, Offset: sr.rr.off, Reason: "data after the end frame"}
			}
			return nil
		default:
			return &CorruptError{Path: p, Offset: off, Reason: fmt.Sprintf("unexpected frame kind %q", fr[0])}
		}
	}
}

func parseKeyFrame(b []byte) (*Key, bool) {
	if len(b) < 1 {
		return nil, false
	}
	k := &Key{Type: KeyType(b[0])}
	if k.Type < TypeList || k.Type > TypeHash {
		return nil, false
	}
	b = b[1:]
	exp, n := binary.Varint(b)
	if n <= 0 {
		return nil, false
	}
	b = b[n:]
	l, n := binary.Uvarint(b)
	if n <= 0 || l != uint64(len(b)-n) {
		return nil, false
	}
	k.ExpireAt, k.Name = exp, string(b[n:])
	return k, true
}
