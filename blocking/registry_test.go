package blocking

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zlite/zlite/internal/testmain"
)

// req is the fake request of these tests: up to n items (0: one) from the first of
// its keys that has any. Requests with other set never accept an item, like a
// BZPOPMIN waiting on a key that holds a list.
type req struct {
	n     int
	other bool
	key   string // served from
	got   []int
}

// store is a fake keyspace: each key holds a FIFO list of ints.
type store struct {
	mu   sync.Mutex
	data map[string][]int
	reg  Registry[req]
}

func newStore() *store { return &store{data: map[string][]int{}} }

// serve is the ServeFunc: it gives w up to w.Req.n items of key.
func (s *store) serve(key string, w *Waiter[req]) (served, exhausted bool) {
	d := s.data[key]
	if len(d) == 0 {
		return false, true
	}
	if w.Req.other {
		return false, false
	}
	n := min(max(w.Req.n, 1), len(d))
	w.Req.key = key
	w.Req.got = append(w.Req.got, d[:n]...)
	if n == len(d) {
		delete(s.data, key)
		return true, true
	}
	s.data[key] = d[n:]
	return true, false
}

// write runs fn under the lock, then serves the keys fn marked ready, as a
// keyspace's command does.
func (s *store) write(t testing.TB, fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn()
	s.reg.ServeReady(s.serve)
	if err := s.reg.Check(); err != nil {
		t.Error(err)
	}
}

// push appends items to key and marks it ready (without serving).
func (s *store) push(key string, items ...int) {
	s.data[key] = append(s.data[key], items...)
	s.reg.MarkReady(key)
}

// pop is the blocking call: try the keys in order, then wait.
func (s *store) pop(ctx context.Context, timeout time.Duration, r req, keys ...string) (req, bool, error) {
	w := s.reg.NewWaiter(keys)
	defer w.Release()
	w.Req = r
	s.mu.Lock()
	for _, k := range w.Keys() {
		if served, _ := s.serve(k, w); served {
			s.mu.Unlock()
			return w.Req, true, nil
		}
	}
	served, err := s.reg.Wait(ctx, &s.mu, w, timeout)
	return w.Req, served, err
}

type result struct {
	r      req
	served bool
	err    error
}

// goPop starts pop in a goroutine of the synctest bubble and returns once it is
// blocked (or done).
func (s *store) goPop(ctx context.Context, timeout time.Duration, r req, keys ...string) <-chan result {
	ch := make(chan result, 1)
	go func() {
		r, served, err := s.pop(ctx, timeout, r, keys...)
		ch <- result{r, served, err}
	}()
	synctest.Wait()
	return ch
}

// done returns ch's result if the pop has returned.
func done(ch <-chan result) (result, bool) {
	synctest.Wait()
	select {
	case r := <-ch:
		return r, true
	default:
		return result{}, false
	}
}

func mustGet(t *testing.T, ch <-chan result, key string, items ...int) {
	t.Helper()
	r, ok := done(ch)
	require.True(t, ok, "pop still blocked; want %s %v", key, items)
	require.NoError(t, r.err)
	require.True(t, r.served, "pop not served; want %s %v", key, items)
	require.Equal(t, key, r.r.key)
	require.Equal(t, items, r.r.got)
}

func mustBlock(t *testing.T, ch <-chan result) {
	t.Helper()
	r, ok := done(ch)
	require.False(t, ok, "pop returned %+v; want still blocked", r)
}

func (s *store) stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reg.Stats()
}

func TestFIFO(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		p1 := s.goPop(ctx, 0, req{}, "k")
		ctx2, cancel := context.WithCancel(ctx)
		p2 := s.goPop(ctx2, 0, req{other: true}, "k") // skipped, stays blocked
		p3 := s.goPop(ctx, 0, req{n: 2}, "k")
		p4 := s.goPop(ctx, 0, req{}, "k")
		require.Equal(t, 4, s.stats().Blocked)
		s.write(t, func() { s.push("k", 1) }) // one item wakes exactly one waiter
		mustGet(t, p1, "k", 1)
		mustBlock(t, p3)
		s.write(t, func() { s.push("k", 2, 3, 4, 5) }) // served from the final state, in order
		mustGet(t, p3, "k", 2, 3)
		mustGet(t, p4, "k", 4)
		mustBlock(t, p2)
		require.Equal(t, []int{5}, s.data["k"])
		require.Equal(t, 1, s.stats().Blocked)
		cancel()
		r, ok := done(p2)
		require.True(t, ok)
		require.ErrorIs(t, r.err, context.Canceled)
		require.False(t, r.served)
	})
}

func TestMultiKeyServedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		pab := s.goPop(ctx, 0, req{}, "a", "b", "a")
		pb := s.goPop(ctx, 0, req{}, "b")
		// Keys are served in marking order: b first, though the waiter named a first.
		s.write(t, func() {
			s.push("b", 1)
			s.push("a", 2)
			s.push("b", 3)
		})
		mustGet(t, pab, "b", 1)
		mustGet(t, pb, "b", 3)
		require.Equal(t, []int{2}, s.data["a"], "a's item was taken by a waiter already served")
		require.Equal(t, 0, s.stats().Blocked)
	})
}

func TestServeReadyChain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := newStore()
		// A ServeFunc that moves what it takes from "a" to "b" (like BLMOVE) marks
		// b ready; b's waiter is served in the same ServeReady.
		move := func(key string, w *Waiter[req]) (bool, bool) {
			served, exhausted := s.serve(key, w)
			if served && key == "a" {
				s.push("b", w.Req.got...)
			}
			return served, exhausted
		}
		pa := s.goPop(ctx, 0, req{}, "a")
		pb := s.goPop(ctx, 0, req{}, "b")
		s.mu.Lock()
		s.push("a", 7)
		s.reg.ServeReady(move)
		require.NoError(t, s.reg.Check())
		s.mu.Unlock()
		mustGet(t, pa, "a", 7)
		mustGet(t, pb, "b", 7)
		require.Empty(t, s.data)
	})
}

// TestGenerations reuses a waiter whose entry is still in another key's queue: the
// stale entry must not be offered anything.
func TestGenerations(t *testing.T) {
	var reg Registry[req]
	w := reg.NewWaiter([]string{"a", "b"})
	reg.enqueue(w)
	reg.Serve("a", func(string, *Waiter[req]) (bool, bool) { return true, true })
	<-w.ch
	require.Equal(t, 0, reg.Blocked())
	require.False(t, reg.Waiting("b"), "b's entry is dead once w is served on a")
	// Reuse w on c and b: its old entry in b (generation 1) stays dead; the new one
	// (generation 2) is live and is offered b exactly once.
	w.keys = appendDistinct(w.keybuf[:0], []string{"c", "b"})
	reg.enqueue(w)
	require.NoError(t, reg.Check())
	offers := 0
	reg.Serve("b", func(string, *Waiter[req]) (bool, bool) { offers++; return true, false })
	require.Equal(t, 1, offers)
	<-w.ch
	require.NoError(t, reg.Check())
	require.False(t, reg.Waiting("c"))
}

// TestDeadEntriesBounded: a waiter on (a, b) is served on a over and over while b is
// never written. Its dead entries in b's queue must not pile up.
func TestDeadEntriesBounded(t *testing.T) {
	var reg Registry[req]
	keep := reg.NewWaiter([]string{"b"})
	reg.enqueue(keep) // b's queue always has a live entry, so it is never reset
	for range 10000 {
		w := reg.NewWaiter([]string{"a", "b"})
		reg.enqueue(w)
		reg.Serve("a", func(string, *Waiter[req]) (bool, bool) { return true, true })
		<-w.ch
		w.Release()
	}
	require.NoError(t, reg.Check())
	st := reg.Stats()
	require.LessOrEqual(t, st.Entries, 20, "queues hold %d entries for 1 blocked waiter", st.Entries)
}

// TestLastQueueSwept: the queue the registry remembers (queueOf) may be swept and
// handed to another key by the very enqueue that swept it; the key it was
// remembered for must not find it then. The sweep frees queues in map order, so
// the scenario is repeated until b gets a's old queue.
func TestLastQueueSwept(t *testing.T) {
	for try := 0; ; try++ {
		require.Less(t, try, 10000, "b never got a's queue")
		var reg Registry[req]
		block := func(key string) *Waiter[req] {
			w := reg.NewWaiter([]string{key})
			reg.enqueue(w)
			return w
		}
		giveUp := func(w *Waiter[req]) {
			reg.unlink(w)
			w.Release()
		}
		giveUp(block("a"))
		for i := range sweepMin - 1 { // dead queues enough for the next new key to sweep
			giveUp(block("k" + strconv.Itoa(i)))
		}
		qa := reg.queueOf("a") // a's queue is dead and now the one remembered
		require.NotNil(t, qa)
		require.Equal(t, "a", reg.lastKey)
		b := block("b") // sweeps, and may take a's queue
		if reg.queues["b"] != qa {
			giveUp(b)
			continue
		}
		require.False(t, reg.Waiting("a"), "a finds b's queue through the memo")
		require.True(t, reg.Waiting("b"))
		served := ""
		reg.Serve("a", func(key string, w *Waiter[req]) (bool, bool) { served = key; return true, true })
		require.Empty(t, served, "a serve of a reached b's waiter")
		require.NoError(t, reg.Check())
		giveUp(b)
		require.NoError(t, reg.Check())
		return
	}
}

// TestSweepBudget: whatever the mix of waiters and keys, sweeps examine at most two
// queues per key ever enqueued (a regression once had one waiter on 20k keys sweep
// the whole map once per key).
func TestSweepBudget(t *testing.T) {
	var reg Registry[req]
	keys := 0
	block := func(ks ...string) *Waiter[req] {
		w := reg.NewWaiter(ks)
		reg.enqueue(w)
		keys += len(w.Keys())
		return w
	}
	giveUp := func(w *Waiter[req]) {
		reg.unlink(w)
		w.Release()
	}
	many := make([]string, 20000)
	for i := range many {
		many[i] = "k" + strconv.Itoa(i)
	}
	giveUp(block(many...)) // one waiter, many keys
	for i := range 5000 {  // many one-key waiters on keys nobody waits on any more
		giveUp(block("s" + strconv.Itoa(i)))
	}
	var live []*Waiter[req] // many waiters on few keys, and few on many
	for i := range 3000 {
		live = append(live, block("q"+strconv.Itoa(i%7)))
	}
	giveUp(block(many[:10000]...))
	w := block(many...)
	require.NoError(t, reg.Check())
	st := reg.Stats()
	require.LessOrEqual(t, st.Swept, 2*keys, "sweeps examined %d queues for %d keys enqueued", st.Swept, keys)
	require.LessOrEqual(t, st.Queues, 2*(len(many)+7)+sweepMin)
	giveUp(w)
	for _, w := range live {
		giveUp(w)
	}
	require.NoError(t, reg.Check())
}

func TestAppendDistinct(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{nil, nil},
		{[]string{"a"}, []string{"a"}},
		{[]string{"a", "b", "a", "c", "b"}, []string{"a", "b", "c"}},
		{[]string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "1", "10", "9"}, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}},
	} {
		got := appendDistinct(nil, tc.in)
		require.Equal(t, tc.want, got, "appendDistinct(%q)", tc.in)
	}
}

// TestNewWaiterKeys checks the keys a waiter keeps: one key as given (NewWaiter's
// path without appendDistinct), several without repeats.
func TestNewWaiterKeys(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"a"}, []string{"a"}},
		{[]string{"a", "a"}, []string{"a"}},
		{[]string{"b", "a", "b"}, []string{"b", "a"}},
	} {
		var reg Registry[req]
		w := reg.NewWaiter(tc.in)
		require.Equal(t, tc.want, w.Keys(), "NewWaiter(%q)", tc.in)
		w.Release()
	}
}

// TestServedEntriesDropped checks that the entries a queue drops (reset of a queue
// whose waiters are all gone, trim of served ones at its head) are zeroed in the
// queue's backing array, so that they keep no waiter alive for the collector.
func TestServedEntriesDropped(t *testing.T) {
	for _, tc := range []struct {
		name           string
		waiters, serve int
	}{
		{"the one waiter served: reset of one entry", 1, 1},
		{"all of three served: reset of three", 3, 3},
		{"first of three served: trim of one", 3, 1},
		{"two of three served: trim of two", 3, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var reg Registry[req]
			var ws []*Waiter[req]
			for range tc.waiters {
				w := reg.NewWaiter([]string{"k"})
				reg.enqueue(w)
				ws = append(ws, w)
			}
			q := reg.queues["k"]
			backing := q.ws[:cap(q.ws)]
			served := 0
			reg.Serve("k", func(string, *Waiter[req]) (bool, bool) {
				served++
				return true, served == tc.serve
			})
			require.Equal(t, tc.serve, served)
			require.NoError(t, reg.Check())
			require.Len(t, q.ws, tc.waiters-tc.serve, "live entries left")
			for i, e := range backing[:tc.serve] {
				require.Nil(t, e.w, "dropped entry %d still holds its waiter", i)
			}
			for _, w := range ws[:tc.serve] {
				<-w.ch
			}
		})
	}
}

// TestTimeout checks that a waiter times out on the fake clock, exactly, and is then
// unreachable.
func TestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStore()
		start := time.Now()
		p := s.goPop(context.Background(), 1500*time.Millisecond, req{}, "k")
		time.Sleep(1499 * time.Millisecond)
		mustBlock(t, p)
		time.Sleep(time.Millisecond)
		r, ok := done(p)
		require.True(t, ok)
		require.False(t, r.served)
		require.NoError(t, r.err)
		require.Equal(t, 1500*time.Millisecond, time.Since(start))
		s.write(t, func() { s.push("k", 1) })
		require.Equal(t, []int{1}, s.data["k"])
	})
}

// TestCancelPolicy: a done ctx still gets what is there (the keys are tried first);
// with nothing there it returns ctx.Err() without blocking.
func TestCancelPolicy(t *testing.T) {
	s := newStore()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.data["k"] = []int{1}
	r, served, err := s.pop(ctx, 0, req{}, "k")
	require.True(t, served)
	require.NoError(t, err)
	require.Equal(t, []int{1}, r.got)
	_, served, err = s.pop(ctx, 0, req{}, "k")
	require.False(t, served)
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 0, s.reg.Blocked())
}

// TestRaceWithServe makes a timeout or a cancel happen at the same instant as the
// serve that hands the waiter its item, in each of the orders the scheduler picks:
// the item must end up either with the waiter (served, whatever fired) or left in
// the store (not served), never both and never neither.
func TestRaceWithServe(t *testing.T) {
	for _, mode := range []string{"timeout", "cancel", "cancel-under-lock"} {
		t.Run("mode="+mode, func(t *testing.T) {
			outcomes := map[bool]int{}
			for range 300 {
				synctest.Test(t, func(t *testing.T) {
					s := newStore()
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					timeout := time.Duration(0)
					if mode == "timeout" {
						timeout = time.Millisecond
					}
					p := s.goPop(ctx, timeout, req{}, "k", "x")
					switch mode {
					case "timeout":
						time.Sleep(time.Millisecond) // the timer fires now too
						s.write(t, func() { s.push("k", 1) })
					case "cancel":
						cancel()
						s.write(t, func() { s.push("k", 1) })
					default:
						s.write(t, func() {
							cancel()
							s.push("k", 1)
						})
					}
					r, ok := done(p)
					require.True(t, ok, "pop still blocked")
					left := len(s.data["k"])
					if r.served {
						require.NoError(t, r.err)
						require.Equal(t, []int{1}, r.r.got)
						require.Equal(t, 0, left, "item both delivered and left in the store")
					} else {
						require.Equal(t, 1, left, "item lost: not delivered, not in the store")
					}
					require.NoError(t, s.reg.Check())
					outcomes[r.served]++
				})
			}
			t.Logf("served %d, not served %d", outcomes[true], outcomes[false])
			if mode == "cancel-under-lock" {
				require.Equal(t, 300, outcomes[true], "cancelled while the serve held the lock: always served")
			}
		})
	}
}

// TestStress runs producers and consumers on real goroutines and the real clock:
// consumers block on random key sets with random timeouts and cancellations. Every
// item pushed is received once or left in the store.
func TestStress(t *testing.T) {
	sd := testmain.Seed(t)
	const (
		nkeys     = 5
		producers = 3
		consumers = 6
		perProd   = 2000
	)
	s := newStore()
	var (
		wg       sync.WaitGroup
		recvMu   sync.Mutex
		received = map[int]int{}
		stop     = make(chan struct{})
	)
	for c := range consumers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(sd, uint64(c)))
			for {
				select {
				case <-stop:
					return
				default:
				}
				keys := make([]string, 1+rng.IntN(3))
				for i := range keys {
					keys[i] = "k" + strconv.Itoa(rng.IntN(nkeys))
				}
				ctx, cancel := context.WithCancel(context.Background())
				if rng.IntN(4) == 0 {
					go cancel()
				}
				timeout := time.Duration(rng.IntN(200)) * time.Microsecond
				r, served, err := s.pop(ctx, timeout, req{n: rng.IntN(3)}, keys...)
				cancel()
				if served != (len(r.got) > 0) || (err != nil && served) {
					t.Errorf("pop = %+v, %v, %v", r, served, err)
				}
				recvMu.Lock()
				for _, v := range r.got {
					received[v]++
				}
				recvMu.Unlock()
			}
		})
	}
	var pw sync.WaitGroup
	for p := range producers {
		pw.Go(func() {
			rng := rand.New(rand.NewPCG(sd, uint64(100+p)))
			for i := range perProd {
				s.write(t, func() { s.push("k"+strconv.Itoa(rng.IntN(nkeys)), p*perProd+i) })
			}
		})
	}
	pw.Wait()
	close(stop)
	wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.data {
		for _, v := range d {
			received[v]++
		}
	}
	require.Len(t, received, producers*perProd)
	for v, n := range received {
		require.Equal(t, 1, n, "item %d seen %d times", v, n)
	}
	require.NoError(t, s.reg.Check())
	require.Equal(t, 0, s.reg.Blocked())
}

// BenchmarkBlockServe measures the registry's work for one blocking pop on n keys,
// in one goroutine: a waiter from the pool, enqueued on its keys, served on its last
// key by ServeReady, its signal received and the waiter released. The cost must grow
// linearly with n (ns/key flat) and allocate nothing for a few keys.
func BenchmarkBlockServe(b *testing.B) {
	for _, n := range []int{1, 4, 100, 10000} {
		b.Run("op=block-serve/keys="+strconv.Itoa(n), func(b *testing.B) {
			keys := make([]string, n)
			for i := range keys {
				keys[i] = "k" + strconv.Itoa(i)
			}
			var reg Registry[req]
			serve := func(string, *Waiter[req]) (bool, bool) { return true, true }
			b.ReportAllocs()
			for b.Loop() {
				w := reg.NewWaiter(keys)
				reg.enqueue(w)
				reg.MarkReady(keys[n-1])
				reg.ServeReady(serve)
				<-w.ch
				w.Release()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/key")
		})
	}
}
