package zlite

import (
	"iter"
	"maps"
	"slices"
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
	// replySet: SET: a status reply (+OK), or the old value as a bulk string with GET.
	replySet
	// replyMap: the flat [field, value, ...] array is a RESP3 map (HGETALL).
	replyMap
	// replySetOf: the array is a RESP3 set (SMEMBERS, SINTER, SUNION, SDIFF).
	replySetOf
	// replySPop: SPOP: a bulk string, or a RESP3 set with a count.
	replySPop
	// replyRandPairs: HRANDFIELD: a bulk string, or an array; with WITHVALUES the
	// flat [field, value, ...] array is an array of pairs in RESP3.
	replyRandPairs
	// replyLCS: LCS: a bulk string or an integer, or with IDX a RESP3 map.
	replyLCS
)

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
