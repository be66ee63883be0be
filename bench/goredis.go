package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/redisq"
)

// pipeBatch is the number of commands per pipeline in the pipelined Redis system.
const pipeBatch = 100

// goRedis is a System reached through go-redis: a real redis-server (one round trip
// per command, or pipelined) or miniredis.
type goRedis struct {
	name   string
	c      *redis.Client
	queues queues.Backend // nil for the pipelined system
	pipe   int            // commands per pipeline; 0 sends each command on its own round trip
	mini   *miniredis.Miniredis
	memory string // "used_memory" (INFO), "heap" (in-process) or "" (not measured)
}

var _ System = (*goRedis)(nil)

// NewRedis returns the System for the redis-server at addr: one round trip per
// command, or pipelined in batches of 100 when pipelined is true. Its Memory is
// INFO memory's used_memory less mem_clients_normal, the clients' buffers, which
// move with the traffic rather than the data (Redis frees an idle client's query
// buffer after two seconds: a pipelined client's, tens of KB, left a tiny shape's
// delta below zero in CI); reported only by the unpipelined system, since both share
// the server.
func NewRedis(addr string, pipelined bool) System {
	s := &goRedis{name: "redis", c: newClient(addr), memory: "used_memory"}
	if pipelined {
		s.name, s.pipe, s.memory = "redis-pipe", pipeBatch, ""
	} else {
		s.queues = redisq.New(s.c, nil)
	}
	return s
}

// NewMiniredis starts an in-process miniredis server and returns the System that
// reaches it through go-redis, one round trip per command. Its Memory is the Go heap.
func NewMiniredis() (System, error) {
	m := miniredis.NewMiniRedis()
	if err := m.Start(); err != nil {
		return nil, fmt.Errorf("bench: start miniredis: %w", err)
	}
	c := newClient(m.Addr())
	return &goRedis{name: "miniredis", c: c, mini: m, memory: "heap", queues: redisq.New(c, nil)}, nil
}

func newClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, PoolSize: 32})
}

func (s *goRedis) Name() string { return s.name }

func (s *goRedis) QueueBackend() queues.Backend { return s.queues }

func (s *goRedis) Close() error {
	err := s.c.Close()
	if s.mini != nil {
		s.mini.Close()
	}
	return err
}

// run issues k commands, on their own round trips or in pipelines, and calls check
// (when not nil) on each reply in order.
func (s *goRedis) run(ctx context.Context, k int, issue func(c redis.Cmdable, i int) redis.Cmder, check func(i int, c redis.Cmder) error) error {
	if s.pipe == 0 {
		for i := range k {
			c := issue(s.c, i)
			if err := c.Err(); err != nil {
				return fmt.Errorf("bench: %s: %w", c.Name(), err)
			}
			if check != nil {
				if err := check(i, c); err != nil {
					return err
				}
			}
		}
		return nil
	}
	cmds := make([]redis.Cmder, 0, s.pipe)
	for lo := 0; lo < k; lo += s.pipe {
		hi := min(lo+s.pipe, k)
		p := s.c.Pipeline()
		cmds = cmds[:0]
		for i := lo; i < hi; i++ {
			cmds = append(cmds, issue(p, i))
		}
		if _, err := p.Exec(ctx); err != nil {
			return fmt.Errorf("bench: pipeline: %w", err)
		}
		if check != nil {
			for j, c := range cmds {
				if err := check(lo+j, c); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// bulk sends one command per chunk of fillBatch elements, pipelined.
func (s *goRedis) bulk(ctx context.Context, n int, issue func(p redis.Pipeliner, lo, hi int)) error {
	for lo := 0; lo < n; lo += 100 * fillBatch {
		p := s.c.Pipeline()
		for l := lo; l < min(lo+100*fillBatch, n); l += fillBatch {
			issue(p, l, min(l+fillBatch, n))
		}
		if _, err := p.Exec(ctx); err != nil {
			return fmt.Errorf("bench: bulk: %w", err)
		}
	}
	return nil
}

func (s *goRedis) Del(ctx context.Context, keys ...string) error {
	return s.c.Del(ctx, keys...).Err()
}

func toRedisZ(zs []Z) []redis.Z {
	out := make([]redis.Z, len(zs))
	for i, z := range zs {
		out[i] = redis.Z{Score: z.Score, Member: z.Member}
	}
	return out
}

// anys converts ss for go-redis's variadic ...any arguments.
func anys(ss []string) []any {
	a := make([]any, len(ss))
	for i, s := range ss {
		a[i] = s
	}
	return a
}

func (s *goRedis) ZAddBulk(ctx context.Context, key string, zs []Z) error {
	return s.bulk(ctx, len(zs), func(p redis.Pipeliner, lo, hi int) {
		p.ZAdd(ctx, key, toRedisZ(zs[lo:hi])...)
	})
}

func (s *goRedis) ZRemBulk(ctx context.Context, key string, members []string) error {
	return s.bulk(ctx, len(members), func(p redis.Pipeliner, lo, hi int) {
		p.ZRem(ctx, key, anys(members[lo:hi])...)
	})
}

func (s *goRedis) RPushBulk(ctx context.Context, key string, values []string) error {
	return s.bulk(ctx, len(values), func(p redis.Pipeliner, lo, hi int) {
		p.RPush(ctx, key, anys(values[lo:hi])...)
	})
}

// perKey sends one command per key, fillBatch keys per pipeline.
func (s *goRedis) perKey(ctx context.Context, n int, issue func(p redis.Pipeliner, i int)) error {
	for lo := 0; lo < n; lo += fillBatch {
		p := s.c.Pipeline()
		for i := lo; i < min(lo+fillBatch, n); i++ {
			issue(p, i)
		}
		if _, err := p.Exec(ctx); err != nil {
			return fmt.Errorf("bench: fill keys: %w", err)
		}
	}
	return nil
}

func (s *goRedis) ZAddKeys(ctx context.Context, keys []string, zs [][]Z) error {
	return s.perKey(ctx, len(keys), func(p redis.Pipeliner, i int) { p.ZAdd(ctx, keys[i], toRedisZ(zs[i])...) })
}

func (s *goRedis) RPushKeys(ctx context.Context, keys []string, values [][]string) error {
	return s.perKey(ctx, len(keys), func(p redis.Pipeliner, i int) { p.RPush(ctx, keys[i], anys(values[i])...) })
}

func (s *goRedis) ZAdd(ctx context.Context, keys []string, zs []Z) error {
	return s.run(ctx, len(zs), func(c redis.Cmdable, i int) redis.Cmder {
		return c.ZAdd(ctx, keys[i], redis.Z{Score: zs[i].Score, Member: zs[i].Member})
	}, nil)
}

func (s *goRedis) ZScore(ctx context.Context, keys []string, members []string) error {
	return s.run(ctx, len(members), func(c redis.Cmdable, i int) redis.Cmder {
		return c.ZScore(ctx, keys[i], members[i])
	}, nil)
}

func (s *goRedis) ZRange(ctx context.Context, keys []string) error {
	return s.run(ctx, len(keys), func(c redis.Cmdable, i int) redis.Cmder {
		return c.ZRange(ctx, keys[i], 0, -1)
	}, func(i int, c redis.Cmder) error {
		if len(c.(*redis.StringSliceCmd).Val()) == 0 {
			return errEmpty
		}
		return nil
	})
}

func (s *goRedis) ZPopMin(ctx context.Context, keys []string) ([]Z, error) {
	out := make([]Z, 0, len(keys))
	err := s.run(ctx, len(keys), func(c redis.Cmdable, i int) redis.Cmder {
		return c.ZPopMin(ctx, keys[i])
	}, func(i int, c redis.Cmder) error { return popped(&out, c) })
	return out, err
}

// popped appends the one member a ZPOPMIN or ZPOPMAX reply c holds to out.
func popped(out *[]Z, c redis.Cmder) error {
	v := c.(*redis.ZSliceCmd).Val()
	if len(v) != 1 {
		return errEmpty
	}
	*out = append(*out, Z{Member: v[0].Member.(string), Score: v[0].Score})
	return nil
}

func (s *goRedis) ZRank(ctx context.Context, keys []string, members []string, rev bool) error {
	return s.run(ctx, len(members), func(c redis.Cmdable, i int) redis.Cmder {
		if rev {
			return c.ZRevRank(ctx, keys[i], members[i])
		}
		return c.ZRank(ctx, keys[i], members[i])
	}, nil)
}

func (s *goRedis) ZRangeByScore(ctx context.Context, key string, mins []float64, offset, count int) error {
	return s.run(ctx, len(mins), func(c redis.Cmdable, i int) redis.Cmder {
		return c.ZRangeByScore(ctx, key, &redis.ZRangeBy{
			Min: formatBound(mins[i]), Max: "+inf", Offset: int64(offset), Count: int64(count),
		})
	}, func(i int, c redis.Cmder) error {
		if len(c.(*redis.StringSliceCmd).Val()) == 0 {
			return errEmpty
		}
		return nil
	})
}

func (s *goRedis) ZPopMax(ctx context.Context, key string, k int) ([]Z, error) {
	out := make([]Z, 0, k)
	err := s.run(ctx, k, func(c redis.Cmdable, i int) redis.Cmder {
		return c.ZPopMax(ctx, key)
	}, func(i int, c redis.Cmder) error { return popped(&out, c) })
	return out, err
}

func (s *goRedis) ZRem(ctx context.Context, key string, members []string) error {
	return s.run(ctx, len(members), func(c redis.Cmdable, i int) redis.Cmder {
		return c.ZRem(ctx, key, members[i])
	}, func(i int, c redis.Cmder) error {
		if c.(*redis.IntCmd).Val() != 1 {
			return missing("ZREM", members[i])
		}
		return nil
	})
}

func (s *goRedis) LPushRPop(ctx context.Context, keys []string, values []string) error {
	return s.run(ctx, 2*len(values), func(c redis.Cmdable, i int) redis.Cmder {
		if i%2 == 0 {
			return c.LPush(ctx, keys[i/2], values[i/2])
		}
		return c.RPop(ctx, keys[i/2])
	}, nil)
}

func (s *goRedis) LRange(ctx context.Context, key string, k, start, stop int) error {
	return s.run(ctx, k, func(c redis.Cmdable, i int) redis.Cmder {
		return c.LRange(ctx, key, int64(start), int64(stop))
	}, func(i int, c redis.Cmder) error {
		if len(c.(*redis.StringSliceCmd).Val()) == 0 {
			return errEmpty
		}
		return nil
	})
}

func (s *goRedis) Blocking() bool { return s.pipe == 0 }

func (s *goRedis) LPush(ctx context.Context, key, value string) error {
	return s.c.LPush(ctx, key, value).Err()
}

func (s *goRedis) BRPop(ctx context.Context, key string, timeout time.Duration) (string, bool, error) {
	v, err := s.c.BRPop(ctx, timeout, key).Result()
	if errors.Is(err, redis.Nil) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return v[1], true, nil
}

func (s *goRedis) ZAddOne(ctx context.Context, key string, z Z) error {
	return s.c.ZAdd(ctx, key, redis.Z{Score: z.Score, Member: z.Member}).Err()
}

func (s *goRedis) BZPopMin(ctx context.Context, key string, timeout time.Duration) (Z, bool, error) {
	v, err := s.c.BZPopMin(ctx, timeout, key).Result()
	if errors.Is(err, redis.Nil) {
		return Z{}, false, nil
	}
	if err != nil {
		return Z{}, false, err
	}
	return Z{Member: v.Member.(string), Score: v.Score}, true, nil
}

func (s *goRedis) Memory(ctx context.Context) (int64, bool, error) {
	switch s.memory {
	case "heap":
		return heapInUse(), true, nil
	case "used_memory":
		info, err := s.c.Info(ctx, "memory").Result()
		if err != nil {
			return 0, false, err
		}
		fields := map[string]int64{}
		for line := range strings.SplitSeq(info, "\n") {
			k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
			if k == "used_memory" || k == "mem_clients_normal" {
				n, err := strconv.ParseInt(v, 10, 64)
				if !ok || err != nil {
					return 0, false, fmt.Errorf("bench: INFO memory %s: %q", k, v)
				}
				fields[k] = n
			}
		}
		if len(fields) != 2 {
			return 0, false, errors.New("bench: INFO memory lacks used_memory or mem_clients_normal")
		}
		return fields["used_memory"] - fields["mem_clients_normal"], true, nil
	}
	return 0, false, nil
}

// fresh makes the memory the next build adds independent of what was built before.
// For miniredis it starts a new, empty server (and client) in place of the old one,
// which is empty: Go maps do not shrink when keys are deleted, and miniredis keeps
// every key it ever wrote in its WATCH versions, so a build after another one would
// reuse the slots and key names that one left. For Redis it waits (up to 4 s) until
// used_memory is the same in two readings 200 ms apart: Redis shrinks an emptied key
// table in its periodic cron, and a shrink during the next build takes its memory off
// that build's figure (in one run, 10k integer sets measured 10.8 B/key rather than
// 116).
func (s *goRedis) fresh(ctx context.Context) error {
	switch s.memory {
	case "heap":
		m := miniredis.NewMiniRedis()
		if err := m.Start(); err != nil {
			return fmt.Errorf("bench: start miniredis: %w", err)
		}
		s.c.Close()
		s.mini.Close()
		s.mini, s.c = m, newClient(m.Addr())
		s.queues = redisq.New(s.c, nil)
	case "used_memory":
		prev, _, err := s.Memory(ctx)
		for range 20 {
			if err != nil {
				return err
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
			var now int64
			if now, _, err = s.Memory(ctx); err == nil && now == prev {
				return nil
			}
			prev = now
		}
		return err
	}
	return nil
}

// serverVersion returns redis_version from INFO server. Only a real redis-server
// (not miniredis, whose INFO is partial) is asked.
func (s *goRedis) serverVersion(ctx context.Context) (string, error) {
	if s.mini != nil {
		return "", nil
	}
	info, err := s.c.Info(ctx, "server").Result()
	if err != nil {
		return "", err
	}
	for line := range strings.SplitSeq(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
			return v, nil
		}
	}
	return "", errors.New("bench: INFO server has no redis_version")
}

// formatBound formats a score as a ZRANGEBYSCORE bound.
func formatBound(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "+inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
