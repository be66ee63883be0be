package zlite

import (
	"errors"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/zlite/zlite/list"
)

// SORT and SORT_RO, as Redis 7.0's sortCommandGeneric: the elements of a list, set
// or sorted set, ordered by their own values or by weights that a BY pattern reads
// from other keys, with LIMIT, GET patterns, ASC or DESC, ALPHA and STORE. The Do
// forms are in sort_cmd.go.
//
// What is not Redis's, each for a reason:
//   - ALPHA compares bytes: Redis compares with strcoll, which is byte order in the
//     C locales (C, C.UTF-8; the test server's) and not in others (en_US.UTF-8 folds
//     case). zlite follows the C locale, strcmp's cut at a NUL byte included.
//   - Ties that Redis leaves to its sort algorithm (ALPHA with BY, when two weights
//     are equal or both missing) keep the elements' order in the key: glibc's qsort
//     is stable as well, so lists agree; Redis's own partial quicksort (BY with a
//     LIMIT that drops elements) is not, and sets and sorted sets are read in their
//     hash table's order there.
//   - Sorting a small sorted set does not convert it to the skiplist encoding (Redis
//     does, even in SORT_RO: a read would become a write).
//   - Redis sorts a set with BY nosort in a script as if ALPHA were given (for
//     replication); zlite's scripts get the set's order, which is deterministic.
//   - A result that GETs would make longer than [WithMaxReplyElements] fails with
//     [ErrReplyTooLarge]: the caller chooses how many GETs there are, so the
//     result is not bounded by the data (Redis streams it).
//   - Redis 7.0 tests errno for strtod's ERANGE without clearing it first, so a
//     SORT by number may fail there because an earlier command (of any client)
//     left ERANGE behind (see TestSortCommands); zlite keeps no such state.

// Sort is SORT's options, as go-redis's Sort. By is the BY pattern ("" for none):
// '*' stands for the element, and "key->field" reads a hash field; a pattern without
// '*' ("nosort") leaves the elements in the key's order. Offset and Count are LIMIT,
// sent when either is not zero as go-redis does (so Offset 5 with Count 0 selects
// nothing; a negative Count means every element from Offset on). Get holds the GET
// patterns ("#" is the element itself). Order is "ASC", "DESC" or "" (ascending);
// anything else is [ErrSyntax]. Alpha compares as strings rather than numbers.
type Sort struct {
	By            string
	Offset, Count int64
	Get           []string
	Order         string
	Alpha         bool
}

// ErrSortNotDouble is SORT's reply when, without ALPHA, an element or its weight is
// not a number.
var ErrSortNotDouble = errors.New("ERR One or more scores can't be converted into double")

// sortOptions are SORT's options as Redis holds them after parsing.
type sortOptions struct {
	name     string // "sort" or "sort_ro", for errors
	by       string // the BY pattern, when hasBy
	hasBy    bool
	dontSort bool // a BY pattern without '*' was given (even before another BY)
	// offset and count are LIMIT's; count -1 (the default) means every element.
	offset, count int64
	gets          []string
	desc, alpha   bool
	store         string // the STORE destination, when hasStore
	hasStore      bool
}

// options converts go-redis's Sort to the options Redis would parse from the
// words go-redis sends for it.
func (s *Sort) options(name string) (sortOptions, error) {
	o := sortOptions{name: name, count: -1}
	if s == nil {
		return o, nil
	}
	if s.By != "" {
		o.setBy(s.By)
	}
	if s.Offset != 0 || s.Count != 0 {
		o.offset, o.count = s.Offset, s.Count
	}
	o.gets = s.Get
	switch w := cString(s.Order); {
	case s.Order == "":
	case strings.EqualFold(w, "asc"):
	case strings.EqualFold(w, "desc"):
		o.desc = true
	default:
		return o, ErrSyntax
	}
	o.alpha = s.Alpha
	return o, nil
}

// setBy records a BY pattern: one without '*' turns sorting off for good, as in
// Redis, even if a later BY has one.
func (o *sortOptions) setBy(pattern string) {
	o.by, o.hasBy = pattern, true
	if !strings.Contains(cString(pattern), "*") {
		o.dontSort = true
	}
}

// cString is s as C's string functions see it: up to its first NUL byte.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// Sort is SORT key with the options of sort (nil: none), without STORE: the
// elements of the list, set or sorted set at key (a missing key is an empty list),
// ordered as numbers (or as strings with Alpha), by the elements themselves or by the
// weights the By pattern names, then LIMIT, then for each element the values of the
// Get patterns ("" for a missing key or field; Do's reply has a null there), or the
// element itself without Get. Another type at key is [ErrWrongType]; an element or
// weight that is not a number without Alpha is [ErrSortNotDouble]; a missing weight
// counts as 0 (as less than any string with Alpha). The complexity is O(n log n)
// for n elements plus a key lookup per element and pattern.
//
// BY and GET patterns may name any key, so the DB method locks every shard; inside
// [DB.UpdateKeys] or [DB.ViewKeys] the keys they reach must be declared too.
//
//zlite:command sort *
func (tx *Tx) Sort(key string, sort *Sort) ([]string, error) {
	return tx.sortTyped("sort", key, sort)
}

// sortTyped is Sort and SortRO.
func (tx *Tx) sortTyped(name, key string, sort *Sort) ([]string, error) {
	o, err := sort.options(name)
	if err != nil {
		return nil, err
	}
	return tx.sortStrings(key, &o)
}

// SortRO is SORT_RO: [Tx.Sort], which never writes. The complexity is that of
// [Tx.Sort].
//
//zlite:command sort_ro *
func (tx *Tx) SortRO(key string, sort *Sort) ([]string, error) {
	return tx.sortTyped("sort_ro", key, sort)
}

// SortStore is SORT key ... STORE store: the result of [Tx.Sort] (with "" for each
// missing GET) becomes the list at store, replacing any value of any type and its
// TTL, or store is deleted when the result is empty; it returns the result's length.
// A set sorted with a By pattern without '*' is sorted as strings, as in Redis (the
// stored order must not be the hash table's). The complexity is that of [Tx.Sort].
//
//zlite:command sort *
func (tx *Tx) SortStore(key, store string, sort *Sort) (int64, error) {
	o, err := sort.options("sort")
	if err != nil {
		return 0, err
	}
	o.store, o.hasStore = store, true
	return tx.sortStore(key, &o)
}

// sortStrings runs SORT for the typed methods and STORE: "" for a missing GET.
func (tx *Tx) sortStrings(key string, o *sortOptions) ([]string, error) {
	elems, err := tx.sortedBounded(key, o)
	if err != nil {
		return nil, err
	}
	if len(o.gets) == 0 {
		return elems, nil
	}
	out := make([]string, 0, len(elems)*len(o.gets))
	for _, e := range elems {
		for _, g := range o.gets {
			v, _ := tx.sortLookup(g, e)
			out = append(out, v)
		}
	}
	return out, nil
}

// sortReply runs SORT without STORE for Do: nil for a missing GET.
func (tx *Tx) sortReply(key string, o *sortOptions) (any, error) {
	elems, err := tx.sortedBounded(key, o)
	if err != nil {
		return nil, err
	}
	if len(o.gets) == 0 {
		return stringsReply(elems), nil
	}
	out := make([]any, 0, len(elems)*len(o.gets))
	for _, e := range elems {
		for _, g := range o.gets {
			if v, ok := tx.sortLookup(g, e); ok {
				out = append(out, v)
			} else {
				out = append(out, nil)
			}
		}
	}
	return out, nil
}

// sortStore runs SORT with STORE o.store.
func (tx *Tx) sortStore(key string, o *sortOptions) (int64, error) {
	if err := tx.writeErr(); err != nil {
		return 0, err
	}
	vals, err := tx.sortStrings(key, o)
	if err != nil {
		return 0, err
	}
	l := list.New()
	l.PushBack(vals...)
	tx.store("sortstore", EventsList, o.store, l) // deletes o.store for an empty result
	return int64(len(vals)), nil
}

// sortedBounded is sorted, failing (after any error of Redis's) when the GETs
// would make the result longer than WithMaxReplyElements allows: the caller
// chooses how many GETs there are, so the result is not bounded by the data.
func (tx *Tx) sortedBounded(key string, o *sortOptions) ([]string, error) {
	elems, err := tx.sorted(key, o)
	if g, max := len(o.gets), tx.db.cfg.maxReply; err == nil && g > 1 && len(elems) > max/g {
		return nil, errReplyTooLarge(o.name, max)
	}
	return elems, err
}

// The kinds of value SORT reads.
const (
	sortList = iota
	sortSet
	sortZSet
)

// sortItem is one element of the vector SORT sorts, with its weight.
type sortItem struct {
	elem   string
	score  float64 // without ALPHA
	weight string  // with ALPHA and BY, when hasW
	hasW   bool
}

// sorted returns the elements SORT outputs, in order, after LIMIT (the GET patterns
// are applied by the caller), as sortCommandGeneric: the key's type is checked, the
// LIMIT clamped to the elements present, the elements read (only LIMIT's range when
// a list or sorted set is not sorted), their weights read and parsed, and the vector
// sorted.
func (tx *Tx) sorted(key string, o *sortOptions) ([]string, error) {
	kind, n, err := tx.sortSource(key)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return []string{}, nil // a missing key: read once, as in Redis
	}
	dontSort, alpha, hasBy := o.dontSort, o.alpha, o.hasBy
	if dontSort && kind == sortSet && o.hasStore {
		// A set's order is its hash table's: what is stored is sorted instead.
		dontSort, alpha, hasBy = false, true, false
	}

	// LIMIT, clamped to the elements present as Redis does.
	start := min(max(o.offset, 0), n)
	count := min(max(o.count, -1), n)
	end := n - 1
	if count >= 0 {
		end = start + count - 1
	}
	if start >= n {
		start, end = n-1, n-2
	}
	end = min(end, n-1)

	if dontSort && kind != sortSet {
		// The key's own order (reversed by DESC), only the range LIMIT selects.
		if end < start {
			return []string{}, nil
		}
		switch {
		case kind == sortZSet && o.desc:
			return tx.ZRevRange(key, start, end)
		case kind == sortZSet:
			return tx.ZRange(key, start, end)
		case o.desc:
			r, err := tx.LRange(key, n-1-end, n-1-start)
			slices.Reverse(r)
			return r, err
		}
		return tx.LRange(key, start, end)
	}

	var elems []string
	switch kind {
	case sortList:
		elems, err = tx.LRange(key, 0, -1)
	case sortSet:
		elems, err = tx.SMembers(key)
	case sortZSet:
		elems, err = tx.ZRange(key, 0, -1)
	}
	if err != nil {
		return nil, err
	}
	if !dontSort {
		if err := tx.sortVector(elems, o, alpha, hasBy); err != nil {
			return nil, err
		}
	}
	if end < start {
		return []string{}, nil
	}
	return elems[start : end+1], nil
}

// sortSource checks the type of the value at key and returns its kind and length:
// a missing key is an empty list.
func (tx *Tx) sortSource(key string) (kind int, n int64, err error) {
	t, _ := tx.Type(key)
	switch t {
	case "none":
		return sortList, 0, nil
	case "list":
		l, _ := tx.listRead(key)
		return sortList, int64(l.Len()), nil
	case "set":
		s, _ := tx.setRead(key)
		return sortSet, int64(s.Len()), nil
	case "zset":
		z, _ := tx.zsetRead(key)
		return sortZSet, int64(z.Len()), nil
	}
	return 0, 0, ErrWrongType
}

// sortVector sorts elems in place as Redis's sortCompare orders them: by number
// (ties by the elements' bytes), or with alpha by the weights as strings (a
// missing weight first; ties keep their order) or by the elements as strings;
// DESC reverses the comparison. Every weight is read and parsed before the
// sort, as in Redis, which then replies ErrSortNotDouble if one was not a number.
func (tx *Tx) sortVector(elems []string, o *sortOptions, alpha, hasBy bool) error {
	items := make([]sortItem, len(elems))
	bad := false
	for i, e := range elems {
		items[i].elem = e
		w, ok := e, true
		if hasBy {
			w, ok = tx.sortLookup(o.by, e)
		}
		switch {
		case !ok:
			// a missing weight: 0, or less than any string with ALPHA
		case alpha:
			items[i].weight, items[i].hasW = w, hasBy
		default:
			f, ok := sortWeight(w)
			items[i].score = f
			bad = bad || !ok
		}
	}
	if bad {
		return ErrSortNotDouble
	}
	// Without STORE Redis compares strings with strcoll, which stops at a NUL byte;
	// with STORE it compares every byte.
	str := func(a, b string) int {
		if o.hasStore {
			return strings.Compare(a, b)
		}
		return strings.Compare(cString(a), cString(b))
	}
	cmp := func(a, b *sortItem) int {
		switch {
		case !alpha:
			if c := compareFloats(a.score, b.score); c != 0 {
				return c
			}
			return strings.Compare(a.elem, b.elem)
		case !hasBy:
			return str(a.elem, b.elem)
		case !a.hasW || !b.hasW:
			return boolCmp(a.hasW, b.hasW)
		}
		return str(a.weight, b.weight)
	}
	slices.SortStableFunc(items, func(a, b sortItem) int {
		if o.desc {
			return -cmp(&a, &b)
		}
		return cmp(&a, &b)
	})
	for i := range items {
		elems[i] = items[i].elem
	}
	return nil
}

// compareFloats orders two numbers (never NaN; -0 equals 0).
func compareFloats(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// boolCmp orders false before true.
func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// sortLookup is Redis's lookupKeyByPattern: "#" (or "#" then a NUL byte) is subst
// itself; otherwise the first '*' of pattern (before any NUL) is replaced by subst
// to name a key, whose string value it returns, or, when "->" and a field follow
// the '*', the key's hash field. A pattern without '*', a missing key or field, or
// a key of another type (a hash for a plain pattern, anything but a hash for a
// field) is not found.
func (tx *Tx) sortLookup(pattern, subst string) (string, bool) {
	if len(pattern) > 0 && pattern[0] == '#' && (len(pattern) == 1 || pattern[1] == 0) {
		return subst, true
	}
	c := cString(pattern)
	star := strings.IndexByte(c, '*')
	if star < 0 {
		return "", false
	}
	rest := pattern[star+1:]
	field, hasField := "", false
	if f := strings.Index(c[star+1:], "->"); f >= 0 && star+1+f+2 < len(c) {
		field, hasField = rest[f+2:], true
		rest = rest[:f]
	}
	key := pattern[:star] + subst + rest
	var v string
	var ok bool
	var err error
	if hasField {
		v, ok, err = tx.HGet(key, field)
	} else {
		v, ok, err = tx.Get(key)
	}
	return v, ok && err == nil
}

// sortWeight parses a SORT weight as Redis does with C's strtod (glibc's): leading
// white space, a sign, then a decimal or hexadecimal ("0x1.8p3") number, "inf" or
// "infinity" in any case; the whole string must be read, or up to a NUL byte, and
// the empty string is 0 (nothing read, and nothing left). NaN and a result that
// overflows, or underflows (a subnormal or zero result that is inexact), fail, as
// strtod's ERANGE makes Redis fail them.
func sortWeight(s string) (float64, bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i]-'\t' <= '\r'-'\t') {
		i++
	}
	j := i
	neg := false
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		neg = s[j] == '-'
		j++
	}
	var f float64
	end, erange := 0, false // end 0: nothing read
	switch r := s[j:]; {
	case hasPrefixFold(r, "nan"):
		return 0, false
	case hasPrefixFold(r, "inf"):
		f, end = math.Inf(1), j+3
		if hasPrefixFold(s[end:], "inity") {
			end += 5
		}
	case len(r) > 2 && r[0] == '0' && r[1]|0x20 == 'x' && (isHex(r[2]) || r[2] == '.' && len(r) > 3 && isHex(r[3])):
		f, end, erange = strtodHex(s, j+2)
	default:
		f, end, erange = strtodDec(s, j)
	}
	if erange || end < len(s) && s[end] != 0 {
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

// hasPrefixFold reports whether s starts with the lower-case ASCII prefix p, in any
// case.
func hasPrefixFold(s, p string) bool {
	return len(s) >= len(p) && strings.EqualFold(s[:len(p)], p)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f' }

// strtodDec reads the unsigned decimal number at s[j:]: digits with an optional
// point (at least one digit), then an exponent when one is complete. It returns the
// nearest double, the end of what was read (0 when nothing was) and whether strtod
// would set ERANGE.
func strtodDec(s string, j int) (f float64, end int, erange bool) {
	k := j
	for k < len(s) && isDigit(s[k]) {
		k++
	}
	digits := k - j
	point := k
	if k < len(s) && s[k] == '.' {
		k++
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		digits += k - point - 1
	}
	if digits == 0 {
		return 0, 0, false
	}
	mantEnd := k
	exp, k := exponent(s, k, 'e', 1e9)
	f, err := strconv.ParseFloat(s[j:k], 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, 0, false // not reached: the text is a well-formed number
	}
	switch a := math.Abs(f); {
	case math.IsInf(f, 0):
		return f, k, true
	case a > math.SmallestNonzeroFloat64*(1<<52) || !strings.ContainsAny(s[j:mantEnd], "123456789"):
		return f, k, false // normal and above the least normal, or exactly zero
	case a == 0:
		return f, k, true
	}
	// Subnormal, or the least normal: the value as a fraction, its digits cut
	// after the 1200th significant one (those below any double's last digit).
	mant := strings.Replace(s[j:mantEnd], ".", "", 1)
	scale := exp
	if point < mantEnd {
		scale -= int64(mantEnd - point - 1)
	}
	mant = strings.TrimLeft(mant, "0")
	sticky := false
	if len(mant) > 1200 {
		sticky = strings.ContainsAny(mant[1200:], "123456789")
		scale += int64(len(mant) - 1200)
		mant = mant[:1200]
	}
	if scale > 0 || scale < -4000 {
		return f, k, true // not reached for a value this small
	}
	m, _ := new(big.Int).SetString(mant, 10)
	x := new(big.Rat).SetFrac(m, new(big.Int).Exp(big.NewInt(10), big.NewInt(-scale), nil))
	exact := !sticky && x.Cmp(new(big.Rat).SetFloat64(math.Abs(f))) == 0
	return f, k, tiny(exact, math.Abs(f), x.Cmp(tinyBound()) < 0)
}

// strtodHex reads the hexadecimal digits, optional point and optional binary
// exponent at s[j:] (after "0x"), which start with a digit or a point and a digit,
// as strtodDec does decimals.
func strtodHex(s string, j int) (f float64, end int, erange bool) {
	k := j
	for k < len(s) && isHex(s[k]) {
		k++
	}
	digits := s[j:k]
	var frac int64
	if k < len(s) && s[k] == '.' {
		p := k + 1
		for k = p; k < len(s) && isHex(s[k]); k++ {
		}
		digits += s[p:k]
		frac = int64(k - p)
	}
	exp, k := exponent(s, k, 'p', 1e12)
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return 0, k, false
	}
	m, _ := new(big.Int).SetString(digits, 16)
	x := new(big.Float).SetInt(m)
	x.SetMantExp(x, int(max(min(exp-4*frac, 1<<40), -1<<40)))
	f, acc := x.Float64()
	switch a := math.Abs(f); {
	case math.IsInf(f, 0) || a == 0:
		return f, k, true
	case a > math.SmallestNonzeroFloat64*(1<<52):
		return f, k, false
	}
	bound := new(big.Float).SetPrec(64).SetRat(tinyBound()) // 54 bits: exact
	return f, k, tiny(acc == big.Exact, math.Abs(f), x.Cmp(bound) < 0)
}

// tiny is glibc's underflow test for a result a (subnormal, or the least normal)
// of a value that is exact or not: ERANGE when inexact and tiny after rounding (as
// x86 detects tininess), which for the least normal means the value was below the
// midpoint between it and the largest double of one bit less precision
// (belowBound).
func tiny(exact bool, a float64, belowBound bool) bool {
	if exact {
		return false
	}
	if a < math.SmallestNonzeroFloat64*(1<<52) {
		return true
	}
	return belowBound
}

// tinyBound is 2^-1022 - 2^-1076: below it, a value rounded to 53 bits with an
// unbounded exponent is below the least normal double.
func tinyBound() *big.Rat {
	return new(big.Rat).SetFrac(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 54), big.NewInt(1)),
		new(big.Int).Lsh(big.NewInt(1), 1076))
}

// exponent parses the exponent after a mantissa: when s[k] is marker (e or p, in
// any case) and a sign and digits follow, it returns their value, its magnitude
// capped once it reaches limit (as strtod saturates), and the index after them;
// else 0 and k.
func exponent(s string, k int, marker byte, limit int64) (int64, int) {
	if k >= len(s) || s[k]|0x20 != marker {
		return 0, k
	}
	e := k + 1
	neg := false
	if e < len(s) && (s[e] == '+' || s[e] == '-') {
		neg = s[e] == '-'
		e++
	}
	if e >= len(s) || !isDigit(s[e]) {
		return 0, k
	}
	var exp int64
	for ; e < len(s) && isDigit(s[e]); e++ {
		if exp < limit {
			exp = exp*10 + int64(s[e]-'0')
		}
	}
	if neg {
		exp = -exp
	}
	return exp, e
}
