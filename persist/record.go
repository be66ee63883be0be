package persist

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
)

// castagnoli is the CRC-32C table (hardware-accelerated on amd64 and arm64).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// recordHeaderSize is the framing before each payload: length, payload CRC, header CRC.
const recordHeaderSize = 12

// MaxRecordSize is the largest payload [Store.Append] accepts: 1 GiB (Redis's
// proto-max-bulk-len is 512 MiB for one argument).
const MaxRecordSize = 1 << 30

// ErrCorrupt is matched (with [errors.Is]) by every [*CorruptError].
var ErrCorrupt = errors.New("persist: corrupt file")

// CorruptError reports a file that cannot be loaded as written: a checksum mismatch,
// a torn record that is not at the end of the state, a bad or unknown header, a
// missing file of the chain (see the package documentation's Recovery section).
// Use [errors.As] to get the file and offset; it also matches [ErrCorrupt].
type CorruptError struct {
	Path   string // the file
	Offset int64  // byte offset in the file of the header, record or frame at fault
	Reason string // what is wrong, e.g. "record checksum mismatch"
}

// Error names the file, the offset and the reason.
func (e *CorruptError) Error() string {
	return fmt.Sprintf("persist: corrupt file %s at byte offset %d: %s", e.Path, e.Offset, e.Reason)
}

// Is reports whether target is [ErrCorrupt].
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// appendRecord appends the framed payload to buf (see putRecord). O(len(payload)).
func appendRecord(buf, payload []byte) []byte {
	n := len(buf)
	buf = slices.Grow(buf, recordHeaderSize+len(payload))[:n+recordHeaderSize+len(payload)]
	putRecord(buf[n:], payload)
	return buf
}

// putRecord frames payload into dst, which is recordHeaderSize+len(payload) bytes:
// length (uint32 LE), CRC-32C of the payload, CRC-32C of those 8 header bytes, then
// the payload, stored in that order (a mapped log cut short by a crash during the
// copy holds a whole header and a payload ending in bytes never written, zeros).
func putRecord(dst, payload []byte) {
	binary.LittleEndian.PutUint32(dst[0:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(dst[4:], crcOf(payload))
	binary.LittleEndian.PutUint32(dst[8:], crcOf(dst[:8]))
	copy(dst[recordHeaderSize:], payload)
}

// recordReader reads framed records from one file, bounded by the file's size so that
// no length field can make it allocate more than the file holds.
type recordReader struct {
	path string
	r    *bufio.Reader
	off  int64 // offset of the next record
	size int64 // file size
	// zeroEnd is set for a log of version 2 or later, which may end in preallocated
	// zero bytes: a zero header is then its clean end, and a record cut short while
	// being copied into a mapping is a torn tail (see next).
	zeroEnd bool
	h       [recordHeaderSize]byte
	buf     []byte
}

// errTorn is returned by next for a torn final record: fewer bytes than a header left,
// a valid header whose payload runs past the end of the file, or only zero bytes from
// the record's start to the end of the file (a file extended but never written, as a
// power loss can leave it). In a log that may end in zeros (zeroEnd), also a header
// failing its checksum, or a payload failing its checksum and holding a zero byte,
// followed only by zeros: a record copied in part into a mapped log.
var errTorn = errors.New("torn record")

// zeros is a block of zero bytes for zeroTail's comparisons, as large as the
// reader's buffer.
var zeros [readBufSize]byte

// readBufSize is the size of a recordReader's buffer.
const readBufSize = 64 << 10

func newRecordReader(path string, r io.Reader, off, size int64) *recordReader {
	return &recordReader{path: path, r: bufio.NewReaderSize(r, readBufSize), off: off, size: size}
}

// next returns the next payload (valid until the following call) and its offset, or
// io.EOF at a clean end (for a zeroEnd log, possibly before the end of the file),
// errTorn for a torn tail (rr.off is then the last good end), or a *CorruptError.
func (rr *recordReader) next() ([]byte, int64, error) {
	start := rr.off
	left := rr.size - start
	if left == 0 {
		return nil, start, io.EOF
	}
	if left < recordHeaderSize {
		if rr.zeroEnd && rr.zeroTail() {
			return nil, start, io.EOF
		}
		return nil, start, errTorn
	}
	h := rr.h[:]
	if _, err := io.ReadFull(rr.r, h); err != nil {
		return nil, start, rr.ioError(start, err)
	}
	n := int64(binary.LittleEndian.Uint32(h[0:]))
	if crcOf(h[:8]) != binary.LittleEndian.Uint32(h[8:]) {
		zero := rr.h == [recordHeaderSize]byte{}
		switch tail := (zero || rr.zeroEnd) && rr.zeroTail(); {
		case tail && zero && rr.zeroEnd:
			return nil, start, io.EOF
		case tail:
			return nil, start, errTorn
		}
		return nil, start, rr.corrupt(start, "record header checksum mismatch")
	}
	if n == 0 || n > MaxRecordSize {
		return nil, start, rr.corrupt(start, fmt.Sprintf("record length %d out of range", n))
	}
	if n > left-recordHeaderSize {
		return nil, start, errTorn
	}
	if int64(cap(rr.buf)) < n {
		rr.buf = make([]byte, n)
	}
	p := rr.buf[:n]
	if _, err := io.ReadFull(rr.r, p); err != nil {
		return nil, start, rr.ioError(start, err)
	}
	if crcOf(p) != binary.LittleEndian.Uint32(h[4:]) {
		if rr.zeroEnd && bytes.IndexByte(p, 0) >= 0 && rr.zeroTail() {
			return nil, start, errTorn
		}
		return nil, start, rr.corrupt(start, "record checksum mismatch")
	}
	rr.off = start + recordHeaderSize + n
	return p, start, nil
}

// zeroTail reports whether everything from the reader's position to the end of the
// file is zero bytes. It compares a buffer at a time (a preallocated tail can be
// megabytes).
func (rr *recordReader) zeroTail() bool {
	for {
		b, err := rr.r.Peek(rr.r.Size())
		if !bytes.Equal(b, zeros[:len(b)]) {
			return false
		}
		rr.r.Discard(len(b))
		if err != nil {
			return errors.Is(err, io.EOF)
		}
	}
}

func (rr *recordReader) corrupt(off int64, reason string) error {
	return &CorruptError{Path: rr.path, Offset: off, Reason: reason}
}

// ioError turns a short read of a file whose size was known into a CorruptError (the
// file changed under us) and passes other read errors on.
func (rr *recordReader) ioError(off int64, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return rr.corrupt(off, "file shorter than its size")
	}
	return fmt.Errorf("persist: reading %s at byte offset %d: %w", rr.path, off, err)
}

// crcOf is the CRC-32C of b.
func crcOf(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }
