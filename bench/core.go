package bench

import (
	"context"
	"math"
	"time"
)

// coreOp is one core workload: single commands against a filled sorted set or list.
type coreOp struct {
	id    string // benchmark name: op=<id>
	title string // table name
	list  bool   // runs on the list rather than the sorted set
	// bounded ops change the data's size; their batches hold at most n/10 commands.
	bounded bool
	// sorts is set for the commands miniredis answers by sorting the whole set.
	sorts bool
	// run sends k commands using the arguments at positions [pos, pos+k) and returns
	// the untimed work that puts the data back as it was (nil when there is none).
	run func(ctx context.Context, s System, k *keys, d *dataset, pos, n int) (restore func() error, err error)
}

// keys names one system's keys, so that systems sharing a server never share data.
// zsets and lists repeat zset and list window times: the key arguments of a batch of
// commands on the one key.
type keys struct {
	zset, list   string
	zsets, lists []string
}

func keysFor(s System) *keys {
	k := &keys{zset: "bench:" + s.Name() + ":zset", list: "bench:" + s.Name() + ":list"}
	k.zsets, k.lists = repeat(k.zset, window), repeat(k.list, window)
	return k
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

var negInf = func() []float64 {
	xs := make([]float64, window)
	for i := range xs {
		xs[i] = math.Inf(-1)
	}
	return xs
}()

var coreOps = []coreOp{
	{id: "zadd-new", title: "ZADD (new member)", bounded: true,
		run: func(ctx context.Context, s System, k *keys, d *dataset, pos, n int) (func() error, error) {
			zs := d.fresh[pos : pos+n]
			return func() error { return s.ZRemBulk(ctx, k.zset, zMembers(zs)) }, s.ZAdd(ctx, k.zsets[:n], zs)
		}},
	{id: "zadd-update", title: "ZADD (update score)",
		run: func(ctx context.Context, s System, k *keys, d *dataset, pos, n int) (func() error, error) {
			return func() error { return s.ZAddBulk(ctx, k.zset, d.originals(pos, pos+n)) },
				s.ZAdd(ctx, k.zsets[:n], d.updates[pos:pos+n])
		}},
	{id: "zscore", title: "ZSCORE",
		run: func(ctx context.Context, s System, k *keys, d *dataset, pos, n int) (func() error, error) {
			return nil, s.ZScore(ctx, k.zsets[:n], d.rand[pos:pos+n])
		}},
	{id: "zrevrank", title: "ZREVRANK", sorts: true,
		run: func(ctx context.Context, s System, k *keys, d *dataset, pos, n int) (func() error, error) {
			return nil, s.ZRank(ctx, k.zsets[:n], d.rand[pos:pos+n], true)
		}},
	{id: "zrangebyscore-limit", title: "ZRANGEBYSCORE min +inf LIMIT 0 1", sorts: true,
		run: func(ctx context.Context, s System, k *keys, d *dataset, pos, n int) (func() error, error) {
			return nil, s.ZRangeByScore(ctx, k.zset, d.mins[pos:pos+n], 0, 1)
		}},
	{id: "zrangebyscore-deep", title: "ZRANGEBYSCORE -inf +inf LIMIT n/2 1", sorts: true,
		run: func(ctx context.Context, s System, k *keys, d *dataset, pos, n int) (func() error, error) {
			return nil, s.ZRangeByScore(ctx, k.zset, negInf[pos:pos+n], d.n/2, 1)
		}},
	{id: "zpopmax", title: "ZPOPMAX", bounded: true, sorts: true,
		run: func(ctx context.Context, s System, k *keys, d *dataset, pos, n int) (func() error, error) {
			popped, err := s.ZPopMax(ctx, k.zset, n)
			return func() error { return s.ZAddBulk(ctx, k.zset, popped) }, err
		}},
	{id: "zrem", title: "ZREM", bounded: true,
		run: func(ctx context.Context, s System, k *keys, d *dataset, pos, n int) (func() error, error) {
			zs := d.distinct[pos : pos+n]
			return func() error { return s.ZAddBulk(ctx, k.zset, zs) }, s.ZRem(ctx, k.zset, zMembers(zs))
		}},
	{id: "lpush-rpop", title: "LPUSH + RPOP", list: true,
		run: func(ctx context.Context, s System, k *keys, d *dataset, pos, n int) (func() error, error) {
			return nil, s.LPushRPop(ctx, k.lists[:n], d.rand[pos:pos+n])
		}},
	{id: "lrange", title: "LRANGE 0 99", list: true,
		run: func(ctx context.Context, s System, k *keys, d *dataset, pos, n int) (func() error, error) {
			return nil, s.LRange(ctx, k.list, n, 0, 99)
		}},
}

func zMembers(zs []Z) []string {
	out := make([]string, len(zs))
	for i, z := range zs {
		out[i] = z.Member
	}
	return out
}

// fill builds the standard sorted set and list of d on s.
func fill(ctx context.Context, s System, k *keys, d *dataset) error {
	if err := s.Del(ctx, k.zset, k.list); err != nil {
		return err
	}
	if err := s.ZAddBulk(ctx, k.zset, d.entries()); err != nil {
		return err
	}
	return s.RPushBulk(ctx, k.list, d.members)
}

// meter runs a workload in timed batches: the batch size starts at 1 and doubles
// while a batch takes less than a twentieth of the run, up to max, and carries over
// from one run to the next. Between batches the workload's restore runs untimed.
type meter struct {
	k, max int
	pos    int
	limit  int // arguments available: batches are windows of [0, limit)
}

// newMeter returns the meter of a workload on data of size n with limit arguments
// available. A bounded workload changes the data's size: its batches hold at most
// n/10 commands.
func newMeter(bounded bool, n, limit int) *meter {
	m := &meter{k: 1, max: window, limit: window}
	if bounded {
		m.limit = min(window, limit)
		m.max = min(max(1, n/10), m.limit)
	}
	return m
}

// meter returns the meter of op on d.
func (op coreOp) meter(d *dataset) *meter { return newMeter(op.bounded, d.n, len(d.distinct)) }

// batch runs the k commands of a workload that use the arguments at [pos, pos+k) and
// returns the untimed work that puts the data back as it was (nil when there is none).
type batch func(pos, k int) (restore func() error, err error)

// measure runs batches for at least dur of timed work and returns commands per second.
func (m *meter) measure(ctx context.Context, run batch, dur time.Duration) (float64, error) {
	var ops int
	var spent time.Duration
	for spent < dur {
		if m.pos+m.k > m.limit {
			m.pos = 0
		}
		start := time.Now()
		restore, err := run(m.pos, m.k)
		t := time.Since(start)
		if err != nil {
			return 0, err
		}
		if restore != nil {
			if err := restore(); err != nil {
				return 0, err
			}
		}
		ops += m.k
		spent += t
		m.pos += m.k
		if t < dur/20 && m.k < m.max {
			m.k = min(2*m.k, m.max)
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
	}
	return float64(ops) / spent.Seconds(), nil
}
