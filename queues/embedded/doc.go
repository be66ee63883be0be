// Package embedded is the [queues.Backend] on the in-process keyspace of package
// zlite: no server, no network, and the same queue types as on a real Redis
// (package github.com/zlite/zlite/queues/redisq).
//
//	db := zlite.New()
//	q := queues.NewFIFO(embedded.New(db), "jobs")
//
// # Semantics
//
// A queue's script runs its Go half inside one [zlite.DB.Update], so each script is
// atomic with respect to every other command on db, as EVALSHA is on Redis. The
// blocking pops are the keyspace's own: an element goes to the longest-waiting
// caller under the lock of the write that made it available, and timeouts are exact
// rather than Redis's coarse server timer.
//
// # Concurrency
//
// A Backend is safe for concurrent use, and several Backends (and other users) may
// share one db. A call whose context is already done takes nothing: the blocking
// methods check ctx before they look at the keys.
//
// # Costs
//
// A call costs the keyspace command it runs (see each method), with no encoding,
// copying to a socket or round trip.
package embedded
