package persist

import (
	"encoding/binary"
	"fmt"
	"io"
)

// fileHeaderSize is the size of the header that starts every log and snapshot file.
const fileHeaderSize = 24

// formatVersion is the version this package writes. A reader accepts every version
// from 1 up to formatVersion; a newer one is refused with a CorruptError. Version 2
// lets a log end in zero bytes (space preallocated for a memory-mapped log);
// version 3 aligns a log's records and ends each with a commit word, so that
// writers can copy records into a mapped log at once and a reader can skip the
// holes a crash leaves between them. See the package documentation's Files
// section.
const formatVersion = 3

// zeroEndVersion is the first version whose logs may end in preallocated zero bytes.
const zeroEndVersion = 2

// alignedVersion is the first version whose log records are aligned and committed
// (putRecord). Records are appended only to a log of this version or later: Open
// starts a new log after an older one.
const alignedVersion = 3

var (
	logMagic  = [8]byte{'Z', 'L', 'I', 'T', 'E', 'L', 'O', 'G'}
	snapMagic = [8]byte{'Z', 'L', 'I', 'T', 'E', 'S', 'N', 'P'}
)

// fileHeader returns the header of a file of the given kind and generation: magic,
// version (uint16 LE), flags (uint16, zero), generation (uint64 LE), CRC-32C of the
// first 20 bytes.
func fileHeader(magic [8]byte, gen uint64) []byte {
	h := make([]byte, fileHeaderSize)
	copy(h, magic[:])
	binary.LittleEndian.PutUint16(h[8:], formatVersion)
	binary.LittleEndian.PutUint64(h[12:], gen)
	binary.LittleEndian.PutUint32(h[20:], crcOf(h[:20]))
	return h
}

// readFileHeader reads and checks the header of the file at path, which is expected
// to be of the given kind and generation, and returns its format version.
func readFileHeader(r io.Reader, path string, magic [8]byte, gen uint64) (uint16, error) {
	h := make([]byte, fileHeaderSize)
	if _, err := io.ReadFull(r, h); err != nil {
		return 0, &CorruptError{Path: path, Reason: "file shorter than its header"}
	}
	bad := func(reason string) (uint16, error) { return 0, &CorruptError{Path: path, Reason: reason} }
	switch {
	case [8]byte(h[:8]) != magic:
		return bad(fmt.Sprintf("bad magic %q, want %q", h[:8], magic[:]))
	case crcOf(h[:20]) != binary.LittleEndian.Uint32(h[20:]):
		return bad("header checksum mismatch")
	}
	v := binary.LittleEndian.Uint16(h[8:])
	if v == 0 || v > formatVersion {
		return bad(fmt.Sprintf("unsupported format version %d (this build reads 1 to %d)", v, formatVersion))
	}
	if f := binary.LittleEndian.Uint16(h[10:]); f != 0 {
		return bad(fmt.Sprintf("unknown header flags %#x", f))
	}
	if g := binary.LittleEndian.Uint64(h[12:]); g != gen {
		return bad(fmt.Sprintf("header generation %d does not match the file name's %d", g, gen))
	}
	return v, nil
}
