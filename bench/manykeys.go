package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
)

// manyShape is one shape of the many-keys memory rows: keys structures of n
// elements each.
type manyShape struct {
	list    bool // lists rather than sorted sets
	keys, n int
}

// manyShapes returns the shapes whose memory per key and per element is measured,
// for keys keys (100k by default): keys × 1, keys × 10 and keys/10 × 100 sorted sets,
// keys × 1 and keys × 10 lists.
func manyShapes(keys int) []manyShape {
	return []manyShape{
		{false, keys, 1}, {false, keys, 10}, {false, max(1, keys/10), 100},
		{true, keys, 1}, {true, keys, 10},
	}
}

// manyLoad is the data of the many-keys throughput rows: keys sorted sets and as
// many lists, of 10 elements each.
func manyLoad(keys int) manyShape { return manyShape{keys: keys, n: 10} }

// defaultManyKeys is the default number of keys of the many-keys group.
const defaultManyKeys = 100_000

func (sh manyShape) title() string {
	kind := "sorted sets"
	if sh.list {
		kind = "lists"
	}
	return fmt.Sprintf("%s: %s keys × %d", kind, sizeText(sh.keys), sh.n)
}

func (sh manyShape) id() string {
	kind := "zset"
	if sh.list {
		kind = "list"
	}
	return fmt.Sprintf("manykeys-memory-%s-%dx%d", kind, sh.keys, sh.n)
}

// manyKeyName is the name of key i of the many-keys group; prefix keeps systems
// sharing a server apart ("" for the memory rows, which run one system at a time).
func manyKeyName(prefix string, i int) string { return fmt.Sprintf("%suser:%08d", prefix, i) }

// manyMember is member (or list element) j of every key.
func manyMember(j int) string { return fmt.Sprintf("member:%07d", j) }

// fillMany builds sh on s under prefix, with freshly formatted strings (so an
// in-process system holds the only copy of what it stores): key i holds members
// 0..n-1 with scores 0..n-1, or the list of those members.
func fillMany(ctx context.Context, s System, prefix string, sh manyShape) error {
	for lo := 0; lo < sh.keys; lo += 100 * fillBatch {
		hi := min(lo+100*fillBatch, sh.keys)
		keys := make([]string, 0, hi-lo)
		for i := lo; i < hi; i++ {
			keys = append(keys, manyKeyName(prefix, i))
		}
		if sh.list {
			vs := make([][]string, len(keys))
			for i := range vs {
				vs[i] = make([]string, sh.n)
				for j := range vs[i] {
					vs[i][j] = manyMember(j)
				}
			}
			if err := s.RPushKeys(ctx, keys, vs); err != nil {
				return err
			}
			continue
		}
		zs := make([][]Z, len(keys))
		for i := range zs {
			zs[i] = make([]Z, sh.n)
			for j := range zs[i] {
				zs[i][j] = Z{Member: manyMember(j), Score: float64(j)}
			}
		}
		if err := s.ZAddKeys(ctx, keys, zs); err != nil {
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
// shape of manyShapes, then the throughput of manyOps among cfg.ManyKeys small keys.
func runManyKeys(ctx context.Context, cfg *Config, r *Report) error {
	for _, sh := range manyShapes(cfg.ManyKeys) {
		perKey := Row{Group: "manykeys", Workload: sh.title(), ID: sh.id(), N: sh.n, Keys: sh.keys, Metric: BytesPerKey, Values: map[string]float64{}}
		perElem := perKey
		perElem.Metric, perElem.Values = BytesPerElem, map[string]float64{}
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
			perKey.Values[s.Name()] = float64(delta) / float64(sh.keys)
			perElem.Values[s.Name()] = float64(delta) / float64(sh.keys*sh.n)
			cfg.progress("%-28s %-10s %s, %s", sh.id(), s.Name(),
				formatValue(BytesPerKey, perKey.Values[s.Name()]), formatValue(BytesPerElem, perElem.Values[s.Name()]))
		}
		r.Rows = append(r.Rows, perKey, perElem)
		cfg.bar.finished()
	}

	ks := make([]*manyKeys, len(cfg.Systems))
	load := manyLoad(cfg.ManyKeys)
	zsets, lists := load, load
	lists.list = true
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
	return nil
}
