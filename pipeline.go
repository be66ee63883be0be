package zlite

import "context"

// A Result is one command's reply and error, as [DB.Do] returns them.
type Result struct {
	Value any
	Err   error
}

// DoPipelined runs cmds on db in order and stores the reply of cmds[i] in results[i]
// (which must be at least as long), each exactly as [DB.Do] would reply it, with
// no command of another caller in between: as Redis runs the commands a client has
// pipelined, one after the other, before it reads another client's.
//
// The commands run as one critical section (one lock instead of one per command)
// while that is observably the same as running them one at a time: when no caller
// is blocked on a key of the keyspace (so no command of cmds has a waiter to serve
// between it and the next, as Redis serves them), the keyspace logs no writes
// (a DB made by [Open] makes each command durable on its own) and does not time
// commands ([WithLatencyTracking]). From the first blocking command on, and for
// all of them otherwise, each command runs as its own Do with ctx. The complexity
// is that of the commands.
//
// It is a function rather than a method of DB because every DB method but a few
// mirrors a Tx method (see db_methods.go).
func DoPipelined(ctx context.Context, db *DB, cmds [][]string, results []Result) {
	i := 0
	if len(cmds) > 1 {
		_ = db.Update(func(tx *Tx) error {
			if db.dur != nil || db.stats.timed || db.waits.Blocked() > 0 {
				return nil
			}
			defer func() {
				// The active expiry of the commands run: Update's unlock does one
				// command's worth.
				if i > 1 {
					db.reclaim((i - 1) * activeBudget)
				}
			}()
			for ; i < len(cmds); i++ {
				c, err := lookup(cmds[i])
				switch {
				case err != nil:
					results[i] = Result{Err: err}
					continue
				case c.block != nil:
					return nil
				}
				// Tx.Do without its second lookup; its write check cannot fail
				// in the writable Tx of a DB without a log.
				db.count(c.stat)
				results[i].Value, results[i].Err = c.run(tx, cmds[i])
			}
			return nil
		})
	}
	for ; i < len(cmds); i++ {
		results[i].Value, results[i].Err = db.Do(ctx, cmds[i]...)
	}
}
