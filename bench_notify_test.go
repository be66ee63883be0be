package zlite

import (
	"context"
	"testing"
)

// BenchmarkNotify measures what keyspace notifications cost a write: events=off
// (the default: one atomic load and a branch, no allocation), events=on with
// nobody subscribed (the channel names are still built and looked up), and
// events=sub with a pattern subscriber that receives every event and is drained
// as it goes. It reports the events published per operation.
func BenchmarkNotify(b *testing.B) {
	ctx := context.Background()
	cmds := []struct {
		name string
		run  func(db *DB, i int) error
	}{
		{"SET", func(db *DB, _ int) error { return db.Set(ctx, "k", "v", 0) }},
		{"INCR", func(db *DB, _ int) error { _, err := db.Incr(ctx, "n"); return err }},
		{"ZADD", func(db *DB, i int) error { _, err := db.ZAdd(ctx, "z", Z{Member: "m", Score: float64(i)}); return err }},
		{"LPUSH", func(db *DB, _ int) error {
			if _, err := db.LPush(ctx, "l", "x"); err != nil {
				return err
			}
			_, _, err := db.RPop(ctx, "l") // keep the list short
			return err
		}},
	}
	for _, c := range cmds {
		for _, mode := range []string{"off", "on", "sub"} {
			b.Run("cmd="+c.name+"/events="+mode, func(b *testing.B) {
				db := New()
				if mode != "off" {
					db.SetKeyspaceEvents(EventsKeyspace | EventsKeyevent | EventsAll)
				}
				var events int
				drain := func() {}
				if mode == "sub" {
					s := db.PSubscribe(ctx, "__key*__:*")
					defer s.Close()
					drain = func() {
						msgs, err := s.Drain(nil)
						if err != nil {
							b.Fatal(err)
						}
						events += len(msgs)
					}
				}
				b.ReportAllocs()
				ops := 0
				for b.Loop() {
					if err := c.run(db, ops); err != nil {
						b.Fatal(err)
					}
					drain()
					ops++
				}
				if mode == "sub" {
					b.ReportMetric(float64(events)/float64(ops), "msgs/op")
				}
			})
		}
	}
}
