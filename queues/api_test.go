package queues_test

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

// TestEnqueueIDs: every enqueue that makes an id returns it, the cancel and remove
// methods take it, and Items and the pops report the same id; equal payloads get
// distinct ids, and a cancelled id is gone.
func TestEnqueueIDs(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()

		t.Run("delayed", func(t *testing.T) {
			q := queues.NewDelayed(b, qname(t), queues.WithClock(clock.Now))
			a, err := q.Schedule(ctx, "same", clock.Now().Add(time.Minute))
			require.NoError(t, err)
			c, err := q.Schedule(ctx, "same", clock.Now().Add(time.Hour))
			require.NoError(t, err)
			require.NotEqual(t, a, c, "equal payloads, distinct ids")
			jobs, err := q.Items(ctx, 0, 10)
			require.NoError(t, err)
			require.Equal(t, []string{a, c}, []string{jobs[0].ID, jobs[1].ID})
			ok, err := q.Cancel(ctx, c)
			require.NoError(t, err)
			require.True(t, ok, "q.Cancel(%q)", c)
			ok, err = q.Cancel(ctx, c)
			require.NoError(t, err)
			require.False(t, ok, "a second q.Cancel(%q)", c)
			clock.Advance(time.Minute)
			j, ok, err := q.TryPop(ctx)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, a, j.ID, "the popped job's id is the one Schedule returned")
		})

		t.Run("scheduler", func(t *testing.T) {
			s := queues.NewScheduler(b, qname(t), queues.WithClock(clock.Now))
			job := queues.FutureJob{Queue: "q", Func: "f", Args: json.RawMessage(`[1]`)}
			a, err := s.AddFutureJob(ctx, job, clock.Now().Add(time.Minute))
			require.NoError(t, err)
			c, err := s.AddFutureJob(ctx, job, clock.Now().Add(time.Minute))
			require.NoError(t, err)
			require.NotEqual(t, a, c)
			ok, err := s.Cancel(ctx, a)
			require.NoError(t, err)
			require.True(t, ok, "s.Cancel(%q)", a)
			jobs, err := s.Items(ctx, 0, 10)
			require.NoError(t, err)
			require.Len(t, jobs, 1)
			require.Equal(t, c, jobs[0].ID)
		})

		t.Run("priority", func(t *testing.T) {
			q := queues.NewPriority(b, qname(t))
			a, err := q.Push(ctx, "v", 1)
			require.NoError(t, err)
			c, err := q.Push(ctx, "v", 1)
			require.NoError(t, err)
			require.NotEqual(t, a, c)
			items, err := q.Items(ctx, 0, 10)
			require.NoError(t, err)
			require.Equal(t, []queues.Item{{ID: a, Value: "v", Priority: 1}, {ID: c, Value: "v", Priority: 1}}, items)
			ok, err := q.Remove(ctx, a)
			require.NoError(t, err)
			require.True(t, ok, "q.Remove(%q)", a)
			v, _, ok, err := q.Pop(ctx, time.Second)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, "v", v)
			n, err := q.Len(ctx)
			require.NoError(t, err)
			require.Zero(t, n, "the removed item is not served")
		})

		t.Run("reliable", func(t *testing.T) {
			q := queues.NewReliable(b, qname(t), queues.WithClock(clock.Now))
			var ids []string
			for range 3 {
				id, err := q.Push(ctx, "same")
				require.NoError(t, err)
				ids = append(ids, id)
			}
			ok, err := q.Remove(ctx, ids[1])
			require.NoError(t, err)
			require.True(t, ok, "q.Remove(%q)", ids[1])
			ok, err = q.Remove(ctx, ids[1])
			require.NoError(t, err)
			require.False(t, ok)
			for _, want := range []string{ids[0], ids[2]} {
				d, ok, err := q.Pop(ctx, time.Second)
				require.NoError(t, err)
				require.True(t, ok)
				require.Equal(t, want, d.ID)
			}
		})
	})
}

// TestDefaultOrder: Priority and CallQueue both serve the highest priority first by
// default, and both take WithOrder(LowestFirst).
func TestDefaultOrder(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		for _, tt := range []struct {
			name string
			opts []queues.Option
			want []string
		}{
			{"default", nil, []string{"nine", "five", "one", "one-again", "minus"}},
			{"highest", []queues.Option{queues.WithOrder(queues.HighestFirst)}, []string{"nine", "five", "one", "one-again", "minus"}},
			{"lowest", []queues.Option{queues.WithOrder(queues.LowestFirst)}, []string{"minus", "one", "one-again", "five", "nine"}},
		} {
			pushes := []struct {
				v string
				p float64
			}{{"one", 1}, {"nine", 9}, {"minus", -3}, {"one-again", 1}, {"five", 5}}
			t.Run("order="+tt.name, func(t *testing.T) {
				p := queues.NewPriority(b, qname(t), tt.opts...)
				c := queues.NewCallQueue(b, qname(t), tt.opts...)
				for _, x := range pushes {
					require.NoError(t, errOnly(p.Push(ctx, x.v, x.p)))
					require.NoError(t, c.Enqueue(ctx, x.v, x.p))
				}
				var gotP, gotC []string
				for range pushes {
					v, _, ok, err := p.Pop(ctx, time.Second)
					require.NoError(t, err)
					require.True(t, ok)
					gotP = append(gotP, v)
					call, ok, err := c.TryDequeue(ctx)
					require.NoError(t, err)
					require.True(t, ok)
					gotC = append(gotC, call.ID)
				}
				require.Equal(t, tt.want, gotP, "Priority")
				require.Equal(t, tt.want, gotC, "CallQueue")
			})
		}
	})
}

// TestErrors: bad input returns an *Error naming the queue, the operation and the
// item, whose text reads as one sentence and which matches its sentinel with
// errors.Is.
func TestErrors(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		p := queues.NewPriority(b, "jobs")
		lv := queues.NewLevels(b, "tickets", []string{"hi", "lo"})
		f := queues.NewFIFO(b, "mail")
		c := queues.NewCallQueue(b, qname(t), queues.WithClock(clock.Now))
		require.NoError(t, c.Enqueue(ctx, "abc", 1))
		w := queues.NewWaitlist(b, "tables")
		d := queues.NewDelayed(b, "later")
		s := queues.NewScheduler(b, "nightly")
		r := queues.NewReliable(b, "pay")
		for _, tt := range []struct {
			err      error
			sentinel error
			want     string // "" : not checked (a generated queue name)
		}{
			{errOnly(p.Push(ctx, "v", math.NaN())), queues.ErrBadPriority, `queues: priority "jobs": push: priority is NaN or infinite`},
			{second(p.Remove(ctx, "")), queues.ErrEmptyID, `queues: priority "jobs": remove: empty id`},
			{second(p.Items(ctx, -1, 1)), queues.ErrBadRange, `queues: priority "jobs": items: offset and count must not be negative`},
			{lv.Push(ctx, "urgent", "x"), queues.ErrUnknownLevel, `queues: levels "tickets": push level "urgent": unknown level`},
			{second(lv.Len(ctx, "urgent")), queues.ErrUnknownLevel, `queues: levels "tickets": len level "urgent": unknown level`},
			{second(lv.Remove(ctx, "hi", "x", -1)), queues.ErrBadRange, `queues: levels "tickets": remove "x" level "hi": offset and count must not be negative`},
			{second(lv.Items(ctx, "urgent", 0, 1)), queues.ErrUnknownLevel, `queues: levels "tickets": items level "urgent": unknown level`},
			{second(f.Remove(ctx, "x", -1)), queues.ErrBadRange, `queues: fifo "mail": remove "x": offset and count must not be negative`},
			{second(f.Items(ctx, 0, -1)), queues.ErrBadRange, `queues: fifo "mail": items: offset and count must not be negative`},
			{c.Enqueue(ctx, "abc", 2), queues.ErrDuplicate, ""},
			{c.Enqueue(ctx, "", 2), queues.ErrEmptyID, ""},
			{second(c.Stale(ctx, -time.Second)), queues.ErrBadDuration, ""},
			{w.Add(ctx, "bob", 0), queues.ErrBadSeats, `queues: waitlist "tables": add "bob": seats must be at least 1`},
			{second(w.Leave(ctx, "")), queues.ErrEmptyID, `queues: waitlist "tables": leave: empty id`},
			{errOnly(s.AddFutureJob(ctx, queues.FutureJob{Func: "report"}, time.Time{})), queues.ErrNoQueue, `queues: scheduler "nightly": add "report": job names no target queue`},
			{errOnly(s.AddFutureJob(ctx, queues.FutureJob{Queue: "q", Func: "f", Args: json.RawMessage("{")}, time.Time{})), queues.ErrBadJob, `queues: scheduler "nightly": add "f": malformed job`},
			{second(s.Cancel(ctx, "")), queues.ErrEmptyID, `queues: scheduler "nightly": cancel: empty id`},
			{second(d.Cancel(ctx, "")), queues.ErrEmptyID, `queues: delayed "later": cancel: empty id`},
			{second(d.Items(ctx, -1, 0)), queues.ErrBadRange, `queues: delayed "later": items: offset and count must not be negative`},
			{second(r.Remove(ctx, "")), queues.ErrEmptyID, `queues: reliable "pay": remove: empty id`},
			{second(r.Dead(ctx, -1, 1)), queues.ErrBadRange, `queues: reliable "pay": dead: offset and count must not be negative`},
			{second(r.InFlight(ctx, -1, 1)), queues.ErrBadRange, `queues: reliable "pay": inflight: offset and count must not be negative`},
		} {
			require.Error(t, tt.err)
			require.ErrorIs(t, tt.err, tt.sentinel)
			var qe *queues.Error
			require.ErrorAs(t, tt.err, &qe)
			require.Equal(t, tt.sentinel, qe.Err)
			if tt.want != "" {
				require.Equal(t, tt.want, tt.err.Error())
			}
		}
		err := c.Enqueue(ctx, "abc", 2)
		var qe *queues.Error
		require.ErrorAs(t, err, &qe)
		require.Equal(t, queues.Error{Type: "callqueue", Queue: qe.Queue, Op: "enqueue", ID: "abc", Err: queues.ErrDuplicate}, *qe)
		require.Equal(t, `queues: callqueue "`+qe.Queue+`": enqueue "abc": id already queued`, err.Error())
		require.False(t, errors.Is(err, queues.ErrEmptyID))
	})
}

// second returns the error of a two-value call.
func second[T any](_ T, err error) error { return err }
