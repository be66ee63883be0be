package queues_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/zlite/zlite/queues"
)

// TestDifferential runs one random sequence of operations on every queue type on
// both backends and requires identical results after every step: each Script's Lua
// and Go halves must agree. After each step an invariant checker compares the
// queue's internal keys with each other. The seed is printed; set ZLITE_SEED to
// replay one.
func TestDifferential(t *testing.T) {
	emb := newEmbedded(t)
	red := newRedis(t)
	seed := testSeed(t)
	steps := 400
	if raceEnabled || testing.Short() {
		steps = 100
	}
	for _, kind := range []string{"waitlist", "callqueue", "priority", "delayed", "reliable", "reliable-features", "scheduler"} {
		t.Run("queue="+kind, func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, uint64(len(kind))))
			name := qname(t)
			clocks := [2]*fakeClock{newFakeClock(), newFakeClock()}
			sides := [2]*diffSide{newDiffSide(emb, name, clocks[0]), newDiffSide(red, name, clocks[1])}
			for step := range steps {
				op := r.Uint64()
				advance := time.Duration(r.IntN(3000)) * time.Millisecond
				var out [2]string
				for i, s := range sides {
					out[i] = s.apply(t, kind, rand.New(rand.NewPCG(op, 0)))
					if err := s.check(kind); err != nil {
						t.Fatalf("step %d (%s): invariant: %v", step, out[i], err)
					}
					clocks[i].Advance(advance)
				}
				if out[0] != out[1] {
					t.Fatalf("step %d: embedded %s\n              redis    %s", step, out[0], out[1])
				}
			}
		})
	}
}

// diffSide is one backend's instances of every queue type, with its in-flight
// reliable deliveries.
type diffSide struct {
	b        queues.Backend
	name     string
	w        *queues.Waitlist
	c        *queues.CallQueue
	p        *queues.Priority
	d        *queues.Delayed
	rel      *queues.Reliable
	feat     *queues.Reliable // unique pushes and a rate limit
	s        *queues.Scheduler
	inFlight []queues.Delivery
	clock    *fakeClock
	live     int64 // reliable elements pushed and not yet finished: the conservation check
}

func newDiffSide(b queues.Backend, name string, clock *fakeClock) *diffSide {
	return &diffSide{b: b, name: name, clock: clock,
		feat: queues.NewReliable(b, name+"-f", queues.WithLease(5*time.Second), queues.WithClock(clock.Now),
			queues.WithMaxDeliveries(2), queues.WithRateLimit(2, 3*time.Second)),
		w: queues.NewWaitlist(b, name), c: queues.NewCallQueue(b, name, queues.WithClock(clock.Now)),
		p: queues.NewPriority(b, name, queues.WithOrder(queues.HighestFirst)), d: queues.NewDelayed(b, name, queues.WithClock(clock.Now)),
		rel: queues.NewReliable(b, name, queues.WithLease(5*time.Second), queues.WithClock(clock.Now), queues.WithMaxDeliveries(3),
			queues.WithRetry(queues.RetryPolicy{Base: time.Second, Max: 4 * time.Second, Jitter: 0.5, Rand: rand.New(rand.NewPCG(1, 2)).Float64})), s: queues.NewScheduler(b, name, queues.WithBatch(3), queues.WithClock(clock.Now))}
}

func show(vs ...any) string {
	for i, v := range vs {
		switch x := v.(type) {
		case queues.Call:
			x.Since = x.Since.UTC()
			vs[i] = x
		case []queues.Call:
			for j := range x {
				x[j].Since = x[j].Since.UTC()
			}
		case queues.Job:
			x.Due = x.Due.UTC()
			vs[i] = x
		}
	}
	return fmt.Sprint(vs...)
}

func (s *diffSide) apply(t *testing.T, kind string, r *rand.Rand) string {
	ctx := guard(t)
	id := fmt.Sprint("id", r.IntN(12))
	switch kind {
	case "waitlist":
		switch r.IntN(6) {
		case 0, 1:
			return show("add ", id, s.w.Add(ctx, id, r.Int64N(7)))
		case 2:
			p, ok, err := s.w.Seat(ctx, r.Int64N(7), queues.Match(r.IntN(2)))
			return show("seat ", p, ok, err)
		case 3:
			ok, err := s.w.Leave(ctx, id)
			return show("leave ", ok, err)
		case 4:
			n, ok, err := s.w.Position(ctx, id)
			return show("position ", n, ok, err)
		default:
			l, err := s.w.Items(ctx, 0, math.MaxInt64)
			return show("list ", l, err)
		}
	case "callqueue":
		switch r.IntN(6) {
		case 0, 1:
			return show("enqueue ", id, s.c.Enqueue(ctx, id, float64(r.IntN(4))))
		case 2:
			c, ok, err := s.c.TryDequeue(ctx)
			return show("dequeue ", c, ok, err)
		case 3:
			ok, err := s.c.Cancel(ctx, id)
			return show("cancel ", ok, err)
		case 4:
			n, ok, err := s.c.Position(ctx, id)
			return show("position ", n, ok, err)
		default:
			cs, err := s.c.Stale(ctx, time.Duration(r.IntN(10000))*time.Millisecond)
			return show("stale ", cs, err)
		}
	case "priority":
		switch r.IntN(3) {
		case 0:
			return show("push ", errOnly(s.p.Push(ctx, id, float64(r.IntN(5))-1.5)))
		case 1:
			items, err := s.p.Items(ctx, 0, 3)
			if err != nil || len(items) == 0 {
				return show("items ", items, err)
			}
			it := items[r.IntN(len(items))]
			ok, err := s.p.Remove(ctx, it.ID)
			return show("remove ", it, ok, err)
		}
		if n, err := s.p.Len(ctx); err != nil || n == 0 {
			return show("len ", n, err)
		}
		v, p, ok, err := s.p.Pop(ctx, time.Second)
		return show("pop ", v, p, ok, err)
	case "delayed":
		switch r.IntN(3) {
		case 0:
			at := s.clock.Now().Add(time.Duration(r.IntN(6000)-1000) * time.Millisecond)
			return show("schedule ", errOnly(s.d.Schedule(ctx, id, at)))
		case 1:
			jobs, err := s.d.Items(ctx, 0, 3)
			if err != nil || len(jobs) == 0 {
				return show("items ", jobs, err)
			}
			j := jobs[r.IntN(len(jobs))]
			ok, err := s.d.Cancel(ctx, j.ID)
			return show("cancel ", j, ok, err)
		}
		j, ok, err := s.d.TryPop(ctx)
		return show("trypop ", j, ok, err)
	case "reliable":
		switch r.IntN(12) {
		case 9:
			n, err := s.rel.RetryAll(ctx)
			return show("retryall ", n, err)
		case 10:
			dead, err := s.rel.Dead(ctx, 0, 3)
			if err != nil || len(dead) == 0 {
				return show("dead ", dead, err)
			}
			ok, err := s.rel.DeleteDead(ctx, dead[len(dead)-1].Delivery)
			if ok {
				s.live--
			}
			return show("deletedead ", dead, ok, err)
		case 11:
			retrying, err := s.rel.Retrying(ctx, 0, 3)
			return show("retrying ", retrying, err)
		case 6: // requeue a lease if it has expired, in one step
			if len(s.inFlight) == 0 {
				return "none"
			}
			d := s.inFlight[r.IntN(len(s.inFlight))]
			ok, err := s.rel.Requeue(ctx, d)
			return show("requeue ", d, ok, err)
		case 7:
			waiting, err := s.rel.Items(ctx, 0, 3)
			if err != nil || len(waiting) == 0 {
				return show("items ", waiting, err)
			}
			d := waiting[r.IntN(len(waiting))]
			ok, err := s.rel.Remove(ctx, d.ID)
			if ok {
				s.live--
			}
			return show("remove ", d, ok, err)
		case 8:
			dead, err := s.rel.Dead(ctx, 0, 3)
			if err != nil || len(dead) == 0 {
				return show("dead ", dead, err)
			}
			ok, err := s.rel.Retry(ctx, dead[0].Delivery)
			return show("retry ", dead[0].Delivery, dead[0].Died.UTC(), ok, err)
		case 0, 1:
			v, err := s.rel.Push(ctx, id)
			if err == nil {
				s.live++
			}
			return show("push ", v, err)
		case 2:
			if n, _, err := s.rel.Len(ctx); err != nil || n == 0 {
				return show("len ", n, err)
			}
			d, ok, err := s.rel.Pop(ctx, time.Second)
			s.inFlight = append(s.inFlight, d)
			return show("pop ", d, ok, err)
		case 3, 4:
			if len(s.inFlight) == 0 {
				return "none"
			}
			i := r.IntN(len(s.inFlight))
			d := s.inFlight[i]
			s.inFlight = append(s.inFlight[:i], s.inFlight[i+1:]...)
			switch r.IntN(3) {
			case 0:
				ok, err := s.rel.Ack(ctx, d)
				if ok {
					s.live--
				}
				return show("ack ", d, ok, err)
			case 1:
				ok, err := s.rel.Fail(ctx, d, fmt.Errorf("declined %d", r.IntN(3)))
				return show("fail ", d, ok, err)
			default:
				s.inFlight = append(s.inFlight, d)
				ok, err := s.rel.Extend(ctx, d)
				return show("extend ", d, ok, err)
			}
		default:
			n, err := s.rel.Reap(ctx)
			return show("reap ", n, err)
		}
	case "reliable-features":
		q := s.feat
		switch r.IntN(6) {
		case 0, 1:
			key := fmt.Sprint("u", r.IntN(4))
			v, err := q.Push(ctx, id, queues.Unique(key, time.Duration(1+r.IntN(8))*time.Second))
			if err == nil {
				s.live++
			}
			return show("push ", key, v, err)
		case 2:
			d, ok, err := q.Pop(ctx, 5*time.Millisecond)
			if ok {
				s.inFlight = append(s.inFlight, d)
			}
			return show("pop ", d, ok, err)
		case 3:
			if len(s.inFlight) == 0 {
				return "none"
			}
			i := r.IntN(len(s.inFlight))
			d := s.inFlight[i]
			s.inFlight = append(s.inFlight[:i], s.inFlight[i+1:]...)
			if r.IntN(2) == 0 {
				ok, err := q.Ack(ctx, d)
				if ok {
					s.live--
				}
				return show("ack ", d, ok, err)
			}
			ok, err := q.Nack(ctx, d)
			return show("nack ", d, ok, err)
		case 4:
			dead, err := q.Dead(ctx, 0, 3)
			if err != nil || len(dead) == 0 {
				return show("dead ", dead, err)
			}
			ok, err := q.DeleteDead(ctx, dead[0].Delivery)
			if ok {
				s.live--
			}
			return show("deletedead ", dead, ok, err)
		default:
			n, err := q.Reap(ctx)
			return show("reap ", n, err)
		}
	default: // scheduler
		if r.IntN(2) == 0 {
			at := s.clock.Now().Add(time.Duration(r.IntN(6000)-1000) * time.Millisecond)
			job := queues.FutureJob{Queue: fmt.Sprint("q", r.IntN(3)), Func: id}
			return show("add ", errOnly(s.s.AddFutureJob(ctx, job, at)))
		}
		moved, err := s.s.Step(ctx)
		return show("step ", moved, err)
	}
}

// check compares the sizes of a queue's internal keys, which its steps keep equal.
func (s *diffSide) check(kind string) error {
	ctx := context.Background()
	k := func(part string) string { return "{" + s.name + "}:" + part }
	zc := func(part string) int64 { n, _ := s.b.ZCard(ctx, k(part)); return n }
	ll := func(part string) int64 { n, _ := s.b.LLen(ctx, k(part)); return n }
	switch kind {
	case "waitlist":
		if a, b := zc("seats"), zc("arrival"); a != b {
			return fmt.Errorf("%d seats entries, %d arrival entries", a, b)
		}
	case "callqueue":
		if a, b, c, d := zc("calls"), zc("since"), zc("ids"), ll("ready"); a != b || a != c || a != d {
			return fmt.Errorf("calls %d, since %d, ids %d, tokens %d", a, b, c, d)
		}
	case "reliable":
		if a, b := ll("processing"), zc("leases"); a < b {
			return fmt.Errorf("%d in processing, %d leases", a, b)
		}
		// Exactly once: every element pushed and not finished is in exactly one place.
		if n := ll("ready") + ll("processing") + zc("retry") + zc("dead"); n != s.live {
			return fmt.Errorf("%d elements in ready, processing, retry and dead; %d live", n, s.live)
		}
	case "reliable-features":
		f := func(part string) string { return s.name + "-f}:" + part }
		z := func(part string) int64 { n, _ := s.b.ZCard(ctx, "{"+f(part)); return n }
		l := func(part string) int64 { n, _ := s.b.LLen(ctx, "{"+f(part)); return n }
		if n := l("ready") + l("processing") + z("retry") + z("dead"); n != s.live {
			return fmt.Errorf("%d elements in ready, processing, retry and dead; %d live", n, s.live)
		}
		// Every live lock belongs to a live element, at most one per key (4 keys).
		if n := z("unique"); n > 4 {
			return fmt.Errorf("%d uniqueness locks for 4 keys", n)
		}
	case "delayed", "scheduler":
		if n := ll("wake"); n > 1 {
			return fmt.Errorf("%d wake tokens", n)
		}
	}
	return nil
}
