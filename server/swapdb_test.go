package server

import (
	"errors"
	"slices"
	"sync"
	"testing"
)

// TestSwapHandler: SWAPDB calls WithSwapHandler's function before it swaps, with
// the two numbers, and not for SWAPDB n n nor for refused arguments; an error
// fails SWAPDB and leaves both keyspaces in place.
func TestSwapHandler(t *testing.T) {
	// The handler runs on the connection's goroutine: mu orders its accesses
	// with the test's (the race detector does not see the socket's order).
	var mu sync.Mutex
	var calls [][2]int
	var fail error
	addr, _ := startServer(t, WithSwapHandler(func(i, j int) error {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, [2]int{i, j})
		return fail
	}))
	// took returns the calls since the last took.
	took := func() [][2]int {
		mu.Lock()
		defer mu.Unlock()
		c := calls
		calls = nil
		return c
	}
	c := dial(t, addr)
	c.do("SET", "k", "zero")
	for _, tc := range []struct {
		args  []string
		want  string
		calls [][2]int
	}{
		{[]string{"SWAPDB", "0", "1"}, "+OK\r\n", [][2]int{{0, 1}}},
		{[]string{"SWAPDB", "3", "3"}, "+OK\r\n", nil},
		{[]string{"SWAPDB", "x", "1"}, "-ERR invalid first DB index\r\n", nil},
		{[]string{"SWAPDB", "0", "16"}, "-ERR DB index is out of range\r\n", nil},
	} {
		if r, calls := c.do(tc.args...), took(); r != tc.want || !slices.Equal(calls, tc.calls) {
			t.Errorf("%q = %q, handler called with %v; want %q, %v", tc.args, r, calls, tc.want, tc.calls)
		}
	}
	c.do("MULTI")
	c.do("SWAPDB", "4", "5")
	if r, calls := c.do("EXEC"), took(); r != "*1\r\n+OK\r\n" || !slices.Equal(calls, [][2]int{{4, 5}}) {
		t.Errorf("EXEC of SWAPDB 4 5 = %q, handler called with %v; want [OK], [[4 5]]", r, calls)
	}
	if r := c.do("SELECT", "1"); r != "+OK\r\n" {
		t.Fatalf("SELECT 1 = %q", r)
	}
	if r := c.do("GET", "k"); r != "$4\r\nzero\r\n" {
		t.Errorf("after SWAPDB 0 1, GET k in db 1 = %q; want zero", r)
	}
	mu.Lock()
	fail = errors.New("disk full")
	mu.Unlock()
	if r, want := c.do("SWAPDB", "1", "2"), "-ERR SWAPDB could not be persisted: disk full\r\n"; r != want {
		t.Errorf("SWAPDB 1 2 with a failing handler = %q; want %q", r, want)
	}
	if r := c.do("GET", "k"); r != "$4\r\nzero\r\n" {
		t.Errorf("after a failed SWAPDB 1 2, GET k in db 1 = %q; want zero (no swap)", r)
	}
}
