//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package persist

import (
	"io"
	"os"
)

// Lock creates path but takes no lock on systems without flock(2): there, nothing
// stops two processes from opening the same directory.
func (OSFS) Lock(path string) (io.Closer, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
}
