package redisq_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/redisq"
)

// faultServer is a redis-server owned by one test, so that the test may pause, kill
// and restart it. Its append-only file (fsync always) lets a restart keep every
// acknowledged write, as a production server with persistence would.
type faultServer struct {
	t    *testing.T
	bin  string
	dir  string
	addr string
	cmd  *exec.Cmd
}

func newFaultServer(t *testing.T) *faultServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("ZLITE_REQUIRE_REDIS") == "1" {
			t.Fatal("redis-server required (ZLITE_REQUIRE_REDIS=1) but not in PATH")
		}
		t.Skip("skipping fault injection: it starts, pauses and kills its own redis-server, which is not installed (apt-get install redis-server)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	s := &faultServer{t: t, bin: bin, dir: t.TempDir(), addr: addr}
	s.start()
	t.Cleanup(func() {
		if s.cmd != nil {
			_ = s.cmd.Process.Signal(syscall.SIGCONT)
			s.kill()
		}
	})
	return s
}

func (s *faultServer) start() {
	s.t.Helper()
	_, port, _ := net.SplitHostPort(s.addr)
	s.cmd = exec.Command(s.bin, "--port", port, "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "yes", "--appendfsync", "always", "--dir", s.dir, "--loglevel", "warning")
	require.NoError(s.t, s.cmd.Start())
	// A start-up wait for an external process, not synchronisation between goroutines.
	c := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1})
	defer c.Close()
	for deadline := time.Now().Add(10 * time.Second); ; {
		if err := c.Ping(context.Background()).Err(); err == nil {
			return
		} else if time.Now().After(deadline) {
			s.t.Fatalf("redis-server on %s did not start: %v", s.addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *faultServer) signal(sig syscall.Signal) {
	s.t.Helper()
	require.NoError(s.t, s.cmd.Process.Signal(sig))
}

func (s *faultServer) kill() {
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// faultClient follows the package documentation's advice: no retries (a retried
// command may run twice on a paused server) and a read timeout longer than the
// pauses the test makes.
func faultClient(t *testing.T, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, ReadTimeout: 10 * time.Second,
		DialTimeout: 500 * time.Millisecond, PoolSize: 32})
	t.Cleanup(func() { c.Close() })
	return c
}

// returnsWhilePaused runs call with a ctx that ends after d while the server is
// paused, and requires that it returns ctx's error before the server is resumed: the
// bound is the ctx deadline plus the backend's patience and slice, not the pause.
func returnsWhilePaused(t *testing.T, name string, d time.Duration, call func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- call(ctx) }()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.DeadlineExceeded, name)
	case <-time.After(20 * time.Second):
		t.Fatalf("%s did not return while Redis was paused", name)
	}
}

// TestPausedRedis: with redis-server stopped (SIGSTOP), every queue call whose ctx
// ends returns ctx's error while the server is still stopped; once it resumes, what
// the abandoned commands took is put back, so the queues hold exactly what they held,
// in the same order, plus the pushes whose outcome was unknown, each once.
func TestPausedRedis(t *testing.T) {
	srv := newFaultServer(t)
	c := faultClient(t, srv.addr)
	b := redisq.New(c, &redisq.Options{Slice: 100 * time.Millisecond, Patience: 50 * time.Millisecond})
	ctx := context.Background()
	fifo := queues.NewFIFO(b, "fifo")
	empty := queues.NewFIFO(b, "empty")
	calls := queues.NewCallQueue(b, "calls")
	rel := queues.NewReliable(b, "rel", queues.WithLease(time.Minute))
	clock := &stepClock{t: time.Unix(1_700_000_000, 0)}
	delayed := queues.NewDelayed(b, "delayed", queues.WithClock(clock.Now))
	wait := queues.NewWaitlist(b, "wait")
	for i := range 5 {
		_, err := delayed.Schedule(ctx, fmt.Sprint("due-", i), clock.t.Add(time.Duration(i)*time.Second))
		require.NoError(t, err)
		require.NoError(t, wait.Add(ctx, fmt.Sprint("party-", i), 2))
		require.NoError(t, fifo.Push(ctx, fmt.Sprint("job-", i)))
		require.NoError(t, calls.Enqueue(ctx, fmt.Sprint("call-", i), float64(i%2)))
		_, err = rel.Push(ctx, fmt.Sprint("rel-", i))
		require.NoError(t, err)
	}

	srv.signal(syscall.SIGSTOP)
	returnsWhilePaused(t, "FIFO.Pop on an empty queue", 250*time.Millisecond, func(ctx context.Context) error {
		_, _, err := empty.Pop(ctx, 0)
		return err
	})
	returnsWhilePaused(t, "FIFO.Pop", 200*time.Millisecond, func(ctx context.Context) error {
		_, _, err := fifo.Pop(ctx, 0)
		return err
	})
	returnsWhilePaused(t, "FIFO.Push", 200*time.Millisecond, func(ctx context.Context) error {
		return fifo.Push(ctx, "late")
	})
	returnsWhilePaused(t, "CallQueue.TryDequeue", 200*time.Millisecond, func(ctx context.Context) error {
		_, _, err := calls.TryDequeue(ctx)
		return err
	})
	returnsWhilePaused(t, "Reliable.Pop", 200*time.Millisecond, func(ctx context.Context) error {
		_, _, err := rel.Pop(ctx, 0)
		return err
	})
	clock.advance(time.Minute) // all due
	returnsWhilePaused(t, "Delayed.Pop", 200*time.Millisecond, func(ctx context.Context) error {
		_, _, err := delayed.Pop(ctx, 0)
		return err
	})
	returnsWhilePaused(t, "Waitlist.Seat", 200*time.Millisecond, func(ctx context.Context) error {
		_, _, err := wait.Seat(ctx, 2, queues.Exact)
		return err
	})
	srv.signal(syscall.SIGCONT)
	b.Wait()
	f := b.Faults()
	t.Logf("faults: %+v", f)
	require.EqualValues(t, 7, f.Abandoned)
	require.EqualValues(t, 5, f.Restored, "the FIFO pop, the dequeue, the reliable pop, the delayed pop and the seat put back")
	require.Zero(t, f.Unrestored)

	var got []string
	for {
		v, ok, err := fifo.Pop(ctx, time.Millisecond)
		require.NoError(t, err)
		if !ok {
			break
		}
		got = append(got, v)
	}
	require.Equal(t, []string{"job-0", "job-1", "job-2", "job-3", "job-4", "late"}, got)
	var ids []string
	for {
		call, ok, err := calls.TryDequeue(ctx)
		require.NoError(t, err)
		if !ok {
			break
		}
		ids = append(ids, call.ID)
	}
	require.Equal(t, []string{"call-1", "call-3", "call-0", "call-2", "call-4"}, ids)
	ready, processing, err := rel.Len(ctx)
	require.NoError(t, err)
	require.Equal(t, [2]int64{5, 0}, [2]int64{ready, processing})
	d, ok, err := rel.Pop(ctx, time.Second)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "rel-0", d.Payload, "the put-back element is served first")
	jobs, err := delayed.Items(ctx, 0, 10)
	require.NoError(t, err)
	require.Len(t, jobs, 5)
	for i, j := range jobs {
		require.Equal(t, fmt.Sprint("due-", i), j.Payload)
		require.True(t, j.Due.Equal(clock.t.Add(time.Duration(i)*time.Second-time.Minute)), "job %d due %v", i, j.Due)
	}
	parties, err := wait.Items(ctx, 0, 10)
	require.NoError(t, err)
	var want []queues.Party
	for i := range 5 {
		want = append(want, queues.Party{Name: fmt.Sprint("party-", i), Seats: 2})
	}
	require.Equal(t, want, parties)
}

// TestRestartedRedis: redis-server killed (SIGKILL) under blocked consumers and
// restarted from its append-only file. Calls return while it is down; afterwards the
// FIFO holds no element twice (at most once), and the reliable queue, after its
// leases expire and Reap runs, has lost nothing (at least once).
func TestRestartedRedis(t *testing.T) {
	srv := newFaultServer(t)
	c := faultClient(t, srv.addr)
	b := redisq.New(c, &redisq.Options{Slice: 100 * time.Millisecond, Patience: 50 * time.Millisecond})
	ctx := context.Background()
	clock := &stepClock{t: time.Unix(1_700_000_000, 0)}
	fifo := queues.NewFIFO(b, "fifo")
	rel := queues.NewReliable(b, "rel", queues.WithLease(time.Minute), queues.WithClock(clock.Now))
	const n = 20
	for i := range n {
		require.NoError(t, fifo.Push(ctx, strconv.Itoa(i)))
		_, err := rel.Push(ctx, strconv.Itoa(i))
		require.NoError(t, err)
	}
	// Take some, leaving them in flight (popped, never acked) in the reliable queue.
	var fifoGot []string
	for range 5 {
		v, ok, err := fifo.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		fifoGot = append(fifoGot, v)
		_, ok, err = rel.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
	}

	// Consumers blocked on an empty queue when the server dies return an error.
	blocked := make(chan error, 1)
	go func() {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		_, _, err := queues.NewFIFO(b, "empty").Pop(cctx, 0)
		blocked <- err
	}()
	// Blocked, or about to send: either way it must return once the server is gone.
	srv.kill()
	select {
	case err := <-blocked:
		require.Error(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("a blocked Pop did not return after the server died")
	}
	// While it is down, calls fail or end with ctx.
	dctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_, _, err := fifo.Pop(dctx, 0)
	cancel()
	require.Error(t, err)

	srv.start()
	b.Wait()
	for {
		v, ok, err := fifo.Pop(ctx, time.Millisecond)
		require.NoError(t, err)
		if !ok {
			break
		}
		fifoGot = append(fifoGot, v)
	}
	seen := map[string]int{}
	for _, v := range fifoGot {
		seen[v]++
		require.Equal(t, 1, seen[v], "FIFO delivered %s twice", v)
	}
	t.Logf("FIFO: %d of %d delivered after the restart", len(fifoGot), n)

	// Leases of the in-flight elements expire; Reap puts them back.
	clock.advance(2 * time.Minute)
	reaped, err := rel.Reap(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 5, reaped)
	relGot := map[string]bool{}
	for {
		d, ok, err := rel.Pop(ctx, time.Millisecond)
		require.NoError(t, err)
		if !ok {
			break
		}
		relGot[d.Payload] = true
		_, err = rel.Ack(ctx, d)
		require.NoError(t, err)
	}
	for i := range n {
		require.True(t, relGot[strconv.Itoa(i)], "reliable queue lost %d", i)
	}
}

// stepClock is a clock moved by the test; queues.WithClock takes its Now.
type stepClock struct{ t time.Time }

func (c *stepClock) Now() time.Time          { return c.t }
func (c *stepClock) advance(d time.Duration) { c.t = c.t.Add(d) }
