package queues_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

func TestFIFO(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		q := queues.NewFIFO(b, qname(t))
		require.NoError(t, q.Push(ctx))
		require.NoError(t, q.Push(ctx, "a", "b"))
		require.NoError(t, q.Push(ctx, "c", ""))
		n, err := q.Len(ctx)
		require.NoError(t, err)
		require.EqualValues(t, 4, n)
		for _, want := range []string{"a", "b", "c", ""} {
			v, ok, err := q.Pop(ctx, time.Second)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, want, v)
		}
		v, ok, err := q.Pop(ctx, 10*time.Millisecond)
		require.NoError(t, err)
		require.False(t, ok, "Pop on an empty queue = %q, true; want timeout", v)
	})
}

func TestLevelsSeedTranscript(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		q := queues.NewLevels(b, qname(t), []string{"a", "b"})
		// lpush a 1; lpush a 2; lpush a 3; lpush b 1; lpush b 2; lpush b 3
		for _, l := range []string{"a", "b"} {
			for _, v := range []string{"1", "2", "3"} {
				require.NoError(t, q.Push(ctx, l, v))
			}
		}
		// brpop a b, six times: all of a, then all of b, each in push order.
		want := [][2]string{{"a", "1"}, {"a", "2"}, {"a", "3"}, {"b", "1"}, {"b", "2"}, {"b", "3"}}
		for _, w := range want {
			l, v, ok, err := q.Pop(ctx, time.Second)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, w, [2]string{l, v})
		}
		_, _, ok, err := q.Pop(ctx, 10*time.Millisecond)
		require.NoError(t, err)
		require.False(t, ok)
	})
}

func TestLevelsBadInput(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		q := queues.NewLevels(b, qname(t), []string{"high", "low"})
		require.ErrorIs(t, q.Push(ctx, "medium", "x"), queues.ErrUnknownLevel)
		_, err := q.Len(ctx, "medium")
		require.ErrorIs(t, err, queues.ErrUnknownLevel)
		for _, l := range []string{"high", "low"} {
			n, err := q.Len(ctx, l)
			require.NoError(t, err)
			require.Zero(t, n)
		}
		// A lower level waits while a higher one has elements, even if pushed first.
		require.NoError(t, q.Push(ctx, "low", "l1"))
		require.NoError(t, q.Push(ctx, "high", "h1"))
		l, v, ok, err := q.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, "high/h1", l+"/"+v)
	})
	require.Panics(t, func() { queues.NewLevels(nil, "x", []string{}) })
	require.Panics(t, func() { queues.NewLevels(nil, "x", []string{"a", "a"}) })
	require.Panics(t, func() { queues.NewFIFO(nil, "") })
}
