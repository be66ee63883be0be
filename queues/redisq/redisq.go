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
// # Cancellation, and a Redis that does not answer
//
// Every method returns at most Options.Patience (100 ms by default) after ctx is
// done, a blocking one at most Options.Slice + Patience, even when Redis never
// answers (paused, overloaded, or unreachable): when ctx can be cancelled the command
// runs on its own goroutine, and once ctx is done the caller waits only as long as a
// healthy Redis needs to answer (a blocking round: until its server-side timeout),
// then stops waiting. Such an abandoned call returns
// an error that matches both ctx.Err() and [ErrAbandoned] under [errors.Is]. The
// command itself is not interrupted (go-redis would close the connection, and Redis
// may already have run it): its reply is still read, and when it shows the command
// took something the caller never saw, the backend puts it back where it was, so
// nothing is lost:
//
//   - a BRPOP reply is pushed back at the tail it was popped from (RPUSH), so it is
//     served next; a BZPOPMIN reply is added back with its score and member (ZADD);
//     a BLMOVE reply is moved back from the destination to the source;
//   - a script that takes something ([queues.Script.WithUndo]: a call queue's
//     dequeue, a delayed queue's pop, a waitlist's seat) runs its undo step;
//   - a write (LPUSH, a push or enqueue script) whose reply was abandoned may or may
//     not have happened: its outcome is unknown, as for any network call that timed
//     out. Check before retrying it if a duplicate matters (a call queue's Enqueue
//     reports [queues.ErrDuplicate] for an id already queued).
//
// [Backend.Faults] counts abandoned calls and put-backs; call [Backend.Wait] before
// closing the client so that pending put-backs finish.
//
// What remains is the case every Redis client has: a reply lost with its connection
// (Redis killed, a network failure, or go-redis closing a connection whose read timed
// out: Options.ReadTimeout, 3 s by default). A BRPOP or BZPOPMIN that Redis served on
// such a connection delivered its element to no one, so the plain queues ([queues.FIFO],
// [queues.Levels], [queues.Priority]) deliver at most once when connections fail.
// [queues.Reliable] delivers at least once: BLMOVE leaves the element in the
// processing list, and [queues.Reliable.Reap] leases and then requeues it. Two client
// settings matter: MaxRetries: -1, because go-redis otherwise sends a command again
// after its read timed out, and a paused Redis then runs both (a push twice, or a
// second pop whose reply nobody reads); and a ReadTimeout longer than the pauses to
// survive (or -1, none: callers no longer depend on it to return, though then
// [Backend.Wait] waits as long as a silent connection stays open).
//
// A call whose ctx cannot be cancelled (context.Background) runs inline, with no
// goroutine; one with a cancellable ctx costs a goroutine and about 230 bytes in 5
// allocations more (BenchmarkDetach), small next to a round trip.
//
// # Blocking rounds
//
// go-redis sends blocking timeouts in whole seconds, so the blocking methods send
// their command with a short server-side timeout (Options.Slice, 250 ms by default,
// written as fractional seconds, which Redis ≥ 6 accepts) in a loop that checks ctx
// between rounds. A round running when ctx ends is waited for (an element it takes is
// returned, never lost to the cancellation); only a round that outlives its own
// timeout by Options.Patience is abandoned, its element put back as above. The
// client's ReadTimeout must exceed the slice.
package redisq

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zlite/zlite/queues"
)

// ErrAbandoned: the call stopped waiting for Redis's reply because ctx ended. The
// error also matches ctx.Err(); see the package documentation for what happens to the
// command.
var ErrAbandoned = errors.New("redisq: reply abandoned")

// Options tune a [Backend].
type Options struct {
	// Slice is the longest server-side timeout of one blocking round. Zero means
	// 250 ms.
	Slice time.Duration
	// Patience is how long a call keeps waiting for its reply once ctx is done
	// before it abandons the command (a blocking round: once its server-side timeout
	// has passed too). Zero means 100 ms. A healthy Redis answers well within it, so
	// only a stalled or unreachable one makes calls abandon their commands.
	Patience time.Duration
	// TimeoutResolution is how late Redis may time out a blocked client: it checks
	// about every 1/hz seconds. Zero means 100 ms (hz 10, Redis's default). Delayed
	// queues, schedulers and reliable queues waiting for a group's rate limit wait
	// shorter than this on a client-side timer.
	TimeoutResolution time.Duration
}

// Backend is a [queues.Backend] on a go-redis client. It is safe for concurrent use.
type Backend struct {
	c        redis.UniversalClient
	slice    time.Duration
	patience time.Duration
	res      time.Duration
	scripts  sync.Map // *queues.Script → *redis.Script
	settling sync.WaitGroup
	faults   struct{ abandoned, restored, unrestored atomic.Int64 }
}

var _ queues.Backend = (*Backend)(nil)

// New returns a Backend that sends its commands through c. See the package
// documentation for the client settings (MaxRetries, ReadTimeout) that keep items
// from being duplicated or lost when Redis stalls.
func New(c redis.UniversalClient, opt *Options) *Backend {
	b := &Backend{c: c, slice: 250 * time.Millisecond, patience: 100 * time.Millisecond, res: 100 * time.Millisecond}
	if opt != nil && opt.Patience > 0 {
		b.patience = opt.Patience
	}
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

// Faults counts the calls a [Backend] abandoned because ctx ended before Redis
// answered, and what became of what they took.
type Faults struct {
	Abandoned  int64 // calls that returned ctx.Err() before their reply arrived
	Restored   int64 // replies that had taken something, put back
	Unrestored int64 // put-backs that failed: a BRPOP or BZPOPMIN element lost, a BLMOVE one left in its destination
}

// Faults returns the backend's fault counters. The complexity is O(1).
func (b *Backend) Faults() Faults {
	return Faults{b.faults.abandoned.Load(), b.faults.restored.Load(), b.faults.unrestored.Load()}
}

// Wait blocks until every abandoned call has received its reply (or failed) and put
// back what it took. Call it before closing the client. Each such call ends within the
// client's read timeout times its retries.
func (b *Backend) Wait() { b.settling.Wait() }

// call runs one command by run. When ctx cannot be cancelled run runs inline;
// otherwise on a goroutine, and once ctx is done call waits for the reply until due
// (when a healthy server answers at the latest: now, or a blocking round's end) plus
// b.patience, then abandons it. run gets ctx without its cancellation, so go-redis
// never drops a connection on our account. If the caller left before the reply,
// restore (if not nil) runs with it once it arrives, to put back what the command
// took.
func (b *Backend) call(ctx context.Context, due time.Time, run func(wire context.Context) (any, error),
	restore func(wire context.Context, r any) (bool, error)) (any, error) {
	if ctx.Done() == nil {
		return run(ctx)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type outcome struct {
		r   any
		err error
	}
	const running, finished, abandoned = 0, 1, 2
	var state atomic.Int32
	done := make(chan outcome, 1)
	wire := context.WithoutCancel(ctx)
	b.settling.Add(1)
	go func() {
		defer b.settling.Done()
		r, err := run(wire)
		if state.CompareAndSwap(running, finished) {
			done <- outcome{r, err}
			return
		}
		// The caller has gone: what this command took must go back.
		if err != nil || restore == nil {
			return
		}
		switch put, err := restore(wire, r); {
		case err != nil:
			b.faults.unrestored.Add(1)
		case put:
			b.faults.restored.Add(1)
		}
	}()
	select {
	case o := <-done:
		return o.r, o.err
	case <-ctx.Done():
	}
	// A healthy server answers soon: wait for that, so that ordinary cancellations
	// abandon nothing (each abandoned command holds a connection until it ends).
	t := time.NewTimer(max(time.Until(due), 0) + b.patience)
	defer t.Stop()
	select {
	case o := <-done:
		return o.r, o.err
	case <-t.C:
		if !state.CompareAndSwap(running, abandoned) {
			// The reply came at the same instant: the caller gets it, as the
			// Backend contract wants for an element already taken.
			o := <-done
			return o.r, o.err
		}
		b.faults.abandoned.Add(1)
		return nil, fmt.Errorf("%w: %w", ErrAbandoned, ctx.Err())
	}
}

// Eval runs s by EVALSHA (loading it on a NOSCRIPT reply). A nil script reply is
// returned as (nil, nil). If the call is abandoned and s took something
// ([queues.Script.Undo]), its undo step runs on the reply. It costs one round trip
// (two after a NOSCRIPT reply).
func (b *Backend) Eval(ctx context.Context, s *queues.Script, keys []string, args ...string) (any, error) {
	return b.call(ctx, time.Now(), func(wire context.Context) (any, error) {
		return b.eval(wire, s, keys, args)
	}, func(wire context.Context, r any) (bool, error) {
		undo, uargs, ok := s.Undo(r)
		if !ok {
			return false, nil
		}
		_, err := b.eval(wire, undo, keys, uargs)
		return true, err
	})
}

func (b *Backend) eval(ctx context.Context, s *queues.Script, keys, args []string) (any, error) {
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
	r, err := b.call(ctx, time.Now(), func(wire context.Context) (any, error) {
		return b.c.LPush(wire, key, anys(values)...).Result()
	}, nil)
	n, _ := r.(int64)
	return n, err
}

// LLen is LLEN: one round trip, O(1) on the server.
func (b *Backend) LLen(ctx context.Context, key string) (int64, error) {
	r, err := b.call(ctx, time.Now(), func(wire context.Context) (any, error) { return b.c.LLen(wire, key).Result() }, nil)
	n, _ := r.(int64)
	return n, err
}

// ZCard is ZCARD: one round trip, O(1) on the server.
func (b *Backend) ZCard(ctx context.Context, key string) (int64, error) {
	r, err := b.call(ctx, time.Now(), func(wire context.Context) (any, error) { return b.c.ZCard(wire, key).Result() }, nil)
	n, _ := r.(int64)
	return n, err
}

// block runs one blocking command in rounds of at most b.slice until it returns a
// reply, the timeout (0: none) passes, or ctx is done. args holds the command with a
// placeholder for the timeout at index at; restore puts back what an abandoned round
// took.
func (b *Backend) block(ctx context.Context, timeout time.Duration, args []any, at int,
	restore func(wire context.Context, r any) (bool, error)) (any, bool, error) {
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for first := true; ; first = false {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		round := b.slice
		if timeout > 0 {
			// At least one round, however short the timeout: it takes a ready element.
			left := time.Until(deadline)
			if left < time.Millisecond && !first {
				return nil, false, nil
			}
			round = min(round, left)
		}
		// Whole milliseconds, at least one: "0.000" would mean "block forever". A
		// fresh slice per round: an abandoned round still reads its own.
		cmd := append([]any(nil), args...)
		cmd[at] = strconv.FormatFloat(max(round, time.Millisecond).Seconds(), 'f', 3, 64)
		r, err := b.call(ctx, time.Now().Add(round), func(wire context.Context) (any, error) {
			return b.c.Do(wire, cmd...).Result()
		}, restore)
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
	r, ok, err := b.block(ctx, timeout, args, len(args)-1, func(wire context.Context, r any) (bool, error) {
		kv, err := strs(r, 2)
		if err != nil {
			return false, err
		}
		// Back at the tail BRPOP pops from: served next, as it would have been.
		return true, b.c.RPush(wire, kv[0], kv[1]).Err()
	})
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
	return b.bzpop(ctx, "bzpopmin", timeout, keys)
}

// BZPopMax is BZPOPMAX, sent in rounds as [Backend.BZPopMin] is.
func (b *Backend) BZPopMax(ctx context.Context, timeout time.Duration, keys ...string) (string, queues.Z, bool, error) {
	return b.bzpop(ctx, "bzpopmax", timeout, keys)
}

// bzpop sends the blocking pop cmd (BZPOPMIN or BZPOPMAX) in rounds; a member
// popped by a round whose reply came too late goes back with its score (ZADD).
func (b *Backend) bzpop(ctx context.Context, cmd string, timeout time.Duration, keys []string) (string, queues.Z, bool, error) {
	args := keysArgs(cmd, keys)
	r, ok, err := b.block(ctx, timeout, args, len(args)-1, func(wire context.Context, r any) (bool, error) {
		kms, err := strs(r, 3)
		if err != nil {
			return false, err
		}
		return true, b.c.Do(wire, "zadd", kms[0], kms[2], kms[1]).Err()
	})
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

// moveBack undoes BLMOVE KEYS[1] KEYS[2] ARGV[2] ARGV[3] of the element ARGV[1]: it
// takes it out of the destination (from the end it was pushed to) and pushes it back
// at the end of the source it was popped from. It replies 0 when the element is no
// longer in the destination (another client moved it on).
var moveBack = redis.NewScript(`
local count = 1
if ARGV[3] == 'RIGHT' then count = -1 end
if redis.call('LREM', KEYS[2], count, ARGV[1]) == 0 then return 0 end
if ARGV[2] == 'RIGHT' then redis.call('RPUSH', KEYS[1], ARGV[1]) else redis.call('LPUSH', KEYS[1], ARGV[1]) end
return 1
`)

// BLMove is BLMOVE, sent in rounds as described in the package documentation.
func (b *Backend) BLMove(ctx context.Context, src, dst, srcPos, dstPos string, timeout time.Duration) (string, bool, error) {
	args := []any{"blmove", src, dst, srcPos, dstPos, nil}
	r, ok, err := b.block(ctx, timeout, args, 5, func(wire context.Context, r any) (bool, error) {
		v, _ := r.(string)
		n, err := moveBack.Run(wire, b.c, []string{src, dst}, v, srcPos, dstPos).Int()
		return n == 1, err
	})
	if !ok || err != nil {
		return "", ok, err
	}
	s, isStr := r.(string)
	if !isStr {
		return "", false, fmt.Errorf("redisq: unexpected reply %v", r)
	}
	return s, true, nil
}
