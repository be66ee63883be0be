package zlite

import (
	"math"
	"math/big"
	"strings"
	"time"
)

// Redis parses a blocking command's timeout (getTimeoutFromObjectOrReply in
// timeout.c) as a C long double with strtold, multiplies it by 1000 in long double,
// rounds up to whole milliseconds and adds the current time. On x86-64, where Redis
// servers run, a long double is the x87 80-bit format: a 64-bit mantissa and an
// exponent range far beyond float64's, so 1e-400 is a positive number of seconds
// (1 ms once rounded up) and 1e4000 a finite one. parseTimeout reproduces that
// arithmetic exactly, with math/big at 64 bits of precision for what float64 cannot
// hold, and Redis 7.2+'s range checks.

// Limits of the x87 80-bit long double and of Redis's parsing.
const (
	// maxTimeoutChars is Redis's MAX_LONG_DOUBLE_CHARS: a longer argument is not a float.
	maxTimeoutChars = 5 * 1024
	// ldMaxExp: every finite long double is below 2^ldMaxExp.
	ldMaxExp = 16384
	// ldMinNormalExp: long doubles below 2^ldMinNormalExp are subnormal.
	ldMinNormalExp = -16382
	// ldHalfMinSubnormalExp: values of magnitude up to 2^ldHalfMinSubnormalExp (half
	// the smallest subnormal, 2^-16445) round to zero.
	ldHalfMinSubnormalExp = -16446
	// ldMaxDecExp and ldMinDecExp bound the decimal exponent of a finite non-zero
	// long double: 1.19e4932 is the largest, 3.6e-4951 the smallest.
	ldMaxDecExp, ldMinDecExp = 4933, -4952
)

// parseTimeout parses a blocking command's timeout in seconds exactly as Redis 7.2+
// does: a long double (decimal or hexadecimal, inf, not nan; no spaces), times 1000,
// rounded up to whole milliseconds; 0 means forever. A timeout of -1 ms or less is
// [ErrTimeoutNegative]; one whose deadline (now + the timeout, in milliseconds since
// 1970) does not fit in 64 bits is [ErrTimeoutOutOfRange] (Redis 7.0 took the huge
// ones for negative and let the deadline overflow). A tiny negative timeout, above
// -1 ms, rounds up to 0: forever, as in Redis (so does -0.001, which is a little
// above -1 ms as a long double). Timeouts beyond time.Duration's range (292 years)
// are capped to it. The cost is O(len(s)) with no allocation for decimals exact in
// binary (2, 0.5, 1.25); other forms use math/big, bounded by the 5 KiB that Redis
// accepts.
func parseTimeout(s string) (time.Duration, error) {
	ms, err := timeoutMillis(s, time.Now().UnixMilli())
	if err != nil {
		return 0, err
	}
	if ms > math.MaxInt64/int64(time.Millisecond) {
		return math.MaxInt64, nil
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// timeoutMillis returns the milliseconds of timeout s, with Redis's checks, at time
// now (milliseconds since 1970).
func timeoutMillis(s string, now int64) (int64, error) {
	ms, ok := plainMillis(s)
	if !ok {
		f, err := longDoubleMillis(s)
		if err != nil {
			return 0, err
		}
		if f.Cmp(bigMaxInt64) > 0 {
			return 0, ErrTimeoutOutOfRange
		}
		if f.Cmp(bigMinusOne) <= 0 {
			return 0, ErrTimeoutNegative
		}
		ms = 0 // (-1, 0] rounds up to 0
		if f.Sign() > 0 {
			var acc big.Accuracy
			if ms, acc = f.Int64(); acc == big.Below {
				ms++ // ceil; f ≤ MaxInt64, so no overflow
			}
		}
	}
	if ms < 0 {
		return 0, ErrTimeoutNegative
	}
	if ms > math.MaxInt64-now {
		return 0, ErrTimeoutOutOfRange
	}
	return ms, nil
}

var (
	bigMaxInt64 = new(big.Float).SetInt64(math.MaxInt64)
	bigMinusOne = big.NewFloat(-1)
	bigThousand = big.NewFloat(1000)
)

// plainMillis is the fast path of timeoutMillis: s is [-]digits[.digits] with at
// most 15 digits whose value is exact in binary (n/10^k with 5^k dividing n: 2, 1.5,
// 0.25), so that the long double arithmetic is exact and the milliseconds are
// ceil(n×1000/10^k). It reports false for anything else.
func plainMillis(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var n, p5, p10 int64 = 0, 1, 1 // p5 = 5^k, p10 = 10^k for k decimals
	digits, dot := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '.' && !dot:
			dot = true
		case '0' <= c && c <= '9':
			if digits++; digits > 15 {
				return 0, false
			}
			n = 10*n + int64(c-'0')
			if dot {
				p5, p10 = 5*p5, 10*p10
			}
		default:
			return 0, false
		}
	}
	if digits == 0 || n%p5 != 0 {
		return 0, false
	}
	ms := n * 1000 / p10 // n×1000 ≤ 10^18: no overflow
	if neg {
		return -ms, true // ceil(-x) = -floor(x)
	}
	if ms*p10 < n*1000 {
		ms++
	}
	return ms, true
}

// longDoubleMillis parses s as Redis's string2ld does on x86-64 (strtold, the whole
// string, no leading space, no nan, no overflow to infinity or underflow to zero)
// and returns it times 1000, rounded as a long double multiplication. Infinities
// are returned as such. Errors are ErrTimeoutNotFloat.
func longDoubleMillis(s string) (*big.Float, error) {
	if len(s) == 0 || len(s) >= maxTimeoutChars {
		return nil, ErrTimeoutNotFloat
	}
	neg := false
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		s = s[1:]
	}
	if strings.EqualFold(s, "inf") || strings.EqualFold(s, "infinity") {
		return new(big.Float).SetInf(neg), nil
	}
	hex := len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')
	if hex {
		s = s[2:]
	}
	mant, frac, exp, ok := scanFloat(s, hex)
	if !ok {
		return nil, ErrTimeoutNotFloat
	}
	base := 10
	if hex {
		base = 16
	}
	m, ok := new(big.Int).SetString(mant, base)
	if !ok {
		return nil, ErrTimeoutNotFloat
	}
	if m.Sign() == 0 {
		return new(big.Float), nil // ±0: forever
	}
	v, tiny, err := roundLongDouble(m, frac, exp, hex)
	if err != nil {
		return nil, err
	}
	if tiny {
		// A subnormal: times 1000 it stays within (-1, 1), which rounds up to 1 ms
		// when positive and to 0 when negative.
		if neg {
			return big.NewFloat(-0.5), nil
		}
		return big.NewFloat(0.5), nil
	}
	if neg {
		v.Neg(v)
	}
	return new(big.Float).SetPrec(64).Mul(v, bigThousand), nil
}

// scanFloat splits s (after the sign and any 0x) into its mantissa digits, the
// number of them after the point, and the exponent (decimal, or binary for hex),
// saturated far beyond any long double. It reports false unless s is a whole
// strtold number: at least one digit, at most one point, and an exponent with
// digits if its letter is there.
func scanFloat(s string, hex bool) (mant string, frac int, exp int64, ok bool) {
	var b strings.Builder
	i, dot := 0, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' && !dot:
			dot = true
		case '0' <= c && c <= '9', hex && ('a' <= c && c <= 'f' || 'A' <= c && c <= 'F'):
			b.WriteByte(c)
			if dot {
				frac++
			}
		default:
			goto exponent
		}
	}
exponent:
	if b.Len() == 0 {
		return "", 0, 0, false
	}
	if i == len(s) {
		return b.String(), frac, 0, true
	}
	if c := s[i] | 0x20; (hex && c != 'p') || (!hex && c != 'e') {
		return "", 0, 0, false
	}
	e := s[i+1:]
	eneg := strings.HasPrefix(e, "-")
	if eneg || strings.HasPrefix(e, "+") {
		e = e[1:]
	}
	if e == "" {
		return "", 0, 0, false
	}
	for j := 0; j < len(e); j++ {
		if e[j] < '0' || e[j] > '9' {
			return "", 0, 0, false
		}
		exp = min(10*exp+int64(e[j]-'0'), 1<<40)
	}
	if eneg {
		exp = -exp
	}
	return b.String(), frac, exp, true
}

// roundLongDouble rounds m × 10^(exp-frac) (m × 2^(exp-4·frac) if hex), m > 0, to a
// long double: v with a 64-bit mantissa, or tiny when the value is a subnormal. It
// fails with ErrTimeoutNotFloat, as strtold's ERANGE does in Redis, when the value
// overflows to infinity or underflows to zero.
func roundLongDouble(m *big.Int, frac int, exp int64, hex bool) (v *big.Float, tiny bool, err error) {
	v = new(big.Float).SetPrec(64)
	if hex {
		e2 := exp - 4*int64(frac)
		top := int64(m.BitLen()) + e2 // the value is in [2^(top-1), 2^top)
		switch {
		case top-1 >= ldMaxExp:
			return nil, false, ErrTimeoutNotFloat
		case top < ldHalfMinSubnormalExp:
			return nil, false, ErrTimeoutNotFloat
		case top-1 < ldMinNormalExp:
			// At most 2^-16446 (half the smallest subnormal) rounds to zero:
			// m × 2^e2 ≤ 2^-16446 ⟺ m ≤ 2^(-16446-e2), which needs -16446-e2 ≥ 0.
			sh := ldHalfMinSubnormalExp - e2
			if sh >= 0 && m.Cmp(new(big.Int).Lsh(big.NewInt(1), uint(sh))) <= 0 {
				return nil, false, ErrTimeoutNotFloat
			}
			return nil, true, nil
		}
		v.SetInt(m)
		v.SetMantExp(v, int(e2))
	} else {
		e10 := exp - int64(frac)
		top := int64(len(m.String())) + e10 // the value is in [10^(top-1), 10^top)
		switch {
		case top-1 > ldMaxDecExp, top < ldMinDecExp:
			return nil, false, ErrTimeoutNotFloat
		case e10 >= 0:
			v.SetInt(new(big.Int).Mul(m, pow10(e10)))
		default:
			d := pow10(-e10)
			v.Quo(new(big.Float).SetInt(m), new(big.Float).SetInt(d))
			if v.MantExp(nil)-1 < ldMinNormalExp {
				// m / d ≤ 2^-16446 ⟺ m × 2^16446 ≤ d.
				if new(big.Int).Lsh(m, -ldHalfMinSubnormalExp).Cmp(d) <= 0 {
					return nil, false, ErrTimeoutNotFloat
				}
				return nil, true, nil
			}
		}
	}
	if v.MantExp(nil) > ldMaxExp {
		return nil, false, ErrTimeoutNotFloat
	}
	return v, false, nil
}

// pow10 returns 10^n, n ≥ 0 (bounded by the callers to a few thousand).
func pow10(n int64) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(n), nil)
}
