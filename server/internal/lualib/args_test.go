package lualib

import (
	"encoding/binary"
	"math"
	"strconv"
	"testing"
)

// TestStrToNumberRedis reads numbers from strings as lua_tonumber does, and
// compares with Redis's tonumber (Lua 5.1's strtod-based luaO_str2d): the same
// double, bit for bit, or the same refusal.
func TestStrToNumberRedis(t *testing.T) {
	c := redisClient(t)
	r := newRand(t)
	inputs := []string{
		"0", "1", "-1", "+1", " 12 ", "\t\n12\v\f\r", "1.5", ".5", "5.", ".", "-.5", "1e5", "1E+5", "1e-5", "1e", "1e+", "1.5e3x",
		"0x10", "0X1f", "-0x10", "0x", "0x.8", "0x1.8p1", "0x1p-2", "0x1P+4", "0x1p", "0xg", "0x1.", "0x.p1",
		"inf", "-inf", "+INF", "infinity", "Infinity", "infinit", "nan", "-nan", "NaN", "nan()", "nan(123)", "nan(abc_1)", "nan(", "nan(1", "nan(0x7f)", "nan(017)", "nan(08)", "nan(0x)", "-nan(5)",
		"nan(99999999999999999999999)", "nan(0xfffffffffffff)", "nan(abc)", "nan(_)",
		"1e400", "-1e400", "1e-400", "4.9e-324", "2.4703282292062327e-324", "2.4703282292062328e-324", "1.7976931348623157e308",
		"1.7976931348623158e308", "1.7976931348623159e308", "123456789012345678901234567890", "0.1", "0.30000000000000004",
		"", " ", "abc", "1 2", "12\x00", "12\x00abc", "- 1", "--1", "1_000", "0b101", "1,5", "١",
	}
	for range 200 {
		b := make([]byte, 1+r.IntN(10))
		for i := range b {
			b[i] = "0123456789.eE+-xXpPabcdfinINF "[r.IntN(30)]
		}
		inputs = append(inputs, string(b))
	}
	for _, in := range inputs {
		want := evalRedis(t, c, "local n = tonumber(ARGV[1]) if n == nil then return 'nil' end return D(n)", in)
		got := strconv.Quote("nil")
		if f, ok := strToNumber(in); ok {
			got = strconv.Quote(string(binary.BigEndian.AppendUint64(nil, math.Float64bits(f))))
		}
		if got != want {
			t.Errorf("strToNumber(%q) = %s; want %s (redis)", in, got, want)
		}
	}
}

func TestFormatNumber(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		prec int
		want string
	}{
		{0.1, 14, "0.1"}, {1.0 / 3, 14, "0.33333333333333"}, {1e100, 14, "1e+100"}, {123456789012345678, 14, "1.2345678901235e+17"},
		{math.Copysign(0, -1), 14, "-0"}, {1e-5, 14, "1e-05"}, {100000, 14, "100000"}, {1e14, 14, "1e+14"}, {1.0 / 3, 3, "0.333"},
		{math.Inf(1), 14, "inf"}, {math.Inf(-1), 14, "-inf"}, {math.Float64frombits(nanBits), 14, "nan"},
		{math.Float64frombits(nanBits | 1<<63), 14, "-nan"},
	} {
		if got := formatNumber(tc.f, tc.prec); got != tc.want {
			t.Errorf("formatNumber(%v, %d) = %q; want %q", tc.f, tc.prec, got, tc.want)
		}
	}
}

func TestFloatToInteger(t *testing.T) {
	nan := math.Float64frombits(nanBits)
	for _, tc := range []struct {
		f   float64
		i64 int64
		u64 uint64
	}{
		{1.9, 1, 1}, {-1.9, -1, math.MaxUint64}, {0x1p63, math.MinInt64, 1 << 63}, {0x1p63 + 4096, math.MinInt64, 1<<63 | 4096},
		{0x1p64, math.MinInt64, 0}, {1e300, math.MinInt64, 0}, {-1e300, math.MinInt64, 1 << 63}, {nan, math.MinInt64, 1 << 63},
		{-0x1p63, math.MinInt64, 1 << 63},
	} {
		if got := toInt64(tc.f); got != tc.i64 {
			t.Errorf("toInt64(%v) = %d; want %d", tc.f, got, tc.i64)
		}
		if got := toUint64(tc.f); got != tc.u64 {
			t.Errorf("toUint64(%v) = %#x; want %#x", tc.f, got, tc.u64)
		}
	}
}
