package zlite

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// Hostile counts: a count the caller chooses must never size an allocation beyond
// what the reply really holds. Before the reply bound, each of these panicked
// (makeslice: len out of range) or killed the process (fatal error: out of memory).

func TestZRandMemberHugeCounts(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		args []string
		want error // nil: a reply with wantLen elements
		len  int
	}{
		{"min+1", []string{"ZRANDMEMBER", "z", "-9223372036854775807"}, ErrReplyTooLarge, 0},
		{"half withscores", []string{"ZRANDMEMBER", "z", "-4611686018427387903", "WITHSCORES"}, ErrReplyTooLarge, 0},
		{"2e9 withscores", []string{"ZRANDMEMBER", "z", "-2000000000", "WITHSCORES"}, ErrReplyTooLarge, 0},
		{"above the bound", []string{"ZRANDMEMBER", "z", "-5"}, ErrReplyTooLarge, 0},
		{"at the bound", []string{"ZRANDMEMBER", "z", "-4", "WITHSCORES"}, nil, 8},
		{"doubling overflows", []string{"ZRANDMEMBER", "z", "-4611686018427387904", "WITHSCORES"}, ErrOutOfRange, 0},
		{"positive huge", []string{"ZRANDMEMBER", "z", "9223372036854775807"}, nil, 1},
		{"missing key", []string{"ZRANDMEMBER", "nokey", "-9223372036854775807"}, nil, 0},
	}
	db := New(WithMaxReplyElements(4))
	_, err := db.ZAdd(ctx, "z", Z{Member: "a", Score: 1})
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := func(via string, r any, err error) {
				t.Helper()
				if tt.want != nil {
					require.ErrorIs(t, err, tt.want, via)
					return
				}
				require.NoError(t, err, via)
				require.Len(t, r, tt.len, via)
			}
			r, err := db.Do(ctx, tt.args...)
			check("DB.Do", r, err)
			require.NoError(t, db.Update(func(tx *Tx) error {
				r, err := tx.Do(tt.args...)
				check("Tx.Do", r, err)
				return nil
			}))
		})
	}

	_, err = db.ZRandMember(ctx, "z", math.MinInt64+1)
	require.ErrorIs(t, err, ErrReplyTooLarge, "typed ZRandMember")
	_, err = db.ZRandMemberWithScores(ctx, "z", -(math.MaxInt64 / 2))
	require.ErrorIs(t, err, ErrReplyTooLarge, "typed ZRandMemberWithScores")
	zs, err := db.ZRandMemberWithScores(ctx, "z", -4)
	require.NoError(t, err)
	require.Len(t, zs, 4)

	var e *Error
	require.True(t, errors.As(err2(db.ZRandMember(ctx, "z", -5)), &e))
	require.Equal(t, "zrandmember", e.Command)
	require.Equal(t, "ERR reply would hold more than 4 elements (zlite.WithMaxReplyElements)", e.Error())
}

// err2 returns the error of a two-result call.
func err2[T any](_ T, err error) error { return err }

func TestMaxReplyElementsDefault(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{0, -1} {
		db := New(WithMaxReplyElements(n))
		require.Equal(t, DefaultMaxReplyElements, db.cfg.maxReply, "WithMaxReplyElements(%d)", n)
		db.ZAdd(ctx, "z", Z{Member: "a", Score: 1})
		_, err := db.Do(ctx, "ZRANDMEMBER", "z", "-16777217")
		require.ErrorIs(t, err, ErrReplyTooLarge)
	}
}

// The whole set, when count is at least its size, comes in Redis's order for that
// case: descending (checked against redis-server in TestZRandMemberCompare).
func TestZRandMemberWholeSetOrder(t *testing.T) {
	ctx := context.Background()
	db := New()
	db.ZAdd(ctx, "z", Z{Member: "a", Score: 1}, Z{Member: "b", Score: 2}, Z{Member: "c", Score: 2}, Z{Member: "d", Score: 0})
	for _, count := range []int{4, 5, math.MaxInt} {
		got, err := db.ZRandMember(ctx, "z", count)
		require.NoError(t, err)
		require.Equal(t, []string{"c", "b", "a", "d"}, got, "ZRandMember(%d)", count)
	}
}
