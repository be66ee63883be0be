package persist

// A log written under [EverySecond] or [Never] is, where the platform allows it
// (mmap_linux.go), memory-mapped: its file is preallocated with fallocate(2) and
// records are copied into a shared mapping of it. The kernel's page cache holds the
// mapped pages, so a record copied survives the process's crash, like one passed to
// write(2), without a system call per record; the policy's fsync(2) writes the pages
// out. Preallocating reserves the disk blocks, so that a full disk is an error from
// fallocate (when the log grows) and never a SIGBUS while copying; the space not yet
// used reads as zero bytes, which a log of format version 2 may end in. [Always]
// keeps write(2): its cost is the fsync.
//
// The first write to each page of a mapping faults, and on a journaling file system
// the fault of a page over preallocated (unwritten) blocks may sleep on the journal.
// A background goroutine (prefaultLoop) takes those faults ahead of the writer with
// madvise(MADV_POPULATE_WRITE), which maps the pages writable without changing their
// bytes, so that a copy into the mapping seldom faults.

// mapper maps logs; [config.mapper] is nil where the platform has none, and then every
// log is written with write(2).
type mapper interface {
	// canMap reports whether f can be mapped (an OS file).
	canMap(f File) bool
	// allocate extends f with n bytes from off, with their disk blocks reserved
	// (fallocate(2) mode 0): ENOSPC is reported here.
	allocate(f File, off, n int64) error
	// mmap maps f's first size bytes, shared and writable.
	mmap(f File, size int64) ([]byte, error)
	// remap resizes a mapping of f, moving it if need be.
	remap(f File, m []byte, size int64) ([]byte, error)
	// unmap ends a mapping.
	unmap(m []byte) error
	// prefault takes the write faults of a part of a mapping without changing its
	// bytes (madvise(MADV_POPULATE_WRITE)); best effort.
	prefault(m []byte)
}

// Preallocation of a mapped log (the defaults of [prealloc]): it grows by its own
// size, at least minPrealloc and at most maxPrealloc at a time (and at least to what
// the record needs), to a multiple of hugePage, so that its mapping can be made of
// huge pages.
const (
	minPrealloc = 4 << 20
	maxPrealloc = 64 << 20
	hugePage    = 2 << 20
)

// prealloc is how a mapped log grows: steps of at least min bytes, sizes multiples
// of unit ([config.prealloc]; tests make them small).
type prealloc struct{ min, unit int64 }

var defaultPrealloc = prealloc{min: minPrealloc, unit: hugePage}

// next returns the size to grow a mapping of have bytes to, for records that must
// fit up to end.
func (p prealloc) next(have, end int64) int64 {
	size := max(have+min(max(have, p.min), maxPrealloc), end)
	return (size + p.unit - 1) / p.unit * p.unit
}

// prefaultAhead is how far ahead of the last record the pages of a mapped log are
// prefaulted; a new request goes out each time the records cross a multiple of
// half of it.
const prefaultAhead = 4 << 20

// prefaultReq asks prefaultLoop to prefault lf.m up to to.
type prefaultReq struct {
	lf *logFile
	to int64
}

// mapLog maps lf, a log of this format version whose file is fileSize bytes
// (lf.size of them records), for appending: it preallocates room after the last
// record.
func (s *Store) mapLog(lf *logFile, fileSize int64) error {
	size := max(fileSize, s.cfg.prealloc.next(lf.size, lf.size))
	if size > fileSize {
		if err := s.cfg.mapper.allocate(lf.f, fileSize, size-fileSize); err != nil {
			return failed("preallocating", lf.path, err)
		}
	}
	m, err := s.cfg.mapper.mmap(lf.f, size)
	if err != nil {
		return failed("mapping", lf.path, err)
	}
	lf.m, lf.faulted = m, lf.size
	return nil
}

// askPrefault asks prefaultLoop to prefault the next part of lf when a record from
// from to to crosses a multiple of half of prefaultAhead. It never blocks: with a
// request still pending, the next crossing asks again. Safe for concurrent use.
func (s *Store) askPrefault(lf *logFile, from, to int64) {
	if s.prefault == nil || from/(prefaultAhead/2) == to/(prefaultAhead/2) {
		return
	}
	select {
	case s.prefault <- prefaultReq{lf: lf, to: to + prefaultAhead}:
	default:
	}
}

// prefaultLoop serves askPrefault's requests until Close. It holds the log's mapMu
// while it uses the mapping, which reserve and closeLog take before they change it;
// it alone moves lf.faulted on once the log is mapped.
func (s *Store) prefaultLoop() {
	defer s.wg.Done()
	for {
		select {
		case <-s.stop:
			return
		case r := <-s.prefault:
			lf := r.lf
			lf.mapMu.Lock()
			if to := min(int64(len(lf.m)), r.to); to > lf.faulted {
				s.cfg.mapper.prefault(lf.m[lf.faulted:to])
				lf.faulted = to
			}
			lf.mapMu.Unlock()
		}
	}
}

// reserve makes room in the mapped log lf for records up to end, preallocating and
// remapping when its mapping is full. Called by the one goroutine appending to lf.
func (s *Store) reserve(lf *logFile, end int64) error {
	have := int64(len(lf.m))
	if end <= have {
		return nil
	}
	grow := s.cfg.prealloc.next(have, end) - have
	if err := s.cfg.mapper.allocate(lf.f, have, grow); err != nil {
		return failed("preallocating", lf.path, err)
	}
	lf.mapMu.Lock()
	defer lf.mapMu.Unlock()
	m, err := s.cfg.mapper.remap(lf.f, lf.m, have+grow)
	if err != nil {
		return failed("mapping", lf.path, err)
	}
	lf.m = m
	return nil
}

// closeLog unmaps (if mapped) and closes lf.
func (s *Store) closeLog(lf *logFile) error {
	var err error
	if lf.m != nil {
		lf.mapMu.Lock()
		err = s.cfg.mapper.unmap(lf.m)
		lf.m = nil
		lf.mapMu.Unlock()
	}
	if cerr := lf.f.Close(); err == nil {
		err = cerr
	}
	return err
}
