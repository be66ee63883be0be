package compat

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/zlite/zlite"
	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/server"
)

// slack bounds the time a test may take between setting a TTL or a rate window and
// checking it: the figures compared are hours and minutes, the tests take
// milliseconds.
const slack = 10 * time.Second

// A target is one implementation of Redis that a test runs on.
type target struct {
	name string
	// node returns the go-redis client of the test's keyspace i (0 to 15), empty
	// when the test first asks for it. Different i are independent keyspaces, as
	// separate Redis nodes are; the client is closed when the test ends.
	node func(i int) *redis.Client
	// dial returns another client of keyspace 0, for a test to close: the
	// caller closes it.
	dial func() *redis.Client
}

// client returns the client of the test's first keyspace.
func (tg target) client() *redis.Client { return tg.node(0) }

// eachTarget runs test as the subtests impl=zlite and impl=redis. The second is
// skipped, with the reason, when no redis-server is reachable.
func eachTarget(t *testing.T, test func(t *testing.T, tg target)) {
	t.Helper()
	t.Run("impl=zlite", func(t *testing.T) { test(t, zliteTarget(t)) })
	t.Run("impl=redis", func(t *testing.T) { test(t, redisTarget(t, redistest.Require(t))) })
}

// zliteTarget gives each keyspace a new zlite DB, reached through server.Dialer.
func zliteTarget(t *testing.T) target {
	var mu sync.Mutex
	dbs := map[int]*zlite.DB{}
	client := func(i int) *redis.Client {
		mu.Lock()
		defer mu.Unlock()
		if dbs[i] == nil {
			dbs[i] = zlite.New()
		}
		return redis.NewClient(&redis.Options{Dialer: server.Dialer(dbs[i])})
	}
	return target{name: "zlite", node: nodes(t, client), dial: func() *redis.Client { return client(0) }}
}

// redisTarget maps keyspace i to database i of the redis-server at addr, emptied
// (FLUSHDB) before the test uses it. Tests run one at a time, so none sees
// another's keys.
func redisTarget(t *testing.T, addr string) target {
	return target{name: "redis", node: nodes(t, func(i int) *redis.Client {
		rdb := redis.NewClient(&redis.Options{Addr: addr, DB: i})
		if err := rdb.FlushDB(context.Background()).Err(); err != nil {
			t.Fatalf("FLUSHDB on db %d of %s: %v", i, addr, err)
		}
		return rdb
	}), dial: func() *redis.Client { return redis.NewClient(&redis.Options{Addr: addr}) }}
}

// nodes returns a node function that makes each keyspace's client once, with
// open, and closes them all when t ends.
func nodes(t *testing.T, open func(i int) *redis.Client) func(int) *redis.Client {
	var mu sync.Mutex
	clients := map[int]*redis.Client{}
	t.Cleanup(func() {
		for _, c := range clients {
			c.Close()
		}
	})
	return func(i int) *redis.Client {
		mu.Lock()
		defer mu.Unlock()
		if c, ok := clients[i]; ok {
			return c
		}
		c := open(i)
		clients[i] = c
		return c
	}
}

// keyFor returns a key of t's own: the tests share one redis-server.
func keyFor(t *testing.T, name string) string { return t.Name() + ":" + name }

// checkTTL fails t unless key's PTTL is in (want-slack, want].
func checkTTL(t *testing.T, rdb *redis.Client, key string, want time.Duration) {
	t.Helper()
	got, err := rdb.PTTL(context.Background(), key).Result()
	if err != nil || got > want || got <= want-slack {
		t.Errorf("PTTL %s = %v, %v; want in (%v, %v]", key, got, err, want-slack, want)
	}
}

// checkGet fails t unless GET key replies want (want "" for a missing key).
func checkGet(t *testing.T, rdb *redis.Client, key, want string) {
	t.Helper()
	got, err := rdb.Get(context.Background(), key).Result()
	if err == redis.Nil {
		got, err = "", nil
	}
	if err != nil || got != want {
		t.Errorf("GET %s = %q, %v; want %q", key, got, err, want)
	}
}

// exclusive checks that the critical sections of a contention test never
// overlap. Each goroutine calls [exclusive.section] while it holds the lock; the
// section counts the goroutines inside it and does a read-modify-write of a counter
// key (GET, then SET to one more), which loses increments if two run at once.
// Goroutines report failures with [exclusive.fail], never with t.Fatal.
type exclusive struct {
	counter  string
	inside   atomic.Int64 // goroutines in a section now
	entered  atomic.Int64 // sections entered
	overlaps atomic.Int64 // sections entered while another goroutine was inside

	mu   sync.Mutex
	errs []error
}

func (x *exclusive) section(ctx context.Context, rdb *redis.Client) {
	if x.inside.Add(1) != 1 {
		x.overlaps.Add(1)
	}
	x.entered.Add(1)
	n, err := rdb.Get(ctx, x.counter).Int()
	if err == redis.Nil {
		n, err = 0, nil
	}
	if err == nil {
		err = rdb.Set(ctx, x.counter, n+1, 0).Err()
	}
	x.inside.Add(-1)
	if err != nil {
		x.fail(fmt.Errorf("counter: %w", err))
	}
}

func (x *exclusive) fail(err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.errs = append(x.errs, err)
}

// check fails t unless every one of want sections ran, none overlapped another,
// and the counter key counts them all.
func (x *exclusive) check(t *testing.T, rdb *redis.Client, want int) {
	t.Helper()
	for _, err := range x.errs {
		t.Error(err)
	}
	if got := x.entered.Load(); got != int64(want) {
		t.Errorf("%d critical sections ran; want %d", got, want)
	}
	if got := x.overlaps.Load(); got != 0 {
		t.Errorf("%d critical sections overlapped another; want 0", got)
	}
	checkGet(t, rdb, x.counter, strconv.Itoa(want))
}

// together runs f(0) to f(n-1) on n goroutines released at the same moment, and
// waits for them all.
func together(n int, f func(i int)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			f(i)
		})
	}
	close(start)
	wg.Wait()
}
