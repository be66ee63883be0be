package queues_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

// TestBinaryPayloads: payloads, ids and names are binary-safe on both backends,
// including NUL bytes, invalid UTF-8 and strings that look like arrival prefixes.
func TestBinaryPayloads(t *testing.T) {
	values := []string{"\x00", "a\x00b\xff\xfe", "ключ 🔑", "0000000000000001x", " ", "\r\n"}
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		name := qname(t)
		p := queues.NewPriority(b, name+"-p")
		d := queues.NewDelayed(b, name+"-d")
		r := queues.NewReliable(b, name+"-r", queues.WithLease(time.Minute))
		c := queues.NewCallQueue(b, name+"-c")
		w := queues.NewWaitlist(b, name+"-w")
		for _, v := range values {
			require.NoError(t, errOnly(p.Push(ctx, v, 1)))
			require.NoError(t, errOnly(d.Schedule(ctx, v, time.Time{})))
			_, err := r.Push(ctx, v)
			require.NoError(t, err)
			require.NoError(t, c.Enqueue(ctx, v, 1))
			require.NoError(t, w.Add(ctx, v, 2))
		}
		for i, v := range values {
			got, _, ok, err := p.Pop(ctx, time.Second)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, v, got, "priority")
			j, ok, err := d.TryPop(ctx)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, v, j.Payload, "delayed")
			del, ok, err := r.Pop(ctx, time.Second)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, v, del.Payload, "reliable")
			acked, err := r.Ack(ctx, del)
			require.NoError(t, err)
			require.True(t, acked)
			pos, ok, err := c.Position(ctx, v)
			require.NoError(t, err)
			require.True(t, ok)
			require.EqualValues(t, 1, pos, "call %q", v)
			call, ok, err := c.TryDequeue(ctx)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, v, call.ID, "callqueue")
			pos, ok, err = w.Position(ctx, v)
			require.NoError(t, err)
			require.True(t, ok)
			require.EqualValues(t, i+1, pos, "waitlist %q", v)
		}
		for _, v := range values {
			left, err := w.Leave(ctx, v)
			require.NoError(t, err)
			require.True(t, left, "Leave(%q)", v)
		}
	})
}
