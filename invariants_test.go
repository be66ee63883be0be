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
	if err := db.checkExpiries(); err != nil {
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

// checkExpiries verifies the expiry index: an entry has the ttl flag exactly when
// its seq is in exp.at, every time in exp.at has a ref in the heap, and the heap is a
// min-heap.
func (db *DB) checkExpiries() error {
	flagged := 0
	for i, e := range db.keys.ents {
		if !e.ttl {
			continue
		}
		if !db.keys.live(i) {
			return fmt.Errorf("deleted entry %d has the ttl flag", i)
		}
		if _, ok := db.exp.at[e.seq]; !ok {
			return fmt.Errorf("key %q has the ttl flag but no expiry time", db.keys.key(i))
		}
		flagged++
	}
	if flagged != len(db.exp.at) {
		return fmt.Errorf("%d keys flagged with a TTL, %d expiry times", flagged, len(db.exp.at))
	}
	if h, k := len(db.exp.heap), len(db.exp.at); h > 2*k+64 {
		return fmt.Errorf("expiry heap holds %d refs for %d keys with a TTL", h, k)
	}
	refs := map[expiryRef]bool{}
	for i, r := range db.exp.heap {
		refs[r] = true
		if p := (i - 1) / 2; i > 0 && db.exp.heap[p].at > r.at {
			return fmt.Errorf("expiry heap out of order at %d", i)
		}
	}
	for seq, at := range db.exp.at {
		if !refs[expiryRef{at: at, seq: seq}] {
			return fmt.Errorf("expiry time %d of seq %d has no heap ref", at, seq)
		}
	}
	return nil
}
