package fuzz

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// A source supplies the generator's choices: a seeded PRNG for the deterministic
// differential test, or the fuzzer's input bytes for FuzzDifferential.
type source interface {
	// intn returns a choice in [0, n); n > 0.
	intn(n int) int
	// done reports whether the source has run dry (bytes only).
	done() bool
}

type randSource struct{ r *rand.Rand }

func (s randSource) intn(n int) int { return s.r.IntN(n) }
func (s randSource) done() bool     { return false }

// byteSource reads choices from fuzz input. Once the bytes run out every choice is 0,
// so decoding always terminates and every input decodes to some transcript.
type byteSource struct {
	b []byte
	i int
}

func (s *byteSource) intn(n int) int {
	if n <= 1 {
		return 0
	}
	v := 0
	for need := n - 1; need > 0; need >>= 8 {
		v <<= 8
		if s.i < len(s.b) {
			v |= int(s.b[s.i])
			s.i++
		}
	}
	return v % n
}

func (s *byteSource) done() bool { return s.i >= len(s.b) }

// A step is one or more commands generated together. Steps are the unit the
// minimiser removes, so companions stay with the command they serve: a push before a
// blocking pop (so that it cannot block), a ZRANGE after a ZRANDMEMBER (to check the
// random picks against the set's contents).
type step [][]string

// gen produces commands weighted toward edge cases and error paths.
type gen struct {
	src     source
	allowed map[string]bool // commands the keyspace under test implements; nil = all
}

func (g *gen) n(n int) int             { return g.src.intn(n) }
func (g *gen) chance(pct int) bool     { return g.n(100) < pct }
func (g *gen) pick(xs []string) string { return xs[g.n(len(xs))] }

var (
	// Small sets are the common case (most keys hold a few members): z1, z2 and the
	// destination zd only grow one command at a time; z3 is rebuilt around Redis's
	// 128-member listpack limit (127/128/129 members, see sizedZAdd) and zb is the
	// large set. Lists likewise: l1 small, l3 around 128 values, l2 large.
	zKeys   = []string{"z1", "z2", "z3", "zd", "z1", "z2", "zb"}
	lKeys   = []string{"l1", "l2", "l3", "l1"}
	anyKeys = []string{"z1", "z2", "z3", "zd", "zb", "l1", "l2", "l3", "k", "missing"}
	// Lexicographic ranges are only specified when all scores are equal (Redis answers
	// an arbitrary, skiplist-level-dependent slice otherwise), so lex commands run on
	// keys of their own whose members are only ever added with score 0. Only the lex
	// commands touch them (xl is a list, for WRONGTYPE; nokey never exists).
	lexKeys  = []string{"x1", "x2", "x1", "x2", "x1", "x2", "xl", "nokey"}
	memberPl = []string{"a", "b", "c", "d", "e", "f", "", "a\x00b", "\xff\xfe", "1", "-1", "+inf", "[a", "(b", "-", "+",
		"m0", "m1", "m2", "m3", "é", strings.Repeat("x", 70),
		// Around Redis's 64-byte listpack limit for members (zset-max-listpack-value).
		strings.Repeat("y", 63), strings.Repeat("y", 64), strings.Repeat("y", 65)}
	scorePl = []string{"0", "1", "-1", "2", "3", "1.5", "-2.5", "-0", "+0", "0.0", "0.1", "0.2", "0.3", "1e-5",
		"inf", "-inf", "+inf", "Inf", "INF", "infinity", "-Infinity", "+inf", "1e308", "-1e308",
		"1.7976931348623157e308", "-1.7976931348623157e308", "4.9e-324", "5e-324", "-5e-324",
		"2.2250738585072014e-308", "2.225073858507201e-308", "1e400", "-1e400", "1e-400",
		"9007199254740993", "9007199254740992", "123456789012345678901234567890", "3.0000000000000004",
		"1e20", "1e21", "1e22", "1e15", "1e16", "1e17", "0.000001", "0.0000001", ".5", "5.", "-.5",
		"0x10", "0x1p3", "1_0", "1e", "e1", "abc", "", " 1", "1 ", "nan", "NaN", "-nan", "1,5", "--1", "+-1",
		"00012", "1E5", "1e+05", "1e-05", "-0.0", "0e0", "18446744073709551616", "9223372036854775807",
		"-9223372036854775808", "9223372036854775808"}
	goodScores = []string{"0", "1", "-1", "2", "3", "1.5", "-2.5", "-0", "0.1", "0.3", "inf", "-inf",
		"1e308", "4.9e-324", "-5e-324", "2.2250738585072014e-308", "1.7976931348623157e308", "1e20", "7", "42"}
	boundPl = []string{"-inf", "+inf", "inf", "(-inf", "(+inf", "(inf", "0", "(0", "1", "(1", "-1", "(-1",
		"2", "(2", "1.5", "(1.5", "3", "(3", "0.1", "(0.1", "-0", "(-0", "1e308", "(4.9e-324", "[1", "(",
		"((1", "abc", "(abc", "", "nan", "(nan", " 1", "1e400", "-1e400", "5e-324"}
	lexPl = []string{"-", "+", "[a", "(a", "[b", "(b", "[c", "(c", "[", "(", "[e", "(f", "[\xff", "[a\x00b",
		"[m1", "(m2", "a", "", "-a", "+a", "[-", "[+", "[é", "(1"}
	idxPl = []string{"0", "1", "2", "3", "-1", "-2", "-3", "5", "-5", "10", "-10", "100", "-100",
		"9223372036854775807", "-9223372036854775808", "9223372036854775808", "1.5", "abc", "", " 1", "+1", "01", "-0"}
	countPl = []string{"1", "2", "3", "0", "-1", "-2", "5", "10", "100", "-100", "abc", "1.5", "",
		"9223372036854775807", "-9223372036854775808", "9223372036854775808", "4294967296", "2147483648"}
	valuePl = []string{"a", "b", "c", "d", "", "x", "1", "-1", "a\x00b", "\xff", "é", strings.Repeat("v", 70), "pivot",
		strings.Repeat("v", 63), strings.Repeat("v", 64), strings.Repeat("v", 65)}
	timeoutG = []string{"0", "0.01", "1", "1.5", "0.001", "10"}
	timeoutB = []string{"abc", "-1", "-0.5", "", "1e400", "inf", "nan", " 1", "1 ", "-inf"}
	patterns = []string{"*", "z*", "l*", "?1", "[zl]1", "k", "\\*", "*1*", "nomatch*", "[a-z]?"}
)

// cased returns s in a random mix of cases with a small probability: Redis reads
// command names and options case-insensitively.
func (g *gen) cased(s string) string {
	switch g.n(20) {
	case 0:
		return strings.ToLower(s)
	case 1:
		b := []byte(s)
		for i := range b {
			if g.n(2) == 0 {
				b[i] = strings.ToLower(string(b[i]))[0]
			}
		}
		return string(b)
	}
	return s
}

func (g *gen) zkey() string {
	if g.chance(85) {
		return g.pick(zKeys)
	}
	return g.pick(anyKeys)
}

func (g *gen) lkey() string {
	if g.chance(85) {
		return g.pick(lKeys)
	}
	return g.pick(anyKeys)
}

func (g *gen) lexKey() string { return g.pick(lexKeys) }

// dstKey picks the destination of a *STORE command: mostly a key of its own, since
// an empty result deletes the destination and would keep the source sets small.
func (g *gen) dstKey() string {
	if g.chance(85) {
		return "zd"
	}
	return g.zkey()
}

func (g *gen) member() string {
	if g.chance(8) {
		b := make([]byte, g.n(4))
		for i := range b {
			b[i] = byte(g.n(256))
		}
		return string(b)
	}
	if g.chance(50) { // a few common members, so that lookups hit
		return g.pick(memberPl[:6])
	}
	return g.pick(memberPl)
}

func (g *gen) value() string {
	if g.chance(5) {
		b := make([]byte, g.n(3))
		for i := range b {
			b[i] = byte(g.n(256))
		}
		return string(b)
	}
	return g.pick(valuePl)
}

// score returns a score argument: usually valid, often an edge case, sometimes bad.
func (g *gen) score() string {
	if g.chance(20) {
		return g.pick(scorePl)
	}
	return g.goodScore()
}

// goodScore returns a valid score argument.
func (g *gen) goodScore() string {
	switch g.n(8) {
	case 0, 1, 2, 3:
		return g.pick(goodScores)
	case 4:
		return strconv.Itoa(g.n(11) - 5)
	case 5:
		// A random finite double, written in one of the ways a client might.
		f := math.Float64frombits(uint64(g.n(1<<30))<<34 | uint64(g.n(1<<30))<<4 | uint64(g.n(16)))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			f = 0.5
		}
		fmts := []byte{'g', 'e', 'f', 'G', 'E'}
		return strconv.FormatFloat(f, fmts[g.n(len(fmts))], -1, 64)
	case 6:
		f := (float64(g.n(2001)) - 1000) / float64(1+g.n(64))
		return strconv.FormatFloat(f, 'g', -1, 64)
	default:
		return strconv.FormatFloat(float64(g.n(7)-3)/10, 'g', -1, 64)
	}
}

func (g *gen) bound() string {
	if g.chance(75) {
		return g.pick(boundPl[:20])
	}
	if g.chance(30) {
		return "(" + g.score()
	}
	return g.pick(boundPl)
}

func (g *gen) lex() string {
	if g.chance(80) {
		return g.pick(lexPl[:16])
	}
	if g.chance(50) {
		return "[" + g.member()
	}
	return g.pick(lexPl)
}

func (g *gen) idx() string {
	if g.chance(85) {
		return g.pick(idxPl[:13])
	}
	return g.pick(idxPl)
}

func (g *gen) count() string {
	if g.chance(85) {
		return g.pick(countPl[:10])
	}
	return g.pick(countPl)
}

// keys returns 1–3 keys from pool f, with a numkeys that is usually right.
func (g *gen) numkeys(f func() string) []string {
	n := 1 + g.n(3)
	out := []string{strconv.Itoa(n)}
	switch g.n(25) {
	case 0:
		out[0] = strconv.Itoa(n + 1)
	case 1:
		out[0] = "0"
	case 2:
		out[0] = "-1"
	case 3:
		out[0] = "abc"
	case 4:
		out[0] = strconv.Itoa(n - 1)
	case 5:
		out[0] = g.pick([]string{"9223372036854775807", "9223372036854775806", "4611686018427387904", "2147483648"})
	}
	for range n {
		out = append(out, f())
	}
	return out
}

func (g *gen) limit() []string {
	if g.chance(85) {
		return []string{g.cased("LIMIT"), g.pick([]string{"0", "1", "2", "0", "-1", "3", "10"}), g.pick([]string{"1", "2", "-1", "0", "5", "-5", "3"})}
	}
	return []string{g.cased("LIMIT"), g.count(), g.count()}
}

// shuffle mixes the order of options: Redis accepts most options in any order.
func (g *gen) shuffle(opts [][]string) []string {
	for i := len(opts) - 1; i > 0; i-- {
		j := g.n(i + 1)
		opts[i], opts[j] = opts[j], opts[i]
	}
	var out []string
	for _, o := range opts {
		out = append(out, o...)
	}
	return out
}

// cmdGen builds a step around one command.
type cmdGen struct {
	names  []string // every command the step may contain
	weight int
	fn     func(g *gen) step
}

func one(args ...string) step { return step{args} }

func cmd(g *gen, name string, args ...string) []string {
	return append([]string{g.cased(name)}, args...)
}

// blockingPair returns a push onto key followed by the blocking command, so that the
// blocking command has something to serve (or an error to return) and cannot block.
func pushFirst(g *gen, zset bool, key string, blocking []string) step {
	var push []string
	if zset {
		push = []string{"ZADD", key, g.pick(goodScores), g.member()}
	} else {
		push = []string{g.pick([]string{"RPUSH", "LPUSH"}), key, g.value()}
	}
	return step{push, blocking}
}

var commands = []cmdGen{
	// Sorted sets.
	{[]string{"ZADD"}, 24, func(g *gen) step {
		var opts [][]string
		for _, o := range []string{"NX", "XX", "GT", "LT", "CH", "INCR"} {
			if g.chance(8) {
				opts = append(opts, []string{g.cased(o)})
			}
		}
		args := append([]string{g.zkey()}, g.shuffle(opts)...)
		pairs := 1 + g.n(6)
		if g.chance(5) {
			pairs = 0
		}
		for range pairs {
			args = append(args, g.score(), g.member())
		}
		if g.chance(4) {
			args = args[:len(args)-1] // odd: syntax error
		}
		if g.chance(3) {
			args = append(args, g.pick([]string{"NX", "junk", "INCR"})) // option in the wrong place
		}
		return one(cmd(g, "ZADD", args...)...)
	}},
	{[]string{"ZINCRBY"}, 5, func(g *gen) step { return one(cmd(g, "ZINCRBY", g.zkey(), g.score(), g.member())...) }},
	{[]string{"ZREM"}, 4, func(g *gen) step {
		args := []string{g.zkey()}
		for range g.n(4) {
			args = append(args, g.member())
		}
		return one(cmd(g, "ZREM", args...)...)
	}},
	{[]string{"ZCARD"}, 2, func(g *gen) step { return one(cmd(g, "ZCARD", g.zkey())...) }},
	{[]string{"ZSCORE"}, 3, func(g *gen) step { return one(cmd(g, "ZSCORE", g.zkey(), g.member())...) }},
	{[]string{"ZMSCORE"}, 2, func(g *gen) step {
		args := []string{g.zkey()}
		for range g.n(4) {
			args = append(args, g.member())
		}
		return one(cmd(g, "ZMSCORE", args...)...)
	}},
	{[]string{"ZRANK", "ZREVRANK"}, 3, func(g *gen) step {
		name := g.pick([]string{"ZRANK", "ZREVRANK"})
		args := []string{g.zkey(), g.member()}
		if g.chance(40) {
			args = append(args, g.cased("WITHSCORE"))
		}
		return one(cmd(g, name, args...)...)
	}},
	{[]string{"ZCOUNT"}, 3, func(g *gen) step { return one(cmd(g, "ZCOUNT", g.zkey(), g.bound(), g.bound())...) }},
	{[]string{"ZLEXCOUNT"}, 2, func(g *gen) step { return one(cmd(g, "ZLEXCOUNT", g.lexKey(), g.lex(), g.lex())...) }},
	{[]string{"ZRANGE"}, 10, func(g *gen) step { return one(cmd(g, "ZRANGE", zrangeArgs(g, true)...)...) }},
	{[]string{"ZRANGESTORE"}, 3, func(g *gen) step {
		return one(cmd(g, "ZRANGESTORE", append([]string{g.dstKey()}, zrangeArgs(g, false)...)...)...)
	}},
	{[]string{"ZADD", "ZREM", "ZPOPMIN", "ZPOPMAX", "ZCARD", "RPUSH"}, 10, func(g *gen) step {
		// The equal-score sets for lex ranges.
		k := g.lexKey()
		switch g.n(8) {
		case 0:
			return one(cmd(g, "ZREM", k, g.member(), g.member())...)
		case 1:
			return one(cmd(g, g.pick([]string{"ZPOPMIN", "ZPOPMAX"}), k)...)
		case 2:
			return one(cmd(g, "ZCARD", k)...)
		case 3:
			return one(cmd(g, "RPUSH", "xl", g.value())...)
		}
		args := []string{k}
		if g.chance(20) {
			args = append(args, g.cased(g.pick([]string{"NX", "XX", "CH", "GT", "LT"})))
		}
		for range 1 + g.n(4) {
			args = append(args, "0", g.member())
		}
		return one(cmd(g, "ZADD", args...)...)
	}},
	{[]string{"ZREVRANGE"}, 3, func(g *gen) step {
		args := []string{g.zkey(), g.idx(), g.idx()}
		if g.chance(50) {
			args = append(args, g.cased("WITHSCORES"))
		}
		return one(cmd(g, "ZREVRANGE", args...)...)
	}},
	{[]string{"ZRANGEBYSCORE", "ZREVRANGEBYSCORE"}, 6, func(g *gen) step {
		name := g.pick([]string{"ZRANGEBYSCORE", "ZREVRANGEBYSCORE"})
		var opts [][]string
		if g.chance(40) {
			opts = append(opts, []string{g.cased("WITHSCORES")})
		}
		if g.chance(40) {
			opts = append(opts, g.limit())
		}
		if g.chance(3) {
			opts = append(opts, []string{"junk"})
		}
		return one(cmd(g, name, append([]string{g.zkey(), g.bound(), g.bound()}, g.shuffle(opts)...)...)...)
	}},
	{[]string{"ZRANGEBYLEX", "ZREVRANGEBYLEX"}, 4, func(g *gen) step {
		name := g.pick([]string{"ZRANGEBYLEX", "ZREVRANGEBYLEX"})
		args := []string{g.lexKey(), g.lex(), g.lex()}
		if g.chance(40) {
			args = append(args, g.limit()...)
		}
		if g.chance(3) {
			args = append(args, g.cased("WITHSCORES"))
		}
		return one(cmd(g, name, args...)...)
	}},
	{[]string{"ZPOPMIN", "ZPOPMAX"}, 3, func(g *gen) step {
		args := []string{g.zkey()}
		if g.chance(50) {
			args = append(args, g.count())
		}
		return one(cmd(g, g.pick([]string{"ZPOPMIN", "ZPOPMAX"}), args...)...)
	}},
	{[]string{"ZMPOP"}, 2, func(g *gen) step {
		args := append(g.numkeys(g.zkey), g.cased(g.pick([]string{"MIN", "MAX", "MIN", "MAX", "junk"})))
		if g.chance(50) {
			args = append(args, g.cased("COUNT"), g.count())
		}
		return one(cmd(g, "ZMPOP", args...)...)
	}},
	{[]string{"BZPOPMIN", "BZPOPMAX", "ZADD"}, 3, func(g *gen) step {
		name := g.pick([]string{"BZPOPMIN", "BZPOPMAX"})
		n := 1 + g.n(3)
		var keys []string
		for range n {
			keys = append(keys, g.zkey())
		}
		if g.chance(20) {
			return one(cmd(g, name, append(keys, g.pick(timeoutB))...)...)
		}
		return pushFirst(g, true, keys[n-1], cmd(g, name, append(keys, g.pick(timeoutG))...))
	}},
	{[]string{"BZMPOP", "ZADD"}, 3, func(g *gen) step {
		nk := g.numkeys(g.zkey)
		if g.chance(20) {
			args := append([]string{g.pick(timeoutB)}, nk...)
			return one(cmd(g, "BZMPOP", append(args, "MIN")...)...)
		}
		// Only well-formed commands may reach the blocking path.
		nk[0] = strconv.Itoa(len(nk) - 1)
		args := append([]string{g.pick(timeoutG)}, nk...)
		args = append(args, g.cased(g.pick([]string{"MIN", "MAX"})))
		if g.chance(50) {
			args = append(args, g.cased("COUNT"), g.pick([]string{"1", "2", "3", "100"}))
		}
		return pushFirst(g, true, nk[len(nk)-1], cmd(g, "BZMPOP", args...))
	}},
	{[]string{"ZREMRANGEBYRANK"}, 2, func(g *gen) step { return one(cmd(g, "ZREMRANGEBYRANK", g.zkey(), g.idx(), g.idx())...) }},
	{[]string{"ZREMRANGEBYSCORE"}, 2, func(g *gen) step { return one(cmd(g, "ZREMRANGEBYSCORE", g.zkey(), g.bound(), g.bound())...) }},
	{[]string{"ZREMRANGEBYLEX"}, 2, func(g *gen) step { return one(cmd(g, "ZREMRANGEBYLEX", g.lexKey(), g.lex(), g.lex())...) }},
	{[]string{"ZRANDMEMBER", "ZRANGE"}, 3, func(g *gen) step {
		k := g.zkey()
		args := []string{k}
		if g.chance(70) {
			args = append(args, g.pick([]string{"1", "2", "3", "5", "100", "-1", "-3", "-10", "0", "abc"}))
			if g.chance(40) {
				args = append(args, g.cased("WITHSCORES"))
			}
		}
		return step{cmd(g, "ZRANDMEMBER", args...), {"ZRANGE", k, "0", "-1", "WITHSCORES"}}
	}},
	{[]string{"ZUNION", "ZINTER"}, 4, func(g *gen) step {
		return one(cmd(g, g.pick([]string{"ZUNION", "ZINTER"}), setOpArgs(g, true, true)...)...)
	}},
	{[]string{"ZDIFF"}, 2, func(g *gen) step { return one(cmd(g, "ZDIFF", setOpArgs(g, false, true)...)...) }},
	{[]string{"ZUNIONSTORE", "ZINTERSTORE"}, 4, func(g *gen) step {
		return one(cmd(g, g.pick([]string{"ZUNIONSTORE", "ZINTERSTORE"}), append([]string{g.dstKey()}, setOpArgs(g, true, false)...)...)...)
	}},
	{[]string{"ZDIFFSTORE"}, 2, func(g *gen) step {
		return one(cmd(g, "ZDIFFSTORE", append([]string{g.dstKey()}, setOpArgs(g, false, false)...)...)...)
	}},
	{[]string{"ZINTERCARD"}, 2, func(g *gen) step {
		args := g.numkeys(g.zkey)
		if g.chance(50) {
			args = append(args, g.cased("LIMIT"), g.count())
		}
		return one(cmd(g, "ZINTERCARD", args...)...)
	}},
	{[]string{"ZSCAN"}, 2, func(g *gen) step {
		args := []string{g.zkey(), "0"}
		if g.chance(5) {
			args[1] = g.pick([]string{"abc", "", "1.5"})
		}
		if g.chance(40) {
			args = append(args, g.cased("MATCH"), g.pick([]string{"*", "a*", "?", "m[0-2]", "*\\*"}))
		}
		args = append(args, g.cased("COUNT"), "10000")
		return one(cmd(g, "ZSCAN", args...)...)
	}},

	{[]string{"DEL", "ZADD", "ZINCRBY", "ZREM"}, 3, func(g *gen) step {
		// z3 rebuilt with 127, 128 or 129 members, then grown or shrunk by one or two:
		// every way across Redis's 128-member listpack limit, by one command or many.
		return sizedZAdd(g, "z3", 126+g.n(5))
	}},
	{[]string{"ZADD"}, 1, func(g *gen) step {
		// Many members at once: large sets take other paths (Redis converts past 128
		// members to a skiplist; zlite's tree grows levels).
		k, lex := "zb", g.chance(30)
		if lex {
			k = g.pick(lexKeys[:2])
		}
		args := []string{k}
		for range 50 + g.n(400) {
			sc := g.goodScore()
			if lex {
				sc = "0"
			}
			args = append(args, sc, "b"+strconv.Itoa(g.n(2000)))
		}
		return one(cmd(g, "ZADD", args...)...)
	}},
	{[]string{"DEL", "RPUSH", "LPUSH", "RPOP", "LPOP"}, 2, func(g *gen) step {
		// l3 rebuilt with 126 to 130 values, then pushed or popped by one.
		return sizedPush(g, "l3", 126+g.n(5))
	}},

	// Lists.
	{[]string{"RPUSH", "LPUSH"}, 1, func(g *gen) step {
		// Many values at once, to span the list's pages.
		args := []string{"l2"}
		for range 50 + g.n(300) {
			args = append(args, g.value()+strconv.Itoa(g.n(5)))
		}
		return one(cmd(g, g.pick([]string{"RPUSH", "LPUSH"}), args...)...)
	}},
	{[]string{"LPUSH", "RPUSH", "LPUSHX", "RPUSHX"}, 12, func(g *gen) step {
		name := g.pick([]string{"LPUSH", "RPUSH", "LPUSH", "RPUSH", "LPUSHX", "RPUSHX"})
		args := []string{g.lkey()}
		for range 1 + g.n(4) {
			args = append(args, g.value())
		}
		if g.chance(3) {
			args = args[:1]
		}
		return one(cmd(g, name, args...)...)
	}},
	{[]string{"LPOP", "RPOP"}, 6, func(g *gen) step {
		args := []string{g.lkey()}
		if g.chance(40) {
			args = append(args, g.count())
		}
		return one(cmd(g, g.pick([]string{"LPOP", "RPOP"}), args...)...)
	}},
	{[]string{"LLEN"}, 2, func(g *gen) step { return one(cmd(g, "LLEN", g.lkey())...) }},
	{[]string{"LINDEX"}, 3, func(g *gen) step { return one(cmd(g, "LINDEX", g.lkey(), g.idx())...) }},
	{[]string{"LSET"}, 3, func(g *gen) step { return one(cmd(g, "LSET", g.lkey(), g.idx(), g.value())...) }},
	{[]string{"LRANGE"}, 5, func(g *gen) step { return one(cmd(g, "LRANGE", g.lkey(), g.idx(), g.idx())...) }},
	{[]string{"LINSERT"}, 3, func(g *gen) step {
		return one(cmd(g, "LINSERT", g.lkey(), g.cased(g.pick([]string{"BEFORE", "AFTER", "BEFORE", "AFTER", "MIDDLE"})), g.value(), g.value())...)
	}},
	{[]string{"LREM"}, 3, func(g *gen) step {
		return one(cmd(g, "LREM", g.lkey(), g.pick([]string{"0", "1", "-1", "2", "-2", "abc"}), g.value())...)
	}},
	{[]string{"LTRIM"}, 2, func(g *gen) step { return one(cmd(g, "LTRIM", g.lkey(), g.idx(), g.idx())...) }},
	{[]string{"LPOS"}, 3, func(g *gen) step {
		var opts [][]string
		if g.chance(40) {
			opts = append(opts, []string{g.cased("RANK"), g.pick([]string{"1", "2", "-1", "-2", "0", "abc", "-9223372036854775808"})})
		}
		if g.chance(40) {
			opts = append(opts, []string{g.cased("COUNT"), g.pick([]string{"0", "1", "2", "-1", "abc"})})
		}
		if g.chance(30) {
			opts = append(opts, []string{g.cased("MAXLEN"), g.pick([]string{"0", "1", "3", "-1", "abc"})})
		}
		if g.chance(3) {
			opts = append(opts, []string{"junk"})
		}
		return one(cmd(g, "LPOS", append([]string{g.lkey(), g.value()}, g.shuffle(opts)...)...)...)
	}},
	{[]string{"LMOVE", "RPOPLPUSH"}, 4, func(g *gen) step {
		if g.chance(30) {
			return one(cmd(g, "RPOPLPUSH", g.lkey(), g.lkey())...)
		}
		return one(cmd(g, "LMOVE", g.lkey(), g.lkey(), g.cased(g.pick([]string{"LEFT", "RIGHT", "LEFT", "RIGHT", "UP"})), g.cased(g.pick([]string{"LEFT", "RIGHT"})))...)
	}},
	{[]string{"LMPOP"}, 3, func(g *gen) step {
		args := append(g.numkeys(g.lkey), g.cased(g.pick([]string{"LEFT", "RIGHT", "LEFT", "RIGHT", "junk"})))
		if g.chance(50) {
			args = append(args, g.cased("COUNT"), g.count())
		}
		return one(cmd(g, "LMPOP", args...)...)
	}},
	{[]string{"BLPOP", "BRPOP", "LPUSH", "RPUSH"}, 3, func(g *gen) step {
		name := g.pick([]string{"BLPOP", "BRPOP"})
		n := 1 + g.n(3)
		var keys []string
		for range n {
			keys = append(keys, g.lkey())
		}
		if g.chance(20) {
			return one(cmd(g, name, append(keys, g.pick(timeoutB))...)...)
		}
		return pushFirst(g, false, keys[n-1], cmd(g, name, append(keys, g.pick(timeoutG))...))
	}},
	{[]string{"BLMOVE", "BRPOPLPUSH", "LPUSH", "RPUSH"}, 3, func(g *gen) step {
		src, dst := g.lkey(), g.lkey()
		if g.chance(20) {
			return one(cmd(g, "BLMOVE", src, dst, "LEFT", "RIGHT", g.pick(timeoutB))...)
		}
		if g.chance(30) {
			return pushFirst(g, false, src, cmd(g, "BRPOPLPUSH", src, dst, g.pick(timeoutG)))
		}
		return pushFirst(g, false, src, cmd(g, "BLMOVE", src, dst, g.cased(g.pick([]string{"LEFT", "RIGHT"})), g.cased(g.pick([]string{"LEFT", "RIGHT"})), g.pick(timeoutG)))
	}},
	{[]string{"BLMPOP", "LPUSH", "RPUSH"}, 3, func(g *gen) step {
		nk := g.numkeys(g.lkey)
		if g.chance(20) {
			args := append([]string{g.pick(timeoutB)}, nk...)
			return one(cmd(g, "BLMPOP", append(args, "LEFT")...)...)
		}
		nk[0] = strconv.Itoa(len(nk) - 1)
		args := append([]string{g.pick(timeoutG)}, nk...)
		args = append(args, g.cased(g.pick([]string{"LEFT", "RIGHT"})))
		if g.chance(50) {
			args = append(args, g.cased("COUNT"), g.pick([]string{"1", "2", "3", "100"}))
		}
		return pushFirst(g, false, nk[len(nk)-1], cmd(g, "BLMPOP", args...))
	}},

	// Keys.
	{[]string{"DEL", "UNLINK", "EXISTS", "TOUCH"}, 2, func(g *gen) step {
		args := []string{g.pick(anyKeys)}
		for range g.n(3) {
			args = append(args, g.pick(anyKeys))
		}
		return one(cmd(g, g.pick([]string{"DEL", "UNLINK", "EXISTS", "EXISTS", "TOUCH"}), args...)...)
	}},
	{[]string{"TYPE"}, 2, func(g *gen) step { return one(cmd(g, "TYPE", g.pick(anyKeys))...) }},
	{[]string{"RENAME", "RENAMENX"}, 2, func(g *gen) step {
		return one(cmd(g, g.pick([]string{"RENAME", "RENAMENX"}), g.pick(anyKeys), g.pick(anyKeys))...)
	}},
	{[]string{"COPY"}, 2, func(g *gen) step {
		args := []string{g.pick(anyKeys), g.pick(anyKeys)}
		if g.chance(40) {
			args = append(args, g.cased("REPLACE"))
		}
		return one(cmd(g, "COPY", args...)...)
	}},
	{[]string{"KEYS"}, 1, func(g *gen) step { return one(cmd(g, "KEYS", g.pick(patterns))...) }},
	{[]string{"SCAN"}, 1, func(g *gen) step {
		args := []string{"0"}
		if g.chance(40) {
			args = append(args, g.cased("MATCH"), g.pick(patterns))
		}
		if g.chance(30) {
			args = append(args, g.cased("TYPE"), g.pick([]string{"zset", "list", "string", "ZSET"}))
		}
		args = append(args, g.cased("COUNT"), "10000")
		return one(cmd(g, "SCAN", args...)...)
	}},
	{[]string{"DBSIZE"}, 1, func(g *gen) step { return one(cmd(g, "DBSIZE")...) }},
	{[]string{"RANDOMKEY", "KEYS"}, 1, func(g *gen) step { return step{cmd(g, "RANDOMKEY"), {"KEYS", "*"}} }},
	{[]string{"TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME", "PERSIST"}, 3, func(g *gen) step {
		return one(cmd(g, g.pick([]string{"TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME", "PERSIST"}), g.pick(anyKeys))...)
	}},
	{[]string{"EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT"}, 4, expireStep},
}

// Expiry times: relative ones at least 100 s, so that no key expires during a
// transcript on either side (what expires when is the clock's, not the command's,
// and is tested with a fake clock in the root package), absolute ones far in the
// future or past, and the overflow and parse edges. GT and LT go only with the
// absolute forms: two relative times set a few microseconds apart on each side
// could compare differently.
var (
	expireRel = []string{"100", "1000", "100000", "0", "-1", "-100", "9223372036854775807", "9223372036854775",
		"9223372036854776", "-9223372036854775808", "-9223372036854776", "abc", "1.5", "", " 1"}
	expireAbs = []string{"4000000000", "4000000001", "3999999999", "1", "0", "-1", "9223372036854775",
		"9223372036854776", "9223372036854775807", "-9223372036854775808", "abc"}
)

func expireStep(g *gen) step {
	name := g.pick([]string{"EXPIRE", "PEXPIRE", "EXPIREAT", "PEXPIREAT"})
	abs := strings.HasSuffix(name, "AT")
	var when string
	switch {
	case abs:
		when = g.pick(expireAbs)
		if name == "PEXPIREAT" && g.chance(70) {
			when += "000"
		}
	default:
		when = g.pick(expireRel)
		if name == "PEXPIRE" && g.chance(70) && when != "" && when[0] != '-' {
			when += "000"
		}
	}
	args := []string{g.pick(anyKeys), when}
	opts := []string{"NX", "XX"}
	if abs {
		opts = append(opts, "GT", "LT", "GT", "LT")
	}
	// Mostly none, else one to three options; the count is drawn once, because an
	// exhausted source reads as zeros and a loop on chance(30) would never end.
	if g.chance(30) {
		for range 1 + g.n(3) {
			args = append(args, g.cased(g.pick(opts)))
		}
	}
	if g.chance(2) {
		args = append(args, "junk")
	}
	return one(cmd(g, name, args...)...)
}

// zrangeArgs builds ZRANGE's arguments from the key on; withScores allows WITHSCORES.
func zrangeArgs(g *gen, withScores bool) []string {
	var by string
	var start, stop string
	switch g.n(3) {
	case 0:
		start, stop = g.idx(), g.idx()
	case 1:
		by = "BYSCORE"
		start, stop = g.bound(), g.bound()
	default:
		by = "BYLEX"
		start, stop = g.lex(), g.lex()
	}
	if g.chance(5) { // mismatched kinds of bounds
		start = g.pick([]string{g.idx(), g.bound(), g.lex()})
	}
	var opts [][]string
	if by != "" && g.chance(95) || by == "" && g.chance(4) {
		if by == "" {
			by = g.pick([]string{"BYSCORE", "BYLEX"})
		}
		opts = append(opts, []string{g.cased(by)})
	}
	key := g.zkey()
	if by == "BYLEX" {
		key = g.lexKey()
	}
	if g.chance(40) {
		opts = append(opts, []string{g.cased("REV")})
	}
	if g.chance(30) && (by != "" || g.chance(10)) {
		opts = append(opts, g.limit())
	}
	if withScores && g.chance(40) || !withScores && g.chance(3) {
		opts = append(opts, []string{g.cased("WITHSCORES")})
	}
	if g.chance(2) {
		opts = append(opts, []string{"junk"})
	}
	return append([]string{key, start, stop}, g.shuffle(opts)...)
}

// setOpArgs builds numkeys, keys and options for ZUNION/ZINTER/ZDIFF (+STORE).
func setOpArgs(g *gen, weighted, withScores bool) []string {
	args := g.numkeys(g.zkey)
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 0 || n > 4 { // a wrong numkeys: weights for the keys given
		n = len(args) - 1
	}
	var opts [][]string
	if weighted && g.chance(40) {
		w := []string{g.cased("WEIGHTS")}
		wn := n
		if g.chance(5) {
			wn++
		}
		for range wn {
			w = append(w, g.pick([]string{"1", "2", "0", "-1", "0.5", "inf", "-inf", "1e308", "abc", "-0", "nan"}))
		}
		opts = append(opts, w)
	}
	if weighted && g.chance(40) {
		opts = append(opts, []string{g.cased("AGGREGATE"), g.cased(g.pick([]string{"SUM", "MIN", "MAX", "SUM", "MIN", "MAX", "AVG"}))})
	}
	if withScores && g.chance(50) {
		opts = append(opts, []string{g.cased("WITHSCORES")})
	}
	if !withScores && g.chance(3) || !weighted && g.chance(3) {
		opts = append(opts, []string{g.pick([]string{"WITHSCORES", "AGGREGATE", "junk"})})
	}
	return append(args, g.shuffle(opts)...)
}

// sizedZAdd returns a step that rebuilds key with n members in one ZADD (sometimes
// one of them 63 to 65 bytes long), then changes its size by a command or two
// (ZADD or ZINCRBY of a new member, ZREM of one), so that the set crosses the sizes
// where Redis changes encodings one member at a time.
func sizedZAdd(g *gen, key string, n int) step {
	args := []string{key}
	long := -1
	if g.chance(30) {
		long = g.n(n)
	}
	for i := range n {
		m := "s" + strconv.Itoa(i)
		if i == long {
			m += strings.Repeat("y", 63+g.n(3)-len(m)) // 63 to 65 bytes
		}
		args = append(args, strconv.Itoa(g.n(n)), m)
	}
	s := step{{"DEL", key}, cmd(g, "ZADD", args...)}
	for i := range g.n(3) {
		m := "s" + strconv.Itoa(n+i)
		switch g.n(3) {
		case 0:
			s = append(s, cmd(g, "ZADD", key, g.goodScore(), m))
		case 1:
			s = append(s, cmd(g, "ZINCRBY", key, g.goodScore(), m))
		default:
			s = append(s, cmd(g, "ZREM", key, "s"+strconv.Itoa(g.n(n))))
		}
	}
	return s
}

// sizedPush is sizedZAdd for the list key: n values in one RPUSH, then a push or a
// pop.
func sizedPush(g *gen, key string, n int) step {
	args := []string{key}
	for i := range n {
		v := "v" + strconv.Itoa(i)
		if g.chance(1) {
			v = strings.Repeat("v", 63+g.n(3))
		}
		args = append(args, v)
	}
	s := step{{"DEL", key}, cmd(g, "RPUSH", args...)}
	if g.chance(70) {
		s = append(s, cmd(g, g.pick([]string{"RPUSH", "LPUSH", "RPOP", "LPOP"}), key, g.value()))
		if c := s[len(s)-1]; strings.HasSuffix(strings.ToUpper(c[0]), "POP") {
			s[len(s)-1] = c[:2]
		}
	}
	return s
}

// segment returns a FLUSHALL and the 20 to 299 steps that follow it: the unit of a
// seeded transcript, replayed alone when it diverges.
func (g *gen) segment() []step {
	seg := []step{flushStep}
	for range 20 + g.n(280) {
		seg = append(seg, g.next())
	}
	return seg
}

// next returns the next step: a command from the weighted table. Steps using a
// command the keyspace does not implement are drawn again.
func (g *gen) next() step {
	for {
		s := g.draw()
		if g.supported(s) {
			return s
		}
		if g.src.done() {
			return nil
		}
	}
}

func (g *gen) supported(s step) bool {
	for _, c := range s {
		if g.allowed != nil && !g.allowed[strings.ToUpper(c[0])] {
			return false
		}
	}
	return true
}

func (g *gen) draw() step {
	total := 0
	for _, c := range commands {
		total += c.weight
	}
	w := g.n(total)
	for _, c := range commands {
		if w < c.weight {
			s := c.fn(g)
			// Wrong arity: drop or add an argument of the step's last command, unless
			// that command is a companion (the check of a random reply).
			if g.chance(1) && (len(s) == 1 || name(s[0]) != "ZRANDMEMBER" && name(s[0]) != "RANDOMKEY") {
				last := len(s) - 1
				if len(s[last]) > 1 && g.chance(50) {
					s[last] = s[last][:len(s[last])-1]
				} else {
					s[last] = append(s[last], g.value())
				}
			}
			return s
		}
		w -= c.weight
	}
	panic("weights do not add up")
}
