// Package redisq runs the queue types of package queues on a real Redis (or Valkey,
// Sentinel, Cluster) through go-redis: [New] wraps a [redis.UniversalClient] into a
// [queues.Backend].
//
// Compound steps run as Lua scripts by EVALSHA, loaded on first use (go-redis's
// [redis.Script]). Every key of one queue carries the hash tag {name}, so a Redis
// Cluster keeps a queue in one slot and accepts its scripts and multi-key BRPOP.
// It needs Redis 6.2 or later (BLMOVE; fractional blocking timeouts); each method is
// one round trip, or one per round for the blocking ones.
//
// # Blocking and cancellation
//
// go-redis sends blocking timeouts in whole seconds, and a cancelled context does not
// interrupt a blocking command already on the wire; cancelling one would instead
// close the connection, losing an element Redis popped meanwhile. So the blocking
// methods send the command with a short server-side timeout (Options.Slice, 250 ms by
// default, written as fractional seconds, which Redis ≥ 6 accepts) in a loop that
// checks ctx between rounds, and never pass ctx's cancellation to the wire. A
// cancellation is noticed within one slice plus a round trip; an element taken in the
// round that was running when ctx ended is returned, not lost. The client's
// ReadTimeout (3 s by default) must exceed the slice.
package redisq

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zlite/zlite/queues"
)

// Options tune a [Backend].
type Options struct {
	// Slice is the longest server-side timeout of one blocking round; cancellation is
	// noticed between rounds. Zero means 250 ms.
	Slice time.Duration
	// TimeoutResolution is how late Redis may time out a blocked client: it checks
	// about every 1/hz seconds. Zero means 100 ms (hz 10, Redis's default). Delayed
	// queues and schedulers wait shorter than this on a client-side timer.
	TimeoutResolution time.Duration
}

// Backend is a [queues.Backend] on a go-redis client. It is safe for concurrent use.
type Backend struct {
	c       redis.UniversalClient
	slice   time.Duration
	res     time.Duration
	scripts sync.Map // *queues.Script → *redis.Script
}

var _ queues.Backend = (*Backend)(nil)

// New returns a Backend that sends its commands through c.
func New(c redis.UniversalClient, opt *Options) *Backend {
	b := &Backend{c: c, slice: 250 * time.Millisecond, res: 100 * time.Millisecond}
	if opt != nil && opt.Slice > 0 {
		b.slice = opt.Slice
	}
	if opt != nil && opt.TimeoutResolution > 0 {
		b.res = opt.TimeoutResolution
	}
	return b
}

// TimeoutResolution returns Options.TimeoutResolution: how late a blocking timeout
// may fire on the server.
func (b *Backend) TimeoutResolution() time.Duration { return b.res }

// Eval runs s by EVALSHA (loading it on a NOSCRIPT reply). A nil script reply is
// returned as (nil, nil). It costs one round trip (two after a NOSCRIPT reply).
func (b *Backend) Eval(ctx context.Context, s *queues.Script, keys []string, args ...string) (any, error) {
	rs, ok := b.scripts.Load(s)
	if !ok {
		rs, _ = b.scripts.LoadOrStore(s, redis.NewScript(s.Lua()))
	}
	r, err := rs.(*redis.Script).Run(ctx, b.c, keys, anys(args)...).Result()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	return r, err
}

// LPush is LPUSH: one round trip, O(1) per value on the server.
func (b *Backend) LPush(ctx context.Context, key string, values ...string) (int64, error) {
	return b.c.LPush(ctx, key, anys(values)...).Result()
}

// LLen is LLEN: one round trip, O(1) on the server.
func (b *Backend) LLen(ctx context.Context, key string) (int64, error) {
	return b.c.LLen(ctx, key).Result()
}

// ZCard is ZCARD: one round trip, O(1) on the server.
func (b *Backend) ZCard(ctx context.Context, key string) (int64, error) {
	return b.c.ZCard(ctx, key).Result()
}

// block runs one blocking command in rounds of at most b.slice until it returns a
// reply, the timeout (0: none) passes, or ctx is done. args holds the command with a
// placeholder for the timeout at index at. The wire call never sees ctx's
// cancellation, so a reply Redis sent is never dropped.
func (b *Backend) block(ctx context.Context, timeout time.Duration, args []any, at int) (any, bool, error) {
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	wire := context.WithoutCancel(ctx)
	for {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		round := b.slice
		if timeout > 0 {
			left := time.Until(deadline)
			if left < time.Millisecond {
				return nil, false, nil
			}
			round = min(round, left)
		}
		// Whole milliseconds, at least one: "0.000" would mean "block forever".
		args[at] = strconv.FormatFloat(max(round, time.Millisecond).Seconds(), 'f', 3, 64)
		r, err := b.c.Do(wire, args...).Result()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return nil, false, err
		}
		return r, true, nil
	}
}

func strs(v any, n int) ([]string, error) {
	a, ok := v.([]any)
	if !ok || len(a) != n {
		return nil, fmt.Errorf("redisq: unexpected reply %v", v)
	}
	out := make([]string, n)
	for i, x := range a {
		switch x := x.(type) {
		case string:
			out[i] = x
		case float64: // RESP3 sends scores as doubles
			out[i] = strconv.FormatFloat(x, 'g', -1, 64)
		default:
			return nil, fmt.Errorf("redisq: unexpected reply %v", v)
		}
	}
	return out, nil
}

// anys converts ss for go-redis's variadic ...any arguments.
func anys(ss []string) []any {
	a := make([]any, len(ss))
	for i, s := range ss {
		a[i] = s
	}
	return a
}

// keysArgs returns the blocking command cmd with keys and a last placeholder for
// the timeout.
func keysArgs(cmd string, keys []string) []any {
	args := make([]any, 0, len(keys)+2)
	args = append(args, cmd)
	for _, k := range keys {
		args = append(args, k)
	}
	return append(args, nil)
}

// BRPop is BRPOP, sent in rounds as described in the package documentation.
func (b *Backend) BRPop(ctx context.Context, timeout time.Duration, keys ...string) (string, string, bool, error) {
	args := keysArgs("brpop", keys)
	r, ok, err := b.block(ctx, timeout, args, len(args)-1)
	if !ok || err != nil {
		return "", "", ok, err
	}
	kv, err := strs(r, 2)
	if err != nil {
		return "", "", false, err
	}
	return kv[0], kv[1], true, nil
}

// BZPopMin is BZPOPMIN, sent in rounds as described in the package documentation.
func (b *Backend) BZPopMin(ctx context.Context, timeout time.Duration, keys ...string) (string, queues.Z, bool, error) {
	args := keysArgs("bzpopmin", keys)
	r, ok, err := b.block(ctx, timeout, args, len(args)-1)
	if !ok || err != nil {
		return "", queues.Z{}, ok, err
	}
	kms, err := strs(r, 3)
	if err != nil {
		return "", queues.Z{}, false, err
	}
	score, err := strconv.ParseFloat(kms[2], 64)
	if err != nil {
		return "", queues.Z{}, false, err
	}
	return kms[0], queues.Z{Member: kms[1], Score: score}, true, nil
}

// BLMove is BLMOVE, sent in rounds as described in the package documentation.
func (b *Backend) BLMove(ctx context.Context, src, dst, srcPos, dstPos string, timeout time.Duration) (string, bool, error) {
	args := []any{"blmove", src, dst, srcPos, dstPos, nil}
	r, ok, err := b.block(ctx, timeout, args, 5)
	if !ok || err != nil {
		return "", ok, err
	}
	s, isStr := r.(string)
	if !isStr {
		return "", false, fmt.Errorf("redisq: unexpected reply %v", r)
	}
	return s, true, nil
}
