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
func Run(m *testing.M, cleanup ...func()) {
	code := m.Run()
	for _, f := range cleanup {
		f()
	}
	redistest.Stop()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
