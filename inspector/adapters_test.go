package inspector_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/inspector"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
)

type fixedClock struct{ t time.Time }

func (c *fixedClock) Now() time.Time { return c.t }

// utc makes the items' times comparable with ==.
func utc(items []inspector.Item) []inspector.Item {
	for i := range items {
		for _, t := range []*time.Time{&items[i].Enqueued, &items[i].Due, &items[i].LeaseExpiry, &items[i].Died} {
			if !t.IsZero() {
				*t = t.UTC()
			}
		}
	}
	return items
}

// pages checks q's items page by page against want, every (offset, count) split.
func pages(t *testing.T, q inspector.Queue, want []inspector.Item) {
	t.Helper()
	n := int64(len(want))
	for offset := range n + 2 {
		for count := range int64(4) {
			got, err := q.Items(t.Context(), offset, count)
			require.NoError(t, err)
			lo, hi := min(offset, n), min(offset+count, n)
			if lo == hi {
				assert.Empty(t, got, "%s: Items(%d, %d)", q.Name(), offset, count)
				continue
			}
			assert.Equal(t, want[lo:hi], utc(got), "%s: Items(%d, %d)", q.Name(), offset, count)
		}
	}
}

func stats(t *testing.T, q inspector.Queue) inspector.Stats {
	t.Helper()
	st, err := q.Stats(t.Context())
	require.NoError(t, err)
	return st
}

func TestAdapterCallQueue(t *testing.T) {
	ctx := t.Context()
	clock := &fixedClock{t0}
	calls := queues.NewCallQueue(embedded.New(zlite.New()), "calls", queues.WithClock(clock.Now))
	for i, c := range []struct {
		id string
		p  float64
	}{{"low", 1}, {"high", 9}, {"mid", 5}, {"high2", 9}} {
		clock.t = t0.Add(time.Duration(i) * time.Second)
		require.NoError(t, calls.Enqueue(ctx, c.id, c.p))
	}
	clock.t = t0.Add(10 * time.Second)
	cq := inspector.CallQueue("calls", calls)
	assert.Equal(t, inspector.Stats{Depth: 4, Oldest: 10 * time.Second, HasOldest: true,
		Levels:   []inspector.Level{{Name: "priority 9", Depth: 2}, {Name: "priority 5", Depth: 1}, {Name: "priority 1", Depth: 1}},
		Activity: &inspector.Activity{Enqueued: 4}}, stats(t, cq))
	want := []inspector.Item{
		{ID: "high", Position: 1, Priority: 9, Enqueued: t0.Add(time.Second)},
		{ID: "high2", Position: 2, Priority: 9, Enqueued: t0.Add(3 * time.Second)},
		{ID: "mid", Position: 3, Priority: 5, Enqueued: t0.Add(2 * time.Second)},
		{ID: "low", Position: 4, Priority: 1, Enqueued: t0},
	}
	pages(t, cq, want)
	for _, it := range want {
		pos, ok, err := calls.Position(ctx, it.ID)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, pos, it.Position, "position of %s agrees with CallQueue.Position", it.ID)
	}
	for _, c := range []struct {
		id   string
		want bool
	}{{"mid", true}, {"mid", false}, {"nobody", false}} {
		ok, err := cq.(inspector.Canceler).Cancel(ctx, c.id)
		require.NoError(t, err)
		assert.Equal(t, c.want, ok, "Cancel(%s)", c.id)
	}
	st := stats(t, cq)
	assert.EqualValues(t, 3, st.Depth)
	assert.EqualValues(t, 1, st.Activity.Cancelled)
	_, ok := cq.(inspector.LeaseRequeuer)
	assert.False(t, ok, "a call queue has no leases")
}

func TestAdapterWaitlist(t *testing.T) {
	ctx := t.Context()
	wl := queues.NewWaitlist(embedded.New(zlite.New()), "tables")
	for _, p := range []struct {
		name  string
		seats int64
	}{{"ann", 2}, {"bob", 4}, {"cy", 1}, {"dee", 2}} {
		require.NoError(t, wl.Add(ctx, p.name, p.seats))
	}
	wq := inspector.Waitlist("tables", wl)
	pages(t, wq, []inspector.Item{
		{ID: "ann", Value: "2 seats", Position: 1}, {ID: "bob", Value: "4 seats", Position: 2},
		{ID: "cy", Value: "1 seat", Position: 3}, {ID: "dee", Value: "2 seats", Position: 4},
	})
	assert.Equal(t, []inspector.Level{{Name: "1 seat", Depth: 1}, {Name: "2 seats", Depth: 2}, {Name: "4 seats", Depth: 1}}, stats(t, wq).Levels)
	ok, err := wq.(inspector.Canceler).Cancel(ctx, "bob")
	require.NoError(t, err)
	assert.True(t, ok)
	st := stats(t, wq)
	assert.EqualValues(t, 3, st.Depth)
	assert.EqualValues(t, 1, st.Activity.Cancelled)
	assert.False(t, st.HasOldest, "a waitlist records no times")
}

func TestAdapterLevels(t *testing.T) {
	ctx := t.Context()
	lv := queues.NewLevels(embedded.New(zlite.New()), "tickets", []string{"hi", "mid", "lo"})
	require.NoError(t, lv.Push(ctx, "lo", "a", "b"))
	require.NoError(t, lv.Push(ctx, "hi", "c"))
	require.NoError(t, lv.Push(ctx, "lo", "d"))
	q := inspector.Levels("tickets", lv)
	assert.Equal(t, inspector.Stats{Depth: 4,
		Levels:   []inspector.Level{{Name: "hi", Depth: 1}, {Name: "mid"}, {Name: "lo", Depth: 3}},
		Activity: &inspector.Activity{Enqueued: 4}}, stats(t, q))
	pages(t, q, []inspector.Item{
		{ID: "0:c", Value: "c", Level: "hi", Position: 1}, {ID: "2:a", Value: "a", Level: "lo", Position: 2},
		{ID: "2:b", Value: "b", Level: "lo", Position: 3}, {ID: "2:d", Value: "d", Level: "lo", Position: 4},
	})
	// The first item listed is the one Pop serves.
	lvl, v, ok, err := lv.Pop(ctx, time.Second)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, []string{"hi", "c"}, []string{lvl, v})
	assert.EqualValues(t, 1, stats(t, q).Activity.Dequeued)
}

func TestAdapterPriorityAndFIFO(t *testing.T) {
	ctx := t.Context()
	b := embedded.New(zlite.New())
	pq := queues.NewPriority(b, "renders", queues.WithOrder(queues.HighestFirst))
	for _, v := range []struct {
		v string
		p float64
	}{{"a", 1}, {"b", 7}, {"c", 1}} {
		require.NoError(t, errOnly(pq.Push(ctx, v.v, v.p)))
	}
	p := inspector.Priority("renders", pq)
	pages(t, p, []inspector.Item{{ID: mid(2, "b"), Value: "b", Priority: 7, Position: 1},
		{ID: mid(1, "a"), Value: "a", Priority: 1, Position: 2}, {ID: mid(3, "c"), Value: "c", Priority: 1, Position: 3}})
	assert.Equal(t, []inspector.Level{{Name: "priority 7", Depth: 1}, {Name: "priority 1", Depth: 2}}, stats(t, p).Levels)

	fq := queues.NewFIFO(b, "jobs")
	require.NoError(t, fq.Push(ctx, "1", "2", "3"))
	f := inspector.FIFO("jobs", fq)
	pages(t, f, []inspector.Item{{ID: "1", Value: "1", Position: 1}, {ID: "2", Value: "2", Position: 2}, {ID: "3", Value: "3", Position: 3}})
}

// mid is the id of the seq-th item of a sorted-set queue with value v: the queue's
// own id, its member.
func mid(seq int, v string) string { return fmt.Sprintf("%016x%s", seq, v) }

// TestAdapterCancel: every adapter but the reliable one (TestAdapterReliable)
// cancels the item an id names, once, and leaves the others; a malformed or unknown
// id changes nothing.
func TestAdapterCancel(t *testing.T) {
	ctx := t.Context()
	b := embedded.New(zlite.New())
	fq := queues.NewFIFO(b, "jobs")
	require.NoError(t, fq.Push(ctx, "1", "2", "1"))
	lq := queues.NewLevels(b, "tickets", []string{"hi", "lo"})
	require.NoError(t, lq.Push(ctx, "lo", "a", "b"))
	require.NoError(t, lq.Push(ctx, "hi", "b"))
	pq := queues.NewPriority(b, "renders")
	require.NoError(t, errOnly(pq.Push(ctx, "a", 1)))
	require.NoError(t, errOnly(pq.Push(ctx, "a", 2)))
	clock := &fixedClock{t0}
	dq := queues.NewDelayed(b, "reminders", queues.WithClock(clock.Now))
	require.NoError(t, errOnly(dq.Schedule(ctx, "r", t0.Add(time.Minute))))
	require.NoError(t, errOnly(dq.Schedule(ctx, "r", t0.Add(time.Hour))))
	sq := queues.NewScheduler(b, "nightly", queues.WithClock(clock.Now))
	require.NoError(t, errOnly(sq.AddFutureJob(ctx, queues.FutureJob{Queue: "q", Func: "f"}, t0.Add(time.Minute))))
	job := `{"queue":"q","func":"f"}`
	cases := []struct {
		q    inspector.Queue
		ids  []string // cancelled in turn: the first succeeds
		left []inspector.Item
	}{
		{inspector.FIFO("jobs", fq), []string{"1", "nope"},
			[]inspector.Item{{ID: "2", Value: "2", Position: 1}, {ID: "1", Value: "1", Position: 2}}},
		{inspector.Levels("tickets", lq), []string{"1:b", "1:b", "9:a", "x:a", "nocolon"},
			[]inspector.Item{{ID: "0:b", Value: "b", Level: "hi", Position: 1}, {ID: "1:a", Value: "a", Level: "lo", Position: 2}}},
		{inspector.Priority("renders", pq), []string{mid(2, "a"), mid(2, "a"), mid(1, "b"), "nocolon"},
			[]inspector.Item{{ID: mid(1, "a"), Value: "a", Priority: 1, Position: 1}}},
		{inspector.Delayed("reminders", dq), []string{mid(1, "r"), mid(1, "r"), "nocolon"},
			[]inspector.Item{{ID: mid(2, "r"), Value: "r", Due: t0.Add(time.Hour), Position: 1}}},
		{inspector.Scheduler("nightly", sq), []string{mid(1, job), mid(1, job)}, nil},
	}
	for _, c := range cases {
		cq := c.q.(inspector.Canceler)
		for i, id := range c.ids {
			ok, err := cq.Cancel(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, i == 0, ok, "%s: Cancel(%q)", c.q.Name(), id)
		}
		pages(t, c.q, c.left)
		assert.EqualValues(t, 1, stats(t, c.q).Activity.Cancelled, c.q.Name())
	}
}

// TestAdapterThroughput: the index's throughput is the Dequeued counter's rate
// between two samples.
func TestAdapterThroughput(t *testing.T) {
	ctx := t.Context()
	fq := queues.NewFIFO(embedded.New(zlite.New()), "jobs")
	require.NoError(t, fq.Push(ctx, "1", "2", "3", "4", "5"))
	now := t0
	h := inspector.New([]inspector.Queue{inspector.FIFO("jobs", fq)}, inspector.WithClock(func() time.Time { return now }))
	require.NoError(t, h.Sample(ctx))
	for range 4 {
		_, ok, err := fq.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
	}
	now = now.Add(2 * time.Second)
	require.NoError(t, h.Sample(ctx))
	srv, c := serve(t, h)
	_, body := get(t, c, srv.URL+"/admin/")
	assert.Equal(t, "2/s", field(t, body, "jobs", "throughput"), "4 dequeued in 2 s")
	assert.Equal(t, "1", field(t, body, "jobs", "depth"))
	assert.Equal(t, "0", field(t, body, "jobs", "blocked"))
}

func TestAdapterDelayedAndScheduler(t *testing.T) {
	ctx := t.Context()
	clock := &fixedClock{t0.Add(-time.Minute)} // a due time in the past would mean now
	b := embedded.New(zlite.New())
	dq := queues.NewDelayed(b, "reminders", queues.WithClock(clock.Now))
	require.NoError(t, errOnly(dq.Schedule(ctx, "later", t0.Add(5*time.Second))))
	require.NoError(t, errOnly(dq.Schedule(ctx, "due", t0.Add(-2*time.Second))))
	require.NoError(t, errOnly(dq.Schedule(ctx, "due too", t0.Add(-time.Second))))
	sq := queues.NewScheduler(b, "nightly", queues.WithClock(clock.Now))
	require.NoError(t, errOnly(sq.AddFutureJob(ctx, queues.FutureJob{Queue: "reports", Func: "report"}, t0.Add(time.Minute))))
	require.NoError(t, errOnly(sq.AddFutureJob(ctx, queues.FutureJob{Queue: "reports", Func: "sum", Args: []byte("[1]")}, t0.Add(-time.Second))))
	clock.t = t0
	d := inspector.Delayed("reminders", dq)
	st := stats(t, d)
	assert.Equal(t, inspector.Stats{Depth: 3, Due: 2, Oldest: 2 * time.Second, HasOldest: true,
		Activity: &inspector.Activity{Enqueued: 3}, Lateness: &inspector.Lateness{}}, st)
	pages(t, d, []inspector.Item{
		{ID: mid(2, "due"), Value: "due", Due: t0.Add(-2 * time.Second), Position: 1},
		{ID: mid(3, "due too"), Value: "due too", Due: t0.Add(-time.Second), Position: 2},
		{ID: mid(1, "later"), Value: "later", Due: t0.Add(5 * time.Second), Position: 3},
	})
	j, ok, err := dq.TryPop(ctx)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "due", j.Payload)
	st = stats(t, d)
	// The maximum is exact; the percentiles are estimated within one bucket (19%).
	assert.Equal(t, inspector.Lateness{Count: 1, Max: 2 * time.Second}, inspector.Lateness{Count: st.Lateness.Count, Max: st.Lateness.Max})
	assert.InDelta(t, 2*time.Second, st.Lateness.P50, float64(400*time.Millisecond))
	assert.InDelta(t, 2*time.Second, st.Lateness.P99, float64(400*time.Millisecond))
	assert.EqualValues(t, 1, st.Activity.Dequeued)

	s := inspector.Scheduler("nightly", sq)
	sum, report := `{"queue":"reports","func":"sum","args":[1]}`, `{"queue":"reports","func":"report"}`
	pages(t, s, []inspector.Item{
		{ID: mid(2, sum), Value: sum, Due: t0.Add(-time.Second), Position: 1},
		{ID: mid(1, report), Value: report, Due: t0.Add(time.Minute), Position: 2},
	})
	_, err = sq.Step(ctx)
	require.NoError(t, err)
	st = stats(t, s)
	assert.EqualValues(t, 1, st.Depth)
	assert.EqualValues(t, 1, st.Activity.Dequeued)
	assert.EqualValues(t, 1, st.Lateness.Count)
	assert.Equal(t, time.Second, st.Lateness.Max)
	pages(t, inspector.FIFO("nightly work", sq.Queue("reports")), []inspector.Item{{ID: sum, Value: sum, Position: 1}})
}

func TestAdapterReliable(t *testing.T) {
	ctx := t.Context()
	clock := &fixedClock{t0}
	rq := queues.NewReliable(embedded.New(zlite.New()), "pay", queues.WithLease(time.Minute), queues.WithClock(clock.Now))
	ids := map[string]string{}
	for _, v := range []string{"x", "y", "z"} {
		id, err := rq.Push(ctx, v)
		require.NoError(t, err)
		ids[v] = id
	}
	popPayload(t, rq, "x")            // its lease ends at t0+1m
	clock.t = t0.Add(2 * time.Minute) // x's lease has expired
	popPayload(t, rq, "y")            // its lease ends at t0+3m
	r := inspector.Reliable("pay", rq, clock.Now)
	assert.Equal(t, inspector.Stats{Depth: 1, InFlight: 2, Activity: &inspector.Activity{Enqueued: 3, Dequeued: 2}}, stats(t, r))
	pages(t, r, []inspector.Item{
		{ID: ids["z"], Value: "z", Position: 1, Attempt: 1, Enqueued: t0},
		{ID: ids["x"], Value: "x", Position: 2, State: inspector.StateExpired, LeaseExpiry: t0.Add(time.Minute), Attempt: 1, Enqueued: t0},
		{ID: ids["y"], Value: "y", Position: 3, State: inspector.StateLeased, LeaseExpiry: t0.Add(3 * time.Minute), Attempt: 1, Enqueued: t0},
	})
	rr := r.(inspector.LeaseRequeuer)
	for _, c := range []struct {
		id   string
		want bool
	}{{ids["y"], false}, {ids["z"], false}, {"nope", false}, {ids["x"], true}, {ids["x"], false}} {
		ok, err := rr.RequeueExpired(ctx, c.id)
		require.NoError(t, err)
		assert.Equal(t, c.want, ok, "RequeueExpired(%s)", c.id)
	}
	pages(t, r, []inspector.Item{
		{ID: ids["x"], Value: "x", Position: 1, Attempt: 2, LastError: "lease expired", Enqueued: t0},
		{ID: ids["z"], Value: "z", Position: 2, Attempt: 1, Enqueued: t0},
		{ID: ids["y"], Value: "y", Position: 3, State: inspector.StateLeased, LeaseExpiry: t0.Add(3 * time.Minute), Attempt: 1, Enqueued: t0},
	})
	st := stats(t, r)
	assert.EqualValues(t, 1, st.Activity.Requeued)
	assert.EqualValues(t, 2, st.Depth)
	popPayload(t, rq, "x") // a requeued element is the next one served
}

func TestKeyspace(t *testing.T) {
	ctx := t.Context()
	db := zlite.New(zlite.WithLatencyTracking())
	b := embedded.New(db)
	fq := queues.NewFIFO(b, "jobs")
	require.NoError(t, fq.Push(ctx, "1", "2", "3"))
	pq := queues.NewPriority(b, "renders")
	require.NoError(t, errOnly(pq.Push(ctx, "a", 1)))
	srv, c := serve(t, inspector.New([]inspector.Queue{inspector.FIFO("jobs", fq), inspector.Priority("renders", pq)}, inspector.WithKeyspace(db)))

	_, body := get(t, c, srv.URL+"/admin/")
	st := db.Stats() // the keys do not change while the page reads them
	assert.Contains(t, body, `<dd data-field="keys">`+strconv.FormatInt(st.Keys, 10)+`</dd>`)
	assert.Contains(t, body, `<dd data-field="ks_blocked">0</dd>`)
	for name, ts := range st.Types {
		row := regexp.MustCompile(`<tr data-type="` + name + `"><th scope="row"><a href="keys\?type=` + name + `">[^<]*</a></th><td class="num">(\d+)</td><td class="num">(\d+)</td><td class="num">(\d+)</td>`).FindStringSubmatch(body)
		require.NotNil(t, row, "no row for type %s", name)
		assert.Equal(t, []string{strconv.FormatInt(ts.Keys, 10), strconv.FormatInt(ts.Elements, 10), strconv.FormatInt(ts.Bytes, 10)}, row[1:], "type %s", name)
	}
	assert.EqualValues(t, 3, st.Types["list"].Elements, "the FIFO's three values")
	assert.Regexp(t, `<tr data-command="lpush"><th scope="row"><code>lpush</code></th><td class="num">1</td><td class="num">\d`, body, "one LPUSH, with its latency")

	_, body = get(t, c, srv.URL+"/admin/api/queues")
	var idx struct {
		Keyspace struct {
			Keys     int64 `json:"keys"`
			Commands uint64
			Types    map[string]struct{ Keys, Elements int64 }
			Command  map[string]struct {
				Calls uint64   `json:"calls"`
				P99   *float64 `json:"latency_p99_seconds"`
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &idx))
	assert.Equal(t, st.Keys, idx.Keyspace.Keys)
	assert.EqualValues(t, 3, idx.Keyspace.Types["list"].Elements)
	assert.EqualValues(t, 1, idx.Keyspace.Command["lpush"].Calls)
	assert.NotNil(t, idx.Keyspace.Command["lpush"].P99)
	assert.GreaterOrEqual(t, idx.Keyspace.Commands, st.Commands, "the command counter only grows")

	srv, c = serve(t, inspector.New(nil))
	_, body = get(t, c, srv.URL+"/admin/api/queues")
	assert.NotContains(t, body, "keyspace", "no keyspace without WithKeyspace")
	_, body = get(t, c, srv.URL+"/admin/")
	assert.NotContains(t, body, "Keyspace")
}

// TestAdapterReliableDead: dead elements are listed after the leases; the adapter
// cancels a waiting element only and moves a dead one back to the head of the
// queue.
func TestAdapterReliableDead(t *testing.T) {
	ctx := t.Context()
	clock := &fixedClock{t0}
	rq := queues.NewReliable(embedded.New(zlite.New()), "pay", queues.WithLease(time.Minute),
		queues.WithClock(clock.Now), queues.WithMaxDeliveries(1))
	ids := map[string]string{}
	for _, v := range []string{"x", "y", "z", "w"} {
		id, err := rq.Push(ctx, v)
		require.NoError(t, err)
		ids[v] = id
	}
	ok, err := rq.Nack(ctx, popPayload(t, rq, "x")) // its only delivery failed: dead
	require.NoError(t, err)
	require.True(t, ok)
	popPayload(t, rq, "y")            // leased until t0+1m
	clock.t = t0.Add(2 * time.Minute) // y's lease has expired
	r := inspector.Reliable("pay", rq, clock.Now)
	st := stats(t, r)
	assert.Equal(t, [3]int64{2, 1, 1}, [3]int64{st.Depth, st.InFlight, st.Dead})
	assert.EqualValues(t, 1, st.Activity.DeadLettered)
	pages(t, r, []inspector.Item{
		{ID: ids["z"], Value: "z", Position: 1, Attempt: 1, Enqueued: t0},
		{ID: ids["w"], Value: "w", Position: 2, Attempt: 1, Enqueued: t0},
		{ID: ids["y"], Value: "y", Position: 3, State: inspector.StateExpired, LeaseExpiry: t0.Add(time.Minute), Attempt: 1, Enqueued: t0},
		{ID: ids["x"], Value: "x", Position: 4, State: inspector.StateDead, Attempt: 1, Enqueued: t0, Died: t0},
	})
	dead, err := r.(inspector.DeadLetters).DeadItems(ctx, 0, 10)
	require.NoError(t, err)
	assert.Equal(t, []inspector.Item{{ID: ids["x"], Value: "x", Position: 1, State: inspector.StateDead, Attempt: 1, Enqueued: t0, Died: t0}}, utc(dead))

	for _, c := range []struct {
		do   func(context.Context, string) (bool, error)
		id   string
		want bool
	}{
		{r.(inspector.Canceler).Cancel, ids["y"], false}, // leased, not waiting
		{r.(inspector.Canceler).Cancel, ids["x"], false}, // dead, not waiting
		{r.(inspector.Canceler).Cancel, ids["w"], true},
		{r.(inspector.Canceler).Cancel, ids["w"], false},
		{r.(inspector.DeadMover).MoveDeadBack, ids["z"], false},
		{r.(inspector.DeadMover).MoveDeadBack, ids["x"], true},
		{r.(inspector.DeadMover).MoveDeadBack, ids["x"], false},
		{r.(inspector.LeaseRequeuer).RequeueExpired, ids["y"], true}, // its last delivery failed: dead
	} {
		ok, err := c.do(ctx, c.id)
		require.NoError(t, err)
		assert.Equal(t, c.want, ok, "%s", c.id)
	}
	pages(t, r, []inspector.Item{
		{ID: ids["x"], Value: "x", Position: 1, Attempt: 1, Enqueued: t0},
		{ID: ids["z"], Value: "z", Position: 2, Attempt: 1, Enqueued: t0},
		{ID: ids["y"], Value: "y", Position: 3, State: inspector.StateDead, Attempt: 1, LastError: "lease expired", Enqueued: t0, Died: t0.Add(2 * time.Minute)},
	})
	st = stats(t, r)
	assert.Equal(t, [3]int64{2, 0, 1}, [3]int64{st.Depth, st.InFlight, st.Dead})
	assert.Equal(t, [4]int64{1, 1, 1, 2}, [4]int64{st.Activity.Cancelled, st.Activity.Requeued, st.Activity.Expired, st.Activity.DeadLettered})
	popPayload(t, rq, "x") // moved back to the head of the queue

	// Delete and retry-all through DeadLetters.
	dl := r.(inspector.DeadLetters)
	for _, c := range []struct {
		id   string
		want bool
	}{{"nope", false}, {ids["z"], false}, {ids["y"], true}, {ids["y"], false}} {
		ok, err := dl.DeleteDead(ctx, c.id)
		require.NoError(t, err)
		assert.Equal(t, c.want, ok, "DeleteDead(%s)", c.id)
	}
	n, err := dl.RetryAllDead(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "nothing left to retry")
	ok, err = rq.Nack(ctx, popPayload(t, rq, "z")) // dead again
	require.NoError(t, err)
	require.True(t, ok)
	n, err = dl.RetryAllDead(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 1, n)
	popPayload(t, rq, "z")

	// Pause and resume through Pauser.
	p := r.(inspector.Pauser)
	for _, c := range []struct {
		do   func(context.Context) (bool, error)
		want bool
	}{{p.Pause, true}, {p.Pause, false}, {p.Resume, true}, {p.Resume, false}} {
		ok, err := c.do(ctx)
		require.NoError(t, err)
		assert.Equal(t, c.want, ok)
	}
	_, err = p.Pause(ctx)
	require.NoError(t, err)
	assert.True(t, stats(t, r).Paused)
	paused, err := p.Paused(ctx)
	require.NoError(t, err)
	assert.True(t, paused)
}

// TestAdapterReliableGroupsRetrying: the adapter lists grouped elements after the
// ungrouped ones, and elements waiting out a retry delay after the leases, with
// their group and the time of their next attempt; the pages show both.
func TestAdapterReliableGroupsRetrying(t *testing.T) {
	ctx := t.Context()
	clock := &fixedClock{t0}
	rq := queues.NewReliable(embedded.New(zlite.New()), "pay", queues.WithLease(time.Minute), queues.WithClock(clock.Now),
		queues.WithRetry(queues.RetryPolicy{Base: 10 * time.Second}), queues.WithGroupRateLimit(1, time.Minute))
	ids := map[string]string{}
	for _, p := range []struct{ v, g string }{{"u", ""}, {"a/0", "a"}, {"a/1", "a"}, {"b/0", "b"}} {
		var opts []queues.PushOption
		if p.g != "" {
			opts = append(opts, queues.Group(p.g))
		}
		id, err := rq.Push(ctx, p.v, opts...)
		require.NoError(t, err)
		ids[p.v] = id
	}
	ok, err := rq.Fail(ctx, popPayload(t, rq, "u"), errors.New("boom"))
	require.NoError(t, err)
	require.True(t, ok)
	popPayload(t, rq, "a/0")
	r := inspector.Reliable("pay", rq, clock.Now)
	st := stats(t, r)
	assert.Equal(t, [3]int64{2, 1, 1}, [3]int64{st.Depth, st.InFlight, st.Retrying})
	pages(t, r, []inspector.Item{
		{ID: ids["a/1"], Value: "a/1", Position: 1, Group: "a", Attempt: 1, Enqueued: t0},
		{ID: ids["b/0"], Value: "b/0", Position: 2, Group: "b", Attempt: 1, Enqueued: t0},
		{ID: ids["a/0"], Value: "a/0", Position: 3, State: inspector.StateLeased, Group: "a", LeaseExpiry: t0.Add(time.Minute), Attempt: 1, Enqueued: t0},
		{ID: ids["u"], Value: "u", Position: 4, State: inspector.StateRetrying, Due: t0.Add(10 * time.Second), Attempt: 2, LastError: "boom", Enqueued: t0},
	})

	srv, c := serve(t, inspector.New([]inspector.Queue{r}, inspector.WithClock(clock.Now)))
	_, body := get(t, c, srv.URL+"/admin/queues/pay")
	assert.Contains(t, body, `<td class="state state-retrying">retrying <span class="note">in 10s</span></td>`)
	assert.Contains(t, body, `<td class="state state-waiting">waiting <span class="group">group <q>b</q></span></td>`)
	_, body = get(t, c, srv.URL+"/admin/queues/pay/item?id="+ids["a/1"])
	assert.Contains(t, body, `<dd data-field="group">a</dd>`)
	_, body = get(t, c, srv.URL+"/admin/api/queues/pay")
	assert.Contains(t, body, `"group": "b"`)
}

// popPayload pops one element of rq, which must be want.
func popPayload(t *testing.T, rq *queues.Reliable, want string) queues.Delivery {
	t.Helper()
	d, ok, err := rq.Pop(t.Context(), time.Second)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, want, d.Payload)
	return d
}
