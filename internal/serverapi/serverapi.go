// Package serverapi is what the Redis protocol server (package server) needs of a
// keyspace beyond package zlite's public API: how each reply is written (Shape), a
// pipeline run under one lock with its pairs written straight into the reply
// (DoPipelined, PairWriter), the notices of a blocking command (DoNotify) and the
// expiry counts of INFO. It is internal so that none of it is part of zlite's API.
//
// Package zlite fills in the functions when it is initialised ([Register]); the
// server fetches them, typed, with [Get]. Their concurrency contract and costs are
// those of the keyspace: each is safe for concurrent use, as [zlite.DB.Do] is.
package serverapi

import "context"

// Doubles says which strings of a reply RESP3 sends as doubles (",1.5"); RESP2
// sends them as bulk strings.
type Doubles uint8

const (
	// NoDoubles: every string is a bulk string (or a status reply).
	NoDoubles Doubles = iota
	// DoubleScalar: the reply, a string, is a double (ZSCORE).
	DoubleScalar
	// DoubleEach: each string element of the array reply is a double (ZMSCORE).
	DoubleEach
	// DoublePairs: the array reply is flat member-score pairs; RESP3 nests them as
	// [[member, score], ...] (ZRANGE ... WITHSCORES, ZPOPMIN with a count).
	DoublePairs
	// DoubleFlatPairs: flat member-score pairs that stay flat in RESP3 (ZPOPMIN
	// without a count).
	DoubleFlatPairs
	// DoubleLast: the last element of the array reply is a double ([key, member,
	// score] of BZPOPMIN, [rank, score] of ZRANK WITHSCORE).
	DoubleLast
	// DoubleMPop: the reply is [key, [[member, score], ...]] (ZMPOP, BZMPOP).
	DoubleMPop
)

// Aggregate is the RESP3 type of an array reply; RESP2 sends every one as a flat
// array.
type Aggregate uint8

const (
	// Array: an array (RESP3 "*").
	Array Aggregate = iota
	// Map: the flat [field, value, ...] reply is a map (RESP3 "%"; HGETALL).
	Map
	// SetOf: a set (RESP3 "~"; SMEMBERS, SINTER, SPOP with a count).
	SetOf
	// Pairs: the flat [a, b, ...] reply is an array of [a, b] arrays (RESP3;
	// HRANDFIELD ... WITHVALUES).
	Pairs
)

// Shape is how one reply of [zlite.DB.Do] is written in the Redis protocol: a
// server needs it because Do's nil and string do not say which RESP type they were.
type Shape struct {
	// NullArray is set when a nil reply is a null array (RESP2 "*-1"), not a null
	// bulk string ("$-1"). RESP3 has a single null ("_").
	NullArray bool
	// Status is set when a string reply is a status reply ("+OK"), not a bulk string.
	Status bool
	// BatchNullBulk is set when a nil reply inside a batch (EXEC, [zlite.Tx.Do]) is
	// a null bulk string although NullArray is set (BLMOVE, BRPOPLPUSH).
	BatchNullBulk bool
	// Doubles says which strings RESP3 sends as doubles.
	Doubles Doubles
	// Aggregate says which RESP3 type an array reply is.
	Aggregate Aggregate
}

// A Result is one command's reply and error, as [zlite.DB.Do] returns them.
type Result struct {
	Value any
	Err   error
}

// A PairWriter takes the member-score pairs of a reply as the command produces
// them, in the reply's order, in place of the []any of [zlite.DB.Do]: a server that
// encodes them at once spares the member copies, the slices, the interface values
// and the formatted scores (see Hooks.DoPipelined). Pairs is called once, before
// the n calls of Pair. The member Pair is given is a view of the keyspace's
// storage, valid only during the call: the writer must copy what it keeps. A
// PairWriter is used by one command at a time, under the keyspace's lock: it must
// not call the keyspace.
type PairWriter interface {
	Pairs(n int)
	Pair(member string, score float64)
}

// WrittenPairs is the Value of a [Result] of Hooks.DoPipelined whose command wrote
// its reply to the PairWriter: the pairs of that call of Pairs, in the form that the
// command's [Shape] declares (ZPOPMIN and ZPOPMAX, the only commands that write
// pairs).
type WrittenPairs struct{}

// Hooks is the keyspace's side of the server: DB, Tx and Command stand for
// package zlite's types of those names (type parameters, because this package
// cannot import zlite, which imports it).
type Hooks[DB, Tx, Command any] struct {
	// Shape returns how the reply of cmd called with args (args[0] its name) is
	// written. It only looks at the options that change the reply's form (a COUNT,
	// WITHSCORES) and does not validate args. O(len(args)).
	Shape func(cmd Command, args []string) Shape

	// DoNotify is DB.Do with notices for a blocking command: notify(true) is called
	// when the command blocks, and notify(false) when another command hands it its
	// element(s), both under the keyspace lock (so notify(false) runs before the
	// command that served it returns). A server uses it to report a client blocked
	// exactly while Redis would: not for a command served at once, and no longer
	// from the moment it is served. A timeout or a done ctx is not notified (Do
	// returns then); notify must not call the keyspace. For any other command it is
	// Do.
	DoNotify func(ctx context.Context, db *DB, notify func(blocked bool), args ...string) (any, error)

	// DoPipelined runs cmds on db in order and stores the reply of cmds[i] in
	// results[i] (which must be at least as long), each exactly as DB.Do would
	// reply it, with no command of another caller in between: as Redis runs the
	// commands a client has pipelined, one after the other, before it reads another
	// client's. With a PairWriter w, a command that can (ZPOPMIN, ZPOPMAX) writes the
	// member-score pairs of its reply to w instead, its result's Value then being
	// WrittenPairs; the calls of w.Pairs are in the order of those commands. The
	// complexity is that of the commands.
	DoPipelined func(ctx context.Context, db *DB, cmds [][]string, results []Result, w PairWriter)

	// ExpiryCounts returns, for the keyspace of tx, the number of keys that have a
	// TTL (INFO keyspace's expires=), counting a key whose time has come until it is
	// deleted, as Redis does, and the number of keys deleted because their time came
	// since the keyspace was made (INFO's expired_keys), over the shards tx holds.
	// O(shards).
	ExpiryCounts func(tx *Tx) (expires int64, expired uint64)
}

// hooks is the Hooks that Register was given.
var hooks any

// Register makes e the Hooks that Get returns. Package zlite calls it once, when it
// is initialised.
func Register[DB, Tx, Command any](e Hooks[DB, Tx, Command]) { hooks = e }

// Get returns the registered Hooks. It panics when none of these types was
// registered, which only a build without package zlite could do. O(1).
func Get[DB, Tx, Command any]() Hooks[DB, Tx, Command] {
	return hooks.(Hooks[DB, Tx, Command])
}
