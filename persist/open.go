package persist

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Replayer receives the stored state at [Open]: first every key of the snapshot, then
// every record of the log after it, in order. An error it returns stops Open, which
// returns it.
type Replayer interface {
	// LoadKey is called once per key of the snapshot. The key's value is read through
	// [Key.ListItems] or [Key.ZSetEntries] during the call (what is not read is
	// skipped); the Key is not valid after the call returns.
	LoadKey(k *Key) error
	// Replay is called once per log record, with the payload given to
	// [Store.Append]; the slice is valid only during the call.
	Replay(record []byte) error
}

// File names: generations are 20-digit decimal numbers, so names sort by generation.
const (
	logPrefix  = "log-"
	logSuffix  = ".zlog"
	snapPrefix = "snapshot-"
	snapSuffix = ".zsnap"
	tmpSuffix  = ".tmp"
	lockName   = "LOCK"
)

func logName(gen uint64) string  { return fmt.Sprintf("%s%020d%s", logPrefix, gen, logSuffix) }
func snapName(gen uint64) string { return fmt.Sprintf("%s%020d%s", snapPrefix, gen, snapSuffix) }

// parseGen returns the generation of a file called prefix+digits+suffix.
func parseGen(name, prefix, suffix string) (uint64, bool) {
	digits, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	if digits, ok = strings.CutSuffix(digits, suffix); !ok || len(digits) != 20 {
		return 0, false
	}
	g, err := strconv.ParseUint(digits, 10, 64)
	return g, err == nil && g > 0
}

// Open opens (creating it if needed) the store in dir and hands its state to r: the
// newest snapshot's keys, then the records of the log chain after it. A torn final
// record is dropped and the log truncated to the last whole record, with a warning; any
// other damage is a [*CorruptError] naming the file and offset, and nothing is opened.
// Files left over by an interrupted snapshot are removed once the state is loaded.
// The cost is one read of the snapshot and of the logs.
func Open(dir string, r Replayer, opts ...Option) (*Store, error) {
	cfg := config{sync: Always, interval: time.Second, fs: OSFS{}, logger: slog.Default(), mapper: defaultMapper, prealloc: defaultPrealloc}
	for _, o := range opts {
		o(&cfg)
	}
	s := &Store{dir: dir, cfg: cfg}
	if err := cfg.fs.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("persist: creating %s: %w", dir, err)
	}
	lock, err := cfg.fs.Lock(s.path(lockName))
	if err != nil {
		return nil, err
	}
	s.lock = lock
	st, err := s.open(r)
	if err != nil {
		lock.Close()
		return nil, err
	}
	return st, nil
}

// open is Open once the directory is locked.
func (s *Store) open(r Replayer) (*Store, error) {
	cfg, dir := s.cfg, s.dir
	names, err := cfg.fs.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("persist: listing %s: %w", dir, err)
	}
	var logs, snaps []uint64
	var stale []string // files to remove once the state is loaded
	for _, n := range names {
		if g, ok := parseGen(n, logPrefix, logSuffix); ok {
			logs = append(logs, g)
		} else if g, ok := parseGen(n, snapPrefix, snapSuffix); ok {
			snaps = append(snaps, g)
		} else if _, ok := parseGen(n, snapPrefix, snapSuffix+tmpSuffix); ok {
			stale = append(stale, n)
		}
	}
	slices.Sort(logs)
	slices.Sort(snaps)

	// The newest snapshot is the base; with none, the chain starts at log 1.
	base := uint64(1)
	if len(snaps) > 0 {
		base = snaps[len(snaps)-1]
		for _, g := range snaps[:len(snaps)-1] {
			stale = append(stale, snapName(g))
		}
	}
	var chain []uint64
	for _, g := range logs {
		if g < base {
			stale = append(stale, logName(g))
		} else {
			chain = append(chain, g)
		}
	}
	for i, g := range chain {
		if g != base+uint64(i) {
			return nil, &CorruptError{Path: s.path(logName(base + uint64(i))), Reason: "log file missing from the chain"}
		}
	}
	if len(chain) == 0 && len(snaps) > 0 {
		return nil, &CorruptError{Path: s.path(logName(base)), Reason: "log file missing for the snapshot"}
	}

	if len(snaps) > 0 {
		if err := s.loadSnapshot(base, r); err != nil {
			return nil, err
		}
	}
	fileSize := int64(fileHeaderSize)
	if len(chain) > 0 {
		if s.cur, fileSize, err = s.replayChain(chain, r); err != nil {
			return nil, err
		}
	}
	if len(chain) == 0 || s.cur.version < alignedVersion {
		// A new store, or a last log of an older format, which this version does
		// not append to: records go to a new log, the next of the chain.
		gen := base
		if s.cur != nil {
			gen = s.cur.gen + 1
			s.cur.f.Close()
			s.cur = nil
		}
		lf, err := s.createLog(gen)
		if err != nil {
			return nil, err
		}
		if err := lf.f.Sync(); err != nil {
			lf.f.Close()
			return nil, fmt.Errorf("persist: fsyncing %s: %w", lf.path, err)
		}
		if err := cfg.fs.SyncDir(dir); err != nil {
			lf.f.Close()
			return nil, fmt.Errorf("persist: fsyncing %s: %w", dir, err)
		}
		lf.needDirSync = false
		s.cur, fileSize = lf, fileHeaderSize
	}
	if err := s.prepareLog(fileSize); err != nil {
		s.cur.f.Close()
		return nil, err
	}
	s.gen = s.cur.gen
	s.removeStale(stale)
	s.res.Store(frozen) // the first Append starts an epoch
	s.thaw = make(chan struct{}, 1)
	if cfg.sync == EverySecond || s.mapped {
		s.stop = make(chan struct{})
	}
	if cfg.sync == EverySecond {
		s.wg.Add(1)
		go s.syncLoop()
	}
	if s.mapped {
		s.prefault = make(chan prefaultReq, 1)
		s.wg.Add(1)
		go s.prefaultLoop()
		s.prefault <- prefaultReq{lf: s.cur, to: s.cur.size + prefaultAhead}
	}
	return s, nil
}

func (s *Store) path(name string) string { return filepath.Join(s.dir, name) }

// prepareLog readies the current log, fileSize bytes long, for appending: mapped
// under EverySecond and Never where the platform allows it (falling back to write(2),
// with a warning, if mapping fails), else with its preallocated zeros cut off, as
// write(2) appends at the end of the file.
func (s *Store) prepareLog(fileSize int64) error {
	lf := s.cur
	if s.cfg.sync != Always && s.cfg.mapper != nil && s.cfg.mapper.canMap(lf.f) {
		err := s.mapLog(lf, fileSize)
		if err == nil {
			s.mapped = true
			return nil
		}
		s.cfg.logger.Warn("persist: log not memory-mapped, written with write(2)", "file", lf.path, "err", err)
	}
	end, err := lf.f.Seek(0, io.SeekEnd)
	if err == nil && end > lf.size {
		if err = lf.f.Truncate(lf.size); err == nil {
			err = lf.f.Sync()
		}
	}
	if err != nil {
		return fmt.Errorf("persist: cutting the preallocated tail of %s: %w", lf.path, err)
	}
	return nil
}

// createLog creates the log of generation gen with its header (not fsynced).
func (s *Store) createLog(gen uint64) (*logFile, error) {
	p := s.path(logName(gen))
	f, err := createFile(s.cfg.fs, p, fileHeader(logMagic, gen))
	if err != nil {
		return nil, fmt.Errorf("%w: creating %s: %w", ErrFailed, p, err)
	}
	return &logFile{f: f, path: p, gen: gen, version: formatVersion, size: fileHeaderSize, needDirSync: true}, nil
}

// replayChain replays the logs of the chain in order and returns the last one, open
// for appending, and its file size (records and preallocated zeros). A log's torn
// tail is dropped (and a log with an incomplete header started again) only when no
// later log holds a record: a rotation fsyncs the old log before the new one gets its
// first record, so a torn tail before a record is damage, while before empty logs it
// is what a power loss can leave.
func (s *Store) replayChain(chain []uint64, r Replayer) (*logFile, int64, error) {
	files := make([]*logFile, len(chain))
	ok := false
	defer func() { // close all but the last, and the last too on failure
		for i, lf := range files {
			if lf != nil && (i < len(files)-1 || !ok) {
				lf.f.Close()
			}
		}
	}()
	held := make([]bool, len(chain)) // the log holds a record (or a torn one)
	for i, g := range chain {
		p := s.path(logName(g))
		f, err := s.cfg.fs.OpenFile(p, os.O_RDWR|os.O_APPEND, 0)
		if err != nil {
			return nil, 0, fmt.Errorf("persist: opening %s: %w", p, err)
		}
		files[i] = &logFile{f: f, path: p, gen: g}
		if files[i].size, held[i], err = firstRecord(f); err != nil {
			return nil, 0, fmt.Errorf("persist: reading %s: %w", p, err)
		}
	}
	var size int64
	for i, lf := range files {
		tolerant := !slices.Contains(held[i+1:], true)
		var err error
		if size, err = s.scanLog(lf, tolerant, r); err != nil {
			return nil, 0, err
		}
	}
	ok = true
	return files[len(files)-1], size, nil
}

// firstRecord returns the size of a log file and whether it holds anything where its
// records would be (bytes not all zero), and rewinds it. It reads the first bytes
// after the header and, only when they are zeros (a log of version 3 may start with a
// hole, records after it), the rest of the file.
func firstRecord(f File) (int64, bool, error) {
	if _, err := f.Seek(fileHeaderSize, io.SeekStart); err != nil {
		return 0, false, err
	}
	buf := make([]byte, recordHeaderSize, readBufSize)
	held := false
	for {
		n, err := io.ReadFull(f, buf)
		if held = firstNonZero(buf[:n]) >= 0; held || err != nil {
			if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				return 0, false, err
			}
			break
		}
		buf = buf[:cap(buf)]
	}
	size, err := f.Seek(0, io.SeekEnd)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	return size, held, err
}

// scanLog replays one log, whose lf.size is the file's size, leaving lf.size at the
// end of its last whole record, and returns the file's size once a torn tail is cut
// off (a version 2 log may hold preallocated zeros after its records).
func (s *Store) scanLog(lf *logFile, tolerant bool, r Replayer) (int64, error) {
	f, p := lf.f, lf.path
	if lf.size < fileHeaderSize && tolerant {
		// Created by a rotation, and a crash came before its header was durable:
		// nothing was ever acknowledged in it. Start it again.
		s.cfg.logger.Warn("persist: log with an incomplete header started again", "file", p, "size", lf.size)
		if err := f.Truncate(0); err != nil {
			return 0, fmt.Errorf("persist: truncating %s: %w", p, err)
		}
		if _, err := f.Write(fileHeader(logMagic, lf.gen)); err != nil {
			return 0, fmt.Errorf("persist: writing %s: %w", p, err)
		}
		lf.size, lf.version, lf.needDirSync = fileHeaderSize, formatVersion, true
		return lf.size, nil
	}
	v, err := readFileHeader(f, p, logMagic, lf.gen)
	if err != nil {
		return 0, err
	}
	size := lf.size
	lf.version = v
	rr := newRecordReader(p, f, fileHeaderSize, size)
	rr.zeroEnd = v >= zeroEndVersion
	rr.aligned = v >= alignedVersion
	end := int64(fileHeaderSize) // the end of the last whole record
	hole := int64(-1)            // the start of the holes since, -1 for none
	for {
		rec, off, err := rr.next()
		switch {
		case err == nil:
			if hole >= 0 {
				s.cfg.logger.Warn("persist: unfinished records skipped (a crash interrupted their writes, never acknowledged)",
					"file", p, "offset", hole, "skipped_bytes", off-hole)
				hole = -1
			}
			if err := r.Replay(rec); err != nil {
				return 0, fmt.Errorf("persist: replaying %s at byte offset %d: %w", p, off, err)
			}
			end = rr.off
			continue
		case errors.Is(err, errHole):
			if hole < 0 {
				hole = off
			}
			continue
		case errors.Is(err, io.EOF) && hole < 0:
			lf.size = off
			return size, nil
		case errors.Is(err, io.EOF):
			err = errTorn // holes after the last record: a torn tail
		}
		switch {
		case errors.Is(err, errTorn) && tolerant:
			s.cfg.logger.Warn("persist: torn final record dropped (the write was never acknowledged)",
				"file", p, "offset", end, "dropped_bytes", size-end)
			off := end
			if err := f.Truncate(off); err != nil {
				return 0, fmt.Errorf("persist: truncating %s: %w", p, err)
			}
			if err := f.Sync(); err != nil {
				return 0, fmt.Errorf("persist: fsyncing %s: %w", p, err)
			}
			lf.size = off
			return off, nil
		case errors.Is(err, errTorn):
			return 0, &CorruptError{Path: p, Offset: end, Reason: "torn record in a log followed by logs holding records"}
		default:
			return 0, err
		}
	}
}

// removeStale removes files no longer part of the state, warning on failure.
func (s *Store) removeStale(names []string) {
	if len(names) == 0 {
		return
	}
	for _, n := range names {
		if err := s.cfg.fs.Remove(s.path(n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.cfg.logger.Warn("persist: could not remove a stale file", "file", s.path(n), "err", err)
		}
	}
	if err := s.cfg.fs.SyncDir(s.dir); err != nil {
		s.cfg.logger.Warn("persist: could not fsync the directory", "dir", s.dir, "err", err)
	}
}
