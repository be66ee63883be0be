package lualib

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// OpenMath opens gopher-lua's math library into L's globals and replaces its
// functions with Lua 5.1's, which take numbers or strings holding numbers, and
// math.random and math.randomseed with Redis's: a 48-bit linear congruential
// generator (POSIX lrand48) that only math.randomseed seeds. Redis keeps one
// generator for the whole process and never reseeds it between scripts; here
// each state opened has its own, starting where lrand48 starts. The cost is O(1).
func OpenMath(L *lua.LState) {
	t := openLib(L, lua.MathLibName, lua.OpenMath)
	fns := map[string]lua.LGFunction{
		"abs":   mathAbs,
		"acos":  math1("acos", math.Acos, posNaN),
		"asin":  math1("asin", math.Asin, posNaN),
		"atan":  math1("atan", math.Atan, cNaN),
		"ceil":  math1("ceil", math.Ceil, cNaN),
		"cos":   math1("cos", math.Cos, cNaN),
		"cosh":  math1("cosh", math.Cosh, cNaN),
		"deg":   math1("deg", func(x float64) float64 { return x / (math.Pi / 180) }, cNaN),
		"exp":   math1("exp", math.Exp, cNaN),
		"floor": math1("floor", math.Floor, cNaN),
		"log":   math1("log", math.Log, cNaN),
		"log10": math1("log10", math.Log10, posNaN),
		"rad":   math1("rad", func(x float64) float64 { return x * (math.Pi / 180) }, cNaN),
		"sin":   math1("sin", math.Sin, cNaN),
		"sinh":  math1("sinh", math.Sinh, cNaN),
		"sqrt":  math1("sqrt", math.Sqrt, cNaN),
		"tan":   math1("tan", math.Tan, cNaN),
		"tanh":  math1("tanh", math.Tanh, cNaN),
		"atan2": math2("atan2", math.Atan2),
		"fmod":  math2("fmod", math.Mod),
		"mod":   math2("mod", math.Mod),
		"pow":   mathPow,
		"frexp": mathFrexp,
		"ldexp": mathLdexp,
		"max":   mathMinMax("max", func(a, b float64) bool { return a > b }),
		"min":   mathMinMax("min", func(a, b float64) bool { return a < b }),
		"modf":  mathModf,
	}
	r := &rand48{x: rand48Init}
	fns["random"] = r.random
	fns["randomseed"] = r.randomseed
	setFuncs(L, t, fns)
	t.RawSetString("pi", lua.LNumber(math.Pi))
	t.RawSetString("huge", lua.LNumber(math.Inf(1)))
}

// The NaNs of glibc's math functions, whose signs show in tostring ("nan",
// "-nan"): an invalid operation on numbers gives x86's NaN, cNaN, whose sign bit
// is set, except in the functions that build theirs (acos, asin, log10: posNaN);
// a NaN argument comes back as it was, except from fabs (which clears the
// sign) and pow (always posNaN).
var (
	cNaN   = math.Copysign(math.NaN(), -1)
	posNaN = math.Copysign(math.NaN(), 1)
)

// cResult is r as glibc returns it for args, invalid being the NaN of an
// invalid operation.
func cResult(r, invalid float64, args ...float64) float64 {
	if !math.IsNaN(r) {
		return r
	}
	for _, a := range args {
		if math.IsNaN(a) {
			return a
		}
	}
	return invalid
}

func math1(name string, f func(float64) float64, invalid float64) lua.LGFunction {
	return func(L *lua.LState) int {
		x := checkNumber(L, 1, name)
		L.Push(lua.LNumber(cResult(f(x), invalid, x)))
		return 1
	}
}

func math2(name string, f func(float64, float64) float64) lua.LGFunction {
	return func(L *lua.LState) int {
		x, y := checkNumber(L, 1, name), checkNumber(L, 2, name)
		L.Push(lua.LNumber(cResult(f(x, y), cNaN, x, y)))
		return 1
	}
}

func mathAbs(L *lua.LState) int {
	L.Push(lua.LNumber(math.Abs(checkNumber(L, 1, "abs"))))
	return 1
}

func mathPow(L *lua.LState) int {
	x, y := checkNumber(L, 1, "pow"), checkNumber(L, 2, "pow")
	r := math.Pow(x, y)
	if math.IsNaN(x) || math.IsNaN(y) {
		r = posNaN
	}
	L.Push(lua.LNumber(cResult(r, cNaN)))
	return 1
}

func mathMinMax(name string, better func(a, b float64) bool) lua.LGFunction {
	return func(L *lua.LState) int {
		m := checkNumber(L, 1, name)
		for i := 2; i <= L.GetTop(); i++ {
			if d := checkNumber(L, i, name); better(d, m) {
				m = d
			}
		}
		L.Push(lua.LNumber(m))
		return 1
	}
}

func mathFrexp(L *lua.LState) int {
	m, e := math.Frexp(checkNumber(L, 1, "frexp"))
	L.Push(lua.LNumber(m))
	L.Push(lua.LNumber(e))
	return 2
}

func mathLdexp(L *lua.LState) int {
	x := checkNumber(L, 1, "ldexp")
	L.Push(lua.LNumber(math.Ldexp(x, checkInt(L, 2, "ldexp"))))
	return 1
}

func mathModf(L *lua.LState) int {
	x := checkNumber(L, 1, "modf")
	ip, fp := math.Modf(x)
	if math.IsInf(x, 0) {
		fp = math.Copysign(0, x) // C's modf: an infinity has no fraction
	}
	L.Push(lua.LNumber(ip))
	L.Push(lua.LNumber(cResult(fp, cNaN, x)))
	return 2
}

// rand48 is POSIX lrand48's generator, as Redis's redisLrand48 has it: the state
// x advances as x = (0x5DEECE66D*x + 11) mod 2^48 and each number is its top 31
// bits.
type rand48 struct{ x uint64 }

const (
	rand48Init = 0x1234ABCD330E // lrand48's state before any seed
	rand48Max  = math.MaxInt32  // REDIS_LRAND48_MAX
)

func (r *rand48) next() int32 {
	r.x = (0x5DEECE66D*r.x + 0xB) & (1<<48 - 1)
	return int32(r.x >> 17)
}

func (r *rand48) randomseed(L *lua.LState) int {
	seed := uint32(checkInt(L, 1, "randomseed"))
	r.x = uint64(seed)<<16 | 0x330E
	return 0
}

func (r *rand48) random(L *lua.LState) int {
	f := float64(r.next()%rand48Max) / rand48Max
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(f))
	case 1:
		u := int32(checkInt(L, 1, "random"))
		if u < 1 {
			argError(L, 1, "random", "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(f*float64(u)) + 1))
	case 2:
		l := int32(checkInt(L, 1, "random"))
		u := int32(checkInt(L, 2, "random"))
		if l > u {
			argError(L, 2, "random", "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(f*float64(u-l+1)) + float64(l))) // int32 wraps as C's int does
	default:
		raise(L, "wrong number of arguments")
	}
	return 1
}
