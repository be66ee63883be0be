package persist

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync"
	"syscall"
)

// faultFS is OSFS with injectable faults, for deterministic tests of full disks,
// failing fsyncs, and crashes between any two steps.
type faultFS struct {
	OSFS
	mu         sync.Mutex
	writeSpace int64 // bytes that writes to logs may still add; < 0 is unlimited
	syncErr    error // returned by every File.Sync when set
	syncGate   chan struct{}
	syncCalled chan struct{} // receives a value when a File.Sync starts waiting at syncGate
	crashAt    int           // the crashAt-th mutating operation and every later one fail; 0 disables
	ops        int
}

var errCrash = errors.New("simulated crash")

func newFaultFS() *faultFS { return &faultFS{writeSpace: -1} }

// step counts a mutating operation and reports errCrash once the crash point is reached.
func (f *faultFS) step() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ops++
	if f.crashAt > 0 && f.ops >= f.crashAt {
		return errCrash
	}
	return nil
}

func (f *faultFS) OpenFile(name string, flag int, perm fs.FileMode) (File, error) {
	if flag&(os.O_CREATE|os.O_WRONLY|os.O_RDWR) != 0 {
		if err := f.step(); err != nil {
			return nil, err
		}
	}
	file, err := f.OSFS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: file, fs: f, log: strings.HasSuffix(name, logSuffix)}, nil
}

func (f *faultFS) Rename(oldpath, newpath string) error {
	if err := f.step(); err != nil {
		return err
	}
	return f.OSFS.Rename(oldpath, newpath)
}

func (f *faultFS) Remove(name string) error {
	if err := f.step(); err != nil {
		return err
	}
	return f.OSFS.Remove(name)
}

func (f *faultFS) SyncDir(dir string) error {
	if err := f.step(); err != nil {
		return err
	}
	return f.OSFS.SyncDir(dir)
}

type faultFile struct {
	File
	fs  *faultFS
	log bool
}

func (f *faultFile) Write(p []byte) (int, error) {
	if err := f.fs.step(); err != nil {
		return 0, err
	}
	f.fs.mu.Lock()
	space := f.fs.writeSpace
	short := f.log && space >= 0 && int64(len(p)) > space
	if f.log && space >= 0 {
		f.fs.writeSpace = max(0, space-int64(len(p)))
	}
	f.fs.mu.Unlock()
	if short {
		n, _ := f.File.Write(p[:space])
		return n, &os.PathError{Op: "write", Path: "log", Err: syscall.ENOSPC}
	}
	return f.File.Write(p)
}

func (f *faultFile) Sync() error {
	if err := f.fs.step(); err != nil {
		return err
	}
	f.fs.mu.Lock()
	gate, called, serr := f.fs.syncGate, f.fs.syncCalled, f.fs.syncErr
	f.fs.mu.Unlock()
	if gate != nil && f.log {
		called <- struct{}{}
		<-gate
	}
	if serr != nil {
		return serr
	}
	return f.File.Sync()
}

func (f *faultFile) Truncate(size int64) error {
	if err := f.fs.step(); err != nil {
		return err
	}
	return f.File.Truncate(size)
}
