package persist

import (
	"errors"
	"testing"
)

// FuzzOpen loads arbitrary bytes after a valid header as a log (kind 0) or as a
// snapshot (kind 1): Open must succeed or fail with a CorruptError, and never panic
// (every length read is checked against the bytes left in the file or frame).
func FuzzOpen(f *testing.F) {
	f.Add(byte(0), appendRecord(appendRecord(nil, []byte("a")), []byte("bc")))
	f.Add(byte(0), make([]byte, 30))
	f.Add(byte(1), appendRecord(nil, []byte{frameKey, byte(TypeList), 0, 1, 'k'}))
	f.Add(byte(1), appendRecord(appendRecord(nil, []byte{frameKey, byte(TypeZSet), 2, 1, 'k'}), []byte{frameElem, 3, 'm', 2}))
	f.Fuzz(func(t *testing.T, kind byte, body []byte) {
		fsys := newMemFS()
		var name string
		var data []byte
		if kind%2 == 0 {
			name, data = logName(1), append(fileHeader(logMagic, 1), body...)
		} else {
			name, data = snapName(1), append(fileHeader(snapMagic, 1), body...)
			fsys.live[logName(1)] = &inode{data: fileHeader(logMagic, 1)}
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
