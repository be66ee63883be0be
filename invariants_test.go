package zlite

import (
	"fmt"
	"testing"
)

// check verifies the keyspace's invariants; call it with no command running.
func (db *DB) check() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	for k, e := range db.keys {
		v, ok := e.val.(interface{ Len() int })
		if !ok || v.Len() == 0 {
			return fmt.Errorf("key %q holds %T with no elements", k, e.val)
		}
	}
	live, dead := 0, 0
	for i, s := range db.order {
		if i > 0 && s.seq <= db.order[i-1].seq {
			return fmt.Errorf("SCAN order not increasing at %d", i)
		}
		if !s.live {
			dead++
			continue
		}
		live++
		if e, ok := db.keys[s.key]; !ok || e.seq != s.seq {
			return fmt.Errorf("SCAN slot %q seq %d does not match the key", s.key, s.seq)
		}
	}
	if live != len(db.keys) || dead != db.dead {
		return fmt.Errorf("SCAN order has %d live, %d dead slots; want %d, %d", live, dead, len(db.keys), db.dead)
	}
	return db.waits.Check()
}

func mustCheck(t testing.TB, db *DB) {
	t.Helper()
	if err := db.check(); err != nil {
		t.Fatal(err)
	}
}
