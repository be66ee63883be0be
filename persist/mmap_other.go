//go:build !linux

package persist

// defaultMapper is nil: without mremap(2) and fallocate(2) every log is written with
// write(2).
var defaultMapper mapper
