package queues_test

import (
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

func TestWaitlist(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		w := queues.NewWaitlist(b, qname(t))
		parties := []queues.Party{{"Bob", 4}, {"Karen", 2}, {"You", 2}, {"Liz", 1}, {"Al", 6}}
		for _, p := range parties {
			require.NoError(t, w.Add(ctx, p.Name, p.Seats))
		}
		got, err := w.Items(ctx, 0, math.MaxInt64)
		require.NoError(t, err)
		require.Equal(t, parties, got)
		for i, p := range parties {
			pos, ok, err := w.Position(ctx, p.Name)
			require.NoError(t, err)
			require.True(t, ok)
			require.EqualValues(t, i+1, pos, "Position(%q)", p.Name)
		}
		_, ok, err := w.Position(ctx, "Nobody")
		require.NoError(t, err)
		require.False(t, ok)

		seat := func(table int64, m queues.Match) string {
			t.Helper()
			p, ok, err := w.Seat(ctx, table, m)
			require.NoError(t, err)
			if !ok {
				return "-"
			}
			return fmt.Sprintf("%s/%d", p.Name, p.Seats)
		}
		// The seed: a two-seat table seats the earliest party of exactly two.
		require.Equal(t, "Karen/2", seat(2, queues.Exact))
		require.Equal(t, "-", seat(3, queues.Exact))
		// Fits: the earliest party of at most 5 is Bob (4), before You (2) and Liz (1).
		require.Equal(t, "Bob/4", seat(5, queues.Fits))
		require.Equal(t, "You/2", seat(5, queues.Fits))
		require.Equal(t, "Liz/1", seat(5, queues.Fits))
		require.Equal(t, "-", seat(5, queues.Fits))
		left, err := w.Leave(ctx, "Al")
		require.NoError(t, err)
		require.True(t, left)
		left, err = w.Leave(ctx, "Al")
		require.NoError(t, err)
		require.False(t, left)
		n, err := w.Len(ctx)
		require.NoError(t, err)
		require.Zero(t, n)
		// A party that left or was seated may come back, at the end.
		require.NoError(t, w.Add(ctx, "Karen", 3))
		require.NoError(t, w.Add(ctx, "Al", 3))
		require.Equal(t, "Karen/3", seat(3, queues.Exact))
		pos, ok, err := w.Position(ctx, "Al")
		require.NoError(t, err)
		require.True(t, ok)
		require.EqualValues(t, 1, pos)
	})
}

func TestWaitlistBadInput(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		w := queues.NewWaitlist(b, qname(t))
		require.NoError(t, w.Add(ctx, "Bob", 2))
		tests := []struct {
			name  string
			seats int64
			err   error
		}{
			{"", 2, queues.ErrEmptyID},
			{"Eve", 0, queues.ErrBadSeats},
			{"Eve", -1, queues.ErrBadSeats},
			{"Bob", 3, queues.ErrDuplicate},
		}
		for _, tt := range tests {
			require.ErrorIs(t, w.Add(ctx, tt.name, tt.seats), tt.err, "Add(%q, %d)", tt.name, tt.seats)
		}
		_, _, err := w.Seat(ctx, 0, queues.Fits)
		require.ErrorIs(t, err, queues.ErrBadSeats)
		_, err = w.Leave(ctx, "")
		require.ErrorIs(t, err, queues.ErrEmptyID)
		got, err := w.Items(ctx, 0, math.MaxInt64)
		require.NoError(t, err)
		require.Equal(t, []queues.Party{{"Bob", 2}}, got, "bad input changed the waitlist")
	})
}

// TestWaitlistConcurrentSeating: hosts seating at once never seat a party twice, and
// every party is seated.
func TestWaitlistConcurrentSeating(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		w := queues.NewWaitlist(b, qname(t))
		const parties, hosts = 200, 8
		for i := range parties {
			require.NoError(t, w.Add(ctx, fmt.Sprint("p", i), int64(1+i%4)))
		}
		var mu sync.Mutex
		seated := map[string]int{}
		var wg sync.WaitGroup
		errs := make(chan error, hosts)
		for h := range hosts {
			wg.Go(func() {
				for {
					p, ok, err := w.Seat(ctx, int64(1+h%4), queues.Fits)
					if err != nil {
						errs <- err
						return
					}
					if !ok {
						return
					}
					mu.Lock()
					seated[p.Name]++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		// Hosts with 4-seat tables exist, so everyone fits somewhere.
		require.Len(t, seated, parties)
		for name, n := range seated {
			require.Equal(t, 1, n, "party %s seated %d times", name, n)
		}
	})
}
