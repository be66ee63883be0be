package server

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
)

// errorStats counts the server's error replies by their code, as INFO errorstats:
// the error's first word when a space ends it within its first 31 bytes, else ERR.
// At most maxErrorCodes codes are kept; the errors of codes beyond them count in
// the total only.
type errorStats struct {
	mu    sync.Mutex
	n     int64
	codes map[string]int64
}

// maxErrorCodes bounds the codes errorStats keeps (Redis's ERROR_STATS_NUMBER), so
// that errors echoing client input cannot grow it without bound.
const maxErrorCodes = 128

// add counts the error reply s (without its '-').
func (e *errorStats) add(s string) {
	code := "ERR"
	if i := strings.IndexByte(s[:min(len(s), 31)], ' '); i >= 0 {
		code = s[:i]
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.n++
	if e.codes == nil {
		e.codes = map[string]int64{}
	}
	if _, ok := e.codes[code]; ok || len(e.codes) < maxErrorCodes {
		e.codes[strings.Clone(code)]++
	}
}

// total is the number of error replies (total_error_replies).
func (e *errorStats) total() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.n
}

type errorCount struct {
	code string
	n    int64
}

// counts returns the counts by code, in code order (Redis walks a radix tree).
func (e *errorStats) counts() []errorCount {
	e.mu.Lock()
	out := make([]errorCount, 0, len(e.codes))
	for c, n := range e.codes {
		out = append(out, errorCount{c, n})
	}
	e.mu.Unlock()
	slices.SortFunc(out, func(a, b errorCount) int { return strings.Compare(a.code, b.code) })
	return out
}

// reset forgets the counts (CONFIG RESETSTAT).
func (e *errorStats) reset() {
	e.mu.Lock()
	e.n, e.codes = 0, nil
	e.mu.Unlock()
}

// randomHex returns n random hexadecimal digits (n even).
func randomHex(n int) string {
	b := make([]byte, n/2)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
