package server

import (
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// rawIO reads and writes a socket of the net package (non-blocking, as all of
// them are) with raw system calls through its [syscall.RawConn]: the runtime's
// poller still waits for readiness and applies the deadlines, but a call that
// does not block costs no entry into and exit from the scheduler's syscall state.
// That entry wakes the runtime's monitor thread whenever every P was idle, which
// a connection that waits for each pipeline's next request makes it be before
// every read: on two cores, a thread woken per request and a reply takes CPU from
// the client. A read or write never blocks the thread: it returns EAGAIN, and the
// goroutine parks in the poller as with [net.Conn.Read].
type rawIO struct {
	rc syscall.RawConn
}

// newRawIO returns the raw I/O of nc when it is a socket of the net package.
func newRawIO(nc net.Conn) (*rawIO, bool) {
	switch nc.(type) {
	case *net.TCPConn, *net.UnixConn:
	default:
		return nil, false
	}
	rc, err := nc.(syscall.Conn).SyscallConn()
	if err != nil {
		return nil, false
	}
	return &rawIO{rc: rc}, true
}

// Read reads as net.Conn's Read: at least one byte, io.EOF at the end of the
// stream, the poller's error (closed, deadline exceeded) as that of Read.
func (r *rawIO) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := r.rc.Read(func(fd uintptr) bool {
		for {
			k, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false
			}
			n, errno = int(k), e
			return true
		}
	})
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, os.NewSyscallError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write writes all of p, waiting in the poller while the socket's buffer is full.
func (r *rawIO) Write(p []byte) (int, error) {
	n := 0
	var errno syscall.Errno
	err := r.rc.Write(func(fd uintptr) bool {
		for n < len(p) {
			k, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[n])), uintptr(len(p)-n))
			switch e {
			case 0:
				n += int(k)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false
			default:
				errno = e
				return true
			}
		}
		return true
	})
	switch {
	case err != nil:
		return n, err
	case errno != 0:
		return n, os.NewSyscallError("write", errno)
	}
	return n, nil
}
