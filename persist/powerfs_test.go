package persist

import (
	"bytes"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// memFS is an in-memory FS of one directory that knows what is durable: a file's
// bytes as of its last Sync, the directory's entries as of its last SyncDir. Its
// commonPrefix returns the length of the longest common prefix of a and b, comparing
// a block at a time (mapped files are megabytes of zeros).
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i+4096 <= n && bytes.Equal(a[i:i+4096], b[i:i+4096]) {
		i += 4096
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// crashed reports whether the simulated crash has happened.
func (m *memFS) crashed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.crashAt > 0 && m.ops >= m.crashAt
}

// powerLoss returns the FS a power loss could leave: the durable entries, each file
// with its durable bytes plus a random prefix of what changed since (appended, or
// copied into a mapping: the disk may or may not have written it). Operations past
// crashAt fail with errCrash. memMapper maps its files.
type memFS struct {
	mu      sync.Mutex
	live    map[string]*inode // name → file, as seen by the running program
	durable map[string]*inode // name → file, as of the last SyncDir
	ops     int
	crashAt int
}

type inode struct {
	data    []byte
	durable []byte
}

func newMemFS() *memFS { return &memFS{live: map[string]*inode{}, durable: map[string]*inode{}} }

func (m *memFS) step() error {
	m.ops++
	if m.crashAt > 0 && m.ops >= m.crashAt {
		return errCrash
	}
	return nil
}

// powerLoss returns the FS as a power loss at this moment could leave it; unsynced
// directory changes are lost if lose is set, kept otherwise.
func (m *memFS) powerLoss(rng *rand.Rand, lose bool) *memFS {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := newMemFS()
	entries := m.live
	if lose {
		entries = m.durable
	}
	for name, ino := range entries {
		data := slices.Clone(ino.durable)
		same := commonPrefix(data, ino.data) // the changes since the last Sync start here
		if same < len(ino.data) {
			end := same + rng.IntN(len(ino.data)-same+1)
			if end > len(data) {
				data = append(data, make([]byte, end-len(data))...)
			}
			copy(data[same:end], ino.data[same:end])
		}
		n := &inode{data: data, durable: slices.Clone(data)}
		out.live[name], out.durable[name] = n, n
	}
	return out
}

func (m *memFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	name = filepath.Base(name)
	if flag&(os.O_CREATE|os.O_WRONLY|os.O_RDWR) != 0 {
		if err := m.step(); err != nil {
			return nil, err
		}
	}
	ino, ok := m.live[name]
	switch {
	case ok && flag&os.O_EXCL != 0:
		return nil, &os.PathError{Op: "open", Path: name, Err: fs.ErrExist}
	case !ok && flag&os.O_CREATE == 0:
		return nil, &os.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	case !ok:
		ino = &inode{}
		m.live[name] = ino
	}
	if flag&os.O_TRUNC != 0 {
		ino.data = nil
	}
	return &memFile{fs: m, ino: ino}, nil
}

func (m *memFS) Rename(oldpath, newpath string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step(); err != nil {
		return err
	}
	o, n := filepath.Base(oldpath), filepath.Base(newpath)
	ino, ok := m.live[o]
	if !ok {
		return &os.PathError{Op: "rename", Path: o, Err: fs.ErrNotExist}
	}
	delete(m.live, o)
	m.live[n] = ino
	return nil
}

func (m *memFS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step(); err != nil {
		return err
	}
	name = filepath.Base(name)
	if _, ok := m.live[name]; !ok {
		return &os.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	delete(m.live, name)
	return nil
}

func (m *memFS) ReadDir(string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for n := range m.live {
		names = append(names, n)
	}
	return names, nil
}

func (m *memFS) MkdirAll(string, fs.FileMode) error { return nil }

func (m *memFS) SyncDir(string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.step(); err != nil {
		return err
	}
	clear(m.durable)
	for n, ino := range m.live {
		m.durable[n] = ino
	}
	return nil
}

func (m *memFS) Lock(string) (io.Closer, error) { return io.NopCloser(nil), nil }

// memFile is an open memFS file; writes append (the store only appends).
type memFile struct {
	fs  *memFS
	ino *inode
	off int64 // read offset
}

func (f *memFile) Read(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.off >= int64(len(f.ino.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.ino.data[f.off:])
	f.off += int64(n)
	return n, nil
}

func (f *memFile) Write(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.fs.step(); err != nil {
		return 0, err
	}
	f.ino.data = append(f.ino.data, p...)
	return len(p), nil
}

func (f *memFile) Seek(off int64, whence int) (int64, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	switch whence {
	case io.SeekStart:
		f.off = off
	case io.SeekCurrent:
		f.off += off
	case io.SeekEnd:
		f.off = int64(len(f.ino.data)) + off
	}
	return f.off, nil
}

func (f *memFile) Sync() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.fs.step(); err != nil {
		return err
	}
	f.ino.durable = slices.Clone(f.ino.data)
	return nil
}

func (f *memFile) Truncate(size int64) error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.fs.step(); err != nil {
		return err
	}
	f.ino.data = f.ino.data[:size]
	return nil
}

func (f *memFile) Close() error { return nil }

// memMapper maps memFS files for the stores of the power-loss test: a mapping is the
// inode's bytes, so copies into it are changes powerLoss may keep in part.
type memMapper struct{}

func (memMapper) canMap(f File) bool {
	_, ok := f.(*memFile)
	return ok
}

func (memMapper) allocate(f File, off, n int64) error {
	mf := f.(*memFile)
	mf.fs.mu.Lock()
	defer mf.fs.mu.Unlock()
	if err := mf.fs.step(); err != nil {
		return err
	}
	if grow := off + n - int64(len(mf.ino.data)); grow > 0 {
		mf.ino.data = append(mf.ino.data, make([]byte, grow)...)
	}
	return nil
}

func (memMapper) mmap(f File, size int64) ([]byte, error) {
	mf := f.(*memFile)
	mf.fs.mu.Lock()
	defer mf.fs.mu.Unlock()
	return mf.ino.data[:size:size], nil
}

func (m memMapper) remap(f File, _ []byte, size int64) ([]byte, error) { return m.mmap(f, size) }

func (memMapper) unmap([]byte) error { return nil }

func (memMapper) prefault([]byte) {}
