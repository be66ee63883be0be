package queues_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

// half is a jitter source that always draws 0.5, so due times are fixed.
func half() float64 { return 0.5 }

// TestReliableBackoff: each failed delivery (by Fail or by an expired lease) waits
// min(Base·2^(n−1), Max) plus Jitter·u of that, is not delivered a microsecond
// before, and is delivered at its due time with its attempt, last error and enqueue
// time; the MaxAttempts-th failure sends it to the dead set.
func TestReliableBackoff(t *testing.T) {
	policy := queues.RetryPolicy{Base: time.Second, Max: 4 * time.Second, Jitter: 0.5, MaxAttempts: 5, Rand: half}
	steps := []struct {
		by    string        // how the delivery fails: "fail" or "reap"
		delay time.Duration // expected wait before the next delivery
	}{
		{"fail", 1250 * time.Millisecond}, // 1 s + 1 s·0.5·0.5
		{"reap", 2500 * time.Millisecond}, // 2 s + 0.5 s
		{"fail", 5 * time.Second},         // 4 s + 1 s
		{"reap", 5 * time.Second},         // capped at 4 s, + 1 s
	}
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		enqueued := clock.Now()
		q := queues.NewReliable(b, qname(t), queues.WithLease(time.Minute), queues.WithClock(clock.Now), queues.WithRetry(policy))
		id, err := q.Push(ctx, "job")
		require.NoError(t, err)
		lastErr := ""
		fail := func(by string, d queues.Delivery, attempt int) {
			t.Helper()
			switch by {
			case "fail":
				lastErr = fmt.Sprintf("declined %d", attempt)
				ok, err := q.Fail(ctx, d, errors.New(lastErr))
				require.NoError(t, err)
				require.True(t, ok)
			default:
				clock.Advance(time.Minute)
				lastErr = "lease expired"
				n, err := q.Reap(ctx)
				require.NoError(t, err)
				require.EqualValues(t, 1, n)
			}
		}
		for i, st := range steps {
			attempt := i + 1
			d, ok, err := q.Pop(ctx, time.Second)
			require.NoError(t, err)
			require.True(t, ok, "attempt %d", attempt)
			require.Equal(t, queues.Delivery{ID: id, Payload: "job", Attempt: int64(attempt), Enqueued: enqueued, LastError: lastErr},
				queues.Delivery{ID: d.ID, Payload: d.Payload, Attempt: d.Attempt, Enqueued: d.Enqueued.UTC(), LastError: d.LastError})
			fail(st.by, d, attempt)
			due := clock.Now().Add(st.delay)

			s, err := q.Stats(ctx)
			require.NoError(t, err)
			require.Equal(t, [4]int64{0, 0, 1, 0}, [4]int64{s.Depth, s.InFlight, s.Retrying, s.Dead})
			r, err := q.Retrying(ctx, 0, 10)
			require.NoError(t, err)
			require.Len(t, r, 1)
			require.True(t, due.Equal(r[0].Deadline), "attempt %d: due %v, want %v", attempt, r[0].Deadline, due)
			require.Equal(t, [2]any{int64(attempt + 1), lastErr}, [2]any{r[0].Attempt, r[0].LastError})

			clock.Advance(st.delay - time.Microsecond)
			_, ok, err = q.Pop(ctx, 20*time.Millisecond)
			require.NoError(t, err)
			require.False(t, ok, "attempt %d: delivered before its due time", attempt)
			clock.Advance(time.Microsecond)
		}
		d, ok, err := q.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		require.EqualValues(t, 5, d.Attempt)
		ok, err = q.Fail(ctx, d, errors.New("declined 5"))
		require.NoError(t, err)
		require.True(t, ok)

		dead, err := q.Dead(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, dead, 1)
		require.Equal(t, queues.Delivery{ID: id, Payload: "job", Attempt: 5, Enqueued: enqueued, LastError: "declined 5"},
			queues.Delivery{ID: dead[0].ID, Payload: dead[0].Payload, Attempt: dead[0].Attempt, Enqueued: dead[0].Enqueued.UTC(), LastError: dead[0].LastError})
		require.True(t, clock.Now().Equal(dead[0].Died))
		s, err := q.Stats(ctx)
		require.NoError(t, err)
		require.Equal(t, [6]int64{0, 0, 0, 1, 1, 4}, [6]int64{s.Depth, s.InFlight, s.Retrying, s.Dead, s.DeadLettered, s.Requeued})
	})
}

// TestReliableRetryNoDelay: a policy without Base retries at once but still counts
// attempts and dead-letters at MaxAttempts, overriding WithMaxDeliveries.
func TestReliableRetryNoDelay(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		q := queues.NewReliable(b, qname(t), queues.WithMaxDeliveries(10), queues.WithRetry(queues.RetryPolicy{MaxAttempts: 2}))
		_, err := q.Push(ctx, "x")
		require.NoError(t, err)
		for attempt := int64(1); attempt <= 2; attempt++ {
			d, ok, err := q.Pop(ctx, time.Second)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, attempt, d.Attempt)
			ok, err = q.Nack(ctx, d)
			require.NoError(t, err)
			require.True(t, ok)
		}
		s, err := q.Stats(ctx)
		require.NoError(t, err)
		require.Equal(t, [3]int64{0, 0, 1}, [3]int64{s.Depth, s.Retrying, s.Dead})
	})
}

// TestReliableDeadSet: dead elements are listed with their metadata, and can be
// retried one at a time or all at once (attempts forgotten, last error kept) or
// deleted.
func TestReliableDeadSet(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		q := queues.NewReliable(b, qname(t), queues.WithClock(clock.Now), queues.WithMaxDeliveries(1))
		var ids []string
		for _, p := range []string{"a", "b", "c"} {
			id, err := q.Push(ctx, p)
			require.NoError(t, err)
			ids = append(ids, id)
			d, ok, err := q.Pop(ctx, time.Second)
			require.NoError(t, err)
			require.True(t, ok)
			ok, err = q.Fail(ctx, d, errors.New("bad "+p))
			require.NoError(t, err)
			require.True(t, ok)
			clock.Advance(time.Second)
		}
		dead, err := q.Dead(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, dead, 3)
		for i, p := range []string{"a", "b", "c"} {
			require.Equal(t, [4]any{ids[i], p, int64(1), "bad " + p}, [4]any{dead[i].ID, dead[i].Payload, dead[i].Attempt, dead[i].LastError})
		}

		ok, err := q.DeleteDead(ctx, dead[1].Delivery)
		require.NoError(t, err)
		require.True(t, ok)
		ok, err = q.DeleteDead(ctx, dead[1].Delivery)
		require.NoError(t, err)
		require.False(t, ok, "deleted twice")
		ok, err = q.Retry(ctx, dead[1].Delivery)
		require.NoError(t, err)
		require.False(t, ok, "a deleted element was retried")

		n, err := q.RetryAll(ctx)
		require.NoError(t, err)
		require.EqualValues(t, 2, n)
		n, err = q.RetryAll(ctx)
		require.NoError(t, err)
		require.Zero(t, n)
		items, err := q.Items(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, items, 2)
		// The earliest to die is served first; attempts start over, the reason stays.
		for i, want := range []struct{ id, lastErr string }{{ids[2], "bad c"}, {ids[0], "bad a"}} {
			got := items[len(items)-1-i]
			require.Equal(t, [3]any{want.id, int64(1), want.lastErr}, [3]any{got.ID, got.Attempt, got.LastError})
		}
		d, ok, err := q.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, ids[0], d.ID)
		ok, err = q.Ack(ctx, d)
		require.NoError(t, err)
		require.True(t, ok)
		s, err := q.Stats(ctx)
		require.NoError(t, err)
		require.Equal(t, [3]int64{1, 0, 0}, [3]int64{s.Depth, s.InFlight, s.Dead})
	})
}

// TestReliablePause: a paused queue delivers nothing, in any process (a second
// queue value on the same backend stands for another process), keeps what is
// pushed, and a consumer waiting through the pause gets the element only after
// Resume.
func TestReliablePause(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		name := qname(t)
		q := queues.NewReliable(b, name)
		other := queues.NewReliable(b, name)
		ok, err := q.Pause(ctx)
		require.NoError(t, err)
		require.True(t, ok)
		ok, err = q.Pause(ctx)
		require.NoError(t, err)
		require.False(t, ok, "paused twice")
		paused, err := other.Paused(ctx)
		require.NoError(t, err)
		require.True(t, paused)

		var resumed atomic.Bool
		type result struct {
			d           queues.Delivery
			ok          bool
			err         error
			afterResume bool
		}
		got := make(chan result, 1)
		go func() {
			d, ok, err := other.Pop(ctx, 10*time.Second)
			got <- result{d, ok, err, resumed.Load()}
		}()
		_, err = q.Push(ctx, "x")
		require.NoError(t, err)
		_, ok, err = q.Pop(ctx, 30*time.Millisecond)
		require.NoError(t, err)
		require.False(t, ok, "a paused queue delivered")
		s, err := other.Stats(ctx)
		require.NoError(t, err)
		require.True(t, s.Paused)
		require.Contains(t, s.String(), "paused")

		resumed.Store(true)
		ok, err = q.Resume(ctx)
		require.NoError(t, err)
		require.True(t, ok)
		r := <-got
		require.NoError(t, r.err)
		require.True(t, r.ok)
		require.True(t, r.afterResume, "delivered while paused")
		require.Equal(t, "x", r.d.Payload)
		s, err = q.Stats(ctx)
		require.NoError(t, err)
		require.False(t, s.Paused)
		require.Equal(t, [2]int64{0, 1}, [2]int64{s.Depth, s.InFlight})
		ok, err = q.Resume(ctx)
		require.NoError(t, err)
		require.False(t, ok, "resumed twice")
	})
}

// TestReliableMetadata: Items and InFlight report each element's attempt, last
// error and enqueue time; Ack forgets them.
func TestReliableMetadata(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		t0 := clock.Now()
		q := queues.NewReliable(b, qname(t), queues.WithClock(clock.Now))
		_, err := q.Push(ctx, "a")
		require.NoError(t, err)
		clock.Advance(time.Second)
		_, err = q.Push(ctx, "b")
		require.NoError(t, err)
		d, ok, err := q.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		ok, err = q.Fail(ctx, d, errors.New("boom"))
		require.NoError(t, err)
		require.True(t, ok)
		items, err := q.Items(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, items, 2)
		meta := func(d queues.Delivery) [4]any {
			return [4]any{d.Payload, d.Attempt, d.Enqueued.UTC(), d.LastError}
		}
		require.Equal(t, [2][4]any{{"a", int64(2), t0, "boom"}, {"b", int64(1), t0.Add(time.Second), ""}},
			[2][4]any{meta(items[0]), meta(items[1])})
		d, ok, err = q.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		inFlight, err := q.InFlight(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, inFlight, 1)
		require.Equal(t, meta(d), meta(inFlight[0].Delivery))
		require.Equal(t, [4]any{"a", int64(2), t0, "boom"}, meta(d))
		ok, err = q.Ack(ctx, d)
		require.NoError(t, err)
		require.True(t, ok)
		// The id is gone with its metadata: a listing of it reads the defaults.
		d2, ok, err := q.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, [4]any{"b", int64(1), t0.Add(time.Second), ""}, meta(d2))
	})
}

// TestReliableRetryModel runs random pops, fails, acks, reaps and clock moves on a
// queue with a backoff and a maximum of attempts, against a model of each
// element's place and attempts; after every step the counts must agree and no
// element may be delivered before its due time. The seed is printed; set ZLITE_SEED
// to replay.
func TestReliableRetryModel(t *testing.T) {
	seed := testSeed(t)
	steps := 300
	if raceEnabled || testing.Short() {
		steps = 80
	}
	type elem struct {
		place    string // "ready", "processing", "retry", "dead", "done"
		failures int64
		due      time.Time
	}
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		r := rand.New(rand.NewPCG(seed, 7))
		clock := newFakeClock()
		const lease = 10 * time.Second
		policy := queues.RetryPolicy{Base: time.Second, Max: 8 * time.Second, MaxAttempts: 4}
		q := queues.NewReliable(b, qname(t), queues.WithLease(lease), queues.WithClock(clock.Now), queues.WithRetry(policy))
		model := map[string]*elem{}
		leases := map[string]time.Time{}
		var held []queues.Delivery
		failed := func(id string) {
			e := model[id]
			e.failures++
			delete(leases, id)
			if e.failures >= policy.MaxAttempts {
				e.place = "dead"
				return
			}
			e.place = "retry"
			e.due = clock.Now().Add(min(policy.Base<<(e.failures-1), policy.Max))
		}
		for step := range steps {
			switch op := r.IntN(6); op {
			case 0:
				id, err := q.Push(ctx, "p")
				require.NoError(t, err)
				model[id] = &elem{place: "ready"}
			case 1:
				d, ok, err := q.Pop(ctx, time.Millisecond)
				require.NoError(t, err)
				if ok {
					e := model[d.ID]
					require.NotNil(t, e, "step %d: unknown id %s", step, d.ID)
					require.Contains(t, []string{"ready", "retry"}, e.place, "step %d: %s delivered from %s", step, d.ID, e.place)
					if e.place == "retry" {
						require.False(t, clock.Now().Before(e.due), "step %d: %s delivered before due", step, d.ID)
					}
					require.Equal(t, e.failures+1, d.Attempt, "step %d", step)
					e.place = "processing"
					leases[d.ID] = clock.Now().Add(lease)
					held = append(held, d)
				}
			case 2, 3:
				if len(held) == 0 {
					continue
				}
				i := r.IntN(len(held))
				d := held[i]
				held = append(held[:i], held[i+1:]...)
				if model[d.ID].place != "processing" {
					continue // its lease expired meanwhile; the model tracks the live delivery
				}
				if op == 2 {
					ok, err := q.Ack(ctx, d)
					require.NoError(t, err)
					require.True(t, ok, "step %d", step)
					model[d.ID].place = "done"
					delete(leases, d.ID)
				} else {
					ok, err := q.Fail(ctx, d, errors.New("x"))
					require.NoError(t, err)
					require.True(t, ok, "step %d", step)
					failed(d.ID)
				}
			case 4:
				n, err := q.Reap(ctx)
				require.NoError(t, err)
				var want int64
				for id, deadline := range leases {
					if !deadline.After(clock.Now()) {
						failed(id)
						want++
					}
				}
				require.Equal(t, want, n, "step %d: expired leases", step)
			default:
				clock.Advance(time.Duration(r.IntN(4000)) * time.Millisecond)
			}
			// A pop moves due retries to ready; the model counts them as ready once due.
			counts := map[string]int64{}
			for _, e := range model {
				counts[e.place]++
			}
			s, err := q.Stats(ctx)
			require.NoError(t, err)
			require.Equal(t, counts["ready"]+counts["retry"], s.Depth+s.Retrying, "step %d: waiting", step)
			require.Equal(t, [2]int64{counts["processing"], counts["dead"]}, [2]int64{s.InFlight, s.Dead}, "step %d", step)
		}
	})
}

// TestRetryPolicyNormalized: a retry policy's odd values are normalized, not refused:
// negative Base means no delay, Jitter is clamped.
func TestRetryPolicyNormalized(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		q := queues.NewReliable(b, qname(t), queues.WithClock(clock.Now),
			queues.WithRetry(queues.RetryPolicy{Base: time.Second, Max: time.Second, Jitter: 7, Rand: func() float64 { return 0.999 }}))
		_, err := q.Push(ctx, "x")
		require.NoError(t, err)
		d, ok, err := q.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		_, err = q.Nack(ctx, d)
		require.NoError(t, err)
		r, err := q.Retrying(ctx, 0, 1)
		require.NoError(t, err)
		require.Len(t, r, 1)
		// Jitter 7 is clamped to 1: due within 1 s + 0.999 s.
		require.True(t, clock.Now().Add(1999*time.Millisecond).Equal(r[0].Deadline), "due %v", r[0].Deadline)

		q2 := queues.NewReliable(b, qname(t), queues.WithRetry(queues.RetryPolicy{Base: -time.Second}))
		_, err = q2.Push(ctx, "y")
		require.NoError(t, err)
		d, ok, err = q2.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		_, err = q2.Nack(ctx, d)
		require.NoError(t, err)
		s, err := q2.Stats(ctx)
		require.NoError(t, err)
		require.Equal(t, [2]int64{1, 0}, [2]int64{s.Depth, s.Retrying}, "a negative Base retries at once")
		_, err = q2.Retrying(ctx, -1, 1)
		require.ErrorIs(t, err, queues.ErrBadRange)
	})
}

// TestReliableResumeWakes: Pops waiting with no timeout on a paused queue are all
// woken by Resume, and take the elements pushed meanwhile; they do not poll, so
// without the wake-up they would wait until guard's deadline.
func TestReliableResumeWakes(t *testing.T) {
	const consumers = 3
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		q := queues.NewReliable(b, qname(t))
		_, err := q.Pause(ctx)
		require.NoError(t, err)
		got := make(chan string, consumers)
		for range consumers {
			go func() {
				d, _, err := q.Pop(ctx, 0)
				if err != nil {
					t.Error(err)
				}
				got <- d.Payload
			}()
		}
		waitEntered(t, ctx, q.Stats, consumers)
		for i := range consumers {
			_, err := q.Push(ctx, strconv.Itoa(i))
			require.NoError(t, err)
		}
		ok, err := q.Resume(ctx)
		require.NoError(t, err)
		require.True(t, ok)
		var ps []string
		for range consumers {
			ps = append(ps, <-got)
		}
		slices.Sort(ps)
		require.Equal(t, []string{"0", "1", "2"}, ps)
	})
}
