package zlite

import (
	"context"
	"testing"
)

// TestWatch checks which writes make a Watch dirty: every real modification of a
// watched key (including a blocked pop served from it and a FLUSHALL of a keyspace
// holding it), and nothing else.
func TestWatch(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		setup [][]string
		write func(db *DB)
		dirty bool
	}{
		{"zadd", nil, func(db *DB) { db.Do(ctx, "ZADD", "k", "1", "a") }, true},
		{"lpush", nil, func(db *DB) { db.Do(ctx, "LPUSH", "k", "a") }, true},
		{"del", [][]string{{"ZADD", "k", "1", "a"}}, func(db *DB) { db.Do(ctx, "DEL", "k") }, true},
		{"rename-to", [][]string{{"ZADD", "x", "1", "a"}}, func(db *DB) { db.Do(ctx, "RENAME", "x", "k") }, true},
		{"rename-from", [][]string{{"ZADD", "k", "1", "a"}}, func(db *DB) { db.Do(ctx, "RENAME", "k", "x") }, true},
		{"store", nil, func(db *DB) { db.Do(ctx, "ZADD", "s", "1", "a"); db.Do(ctx, "ZUNIONSTORE", "k", "1", "s") }, true},
		{"pop-empties", [][]string{{"RPUSH", "k", "a"}}, func(db *DB) { db.Do(ctx, "LPOP", "k") }, true},
		{"flushall", [][]string{{"RPUSH", "k", "a"}}, func(db *DB) { db.Do(ctx, "FLUSHALL") }, true},
		{"flushall-absent", [][]string{{"RPUSH", "x", "a"}}, func(db *DB) { db.Do(ctx, "FLUSHALL") }, false},
		{"other-key", nil, func(db *DB) { db.Do(ctx, "ZADD", "x", "1", "a") }, false},
		{"read", [][]string{{"ZADD", "k", "1", "a"}}, func(db *DB) { db.Do(ctx, "ZRANGE", "k", "0", "-1") }, false},
		{"write-to-missing-no-op", nil, func(db *DB) { db.Do(ctx, "LPUSHX", "k", "a"); db.Do(ctx, "ZREM", "k", "a") }, false},
		{"update-batch", nil, func(db *DB) {
			_ = db.Update(func(tx *Tx) error { _, err := tx.Do("RPUSH", "k", "a"); return err })
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := New()
			for _, c := range tt.setup {
				if _, err := db.Do(ctx, c...); err != nil {
					t.Fatal(err)
				}
			}
			w := db.Watch("k")
			defer w.Close()
			tt.write(db)
			if got := w.Dirty(); got != tt.dirty {
				t.Fatalf("Dirty() = %v; want %v", got, tt.dirty)
			}
		})
	}
}

// TestWatchServedWaiter: a blocked pop served from a watched key, directly from a
// push or from the list, modifies it.
func TestWatchServedWaiter(t *testing.T) {
	ctx := context.Background()
	db := New()
	w := db.Watch("q")
	defer w.Close()
	done := make(chan error)
	go func() {
		_, err := db.Do(ctx, "BLPOP", "q", "0")
		done <- err
	}()
	for db.blockedCount() == 0 { // push once the BLPOP has blocked
	}
	w.dirty.Store(false)
	if _, err := db.Do(ctx, "RPUSH", "q", "a"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !w.Dirty() {
		t.Fatal("Dirty() = false after a push handed to a blocked BLPOP; want true")
	}
	w.Close()
	w.Close() // a second Close is a no-op
	db.inspect(func(sh *shard) {
		if sh.watches.n != 0 || len(sh.watches.keys) != 0 {
			t.Fatalf("after Close: %d watches on %d keys; want none", sh.watches.n, len(sh.watches.keys))
		}
	})
}
