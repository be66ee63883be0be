package zlite

import (
	"fmt"
	"testing"

	"github.com/zlite/zlite/blocking"
)

// check verifies the keyspace's invariants; call it with no command running.
func (db *DB) check() error {
	tx := db.lockAll()
	defer db.release(tx.held)
	for i := range db.shards {
		if err := db.shards[i].check(i); err != nil {
			return fmt.Errorf("shard %d: %w", i, err)
		}
	}
	return db.gwaits.Check()
}

// check verifies the invariants of shard number i.
func (sh *shard) check(i int) error {
	if err := sh.keys.Check(); err != nil {
		return err
	}
	if err := sh.checkExpiries(); err != nil {
		return err
	}
	for e := range sh.keys.Entries() {
		v := sh.keys.Value(e)
		if v == nil {
			continue
		}
		if l, ok := v.(interface{ Len() int }); !ok || l.Len() == 0 {
			return fmt.Errorf("key %q holds %T with no elements", sh.keys.Key(e), v)
		}
		if j := sh.db.shardOf(sh.keys.Key(e)); j != i {
			return fmt.Errorf("key %q belongs in shard %d", sh.keys.Key(e), j)
		}
	}
	return sh.waits.Check()
}

// waitStats adds up the wait queues' counts of every shard and the global ones.
func (db *DB) waitStats() blocking.Stats {
	tx := db.lockAll()
	defer db.release(tx.held)
	st := db.gwaits.Stats()
	for i := range db.shards {
		s := db.shards[i].waits.Stats()
		st.Blocked += s.Blocked
		st.Queues += s.Queues
		st.Entries += s.Entries
		st.Swept += s.Swept
	}
	return st
}

// inspect runs fn with every shard locked, for tests that look inside.
func (db *DB) inspect(fn func(sh *shard)) {
	tx := db.lockAll()
	defer db.release(tx.held)
	for i := range db.shards {
		fn(&db.shards[i])
	}
}

// keyCount returns the number of keys in the key tables, expired ones included.
func (db *DB) keyCount() int {
	n := 0
	db.inspect(func(sh *shard) { n += sh.keys.Len() })
	return n
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
func (db *shard) checkExpiries() error {
	flagged := 0
	for i := range db.keys.Entries() {
		seq, ttl := db.keys.Expiring(i)
		if !ttl {
			continue
		}
		if !db.keys.Live(i) {
			return fmt.Errorf("deleted entry %d has the ttl flag", i)
		}
		if _, ok := db.exp.at[seq]; !ok {
			return fmt.Errorf("key %q has the ttl flag but no expiry time", db.keys.Key(i))
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
