//go:build linux

package persist

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// osMapper maps OS files with mmap(2), mremap(2) and fallocate(2).
type osMapper struct{}

var defaultMapper mapper = osMapper{}

// fder is what an *os.File offers beyond File.
type fder interface{ Fd() uintptr }

func (osMapper) canMap(f File) bool {
	_, ok := f.(fder)
	return ok
}

func fdOf(f File) int { return int(f.(fder).Fd()) }

func (osMapper) allocate(f File, off, n int64) error {
	return unix.Fallocate(fdOf(f), 0, off, n)
}

func (osMapper) mmap(f File, size int64) ([]byte, error) {
	m, err := unix.Mmap(fdOf(f), 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err == nil {
		hugePages(m)
	}
	return m, err
}

func (osMapper) remap(_ File, m []byte, size int64) ([]byte, error) {
	m, err := unix.Mremap(m, int(size), unix.MREMAP_MAYMOVE)
	if err == nil {
		hugePages(m)
	}
	return m, err
}

// hugePages asks for transparent huge pages on a mapping (madvise(MADV_HUGEPAGE)):
// where the file system keeps the file in large folios (ext4 and XFS on recent
// kernels), the mapping is then made of 2 MiB pages, and a copy into it misses the
// TLB once per 2 MiB instead of once per 4 KiB: a 40-byte record copied into a
// populated mapping took a tenth of the time on 4 KiB pages. Its error is ignored (the kernel may not support it).
func hugePages(m []byte) { unix.Madvise(m, unix.MADV_HUGEPAGE) }

func (osMapper) unmap(m []byte) error { return unix.Munmap(m) }

// prefault maps the pages of m writable with madvise(MADV_POPULATE_WRITE). Its error
// is ignored: before Linux 5.14 it is EINVAL, and the writer then takes the faults.
func (osMapper) prefault(m []byte) {
	page := uintptr(unix.Getpagesize())
	skip := int((page - uintptr(unsafe.Pointer(unsafe.SliceData(m)))%page) % page) // madvise wants a page-aligned start
	if skip < len(m) {
		unix.Madvise(m[skip:], unix.MADV_POPULATE_WRITE)
	}
}
