package persist

import (
	"io"
	"io/fs"
	"os"
)

// FS is the file system a [Store] works on: the few operations it needs, so that tests
// can inject faults (a full disk, a failing fsync, a crash between two steps). [OSFS]
// is the real one and the default.
type FS interface {
	// OpenFile is [os.OpenFile].
	OpenFile(name string, flag int, perm fs.FileMode) (File, error)
	// Rename is [os.Rename]: atomic replacement of newpath.
	Rename(oldpath, newpath string) error
	// Remove is [os.Remove].
	Remove(name string) error
	// ReadDir returns the names of the entries in dir, in no particular order.
	ReadDir(dir string) ([]string, error)
	// MkdirAll is [os.MkdirAll].
	MkdirAll(dir string, perm fs.FileMode) error
	// SyncDir makes the directory's entries (creations, renames, removals) durable:
	// fsync of the directory itself.
	SyncDir(dir string) error
	// Lock takes an exclusive lock on the file at path (creating it), held until the
	// returned Closer is closed or the process ends, or fails with [ErrLocked].
	Lock(path string) (io.Closer, error)
}

// File is an open file of an [FS]: what [os.File] offers and a Store uses.
type File interface {
	io.Reader
	io.Writer
	io.Seeker
	io.Closer
	// Sync is fsync(2): the file's data and size are durable when it returns nil.
	Sync() error
	// Truncate changes the file's size.
	Truncate(size int64) error
}

// OSFS is the operating system's file system, the default [FS].
type OSFS struct{}

var _ FS = OSFS{}

// OpenFile is [os.OpenFile].
func (OSFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	f, err := os.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Rename is [os.Rename].
func (OSFS) Rename(oldpath, newpath string) error { return os.Rename(oldpath, newpath) }

// Remove is [os.Remove].
func (OSFS) Remove(name string) error { return os.Remove(name) }

// MkdirAll is [os.MkdirAll].
func (OSFS) MkdirAll(dir string, perm fs.FileMode) error { return os.MkdirAll(dir, perm) }

// ReadDir lists the names in dir.
func (OSFS) ReadDir(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, nil
}

// SyncDir opens dir and fsyncs it.
func (OSFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
