//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package persist

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// Lock takes flock(2) LOCK_EX on path without waiting; the kernel releases it when the
// process ends, however it ends.
func (OSFS) Lock(path string) (io.Closer, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s", ErrLocked, path)
		}
		return nil, fmt.Errorf("persist: locking %s: %w", path, err)
	}
	return f, nil
}
