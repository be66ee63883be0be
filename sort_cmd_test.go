package zlite

import (
	"context"
	"errors"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSortCommands runs SORT and SORT_RO through Do and on a real redis-server, and
// requires the same replies and error texts. Loosened, as sort.go says why: sets of
// strings read BY nosort without STORE are in hash-table order in Redis (compared
// "sorted:"); ALPHA's strcoll is byte order in the test server's locale (C.UTF-8),
// so it is compared exactly, NUL bytes included; ties of ALPHA BY are compared only
// where Redis's order is its stable qsort's (lists without a LIMIT).
func TestSortCommands(t *testing.T) {
	cmd := func(w ...string) []string { return w }
	tests := []struct {
		name string
		cmds [][]string
	}{
		{"list numbers", [][]string{
			cmd("RPUSH", "l", "3", "1", "2", "10", "-5", "1.5", "", "2"),
			cmd("SORT", "l"), cmd("SORT", "l", "DESC"), cmd("sort", "l", "desc", "asc"), cmd("SORT", "l", "ASC", "DESC"),
			cmd("SORT", "l", "ALPHA"), cmd("SORT", "l", "alpha", "DESC"), cmd("SORT", "l", "ALPHA", "ALPHA"),
			cmd("SORT", "l", "BY", "nosort"), cmd("SORT", "l", "BY", "nosort", "DESC"), cmd("SORT", "l", "BY", "nosort", "LIMIT", "1", "3"),
			cmd("SORT", "l", "BY", "nosort", "DESC", "LIMIT", "1", "3"), cmd("SORT", "l", "BY", "nosort", "LIMIT", "6", "5"),
			cmd("SORT", "l", "BY", "nosort", "DESC", "LIMIT", "7", "5"), cmd("SORT", "l", "BY", "nosort", "LIMIT", "8", "1"),
			cmd("SORT", "l", "BY", "nosort", "LIMIT", "0", "0"), cmd("SORT", "l", "BY", "#"), cmd("SORT", "l", "BY", "x\x00*"),
			cmd("SORT", "l", "BY", "nosort", "BY", "w_*"), cmd("SORT", "l", "BY", "w_*", "BY", "nosort"),
			cmd("SORT", "l", "LIMIT", "1", "3"), cmd("SORT", "l", "LIMIT", "-1", "2"), cmd("SORT", "l", "LIMIT", "0", "-1"),
			cmd("SORT", "l", "LIMIT", "0", "-7"), cmd("SORT", "l", "LIMIT", "2", "0"), cmd("SORT", "l", "LIMIT", "7", "1"),
			cmd("SORT", "l", "LIMIT", "8", "1"), cmd("SORT", "l", "LIMIT", "100", "-1"), cmd("SORT", "l", "LIMIT", "3", "100"),
			cmd("SORT", "l", "LIMIT", "9223372036854775807", "9223372036854775807"),
			cmd("SORT", "l", "LIMIT", "-9223372036854775808", "-9223372036854775808"),
			cmd("SORT", "l", "LIMIT", "0", "9223372036854775807"), cmd("SORT", "l", "LIMIT", "1", "1", "LIMIT", "2", "2"),
			cmd("SORT", "l", "DESC", "LIMIT", "1", "2"), cmd("SORT", "l", "ASC\x00x", "limit\x00", "0", "2", "desc\x00asc"),
			cmd("SORT", "nokey"), cmd("SORT", "nokey", "DESC", "LIMIT", "0", "5"), cmd("SORT", "nokey", "BY", "nosort", "DESC", "GET", "#"),
			cmd("SORT", "nokey", "GET", "#", "GET", "x"), cmd("SORT_RO", "nokey", "ALPHA"),
			cmd("RPUSH", "dup", "b", "a", "b", "a", "c"), cmd("SORT", "dup", "ALPHA"), cmd("SORT", "dup", "ALPHA", "DESC", "LIMIT", "1", "3"),
		}},
		{"number formats", [][]string{
			cmd("RPUSH", "n", " 2", "+3", "0x10", "1e1", ".5", "5.", "-inf", "inf", "infinity", "InF", "-INFINITY", "-0", "0", "+0",
				"0x1.8p1", "\t1", "\n\v\f\r4", "1e0000000000000000000000000000000000001", "2.2250738585072013e-308", "0x1p-1074",
				"0x.8", "0X1P4", "-0x1p3", "\x003", "7\x00x", "8\x00", "1.7976931348623157e308", "1.7976931348623158e308",
				"0x1.fffffffffffff8p-1023", "0x1.fffffffffffffcp-1023", "0x0.0000000000001p-1022", "0x1p-1074\x00junk",
				"0."+strings.Repeat("0", 400)+"e400", "0x0p99999999999999999999", "1e+1", "1.e5", "00.100", "000x"[:2],
				strings.Repeat("9", 400)+"e-400", exactDecimal(big.NewFloat(0).SetMantExp(big.NewFloat(1), -1074)),
				exactDecimal(big.NewFloat(0).SetMantExp(big.NewFloat(1), -1022)), exactDecimal(tinyBoundFloat()),
				exactDecimal(big.NewFloat(0).SetMantExp(big.NewFloat(3), -1060))+strings.Repeat("0", 1500)),
			cmd("SORT", "n"), cmd("SORT", "n", "DESC"), cmd("SORT", "n", "LIMIT", "3", "4"), cmd("SORT", "n", "BY", "nosort", "GET", "#"),
		}},
		{"scores that are not numbers", sortErrorCases()},
		{"sets", [][]string{
			cmd("SADD", "s", "5", "3", "9", "1", "-2", "10"), cmd("SORT", "s"), cmd("SORT", "s", "DESC"), cmd("SORT", "s", "ALPHA"),
			cmd("SORT", "s", "LIMIT", "1", "2"), cmd("SORT", "s", "BY", "nosort"), cmd("SORT", "s", "BY", "nosort", "DESC"),
			cmd("SORT", "s", "BY", "nosort", "LIMIT", "1", "2"), cmd("SORT", "s", "BY", "nosort", "DESC", "LIMIT", "1", "2"),
			cmd("SORT", "s", "BY", "nosort", "STORE", "d"), cmd("LRANGE", "d", "0", "-1"),
			cmd("SORT", "s", "BY", "nosort", "DESC", "LIMIT", "1", "3", "STORE", "d"), cmd("LRANGE", "d", "0", "-1"),
			cmd("SORT", "s", "BY", "nosort", "GET", "#", "GET", "w_*", "STORE", "d"), cmd("LRANGE", "d", "0", "-1"),
			cmd("SADD", "t", "b", "a", "c", "B", "a\x00z", "a\x00y"), cmd("sorted:SORT", "t", "BY", "nosort"), cmd("SORT", "t", "ALPHA", "STORE", "d"),
			cmd("LRANGE", "d", "0", "-1"), cmd("SORT", "t", "BY", "nosort", "STORE", "d"), cmd("LRANGE", "d", "0", "-1"),
			cmd("SORT", "t", "BY", "nosort", "DESC", "STORE", "d"), cmd("LRANGE", "d", "0", "-1"), cmd("SORT", "t"),
			cmd("SORT", "t", "BY", "w_*"), cmd("SORT", "t", "BY", "w_*", "DESC", "LIMIT", "1", "3"),
			cmd("SADD", "u", "x\x00b", "x\x00a", "x"), cmd("SORT", "u", "BY", "nosort", "STORE", "d"), cmd("LRANGE", "d", "0", "-1"),
		}},
		{"sorted sets", [][]string{
			cmd("ZADD", "z", "3", "c", "1", "a", "2", "b", "4", "d", "2", "bb"), cmd("SORT", "z", "BY", "nosort"), cmd("SORT", "z", "BY", "nosort", "DESC"),
			cmd("SORT", "z", "BY", "nosort", "LIMIT", "1", "2"), cmd("SORT", "z", "BY", "nosort", "DESC", "LIMIT", "1", "2"),
			cmd("SORT", "z", "BY", "nosort", "LIMIT", "-5", "2"), cmd("SORT", "z", "BY", "nosort", "LIMIT", "1", "10"),
			cmd("SORT", "z", "BY", "nosort", "DESC", "LIMIT", "4", "10"), cmd("SORT", "z", "BY", "nosort", "LIMIT", "5", "1"),
			cmd("SORT", "z", "BY", "nosort", "DESC", "LIMIT", "0", "0"), cmd("SORT", "z", "ALPHA"), cmd("SORT", "z", "ALPHA", "DESC", "LIMIT", "1", "2"),
			cmd("SORT", "z"), cmd("SORT", "z", "BY", "nosort", "STORE", "zd"), cmd("LRANGE", "zd", "0", "-1"),
			cmd("SORT", "z", "BY", "nosort", "DESC", "GET", "#", "GET", "h_*->f"),
			cmd("ZADD", "zn", "1", "10", "2", "5", "3", "7", "4", "-1"), cmd("SORT", "zn"), cmd("SORT", "zn", "DESC"), cmd("SORT", "zn", "BY", "nosort"),
			cmd("SORT", "zn", "LIMIT", "1", "2"), cmd("SORT", "zn", "BY", "w_*", "GET", "#"),
		}},
		{"by weights", [][]string{
			cmd("RPUSH", "l", "1", "2", "3", "4", "5"), cmd("MSET", "w_1", "40", "w_2", "10", "w_3", "30", "w_5", "-1.5e1"),
			cmd("SORT", "l", "BY", "w_*"), cmd("SORT", "l", "BY", "w_*", "DESC"), cmd("SORT", "l", "BY", "w_*", "LIMIT", "1", "2"),
			cmd("SORT", "l", "BY", "w_*", "DESC", "LIMIT", "0", "3"), cmd("SORT", "l", "BY", "w_*", "ALPHA"), cmd("SORT", "l", "BY", "w_*", "ALPHA", "DESC"),
			cmd("SORT", "l", "BY", "w_*", "GET", "#", "GET", "w_*"), cmd("SORT", "l", "BY", "*"), cmd("SORT", "l", "BY", "nosuch_*", "DESC"),
			cmd("SORT", "l", "BY", "nosuch_*", "ALPHA"), cmd("SORT", "l", "BY", "nosuch_*", "ALPHA", "DESC"),
			cmd("HSET", "h_1", "f", "3", "g", "z"), cmd("HSET", "h_2", "f", "1", "g", "y"), cmd("HSET", "h_3", "f", "2"),
			cmd("SET", "h_5", "str"), cmd("SORT", "l", "BY", "h_*->f", "LIMIT", "0", "3"), cmd("SORT", "l", "BY", "h_*->f"),
			cmd("SORT", "l", "BY", "h_*->f", "DESC", "GET", "h_*->f"), cmd("HSET", "h_4", "f", "x"), cmd("SORT", "l", "BY", "h_*->f"),
			cmd("SORT", "l", "BY", "h_*->f", "ALPHA"),
			cmd("SORT", "l", "BY", "h_*->g", "ALPHA", "GET", "#", "GET", "h_*->g", "GET", "h_*->f", "GET", "h_*"),
			cmd("SORT", "l", "BY", "h_*->nope"), cmd("SORT", "l", "BY", "h_*->"), cmd("SET", "h_1->", "9"), cmd("SORT", "l", "BY", "h_*->", "GET", "h_*->"),
			cmd("SORT", "l", "BY", "w_*->f"), cmd("SORT", "l", "GET", "w_*->f", "GET", "h_*"),
			cmd("SET", "w_3", "b"), cmd("SORT", "l", "BY", "w_*"), cmd("SORT", "l", "BY", "w_*", "ALPHA"), cmd("SORT", "l", "BY", "w_*", "LIMIT", "0", "1"),
			cmd("SORT", "l", "BY", "w_*", "BY", "nosort"), cmd("DEL", "w_3"), cmd("RPUSH", "w_3", "list"), cmd("SORT", "l", "BY", "w_*"),
			cmd("SORT", "l", "BY", "w_*", "ALPHA", "GET", "w_*"),
			cmd("RPUSH", "e", "b", "a", "c", "aa"), cmd("MSET", "x_a", "1", "x_b", "1", "x_c", "1", "x_aa", "0"), cmd("SORT", "e", "BY", "x_*"),
			cmd("SORT", "e", "BY", "x_*", "DESC"), cmd("SORT", "e", "BY", "x_*", "LIMIT", "1", "2"), cmd("SORT", "e", "BY", "x_*", "DESC", "LIMIT", "1", "2"),
			cmd("SORT", "e", "BY", "x_*", "ALPHA"), cmd("SORT", "e", "BY", "x_*", "ALPHA", "DESC"), cmd("SORT", "e", "BY", "nosuch*", "ALPHA"),
			cmd("MSET", "y_a", "q\x00b", "y_b", "q\x00a", "y_c", "q", "y_aa", "p"), cmd("SORT", "e", "BY", "y_*", "ALPHA"),
			cmd("SORT", "e", "BY", "y_*", "ALPHA", "STORE", "d"), cmd("LRANGE", "d", "0", "-1"),
			cmd("RPUSH", "nul", "a\x00c", "a\x00b", "a", "a\x00"), cmd("SORT", "nul", "ALPHA"), cmd("SORT", "nul", "ALPHA", "DESC"),
			cmd("SORT", "nul", "ALPHA", "STORE", "d"), cmd("LRANGE", "d", "0", "-1"), cmd("SORT", "nul", "ALPHA", "DESC", "STORE", "d"), cmd("LRANGE", "d", "0", "-1"),
		}},
		{"get patterns", [][]string{
			cmd("RPUSH", "l", "2", "1", "3"), cmd("MSET", "v_1", "one", "v_2", "two", "1", "self1", "v_1_x", "ox", "a->b1", "ab", "v_*_1", "star"),
			cmd("SORT", "l", "GET", "#"), cmd("SORT", "l", "GET", "v_*"), cmd("SORT", "l", "GET", "#", "GET", "v_*", "GET", "nosuch_*", "GET", "#"),
			cmd("SORT", "l", "GET", "*"), cmd("SORT", "l", "GET", "v_*_x"), cmd("SORT", "l", "GET", "v_*_*"), cmd("SORT", "l", "GET", "a->b*"),
			cmd("SORT", "l", "GET", "constant"), cmd("SORT", "l", "GET", ""), cmd("SORT", "l", "GET", "#\x00x"), cmd("SORT", "l", "GET", "##"),
			cmd("SORT", "l", "GET", "v_\x00*"), cmd("SORT", "l", "GET", "v_*\x00"), cmd("SORT", "l", "GET", "v_*->\x00f"),
			cmd("SORT", "l", "LIMIT", "1", "1", "GET", "#", "GET", "v_*"), cmd("SORT", "l", "LIMIT", "0", "0", "GET", "#"),
			cmd("SORT", "l", "DESC", "GET", "v_*", "BY", "nosort"), cmd("HSET", "hv_1", "f->g", "deep", "f", "shallow"),
			cmd("SORT", "l", "GET", "hv_*->f->g", "GET", "hv_*->f"), cmd("SADD", "s", "1", "2"), cmd("SORT", "s", "GET", "v_*", "GET", "#"),
		}},
		{"store", [][]string{
			cmd("RPUSH", "l", "3", "1", "2"), cmd("SET", "dst", "str"), cmd("EXPIRE", "dst", "100"), cmd("SORT", "l", "STORE", "dst"),
			cmd("TYPE", "dst"), cmd("TTL", "dst"), cmd("LRANGE", "dst", "0", "-1"),
			cmd("SORT", "l", "GET", "#", "GET", "nosuch_*", "DESC", "STORE", "dst"), cmd("LRANGE", "dst", "0", "-1"),
			cmd("HSET", "hdst", "f", "v"), cmd("SORT", "l", "LIMIT", "1", "5", "STORE", "hdst"), cmd("TYPE", "hdst"), cmd("LRANGE", "hdst", "0", "-1"),
			cmd("ZADD", "zdst", "1", "a"), cmd("SORT", "l", "BY", "nosort", "store", "zdst"), cmd("LRANGE", "zdst", "0", "-1"),
			cmd("SORT", "nokey", "STORE", "dst"), cmd("EXISTS", "dst"), cmd("SORT", "nokey", "STORE", "dst"),
			cmd("SORT", "l", "LIMIT", "5", "5", "STORE", "hdst"), cmd("EXISTS", "hdst"), cmd("SORT", "l", "LIMIT", "0", "0", "GET", "#", "STORE", "zdst"),
			cmd("EXISTS", "zdst"), cmd("SORT", "l", "STORE", "l"), cmd("LRANGE", "l", "0", "-1"), cmd("SORT", "l", "DESC", "STORE", "l"),
			cmd("LRANGE", "l", "0", "-1"), cmd("SORT", "l", "STORE", "d1", "STORE", "d2"), cmd("EXISTS", "d1"), cmd("LRANGE", "d2", "0", "-1"),
			cmd("SET", "str", "x"), cmd("SORT", "str", "STORE", "d2"), cmd("LRANGE", "d2", "0", "-1"),
			cmd("RPUSH", "bad", "x"), cmd("SORT", "bad", "STORE", "d2"), cmd("LRANGE", "d2", "0", "-1"),
			cmd("SADD", "s", "b", "a", "c"), cmd("SORT", "s", "ALPHA", "STORE", "l"), cmd("LRANGE", "l", "0", "-1"),
			cmd("SORT", "l", "BY", "nosort", "GET", "#", "GET", "#", "STORE", "d3"), cmd("LRANGE", "d3", "0", "-1"),
		}},
		{"sort_ro", [][]string{
			cmd("RPUSH", "l", "3", "1", "2"), cmd("SET", "w_1", "9"), cmd("SORT_RO", "l"), cmd("sort_ro", "l", "DESC", "LIMIT", "0", "2"),
			cmd("SORT_RO", "l", "BY", "w_*", "GET", "#", "GET", "w_*"), cmd("SORT_RO", "l", "BY", "nosort", "DESC"),
			cmd("SORT_RO", "l", "STORE", "d"), cmd("SORT_RO", "l", "STORE"), cmd("EXISTS", "d"), cmd("SET", "str", "x"), cmd("SORT_RO", "str"),
			cmd("SORT_RO", "str", "STORE", "d"), cmd("SORT_RO"), cmd("SORT_RO", "l", "ALPHA", "LIMIT", "x", "1"),
		}},
		{"errors", [][]string{
			cmd("SORT"), cmd("RPUSH", "l", "1", "2"), cmd("SORT", "l", "LIMIT"), cmd("SORT", "l", "LIMIT", "1"), cmd("SORT", "l", "LIMIT", "x", "1"),
			cmd("SORT", "l", "LIMIT", "1", "x"), cmd("SORT", "l", "LIMIT", "9223372036854775808", "1"), cmd("SORT", "l", "LIMIT", "1", "-9223372036854775809"),
			cmd("SORT", "l", "LIMIT", "01", "1"), cmd("SORT", "l", "LIMIT", "+1", "1"), cmd("SORT", "l", "LIMIT", " 1", "1"), cmd("SORT", "l", "LIMIT", "1.0", "1"),
			cmd("SORT", "l", "BY"), cmd("SORT", "l", "GET"), cmd("SORT", "l", "STORE"), cmd("SORT", "l", "foo"), cmd("SORT", "l", "ASCX"),
			cmd("SORT", "l", "LIMIT", "x", "1", "foo"), cmd("SORT", "l", "foo", "LIMIT", "x", "1"), cmd("SORT", "l", "GET", "#", "BY"),
			cmd("SORT", "l", "DESC", "LIMIT", "0"), cmd("SET", "str", "x"), cmd("SORT", "str"), cmd("SORT", "str", "foo"),
			cmd("SORT", "str", "LIMIT", "x", "1"), cmd("SORT", "str", "BY", "nosort", "STORE", "d"), cmd("EXISTS", "d"),
			cmd("HSET", "h", "f", "v"), cmd("SORT", "h"), cmd("SORT_RO", "h", "ALPHA"),
			cmd("RPUSH", "nan", "1", "x"), cmd("SORT", "nan", "LIMIT", "0", "1"), cmd("SORT", "nan", "STORE", "d"), cmd("EXISTS", "d"),
			cmd("SORT", "nan", "BY", "nosort"), cmd("SORT", "nan", "ALPHA"), cmd("SORT", "nan", "BY", "nosuch_*"), cmd("SET", "w_1", "x"),
			cmd("SORT", "nan", "BY", "w_*", "ALPHA"), cmd("SORT", "nan", "BY", "w_*"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { compare(t, append([][]string{errnoReset}, tt.cmds...)...) })
	}
}

// errnoReset is a command that does nothing but clear the C errno of the Redis
// server's thread (its score is parsed by string2d, which sets errno to 0 first).
// Redis 7.0's SORT tests errno for ERANGE after strtod without clearing it: once any
// command on the server has left ERANGE there (an underflowing SORT weight, or a
// subnormal ZADD score, which string2d accepts), every later SORT that parses a
// weight with strtod (a set's elements, a non-integer list element, a weight read
// BY a pattern) fails with "One or more scores can't be converted into double" on
// a connection that makes no failing system call meanwhile. The tests reset it
// before each transcript and after each SORT that underflows; zlite has no such
// state.
var errnoReset = []string{"ZADD", "errno:reset", "XX", "1", "m"}

// sortErrorCases are lists of one weight each that Redis's strtod check refuses
// (or, for some, accepts: the boundaries), each sorted as numbers.
func sortErrorCases() [][]string {
	var out [][]string
	for _, w := range []string{
		"1e-310", "1e-400", "4.9e-324", "1e400", "-1e400", "nan", "-nan", "NaN(1)", "nanx", "0x", "0x.", "0xg", "1e", "1e+", "1e-",
		"1 ", " ", "  1 ", "-", "+", ".", "-.e5", "1e5.5", "00x1", "1_000", "infin", "infinit", "-in", "2.2250738585072012e-308",
		"2.2250738585072011e-308", "2.2250738585072009e-308", "0x1p-1075", "0x0.00000000000008p-1022", "0x1.8p-1075", "0x1.fffffffffffffp-1023",
		"1.7976931348623159e308", "0x1p1024", "0x1.fffffffffffffp1023", "0x1.fffffffffffff8p1023", "abc", "1,5", "1x\x00",
		"0x1p", "0x1p+", "0x1.p-1074", "0x3p-1076", "0x1p-99999999999999999999", "0x1p99999999999999999999",
		"1e-99999999999999999999", "1e99999999999999999999", strings.Repeat("1", 400),
		exactDecimal(big.NewFloat(0).SetMantExp(big.NewFloat(1), -1074)) + "1",
		exactDecimal(big.NewFloat(0).SetMantExp(big.NewFloat(1), -1074)) + strings.Repeat("0", 1300) + "1",
		exactDecimal(big.NewFloat(0).SetMantExp(big.NewFloat(1), -1074))[:300],
		lessThan(exactDecimal(tinyBoundFloat())), lessThan(exactDecimal(big.NewFloat(0).SetMantExp(big.NewFloat(1), -1022))),
	} {
		out = append(out, []string{"DEL", "e"}, []string{"RPUSH", "e", "1", w}, []string{"SORT", "e"}, errnoReset)
	}
	return out
}

// exactDecimal writes f (a positive number of at most 64 bits of mantissa) as a
// decimal fraction, every digit of it.
func exactDecimal(f *big.Float) string {
	r, _ := f.Rat(nil)
	s := r.FloatString(1200)
	return strings.TrimRight(s, "0")
}

// lessThan returns the decimal s (of a fraction) minus one unit of its last digit
// (which is not 0).
func lessThan(s string) string {
	b := []byte(s)
	b[len(b)-1]--
	return string(b)
}

// tinyBoundFloat is 2^-1022 - 2^-1076 (see tinyBound).
func tinyBoundFloat() *big.Float {
	return new(big.Float).SetPrec(64).SetRat(tinyBound())
}

// TestSortWeight checks sortWeight against values computed independently, and
// that hostile numbers cost time in proportion to their length only.
func TestSortWeight(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"", 0, true}, {"\x00", 0, true}, {"\x00abc", 0, true}, {" ", 0, false}, {"1", 1, true}, {" -2.5", -2.5, true},
		{"0x10", 16, true}, {"0x1.8p1", 3, true}, {"-0x.8", -0.5, true}, {"0x1p-1074", math.SmallestNonzeroFloat64, true},
		{"1e-310", 0, false}, {"inf", math.Inf(1), true}, {"-Infinity", math.Inf(-1), true}, {"infx", 0, false},
		{"2.2250738585072014e-308", 0x1p-1022, true}, {"0x1.fffffffffffffp-1023", 0, false}, {"0x1.fffffffffffff8p-1023", 0x1p-1022, true},
		{"1e" + strings.Repeat("0", 100000) + "1", 10, true}, {"0." + strings.Repeat("0", 100000) + "1", 0, false},
		{"0x" + strings.Repeat("0", 100000) + "1p-1", 0.5, true}, {strings.Repeat("7", 100000) + "e-99999", 7.777777777777778, true},
		{"1e-" + strings.Repeat("9", 100000), 0, false}, {"0x1p" + strings.Repeat("9", 100000), 0, false},
	}
	for _, tt := range tests {
		got, ok := sortWeight(tt.in)
		if ok != tt.ok || ok && got != tt.want {
			name := tt.in
			if len(name) > 40 {
				name = name[:40] + "..."
			}
			t.Errorf("sortWeight(%q) = %v, %v; want %v, %v", name, got, ok, tt.want, tt.ok)
		}
	}
}

// TestSortTyped checks the typed methods: go-redis's Sort options, "" for a missing
// GET, STORE's effects, the errors, and the locks.
func TestSortTyped(t *testing.T) {
	ctx := context.Background()
	db := New(WithMaxReplyElements(8))
	db.RPush(ctx, "l", "3", "1", "2")
	db.MSet(ctx, "w_1", "30", "w_2", "10", "v_3", "three")
	for _, tt := range []struct {
		sort *Sort
		want []string
	}{
		{nil, []string{"1", "2", "3"}},
		{&Sort{}, []string{"1", "2", "3"}},
		{&Sort{Order: "DESC"}, []string{"3", "2", "1"}},
		{&Sort{Order: "asc", Alpha: true}, []string{"1", "2", "3"}},
		{&Sort{By: "w_*"}, []string{"3", "2", "1"}},
		{&Sort{By: "nosort", Order: "desc"}, []string{"2", "1", "3"}},
		{&Sort{Offset: 1, Count: 1}, []string{"2"}},
		{&Sort{Offset: 1}, []string{}}, // LIMIT 1 0, as go-redis sends it
		{&Sort{Offset: 1, Count: -1}, []string{"2", "3"}},
		{&Sort{Get: []string{"#", "v_*"}}, []string{"1", "", "2", "", "3", "three"}},
	} {
		got, err := db.Sort(ctx, "l", tt.sort)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("Sort(%+v) = %q, %v; want %q", tt.sort, got, err, tt.want)
		}
		ro, err := db.SortRO(ctx, "l", tt.sort)
		if err != nil || !slices.Equal(ro, tt.want) {
			t.Errorf("SortRO(%+v) = %q, %v; want %q", tt.sort, ro, err, tt.want)
		}
	}
	if _, err := db.Sort(ctx, "l", &Sort{Order: "up"}); !errors.Is(err, ErrSyntax) {
		t.Errorf("Sort(Order up) = %v; want ErrSyntax", err)
	}
	if _, err := db.Sort(ctx, "w_1", nil); !errors.Is(err, ErrWrongType) {
		t.Errorf("Sort(string) = %v; want ErrWrongType", err)
	}
	db.RPush(ctx, "x", "a")
	if _, err := db.Sort(ctx, "x", nil); !errors.Is(err, ErrSortNotDouble) {
		t.Errorf("Sort(non-number) = %v; want ErrSortNotDouble", err)
	}
	if _, err := db.Sort(ctx, "l", &Sort{Get: []string{"#", "#", "#"}}); !errors.Is(err, ErrReplyTooLarge) {
		t.Errorf("Sort with 9 results over a bound of 8 = %v; want ErrReplyTooLarge", err)
	}
	if _, err := db.SortStore(ctx, "l", "d", &Sort{Get: []string{"#", "#", "#"}}); !errors.Is(err, ErrReplyTooLarge) {
		t.Errorf("SortStore with 9 results over a bound of 8 = %v; want ErrReplyTooLarge", err)
	}
	if got, err := db.Sort(ctx, "l", &Sort{Get: []string{"#", "#"}, Count: 4}); err != nil || len(got) != 6 {
		t.Errorf("Sort with 6 results = %q, %v", got, err)
	}

	db.Set(ctx, "d", "old", 0)
	db.Expire(ctx, "d", 100*time.Second)
	if n, err := db.SortStore(ctx, "l", "d", &Sort{Get: []string{"v_*"}, Order: "DESC"}); n != 3 || err != nil {
		t.Fatalf("SortStore = %d, %v; want 3", n, err)
	}
	if got, _ := db.LRange(ctx, "d", 0, -1); !slices.Equal(got, []string{"three", "", ""}) {
		t.Errorf("stored %q", got)
	}
	if ttl, _ := db.TTL(ctx, "d"); ttl != -1 {
		t.Errorf("TTL after SortStore = %v; want -1 (cleared)", ttl)
	}
	if n, err := db.SortStore(ctx, "nokey", "d", nil); n != 0 || err != nil {
		t.Errorf("SortStore(empty) = %d, %v", n, err)
	}
	if n, _ := db.Exists(ctx, "d"); n != 0 {
		t.Errorf("SortStore of nothing left d")
	}
	if err := db.View(func(tx *Tx) error {
		if got, err := tx.Sort("l", &Sort{By: "w_*"}); err != nil || !slices.Equal(got, []string{"3", "2", "1"}) {
			t.Errorf("View: Sort = %q, %v", got, err)
		}
		if _, err := tx.SortStore("l", "d", nil); !errors.Is(err, ErrReadOnly) {
			t.Errorf("View: SortStore = %v; want ErrReadOnly", err)
		}
		if _, err := tx.Do("SORT", "l"); !errors.Is(err, ErrReadOnly) {
			t.Errorf("View: Do(SORT) = %v; want ErrReadOnly (SORT is a write command, as in Redis)", err)
		}
		if got, err := tx.Do("SORT_RO", "l", "DESC"); err != nil || len(got.([]any)) != 3 {
			t.Errorf("View: Do(SORT_RO) = %v, %v", got, err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n := db.Stats().Command["sort"].Calls; n == 0 {
		t.Errorf("Stats counts no sort")
	}

	// In a batch of declared keys, the keys BY reaches must be declared too.
	ks := keysInShards(db, 2)
	db.RPush(ctx, ks[0], "1")
	func() {
		defer func() {
			if r := recover(); r == nil || !errors.Is(r.(error), ErrUndeclaredKey) {
				t.Errorf("BY an undeclared key: recovered %v; want ErrUndeclaredKey", r)
			}
		}()
		db.ViewKeys([]string{ks[0]}, func(tx *Tx) error {
			_, err := tx.Sort(ks[0], &Sort{By: ks[1] + "*"})
			return err
		})
	}()
}

// TestSortStoreServesBlocked checks that a list made by SORT ... STORE serves a
// caller blocked on its key, as Redis's setKey signals the new key ready.
func TestSortStoreServesBlocked(t *testing.T) {
	ctx := context.Background()
	db := New()
	db.RPush(ctx, "l", "3", "1", "2")
	type popped struct {
		key, value string
		ok         bool
		err        error
	}
	done := make(chan popped)
	go func() {
		k, v, ok, err := db.BLPop(ctx, 5*time.Second, "dst")
		done <- popped{k, v, ok, err}
	}()
	for db.Stats().Blocked == 0 {
		time.Sleep(time.Millisecond)
	}
	if n, err := db.SortStore(ctx, "l", "dst", nil); n != 3 || err != nil {
		t.Fatalf("SortStore = %d, %v", n, err)
	}
	if p := <-done; p != (popped{"dst", "1", true, nil}) {
		t.Errorf("BLPop = %+v; want dst 1", p)
	}
	if got, _ := db.LRange(ctx, "dst", 0, -1); !slices.Equal(got, []string{"2", "3"}) {
		t.Errorf("dst after the pop = %q", got)
	}
}

// TestSortStorePersists checks that SORT ... STORE is logged: the stored list,
// and the deletion of an empty result, survive a reopen.
func TestSortStorePersists(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openT(t, dir)
	db.RPush(ctx, "l", "3", "1", "2")
	db.Set(ctx, "gone", "x", 0)
	db.Do(ctx, "SORT", "l", "DESC", "STORE", "d")
	db.SortStore(ctx, "nokey", "gone", nil)
	db.Set(ctx, "over", "x", 0)
	db.SortStore(ctx, "l", "over", &Sort{Get: []string{"#", "nosuch_*"}})
	want := dump(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openT(t, dir)
	defer db.Close()
	if got := dump(t, db); !maps2Equal(got, want) {
		t.Errorf("reopened: %v; want %v", got, want)
	}
	if got := want["d"]; !strings.HasPrefix(got, `list["3" "2" "1"]`) {
		t.Errorf("d = %s", got)
	}
	if _, ok := want["gone"]; ok {
		t.Errorf("gone survived an empty SORT STORE")
	}
}
