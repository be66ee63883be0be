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
	blocked := map[*waiter]bool{}
	for k, q := range db.waiters {
		d := 0
		for _, e := range q.ws {
			if e.live() {
				blocked[e.w] = true
			} else {
				d++
			}
		}
		if d != q.dead {
			return fmt.Errorf("queue %q counts %d dead entries, holds %d", k, q.dead, d)
		}
	}
	if len(blocked) != db.nblocked {
		return fmt.Errorf("%d waiters queued, nblocked %d", len(blocked), db.nblocked)
	}
	if len(db.ready) != 0 {
		return fmt.Errorf("%d ready keys left unserved", len(db.ready))
	}
	return nil
}

func mustCheck(t testing.TB, db *DB) {
	t.Helper()
	if err := db.check(); err != nil {
		t.Fatal(err)
	}
}
