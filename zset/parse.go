package zset

import (
	"math"
	"strconv"
	"strings"
)

// This file holds the conversions between Redis's textual arguments and replies and the
// values of this package: scores (ZADD, ZINCRBY, WEIGHTS), score range bounds (ZCOUNT,
// ZRANGEBYSCORE, ...), lexicographic range bounds (ZLEXCOUNT, ZRANGEBYLEX, ...) and the
// formatting of scores in replies.
//
// Redis parses numbers with the C library's strtod. The reference for the accepted syntax
// is glibc's strtod in the "C" locale, which Redis 7.0.15 (our CI reference) uses; it is
// implemented here by scanFloat, and the value of an accepted string is computed by
// strconv.ParseFloat, which rounds correctly, as glibc does.

// ParseScore parses a score as ZADD, ZINCRBY and the WEIGHTS of ZUNION/ZINTER do (Redis's
// string2d): the whole of s must be a number in strtod's syntax, with no leading or
// trailing white space. Accepted: decimal numbers with an optional sign, fraction and
// exponent ("1", "-2.5", ".5", "5.", "1e3", "1E+3"), hexadecimal numbers ("0x10",
// "0x1.8p1"), and "inf" / "infinity" in any case with an optional sign. Subnormal results
// ("5e-324") are kept.
//
// It returns [ErrNotFloat] for the empty string, leading or trailing white space, NaN in
// any form ("nan", "-NaN", "nan(1)"), any trailing garbage ("1x", "1_000", "0x", "1e",
// a NUL byte), a finite number too large for a float64 ("1e400": Redis rejects the
// overflow rather than store inf), and a non-zero number so small that it rounds to zero
// ("1e-400").
//
// Hexadecimal numbers are accepted because Redis 7.0 accepts them through strtod, and
// Redis 8.0 deliberately kept accepting them: 8.0 first replaced strtod with fast_float,
// which rejects them, and then restored them with a strtod fallback (redis/redis#13845,
// "what was previously accepted as a valid input (hexadecimal string) before 8.0 returned
// an error"). So there is no deliberate difference from Redis here.
//
// The complexity is O(len(s)); it does not allocate unless s is hexadecimal without a
// binary exponent ("0x10"), or out of range.
func ParseScore(s string) (float64, error) {
	if f, ok := parseSmallInt(s); ok {
		return f, nil
	}
	if s == "" || isCSpace(s[0]) {
		return 0, ErrNotFloat
	}
	n, kind, nonzero := scanFloat(s)
	if n != len(s) {
		return 0, ErrNotFloat
	}
	f, overflow := floatValue(s, kind)
	if kind == floatNaN || overflow || (f == 0 && nonzero) {
		return 0, ErrNotFloat
	}
	return f, nil
}

// ParseScoreBound parses one end of a score range as ZCOUNT, ZRANGEBYSCORE,
// ZREMRANGEBYSCORE and ZRANGE ... BYSCORE do (Redis's zslParseRange): an optional "("
// making the bound exclusive, then a number in strtod's syntax, as for [ParseScore]
// ("1.5", "(1.5", "-inf", "+inf", "inf", "(inf", "0x10").
//
// It returns [ErrMinMaxNotFloat] for NaN and for anything strtod would not consume to the
// end. The rules are strtod's, not string2d's, and so they are looser than ParseScore's,
// exactly as Redis 7.0's: leading white space is skipped (" 1"); a number too large is
// ±Inf and one too small is 0 rather than an error ("1e400" is +inf); the string ends at
// its first NUL byte ("1\x00x" is 1); and an empty number is 0 ("" is the bound 0 and "("
// the exclusive bound 0).
//
// These are the rules of Redis 7.0.15, the reference that CI runs. Redis 8 parses bounds
// with fast_float instead of strtod (8.0-m01's zslParseRange), which no longer skips
// leading white space nor reads hexadecimal; this package keeps 7.0's rules until the
// reference moves.
//
// The complexity is O(len(s)).
func ParseScoreBound(s string) (ScoreBound, error) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i] // Redis hands strtod a C string
	}
	var b ScoreBound
	if s != "" && s[0] == '(' {
		b.Exclusive = true
		s = s[1:]
	}
	if s == "" {
		return b, nil // strtod converts nothing and stops at the terminating NUL: 0
	}
	if f, ok := parseSmallInt(s); ok {
		b.Value = f
		return b, nil
	}
	t := strings.TrimLeft(s, cSpaces)
	n, kind, _ := scanFloat(t)
	if n == 0 || n != len(t) || kind == floatNaN {
		return ScoreBound{}, ErrMinMaxNotFloat
	}
	b.Value, _ = floatValue(t, kind) // out of range is ±Inf or ±0, as from strtod
	return b, nil
}

// ParseLexBound parses one end of a lexicographic range as ZLEXCOUNT, ZRANGEBYLEX and
// ZREMRANGEBYLEX do (Redis's zslParseLexRangeItem): "-" is [LexMin], "+" is [LexMax],
// "[m" includes member m and "(m" excludes it; m may be empty ("[" is the inclusive bound
// on the empty member) and holds any bytes. As in Redis, which tests the byte after a
// "-" or "+" as the end of a C string, "-" or "+" followed by a NUL byte and anything is
// also [LexMin] or [LexMax].
//
// It returns [ErrLexRange] for anything else, including the empty string, "-a" and "+ ".
// The complexity is O(1); the member shares the memory of s.
func ParseLexBound(s string) (LexBound, error) {
	if s == "" {
		return LexBound{}, ErrLexRange
	}
	switch s[0] {
	case '-':
		if len(s) == 1 || s[1] == 0 {
			return LexMin, nil
		}
	case '+':
		if len(s) == 1 || s[1] == 0 {
			return LexMax, nil
		}
	case '(':
		return LexBound{Member: s[1:], Exclusive: true}, nil
	case '[':
		return LexBound{Member: s[1:]}, nil
	}
	return LexBound{}, ErrLexRange
}

// parseSmallInt is the fast path for the common integral scores: an optional sign and 1
// to 15 decimal digits, whose value a float64 holds exactly.
func parseSmallInt(s string) (float64, bool) {
	digits := s
	if digits != "" && (digits[0] == '-' || digits[0] == '+') {
		digits = digits[1:]
	}
	if digits == "" || len(digits) > 15 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	f := float64(n)
	if s[0] == '-' {
		f = -f // -0 too
	}
	return f, true
}

// cSpaces are the bytes for which C's isspace is true in the "C" locale.
const cSpaces = " \t\n\v\f\r"

func isCSpace(c byte) bool {
	return c == ' ' || ('\t' <= c && c <= '\r')
}

// floatKind is the form of number that scanFloat found.
type floatKind uint8

const (
	floatDecimal floatKind = iota
	floatHex
	floatInf
	floatNaN
)

// scanFloat returns the length n of the longest prefix of s that glibc's strtod converts
// in the "C" locale, without its skipping of leading white space, the kind of number it
// is, and whether its significand has a non-zero digit (so that a zero value means
// underflow). n == 0 means that strtod converts nothing.
//
// The syntax: an optional sign, then "inf" or "infinity"; or "nan", optionally followed by
// "(" letters, digits and underscores ")"; or "0x" and hexadecimal digits with an optional
// point and at least one digit, then optionally "p", an optional sign and decimal digits;
// or decimal digits with an optional point and at least one digit, then optionally "e",
// an optional sign and digits. An exponent marker not followed by a digit is not part of
// the number; neither is the "x" of a "0x" not followed by a hexadecimal digit.
func scanFloat(s string) (n int, kind floatKind, nonzero bool) {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if hasPrefixFold(s[i:], "inf") {
		if hasPrefixFold(s[i+3:], "inity") {
			return i + 8, floatInf, true
		}
		return i + 3, floatInf, true
	}
	if hasPrefixFold(s[i:], "nan") {
		i += 3
		if i < len(s) && s[i] == '(' {
			j := i + 1
			for j < len(s) && (isDigit(s[j]) || isLetter(s[j]) || s[j] == '_') {
				j++
			}
			if j < len(s) && s[j] == ')' {
				i = j + 1
			}
		}
		return i, floatNaN, false
	}
	hex := false
	if len(s)-i >= 3 && s[i] == '0' && (s[i+1]|0x20) == 'x' &&
		(isHexDigit(s[i+2]) || (s[i+2] == '.' && len(s)-i >= 4 && isHexDigit(s[i+3]))) {
		hex = true
		i += 2
	}
	isMantissaDigit := isDigit
	exponentMark := byte('e')
	if hex {
		isMantissaDigit = isHexDigit
		exponentMark = 'p'
	}
	ndigits := 0
	for i < len(s) && isMantissaDigit(s[i]) {
		nonzero = nonzero || s[i] != '0'
		ndigits++
		i++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isMantissaDigit(s[i]) {
			nonzero = nonzero || s[i] != '0'
			ndigits++
			i++
		}
	}
	if ndigits == 0 {
		return 0, floatDecimal, false
	}
	if i < len(s) && (s[i]|0x20) == exponentMark {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			i = j
		}
	}
	if hex {
		return i, floatHex, nonzero
	}
	return i, floatDecimal, nonzero
}

// floatValue returns the value of s, which scanFloat accepted whole as a number of the
// given kind (not NaN), correctly rounded, and whether it overflowed to ±Inf.
func floatValue(s string, kind floatKind) (f float64, overflow bool) {
	switch kind {
	case floatInf:
		if s[0] == '-' {
			return math.Inf(-1), false
		}
		return math.Inf(1), false
	case floatHex:
		if !strings.ContainsAny(s, "pP") {
			s += "p0" // strconv requires the binary exponent that strtod makes optional
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	// ParseFloat's only possible error here is ErrRange, which it returns (with ±Inf) on
	// overflow only: an underflow is returned as ±0 or a subnormal without an error.
	return f, err != nil
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func isDigit(c byte) bool    { return '0' <= c && c <= '9' }
func isLetter(c byte) bool   { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isHexDigit(c byte) bool { return isDigit(c) || ('a' <= c|0x20 && c|0x20 <= 'f') }

// FormatScore returns the text Redis 7.2 and later reply with for a score (its d2string):
//
//   - "inf", "-inf", and "nan" (a Set never holds NaN);
//   - "0" and "-0" for the two zeros;
//   - an integral value in [-2^62, 2^62] as a decimal integer: "3", "-12", "1000000";
//   - any other value as the digits of Grisu2 (the fpconv_dtoa that Redis uses), which
//     read back as the same float64 and are the shortest such digits in all but rare
//     cases (where Redis's output has one more digit, and so does ours), laid out as
//     follows. With digits d (no leading or trailing zeros) and the value d × 10^K:
//     if K >= 0 and the decimal exponent K+len(d)-1 is below len(d)+7, the integer
//     with K zeros appended ("4611686018427388000" for 2^62+1024); if K < 0 and K > -7 or
//     the decimal exponent lies in (-4, 4), positional notation ("0.5", "0.000001",
//     "12.3456789012345"); otherwise scientific notation with an explicit exponent sign
//     and no exponent padding ("1e+21", "1.5e-7", "-2.5e+300", "5e-324").
//
// Redis 7.0 and earlier reply with "%.17g" instead; see [FormatScore70]. The complexity
// is O(1).
func FormatScore(f float64) string {
	var buf [32]byte
	return string(AppendScore(buf[:0], f))
}

// AppendScore appends [FormatScore] of f to dst and returns the extended buffer, for
// building replies without allocating: the text is at most 25 bytes long. The complexity
// is O(1).
func AppendScore(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	case f >= -(1<<62) && f <= 1<<62 && f == math.Trunc(f):
		return strconv.AppendInt(dst, int64(f), 10)
	}
	if f < 0 {
		dst = append(dst, '-')
	}
	var digits [20]byte
	nd, k := grisu2(math.Abs(f), &digits)
	return appendGrisuDigits(dst, digits[:nd], k, f < 0)
}

// FormatScore70 returns the text Redis 7.0 and earlier reply with for a score: "inf",
// "-inf", and otherwise C's "%.17g" ("3", "-0", "0.10000000000000001",
// "4.9406564584124654e-324", "1e+21"). It serves comparisons with those servers; zlite
// itself replies with [FormatScore]. The complexity is O(1).
func FormatScore70(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	return strconv.FormatFloat(f, 'g', 17, 64)
}

// Grisu2, as in the fpconv_dtoa that Redis 7.2+ uses for scores (Florian Loitsch,
// "Printing Floating-Point Numbers Quickly and Accurately with Integers", PLDI 2010). It
// is reproduced step for step, including its rounding of the cached powers and of the
// 64-bit products, because Redis's replies are its exact output: Grisu2 picks, within the
// interval of decimals that read back as the input, digits that are not always the
// shortest or the closest, and strconv's shortest formatting differs in those cases.

// diyFp is the value f × 2^e.
type diyFp struct {
	f uint64
	e int
}

const (
	fracMask  = 1<<52 - 1
	hiddenBit = 1 << 52
	expBias   = 1023 + 52
)

// grisu2 writes the decimal digits of f > 0 (finite) to digits and returns their count n
// and the decimal exponent k: f is approximately digits × 10^k.
func grisu2(f float64, digits *[20]byte) (n, k int) {
	bits := math.Float64bits(f)
	w := diyFp{f: bits & fracMask, e: int(bits >> 52)}
	if w.e != 0 {
		w.f += hiddenBit
		w.e -= expBias
	} else {
		w.e = 1 - expBias
	}

	// The boundaries m+ and m- halfway to the neighbouring floats, scaled to a common
	// exponent with m+ normalised to 64 bits.
	upper := diyFp{f: w.f<<1 + 1, e: w.e - 1}
	for upper.f&(hiddenBit<<1) == 0 {
		upper.f <<= 1
		upper.e--
	}
	upper.f <<= 64 - 52 - 2
	upper.e -= 64 - 52 - 2
	lshift := 1
	if w.f == hiddenBit {
		lshift = 2 // the float below is closer: its exponent is one less
	}
	lower := diyFp{f: w.f<<lshift - 1, e: w.e - lshift}
	lower.f <<= uint(lower.e - upper.e)
	lower.e = upper.e

	for w.f&hiddenBit == 0 {
		w.f <<= 1
		w.e--
	}
	w.f <<= 64 - 52 - 1
	w.e -= 64 - 52 - 1

	cp, cpk := cachedPow10(upper.e)
	w = multiplyFp(w, cp)
	upper = multiplyFp(upper, cp)
	lower = multiplyFp(lower, cp)
	lower.f++
	upper.f--
	return generateDigits(w, upper, lower, digits, -cpk)
}

// multiplyFp returns a × b with the 128-bit product's upper half rounded up at its
// lower half's midpoint.
func multiplyFp(a, b diyFp) diyFp {
	const lo = 1<<32 - 1
	ahbl := (a.f >> 32) * (b.f & lo)
	albh := (a.f & lo) * (b.f >> 32)
	albl := (a.f & lo) * (b.f & lo)
	ahbh := (a.f >> 32) * (b.f >> 32)
	tmp := ahbl&lo + albh&lo + albl>>32
	tmp += 1 << 31
	return diyFp{f: ahbh + ahbl>>32 + albh>>32 + tmp>>32, e: a.e + b.e + 64}
}

// cachedPow10 returns the cached power of ten c = 10^k with which a number of binary
// exponent e is scaled so that the product's exponent lies in [-60, -32].
func cachedPow10(e int) (c diyFp, k int) {
	const (
		firstPower = -348
		stepPowers = 8
		log10of2   = 0.30102999566398114
	)
	approx := int(float64(-(e + len(powersOf10))) * log10of2)
	i := (approx - firstPower) / stepPowers
	for {
		switch current := e + powersOf10[i].e + 64; {
		case current < -60:
			i++
		case current > -32:
			i--
		default:
			return powersOf10[i], firstPower + i*stepPowers
		}
	}
}

var pow10u64 = [...]uint64{
	1e19, 1e18, 1e17, 1e16, 1e15, 1e14, 1e13, 1e12, 1e11, 1e10,
	1e9, 1e8, 1e7, 1e6, 1e5, 1e4, 1e3, 100, 10, 1,
}

// generateDigits produces the digits of upper (the scaled upper boundary), stopping as
// soon as the rest lies within delta = upper - lower, and then rounds the last digit
// towards w.
func generateDigits(w, upper, lower diyFp, digits *[20]byte, k int) (int, int) {
	wfrac := upper.f - w.f
	delta := upper.f - lower.f
	shift := uint(-upper.e)
	one := uint64(1) << shift
	part1 := upper.f >> shift
	part2 := upper.f & (one - 1)

	n := 0
	kappa := 10
	for i := 10; kappa > 0; i++ { // divisors 10^9 ... 10^0
		div := pow10u64[i]
		digit := part1 / div
		if digit != 0 || n != 0 {
			digits[n] = byte('0' + digit)
			n++
		}
		part1 -= digit * div
		kappa--
		if rest := part1<<shift + part2; rest <= delta {
			roundDigit(digits[:n], delta, rest, div<<shift, wfrac)
			return n, k + kappa
		}
	}
	for unit := 18; ; unit-- { // pow10u64[18] == 10
		part2 *= 10
		delta *= 10
		kappa--
		digit := part2 >> shift
		if digit != 0 || n != 0 {
			digits[n] = byte('0' + digit)
			n++
		}
		part2 &= one - 1
		if part2 < delta {
			roundDigit(digits[:n], delta, part2, one, wfrac*pow10u64[unit])
			return n, k + kappa
		}
	}
}

// roundDigit lowers the last digit while that brings the number closer to the value w
// (at distance frac below upper) and keeps it within the interval.
func roundDigit(digits []byte, delta, rest, ten, frac uint64) {
	for rest < frac && delta-rest >= ten && (rest+ten < frac || frac-rest > rest+ten-frac) {
		digits[len(digits)-1]--
		rest += ten
	}
}

// appendGrisuDigits lays out digits × 10^k (of a negative value if neg; the sign is
// already written) as Redis's fpconv_dtoa does.
func appendGrisuDigits(dst, digits []byte, k int, neg bool) []byte {
	nd := len(digits)
	exp := k + nd - 1
	if exp < 0 {
		exp = -exp
	}
	if k >= 0 && exp < nd+7 {
		dst = append(dst, digits...)
		for range k {
			dst = append(dst, '0')
		}
		return dst
	}
	if k < 0 && (k > -7 || exp < 4) {
		if offset := nd + k; offset <= 0 {
			dst = append(dst, '0', '.')
			for range -offset {
				dst = append(dst, '0')
			}
			dst = append(dst, digits...)
		} else {
			dst = append(dst, digits[:offset]...)
			dst = append(dst, '.')
			dst = append(dst, digits[offset:]...)
		}
		return dst
	}
	maxDigits := 18
	if neg {
		maxDigits = 17
	}
	nd = min(nd, maxDigits)
	dst = append(dst, digits[0])
	if nd > 1 {
		dst = append(dst, '.')
		dst = append(dst, digits[1:nd]...)
	}
	dst = append(dst, 'e')
	if k+nd-1 < 0 {
		dst = append(dst, '-')
	} else {
		dst = append(dst, '+')
	}
	return strconv.AppendInt(dst, int64(exp), 10)
}

// powersOf10 holds 10^k for k = -348, -340, ..., 340 as 64-bit normalised significands
// rounded to nearest, with binary exponents (checked by TestPowersOf10 with math/big).
var powersOf10 = [...]diyFp{
	{18054884314459144840, -1220},
	{13451937075301367670, -1193},
	{10022474136428063862, -1166},
	{14934650266808366570, -1140},
	{11127181549972568877, -1113},
	{16580792590934885855, -1087},
	{12353653155963782858, -1060},
	{18408377700990114895, -1034},
	{13715310171984221708, -1007},
	{10218702384817765436, -980},
	{15227053142812498563, -954},
	{11345038669416679861, -927},
	{16905424996341287883, -901},
	{12595523146049147757, -874},
	{9384396036005875287, -847},
	{13983839803942852151, -821},
	{10418772551374772303, -794},
	{15525180923007089351, -768},
	{11567161174868858868, -741},
	{17236413322193710309, -715},
	{12842128665889583758, -688},
	{9568131466127621947, -661},
	{14257626930069360058, -635},
	{10622759856335341974, -608},
	{15829145694278690180, -582},
	{11793632577567316726, -555},
	{17573882009934360870, -529},
	{13093562431584567480, -502},
	{9755464219737475723, -475},
	{14536774485912137811, -449},
	{10830740992659433045, -422},
	{16139061738043178685, -396},
	{12024538023802026127, -369},
	{17917957937422433684, -343},
	{13349918974505688015, -316},
	{9946464728195732843, -289},
	{14821387422376473014, -263},
	{11042794154864902060, -236},
	{16455045573212060422, -210},
	{12259964326927110867, -183},
	{18268770466636286478, -157},
	{13611294676837538539, -130},
	{10141204801825835212, -103},
	{15111572745182864684, -77},
	{11258999068426240000, -50},
	{16777216000000000000, -24},
	{12500000000000000000, 3},
	{9313225746154785156, 30},
	{13877787807814456755, 56},
	{10339757656912845936, 83},
	{15407439555097886824, 109},
	{11479437019748901445, 136},
	{17105694144590052135, 162},
	{12744735289059618216, 189},
	{9495567745759798747, 216},
	{14149498560666738074, 242},
	{10542197943230523224, 269},
	{15709099088952724970, 295},
	{11704190886730495818, 322},
	{17440603504673385349, 348},
	{12994262207056124023, 375},
	{9681479787123295682, 402},
	{14426529090290212157, 428},
	{10748601772107342003, 455},
	{16016664761464807395, 481},
	{11933345169920330789, 508},
	{17782069995880619868, 534},
	{13248674568444952270, 561},
	{9871031767461413346, 588},
	{14708983551653345445, 614},
	{10959046745042015199, 641},
	{16330252207878254650, 667},
	{12166986024289022870, 694},
	{18130221999122236476, 720},
	{13508068024458167312, 747},
	{10064294952495520794, 774},
	{14996968138956309548, 800},
	{11173611982879273257, 827},
	{16649979327439178909, 853},
	{12405201291620119593, 880},
	{9242595204427927429, 907},
	{13772540099066387757, 933},
	{10261342003245940623, 960},
	{15290591125556738113, 986},
	{11392378155556871081, 1013},
	{16975966327722178521, 1039},
	{12648080533535911531, 1066},
}
