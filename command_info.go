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

// LookupName finds the command named name (case-insensitively) without looking
// at its arguments. The complexity is O(len(name)).
func LookupName(name string) (Command, bool) {
	c, ok := commands[strings.ToLower(name)]
	return Command{c}, ok
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

// HasKeys reports whether the command names keys among its arguments (those over
// the whole keyspace, KEYS or SCAN, do not; SORT does). O(1).
func (c Command) HasKeys() bool {
	return !c.c.keys.whole || c.c.name == "sort" || c.c.name == "sort_ro"
}

// KeysIn returns the keys that the command in args (its words, the name first, of
// a length [Lookup] accepts) names, as Redis's COMMAND GETKEYS finds them: SORT's
// key and the last STORE destination, the keys a count argument gives, and so on.
// It returns false when the arguments do not say (a key count that is not a number
// in range). O(len(args)).
func (c Command) KeysIn(args []string) ([]string, bool) {
	k := c.c.keys
	switch {
	case c.c.name == "sort" || c.c.name == "sort_ro":
		return sortKeys(args), true
	case k.whole:
		return nil, true
	case k.first == 0 && k.numkeys == 0:
		return args[1:2], true
	}
	r, ok := k.ranges(args)
	if !ok {
		return nil, false
	}
	var keys []string
	for i := r.first; i <= r.last; i += r.step {
		keys = append(keys, args[i])
	}
	return append(keys, args[r.counted[0]:r.counted[1]]...), true
}

// sortKeys is SORT's keys as Redis finds them without parsing the command: the
// sorted key, then the word after the last STORE, skipping the words of LIMIT,
// GET and BY.
func sortKeys(args []string) []string {
	keys := []string{args[1]}
	store := -1
	for i := 2; i < len(args); i++ {
		switch strings.ToLower(args[i]) {
		case "limit":
			i += 2
		case "get", "by":
			i++
		case "store":
			if i+1 < len(args) {
				store = i + 1
			}
		}
	}
	if store > 0 {
		keys = append(keys, args[store])
	}
	return keys
}

// Blocking reports whether the command may block (BLPOP, BZPOPMIN, ...).
func (c Command) Blocking() bool { return c.c.block != nil }
