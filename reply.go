package zlite

import (
	"iter"
	"maps"
	"slices"
	"strings"
)

// reply declares how a command's reply from [DB.Do] maps onto the Redis protocol:
// which null it is, whether a string is a status reply, and which strings RESP3
// sends as doubles. Every command declares one in its register call (the zero value
// is refused by the command table's test); [Command.Shape] resolves it for one call.
type reply uint8

const (
	replyUndeclared reply = iota
	// replyBulk: strings are bulk strings; nil is a null bulk string.
	replyBulk
	// replyStatus: strings are status replies (+OK, +zset); nil is a null bulk string.
	replyStatus
	// replyArray: nil is a null array (LMPOP, BLPOP, BLMPOP on a timeout).
	replyArray
	// replyPopCount: LPOP/RPOP: nil is a null bulk string, or a null array with a count.
	replyPopCount
	// replyScore: a string reply is a double (ZSCORE, ZINCRBY, ZADD INCR).
	replyScore
	// replyScores: each element of the array is a double or null (ZMSCORE).
	replyScores
	// replyRank: an integer, or [rank, score] with WITHSCORE (ZRANK, ZREVRANK).
	replyRank
	// replyRange: members, or member-score pairs when WITHSCORES follows the key
	// (ZRANGE, ZRANGEBYSCORE, ZREVRANGE, ZREVRANGEBYSCORE, ZRANDMEMBER).
	replyRange
	// replyAlgebra: as replyRange, with WITHSCORES after the numkeys keys (ZUNION,
	// ZINTER, ZDIFF).
	replyAlgebra
	// replyPop: member-score pairs, flat without a count and nested in RESP3 with one
	// (ZPOPMIN, ZPOPMAX).
	replyPop
	// replyKeyScore: [key, member, score]; nil is a null array (BZPOPMIN, BZPOPMAX).
	replyKeyScore
	// replyMPop: [key, [[member, score], ...]]; nil is a null array (ZMPOP, BZMPOP).
	replyMPop
	// replyMove: BLMOVE, BRPOPLPUSH: a timeout is a null array, but nothing ready
	// inside a batch (MULTI) is a null bulk string, as in Redis.
	replyMove
)

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

// Shape is how one reply of [DB.Do] is written in the Redis protocol: a server
// needs it because Do's nil and string do not say which RESP type they were.
type Shape struct {
	// NullArray is set when a nil reply is a null array (RESP2 "*-1"), not a null
	// bulk string ("$-1"). RESP3 has a single null ("_").
	NullArray bool
	// Status is set when a string reply is a status reply ("+OK"), not a bulk string.
	Status bool
	// BatchNullBulk is set when a nil reply inside a batch (EXEC, [Tx.Do]) is a
	// null bulk string although NullArray is set (BLMOVE, BRPOPLPUSH).
	BatchNullBulk bool
	// Doubles says which strings RESP3 sends as doubles.
	Doubles Doubles
}

// Command is an entry of the command table behind [DB.Do]: what a server needs to
// know about a command beyond running it. The zero Command is not valid.
type Command struct{ c *command }

// Lookup finds the command named by args[0] (case-insensitively) and checks the
// number of words, returning Redis's error texts for an unknown command or a wrong
// arity, exactly as [DB.Do] would. The complexity is O(1).
func Lookup(args []string) (Command, error) {
	c, err := lookup(args)
	return Command{c}, err
}

// Commands returns every command of the table in name order. The complexity is
// O(n log n) in the number of commands.
func Commands() iter.Seq[Command] {
	return func(yield func(Command) bool) {
		for _, name := range slices.Sorted(maps.Keys(commands)) {
			if !yield(Command{commands[name]}) {
				return
			}
		}
	}
}

// Name returns the command's lower-case name.
func (c Command) Name() string { return c.c.name }

// Arity returns the command's arity as Redis's COMMAND reports it: n > 0 means
// exactly n words, the name included; n < 0 means at least -n.
func (c Command) Arity() int { return c.c.arity }

// Write reports whether the command may modify the keyspace.
func (c Command) Write() bool { return c.c.write }

// Keys returns the key positions that Redis's COMMAND INFO reports for the
// command: the first key's index, the last's (negative: from the end) and the step.
// Commands whose keys a count argument gives (ZUNION, LMPOP, ...) report only the
// keys before it (ZUNIONSTORE's destination), and commands over the whole keyspace
// none (0, 0, 0), as Redis does. O(1).
func (c Command) Keys() (first, last, step int) {
	k := c.c.keys
	switch {
	case k.whole:
		return 0, 0, 0
	case k.first == 0 && k.numkeys == 0:
		return 1, 1, 1
	}
	return k.first, k.last, k.step
}

// Blocking reports whether the command may block (BLPOP, BZPOPMIN, ...).
func (c Command) Blocking() bool { return c.c.block != nil }

// Shape returns how the reply of the command called with args (args[0] its name)
// is written in the Redis protocol. It only looks at the options that change the
// reply's form (a COUNT, WITHSCORES); it does not validate args. The complexity is
// O(len(args)).
func (c Command) Shape(args []string) Shape {
	switch c.c.reply {
	case replyStatus:
		return Shape{Status: true}
	case replyArray:
		return Shape{NullArray: true}
	case replyPopCount:
		return Shape{NullArray: len(args) > 2}
	case replyScore:
		return Shape{Doubles: DoubleScalar}
	case replyScores:
		return Shape{Doubles: DoubleEach}
	case replyRank:
		return Shape{Doubles: DoubleLast}
	case replyRange:
		return withScores(args, 2)
	case replyAlgebra:
		if len(args) > 1 {
			if n, err := parseInt(args[1]); err == nil && n >= 0 && n < int64(len(args)) {
				return withScores(args, 2+int(n))
			}
		}
		return Shape{}
	case replyPop:
		if len(args) > 2 {
			return Shape{Doubles: DoublePairs}
		}
		return Shape{Doubles: DoubleFlatPairs}
	case replyKeyScore:
		return Shape{NullArray: true, Doubles: DoubleLast}
	case replyMPop:
		return Shape{NullArray: true, Doubles: DoubleMPop}
	case replyMove:
		return Shape{NullArray: true, BatchNullBulk: true}
	}
	return Shape{}
}

// A PairWriter takes the member-score pairs of a reply as the command produces them,
// in the reply's order, in place of the []any of [DB.Do]: a server that encodes them
// at once spares the member copies, the slices, the interface values and the
// formatted scores (see [DoPipelinedTo]). Pairs is called once, before the n calls
// of Pair. The member Pair is given is a view of the keyspace's storage, valid only
// during the call: the writer must copy what it keeps. A PairWriter is used by one
// command at a time, under the keyspace's lock: it must not call the DB.
type PairWriter interface {
	Pairs(n int)
	Pair(member string, score float64)
}

// WrittenPairs is the Value of a [Result] of [DoPipelinedTo] whose command wrote its
// reply to the PairWriter: the pairs of that call of Pairs, in the form that the
// command's [Shape] declares (ZPOPMIN and ZPOPMAX, the only commands that write
// pairs).
type WrittenPairs struct{}

// withScores is the shape of a range reply whose options start at args[from]: the
// option parsers accept WITHSCORES only as an option word (an integer, a bound or a
// weight cannot be it without an error reply), so seeing the word there is exact.
func withScores(args []string, from int) Shape {
	for _, a := range args[min(from, len(args)):] {
		if strings.EqualFold(a, "withscores") {
			return Shape{Doubles: DoublePairs}
		}
	}
	return Shape{}
}
