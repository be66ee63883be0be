package zlite

import (
	"strconv"
	"strings"

	"github.com/zlite/zlite/set"
	"github.com/zlite/zlite/zset"
)

// ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD. zset_cmd.go holds their
// one parser (parseAlgebra), which the typed methods use too. The Do forms are in
// zset_cmd.go.

// setOp is a sorted-set algebra operation.
type setOp uint8

const (
	opUnion setOp = iota
	opInter
	opDiff
)

// zsets looks keys up for the algebra commands: nil for a missing key, a sorted set
// of its members with score 1 for a set (as Redis reads one), [ErrWrongType] for
// another type. name is the command, for numkeys < 1.
func (tx *Tx) zsets(name string, keys []string) ([]*zset.Set, error) {
	if len(keys) == 0 {
		return nil, errNoInputKeys(name)
	}
	sets := make([]*zset.Set, len(keys))
	for i, k := range keys {
		switch v := tx.read(k).(type) {
		case nil:
		case *zset.Set:
			sets[i] = v
		case *set.Set:
			z := zset.New()
			for m := range v.All() {
				_, _ = z.Add(zset.AddOptions{}, Z{Member: m, Score: 1})
			}
			sets[i] = z
		default:
			return nil, ErrWrongType
		}
	}
	return sets, nil
}

// parseAggregate parses AGGREGATE's argument, any case; "" is SUM.
func parseAggregate(s string) (zset.Aggregate, error) {
	switch {
	case s == "" || strings.EqualFold(s, "sum"):
		return zset.Sum, nil
	case strings.EqualFold(s, "min"):
		return zset.Min, nil
	case strings.EqualFold(s, "max"):
		return zset.Max, nil
	}
	return 0, ErrSyntax
}

// zCombine computes op over sets.
func zCombine(op setOp, sets []*zset.Set, weights []float64, agg zset.Aggregate) *zset.Set {
	switch op {
	case opUnion:
		return zset.Union(sets, weights, agg)
	case opInter:
		return zset.Inter(sets, weights, agg)
	}
	return zset.Diff(sets)
}

// zalgebra runs ZUNION or ZINTER (or their STORE forms) for the typed API, through
// the parser of Do, so that the checks and their order are Redis's for the words
// go-redis sends.
func (tx *Tx) zalgebra(name string, op setOp, store *ZStore) (*zset.Set, error) {
	al, err := tx.parseAlgebra(name, op, strings.HasSuffix(name, "store"), false, store.words())
	if err != nil {
		return nil, err
	}
	return al.combine(op), nil
}

// words returns store as the words go-redis sends for it: numkeys, the keys, then
// WEIGHTS and AGGREGATE when set.
func (z *ZStore) words() []string {
	a := make([]string, 0, 4+len(z.Keys)+len(z.Weights))
	a = append(a, strconv.Itoa(len(z.Keys)))
	a = append(a, z.Keys...)
	if len(z.Weights) > 0 {
		a = append(a, "WEIGHTS")
		for _, w := range z.Weights {
			a = append(a, strconv.FormatFloat(w, 'g', -1, 64))
		}
	}
	if z.Aggregate != "" {
		a = append(a, "AGGREGATE", z.Aggregate)
	}
	return a
}

// zEntries lists s in ascending order.
func zEntries(s *zset.Set) []Z {
	out := make([]Z, 0, s.Len())
	for m, f := range s.All() {
		out = append(out, Z{Member: m, Score: f})
	}
	return out
}

// zEntriesDesc lists s in descending order.
func zEntriesDesc(s *zset.Set) []Z {
	out := make([]Z, 0, s.Len())
	for m, f := range s.Backward() {
		out = append(out, Z{Member: m, Score: f})
	}
	return out
}

// storeSet stores s, the result of ZUNIONSTORE, ZINTERSTORE or ZDIFFSTORE (event), at dst
// (deleting dst when s is empty) and returns its size. A result that fits the small
// encoding is stored in it, turning -0 scores into 0, as Redis's
// zsetConvertToListpackIfNeeded does.
func (tx *Tx) storeSet(event, dst string, s *zset.Set) int64 {
	s.Compact()
	tx.store(event, EventsZSet, dst, s)
	return int64(s.Len())
}

// ZUnion is ZUNION: the members of any of store.Keys (missing keys are empty sets),
// each with the aggregate (SUM, MIN or MAX) of its weighted scores, in ascending
// order. A list among the keys is [ErrWrongType]; no keys is [ErrNoInputKeys]. The
// complexity is O(N + M log M) for N input members and M in the result.
//
//zlite:command zunion store.Keys...
func (tx *Tx) ZUnion(store ZStore) ([]string, error) {
	zs, err := tx.ZUnionWithScores(store)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}

// ZUnionWithScores is ZUNION ... WITHSCORES: [Tx.ZUnion] with the scores, at the
// same cost.
//
//zlite:command zunion store.Keys...
func (tx *Tx) ZUnionWithScores(store ZStore) ([]Z, error) {
	s, err := tx.zalgebra("zunion", opUnion, &store)
	if err != nil {
		return nil, err
	}
	return zEntries(s), nil
}

// ZUnionStore is ZUNIONSTORE: [Tx.ZUnion] stored as the sorted set dest (replacing
// any value; deleting dest when the result is empty); it returns the result's size.
// The complexity is that of [Tx.ZUnion].
//
//zlite:command zunionstore dest storeKeys(store)...
func (tx *Tx) ZUnionStore(dest string, store *ZStore) (int64, error) {
	if err := tx.writeErr(); err != nil {
		return 0, err
	}
	s, err := tx.zalgebra("zunionstore", opUnion, store)
	if err != nil {
		return 0, err
	}
	return tx.storeSet("zunionstore", dest, s), nil
}

// ZInter is ZINTER: the members in every one of store.Keys, each with the aggregate of
// its weighted scores, in ascending order. The complexity is O(N × K + M log M) for N
// members in the smallest of K sets.
//
//zlite:command zinter storeKeys(store)...
func (tx *Tx) ZInter(store *ZStore) ([]string, error) {
	zs, err := tx.ZInterWithScores(store)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}

// ZInterWithScores is ZINTER ... WITHSCORES: [Tx.ZInter] with the scores, at the
// same cost.
//
//zlite:command zinter storeKeys(store)...
func (tx *Tx) ZInterWithScores(store *ZStore) ([]Z, error) {
	s, err := tx.zalgebra("zinter", opInter, store)
	if err != nil {
		return nil, err
	}
	return zEntries(s), nil
}

// ZInterStore is ZINTERSTORE: [Tx.ZInter] stored as the sorted set destination
// (deleted when the result is empty); it returns the result's size. The complexity
// is that of [Tx.ZInter].
//
//zlite:command zinterstore destination storeKeys(store)...
func (tx *Tx) ZInterStore(destination string, store *ZStore) (int64, error) {
	if err := tx.writeErr(); err != nil {
		return 0, err
	}
	s, err := tx.zalgebra("zinterstore", opInter, store)
	if err != nil {
		return 0, err
	}
	return tx.storeSet("zinterstore", destination, s), nil
}

// ZInterCard is ZINTERCARD: the number of members in every one of keys, counting up
// to limit (0: no limit; negative: [ErrLimitNegative]). The complexity is O(N × K)
// for N members in the smallest of K sets, without building the intersection.
//
//zlite:command zintercard keys...
func (tx *Tx) ZInterCard(limit int64, keys ...string) (int64, error) {
	sets, err := tx.zsets("zintercard", keys)
	if err != nil {
		return 0, err
	}
	if limit < 0 {
		return 0, ErrLimitNegative
	}
	return int64(zset.InterCard(sets, clampInt(limit))), nil
}

// ZDiff is ZDIFF: the members of the first key that are in none of the others, with
// their scores, in ascending order. The complexity is that of [zset.Diff].
//
//zlite:command zdiff keys...
func (tx *Tx) ZDiff(keys ...string) ([]string, error) {
	zs, err := tx.ZDiffWithScores(keys...)
	if err != nil {
		return nil, err
	}
	return zMembers(zs), nil
}

// ZDiffWithScores is ZDIFF ... WITHSCORES: [Tx.ZDiff] with the scores, at the same
// cost.
//
//zlite:command zdiff keys...
func (tx *Tx) ZDiffWithScores(keys ...string) ([]Z, error) {
	sets, err := tx.zsets("zdiff", keys)
	if err != nil {
		return nil, err
	}
	return zEntries(zset.Diff(sets)), nil
}

// ZDiffStore is ZDIFFSTORE: [Tx.ZDiff] stored as the sorted set destination (deleted
// when the result is empty); it returns the result's size.
//
//zlite:command zdiffstore destination keys...
func (tx *Tx) ZDiffStore(destination string, keys ...string) (int64, error) {
	if err := tx.writeErr(); err != nil {
		return 0, err
	}
	sets, err := tx.zsets("zdiffstore", keys)
	if err != nil {
		return 0, err
	}
	return tx.storeSet("zdiffstore", destination, zset.Diff(sets)), nil
}
