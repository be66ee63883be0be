package zlite

import "context"

// DoNotify is [DB.Do] on db with notices for a blocking command: notify(true) is called
// when the command blocks, and notify(false) when another command hands it its
// element(s), both under the keyspace lock (so notify(false) runs before the
// command that served it returns). A server uses it to report a client blocked
// exactly while Redis would: not for a command served at once, and no longer from
// the moment it is served. A timeout or a done ctx is not notified (Do returns
// then); notify must not call methods of db. For any other command DoNotify is Do.
// It is a function for the reason [DoPipelined] is.
func DoNotify(ctx context.Context, db *DB, notify func(blocked bool), args ...string) (any, error) {
	c, err := lookup(args)
	if err != nil || c.block == nil {
		return db.Do(ctx, args...)
	}
	// Do's blocking branch, with the notices set on the waiter.
	db.countBlocking(c.stat)
	p, err := c.block(db, args)
	if err != nil {
		return nil, err
	}
	p.notify = notify
	return db.blockReply(ctx, &p)
}
