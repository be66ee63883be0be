//go:build !amd64 && !arm64

package prefetch

import "unsafe"

// Line does nothing on this architecture (see the package doc). O(1).
func Line(p unsafe.Pointer) {}

// Span does nothing on this architecture (see the package doc). O(1).
func Span(p unsafe.Pointer, n uintptr) {}
