package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// manyKind is what the keys of a many-keys shape hold.
type manyKind int

// The kinds of the many-keys shapes. Elements are the members member:%07d (0..n-1)
// unless stated otherwise.
const (
	manyZSet    manyKind = iota // sorted sets, scores 0..n-1
	manyList                    // lists
	manyString                  // strings of 16 bytes written by SET; n is 1
	manyCounter                 // counters written by one INCR each; n is 1
	manyHash                    // hashes: fields member:%07d, values of 8 bytes
	manySet                     // sets
	manyIntSet                  // sets of the integers 0, 1000, ..., 1000(n-1)
	manyStamps                  // hashes: fields member:%07d, 16-digit Unix-µs times
)

// manyKindNames are each kind's row-ID fragment, its title in the plural and in
// the singular, and the name of its elements.
var manyKindNames = [...]struct{ id, title, one, elems string }{
	manyZSet:    {"zset", "sorted sets", "sorted set", "members"},
	manyList:    {"list", "lists", "list", "values"},
	manyString:  {"string", "strings (16-byte values, SET)", "string", ""},
	manyCounter: {"counter", "counters (INCR once each)", "counter", ""},
	manyHash:    {"hash", "hashes", "hash", "fields"},
	manySet:     {"set", "sets", "set", "members"},
	manyIntSet:  {"intset", "integer sets", "integer set", "members"},
	manyStamps:  {"stamps", "hashes of timestamps", "hash of timestamps", "fields"},
}

// manyShape is one shape of the many-keys memory rows: keys values of kind, of n
// elements each.
type manyShape struct {
	kind    manyKind
	keys, n int
}

// manyShapes returns the shapes whose memory per key and per element is measured,
// for keys keys (100k by default): keys × 1, keys × 10 and keys/10 × 100 sorted sets,
// keys × 1 and keys × 10 lists; 10·keys strings and as many counters; keys × 10
// hashes, sets and integer sets; keys × 4 hashes of timestamps (a job's metadata);
// one hash and one set of 10·keys elements.
func manyShapes(keys int) []manyShape {
	return []manyShape{
		{manyZSet, keys, 1}, {manyZSet, keys, 10}, {manyZSet, max(1, keys/10), 100},
		{manyList, keys, 1}, {manyList, keys, 10},
		{manyString, 10 * keys, 1}, {manyCounter, 10 * keys, 1},
		{manyHash, keys, 10}, {manySet, keys, 10}, {manyIntSet, keys, 10}, {manyStamps, keys, 4},
		{manyHash, 1, 10 * keys}, {manySet, 1, 10 * keys},
	}
}

// manyLoad is the data of the many-keys throughput rows: keys sorted sets and as
// many lists, of 10 elements each.
func manyLoad(keys int) manyShape { return manyShape{keys: keys, n: 10} }

// defaultManyKeys is the default number of keys of the many-keys group.
const defaultManyKeys = 100_000

func (sh manyShape) title() string {
	k := manyKindNames[sh.kind]
	switch {
	case sh.keys == 1:
		return fmt.Sprintf("one %s of %s %s", k.one, sizeText(sh.n), k.elems)
	case sh.kind == manyString || sh.kind == manyCounter:
		return fmt.Sprintf("%s: %s keys", k.title, sizeText(sh.keys))
	}
	return fmt.Sprintf("%s: %s keys × %d", k.title, sizeText(sh.keys), sh.n)
}

func (sh manyShape) id() string {
	return fmt.Sprintf("manykeys-memory-%s-%dx%d", manyKindNames[sh.kind].id, sh.keys, sh.n)
}

// metrics returns the figures reported for sh: memory per key and per element, but
// only per key for the strings and counters (their one element is the key) and only
// per element for a single key (the key's share is nil).
func (sh manyShape) metrics() []Metric {
	switch {
	case sh.keys == 1:
		return []Metric{BytesPerElem}
	case sh.kind == manyString || sh.kind == manyCounter:
		return []Metric{BytesPerKey}
	}
	return []Metric{BytesPerKey, BytesPerElem}
}

// manyKeyName is the name of key i of the many-keys group; prefix keeps systems
// sharing a server apart ("" for the memory rows, which run one system at a time).
func manyKeyName(prefix string, i int) string { return fmt.Sprintf("%suser:%08d", prefix, i) }

// manyMember is member (or list element, or hash field) j of every key.
func manyMember(j int) string { return fmt.Sprintf("member:%07d", j) }

// manyValue is the 16-byte value of string key i.
func manyValue(i int) string { return fmt.Sprintf("value:%010d", i) }

// manyFieldValue is the 8-byte value of hash field j (9 bytes from j = 1,000,000).
func manyFieldValue(j int) string { return fmt.Sprintf("v:%06d", j) }

// manyStamp is the value of field j of key i of the hashes of timestamps: a Unix
// time in microseconds, 16 digits, which Redis and zlite hold as an integer.
func manyStamp(i, j int) string { return strconv.FormatInt(1796651992156622+int64(4*i+j), 10) }

// element is element j of every key of sh, for the kinds whose elements are single
// strings (lists and sets).
func (sh manyShape) element(j int) string {
	if sh.kind == manyIntSet {
		return strconv.Itoa(1000 * j)
	}
	return manyMember(j)
}

// fillMany builds sh on s under prefix, with freshly formatted strings (so an
// in-process system holds the only copy of what it stores): key i holds elements
// 0..n-1 (see [manyKind]). A key's elements go in commands of at most fillBatch,
// each key's in order, and the commands in calls of about 100·fillBatch elements.
func fillMany(ctx context.Context, s System, prefix string, sh manyShape) error {
	per := min(sh.n, fillBatch)       // elements per command
	chunks := (sh.n + per - 1) / per  // commands per key
	step := max(1, 100*fillBatch/per) // commands per call
	total := sh.keys * chunks
	for lo := 0; lo < total; lo += step {
		hi := min(lo+step, total)
		keys := make([]string, 0, hi-lo)
		// ranges[c] is the [from, to) of the elements of command c of the call.
		ranges := make([][2]int, 0, hi-lo)
		for c := lo; c < hi; c++ {
			i, from := c/chunks, c%chunks*per
			keys = append(keys, manyKeyName(prefix, i))
			ranges = append(ranges, [2]int{from, min(from+per, sh.n)})
		}
		var err error
		switch sh.kind {
		case manyZSet:
			zs := make([][]Z, len(keys))
			for c, r := range ranges {
				zs[c] = make([]Z, 0, r[1]-r[0])
				for j := r[0]; j < r[1]; j++ {
					zs[c] = append(zs[c], Z{Member: manyMember(j), Score: float64(j)})
				}
			}
			err = s.ZAddKeys(ctx, keys, zs)
		case manyString:
			values := make([]string, len(keys))
			for c := range values {
				values[c] = manyValue(lo + c)
			}
			err = s.SetKeys(ctx, keys, values)
		case manyCounter:
			err = s.IncrKeys(ctx, keys)
		case manyHash, manyStamps:
			pairs := make([][]string, len(keys))
			for c, r := range ranges {
				pairs[c] = make([]string, 0, 2*(r[1]-r[0]))
				for j := r[0]; j < r[1]; j++ {
					v := manyFieldValue(j)
					if sh.kind == manyStamps {
						v = manyStamp((lo+c)/chunks, j)
					}
					pairs[c] = append(pairs[c], manyMember(j), v)
				}
			}
			err = s.HSetKeys(ctx, keys, pairs)
		default: // lists and sets
			vs := make([][]string, len(keys))
			for c, r := range ranges {
				vs[c] = make([]string, 0, r[1]-r[0])
				for j := r[0]; j < r[1]; j++ {
					vs[c] = append(vs[c], sh.element(j))
				}
			}
			if sh.kind == manyList {
				err = s.RPushKeys(ctx, keys, vs)
			} else {
				err = s.SAddKeys(ctx, keys, vs)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// delMany deletes the keys of sh under prefix.
func delMany(ctx context.Context, s System, prefix string, sh manyShape) error {
	for lo := 0; lo < sh.keys; lo += fillBatch {
		keys := make([]string, 0, fillBatch)
		for i := lo; i < min(lo+fillBatch, sh.keys); i++ {
			keys = append(keys, manyKeyName(prefix, i))
		}
		if err := s.Del(ctx, keys...); err != nil {
			return err
		}
	}
	return nil
}

// manyOp is a many-keys throughput workload: one command per element, each on a
// random key among the small keys of [manyLoad].
type manyOp struct {
	id, title string
	bounded   bool // changes the data's size (see [newMeter])
	run       func(ctx context.Context, s System, k *manyKeys, pos, n int) (restore func() error, err error)
}

var manyOps = []manyOp{
	{id: "manykeys-zadd", title: "ZADD (update score), random key",
		run: func(ctx context.Context, s System, k *manyKeys, pos, n int) (func() error, error) {
			return nil, s.ZAdd(ctx, k.zsets[pos:pos+n], k.updates[pos:pos+n])
		}},
	{id: "manykeys-zscore", title: "ZSCORE, random key",
		run: func(ctx context.Context, s System, k *manyKeys, pos, n int) (func() error, error) {
			return nil, s.ZScore(ctx, k.zsets[pos:pos+n], k.members[pos:pos+n])
		}},
	{id: "manykeys-zrank", title: "ZRANK, random key",
		run: func(ctx context.Context, s System, k *manyKeys, pos, n int) (func() error, error) {
			return nil, s.ZRank(ctx, k.zsets[pos:pos+n], k.members[pos:pos+n], false)
		}},
	{id: "manykeys-zrange", title: "ZRANGE 0 -1, random key",
		run: func(ctx context.Context, s System, k *manyKeys, pos, n int) (func() error, error) {
			return nil, s.ZRange(ctx, k.zsets[pos:pos+n])
		}},
	{id: "manykeys-zpopmin", title: "ZPOPMIN, random key", bounded: true,
		run: func(ctx context.Context, s System, k *manyKeys, pos, n int) (func() error, error) {
			keys := k.zsets[pos : pos+n]
			popped, err := s.ZPopMin(ctx, keys)
			return func() error { return s.ZAdd(ctx, keys[:len(popped)], popped) }, err
		}},
	{id: "manykeys-lpush-rpop", title: "LPUSH + RPOP, random key",
		run: func(ctx context.Context, s System, k *manyKeys, pos, n int) (func() error, error) {
			return nil, s.LPushRPop(ctx, k.lists[pos:pos+n], k.members[pos:pos+n])
		}},
}

// manyKeys holds one system's arguments for the many-keys workloads: window random
// keys (sorted sets and lists), members of them and score updates.
type manyKeys struct {
	prefix       string
	zsets, lists []string
	members      []string
	updates      []Z // updates[i] is a member of zsets[i] with a new score
}

// newManyKeys draws the arguments of the many-keys workloads on load for the
// system named name; every system draws the same ones.
func newManyKeys(name string, load manyShape) *manyKeys {
	k := &manyKeys{prefix: "bench:" + name + ":"}
	zsets, lists, members := map[int]string{}, map[int]string{}, map[int]string{}
	named := func(names map[int]string, i int, name func(int) string) string {
		if _, ok := names[i]; !ok {
			names[i] = name(i)
		}
		return names[i]
	}
	r := rand.New(rand.NewPCG(seed, uint64(load.keys)))
	for range window {
		i, j := r.IntN(load.keys), r.IntN(load.n)
		k.zsets = append(k.zsets, named(zsets, i, func(i int) string { return manyKeyName(k.prefix+"z:", i) }))
		k.lists = append(k.lists, named(lists, i, func(i int) string { return manyKeyName(k.prefix+"l:", i) }))
		m := named(members, j, manyMember)
		k.members = append(k.members, m)
		k.updates = append(k.updates, Z{Member: m, Score: float64(r.IntN(load.n)) + 0.5})
	}
	return k
}

// runManyKeys adds the many-keys rows: memory per key and per element at every
// shape of manyShapes, then the throughput of manyOps among cfg.ManyKeys small keys,
// then that of kvOps among the strings, counters, hashes and sets of [kvLoads].
func runManyKeys(ctx context.Context, cfg *Config, r *Report) error {
	for _, sh := range manyShapes(cfg.ManyKeys) {
		var rows []Row
		for _, m := range sh.metrics() {
			rows = append(rows, Row{Group: "manykeys", Workload: sh.title(), ID: sh.id(), N: sh.n, Keys: sh.keys, Metric: m, Values: map[string]float64{}})
		}
		for _, s := range cfg.Systems {
			cfg.progress("%-28s %-10s building", sh.id(), s.Name())
			delta, ok, err := memoryDelta(ctx, s,
				func() error { return fillMany(ctx, s, "", sh) },
				func() error { return delMany(ctx, s, "", sh) })
			if err != nil {
				return fmt.Errorf("%s %s: %w", sh.id(), s.Name(), err)
			}
			if !ok {
				continue
			}
			var figures []string
			for _, row := range rows {
				per := sh.keys
				if row.Metric == BytesPerElem {
					per *= sh.n
				}
				row.Values[s.Name()] = float64(delta) / float64(per)
				figures = append(figures, formatValue(row.Metric, row.Values[s.Name()]))
			}
			cfg.progress("%-28s %-10s %s", sh.id(), s.Name(), strings.Join(figures, ", "))
		}
		r.Rows = append(r.Rows, rows...)
		cfg.bar.finished()
	}

	ks := make([]*manyKeys, len(cfg.Systems))
	load := manyLoad(cfg.ManyKeys)
	zsets, lists := load, load
	lists.kind = manyList
	for i, s := range cfg.Systems {
		cfg.progress("filling %s keys × %d on %s", sizeText(load.keys), load.n, s.Name())
		ks[i] = newManyKeys(s.Name(), load)
		if err := fillMany(ctx, s, ks[i].prefix+"z:", zsets); err != nil {
			return fmt.Errorf("%s: fill: %w", s.Name(), err)
		}
		if err := fillMany(ctx, s, ks[i].prefix+"l:", lists); err != nil {
			return fmt.Errorf("%s: fill: %w", s.Name(), err)
		}
	}
	for _, op := range manyOps {
		row := Row{Group: "manykeys", Workload: op.title, ID: op.id, N: load.n, Keys: load.keys, Metric: OpsPerSec, Values: map[string]float64{}}
		err := measureOps(ctx, cfg, &row, func() *meter { return newMeter(op.bounded, load.keys, window) }, func(i int, s System) batch {
			return func(pos, k int) (func() error, error) { return op.run(ctx, s, ks[i], pos, k) }
		})
		if err != nil {
			return fmt.Errorf("%s: %w", op.id, err)
		}
		r.Rows = append(r.Rows, row)
	}
	for i, s := range cfg.Systems {
		if err := delMany(ctx, s, ks[i].prefix+"z:", zsets); err != nil {
			return err
		}
		if err := delMany(ctx, s, ks[i].prefix+"l:", lists); err != nil {
			return err
		}
	}
	return runManyKV(ctx, cfg, r)
}
