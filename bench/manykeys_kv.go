package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
)

// kvLoad is the data of the many-keys throughput rows on strings, hashes and sets,
// built as the memory rows of the same kinds are (see [fillMany]): for keys keys
// (100k by default), 10·keys strings of 16 bytes and as many counters, keys hashes of
// 10 fields and keys sets of 10 members.
type kvLoad struct{ strs, counters, hashes, sets manyShape }

func newKVLoad(keys int) *kvLoad {
	return &kvLoad{
		strs:     manyShape{manyString, 10 * keys, 1},
		counters: manyShape{manyCounter, 10 * keys, 1},
		hashes:   manyShape{manyHash, keys, 10},
		sets:     manyShape{manySet, keys, 10},
	}
}

// kvPart is one part of a kvLoad: a shape and the prefix its keys take after a
// system's own.
type kvPart struct {
	prefix string
	sh     manyShape
}

// parts returns the parts of l, in the order they are built.
func (l *kvLoad) parts() []kvPart {
	return []kvPart{{"str:", l.strs}, {"ctr:", l.counters}, {"hash:", l.hashes}, {"set:", l.sets}}
}

// shape returns the part of l whose keys hold kind.
func (l *kvLoad) shape(kind manyKind) manyShape {
	for _, p := range l.parts() {
		if p.sh.kind == kind {
			return p.sh
		}
	}
	panic(fmt.Sprintf("bench: no %s in the many-keys load", manyKindNames[kind].id))
}

// mgetKeys is the number of keys of each MGET of the kvOps.
const mgetKeys = 10

// kvKeys holds one system's arguments for the kvOps: window random keys of each
// part of the load, with the other arguments of their commands.
type kvKeys struct {
	prefix   string
	strs     []string   // random string keys; window+mgetKeys-1 of them
	values   []string   // 16-byte values for SET on strs[i]
	mget     [][]string // mgetKeys random string keys: windows of strs
	counters []string   // random counter keys
	hashes   []string   // random hash keys
	fields   []string   // existing fields of hashes[i]
	fvalues  []string   // new 8-byte values of fields[i]
	sets     []string   // random set keys
	members  []string   // existing members of sets[i]
	fresh    []string   // members of no set, distinct, for SADD on sets[i]
}

// newKVKeys draws the arguments of the kvOps on l for the system named name; every
// system draws the same ones.
func newKVKeys(name string, l *kvLoad) *kvKeys {
	k := &kvKeys{prefix: "bench:" + name + ":"}
	names := map[string]string{} // one string per distinct argument
	named := func(s string) string {
		if t, ok := names[s]; ok {
			return t
		}
		names[s] = s
		return s
	}
	key := func(part string, i int) string { return named(manyKeyName(k.prefix+part, i)) }
	r := rand.New(rand.NewPCG(seed, uint64(l.strs.keys)<<1|1))
	for range window + mgetKeys - 1 {
		k.strs = append(k.strs, key("str:", r.IntN(l.strs.keys)))
	}
	for i := range window {
		k.values = append(k.values, named(manyValue(r.IntN(l.strs.keys))))
		// Command i's keys start 10·i along strs, so that nearby commands share no key.
		o := mgetKeys * i % window
		k.mget = append(k.mget, k.strs[o:o+mgetKeys:o+mgetKeys])
		k.counters = append(k.counters, key("ctr:", r.IntN(l.counters.keys)))
		j := r.IntN(l.hashes.n)
		k.hashes = append(k.hashes, key("hash:", r.IntN(l.hashes.keys)))
		k.fields = append(k.fields, named(manyMember(j)))
		k.fvalues = append(k.fvalues, named(manyFieldValue(r.IntN(l.hashes.n))))
		j = r.IntN(l.sets.n)
		k.sets = append(k.sets, key("set:", r.IntN(l.sets.keys)))
		k.members = append(k.members, named(manyMember(j)))
		k.fresh = append(k.fresh, fmt.Sprintf("fresh:%08d", i))
	}
	return k
}

// kvOp is a many-keys throughput workload on strings, counters, hashes or sets: one
// command per element, each on a random key of the part of [kvLoad] holding load.
type kvOp struct {
	id, title string
	load      manyKind // manyString, manyCounter, manyHash or manySet
	bounded   bool     // changes the data's size (see [newMeter])
	run       func(ctx context.Context, s System, k *kvKeys, pos, n int) (restore func() error, err error)
}

var kvOps = []kvOp{
	{id: "manykeys-get", title: "GET, random key", load: manyString,
		run: func(ctx context.Context, s System, k *kvKeys, pos, n int) (func() error, error) {
			return nil, s.Get(ctx, k.strs[pos:pos+n])
		}},
	{id: "manykeys-set", title: "SET (overwrite, 16 bytes), random key", load: manyString,
		run: func(ctx context.Context, s System, k *kvKeys, pos, n int) (func() error, error) {
			return nil, s.Set(ctx, k.strs[pos:pos+n], k.values[pos:pos+n])
		}},
	{id: "manykeys-incr", title: "INCR, random key", load: manyCounter,
		run: func(ctx context.Context, s System, k *kvKeys, pos, n int) (func() error, error) {
			return nil, s.Incr(ctx, k.counters[pos:pos+n])
		}},
	{id: "manykeys-hset", title: "HSET (update field), random key", load: manyHash,
		run: func(ctx context.Context, s System, k *kvKeys, pos, n int) (func() error, error) {
			return nil, s.HSet(ctx, k.hashes[pos:pos+n], k.fields[pos:pos+n], k.fvalues[pos:pos+n])
		}},
	{id: "manykeys-hget", title: "HGET, random key", load: manyHash,
		run: func(ctx context.Context, s System, k *kvKeys, pos, n int) (func() error, error) {
			return nil, s.HGet(ctx, k.hashes[pos:pos+n], k.fields[pos:pos+n])
		}},
	{id: "manykeys-sadd", title: "SADD (new member), random key", load: manySet, bounded: true,
		run: func(ctx context.Context, s System, k *kvKeys, pos, n int) (func() error, error) {
			keys, members := k.sets[pos:pos+n], k.fresh[pos:pos+n]
			return func() error { return s.SRem(ctx, keys, members) }, s.SAdd(ctx, keys, members)
		}},
	{id: "manykeys-sismember", title: "SISMEMBER, random key", load: manySet,
		run: func(ctx context.Context, s System, k *kvKeys, pos, n int) (func() error, error) {
			return nil, s.SIsMember(ctx, k.sets[pos:pos+n], k.members[pos:pos+n])
		}},
	{id: "manykeys-mget", title: fmt.Sprintf("MGET of %d random keys", mgetKeys), load: manyString,
		run: func(ctx context.Context, s System, k *kvKeys, pos, n int) (func() error, error) {
			return nil, s.MGet(ctx, k.mget[pos:pos+n])
		}},
}

// fillKV builds l on s under prefix.
func fillKV(ctx context.Context, cfg *Config, s System, prefix string, l *kvLoad) error {
	for _, p := range l.parts() {
		if cfg != nil {
			cfg.progress("filling %s on %s", p.sh.title(), s.Name())
		}
		if err := fillMany(ctx, s, prefix+p.prefix, p.sh); err != nil {
			return fmt.Errorf("%s: fill %s: %w", s.Name(), p.sh.id(), err)
		}
	}
	return nil
}

// delKV deletes the keys of l under prefix.
func delKV(ctx context.Context, s System, prefix string, l *kvLoad) error {
	for _, p := range l.parts() {
		if err := delMany(ctx, s, prefix+p.prefix, p.sh); err != nil {
			return err
		}
	}
	return nil
}

// runManyKV adds the throughput rows of kvOps, on every system filled with the
// kvLoad of cfg.ManyKeys. It runs after the sorted sets and lists of the other
// many-keys rows are deleted, so that neither set of rows runs beside the other's
// data.
func runManyKV(ctx context.Context, cfg *Config, r *Report) error {
	l := newKVLoad(cfg.ManyKeys)
	ks := make([]*kvKeys, len(cfg.Systems))
	for i, s := range cfg.Systems {
		ks[i] = newKVKeys(s.Name(), l)
		if err := fillKV(ctx, cfg, s, ks[i].prefix, l); err != nil {
			return err
		}
	}
	for _, op := range kvOps {
		sh := l.shape(op.load)
		row := Row{Group: "manykeys", Workload: op.title, ID: op.id, N: sh.n, Keys: sh.keys, Metric: OpsPerSec, Values: map[string]float64{}}
		err := measureOps(ctx, cfg, &row, func() *meter { return newMeter(op.bounded, sh.keys, window) }, func(i int, s System) batch {
			return func(pos, k int) (func() error, error) { return op.run(ctx, s, ks[i], pos, k) }
		})
		if err != nil {
			return fmt.Errorf("%s: %w", op.id, err)
		}
		r.Rows = append(r.Rows, row)
	}
	for i, s := range cfg.Systems {
		if err := delKV(ctx, s, ks[i].prefix, l); err != nil {
			return err
		}
	}
	return nil
}
