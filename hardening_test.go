package zlite

import (
	"context"
	"errors"
	"math"
	"slices"
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

	_, err = db.ZRandMember(ctx, "z", math.MinInt+1)
	require.ErrorIs(t, err, ErrReplyTooLarge, "typed ZRandMember")
	_, err = db.ZRandMemberWithScores(ctx, "z", -(math.MaxInt / 2))
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

// hostileCounts are the integers every count, index, numkeys, LIMIT, COUNT, MAXLEN
// and RANK argument is tried with: the extremes, values whose doubling or negation
// overflows, values beyond 32 bits, and the small edges.
var hostileCounts = []string{
	"9223372036854775807", "-9223372036854775808", "-9223372036854775807",
	"4611686018427387904", "-4611686018427387904", "2147483648", "-2147483649",
	"-1", "0", "1", "2",
}

// hostileTranscript is every command taking a count or an index, with every pair
// of hostileCounts, on a small sorted set k and list l. ZRANDMEMBER's negative
// counts are left out: Redis 7.0 streams them (and the test server would build a
// reply of up to 2^63 elements); TestZRandMemberHugeCounts covers them.
func hostileTranscript() [][]string {
	cmds := [][]string{cmd("ZADD", "k", "1", "a", "2", "b", "3", "c"), cmd("RPUSH", "l", "a", "b", "c", "a")}
	for _, n := range hostileCounts {
		for _, m := range hostileCounts {
			cmds = append(cmds,
				cmd("ZRANGE", "k", n, m), cmd("ZRANGE", "k", n, m, "REV", "WITHSCORES"), cmd("ZREVRANGE", "k", n, m),
				cmd("ZRANGE", "k", "(1", "+inf", "BYSCORE", "LIMIT", n, m),
				cmd("ZRANGE", "k", "+inf", "(1", "BYSCORE", "REV", "LIMIT", n, m),
				cmd("ZRANGEBYSCORE", "k", "(1", "+inf", "LIMIT", n, m),
				cmd("ZREVRANGEBYSCORE", "k", "+inf", "-inf", "LIMIT", n, m),
				cmd("ZRANGEBYLEX", "k", "(a", "+", "LIMIT", n, m), cmd("ZREVRANGEBYLEX", "k", "+", "-", "LIMIT", n, m),
				cmd("ZRANGESTORE", "d", "k", "(1", "+inf", "BYSCORE", "LIMIT", n, m),
				cmd("LRANGE", "l", n, m), cmd("LPOS", "l", "a", "RANK", n, "COUNT", m),
				cmd("LPOS", "l", "a", "COUNT", n, "MAXLEN", m), cmd("LPOS", "l", "a", "RANK", n, "MAXLEN", m),
				cmd("LMPOP", n, "nol", "LEFT", "COUNT", m), cmd("ZMPOP", n, "nok", "MIN", "COUNT", m),
				cmd("ZINTERCARD", n, "k", "LIMIT", m), cmd("ZUNION", n, "k", "k"),
				cmd("ZINTERCARD", "1", "k", "LIMIT", m), cmd("ZSCAN", "k", n, "COUNT", m),
				cmd("ZREMRANGEBYRANK", "nok", n, m), cmd("LTRIM", "nol", n, m),
			)
		}
		cmds = append(cmds, cmd("ZPOPMIN", "nok", n), cmd("ZPOPMAX", "nok", n), cmd("LPOP", "nol", n),
			cmd("RPOP", "nol", n), cmd("LINDEX", "l", n), cmd("LSET", "l", n, "x"), cmd("LREM", "l", n, "zz"))
		if n[0] != '-' && (n == "0" || len(n) > 1) { // at least the set's size: no chance
			cmds = append(cmds, cmd("ZRANDMEMBER", "k", n), cmd("ZRANDMEMBER", "k", n, "WITHSCORES"))
		}
	}
	return cmds
}

// TestHostileCounts runs hostileTranscript on the keyspace alone (it must not
// panic or allocate by the count) and checks the invariants after it.
func TestHostileCounts(t *testing.T) {
	ctx := context.Background()
	db := New()
	for _, c := range hostileTranscript() {
		db.Do(ctx, c...)
	}
	require.NoError(t, db.check())
	// The blocking forms' numkeys and COUNT, parsed but not blocking inside a batch.
	require.NoError(t, db.Update(func(tx *Tx) error {
		for _, n := range hostileCounts {
			for _, m := range hostileCounts {
				tx.Do("BLMPOP", "0", n, "l", "LEFT", "COUNT", m)
				tx.Do("BZMPOP", "0", n, "k", "MIN", "COUNT", m)
			}
		}
		return nil
	}))
	require.NoError(t, db.check())
}

// TestHostileCountsCompare requires Redis's replies to hostileTranscript, but for
// LPOS RANK -9223372036854775808, an error in Redis 7.2 and in zlite (doc.go), that
// the Redis 7.0 test server accepts.
func TestHostileCountsCompare(t *testing.T) {
	cmds := slices.DeleteFunc(hostileTranscript(), func(c []string) bool {
		i := slices.Index(c, "RANK")
		return c[0] == "LPOS" && i > 0 && c[i+1] == "-9223372036854775808"
	})
	compare(t, cmds...)
}
