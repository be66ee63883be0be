// Package testmain is the TestMain of the packages whose tests start redis-servers
// (through internal/redistest) or goroutines: it runs the tests, stops every server
// started, and fails a passing run that left goroutines behind (goleak).
//
//	func TestMain(m *testing.M) { testmain.Run(m) }
//
// It is for tests only; the library never imports it.
package testmain

import (
	"fmt"
	"os"
	"testing"

	"github.com/zlite/zlite/internal/redistest"
	"go.uber.org/goleak"
)

// Run runs m's tests, then each of cleanup in order (closing clients the tests
// shared, say), stops the redis-servers internal/redistest started, checks for
// leaked goroutines when the tests passed, and exits with the result.
func Run(m *testing.M, cleanup ...func()) { RunIgnoring(m, nil, cleanup...) }

// RunIgnoring is [Run] with a leak check that passes over goroutines whose stack
// tops in one of the functions named in top: those of a library that end on their
// own some time after its Close, such as a ticker loop that sees the close at its
// next tick.
func RunIgnoring(m *testing.M, top []string, cleanup ...func()) {
	code := m.Run()
	for _, f := range cleanup {
		f()
	}
	redistest.Stop()
	if code == 0 {
		var opts []goleak.Option
		for _, f := range top {
			opts = append(opts, goleak.IgnoreTopFunction(f))
		}
		if err := goleak.Find(opts...); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
