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

// appendFrame appends the framed payload to buf: length (uint32 LE), CRC-32C of the
// payload, CRC-32C of those 8 header bytes, then the payload. It is the framing of
// a snapshot's frames, and of the records of a log of version 1 or 2. O(len(payload)).
func appendFrame(buf, payload []byte) []byte {
	n := len(buf)
	buf = slices.Grow(buf, recordHeaderSize+len(payload))[:n+recordHeaderSize+len(payload)]
	dst := buf[n:]
	binary.LittleEndian.PutUint32(dst[0:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(dst[4:], crcOf(payload))
	binary.LittleEndian.PutUint32(dst[8:], crcOf(dst[:8]))
	copy(dst[recordHeaderSize:], payload)
	return buf
}

// recordAlign is the alignment of a record in a log of version 3: a multiple of
// 8, so that its first 8 bytes can be written at once.
const recordAlign = 8

// recordSize is the size of a record of n payload bytes in a log of version 3.
func recordSize(n int) int64 {
	return int64(recordHeaderSize+n+recordAlign-1) &^ (recordAlign - 1)
}

// recordWords returns the two words of a log record's framing (version 3) for
// payload, as stored in memory: its head, the payload's length and the CRC-32C of
// those 4 bytes, and its commit word, the CRC-32C of the payload (1 if that is 0,
// as 0 means not committed).
func recordWords(payload []byte) (head uint64, commit uint32) {
	var h [8]byte
	n := uint32(len(payload))
	binary.LittleEndian.PutUint32(h[0:], n)
	binary.LittleEndian.PutUint32(h[4:], crcUint32(n))
	var c [4]byte
	binary.LittleEndian.PutUint32(c[:], commitOf(payload))
	return binary.NativeEndian.Uint64(h[:]), binary.NativeEndian.Uint32(c[:])
}

// crcUint32 is the CRC-32C of the 4 bytes of v, little-endian: crcOf of them,
// without a slice (which would make the bytes escape to the heap).
func crcUint32(v uint32) uint32 {
	c := ^uint32(0)
	for range 4 {
		c = castagnoli[byte(c)^byte(v)] ^ c>>8
		v >>= 8
	}
	return ^c
}

// commitOf is the commit word of a record holding payload: its CRC-32C, or 1 where
// that is 0.
func commitOf(payload []byte) uint32 { return max(crcOf(payload), 1) }

// appendRecord appends payload framed as a log record (version 3) to buf, padding
// included (see putRecord). O(len(payload)).
func appendRecord(buf, payload []byte) []byte {
	n := len(buf)
	size := int(recordSize(len(payload)))
	buf = slices.Grow(buf, size)[:n+size]
	dst := buf[n:]
	head, commit := recordWords(payload)
	binary.NativeEndian.PutUint64(dst, head)
	binary.NativeEndian.PutUint32(dst[8:], commit)
	copy(dst[recordHeaderSize:], payload)
	clear(dst[recordHeaderSize+len(payload):])
	return buf
}

// putRecord frames payload, whose recordWords are head and commit, as a log record
// (version 3) into dst, recordSize bytes of a mapped log, aligned, whose bytes are
// zero (the padding stays so): first the head, in one write, then the payload, then
// the commit word, in one write. Any prefix of those steps, which a crash can leave,
// is either all zeros or a head with a commit word of zero: a hole that a reader
// skips, its size known from the head or from the next record's.
func putRecord(dst, payload []byte, head uint64, commit uint32) {
	storeUint64(dst, head)
	copyMapped(dst[recordHeaderSize:recordHeaderSize+len(payload)], payload)
	storeUint32(dst[8:], commit)
}

// putRecords copies b, whole log records framed by appendRecord, into dst, zero
// bytes of a mapped log, a record at a time, each as putRecord does: its head, its
// payload, then its commit word. One copy of b would not do: memmove stores a
// region's bytes in no set order (on amd64, for a few hundred bytes or more, its
// first 32 bytes after the rest), so a process killed during it could leave a
// record's payload, or the next record's head, after a head still zero, which a
// reader cannot tell from damage. Recovery does not try to: nothing in the file
// says which records were acknowledged, so it cannot know that such bytes at the
// end are not a damaged acknowledged record. O(len(b)).
func putRecords(dst, b []byte) {
	for len(b) > 0 {
		n := int(binary.LittleEndian.Uint32(b))
		size := recordSize(n)
		head, commit := binary.NativeEndian.Uint64(b), binary.NativeEndian.Uint32(b[recordAlign:])
		putRecord(dst[:size], b[recordHeaderSize:recordHeaderSize+n], head, commit)
		dst, b = dst[size:], b[size:]
	}
}

// testCopy, when not nil, replaces the copy of a record's payload into a mapped
// log (copyMapped). Crash tests set it, while no copy runs, to make a copy store
// its last bytes first (as memmove may), slowly, or to stop a copy halfway, so that
// a kill lands inside one; it is nil otherwise.
var testCopy func(dst, src []byte)

// copyMapped copies src into dst, of the same length, in a mapped log: copy, or
// testCopy where a test set it (a load and a branch more). O(len(src)).
func copyMapped(dst, src []byte) {
	if testCopy != nil {
		testCopy(dst, src)
		return
	}
	copy(dst, src)
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
	// aligned is set for a log of version 3 or later: records are aligned and
	// committed (see putRecord), and may be separated by holes (see next3).
	aligned bool
	h       [recordHeaderSize]byte
	buf     []byte
}

// errHole is returned by next for a hole in a log of version 3: bytes reserved for a
// record that a crash interrupted before it was copied whole (its writer's Append
// never returned). rr.off is then the end of the hole, where reading goes on.
var errHole = errors.New("unfinished record")

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
	if rr.aligned {
		return rr.next3()
	}
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

// next3 is next for a log of version 3, whose records are aligned and end in a
// commit word (putRecord). At a record's start:
//
//   - zero bytes up to the end of the file are its clean end (io.EOF);
//   - zero bytes up to a later aligned word that is not zero are a hole, space
//     reserved for records whose writers never wrote their head (errHole);
//   - a head failing its checksum, or holding a length out of range, is damage;
//   - a head whose record runs past the end of the file is a torn tail (errTorn:
//     a write(2) cut short);
//   - a record whose commit word is zero is a hole (errHole): its writer never
//     finished its copy;
//   - a commit word that is not the payload's checksum is damage.
func (rr *recordReader) next3() ([]byte, int64, error) {
	start := rr.off
	left := rr.size - start
	if left == 0 {
		return nil, start, io.EOF
	}
	if left < recordAlign {
		if rr.zeroTail() {
			return nil, start, io.EOF
		}
		return nil, start, errTorn
	}
	h := rr.h[:8]
	if _, err := io.ReadFull(rr.r, h); err != nil {
		return nil, start, rr.ioError(start, err)
	}
	if [8]byte(h) == [8]byte{} {
		skipped, more, err := rr.skipZeros()
		switch {
		case err != nil:
			return nil, start, err
		case !more:
			return nil, start, io.EOF
		}
		rr.off = start + recordAlign + skipped
		return nil, start, errHole
	}
	n := int64(binary.LittleEndian.Uint32(h[0:]))
	if crcOf(h[:4]) != binary.LittleEndian.Uint32(h[4:]) {
		return nil, start, rr.corrupt(start, "record header checksum mismatch")
	}
	if n == 0 || n > MaxRecordSize {
		return nil, start, rr.corrupt(start, fmt.Sprintf("record length %d out of range", n))
	}
	size := recordSize(int(n))
	if size > left {
		return nil, start, errTorn
	}
	rest := size - recordAlign
	if int64(cap(rr.buf)) < rest {
		rr.buf = make([]byte, rest)
	}
	b := rr.buf[:rest]
	if _, err := io.ReadFull(rr.r, b); err != nil {
		return nil, start, rr.ioError(start, err)
	}
	rr.off = start + size
	p := b[recordHeaderSize-recordAlign:][:n]
	switch commit := binary.LittleEndian.Uint32(b); {
	case commit == 0:
		return nil, start, errHole
	case commit != commitOf(p):
		return nil, start, rr.corrupt(start, "record checksum mismatch")
	case firstNonZero(b[recordHeaderSize-recordAlign+n:]) >= 0:
		return nil, start, rr.corrupt(start, "record padding not zero")
	}
	return p, start, nil
}

// skipZeros reads on from an aligned position past zero bytes, up to the aligned
// word holding the next byte that is not zero, and returns how many bytes it
// skipped and whether such a byte was found before the end of the file.
func (rr *recordReader) skipZeros() (int64, bool, error) {
	var n int64
	for {
		b, err := rr.r.Peek(rr.r.Size())
		if i := firstNonZero(b); i >= 0 {
			i &^= recordAlign - 1
			rr.r.Discard(i)
			return n + int64(i), true, nil
		}
		rr.r.Discard(len(b))
		n += int64(len(b))
		if err != nil {
			if errors.Is(err, io.EOF) {
				return n, false, nil
			}
			return n, false, err
		}
	}
}

// firstNonZero returns the index of the first byte of b that is not zero, or -1.
func firstNonZero(b []byte) int {
	const block = 4 << 10
	for at := 0; at < len(b); at += block {
		c := b[at:min(at+block, len(b))]
		if bytes.Equal(c, zeros[:len(c)]) {
			continue
		}
		for i, x := range c {
			if x != 0 {
				return at + i
			}
		}
	}
	return -1
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
