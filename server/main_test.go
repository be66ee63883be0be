package server

import (
	"fmt"
	"os"
	"testing"

	"github.com/zlite/zlite/internal/redistest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	code := m.Run()
	redistest.Stop()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
