package bench

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// This file holds the go-redis System's string, hash and set commands, of the
// many-keys rows on those types (see kvOps).

// SetKeys sends one SET per key, pipelined.
func (s *goRedis) SetKeys(ctx context.Context, keys, values []string) error {
	return s.perKey(ctx, len(keys), func(p redis.Pipeliner, i int) { p.Set(ctx, keys[i], values[i], 0) })
}

// IncrKeys sends one INCR per key, pipelined.
func (s *goRedis) IncrKeys(ctx context.Context, keys []string) error {
	return s.perKey(ctx, len(keys), func(p redis.Pipeliner, i int) { p.Incr(ctx, keys[i]) })
}

// HSetKeys sends one multi-field HSET per key, pipelined.
func (s *goRedis) HSetKeys(ctx context.Context, keys []string, pairs [][]string) error {
	return s.perKey(ctx, len(keys), func(p redis.Pipeliner, i int) { p.HSet(ctx, keys[i], anys(pairs[i])...) })
}

// SAddKeys sends one multi-member SADD per key, pipelined.
func (s *goRedis) SAddKeys(ctx context.Context, keys []string, members [][]string) error {
	return s.perKey(ctx, len(keys), func(p redis.Pipeliner, i int) { p.SAdd(ctx, keys[i], anys(members[i])...) })
}

// Get relies on go-redis reporting a missing key as the error redis.Nil.
func (s *goRedis) Get(ctx context.Context, keys []string) error {
	return s.run(ctx, len(keys), func(c redis.Cmdable, i int) redis.Cmder {
		return c.Get(ctx, keys[i])
	}, nil)
}

// Set sends SET key value, without expiry, for each key.
func (s *goRedis) Set(ctx context.Context, keys, values []string) error {
	return s.run(ctx, len(keys), func(c redis.Cmdable, i int) redis.Cmder {
		return c.Set(ctx, keys[i], values[i], 0)
	}, nil)
}

// Incr sends INCR key for each key.
func (s *goRedis) Incr(ctx context.Context, keys []string) error {
	return s.run(ctx, len(keys), func(c redis.Cmdable, i int) redis.Cmder {
		return c.Incr(ctx, keys[i])
	}, nil)
}

// MGet sends MGET for each group of keys and checks that no reply is nil.
func (s *goRedis) MGet(ctx context.Context, keys [][]string) error {
	return s.run(ctx, len(keys), func(c redis.Cmdable, i int) redis.Cmder {
		return c.MGet(ctx, keys[i]...)
	}, func(i int, c redis.Cmder) error {
		for j, v := range c.(*redis.SliceCmd).Val() {
			if v == nil {
				return absent("MGET", keys[i][j])
			}
		}
		return nil
	})
}

// HSet sends HSET key field value for each field and checks that it updated one.
func (s *goRedis) HSet(ctx context.Context, keys, fields, values []string) error {
	return s.run(ctx, len(keys), func(c redis.Cmdable, i int) redis.Cmder {
		return c.HSet(ctx, keys[i], fields[i], values[i])
	}, func(i int, c redis.Cmder) error {
		if c.(*redis.IntCmd).Val() != 0 {
			return fmt.Errorf("bench: HSET %s %s: field was missing", keys[i], fields[i])
		}
		return nil
	})
}

// HGet relies on go-redis reporting a missing field as the error redis.Nil.
func (s *goRedis) HGet(ctx context.Context, keys, fields []string) error {
	return s.run(ctx, len(keys), func(c redis.Cmdable, i int) redis.Cmder {
		return c.HGet(ctx, keys[i], fields[i])
	}, nil)
}

// SAdd sends SADD key member for each member and checks that it added one.
func (s *goRedis) SAdd(ctx context.Context, keys, members []string) error {
	return s.run(ctx, len(keys), func(c redis.Cmdable, i int) redis.Cmder {
		return c.SAdd(ctx, keys[i], members[i])
	}, func(i int, c redis.Cmder) error {
		if c.(*redis.IntCmd).Val() != 1 {
			return present("SADD", members[i])
		}
		return nil
	})
}

// SRem sends SREM key member for each member and checks that it removed one.
func (s *goRedis) SRem(ctx context.Context, keys, members []string) error {
	return s.run(ctx, len(keys), func(c redis.Cmdable, i int) redis.Cmder {
		return c.SRem(ctx, keys[i], members[i])
	}, func(i int, c redis.Cmder) error {
		if c.(*redis.IntCmd).Val() != 1 {
			return missing("SREM", members[i])
		}
		return nil
	})
}

// SIsMember sends SISMEMBER key member for each member and checks the reply.
func (s *goRedis) SIsMember(ctx context.Context, keys, members []string) error {
	return s.run(ctx, len(keys), func(c redis.Cmdable, i int) redis.Cmder {
		return c.SIsMember(ctx, keys[i], members[i])
	}, func(i int, c redis.Cmder) error {
		if !c.(*redis.BoolCmd).Val() {
			return missing("SISMEMBER", members[i])
		}
		return nil
	})
}
