package zlite

import (
	"fmt"
	"testing"
)

// check verifies the keyspace's invariants; call it with no command running.
func (db *DB) check() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if err := db.keys.check(); err != nil {
		return err
	}
	for i := range db.keys.ents {
		v := db.keys.value(i)
		if v == nil {
			continue
		}
		if l, ok := v.(interface{ Len() int }); !ok || l.Len() == 0 {
			return fmt.Errorf("key %q holds %T with no elements", db.keys.key(i), v)
		}
	}
	return db.waits.Check()
}

func mustCheck(t testing.TB, db *DB) {
	t.Helper()
	if err := db.check(); err != nil {
		t.Fatal(err)
	}
}
