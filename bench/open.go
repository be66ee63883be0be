package bench

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zlite/zlite/internal/redistest"
)

// SystemNames lists every system [Open] knows, in column order.
var SystemNames = []string{"zlite", "zlite-do", "redis", "redis-pipe", "miniredis"}

// Open returns the named systems, in the order of [SystemNames]. The Redis systems
// use the server at REDIS_ADDR when it is set, and otherwise start redis-server
// from PATH on a free 127.0.0.1 port with persistence off; when neither is possible
// they are left out and a note says why. The returned close function releases every
// system and stops a server that Open started.
func Open(names []string) (systems []System, notes []string, closeAll func(), err error) {
	for _, n := range names {
		if !slices.Contains(SystemNames, n) {
			return nil, nil, nil, fmt.Errorf("bench: unknown system %q (known: %s)", n, strings.Join(SystemNames, ", "))
		}
	}
	closeAll = func() {
		for _, s := range systems {
			s.Close()
		}
		redistest.Stop()
	}
	for _, name := range SystemNames {
		if !slices.Contains(names, name) {
			continue
		}
		switch name {
		case "zlite":
			systems = append(systems, NewZlite())
		case "zlite-do":
			systems = append(systems, NewZliteDo())
		case "redis", "redis-pipe":
			addr, err := redistest.Addr()
			if err != nil {
				notes = append(notes, fmt.Sprintf("Redis columns left out: %v (set REDIS_ADDR or install redis-server to include them).", err))
				continue
			}
			systems = append(systems, NewRedis(addr, name == "redis-pipe"))
		case "miniredis":
			m, err := NewMiniredis()
			if err != nil {
				closeAll()
				return nil, nil, nil, err
			}
			systems = append(systems, m)
		}
	}
	if len(systems) == 0 {
		closeAll()
		return nil, nil, nil, errors.New("bench: no system to measure")
	}
	return systems, dedupe(notes), closeAll, nil
}

func dedupe(notes []string) []string {
	var out []string
	for _, n := range notes {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
