package queues_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

func TestScheduler(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		s := queues.NewScheduler(b, qname(t), queues.WithBatch(2), queues.WithClock(clock.Now))
		now := clock.Now()
		jobs := []struct {
			job queues.FutureJob
			at  time.Duration
		}{
			{queues.FutureJob{Queue: "email", Func: "send", Args: json.RawMessage(`["a@b"]`)}, time.Minute},
			{queues.FutureJob{Queue: "email", Func: "send", Args: json.RawMessage(`["c@d"]`)}, -time.Minute},
			{queues.FutureJob{Queue: "reports", Func: "build"}, 0},
			{queues.FutureJob{Queue: "email", Func: "digest", Args: json.RawMessage(`{"k":1}`)}, time.Second},
			{queues.FutureJob{Queue: "reports", Func: "later"}, time.Hour},
		}
		for _, j := range jobs {
			require.NoError(t, errOnly(s.AddFutureJob(ctx, j.job, now.Add(j.at))))
		}
		funcs := func(js []queues.FutureJob) []string {
			var out []string
			for _, j := range js {
				out = append(out, j.Func)
			}
			return out
		}
		moved, err := s.Step(ctx)
		require.NoError(t, err)
		require.Equal(t, []string{"send", "build"}, funcs(moved))
		clock.Advance(time.Minute)
		moved, err = s.Step(ctx) // three batches of at most 2: digest, send
		require.NoError(t, err)
		require.Equal(t, []string{"digest", "send"}, funcs(moved))
		require.Equal(t, `{"queue":"email","func":"send","args":["a@b"]}`, mustJSON(t, moved[1]))

		email := s.Queue("email")
		var got []string
		for {
			v, ok, err := email.Pop(ctx, 10*time.Millisecond)
			require.NoError(t, err)
			if !ok {
				break
			}
			got = append(got, v)
		}
		require.Equal(t, []string{
			`{"queue":"email","func":"send","args":["c@d"]}`,
			`{"queue":"email","func":"digest","args":{"k":1}}`,
			`{"queue":"email","func":"send","args":["a@b"]}`,
		}, got)
		n, err := s.Queue("reports").Len(ctx)
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		n, err = s.Len(ctx) // "later", due in an hour
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestSchedulerBadInput(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		s := queues.NewScheduler(b, qname(t))
		tests := []struct {
			job queues.FutureJob
			err error
		}{
			{queues.FutureJob{Func: "f"}, queues.ErrNoQueue},
			{queues.FutureJob{Queue: "q"}, queues.ErrBadJob},
			{queues.FutureJob{Queue: "q", Func: "f", Args: json.RawMessage(`{"a":`)}, queues.ErrBadJob},
			{queues.FutureJob{Queue: "q", Func: "f", Args: json.RawMessage(`nope`)}, queues.ErrBadJob},
		}
		for _, tt := range tests {
			require.ErrorIs(t, errOnly(s.AddFutureJob(ctx, tt.job, time.Time{})), tt.err, "AddFutureJob(%+v)", tt.job)
		}
		moved, err := s.Step(ctx)
		require.NoError(t, err)
		require.Empty(t, moved, "bad jobs were stored")
	})
}

// TestSchedulerMoversExactlyOnce: several movers running at once move each job once.
func TestSchedulerMoversExactlyOnce(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		s := queues.NewScheduler(b, qname(t), queues.WithBatch(7))
		const jobs = 300
		now := time.Now()
		for i := range jobs {
			// Half due now, half due within the next few milliseconds.
			at := now.Add(time.Duration(i%2) * time.Duration(i%13) * time.Millisecond)
			require.NoError(t, errOnly(s.AddFutureJob(ctx, queues.FutureJob{Queue: "q", Func: fmt.Sprint("f", i)}, at)))
		}
		rctx, stop := context.WithCancel(ctx)
		var mu sync.Mutex
		var reported []string
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				_ = s.Run(rctx, func(js []queues.FutureJob) {
					mu.Lock()
					for _, j := range js {
						reported = append(reported, j.Func)
					}
					mu.Unlock()
				})
			})
		}
		q := s.Queue("q")
		var got []string
		for len(got) < jobs {
			v, ok, err := q.Pop(ctx, 0)
			require.NoError(t, err)
			require.True(t, ok)
			var j queues.FutureJob
			require.NoError(t, json.Unmarshal([]byte(v), &j))
			got = append(got, j.Func)
		}
		stop()
		wg.Wait()
		var want []string
		for i := range jobs {
			want = append(want, fmt.Sprint("f", i))
		}
		sort.Strings(want)
		sort.Strings(got)
		sort.Strings(reported)
		require.Equal(t, want, got)
		require.Equal(t, want, reported)
	})
}
