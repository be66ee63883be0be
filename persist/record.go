package persist

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
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

// appendRecord appends the framed payload to buf: length (uint32 LE), CRC-32C of the
// payload, CRC-32C of those 8 header bytes, then the payload. O(len(payload)).
func appendRecord(buf, payload []byte) []byte {
	start := len(buf)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(payload)))
	buf = binary.LittleEndian.AppendUint32(buf, crcOf(payload))
	buf = binary.LittleEndian.AppendUint32(buf, crcOf(buf[start:]))
	return append(buf, payload...)
}

// recordReader reads framed records from one file, bounded by the file's size so that
// no length field can make it allocate more than the file holds.
type recordReader struct {
	path string
	r    *bufio.Reader
	off  int64 // offset of the next record
	size int64 // file size
	h    [recordHeaderSize]byte
	buf  []byte
}

// errTorn is returned by next for a torn final record: fewer bytes than a header left,
// a valid header whose payload runs past the end of the file, or only zero bytes from
// the record's start to the end of the file (a file extended but never written, as a
// power loss can leave it).
var errTorn = errors.New("torn record")

func newRecordReader(path string, r io.Reader, off, size int64) *recordReader {
	return &recordReader{path: path, r: bufio.NewReaderSize(r, 64<<10), off: off, size: size}
}

// next returns the next payload (valid until the following call) and its offset, or
// io.EOF at a clean end, errTorn for a torn tail (rr.off is then the last good end), or
// a *CorruptError.
func (rr *recordReader) next() ([]byte, int64, error) {
	start := rr.off
	left := rr.size - start
	if left == 0 {
		return nil, start, io.EOF
	}
	if left < recordHeaderSize {
		return nil, start, errTorn
	}
	h := rr.h[:]
	if _, err := io.ReadFull(rr.r, h); err != nil {
		return nil, start, rr.ioError(start, err)
	}
	n := int64(binary.LittleEndian.Uint32(h[0:]))
	if crcOf(h[:8]) != binary.LittleEndian.Uint32(h[8:]) {
		if rr.h == [recordHeaderSize]byte{} && rr.zeroTail() {
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
		return nil, start, rr.corrupt(start, "record checksum mismatch")
	}
	rr.off = start + recordHeaderSize + n
	return p, start, nil
}

// zeroTail reports whether everything after the header just read is zero bytes.
func (rr *recordReader) zeroTail() bool {
	for {
		b, err := rr.r.ReadByte()
		if err != nil {
			return errors.Is(err, io.EOF)
		}
		if b != 0 {
			return false
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
