package queues_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

// keyRecorder records every key a queue passes to its backend.
type keyRecorder struct {
	queues.Backend
	keys map[string]bool
}

func (r *keyRecorder) add(keys ...string) {
	for _, k := range keys {
		r.keys[k] = true
	}
}

func (r *keyRecorder) Eval(ctx context.Context, s *queues.Script, keys []string, args ...string) (any, error) {
	r.add(keys...)
	return r.Backend.Eval(ctx, s, keys, args...)
}

func (r *keyRecorder) LPush(ctx context.Context, key string, values ...string) (int64, error) {
	r.add(key)
	return r.Backend.LPush(ctx, key, values...)
}

func (r *keyRecorder) LLen(ctx context.Context, key string) (int64, error) {
	r.add(key)
	return r.Backend.LLen(ctx, key)
}

func (r *keyRecorder) ZCard(ctx context.Context, key string) (int64, error) {
	r.add(key)
	return r.Backend.ZCard(ctx, key)
}

func (r *keyRecorder) BRPop(ctx context.Context, timeout time.Duration, keys ...string) (string, string, bool, error) {
	r.add(keys...)
	return r.Backend.BRPop(ctx, timeout, keys...)
}

func (r *keyRecorder) BZPopMin(ctx context.Context, timeout time.Duration, keys ...string) (string, queues.Z, bool, error) {
	r.add(keys...)
	return r.Backend.BZPopMin(ctx, timeout, keys...)
}

func (r *keyRecorder) BZPopMax(ctx context.Context, timeout time.Duration, keys ...string) (string, queues.Z, bool, error) {
	r.add(keys...)
	return r.Backend.BZPopMax(ctx, timeout, keys...)
}

func (r *keyRecorder) BLMove(ctx context.Context, src, dst, srcPos, dstPos string, timeout time.Duration) (string, bool, error) {
	r.add(src, dst)
	return r.Backend.BLMove(ctx, src, dst, srcPos, dstPos, timeout)
}

// TestKeysShareHashTag: every key a queue uses carries the hash tag {name}, so that
// Redis Cluster keeps the queue in one slot and accepts its scripts and multi-key
// pops.
func TestKeysShareHashTag(t *testing.T) {
	for _, wq := range workQueues {
		t.Run("queue="+wq.name, func(t *testing.T) {
			ctx := guard(t)
			r := &keyRecorder{Backend: newEmbedded(t), keys: map[string]bool{}}
			q := wq.make(r, "q")
			require.NoError(t, q.push(ctx, "x"))
			_, ok, err := q.pop(ctx)
			require.NoError(t, err)
			require.True(t, ok)
			require.NotEmpty(t, r.keys)
			for k := range r.keys {
				require.True(t, strings.HasPrefix(k, "{q}:"), "key %q lacks the hash tag {q}", k)
			}
		})
	}
	r := &keyRecorder{Backend: newEmbedded(t), keys: map[string]bool{}}
	ctx := guard(t)
	w := queues.NewWaitlist(r, "q")
	require.NoError(t, w.Add(ctx, "a", 1))
	_, _, err := w.Seat(ctx, 1, queues.Exact)
	require.NoError(t, err)
	s := queues.NewScheduler(r, "q")
	require.NoError(t, errOnly(s.AddFutureJob(ctx, queues.FutureJob{Queue: "work", Func: "f"}, time.Time{})))
	_, err = s.Step(ctx)
	require.NoError(t, err)
	_, ok, err := s.Queue("work").Pop(ctx, time.Second) // the list the Lua step built the name of
	require.NoError(t, err)
	require.True(t, ok)
	for k := range r.keys {
		require.True(t, strings.HasPrefix(k, "{q}:"), "key %q lacks the hash tag {q}", k)
	}
}
