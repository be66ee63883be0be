package zset

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/internal/testmain"
)

func TestMain(m *testing.M) {
	code := m.Run()
	redistest.Stop()
	os.Exit(code)
}

// redisClient connects to the test redis-server with RESP2, whose replies carry scores as
// text (RESP3 would hand them to go-redis as float64, hiding the format).
func redisClient(t *testing.T) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: redistest.Require(t), Protocol: 2})
	t.Cleanup(func() { c.Close() })
	return c
}

// scoreCases are ZADD score arguments with the score Redis 7.0.15 stored, as replied by
// ZSCORE (shown in the comments where it is not the input's obvious value), or an error.
var scoreCases = []struct {
	in   string
	want float64
	err  bool
}{
	{in: "1", want: 1},
	{in: "-2.5", want: -2.5},
	{in: "+3", want: 3},
	{in: "00012", want: 12},
	{in: ".5", want: 0.5},
	{in: "+.5", want: 0.5},
	{in: "5.", want: 5},
	{in: "1.5E3", want: 1500},
	{in: "1e+5", want: 1e5},
	{in: "1e-5", want: 1e-5},
	{in: "-0", want: math.Copysign(0, -1)},
	{in: "+0", want: 0},
	{in: "0.1", want: 0.1},                // "0.10000000000000001"
	{in: "0x10", want: 16},                // hexadecimal, through strtod
	{in: "0X1p4", want: 16},               // binary exponent
	{in: "0x1.8p1", want: 3},              // hexadecimal fraction
	{in: "0x.8", want: 0.5},               // no digit before the point
	{in: "-0x1P-2", want: -0.25},          // negative exponent
	{in: "inf", want: math.Inf(1)},        // "inf"
	{in: "+inf", want: math.Inf(1)},       // "inf"
	{in: "-inf", want: math.Inf(-1)},      // "-inf"
	{in: "INF", want: math.Inf(1)},        // any case
	{in: "infinity", want: math.Inf(1)},   // the long form
	{in: "-Infinity", want: math.Inf(-1)}, // "-inf"
	{in: "5e-324", want: 5e-324},          // "4.9406564584124654e-324": subnormals are kept
	{in: "2.5e-324", want: 5e-324},        // rounds up to the least subnormal
	{in: "1e-320", want: 1e-320},          // "9.9998886718268301e-321"
	{in: "1.7976931348623157e308", want: math.MaxFloat64},
	{in: "0e-400", want: 0},    // an exact zero does not underflow
	{in: "0x0p-5000", want: 0}, // nor in hexadecimal
	{in: "", err: true},
	{in: " 1", err: true},  // leading white space
	{in: "\t1", err: true}, // any isspace byte
	{in: "\v1", err: true},
	{in: "1 ", err: true}, // trailing white space
	{in: "1\t", err: true},
	{in: "1\x00", err: true}, // a NUL byte ends strtod's number
	{in: "1\x002", err: true},
	{in: "nan", err: true},
	{in: "NaN", err: true},
	{in: "-nan", err: true},
	{in: "+nan", err: true},
	{in: "nan(1)", err: true},
	{in: "nanx", err: true},
	{in: "1_000", err: true},
	{in: "1x", err: true},
	{in: "1,5", err: true},
	{in: "0x", err: true}, // strtod reads only the "0"
	{in: "0x.", err: true},
	{in: "0xg", err: true},
	{in: "0x1p", err: true}, // an exponent marker needs digits
	{in: "0x1p+", err: true},
	{in: "0b1", err: true},
	{in: "1e", err: true},
	{in: "1e+", err: true},
	{in: "1e5.5", err: true},
	{in: ".", err: true},
	{in: "+", err: true},
	{in: "-", err: true},
	{in: "+-1", err: true},
	{in: "in", err: true},
	{in: "infin", err: true}, // "inf" and then garbage
	{in: "infinityx", err: true},
	{in: "1e400", err: true}, // overflow: strtod's ERANGE with HUGE_VAL
	{in: "-1e400", err: true},
	{in: "1e5000", err: true},
	{in: "1.7976931348623159e308", err: true}, // rounds to +Inf
	{in: "0x1P1024", err: true},
	{in: "1e-400", err: true}, // underflow to zero: ERANGE with 0
	{in: "-1e-400", err: true},
	{in: "1e-324", err: true}, // below half the least subnormal
	{in: "0x1p-1080", err: true},
	{in: "0x1p-1075", err: true}, // exactly half the least subnormal: rounds to even, 0
}

func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b)
}

func TestParseScore(t *testing.T) {
	for _, tc := range scoreCases {
		got, err := ParseScore(tc.in)
		switch {
		case tc.err:
			if !errors.Is(err, ErrNotFloat) {
				t.Errorf("ParseScore(%q) = %v, %v; want ErrNotFloat", tc.in, got, err)
			}
		case err != nil || !sameBits(got, tc.want):
			t.Errorf("ParseScore(%q) = %v, %v; want %v, nil", tc.in, got, err, tc.want)
		}
	}
}

// TestParseScoreRedis runs every case through ZADD and ZSCORE on a real Redis: the same
// inputs must be rejected, and the accepted ones must store the same float64.
func TestParseScoreRedis(t *testing.T) {
	c := redisClient(t)
	ctx := context.Background()
	const key = "zset:parse:score"
	for _, tc := range scoreCases {
		c.Del(ctx, key)
		_, rerr := c.Do(ctx, "ZADD", key, tc.in, "m").Result()
		got, err := ParseScore(tc.in)
		if (rerr != nil) != (err != nil) {
			t.Errorf("ZADD %q: Redis error %v, ParseScore error %v", tc.in, rerr, err)
			continue
		}
		if rerr != nil {
			if rerr.Error() != err.Error() {
				t.Errorf("ZADD %q: Redis error %q, ours %q", tc.in, rerr, err)
			}
			continue
		}
		reply, rerr := c.Do(ctx, "ZSCORE", key, "m").Text()
		if rerr != nil {
			t.Fatalf("ZSCORE: %v", rerr)
		}
		// Redis 7.0 stores -0 as 0 in a listpack, so compare values, not zero signs.
		if stored, _ := ParseScore(reply); stored != got {
			t.Errorf("ZADD %q: Redis stored %s, ParseScore = %v", tc.in, reply, got)
		}
		if want := FormatScore70(got); reply != want && got != 0 {
			t.Errorf("ZADD %q: ZSCORE replied %q, FormatScore70 = %q", tc.in, reply, want)
		}
	}
	c.Del(ctx, key)
}

// boundCases are ZCOUNT bounds; values as Redis 7.0.15 (zslParseRange) reads them.
var boundCases = []struct {
	in   string
	want ScoreBound
	err  bool
}{
	{in: "1.5", want: ScoreBound{Value: 1.5}},
	{in: "(1.5", want: ScoreBound{Value: 1.5, Exclusive: true}},
	{in: "-inf", want: ScoreBound{Value: math.Inf(-1)}},
	{in: "+inf", want: ScoreBound{Value: math.Inf(1)}},
	{in: "inf", want: ScoreBound{Value: math.Inf(1)}},
	{in: "(inf", want: ScoreBound{Value: math.Inf(1), Exclusive: true}},
	{in: "(-inf", want: ScoreBound{Value: math.Inf(-1), Exclusive: true}},
	{in: "-Infinity", want: ScoreBound{Value: math.Inf(-1)}},
	{in: "(+1", want: ScoreBound{Value: 1, Exclusive: true}},
	{in: "-0", want: ScoreBound{Value: math.Copysign(0, -1)}},
	{in: "(0", want: ScoreBound{Exclusive: true}},
	{in: ".5", want: ScoreBound{Value: 0.5}},
	{in: "5e-324", want: ScoreBound{Value: 5e-324}},
	{in: "0x1", want: ScoreBound{Value: 1}},
	{in: "(0x1p0", want: ScoreBound{Value: 1, Exclusive: true}},
	{in: "1e400", want: ScoreBound{Value: math.Inf(1)}}, // strtod's overflow is kept
	{in: "-1e400", want: ScoreBound{Value: math.Inf(-1)}},
	{in: "(1e-400", want: ScoreBound{Exclusive: true}}, // and its underflow
	{in: "-1e-400", want: ScoreBound{Value: math.Copysign(0, -1)}},
	{in: "", want: ScoreBound{}}, // strtod converts nothing: 0
	{in: "(", want: ScoreBound{Exclusive: true}},
	{in: "\x00", want: ScoreBound{}}, // the C string ends at NUL
	{in: "1\x00x", want: ScoreBound{Value: 1}},
	{in: "(\x001", want: ScoreBound{Exclusive: true}},
	{in: " 1", want: ScoreBound{Value: 1}}, // strtod skips white space
	{in: "( 1", want: ScoreBound{Value: 1, Exclusive: true}},
	{in: "\t\n\v\f\r2", want: ScoreBound{Value: 2}},
	{in: "1 ", err: true},
	{in: " ", err: true},
	{in: "( ", err: true},
	{in: "nan", err: true},
	{in: "(nan", err: true},
	{in: "-NaN(1)", err: true},
	{in: "1_0", err: true},
	{in: "[1", err: true},
	{in: "((1", err: true},
	{in: "1e", err: true},
	{in: "-", err: true},
	{in: "+", err: true},
	{in: "0x", err: true},
	{in: "\x1e1", err: true},
	{in: "infin", err: true},
}

func TestParseScoreBound(t *testing.T) {
	for _, tc := range boundCases {
		got, err := ParseScoreBound(tc.in)
		switch {
		case tc.err:
			if !errors.Is(err, ErrMinMaxNotFloat) {
				t.Errorf("ParseScoreBound(%q) = %v, %v; want ErrMinMaxNotFloat", tc.in, got, err)
			}
		case err != nil || !sameBits(got.Value, tc.want.Value) || got.Exclusive != tc.want.Exclusive:
			t.Errorf("ParseScoreBound(%q) = %+v, %v; want %+v, nil", tc.in, got, err, tc.want)
		}
	}
}

// TestParseScoreBoundRedis gives every case to ZCOUNT on a real Redis, as min and as max,
// over members with scores around the interesting values: the errors must agree and so
// must the counts, computed here from the parsed bound.
func TestParseScoreBoundRedis(t *testing.T) {
	c := redisClient(t)
	ctx := context.Background()
	const key = "zset:parse:bound"
	probes := []float64{math.Inf(-1), -1e308, -1, -0.5, 0, 5e-324, 0.5, 1, 1.5, 2, 1e308, math.Inf(1)}
	c.Del(ctx, key)
	for i, f := range probes {
		c.ZAdd(ctx, key, redis.Z{Score: f, Member: strconv.Itoa(i)})
	}
	inside := func(f float64, min, max ScoreBound) bool {
		return (f > min.Value || (f == min.Value && !min.Exclusive)) &&
			(f < max.Value || (f == max.Value && !max.Exclusive))
	}
	for _, tc := range boundCases {
		for _, asMin := range []bool{true, false} {
			args := []any{"ZCOUNT", key, tc.in, "+inf"}
			if !asMin {
				args = []any{"ZCOUNT", key, "-inf", tc.in}
			}
			rn, rerr := c.Do(ctx, args...).Int()
			b, err := ParseScoreBound(tc.in)
			if (rerr != nil) != (err != nil) || (rerr != nil && rerr.Error() != err.Error()) {
				t.Errorf("%q: Redis error %v, ours %v", args, rerr, err)
				continue
			}
			if rerr != nil {
				continue
			}
			min, max := b, ScoreBound{Value: math.Inf(1)}
			if !asMin {
				min, max = ScoreBound{Value: math.Inf(-1)}, b
			}
			n := 0
			for _, f := range probes {
				if inside(f, min, max) {
					n++
				}
			}
			if n != rn {
				t.Errorf("%q: Redis counts %d, the parsed bound %+v counts %d", args, rn, b, n)
			}
		}
	}
	c.Del(ctx, key)
}

var lexCases = []struct {
	in   string
	want LexBound
	err  bool
}{
	{in: "-", want: LexMin},
	{in: "+", want: LexMax},
	{in: "-\x00x", want: LexMin}, // Redis tests the next byte as a C string's end
	{in: "+\x00", want: LexMax},
	{in: "[a", want: LexBound{Member: "a"}},
	{in: "(a", want: LexBound{Member: "a", Exclusive: true}},
	{in: "[", want: LexBound{Member: ""}},
	{in: "(", want: LexBound{Member: "", Exclusive: true}},
	{in: "[b\x00", want: LexBound{Member: "b\x00"}},
	{in: "((", want: LexBound{Member: "(", Exclusive: true}},
	{in: "[\xff\xfe", want: LexBound{Member: "\xff\xfe"}},
	{in: "", err: true},
	{in: "a", err: true},
	{in: "-a", err: true},
	{in: "+ ", err: true},
	{in: "--", err: true},
	{in: " [a", err: true},
	{in: "\x00", err: true},
}

func TestParseLexBound(t *testing.T) {
	for _, tc := range lexCases {
		got, err := ParseLexBound(tc.in)
		switch {
		case tc.err:
			if !errors.Is(err, ErrLexRange) {
				t.Errorf("ParseLexBound(%q) = %+v, %v; want ErrLexRange", tc.in, got, err)
			}
		case err != nil || got != tc.want:
			t.Errorf("ParseLexBound(%q) = %+v, %v; want %+v, nil", tc.in, got, err, tc.want)
		}
	}
}

// TestParseLexBoundRedis gives every case to ZLEXCOUNT on a real Redis, as min and as
// max, over members around the interesting bytes.
func TestParseLexBoundRedis(t *testing.T) {
	c := redisClient(t)
	ctx := context.Background()
	const key = "zset:parse:lex"
	probes := []string{"", "\x00", "(", "a", "a\x00", "b", "b\x00", "c", "\xfe", "\xff\xfe", "\xff\xff"}
	c.Del(ctx, key)
	for _, m := range probes {
		c.ZAdd(ctx, key, redis.Z{Member: m})
	}
	above := func(m string, b LexBound) bool { // m is above the min bound b
		return b.Inf < 0 || (b.Inf == 0 && (m > b.Member || (m == b.Member && !b.Exclusive)))
	}
	below := func(m string, b LexBound) bool { // m is below the max bound b
		return b.Inf > 0 || (b.Inf == 0 && (m < b.Member || (m == b.Member && !b.Exclusive)))
	}
	for _, tc := range lexCases {
		for _, asMin := range []bool{true, false} {
			args := []any{"ZLEXCOUNT", key, tc.in, "+"}
			if !asMin {
				args = []any{"ZLEXCOUNT", key, "-", tc.in}
			}
			rn, rerr := c.Do(ctx, args...).Int()
			b, err := ParseLexBound(tc.in)
			if (rerr != nil) != (err != nil) || (rerr != nil && rerr.Error() != err.Error()) {
				t.Errorf("%q: Redis error %v, ours %v", args, rerr, err)
				continue
			}
			if rerr != nil {
				continue
			}
			n := 0
			for _, m := range probes {
				if (asMin && above(m, b)) || (!asMin && below(m, b)) {
					n++
				}
			}
			if n != rn {
				t.Errorf("%q: Redis counts %d, the parsed bound %+v counts %d", args, rn, b, n)
			}
		}
	}
	c.Del(ctx, key)
}

// formatCases: the expected texts are the output of Redis 7.2.0's own d2string and
// fpconv_dtoa (deps/fpconv), compiled and run on these float64s, and the "%.17g" of
// glibc's printf; the cases marked Grisu2 are those where Redis's digits are not the
// shortest ones that strconv.FormatFloat(f, 'e', -1, 64) gives.
var formatCases = []struct {
	f       float64
	want    string
	want70  string
	comment string
}{
	{f: 0, want: "0", want70: "0"},
	{f: math.Copysign(0, -1), want: "-0", want70: "-0"},
	{f: math.Inf(1), want: "inf", want70: "inf"},
	{f: math.Inf(-1), want: "-inf", want70: "-inf"},
	{f: 3, want: "3", want70: "3"},
	{f: -12, want: "-12", want70: "-12"},
	{f: 1.5, want: "1.5", want70: "1.5"},
	{f: -1.5, want: "-1.5", want70: "-1.5"},
	{f: -0.5, want: "-0.5", want70: "-0.5"},
	{f: 0.1, want: "0.1", want70: "0.10000000000000001"},
	{f: 0.1 + 0.2, want: "0.3", want70: "0.29999999999999999"}, // the constant folds exactly
	{f: 1.0 / 3, want: "0.3333333333333333", want70: "0.33333333333333331"},
	{f: 123.456, want: "123.456", want70: "123.456"},
	{f: 4.35, want: "4.35", want70: "4.3499999999999996"},
	{f: 100.01, want: "100.01", want70: "100.01000000000001"},
	{f: 1234567.891, want: "1234567.891", want70: "1234567.8910000001"},
	{f: 12.3456789012345, want: "12.3456789012345", want70: "12.3456789012345"},
	{f: 1e15 + 0.5, want: "1000000000000000.5", want70: "1000000000000000.5"},
	{f: 0.0001, want: "0.0001", want70: "0.0001"},
	{f: 0.000123, want: "0.000123", want70: "0.00012300000000000001"},
	{f: 1e-6, want: "0.000001", want70: "9.9999999999999995e-07"},
	{f: 1e-7, want: "1e-7", want70: "9.9999999999999995e-08"},
	{f: 1.5e-7, want: "1.5e-7", want70: "1.4999999999999999e-07"},
	{f: 1.23e-5, want: "1.23e-5", want70: "1.2300000000000001e-05"},
	{f: 9007199254740992, want: "9007199254740992", want70: "9007199254740992"},
	{f: 1 << 62, want: "4611686018427387904", want70: "4.6116860184273879e+18"},
	{f: -(1 << 62), want: "-4611686018427387904", want70: "-4.6116860184273879e+18"},
	{f: 1<<62 + 1024, want: "4611686018427389000", want70: "4.6116860184273889e+18"},
	{f: -(1<<62 + 1024), want: "-4611686018427389000", want70: "-4.6116860184273889e+18"},
	{f: 1e19, want: "1e+19", want70: "1e+19"},
	{f: 1e20, want: "1e+20", want70: "1e+20"},
	{f: 1e21, want: "1e+21", want70: "1e+21"},
	{f: 1e22, want: "1e+22", want70: "1e+22"},
	{f: 1e25, want: "1e+25", want70: "1.0000000000000001e+25"},
	{f: 1.5e300, want: "1.5e+300", want70: "1.5000000000000001e+300"},
	{f: -2.5e-300, want: "-2.5e-300", want70: "-2.5e-300"},
	{f: 5e-324, want: "5e-324", want70: "4.9406564584124654e-324"},
	{f: 1.5e-323, want: "1.5e-323", want70: "1.4821969375237396e-323"},
	{f: 2.2250738585072014e-308, want: "2.2250738585072014e-308", want70: "2.2250738585072014e-308"},
	{f: math.MaxFloat64, want: "1.7976931348623157e+308", want70: "1.7976931348623157e+308"},
	{f: 123e20, want: "12300000000000001000000", want70: "1.2300000000000001e+22", comment: "Grisu2"},
	{f: 3.1737520154794283e+21, want: "3173752015479428400000", want70: "3.1737520154794283e+21", comment: "Grisu2"},
	{f: 48296.75374617743, want: "4.8296753746177426e+4", want70: "48296.753746177426", comment: "Grisu2"},
	{f: 0.00186157, want: "0.0018615700000000001", want70: "0.0018615700000000001", comment: "Grisu2"},
	{f: -3.430690081855127e+263, want: "-3.4306900818551273e+263", want70: "-3.4306900818551273e+263", comment: "Grisu2"},
	{f: 5.55208981711685e+16, want: "55520898171168496", want70: "55520898171168496"},
}

func TestFormatScore(t *testing.T) {
	for _, tc := range formatCases {
		if got := FormatScore(tc.f); got != tc.want {
			t.Errorf("FormatScore(%v) = %q; want %q", tc.f, got, tc.want)
		}
		if got := string(AppendScore([]byte("x"), tc.f)); got != "x"+tc.want {
			t.Errorf("AppendScore(\"x\", %v) = %q; want %q", tc.f, got, "x"+tc.want)
		}
		if got := FormatScore70(tc.f); got != tc.want70 {
			t.Errorf("FormatScore70(%v) = %q; want %q", tc.f, got, tc.want70)
		}
		if tc.comment != "Grisu2" {
			continue
		}
		// Confirm that the case shows Grisu2's difference: other digits than the shortest.
		shortest := strconv.FormatFloat(math.Abs(tc.f), 'e', -1, 64)
		digits, _, _ := strings.Cut(strings.Replace(shortest, ".", "", 1), "e")
		ours, _, _ := strings.Cut(strings.TrimLeft(tc.want, "-"), "e")
		ours = strings.Trim(strings.Replace(ours, ".", "", 1), "0")
		if ours == digits {
			t.Errorf("%v: Redis's digits %s are the shortest, %s", tc.f, ours, shortest)
		}
	}
	if got := FormatScore(math.NaN()); got != "nan" {
		t.Errorf("FormatScore(NaN) = %q; want \"nan\"", got)
	}
}

// TestFormatScoreRoundTrip checks that every formatted score parses back to the same
// float64, over random bit patterns and decimal-looking values.
func TestFormatScoreRoundTrip(t *testing.T) {
	seed := testmain.Seed(t)
	rng := rand.New(rand.NewPCG(seed, seed))
	n := 50000
	if testing.Short() || raceEnabled {
		n = 5000
	}
	for range n {
		f := randomScore(rng)
		s := FormatScore(f)
		if len(s) > 25 {
			t.Fatalf("FormatScore(%v) = %q, longer than the documented 25 bytes", f, s)
		}
		back, err := ParseScore(s)
		if err != nil || !sameBits(back, f) {
			t.Fatalf("ParseScore(FormatScore(%v) = %q) = %v, %v", f, s, back, err)
		}
		back, err = ParseScore(FormatScore70(f))
		if err != nil || !sameBits(back, f) {
			t.Fatalf("ParseScore(FormatScore70(%v) = %q) = %v, %v", f, FormatScore70(f), back, err)
		}
	}
}

// randomScore returns a non-NaN float64 from one of several distributions: raw bits,
// short decimals, subnormals, large integers, and huge or tiny magnitudes.
func randomScore(rng *rand.Rand) float64 {
	for {
		var f float64
		switch rng.IntN(5) {
		case 0:
			f = math.Float64frombits(rng.Uint64())
		case 1:
			f = float64(rng.IntN(2000000)-1000000) / math.Pow(10, float64(rng.IntN(12)))
		case 2:
			f = math.Float64frombits(rng.Uint64() & (1<<52 - 1))
		case 3:
			f = float64(rng.Int64()) * math.Pow(2, float64(rng.IntN(40)))
		default:
			f = (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(640)-320))
		}
		if !math.IsNaN(f) {
			return f
		}
	}
}

// TestFormatScore70Redis stores random scores in a real Redis 7.0 and compares its
// ZSCORE replies with FormatScore70. Against Redis 7.2 or later, it compares FormatScore.
func TestFormatScore70Redis(t *testing.T) {
	c := redisClient(t)
	ctx := context.Background()
	const key = "zset:parse:format"
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	format, name := FormatScore70, "FormatScore70"
	if !strings.Contains(info, "redis_version:7.0.") && !strings.Contains(info, "redis_version:6.") {
		format, name = FormatScore, "FormatScore"
	}
	rng := rand.New(rand.NewPCG(7, 7))
	var scores []float64
	for _, tc := range formatCases {
		if tc.f != 0 { // Redis 7.0 stores -0 as 0
			scores = append(scores, tc.f)
		}
	}
	for range 2000 {
		if f := randomScore(rng); f != 0 {
			scores = append(scores, f)
		}
	}
	c.Del(ctx, key)
	pipe := c.Pipeline()
	for i, f := range scores {
		pipe.Do(ctx, "ZADD", key, FormatScore(f), strconv.Itoa(i))
	}
	replies := make([]*redis.Cmd, len(scores))
	for i := range scores {
		replies[i] = pipe.Do(ctx, "ZSCORE", key, strconv.Itoa(i))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	for i, f := range scores {
		if got, want := replies[i].Val(), format(f); got != want {
			t.Errorf("ZSCORE of %v: Redis %q, %s %q", f, got, name, want)
		}
	}
	c.Del(ctx, key)
}

// TestPowersOf10 recomputes Grisu's cached powers of ten with math/big: 10^k rounded to
// the nearest 64-bit significand with its top bit set.
func TestPowersOf10(t *testing.T) {
	for i, p := range powersOf10 {
		k := -348 + 8*i
		exact := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(absInt(k))), nil))
		if k < 0 {
			exact.Inv(exact)
		}
		scaled := new(big.Rat).Set(exact) // exact / 2^p.e must be in [2^63, 2^64)
		two := new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(absInt(p.e))))
		if p.e >= 0 {
			scaled.Quo(scaled, two)
		} else {
			scaled.Mul(scaled, two)
		}
		scaled.Add(scaled, big.NewRat(1, 2))
		nearest := new(big.Int).Quo(scaled.Num(), scaled.Denom())
		if !nearest.IsUint64() || nearest.Uint64() != p.f || p.f>>63 != 1 {
			t.Errorf("powersOf10[%d] = {%d, %d}; 10^%d × 2^%d rounds to %v", i, p.f, p.e, k, -p.e, nearest)
		}
	}
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// parseScoreReference is an independent model of ParseScore: strconv.ParseFloat plus
// the documented differences between Go's syntax and Redis's string2d (strtod).
func parseScoreReference(s string) (float64, bool) {
	if s == "" || strings.ContainsAny(s[:1], " \t\n\v\f\r") || strings.Contains(s, "_") {
		return 0, false
	}
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 {
		return 0, false
	}
	lower := strings.ToLower(body)
	if lower == "inf" || lower == "infinity" {
		return math.Inf(1 - 2*strings.Count(s[:len(s)-len(body)], "-")), true
	}
	hex := strings.HasPrefix(lower, "0x")
	if hex && !strings.Contains(lower, "p") {
		s += "p0" // strtod's binary exponent is optional
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	mantissa := lower
	if hex {
		mantissa, _, _ = strings.Cut(lower[2:], "p")
	} else {
		mantissa, _, _ = strings.Cut(lower, "e")
	}
	if f == 0 && strings.Trim(mantissa, "0.") != "" {
		return 0, false // underflow
	}
	return f, true
}

// FuzzParseScore compares ParseScore with parseScoreReference, and checks that an
// accepted score (and the float64 in the input's first 8 bytes) formats to a string
// that parses back to the same float64. It also runs ParseScoreBound and ParseLexBound,
// which must accept whatever ParseScore does, with the same value.
func FuzzParseScore(f *testing.F) {
	for _, tc := range scoreCases {
		f.Add(tc.in)
	}
	for _, tc := range boundCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseScore(s)
		want, ok := parseScoreReference(s)
		if (err == nil) != ok || (ok && !sameBits(got, want)) {
			t.Fatalf("ParseScore(%q) = %v, %v; reference %v, %v", s, got, err, want, ok)
		}
		if err == nil {
			b, berr := ParseScoreBound(s)
			if berr != nil || !sameBits(b.Value, got) || b.Exclusive {
				t.Fatalf("ParseScoreBound(%q) = %+v, %v; ParseScore gives %v", s, b, berr, got)
			}
			if back, err := ParseScore(FormatScore(got)); err != nil || !sameBits(back, got) {
				t.Fatalf("ParseScore(FormatScore(%v) = %q) = %v, %v", got, FormatScore(got), back, err)
			}
		}
		if len(s) >= 8 {
			var bits uint64
			for i := range 8 {
				bits = bits<<8 | uint64(s[i])
			}
			if v := math.Float64frombits(bits); !math.IsNaN(v) {
				if back, err := ParseScore(FormatScore(v)); err != nil || !sameBits(back, v) {
					t.Fatalf("ParseScore(FormatScore(%v) = %q) = %v, %v", v, FormatScore(v), back, err)
				}
			}
		}
		if lb, err := ParseLexBound(s); err == nil && lb.Inf == 0 && lb.Member != s[1:] {
			t.Fatalf("ParseLexBound(%q).Member = %q", s, lb.Member)
		}
	})
}

func BenchmarkParseScore(b *testing.B) {
	for _, in := range []string{"1", "-12345", "1.5", "0.30000000000000004", "1e-7", "inf", "0x1p4"} {
		b.Run(fmt.Sprintf("op=ParseScore/in=%s", in), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseScore(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkFormatScore(b *testing.B) {
	for _, f := range []float64{3, -12345, 1.5, 0.30000000000000004, 1e-7, 1.7976931348623157e308} {
		b.Run(fmt.Sprintf("op=AppendScore/f=%v", f), func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, 32)
			for b.Loop() {
				buf = AppendScore(buf[:0], f)
			}
		})
	}
}
