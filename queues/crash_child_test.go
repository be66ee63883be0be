package queues_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
	"github.com/zlite/zlite/queues/redisq"
)

// The crash child: a worker of a Reliable queue in a process of its own (this test
// binary run again as TestCrashChildReliable), which the crash tests of
// crash_test.go SIGKILL. It reports on stdout, one line per call and only after the
// call returned:
//
//	ev push <id> <payload> <now>                                 Push returned id
//	ev pop <id> <payload> <attempt> <enqueued> <now> <lasterror> Pop delivered
//	ev ack <id>                                                  Ack returned true
//	ev fail <id>                                                 Fail returned true
//	ev hold <id>                                                 it keeps the lease
//	ev done                                                      its steps are over
//	ev error <what>: <err>                                       it gave up
//
// Times are Unix microseconds of the child's clock, a fake one that moves
// [crashStep] per step, so that its leases, retry due times and enqueue times are
// known to the parent exactly. In lockstep mode the child reads one byte from stdin
// after each line before it goes on, so the parent chooses exactly where it dies;
// otherwise it runs on and the parent's kill lands wherever the child is. Either way
// it waits on stdin after "done", and exits when stdin closes (the parent is gone).

// crashChildEnv carries the child's [crashChildConfig], as JSON.
const crashChildEnv = "ZLITE_QUEUES_CRASH_CHILD"

// crashChildConfig is what a crash child does.
type crashChildConfig struct {
	Backend     string // "redis" or "embedded"
	Addr        string // redis-server's address (redis)
	Dir         string // the zlite directory (embedded), opened with SyncAlways
	Queue       string
	Seed        uint64 // of the child's choices
	MaxAttempts int64
	Lockstep    bool
	Start       int64 // the child's clock at start, Unix microseconds
	Pushes      int   // how many elements the child pushes, among its pops
	Steps       int
}

// The policy every process of a crash test gives the queue.
const (
	crashLease  = time.Minute
	crashStep   = time.Millisecond // the child's clock per step
	crashBase   = 100 * time.Millisecond
	crashMax    = 400 * time.Millisecond
	crashJitter = 0.5
	crashRand   = 0.5 // the jitter sample: fixed, so due times are known
	// crashReason is the reason of the child's Fails, crashPoison that of the
	// parent's (it fails every element whose payload starts with "p-").
	crashReason = "child failed"
	crashPoison = "poison"
	// leaseExpired is the reason Reliable records for an expired lease.
	leaseExpired = "lease expired"
)

// crashQueue returns the crash tests' queue name on b with the clock now.
func crashQueue(b queues.Backend, name string, maxAttempts int64, now func() time.Time) *queues.Reliable {
	return queues.NewReliable(b, name, queues.WithLease(crashLease), queues.WithClock(now),
		queues.WithRetry(queues.RetryPolicy{Base: crashBase, Max: crashMax, Jitter: crashJitter,
			MaxAttempts: maxAttempts, Rand: func() float64 { return crashRand }}))
}

// TestCrashChildReliable is the crash child; it does nothing unless run by
// TestCrashReliableRedis or TestCrashReliableEmbedded.
func TestCrashChildReliable(t *testing.T) {
	env := os.Getenv(crashChildEnv)
	if env == "" {
		t.Skip("the child process of TestCrashReliableRedis and TestCrashReliableEmbedded, run by them")
	}
	var cfg crashChildConfig
	if err := json.Unmarshal([]byte(env), &cfg); err != nil {
		fmt.Printf("ev error config: %v\n", err)
		os.Exit(3)
	}
	crashChild(cfg)
}

// crashChild runs cfg and never returns: it ends by os.Exit, or by the parent's
// SIGKILL.
func crashChild(cfg crashChildConfig) {
	ctx := context.Background()
	in := bufio.NewReader(os.Stdin)
	wait := func() {
		if _, err := in.ReadByte(); err != nil {
			os.Exit(0) // the parent is gone
		}
	}
	emit := func(format string, args ...any) {
		fmt.Fprintf(os.Stdout, "ev "+format+"\n", args...)
		if cfg.Lockstep {
			wait()
		}
	}
	die := func(what string, err error) {
		fmt.Fprintf(os.Stdout, "ev error %s: %v\n", what, err)
		os.Exit(4)
	}
	var b queues.Backend
	switch cfg.Backend {
	case "redis":
		b = redisq.New(redis.NewClient(&redis.Options{Addr: cfg.Addr}), &redisq.Options{Slice: 50 * time.Millisecond})
	case "embedded":
		db, err := zlite.Open(cfg.Dir, zlite.WithSync(zlite.SyncAlways), zlite.WithAutoSnapshot(50, 16<<10))
		if err != nil {
			die("open", err)
		}
		b = embedded.New(db)
	default:
		die("config", fmt.Errorf("unknown backend %q", cfg.Backend))
	}
	clock := &fakeClock{t: time.UnixMicro(cfg.Start)}
	q := crashQueue(b, cfg.Queue, cfg.MaxAttempts, clock.Now)
	r := rand.New(rand.NewPCG(cfg.Seed, 2))
	pushed := 0
	for range cfg.Steps {
		clock.Advance(crashStep)
		now := clock.Now().UnixMicro()
		if pushed < cfg.Pushes && r.IntN(5) < 2 {
			payload := fmt.Sprintf("j-%d", pushed)
			if r.IntN(6) == 0 {
				payload = fmt.Sprintf("p-%d", pushed)
			}
			id, err := q.Push(ctx, payload)
			if err != nil {
				die("push", err)
			}
			pushed++
			emit("push %s %s %d", id, payload, now)
			continue
		}
		d, ok, err := q.Pop(ctx, time.Millisecond)
		if err != nil {
			die("pop", err)
		}
		if !ok {
			continue
		}
		emit("pop %s %s %d %d %d %q", d.ID, d.Payload, d.Attempt, d.Enqueued.UnixMicro(), now, d.LastError)
		switch k := r.IntN(20); {
		case k < 9:
			if ok, err := q.Ack(ctx, d); err != nil || !ok {
				die("ack "+d.ID, fmt.Errorf("got %v, %v; want true, nil", ok, err))
			}
			emit("ack %s", d.ID)
		case k < 14:
			if ok, err := q.Fail(ctx, d, errors.New(crashReason)); err != nil || !ok {
				die("fail "+d.ID, fmt.Errorf("got %v, %v; want true, nil", ok, err))
			}
			emit("fail %s", d.ID)
		default:
			emit("hold %s", d.ID)
		}
	}
	emit("done")
	for {
		wait()
	}
}
