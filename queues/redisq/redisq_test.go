package redisq_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zlite/zlite/internal/testmain"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/redisq"
)

func TestMain(m *testing.M) { testmain.Run(m) }

// client returns a client whose connections all carry a name unique to the test, so
// that CLIENT LIST can tell when one of them is blocked.
func client(t *testing.T) (*redis.Client, string) {
	addr := redistest.Require(t)
	name := fmt.Sprintf("redisq-%d", time.Now().UnixNano())
	c := redis.NewClient(&redis.Options{Addr: addr, OnConnect: func(ctx context.Context, cn *redis.Conn) error {
		return cn.ClientSetName(ctx, name).Err()
	}})
	t.Cleanup(func() { c.Close() })
	return c, name
}

// waitBlocked returns once a connection named name is blocked in cmd on the server.
// It polls the server (each poll is a round trip), as a start-up wait would.
func waitBlocked(t *testing.T, c *redis.Client, name, cmd string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		list, err := c.ClientList(context.Background()).Result()
		require.NoError(t, err)
		for _, line := range strings.Split(list, "\n") {
			if strings.Contains(line, " name="+name+" ") && strings.Contains(line, " cmd="+cmd) &&
				strings.Contains(line, " flags=b ") {
				return
			}
		}
	}
	t.Fatalf("no connection named %s blocked in %s", name, cmd)
}

// TestTakenAfterCancelIsReturned: an element Redis hands to a blocking round that
// was on the wire when ctx was cancelled is returned, not lost.
func TestTakenAfterCancelIsReturned(t *testing.T) {
	c, name := client(t)
	b := redisq.New(c, &redisq.Options{Slice: 5 * time.Second})
	key := "{" + name + "}:items"
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		v   string
		ok  bool
		err error
	}
	done := make(chan result)
	go func() {
		_, v, ok, err := b.BRPop(ctx, 0, key)
		done <- result{v, ok, err}
	}()
	waitBlocked(t, c, name, "brpop")
	cancel()
	_, err := c.LPush(context.Background(), key, "x").Result()
	require.NoError(t, err)
	require.Equal(t, result{"x", true, nil}, <-done)
	require.Equal(t, redisq.Faults{}, b.Faults())
}

// TestCancelledPopTakesNothing: a blocking call cancelled during a round returns
// ctx.Err() when the round ends, and what arrives afterwards stays in the queue.
func TestCancelledPopTakesNothing(t *testing.T) {
	for _, tc := range []struct {
		cmd string
		pop func(ctx context.Context, b *redisq.Backend, k string) error
		put func(c *redis.Client, k string) error
		n   func(c *redis.Client, k string) (int64, error)
	}{
		{"brpop", func(ctx context.Context, b *redisq.Backend, k string) error {
			_, _, _, err := b.BRPop(ctx, 0, k)
			return err
		}, func(c *redis.Client, k string) error { return c.LPush(context.Background(), k, "v").Err() },
			func(c *redis.Client, k string) (int64, error) { return c.LLen(context.Background(), k).Result() }},
		{"bzpopmin", func(ctx context.Context, b *redisq.Backend, k string) error {
			_, _, _, err := b.BZPopMin(ctx, 0, k)
			return err
		}, func(c *redis.Client, k string) error {
			return c.ZAdd(context.Background(), k, redis.Z{Score: 1, Member: "m"}).Err()
		}, func(c *redis.Client, k string) (int64, error) { return c.ZCard(context.Background(), k).Result() }},
		{"blmove", func(ctx context.Context, b *redisq.Backend, k string) error {
			_, _, err := b.BLMove(ctx, k, k+"-dst", "RIGHT", "LEFT", 0)
			return err
		}, func(c *redis.Client, k string) error { return c.LPush(context.Background(), k, "v").Err() },
			func(c *redis.Client, k string) (int64, error) { return c.LLen(context.Background(), k).Result() }},
	} {
		t.Run("cmd="+tc.cmd, func(t *testing.T) {
			c, name := client(t)
			b := redisq.New(c, &redisq.Options{Slice: 200 * time.Millisecond})
			key := "{" + name + "}:items"
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error)
			go func() { done <- tc.pop(ctx, b, key) }()
			waitBlocked(t, c, name, tc.cmd)
			cancel()
			require.ErrorIs(t, <-done, context.Canceled)
			require.NoError(t, tc.put(c, key))
			b.Wait() // a round abandoned on a slow machine puts back what it took
			n, err := tc.n(c, key)
			require.NoError(t, err)
			require.EqualValues(t, 1, n, "%s: element not put back", tc.cmd)
		})
	}
}

// TestTimeoutAcrossRounds: a timeout longer than a round ends the call with ok false.
func TestTimeoutAcrossRounds(t *testing.T) {
	c, name := client(t)
	b := redisq.New(c, &redisq.Options{Slice: 20 * time.Millisecond})
	_, ok, err := b.BLMove(context.Background(), "{"+name+"}:a", "{"+name+"}:b", "RIGHT", "LEFT", 70*time.Millisecond)
	require.NoError(t, err)
	require.False(t, ok)
	require.Equal(t, 100*time.Millisecond, redisq.New(c, nil).TimeoutResolution())
}

// TestScriptError: a script error reaches the caller with Redis's text.
func TestScriptError(t *testing.T) {
	c, name := client(t)
	b := redisq.New(c, nil)
	ctx := context.Background()
	q := queues.NewFIFO(b, name)
	require.NoError(t, q.Push(ctx, "x"))
	s := queues.NewScript(`return redis.call('ZADD', KEYS[1], 1, 'm')`, nil)
	_, err := b.Eval(ctx, s, []string{"{" + name + "}:items"})
	require.ErrorContains(t, err, "WRONGTYPE")
}

// BenchmarkDetach is what running each command on its own goroutine (so that a
// cancellable ctx can abandon it) costs next to the inline call a ctx that cannot
// be cancelled gets: LPUSH + BRPOP of one element, one round trip each.
func BenchmarkDetach(b *testing.B) {
	addr := redistest.Require(b)
	c := redis.NewClient(&redis.Options{Addr: addr})
	b.Cleanup(func() { c.Close() })
	be := redisq.New(c, nil)
	cancellable, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	for _, tc := range []struct {
		name string
		ctx  context.Context
	}{{"background", context.Background()}, {"cancellable", cancellable}} {
		b.Run("op=pushpop/ctx="+tc.name, func(b *testing.B) {
			key := fmt.Sprintf("{bench-%d}:items", time.Now().UnixNano())
			b.ReportAllocs()
			for b.Loop() {
				if _, err := be.LPush(tc.ctx, key, "x"); err != nil {
					b.Fatal(err)
				}
				if _, _, ok, err := be.BRPop(tc.ctx, time.Second, key); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
	}
}
