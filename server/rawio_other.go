//go:build !linux

package server

import "net"

// rawIO is Linux's raw socket I/O (see rawio_linux.go); elsewhere connections
// use net.Conn's Read and Write.
type rawIO struct{ net.Conn }

func newRawIO(net.Conn) (*rawIO, bool) { return nil, false }
