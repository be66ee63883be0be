package queues_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

func TestDelayed(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		clock := newFakeClock()
		q := queues.NewDelayed(b, qname(t), queues.WithClock(clock.Now))
		now := clock.Now()
		require.NoError(t, errOnly(q.Schedule(ctx, "in2h", now.Add(2*time.Hour))))
		require.NoError(t, errOnly(q.Schedule(ctx, "in1h", now.Add(time.Hour))))
		require.NoError(t, errOnly(q.Schedule(ctx, "in1h-again", now.Add(time.Hour))))
		require.NoError(t, errOnly(q.Schedule(ctx, "past", now.Add(-time.Hour))))
		require.NoError(t, errOnly(q.Schedule(ctx, "past", now.Add(-2*time.Hour))))

		pop := func() string {
			t.Helper()
			j, ok, err := q.TryPop(ctx)
			require.NoError(t, err)
			if !ok {
				return "-"
			}
			return j.Payload
		}
		// Past due times mean now, in scheduling order; equal payloads are two jobs.
		require.Equal(t, "past", pop())
		require.Equal(t, "past", pop())
		require.Equal(t, "-", pop())
		clock.Advance(time.Hour - time.Microsecond)
		require.Equal(t, "-", pop())
		clock.Advance(time.Microsecond)
		j, ok, err := q.TryPop(ctx)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, queues.Job{Payload: "in1h", Due: now.Add(time.Hour)}, queues.Job{Payload: j.Payload, Due: j.Due.UTC()})
		require.Equal(t, "in1h-again", pop())
		n, err := q.Len(ctx)
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		clock.Advance(2 * time.Hour)
		// A due job is returned by the blocking Pop at once.
		j, ok, err = q.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "in2h", j.Payload)
		_, ok, err = q.Pop(ctx, 20*time.Millisecond)
		require.NoError(t, err)
		require.False(t, ok)
	})
}

// TestDelayedWakesOnSchedule: a consumer sleeping on an empty queue wakes for a job
// scheduled due now.
func TestDelayedWakesOnSchedule(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		q := queues.NewDelayed(b, qname(t))
		got := make(chan string, 1)
		go func() {
			j, _, _ := q.Pop(ctx, 0)
			got <- j.Payload
		}()
		require.NoError(t, errOnly(q.Schedule(ctx, "now", time.Time{})))
		require.Equal(t, "now", <-got)
	})
}
