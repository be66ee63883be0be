package queues_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zlite/zlite/internal/testmain"

	"github.com/redis/go-redis/v9"

	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/redisq"
)

func TestMain(m *testing.M) { testmain.Run(m) }

// backend is one implementation under test.
type backend struct {
	name string
	new  func(t testing.TB) queues.Backend
}

// backends lists every implementation: the contract tests run against each.
var backends = []backend{
	{"embedded", newEmbedded},
	{"redis", newRedis},
}

// With ZLITE_REDIS_CLUSTER set to a comma-separated list of cluster nodes, the suite
// also runs on that Redis Cluster through a ClusterClient (impl=cluster).
func init() {
	if addrs := os.Getenv("ZLITE_REDIS_CLUSTER"); addrs != "" {
		backends = append(backends, backend{"cluster", func(t testing.TB) queues.Backend {
			c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: strings.Split(addrs, ","), PoolSize: 64})
			t.Cleanup(func() { c.Close() })
			return redisq.New(c, &redisq.Options{Slice: 50 * time.Millisecond})
		}})
	}
}

// newRedis returns a go-redis backend on the test server, or skips.
func newRedis(t testing.TB) queues.Backend {
	addr := redistest.Require(t)
	c := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 64})
	t.Cleanup(func() { c.Close() })
	return redisq.New(c, &redisq.Options{Slice: 50 * time.Millisecond})
}

var nameSeq atomic.Int64

// qname returns a queue name no other test (or earlier run against the same server)
// uses, so tests need not flush a shared server.
func qname(t testing.TB) string {
	return fmt.Sprintf("%s-%d-%d", t.Name(), time.Now().UnixNano(), nameSeq.Add(1))
}

// each runs f once per backend as a subtest.
func each(t *testing.T, f func(t *testing.T, b queues.Backend)) {
	for _, bk := range backends {
		t.Run("impl="+bk.name, func(t *testing.T) { f(t, bk.new(t)) })
	}
}

// fakeClock is a clock that moves only when told to; queues.WithClock takes its Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// guard is a generous deadlock guard for blocking calls in tests.
func guard(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// testSeed returns the seed of a randomized test: ZLITE_SEED when set (to replay a
// run), else the time. It logs it.
func testSeed(t testing.TB) uint64 {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("ZLITE_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("ZLITE_SEED=%d", seed)
	return seed
}

// errOnly drops the id an enqueue returns, for calls that check only the error.
func errOnly(_ string, err error) error { return err }
