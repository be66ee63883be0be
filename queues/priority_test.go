package queues_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

func TestPriority(t *testing.T) {
	type push struct {
		v string
		p float64
	}
	pushes := []push{{"e", 5}, {"a", 1}, {"x", 99999}, {"b", 1}, {"z", -2.5}, {"a", 1}, {"c", 1}, {"f", 5}}
	tests := []struct {
		order queues.Order
		want  []push
	}{
		{queues.LowestFirst, []push{{"z", -2.5}, {"a", 1}, {"b", 1}, {"a", 1}, {"c", 1}, {"e", 5}, {"f", 5}, {"x", 99999}}},
		{queues.HighestFirst, []push{{"x", 99999}, {"e", 5}, {"f", 5}, {"a", 1}, {"b", 1}, {"a", 1}, {"c", 1}, {"z", -2.5}}},
	}
	each(t, func(t *testing.T, b queues.Backend) {
		for _, tt := range tests {
			ctx := guard(t)
			q := queues.NewPriority(b, qname(t), queues.WithOrder(tt.order))
			for _, p := range pushes {
				require.NoError(t, errOnly(q.Push(ctx, p.v, p.p)))
			}
			n, err := q.Len(ctx)
			require.NoError(t, err)
			require.EqualValues(t, len(pushes), n)
			for i, w := range tt.want {
				v, p, ok, err := q.Pop(ctx, time.Second)
				require.NoError(t, err)
				require.True(t, ok)
				require.Equal(t, w, push{v, p}, "order %d, pop %d", tt.order, i)
			}
			_, _, ok, err := q.Pop(ctx, 10*time.Millisecond)
			require.NoError(t, err)
			require.False(t, ok)
		}
	})
}

func TestPriorityBadInput(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		q := queues.NewPriority(b, qname(t))
		for _, p := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			require.ErrorIs(t, errOnly(q.Push(ctx, "v", p)), queues.ErrBadPriority, "Push(%v)", p)
		}
		n, err := q.Len(ctx)
		require.NoError(t, err)
		require.Zero(t, n, "bad pushes changed the queue")
	})
}
