package restarttest

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// restart runs before on a DB opened in a fresh directory, closes it, and runs
// after on the directory opened again.
func restart(t *testing.T, before, after func(b queues.Backend)) {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []func(queues.Backend){before, after} {
		db, err := zlite.Open(dir, zlite.WithSync(zlite.SyncAlways))
		if err != nil {
			t.Fatal(err)
		}
		f(embedded.New(db))
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var ctx = context.Background()

func TestFIFO(t *testing.T) {
	restart(t, func(b queues.Backend) {
		q := queues.NewFIFO(b, "f")
		must(t, q.Push(ctx, "a", "b", "c"))
		if v, ok, err := q.Pop(ctx, time.Second); v != "a" || !ok || err != nil {
			t.Fatalf("Pop = %q, %v, %v; want a", v, ok, err)
		}
	}, func(b queues.Backend) {
		q := queues.NewFIFO(b, "f")
		var got []string
		for {
			v, ok, err := q.Pop(ctx, time.Millisecond)
			must(t, err)
			if !ok {
				break
			}
			got = append(got, v)
		}
		if !slices.Equal(got, []string{"b", "c"}) {
			t.Fatalf("after restart: popped %q; want [b c] (a was delivered before)", got)
		}
	})
}

func TestLevels(t *testing.T) {
	levels := []string{"high", "low"}
	restart(t, func(b queues.Backend) {
		q := queues.NewLevels(b, "lv", levels)
		must(t, q.Push(ctx, "low", "l1"))
		must(t, q.Push(ctx, "high", "h1", "h2"))
		if _, v, ok, err := q.Pop(ctx, time.Second); v != "h1" || !ok || err != nil {
			t.Fatalf("Pop = %q, %v, %v; want h1", v, ok, err)
		}
	}, func(b queues.Backend) {
		q := queues.NewLevels(b, "lv", levels)
		var got []string
		for range 2 {
			lvl, v, ok, err := q.Pop(ctx, time.Second)
			must(t, err)
			if !ok {
				t.Fatal("Pop: nothing")
			}
			got = append(got, lvl+":"+v)
		}
		if !slices.Equal(got, []string{"high:h2", "low:l1"}) {
			t.Fatalf("after restart: %q; want [high:h2 low:l1]", got)
		}
	})
}

func TestPriority(t *testing.T) {
	restart(t, func(b queues.Backend) {
		q := queues.NewPriority(b, "p")
		must(t, errOnly(q.Push(ctx, "x", 1)))
		must(t, errOnly(q.Push(ctx, "y", 5)))
		must(t, errOnly(q.Push(ctx, "z", 3)))
		if v, _, ok, err := q.Pop(ctx, time.Second); !ok || err != nil {
			t.Fatalf("Pop = %q, %v, %v", v, ok, err)
		}
	}, func(b queues.Backend) {
		q := queues.NewPriority(b, "p")
		n, err := q.Len(ctx)
		must(t, err)
		if n != 2 {
			t.Fatalf("Len after restart = %d; want 2", n)
		}
	})
}

// TestReliable: a delivery acknowledged before the restart never comes back; one
// leased but not acknowledged is delivered again once its lease has expired
// (at-least-once), exactly once.
func TestReliable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lease := queues.WithLease(time.Minute)
		restart(t, func(b queues.Backend) {
			q := queues.NewReliable(b, "r", lease)
			for _, p := range []string{"j1", "j2", "j3"} {
				_, err := q.Push(ctx, p)
				must(t, err)
			}
			d1, ok, err := q.Pop(ctx, time.Second)
			must(t, err)
			if !ok || d1.Payload != "j1" {
				t.Fatalf("Pop = %v, %v", d1, ok)
			}
			if ok, err := q.Ack(ctx, d1); !ok || err != nil {
				t.Fatalf("Ack = %v, %v", ok, err)
			}
			if _, ok, err := q.Pop(ctx, time.Second); !ok || err != nil { // j2 leased, never acked
				t.Fatalf("Pop = %v, %v", ok, err)
			}
		}, func(b queues.Backend) {
			q := queues.NewReliable(b, "r", lease)
			ready, processing, err := q.Len(ctx)
			must(t, err)
			if ready != 1 || processing != 1 {
				t.Fatalf("Len after restart = %d ready, %d processing; want 1, 1", ready, processing)
			}
			time.Sleep(2 * time.Minute) // fake time: the lease of j2 expires
			_, err = q.Reap(ctx)
			must(t, err)
			var got []string
			for {
				d, ok, err := q.Pop(ctx, time.Millisecond)
				must(t, err)
				if !ok {
					break
				}
				got = append(got, d.Payload)
				q.Ack(ctx, d)
			}
			slices.Sort(got)
			if !slices.Equal(got, []string{"j2", "j3"}) {
				t.Fatalf("after restart: delivered %q; want j2 (again) and j3, not the acknowledged j1", got)
			}
		})
	})
}

// TestDelayed: a job scheduled for later before the restart is not due at once
// after it, and a Pop started after the restart returns it when it becomes due:
// the timer is armed again from the stored due times. Fake time (synctest).
func TestDelayed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		restart(t, func(b queues.Backend) {
			q := queues.NewDelayed(b, "d")
			must(t, errOnly(q.Schedule(ctx, "later", start.Add(time.Hour))))
			must(t, errOnly(q.Schedule(ctx, "now", start)))
		}, func(b queues.Backend) {
			q := queues.NewDelayed(b, "d")
			j, ok, err := q.TryPop(ctx)
			must(t, err)
			if !ok || j.Payload != "now" {
				t.Fatalf("TryPop = %v, %v; want the due job", j, ok)
			}
			if j, ok, _ := q.TryPop(ctx); ok {
				t.Fatalf("TryPop = %v before it is due", j)
			}
			j, ok, err = q.Pop(ctx, 2*time.Hour)
			must(t, err)
			if !ok || j.Payload != "later" {
				t.Fatalf("Pop = %v, %v; want the later job", j, ok)
			}
			if waited := time.Since(start); waited < time.Hour {
				t.Fatalf("Pop returned after %v; the job was due after 1h", waited)
			}
		})
	})
}

// TestScheduler: future jobs survive the restart and Run moves each into its queue
// when due, after the restart, once.
func TestScheduler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		restart(t, func(b queues.Backend) {
			s := queues.NewScheduler(b, "s")
			must(t, errOnly(s.AddFutureJob(ctx, queues.FutureJob{Queue: "work", Func: "f1"}, start.Add(time.Minute))))
			must(t, errOnly(s.AddFutureJob(ctx, queues.FutureJob{Queue: "work", Func: "f2"}, start.Add(time.Hour))))
		}, func(b queues.Backend) {
			s := queues.NewScheduler(b, "s")
			rctx, cancel := context.WithCancel(ctx)
			var moved []string
			done := make(chan error)
			go func() {
				done <- s.Run(rctx, func(js []queues.FutureJob) {
					for _, j := range js {
						moved = append(moved, j.Func)
					}
				})
			}()
			time.Sleep(2 * time.Hour) // fake time
			synctest.Wait()
			cancel()
			<-done
			if !slices.Equal(moved, []string{"f1", "f2"}) {
				t.Fatalf("moved %q after restart; want [f1 f2]", moved)
			}
			if n, _ := s.Queue("work").Len(ctx); n != 2 {
				t.Fatalf("work queue holds %d; want 2", n)
			}
		})
	})
}

func TestCallQueue(t *testing.T) {
	restart(t, func(b queues.Backend) {
		q := queues.NewCallQueue(b, "c")
		must(t, q.Enqueue(ctx, "alice", 1))
		must(t, q.Enqueue(ctx, "bob", 9))
		must(t, q.Enqueue(ctx, "carol", 1))
		c, ok, err := q.TryDequeue(ctx)
		must(t, err)
		if !ok || c.ID != "bob" {
			t.Fatalf("TryDequeue = %v, %v; want bob", c, ok)
		}
	}, func(b queues.Backend) {
		q := queues.NewCallQueue(b, "c")
		var got []string
		for range 2 {
			c, ok, err := q.Dequeue(ctx, time.Second)
			must(t, err)
			if !ok {
				t.Fatal("Dequeue: nothing")
			}
			got = append(got, c.ID)
		}
		if c, ok, _ := q.TryDequeue(ctx); ok {
			t.Fatalf("TryDequeue = %v; want nothing (bob was answered before)", c)
		}
		if !slices.Equal(got, []string{"alice", "carol"}) {
			t.Fatalf("after restart: %q; want [alice carol] in arrival order", got)
		}
	})
}

func TestWaitlist(t *testing.T) {
	restart(t, func(b queues.Backend) {
		w := queues.NewWaitlist(b, "w")
		must(t, w.Add(ctx, "ann", 2))
		must(t, w.Add(ctx, "ben", 4))
		must(t, w.Add(ctx, "cat", 2))
		p, ok, err := w.Seat(ctx, 2, queues.Exact)
		must(t, err)
		if !ok || p.Name != "ann" {
			t.Fatalf("Seat = %v, %v; want ann", p, ok)
		}
	}, func(b queues.Backend) {
		w := queues.NewWaitlist(b, "w")
		pos, ok, err := w.Position(ctx, "cat")
		must(t, err)
		if !ok || pos != 2 {
			t.Fatalf("Position(cat) after restart = %d, %v; want 2 (1-based, behind ben)", pos, ok)
		}
		p, ok, err := w.Seat(ctx, 4, queues.Fits)
		must(t, err)
		if !ok || p.Name != "ben" {
			t.Fatalf("Seat(4, Fits) = %v, %v; want ben, the earliest that fits", p, ok)
		}
	})
}

// errOnly drops the id an enqueue returns, for calls that check only the error.
func errOnly(_ string, err error) error { return err }
