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
}

// Preallocation of a mapped log: it grows by its own size, at least minPrealloc and
// at most maxPrealloc at a time (and at least what the record needs).
const (
	minPrealloc = 1 << 20
	maxPrealloc = 64 << 20
)

func preallocStep(size int64) int64 { return min(max(size, minPrealloc), maxPrealloc) }

// mapLog maps lf, whose file is fileSize bytes (lf.size of them records), for
// appending: it preallocates room after the last record and, for a log of a version
// before 2 (which may not end in zeros), rewrites the header with this version.
func (s *Store) mapLog(lf *logFile, fileSize int64) error {
	size := max(fileSize, lf.size+preallocStep(lf.size))
	if size > fileSize {
		if err := s.cfg.mapper.allocate(lf.f, fileSize, size-fileSize); err != nil {
			return failed("preallocating", lf.path, err)
		}
	}
	m, err := s.cfg.mapper.mmap(lf.f, size)
	if err != nil {
		return failed("mapping", lf.path, err)
	}
	lf.m = m
	if lf.version < zeroEndVersion {
		copy(m, fileHeader(logMagic, lf.gen))
		lf.version = formatVersion
	}
	return nil
}

// reserve makes room for n more bytes in the mapped log lf, preallocating and
// remapping when its mapping is full. Called by the one goroutine appending to lf.
func (s *Store) reserve(lf *logFile, n int64) error {
	have := int64(len(lf.m))
	if lf.size+n <= have {
		return nil
	}
	grow := max(preallocStep(have), lf.size+n-have)
	if err := s.cfg.mapper.allocate(lf.f, have, grow); err != nil {
		return failed("preallocating", lf.path, err)
	}
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
		err = s.cfg.mapper.unmap(lf.m)
		lf.m = nil
	}
	if cerr := lf.f.Close(); err == nil {
		err = cerr
	}
	return err
}
