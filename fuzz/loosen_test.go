package fuzz

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// This file is the one place where the differential comparison is loosened. Every
// reply is compared byte for byte unless an entry below applies to its command; each
// entry says why the exact comparison would be wrong.
//
// Handled without loosening the comparison:
//   - Lexicographic ranges are specified only when all scores are equal (Redis answers
//     a skiplist-level-dependent cut otherwise; zset/doc.go): the generator runs lex
//     commands on keys that only ever get score 0 (lexKeys in gen_test.go).
//   - A negative LIMIT offset returns nothing in Redis 7.2+ (zset/doc.go); Redis 7.0.15
//     already replies empty in both encodings, so these replies are compared exactly.
//   - Blocking commands in the main transcript are preceded by a push onto their last
//     key, so they never block on either side; blocking itself is compared by
//     TestDifferentialBlocking.
//   - SCAN and ZSCAN are sent with COUNT 10000, more than the largest set (zb, at most
//     a few thousand members) or keyspace holds, so both sides finish in one call with
//     cursor 0 (zlite's cursors are creation numbers, Redis's hash positions).
//   - Commands the keyspace does not implement are left out of the transcript, and
//     listed in the test log.

// A loosening changes how one command's replies are compared.
type loosening struct {
	name string
	why  string
	// applies reports whether the loosening covers args (the command as generated).
	// redis72 is true when the server is Redis 7.2 or newer.
	applies func(args []string, redis72 bool) bool
	// rewrite, when set, gives the command Redis is sent instead of args.
	rewrite func(args []string) []string
	// norm, when set, is applied to both replies before they are compared.
	norm func(args []string, v val) val
	// floats makes string leaves compare as doubles when their bytes differ.
	floats bool
	// zeroSign lets the score -0 match 0.
	zeroSign bool
	// check, when set, replaces the comparison: it returns "" when the keyspace's
	// reply zl is acceptable given Redis's reply rd and the keyspace's reply to the
	// step's companion command (after).
	check func(args []string, zl, rd, after val) string
}

// scoreReplies are the commands whose replies carry scores as bulk strings.
var scoreReplies = map[string]bool{
	"ZADD": true, "ZINCRBY": true, "ZSCORE": true, "ZMSCORE": true, "ZRANGE": true, "ZREVRANGE": true,
	"ZRANGEBYSCORE": true, "ZREVRANGEBYSCORE": true, "ZPOPMIN": true, "ZPOPMAX": true, "BZPOPMIN": true,
	"BZPOPMAX": true, "ZMPOP": true, "BZMPOP": true, "ZUNION": true, "ZINTER": true, "ZDIFF": true,
	"ZRANDMEMBER": true, "ZSCAN": true, "ZRANK": true, "ZREVRANK": true,
}

func name(args []string) string { return strings.ToUpper(args[0]) }

var loosenings = []loosening{
	{
		name: "isolation",
		why: "The Redis side runs in its own database (see redisDB) because other packages' tests " +
			"share CI's server, so FLUSHALL is sent to Redis as FLUSHDB; both reply OK.",
		applies: func(args []string, _ bool) bool { return name(args) == "FLUSHALL" },
		rewrite: func([]string) []string { return []string{"FLUSHDB"} },
	},
	{
		name: "score-format",
		why: "Redis before 7.2 formats non-integral scores with %.17g (0.1 → 0.10000000000000001); " +
			"zlite follows 7.2+, the shortest string that reads back as the same double. " +
			"Score strings are compared as parsed doubles (bit for bit, sign of zero included).",
		applies: func(args []string, redis72 bool) bool { return !redis72 && scoreReplies[name(args)] },
		floats:  true,
	},
	{
		name: "negative-zero",
		why: "Redis stores the scores of small sets (listpack encoding: ≤128 members of ≤64 bytes) " +
			"as integers when they are integral (zzlInsertAt: double2ll), and -0 counts as integral, so " +
			"a -0 score reads back as 0; in larger sets (skiplist) -0 stays -0. zlite keeps -0, like the " +
			"skiplist, a documented difference (zset/doc.go). -0 and 0 compare equal as scores " +
			"(ordering, ranges and GT/LT are unaffected), so a score string -0 matches 0.",
		applies:  func(args []string, _ bool) bool { return scoreReplies[name(args)] },
		zeroSign: true,
	},
	{
		name: "zrank-withscore",
		why: "ZRANK/ZREVRANK … WITHSCORE is Redis 7.2+; 7.0 answers a wrong-arity error. zlite follows " +
			"7.2, so on an older server the same question is asked with a script (rank, then score).",
		applies: func(args []string, redis72 bool) bool {
			n := name(args)
			return !redis72 && (n == "ZRANK" || n == "ZREVRANK") && len(args) == 4 && strings.EqualFold(args[3], "WITHSCORE")
		},
		rewrite: func(args []string) []string {
			return []string{"EVAL", `local r = redis.pcall(ARGV[1], KEYS[1], ARGV[2])
if type(r) ~= 'number' then return r end
return {r, redis.call('ZSCORE', KEYS[1], ARGV[2])}`, "1", args[1], args[0], args[2]}
		},
		floats: true,
	},
	{
		name: "zrank-syntax",
		why: "With WITHSCORE (7.2+), ZRANK/ZREVRANK take a fourth argument: 7.2 answers a fourth " +
			"argument other than WITHSCORE with a syntax error where 7.0 gives the arity error. " +
			"zlite follows 7.2 and must reply exactly ERR syntax error.",
		applies: func(args []string, redis72 bool) bool {
			n := name(args)
			return !redis72 && (n == "ZRANK" || n == "ZREVRANK") && len(args) == 4 && !strings.EqualFold(args[3], "WITHSCORE")
		},
		check: func(_ []string, zl, _, _ val) string {
			if zl.kind == kErr && zl.s == "ERR syntax error" {
				return ""
			}
			return "want (error) ERR syntax error"
		},
	},
	{
		name: "timeout-out-of-range",
		why: "Redis before 7.2 turns a blocking timeout of 2^63 ms or more (1e400, inf) into a " +
			"negative number and replies 'timeout is negative'; 7.2+ checks the range first and " +
			"replies 'timeout is out of range' (timeout.c), which zlite follows (block_timeout.go). " +
			"Any other reply must match exactly.",
		applies: func(args []string, redis72 bool) bool {
			if redis72 || !blockingCommands[name(args)] {
				return false
			}
			t := args[len(args)-1] // BLPOP, BRPOP, BZPOPMIN, BZPOPMAX, BLMOVE, BRPOPLPUSH
			if n := name(args); (n == "BLMPOP" || n == "BZMPOP") && len(args) > 1 {
				t = args[1]
			}
			f, _ := strconv.ParseFloat(t, 64) // 1e400 parses as +Inf
			return f >= math.MaxInt64/1000
		},
		check: func(_ []string, zl, rd, _ val) string {
			if equalVal(zl, rd, true) { // another error came first
				return ""
			}
			if rd.kind == kErr && rd.s == "ERR timeout is negative" && zl.kind == kErr && zl.s == "ERR timeout is out of range" {
				return ""
			}
			return "want Redis's reply, or (error) ERR timeout is out of range where Redis 7.0 says negative"
		},
	},
	{
		name: "lpos-rank-min",
		why: "Redis before 7.2 negates LPOS's RANK -9223372036854775808 (an overflow, undefined " +
			"behaviour in C; 7.0.15 happens to reply nil); newer Redis range-checks RANK and replies " +
			"an error, which zlite follows. The keyspace must give Redis's reply when an earlier " +
			"option fails, and exactly that error otherwise.",
		applies: func(args []string, redis72 bool) bool {
			if redis72 || name(args) != "LPOS" {
				return false
			}
			for i := 3; i < len(args); i++ {
				if strings.EqualFold(args[i-1], "RANK") && args[i] == "-9223372036854775808" {
					return true
				}
			}
			return false
		},
		check: func(_ []string, zl, rd, _ val) string {
			if equalVal(zl, rd, false) { // another error came first
				return ""
			}
			const want = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
			if zl.kind == kErr && zl.s == want {
				return ""
			}
			return "want (error) " + want
		},
	},
	{
		name: "unordered",
		why: "KEYS and SCAN list keys in hash-table order and ZSCAN of a hash-encoded set lists " +
			"members in hash order; the same elements in another order are the same answer. " +
			"(Every SCAN/ZSCAN is sent with COUNT 10000, more than any set or keyspace holds, so both finish in one call.)",
		applies: func(args []string, _ bool) bool {
			n := name(args)
			return n == "KEYS" || n == "SCAN" || n == "ZSCAN"
		},
		norm: sortReply,
	},
	{
		name: "random-members",
		why: "ZRANDMEMBER picks at random. The keyspace's picks are checked against its own reply " +
			"to the ZRANGE … WITHSCORES that follows (which is itself compared exactly): right count, " +
			"distinct when the count is positive, every pick a member with its score.",
		applies: func(args []string, _ bool) bool { return name(args) == "ZRANDMEMBER" },
		check:   checkRandMember,
	},
	{
		name: "ttl-tolerance",
		why: "A relative TTL (EXPIRE, PEXPIRE) is an absolute time computed from each side's clock " +
			"when the command runs, and TTL/PTTL subtract the clock when they run, so the two sides " +
			"differ by the microseconds to milliseconds between their commands. -1 and -2 and errors " +
			"are compared exactly; a time (≥ 0) may differ by up to 5 s (seconds replies) or 5000 ms.",
		applies: func(args []string, _ bool) bool {
			switch name(args) {
			case "TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME":
				return true
			}
			return false
		},
		check: func(args []string, zl, rd, _ val) string {
			if zl.kind != kInt || rd.kind != kInt || zl.i < 0 || rd.i < 0 {
				if equalVal(zl, rd, false) {
					return ""
				}
				return "want " + rd.String()
			}
			tol := int64(5)
			if strings.HasPrefix(name(args), "P") {
				tol = 5000
			}
			if d := zl.i - rd.i; d <= tol && d >= -tol {
				return ""
			}
			return "want " + rd.String() + " within " + strconv.FormatInt(tol, 10)
		},
	},
	{
		name: "random-key",
		why: "RANDOMKEY picks at random: the keyspace must answer nil exactly when Redis does, and " +
			"otherwise a key listed by its own reply to the KEYS * that follows.",
		applies: func(args []string, _ bool) bool { return name(args) == "RANDOMKEY" },
		check: func(_ []string, zl, rd, after val) string {
			if rd.kind != kStr {
				if equalVal(zl, rd, false) {
					return ""
				}
				return "want " + rd.String()
			}
			if zl.kind == kStr && after.kind == kArr && slices.ContainsFunc(after.a, func(k val) bool { return k.kind == kStr && k.s == zl.s }) {
				return ""
			}
			return "not a key of KEYS *: " + after.String()
		},
	},
}

// applicable returns the loosenings covering args.
func applicable(args []string, redis72 bool) []*loosening {
	var out []*loosening
	for i := range loosenings {
		if loosenings[i].applies(args, redis72) {
			out = append(out, &loosenings[i])
		}
	}
	return out
}

// redisArgs returns the command to send Redis for args.
func redisArgs(args []string, redis72 bool) []string {
	for _, l := range applicable(args, redis72) {
		if l.rewrite != nil {
			return l.rewrite(args)
		}
	}
	return args
}

// compareReply returns "" when the keyspace's reply zl matches Redis's reply rd to
// args, and otherwise what is wrong.
func compareReply(args []string, zl, rd, after val, redis72 bool) string {
	ls := applicable(args, redis72)
	floats, zeroSign := false, false
	for _, l := range ls {
		if l.check != nil {
			if msg := l.check(args, zl, rd, after); msg != "" {
				return fmt.Sprintf("%s (loosening %q)", msg, l.name)
			}
			return ""
		}
		if l.norm != nil {
			zl, rd = l.norm(args, zl), l.norm(args, rd)
		}
		floats = floats || l.floats
		zeroSign = zeroSign || l.zeroSign
	}
	if zeroSign {
		zl, rd = unsignZeros(zl), unsignZeros(rd)
	}
	if equalVal(zl, rd, floats) {
		return ""
	}
	return "want " + rd.String()
}

// sortReply puts KEYS' elements, SCAN's keys and ZSCAN's member/score pairs in order.
func sortReply(args []string, v val) val {
	if v.kind != kArr {
		return v
	}
	switch name(args) {
	case "KEYS":
		return val{kind: kArr, a: sortedStrings(v.a)}
	case "SCAN", "ZSCAN":
		if len(v.a) != 2 || v.a[1].kind != kArr {
			return v
		}
		elems := v.a[1].a
		if name(args) == "SCAN" {
			return val{kind: kArr, a: []val{v.a[0], {kind: kArr, a: sortedStrings(elems)}}}
		}
		if len(elems)%2 != 0 {
			return v
		}
		type pair struct{ m, s val }
		ps := make([]pair, 0, len(elems)/2)
		for i := 0; i < len(elems); i += 2 {
			ps = append(ps, pair{elems[i], elems[i+1]})
		}
		slices.SortFunc(ps, func(a, b pair) int { return strings.Compare(a.m.String(), b.m.String()) })
		out := make([]val, 0, len(elems))
		for _, p := range ps {
			out = append(out, p.m, p.s)
		}
		return val{kind: kArr, a: []val{v.a[0], {kind: kArr, a: out}}}
	}
	return v
}

func sortedStrings(vs []val) []val {
	out := slices.Clone(vs)
	slices.SortFunc(out, func(a, b val) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// checkRandMember checks a ZRANDMEMBER reply zl against the set's contents, which are
// the keyspace's reply to ZRANGE key 0 -1 WITHSCORES (after).
func checkRandMember(args []string, zl, rd, after val) string {
	if rd.kind == kErr || zl.kind == kErr || rd.kind == kNil || after.kind != kArr {
		if equalVal(zl, rd, false) {
			return ""
		}
		return "want " + rd.String()
	}
	scores := map[string]string{}
	for i := 0; i+1 < len(after.a); i += 2 {
		scores[after.a[i].s] = after.a[i+1].s
	}
	if len(args) == 2 { // ZRANDMEMBER key: one member
		if zl.kind != kStr {
			return "want a member, like " + rd.String()
		}
		if _, ok := scores[zl.s]; !ok {
			return "not a member of " + after.String()
		}
		return ""
	}
	count, _ := strconv.ParseInt(args[2], 10, 64)
	withScores := len(args) == 4
	if zl.kind != kArr || rd.kind != kArr || len(zl.a) != len(rd.a) {
		return fmt.Sprintf("want %d elements like %s", len(rd.a), rd.String())
	}
	step := 1
	if withScores {
		step = 2
	}
	if len(zl.a)%step != 0 {
		return "odd WITHSCORES reply"
	}
	seen := map[string]bool{}
	for i := 0; i < len(zl.a); i += step {
		m := zl.a[i]
		s, ok := scores[m.s]
		if m.kind != kStr || !ok {
			return fmt.Sprintf("%s is not a member of %s", m.String(), after.String())
		}
		if withScores && (zl.a[i+1].kind != kStr || zl.a[i+1].s != s) {
			return fmt.Sprintf("score %s for %s; the set has %s", zl.a[i+1].String(), m.String(), s)
		}
		if count > 0 && seen[m.s] {
			return fmt.Sprintf("%s picked twice with a positive count", m.String())
		}
		seen[m.s] = true
	}
	return ""
}

// unsignZeros replaces the score strings "-0" in v by "0".
func unsignZeros(v val) val {
	switch v.kind {
	case kStr:
		if v.s == "-0" {
			return str0
		}
	case kFloat:
		if v.f == 0 {
			return val{kind: kFloat}
		}
	case kArr:
		out := val{kind: kArr, a: make([]val, len(v.a))}
		for i, e := range v.a {
			out.a[i] = unsignZeros(e)
		}
		return out
	}
	return v
}

var str0 = val{kind: kStr, s: "0"}
