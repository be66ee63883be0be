package zlite

import (
	"testing"
)

// The sorted-set commands compared with a real redis-server: every command, its
// options and its error paths, in Redis's order of checks. Scores compare as
// numbers (the "scores" loosening of compare); replies in random order (ZRANDMEMBER)
// are compared sorted. ZRANK/ZREVRANK WITHSCORE is Redis 7.2 and is tested in
// zset_test.go against Redis 7.2's documented replies.

// zcase is a named transcript for compare.
type zcase struct {
	name string
	cmds [][]string
}

func runCompare(t *testing.T, cases []zcase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { compare(t, c.cmds...) })
	}
}

// seed3 creates the sorted set k = {a:1, b:2, c:3} and the list l.
var seed3 = [][]string{cmd("ZADD", "k", "1", "a", "2", "b", "3", "c"), cmd("RPUSH", "l", "x")}

// zWith prefixes the seed commands to cmds.
func zWith(seed [][]string, cmds ...[]string) [][]string {
	return append(append([][]string{}, seed...), cmds...)
}

// lexSeed creates k with members a..g, all with score 0, and the list l.
var lexSeed = [][]string{cmd("ZADD", "k", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e", "0", "f", "0", "g"), cmd("RPUSH", "l", "x")}

func TestZAddCompare(t *testing.T) {
	runCompare(t, []zcase{
		{"basic", [][]string{cmd("ZADD", "k", "1", "a"), cmd("ZADD", "k", "2", "b", "1", "a", "3", "c"),
			cmd("ZADD", "k", "5", "a"), cmd("ZRANGE", "k", "0", "-1", "WITHSCORES"), cmd("zadd", "k", "1.5", "d"),
			cmd("ZSCORE", "k", "d"), cmd("TYPE", "k")}},
		{"duplicates apply left to right", [][]string{cmd("ZADD", "k", "1", "a", "2", "a", "3", "a"),
			cmd("ZSCORE", "k", "a"), cmd("ZADD", "k", "CH", "4", "a", "3", "a")}},
		{"NX XX CH", [][]string{cmd("ZADD", "k", "1", "a"), cmd("ZADD", "k", "NX", "5", "a", "2", "b"),
			cmd("ZADD", "k", "XX", "7", "a", "3", "c"), cmd("ZRANGE", "k", "0", "-1", "WITHSCORES"),
			cmd("ZADD", "k", "CH", "8", "a", "2", "b", "9", "d"), cmd("ZADD", "k", "XX", "CH", "1", "a", "1", "z"),
			cmd("ZADD", "k", "nx", "ch", "1", "a", "1", "y")}},
		{"XX never creates the key", [][]string{cmd("ZADD", "k", "XX", "1", "a"), cmd("EXISTS", "k"),
			cmd("ZADD", "k", "XX", "INCR", "1", "a"), cmd("EXISTS", "k"), cmd("ZADD", "k", "XX", "CH", "GT", "1", "a"),
			cmd("EXISTS", "k")}},
		{"GT LT", [][]string{cmd("ZADD", "k", "5", "a", "5", "b"), cmd("ZADD", "k", "GT", "CH", "6", "a", "4", "b", "1", "c"),
			cmd("ZADD", "k", "LT", "CH", "1", "a", "9", "b", "2", "d"), cmd("ZRANGE", "k", "0", "-1", "WITHSCORES"),
			cmd("ZADD", "k", "XX", "GT", "CH", "100", "a", "100", "new"), cmd("ZRANGE", "k", "0", "-1", "WITHSCORES")}},
		{"INCR", [][]string{cmd("ZADD", "k", "INCR", "1.5", "a"), cmd("ZADD", "k", "INCR", "2", "a"),
			cmd("ZADD", "k", "NX", "INCR", "1", "a"), cmd("ZADD", "k", "XX", "INCR", "1", "b"),
			cmd("ZADD", "k", "GT", "INCR", "-1", "a"), cmd("ZADD", "k", "LT", "INCR", "-1", "a"),
			cmd("ZADD", "k", "GT", "INCR", "1", "a"), cmd("ZADD", "k", "CH", "INCR", "0", "a"),
			cmd("ZADD", "k", "LT", "INCR", "5", "new"), cmd("ZRANGE", "k", "0", "-1", "WITHSCORES")}},
		{"infinities and NaN", [][]string{cmd("ZADD", "k", "inf", "a", "-inf", "b", "+inf", "c"),
			cmd("ZADD", "k", "INCR", "-inf", "a"), cmd("ZSCORE", "k", "a"), cmd("ZADD", "k", "INCR", "1", "a"),
			cmd("ZADD", "k", "-0", "z", "0", "y"), cmd("ZADD", "k", "CH", "0", "z"),
			cmd("ZRANGE", "k", "0", "-1", "WITHSCORES")}},
		{"score syntax", [][]string{cmd("ZADD", "k", "1e3", "a", "0x10", "b", "-.5", "c", "5.", "d"),
			cmd("ZADD", "k", "1e400", "x"), cmd("ZADD", "k", " 1", "x"), cmd("ZADD", "k", "1 ", "x"),
			cmd("ZADD", "k", "nan", "x"), cmd("ZADD", "k", "", "x"), cmd("ZADD", "k", "1e-400", "x"),
			cmd("ZADD", "k", "inFinity", "x"), cmd("ZRANGE", "k", "0", "-1", "WITHSCORES")}},
		{"errors", [][]string{cmd("ZADD", "k"), cmd("ZADD", "k", "1"), cmd("ZADD", "k", "NX"),
			cmd("ZADD", "k", "NX", "CH"), cmd("ZADD", "k", "1", "a", "2"), cmd("ZADD", "k", "NX", "XX", "1", "a"),
			cmd("ZADD", "k", "GT", "LT", "1", "a"), cmd("ZADD", "k", "NX", "GT", "1", "a"), cmd("ZADD", "k", "NX", "LT", "1", "a"),
			cmd("ZADD", "k", "INCR", "1", "a", "2", "b"), cmd("ZADD", "k", "x", "a"),
			cmd("ZADD", "k", "1", "a", "nan", "b"), cmd("ZADD", "k", "1", "a", "x", "b"), cmd("EXISTS", "k"),
			cmd("ZADD", "k", "NX", "XX", "1"), cmd("ZADD", "k", "NX", "XX", "INCR", "1", "a", "2", "b"),
			cmd("ZADD", "k", "INCR", "1", "a", "x", "b"), cmd("ZADD", "k", "FOO", "1", "a"), cmd("EXISTS", "k")}},
		{"wrong type", [][]string{cmd("RPUSH", "l", "x"), cmd("ZADD", "l", "1", "a"), cmd("ZADD", "l", "1"),
			cmd("ZADD", "l", "x", "a"), cmd("ZADD", "l", "NX", "XX", "1", "a"), cmd("ZADD", "l", "XX", "1", "a"),
			cmd("LRANGE", "l", "0", "-1")}},
		{"NaN result changes nothing", [][]string{cmd("ZADD", "k", "inf", "a"), cmd("ZADD", "k", "INCR", "-inf", "a"),
			cmd("ZADD", "k", "GT", "INCR", "-inf", "a"), cmd("ZRANGE", "k", "0", "-1", "WITHSCORES")}},
	})
}

func TestZIncrByRemCompare(t *testing.T) {
	runCompare(t, []zcase{
		{"zincrby", [][]string{cmd("ZINCRBY", "k", "2", "a"), cmd("ZINCRBY", "k", "-0.5", "a"), cmd("ZINCRBY", "k", "1e2", "b"),
			cmd("ZRANGE", "k", "0", "-1", "WITHSCORES"), cmd("ZINCRBY", "k", "inf", "a"), cmd("ZINCRBY", "k", "-inf", "a"),
			cmd("ZSCORE", "k", "a")}},
		{"zincrby errors", [][]string{cmd("RPUSH", "l", "x"), cmd("ZINCRBY", "k", "x", "a"), cmd("ZINCRBY", "k", "nan", "a"),
			cmd("ZINCRBY", "l", "1", "a"), cmd("ZINCRBY", "l", "x", "a"), cmd("ZINCRBY", "k", "1"),
			cmd("ZINCRBY", "k", "1", "a", "b"), cmd("EXISTS", "k")}},
		{"zrem", zWith(seed3, cmd("ZREM", "k", "a", "x", "a"), cmd("ZREM", "k", "x"), cmd("ZREM", "nokey", "a"),
			cmd("ZREM", "k", "b", "c"), cmd("EXISTS", "k"), cmd("ZREM", "l", "a"), cmd("ZREM", "k"))},
	})
}

func TestZCountCompare(t *testing.T) {
	runCompare(t, []zcase{
		{"zcard", zWith(seed3, cmd("ZCARD", "k"), cmd("ZCARD", "nokey"), cmd("ZCARD", "l"), cmd("ZCARD"), cmd("ZCARD", "k", "x"))},
		{"zcount", zWith(seed3, cmd("ZCOUNT", "k", "-inf", "+inf"), cmd("ZCOUNT", "k", "(1", "3"), cmd("ZCOUNT", "k", "(1", "(3"),
			cmd("ZCOUNT", "k", "2", "2"), cmd("ZCOUNT", "k", "3", "1"), cmd("ZCOUNT", "k", "(2", "(2"),
			cmd("ZCOUNT", "k", "-inf", "inf"), cmd("ZCOUNT", "k", "1.5", "+inf"), cmd("ZCOUNT", "nokey", "0", "1"))},
		{"zcount errors", zWith(seed3, cmd("ZCOUNT", "k", "x", "1"), cmd("ZCOUNT", "k", "1", "(x"), cmd("ZCOUNT", "k", "[1", "2"),
			cmd("ZCOUNT", "k", "nan", "1"), cmd("ZCOUNT", "l", "0", "1"), cmd("ZCOUNT", "l", "x", "1"),
			cmd("ZCOUNT", "nokey", "x", "1"), cmd("ZCOUNT", "k", "1"))},
		{"zlexcount", zWith(lexSeed, cmd("ZLEXCOUNT", "k", "-", "+"), cmd("ZLEXCOUNT", "k", "[b", "[d"), cmd("ZLEXCOUNT", "k", "(b", "(d"),
			cmd("ZLEXCOUNT", "k", "+", "-"), cmd("ZLEXCOUNT", "k", "[d", "[b"), cmd("ZLEXCOUNT", "k", "(a", "+"),
			cmd("ZLEXCOUNT", "k", "[aa", "[cc"), cmd("ZLEXCOUNT", "nokey", "-", "+"))},
		{"zlexcount errors", zWith(lexSeed, cmd("ZLEXCOUNT", "k", "a", "[b"), cmd("ZLEXCOUNT", "k", "[a", "b"),
			cmd("ZLEXCOUNT", "k", "", "+"), cmd("ZLEXCOUNT", "l", "-", "+"), cmd("ZLEXCOUNT", "l", "a", "+"),
			cmd("ZLEXCOUNT", "nokey", "a", "+"), cmd("ZLEXCOUNT", "k", "-"))},
	})
}

func TestZScoreRankCompare(t *testing.T) {
	runCompare(t, []zcase{
		{"zscore", zWith(seed3, cmd("ZADD", "k", "1.1", "d", "-0.25", "e"), cmd("ZSCORE", "k", "a"), cmd("ZSCORE", "k", "d"),
			cmd("ZSCORE", "k", "e"), cmd("ZSCORE", "k", "x"), cmd("ZSCORE", "nokey", "a"), cmd("ZSCORE", "l", "a"),
			cmd("ZSCORE", "k"), cmd("ZSCORE", "k", "a", "b"))},
		{"zmscore", zWith(seed3, cmd("ZMSCORE", "k", "a", "x", "c", "a"), cmd("ZMSCORE", "nokey", "a", "b"),
			cmd("ZMSCORE", "l", "a"), cmd("ZMSCORE", "k"))},
		{"zrank", zWith(seed3, cmd("ZRANK", "k", "a"), cmd("ZRANK", "k", "c"), cmd("ZRANK", "k", "x"), cmd("ZRANK", "nokey", "a"),
			cmd("ZREVRANK", "k", "a"), cmd("ZREVRANK", "k", "c"), cmd("ZREVRANK", "k", "x"), cmd("ZREVRANK", "nokey", "a"),
			cmd("ZRANK", "l", "a"), cmd("ZREVRANK", "l", "a"), cmd("ZRANK", "k"), cmd("ZREVRANK", "k"))},
	})
}

func TestZRangeCompare(t *testing.T) {
	five := [][]string{cmd("ZADD", "k", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"), cmd("RPUSH", "l", "x")}
	runCompare(t, []zcase{
		{"by rank", zWith(five, cmd("ZRANGE", "k", "0", "-1"), cmd("ZRANGE", "k", "1", "2"), cmd("ZRANGE", "k", "-2", "-1"),
			cmd("ZRANGE", "k", "5", "10"), cmd("ZRANGE", "k", "2", "1"), cmd("ZRANGE", "k", "-100", "100"),
			cmd("ZRANGE", "k", "0", "-1", "WITHSCORES"), cmd("ZRANGE", "k", "0", "1", "REV"),
			cmd("ZRANGE", "k", "-2", "-1", "rev", "withscores"), cmd("ZRANGE", "k", "0", "-6"), cmd("ZRANGE", "k", "0", "-5"),
			cmd("ZRANGE", "k", "0", "-1", "LIMIT", "0", "-1"), cmd("ZRANGE", "k", "0", "-1", "LIMIT", "3", "-1"),
			cmd("ZRANGE", "k", "-9223372036854775808", "9223372036854775807"), cmd("ZRANGE", "nokey", "0", "-1"))},
		{"by score", zWith(five, cmd("ZRANGE", "k", "(1", "3", "BYSCORE"), cmd("ZRANGE", "k", "-inf", "+inf", "BYSCORE", "WITHSCORES"),
			cmd("ZRANGE", "k", "4", "(2", "BYSCORE", "REV"), cmd("ZRANGE", "k", "-inf", "+inf", "BYSCORE", "LIMIT", "1", "2"),
			cmd("ZRANGE", "k", "-inf", "+inf", "BYSCORE", "LIMIT", "-1", "2"), cmd("ZRANGE", "k", "-inf", "+inf", "BYSCORE", "LIMIT", "0", "0"),
			cmd("ZRANGE", "k", "-inf", "+inf", "BYSCORE", "LIMIT", "1", "-5"), cmd("ZRANGE", "k", "-inf", "+inf", "BYSCORE", "LIMIT", "10", "1"),
			cmd("ZRANGE", "k", "+inf", "-inf", "BYSCORE", "REV", "LIMIT", "1", "2", "WITHSCORES"),
			cmd("ZRANGE", "k", "-inf", "+inf", "LIMIT", "1", "2", "BYSCORE", "REV"), cmd("ZRANGE", "k", "3", "1", "BYSCORE"),
			cmd("ZRANGE", "k", "(5", "+inf", "BYSCORE"), cmd("ZRANGE", "nokey", "0", "1", "BYSCORE"))},
		{"by lex", zWith(lexSeed, cmd("ZRANGE", "k", "-", "+", "BYLEX"), cmd("ZRANGE", "k", "[b", "(e", "BYLEX"),
			cmd("ZRANGE", "k", "(e", "[b", "BYLEX", "REV"), cmd("ZRANGE", "k", "-", "+", "BYLEX", "LIMIT", "2", "3"),
			cmd("ZRANGE", "k", "+", "-", "BYLEX", "REV", "LIMIT", "1", "2"), cmd("ZRANGE", "k", "+", "-", "BYLEX"))},
		{"errors", zWith(five, cmd("ZRANGE", "k", "0", "-1", "LIMIT", "0", "1"), cmd("ZRANGE", "k", "a", "b", "LIMIT", "0", "1"),
			cmd("ZRANGE", "k", "-", "+", "BYLEX", "WITHSCORES"), cmd("ZRANGE", "k", "0", "1", "BYSCORE", "BYLEX"),
			cmd("ZRANGE", "k", "0", "1", "BYSCORE", "BYSCORE"), cmd("ZRANGE", "k", "0", "1", "REV", "REV"),
			cmd("ZRANGE", "k", "x", "1"), cmd("ZRANGE", "k", "0", "1.5"), cmd("ZRANGE", "k", "x", "1", "BYSCORE"),
			cmd("ZRANGE", "k", "1", "(x", "BYSCORE"), cmd("ZRANGE", "k", "a", "+", "BYLEX"), cmd("ZRANGE", "k", "0", "1", "LIMIT", "1"),
			cmd("ZRANGE", "k", "0", "1", "BYSCORE", "LIMIT", "x", "1"), cmd("ZRANGE", "k", "0", "1", "BYSCORE", "LIMIT", "1", "x"),
			cmd("ZRANGE", "k", "0", "1", "FOO"), cmd("ZRANGE", "k", "0"), cmd("ZRANGE", "l", "0", "-1"), cmd("ZRANGE", "l", "x", "1"),
			cmd("ZRANGE", "l", "0", "1", "FOO"), cmd("ZRANGE", "k", "0", "-1", "LIMIT", "0", "1", "BYLEX", "WITHSCORES"))},
		{"zrevrange", zWith(five, cmd("ZREVRANGE", "k", "0", "-1"), cmd("ZREVRANGE", "k", "1", "2", "WITHSCORES"),
			cmd("ZREVRANGE", "k", "0", "1", "REV"), cmd("ZREVRANGE", "k", "0", "1", "BYSCORE"),
			cmd("ZREVRANGE", "k", "0", "1", "LIMIT", "0", "1"), cmd("ZREVRANGE", "k", "x", "1"), cmd("ZREVRANGE", "l", "0", "1"),
			cmd("ZREVRANGE", "nokey", "0", "1"), cmd("ZREVRANGE", "k", "0"))},
		{"zrangebyscore", zWith(five, cmd("ZRANGEBYSCORE", "k", "(1", "3"), cmd("ZRANGEBYSCORE", "k", "-inf", "+inf", "WITHSCORES"),
			cmd("ZRANGEBYSCORE", "k", "-inf", "+inf", "LIMIT", "1", "2"), cmd("ZRANGEBYSCORE", "k", "-inf", "+inf", "WITHSCORES", "LIMIT", "4", "-1"),
			cmd("ZRANGEBYSCORE", "k", "0", "10", "REV"), cmd("ZRANGEBYSCORE", "k", "0", "10", "BYLEX"),
			cmd("ZRANGEBYSCORE", "k", "x", "10"), cmd("ZRANGEBYSCORE", "l", "0", "1"), cmd("ZRANGEBYSCORE", "nokey", "0", "1"),
			cmd("ZREVRANGEBYSCORE", "k", "3", "1"), cmd("ZREVRANGEBYSCORE", "k", "+inf", "-inf", "WITHSCORES", "LIMIT", "1", "3"),
			cmd("ZREVRANGEBYSCORE", "k", "(3", "(1"), cmd("ZREVRANGEBYSCORE", "k", "1", "3"), cmd("ZREVRANGEBYSCORE", "k", "1", "x"))},
		{"zrangebylex", zWith(lexSeed, cmd("ZRANGEBYLEX", "k", "-", "+"), cmd("ZRANGEBYLEX", "k", "[b", "[d", "LIMIT", "1", "1"),
			cmd("ZRANGEBYLEX", "k", "-", "+", "WITHSCORES"), cmd("ZRANGEBYLEX", "k", "b", "+"), cmd("ZRANGEBYLEX", "l", "-", "+"),
			cmd("ZREVRANGEBYLEX", "k", "+", "-"), cmd("ZREVRANGEBYLEX", "k", "(f", "[b", "LIMIT", "1", "2"),
			cmd("ZREVRANGEBYLEX", "k", "-", "+"), cmd("ZREVRANGEBYLEX", "k", "+", "-", "REV"))},
	})
}

func TestZRangeStoreCompare(t *testing.T) {
	runCompare(t, []zcase{
		{"store", zWith(seed3, cmd("ZRANGESTORE", "d", "k", "0", "1"), cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"),
			cmd("ZRANGESTORE", "d", "k", "(1", "+inf", "BYSCORE", "REV", "LIMIT", "0", "1"), cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"),
			cmd("ZRANGESTORE", "d", "k", "[a", "[b", "BYLEX"), cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"),
			cmd("ZRANGESTORE", "k", "k", "1", "-1"), cmd("ZRANGE", "k", "0", "-1", "WITHSCORES"))},
		{"empty result deletes dst", zWith(seed3, cmd("ZADD", "d", "1", "x"), cmd("ZRANGESTORE", "d", "k", "5", "10"),
			cmd("EXISTS", "d"), cmd("ZADD", "d", "1", "x"), cmd("ZRANGESTORE", "d", "nokey", "0", "-1"), cmd("EXISTS", "d"))},
		{"dst of another type is replaced", zWith(seed3, cmd("ZRANGESTORE", "l", "k", "0", "0"), cmd("TYPE", "l"),
			cmd("ZRANGE", "l", "0", "-1", "WITHSCORES"))},
		{"errors", zWith(seed3, cmd("ZADD", "d", "1", "x"), cmd("ZRANGESTORE", "d", "l", "0", "-1"), cmd("ZRANGESTORE", "d", "k", "0", "-1", "WITHSCORES"),
			cmd("ZRANGESTORE", "d", "k", "0", "-1", "LIMIT", "0", "1"), cmd("ZRANGESTORE", "d", "k", "x", "1"),
			cmd("ZRANGESTORE", "d", "k", "-", "+", "BYLEX", "WITHSCORES"), cmd("ZRANGESTORE", "d", "k", "0"),
			cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"))},
	})
}

func TestZPopCompare(t *testing.T) {
	runCompare(t, []zcase{
		{"zpopmin zpopmax", zWith(seed3, cmd("ZADD", "k", "4", "d", "5", "e"), cmd("ZPOPMIN", "k"), cmd("ZPOPMAX", "k"),
			cmd("ZPOPMIN", "k", "2"), cmd("ZPOPMAX", "k", "0"), cmd("ZPOPMAX", "k", "10"), cmd("EXISTS", "k"),
			cmd("ZPOPMIN", "k"), cmd("ZPOPMIN", "k", "3"), cmd("ZPOPMAX", "nokey"))},
		{"errors", zWith(seed3, cmd("ZPOPMIN", "k", "-1"), cmd("ZPOPMIN", "k", "x"), cmd("ZPOPMAX", "k", "1.5"),
			cmd("ZPOPMIN", "k", "1", "2"), cmd("ZPOPMIN", "l"), cmd("ZPOPMAX", "l", "2"), cmd("ZPOPMAX", "l", "-1"),
			cmd("ZPOPMIN", "nokey", "-1"), cmd("ZPOPMIN"), cmd("ZCARD", "k"))},
		{"zmpop", zWith(seed3, cmd("ZADD", "k2", "10", "x", "20", "y"), cmd("ZMPOP", "1", "k", "MIN"),
			cmd("ZMPOP", "2", "nokey", "k2", "max", "COUNT", "5"), cmd("EXISTS", "k2"), cmd("ZMPOP", "2", "nokey", "k2", "MIN"),
			cmd("ZMPOP", "3", "nokey", "k", "l", "MAX", "COUNT", "1"), cmd("ZMPOP", "1", "l", "MIN"), cmd("ZMPOP", "2", "k", "l", "MIN", "COUNT", "9"),
			cmd("EXISTS", "k"))},
		{"zmpop errors", zWith(seed3, cmd("ZMPOP", "0", "k", "MIN"), cmd("ZMPOP", "-1", "k", "MIN"), cmd("ZMPOP", "x", "k", "MIN"),
			cmd("ZMPOP", "2", "k", "MIN"), cmd("ZMPOP", "1", "k", "FOO"), cmd("ZMPOP", "1", "k", "MIN", "COUNT"),
			cmd("ZMPOP", "1", "k", "MIN", "COUNT", "0"), cmd("ZMPOP", "1", "k", "MIN", "COUNT", "x"),
			cmd("ZMPOP", "1", "k", "MIN", "COUNT", "1", "COUNT", "1"), cmd("ZMPOP", "1", "k", "MIN", "FOO"),
			cmd("ZMPOP", "1", "l", "MIN", "COUNT", "-1"), cmd("ZMPOP", "1", "k"), cmd("ZCARD", "k"))},
	})
}

func TestZRemRangeCompare(t *testing.T) {
	five := [][]string{cmd("ZADD", "k", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"), cmd("RPUSH", "l", "x")}
	runCompare(t, []zcase{
		{"by rank", zWith(five, cmd("ZREMRANGEBYRANK", "k", "0", "0"), cmd("ZREMRANGEBYRANK", "k", "-1", "-1"),
			cmd("ZREMRANGEBYRANK", "k", "5", "10"), cmd("ZREMRANGEBYRANK", "k", "2", "1"), cmd("ZRANGE", "k", "0", "-1"),
			cmd("ZREMRANGEBYRANK", "k", "0", "100"), cmd("EXISTS", "k"), cmd("ZREMRANGEBYRANK", "nokey", "0", "1"))},
		{"by score", zWith(five, cmd("ZREMRANGEBYSCORE", "k", "(1", "2"), cmd("ZREMRANGEBYSCORE", "k", "4", "+inf"),
			cmd("ZRANGE", "k", "0", "-1"), cmd("ZREMRANGEBYSCORE", "k", "-inf", "+inf"), cmd("EXISTS", "k"))},
		{"by lex", zWith(lexSeed, cmd("ZREMRANGEBYLEX", "k", "[b", "(d"), cmd("ZREMRANGEBYLEX", "k", "(e", "+"),
			cmd("ZRANGE", "k", "0", "-1"), cmd("ZREMRANGEBYLEX", "k", "-", "+"), cmd("EXISTS", "k"))},
		{"errors", zWith(five, cmd("ZREMRANGEBYRANK", "k", "x", "1"), cmd("ZREMRANGEBYRANK", "k", "0", "x"),
			cmd("ZREMRANGEBYRANK", "l", "0", "1"), cmd("ZREMRANGEBYRANK", "l", "x", "1"), cmd("ZREMRANGEBYSCORE", "k", "x", "1"),
			cmd("ZREMRANGEBYSCORE", "l", "0", "1"), cmd("ZREMRANGEBYSCORE", "l", "(x", "1"), cmd("ZREMRANGEBYLEX", "k", "a", "+"),
			cmd("ZREMRANGEBYLEX", "l", "-", "+"), cmd("ZREMRANGEBYLEX", "l", "a", "+"), cmd("ZREMRANGEBYRANK", "k", "0"),
			cmd("ZCARD", "k"))},
	})
}

func TestZRandMemberCompare(t *testing.T) {
	runCompare(t, []zcase{
		{"one member", [][]string{cmd("ZADD", "k", "1.5", "a"), cmd("ZRANDMEMBER", "k"), cmd("ZRANDMEMBER", "k", "1"),
			cmd("ZRANDMEMBER", "k", "5"), cmd("ZRANDMEMBER", "k", "-3"), cmd("ZRANDMEMBER", "k", "-2", "WITHSCORES"),
			cmd("ZRANDMEMBER", "k", "0"), cmd("ZRANDMEMBER", "k", "0", "withscores")}},
		{"whole set", zWith(seed3, cmd("ZADD", "k", "2", "bb", "0", "z"), cmd("ZRANDMEMBER", "k", "5"),
			cmd("ZRANDMEMBER", "k", "100", "WITHSCORES"), cmd("ZRANDMEMBER", "k", "9223372036854775807"), cmd("ZCARD", "k"))},
		{"missing key", [][]string{cmd("ZRANDMEMBER", "nokey"), cmd("ZRANDMEMBER", "nokey", "5"), cmd("ZRANDMEMBER", "nokey", "-5", "WITHSCORES")}},
		{"errors", zWith(seed3, cmd("ZRANDMEMBER", "k", "x"), cmd("ZRANDMEMBER", "k", "-9223372036854775808"),
			cmd("ZRANDMEMBER", "k", "1", "foo"), cmd("ZRANDMEMBER", "k", "1", "withscores", "x"),
			cmd("ZRANDMEMBER", "k", "9223372036854775807", "withscores"), cmd("ZRANDMEMBER", "k", "-4611686018427387904", "withscores"),
			cmd("ZRANDMEMBER", "l"), cmd("ZRANDMEMBER", "l", "1"), cmd("ZRANDMEMBER", "l", "x"), cmd("ZRANDMEMBER", "nokey", "x"),
			cmd("ZRANDMEMBER", "nokey", "1", "foo"), cmd("ZRANDMEMBER"))},
	})
}

func TestZScanCompare(t *testing.T) {
	runCompare(t, []zcase{
		{"small set", zWith(seed3, cmd("ZADD", "k", "1.1", "ab"), cmd("ZSCAN", "k", "0"), cmd("ZSCAN", "k", "0", "COUNT", "1"),
			cmd("ZSCAN", "k", "0", "MATCH", "a*"), cmd("ZSCAN", "k", "0", "MATCH", "*", "COUNT", "100"),
			cmd("ZSCAN", "k", "0", "match", "[bc]", "count", "2", "MATCH", "a?"), cmd("ZSCAN", "nokey", "0"),
			cmd("ZSCAN", "nokey", "0", "COUNT", "0"), cmd("ZSCAN", "nokey", "0", "FOO"))},
		{"small set, any cursor", zWith(seed3, cmd("ZSCAN", "k", "5"), cmd("ZSCAN", "k", "1", "COUNT", "1"),
			cmd("ZSCAN", "k", "18446744073709551615", "MATCH", "b*"), cmd("ZSCAN", "k", "-1"), cmd("ZSCAN", "nokey", "7"))},
		{"errors", zWith(seed3, cmd("ZSCAN", "k", "x"), cmd("ZSCAN", "k", "0", "COUNT", "0"), cmd("ZSCAN", "k", "0", "COUNT", "x"),
			cmd("ZSCAN", "k", "0", "COUNT"), cmd("ZSCAN", "k", "0", "TYPE", "zset"), cmd("ZSCAN", "l", "0"), cmd("ZSCAN", "l", "x"),
			cmd("ZSCAN", "l", "0", "COUNT", "0"), cmd("ZSCAN", "k"))},
	})
}

func TestZAlgebraCompare(t *testing.T) {
	seed := [][]string{cmd("ZADD", "a", "1", "x", "2", "y", "3", "z"), cmd("ZADD", "b", "10", "y", "20", "z", "30", "w"),
		cmd("ZADD", "c", "inf", "x", "-inf", "y"), cmd("RPUSH", "l", "v")}
	runCompare(t, []zcase{
		{"zunion", zWith(seed, cmd("ZUNION", "2", "a", "b"), cmd("ZUNION", "2", "a", "b", "WITHSCORES"),
			cmd("ZUNION", "3", "a", "b", "nokey", "WEIGHTS", "2", "0.5", "7", "WITHSCORES"),
			cmd("ZUNION", "2", "a", "b", "AGGREGATE", "MIN", "WITHSCORES"), cmd("ZUNION", "2", "a", "b", "aggregate", "max", "withscores"),
			cmd("ZUNION", "2", "a", "c", "WITHSCORES"), cmd("ZUNION", "2", "a", "c", "WEIGHTS", "0", "0", "WITHSCORES"),
			cmd("ZUNION", "2", "c", "c", "WEIGHTS", "1", "-1", "WITHSCORES"), cmd("ZUNION", "1", "nokey"),
			cmd("ZUNION", "2", "a", "a", "WITHSCORES", "WEIGHTS", "1", "2", "AGGREGATE", "SUM", "AGGREGATE", "MAX"))},
		{"zinter", zWith(seed, cmd("ZINTER", "2", "a", "b"), cmd("ZINTER", "2", "a", "b", "WITHSCORES"),
			cmd("ZINTER", "2", "a", "b", "WEIGHTS", "2", "3", "AGGREGATE", "MIN", "WITHSCORES"),
			cmd("ZINTER", "2", "a", "c", "AGGREGATE", "MAX", "WITHSCORES"), cmd("ZINTER", "3", "a", "b", "nokey"),
			cmd("ZINTER", "2", "a", "a", "WITHSCORES"), cmd("ZINTER", "2", "c", "a", "WEIGHTS", "0", "1", "WITHSCORES"))},
		{"zdiff", zWith(seed, cmd("ZDIFF", "2", "a", "b"), cmd("ZDIFF", "2", "a", "b", "WITHSCORES"), cmd("ZDIFF", "1", "a", "WITHSCORES"),
			cmd("ZDIFF", "3", "b", "a", "c", "WITHSCORES"), cmd("ZDIFF", "2", "a", "a"), cmd("ZDIFF", "2", "nokey", "a"),
			cmd("ZDIFF", "2", "a", "nokey"))},
		{"store", zWith(seed, cmd("ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "2"), cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"),
			cmd("ZINTERSTORE", "d", "2", "a", "b", "AGGREGATE", "MAX"), cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"),
			cmd("ZDIFFSTORE", "d", "2", "a", "b"), cmd("ZRANGE", "d", "0", "-1", "WITHSCORES"),
			cmd("ZINTERSTORE", "d", "2", "a", "nokey"), cmd("EXISTS", "d"), cmd("ZUNIONSTORE", "l", "1", "a"), cmd("TYPE", "l"),
			cmd("ZDIFFSTORE", "a", "2", "a", "b"), cmd("ZRANGE", "a", "0", "-1", "WITHSCORES"),
			cmd("ZUNIONSTORE", "e", "1", "nokey"), cmd("EXISTS", "e"), cmd("ZDIFFSTORE", "b", "2", "b", "b"), cmd("EXISTS", "b"))},
		{"zintercard", zWith(seed, cmd("ZINTERCARD", "2", "a", "b"), cmd("ZINTERCARD", "2", "a", "b", "LIMIT", "1"),
			cmd("ZINTERCARD", "2", "a", "b", "LIMIT", "0"), cmd("ZINTERCARD", "2", "a", "b", "LIMIT", "100"),
			cmd("ZINTERCARD", "1", "a"), cmd("ZINTERCARD", "2", "a", "nokey"), cmd("ZINTERCARD", "2", "a", "a", "LIMIT", "2", "LIMIT", "1"))},
		{"errors", zWith(seed, cmd("ZUNION", "0", "a"), cmd("ZINTER", "0", "a"), cmd("ZDIFF", "0", "a"), cmd("ZINTERCARD", "0", "a"),
			cmd("ZUNIONSTORE", "d", "0", "a"), cmd("ZINTERSTORE", "d", "-1", "a"), cmd("ZDIFFSTORE", "d", "0", "a"),
			cmd("ZUNION", "x", "a"), cmd("ZUNION", "3", "a", "b"), cmd("ZUNION", "2", "a", "b", "WEIGHTS", "1"),
			cmd("ZUNION", "2", "a", "b", "WEIGHTS", "1", "x"), cmd("ZUNION", "2", "a", "b", "WEIGHTS", "1", "nan"),
			cmd("ZUNION", "2", "a", "b", "AGGREGATE", "AVG"), cmd("ZUNION", "2", "a", "b", "AGGREGATE", ""), cmd("ZUNION", "2", "a", "b", "AGGREGATE"),
			cmd("ZUNION", "2", "a", "b", "FOO"), cmd("ZDIFF", "2", "a", "b", "WEIGHTS", "1", "2"), cmd("ZDIFF", "2", "a", "b", "AGGREGATE", "SUM"),
			cmd("ZUNIONSTORE", "d", "2", "a", "b", "WITHSCORES"), cmd("ZINTERCARD", "2", "a", "b", "WITHSCORES"),
			cmd("ZINTERCARD", "2", "a", "b", "LIMIT", "-1"), cmd("ZINTERCARD", "2", "a", "b", "LIMIT", "x"),
			cmd("ZINTERCARD", "2", "a", "b", "LIMIT"), cmd("ZINTERCARD", "2", "a", "b", "WEIGHTS", "1", "1"),
			cmd("ZUNION", "2", "a", "l"), cmd("ZUNION", "2", "l", "a", "FOO"), cmd("ZINTERSTORE", "d", "2", "a", "l", "WITHSCORES"),
			cmd("ZINTERCARD", "2", "a", "l", "LIMIT", "-1"), cmd("ZDIFF", "2", "nokey", "l"), cmd("ZINTER", "2", "nokey", "l"),
			cmd("EXISTS", "d"), cmd("ZUNION", "1"), cmd("ZUNIONSTORE", "d", "1"))},
	})
}
