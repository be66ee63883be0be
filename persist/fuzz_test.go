package persist

import (
	"encoding/binary"
	"errors"
	"testing"
)

// FuzzOpen loads arbitrary bytes after a valid header as a log (kind 0), as a
// snapshot (kind 1) or as a log of format version 2 (kind 2): Open must succeed or
// fail with a CorruptError, and never panic (every length read is checked against
// the bytes left in the file or frame).
func FuzzOpen(f *testing.F) {
	f.Add(byte(0), appendRecord(appendRecord(nil, []byte("a")), []byte("bc")))
	f.Add(byte(0), make([]byte, 30))
	f.Add(byte(0), append(append(tornCopies("abc")[2], make([]byte, 16)...), appendRecord(nil, []byte("d"))...))
	f.Add(byte(1), appendFrame(nil, []byte{frameKey, byte(TypeList), 0, 1, 'k'}))
	f.Add(byte(1), appendFrame(appendFrame(nil, []byte{frameKey, byte(TypeZSet), 2, 1, 'k'}), []byte{frameElem, 3, 'm', 2}))
	f.Add(byte(2), append(appendFrame(appendFrame(nil, []byte("a")), []byte("bc")), make([]byte, 20)...))
	f.Fuzz(func(t *testing.T, kind byte, body []byte) {
		fsys := newMemFS()
		var name string
		var data []byte
		switch kind % 3 {
		case 0:
			name, data = logName(1), append(fileHeader(logMagic, 1), body...)
		case 1:
			name, data = snapName(1), append(fileHeader(snapMagic, 1), body...)
			fsys.live[logName(1)] = &inode{data: fileHeader(logMagic, 1)}
		case 2:
			h := fileHeader(logMagic, 1)
			binary.LittleEndian.PutUint16(h[8:], 2)
			name, data = logName(1), append(fixHeaderCRC(h), body...)
		}
		fsys.live[name] = &inode{data: data}
		s, err := Open("/mem", newModel(), WithFS(fsys), WithLogger((&quietLogger{}).logger()))
		if err == nil {
			s.Close()
			return
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Open = %v; want nil or a CorruptError", err)
		}
	})
}
