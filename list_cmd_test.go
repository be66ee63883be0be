package zlite

import (
	"context"
	"errors"
	"testing"

	"github.com/zlite/zlite/list"
)

// TestListCompare runs every list command, with good and bad input, on zlite and on
// a real redis-server, and requires identical replies.
func TestListCompare(t *testing.T) {
	tests := []struct {
		name string
		cmds [][]string
	}{
		{"push", [][]string{
			cmd("LPUSH", "l", "a", "b", "c"), cmd("RPUSH", "l", "d", "e"), cmd("LRANGE", "l", "0", "-1"),
			cmd("LPUSHX", "none", "a"), cmd("RPUSHX", "none", "a"), cmd("EXISTS", "none"),
			cmd("LPUSHX", "l", "x", "y"), cmd("RPUSHX", "l", "z"), cmd("LRANGE", "l", "0", "-1"),
			cmd("ZADD", "z", "1", "m"), cmd("LPUSH", "z", "a"), cmd("RPUSHX", "z", "a"), cmd("LLEN", "z"),
			cmd("LPUSH", "l"), cmd("RPUSHX", "l"),
		}},
		{"pop", [][]string{
			cmd("RPUSH", "l", "a", "b", "c", "d", "e"),
			cmd("LPOP", "l"), cmd("RPOP", "l"), cmd("LPOP", "l", "0"), cmd("RPOP", "l", "2"),
			cmd("LPOP", "l", "-1"), cmd("LPOP", "l", "x"), cmd("LPOP", "l", "01"), cmd("LPOP", "l", "+1"),
			cmd("LPOP", "l", "5"), cmd("EXISTS", "l"), cmd("RPUSH", "l", "x"), cmd("LPOP", "l", "9223372036854775807"), cmd("LPOP", "l"), cmd("LPOP", "l", "0"),
			cmd("RPOP", "l", "3"), cmd("LPOP", "missing", "-1"), cmd("LPOP", "l", "1", "2"),
			cmd("ZADD", "z", "1", "m"), cmd("LPOP", "z"), cmd("RPOP", "z", "1"), cmd("RPOP", "z", "-1"),
		}},
		{"llen lindex lset", [][]string{
			cmd("LLEN", "l"), cmd("RPUSH", "l", "a", "b", "c"), cmd("LLEN", "l"),
			cmd("LINDEX", "l", "0"), cmd("LINDEX", "l", "-1"), cmd("LINDEX", "l", "3"), cmd("LINDEX", "l", "-4"),
			cmd("LINDEX", "l", "x"), cmd("LINDEX", "missing", "x"), cmd("LINDEX", "l", "99999999999999999999"),
			cmd("LSET", "l", "1", "B"), cmd("LSET", "l", "-1", "C"), cmd("LSET", "l", "3", "x"),
			cmd("LSET", "l", "x", "y"), cmd("LSET", "missing", "0", "x"), cmd("LSET", "missing", "x", "x"),
			cmd("LRANGE", "l", "0", "-1"), cmd("ZADD", "z", "1", "m"), cmd("LLEN", "z"), cmd("LINDEX", "z", "0"),
			cmd("LSET", "z", "0", "x"), cmd("LINDEX", "z", "x"),
		}},
		{"lrange", [][]string{
			cmd("RPUSH", "l", "a", "b", "c", "d"), cmd("LRANGE", "l", "1", "2"), cmd("LRANGE", "l", "-3", "-2"),
			cmd("LRANGE", "l", "-100", "100"), cmd("LRANGE", "l", "3", "1"), cmd("LRANGE", "l", "4", "10"),
			cmd("LRANGE", "l", "x", "1"), cmd("LRANGE", "l", "0", "y"), cmd("LRANGE", "missing", "0", "-1"),
			cmd("LRANGE", "missing", "x", "1"), cmd("ZADD", "z", "1", "m"), cmd("LRANGE", "z", "0", "1"),
			cmd("LRANGE", "l", "-9223372036854775808", "9223372036854775807"),
		}},
		{"linsert", [][]string{
			cmd("RPUSH", "l", "a", "b", "c"), cmd("LINSERT", "l", "BEFORE", "b", "x"),
			cmd("LINSERT", "l", "after", "c", "y"), cmd("LINSERT", "l", "before", "zz", "y"),
			cmd("LINSERT", "l", "middle", "a", "y"), cmd("LINSERT", "missing", "before", "a", "y"),
			cmd("LINSERT", "missing", "middle", "a", "y"), cmd("LRANGE", "l", "0", "-1"),
			cmd("ZADD", "z", "1", "m"), cmd("LINSERT", "z", "before", "m", "x"), cmd("LINSERT", "z", "bad", "m", "x"),
		}},
		{"lrem", [][]string{
			cmd("RPUSH", "l", "a", "b", "a", "c", "a", "b", "a"), cmd("LREM", "l", "2", "a"),
			cmd("LRANGE", "l", "0", "-1"), cmd("LREM", "l", "-1", "a"), cmd("LRANGE", "l", "0", "-1"),
			cmd("LREM", "l", "0", "b"), cmd("LREM", "l", "x", "b"), cmd("LREM", "missing", "0", "b"),
			cmd("LREM", "missing", "x", "b"), cmd("LREM", "l", "0", "a"), cmd("LREM", "l", "0", "c"),
			cmd("EXISTS", "l"), cmd("ZADD", "z", "1", "m"), cmd("LREM", "z", "0", "m"),
		}},
		{"ltrim", [][]string{
			cmd("RPUSH", "l", "a", "b", "c", "d", "e"), cmd("LTRIM", "l", "1", "-2"), cmd("LRANGE", "l", "0", "-1"),
			cmd("LTRIM", "l", "-100", "100"), cmd("LRANGE", "l", "0", "-1"), cmd("LTRIM", "l", "x", "1"),
			cmd("LTRIM", "missing", "0", "1"), cmd("LTRIM", "l", "2", "1"), cmd("EXISTS", "l"),
			cmd("RPUSH", "l", "a"), cmd("LTRIM", "l", "5", "10"), cmd("EXISTS", "l"),
			cmd("ZADD", "z", "1", "m"), cmd("LTRIM", "z", "0", "1"), cmd("LTRIM", "missing", "a", "1"),
		}},
		{"lpos", [][]string{
			cmd("RPUSH", "l", "a", "b", "c", "1", "2", "3", "c", "c"),
			cmd("LPOS", "l", "c"), cmd("LPOS", "l", "c", "RANK", "2"), cmd("LPOS", "l", "c", "RANK", "-1"),
			cmd("LPOS", "l", "c", "RANK", "-4"), cmd("LPOS", "l", "c", "COUNT", "0"), cmd("LPOS", "l", "c", "COUNT", "2"),
			cmd("LPOS", "l", "c", "COUNT", "0", "RANK", "-2"), cmd("LPOS", "l", "c", "MAXLEN", "3"),
			cmd("LPOS", "l", "c", "MAXLEN", "2"), cmd("LPOS", "l", "c", "COUNT", "0", "MAXLEN", "7"),
			cmd("LPOS", "l", "x"), cmd("LPOS", "l", "x", "COUNT", "5"), cmd("LPOS", "missing", "x"),
			cmd("LPOS", "missing", "x", "COUNT", "1"), cmd("LPOS", "missing", "x", "RANK", "0"),
			cmd("LPOS", "l", "c", "RANK", "0"), cmd("LPOS", "l", "c", "COUNT", "-1"), cmd("LPOS", "l", "c", "MAXLEN", "-1"),
			cmd("LPOS", "l", "c", "COUNT", "-1", "RANK", "0"), cmd("LPOS", "l", "c", "RANK", "x"),
			cmd("LPOS", "l", "c", "COUNT", "x"), cmd("LPOS", "l", "c", "MAXLEN", "x"), cmd("LPOS", "l", "c", "RANK"),
			cmd("LPOS", "l", "c", "FOO", "1"), cmd("ZADD", "z", "1", "m"), cmd("LPOS", "z", "m"),
			cmd("LPOS", "z", "m", "RANK", "0"), cmd("LPOS", "l", "c", "rank", "1", "RANK", "3"),
			cmd("LPOS", "l", "c", "RANK", "9223372036854775807"), cmd("LPOS", "l", "c", "RANK", "-9223372036854775807"),
			cmd("LPOS", "l", "c", "COUNT", "9223372036854775807", "MAXLEN", "9223372036854775807"),
		}},
		{"lmove rpoplpush", [][]string{
			cmd("RPUSH", "s", "a", "b", "c"), cmd("LMOVE", "s", "d", "LEFT", "RIGHT"), cmd("LMOVE", "s", "d", "right", "left"),
			cmd("LRANGE", "d", "0", "-1"), cmd("LMOVE", "s", "s", "LEFT", "RIGHT"), cmd("LRANGE", "s", "0", "-1"),
			cmd("LMOVE", "missing", "d", "LEFT", "LEFT"), cmd("EXISTS", "missing"), cmd("LMOVE", "s", "d", "UP", "LEFT"),
			cmd("LMOVE", "s", "d", "LEFT", "DOWN"), cmd("ZADD", "z", "1", "m"), cmd("LMOVE", "s", "z", "LEFT", "LEFT"),
			cmd("LMOVE", "z", "d", "LEFT", "LEFT"), cmd("LMOVE", "missing", "z", "LEFT", "LEFT"), cmd("LRANGE", "s", "0", "-1"),
			cmd("RPOPLPUSH", "s", "d"), cmd("RPOPLPUSH", "s", "d"), cmd("EXISTS", "s"), cmd("RPOPLPUSH", "s", "d"),
			cmd("RPOPLPUSH", "d", "z"), cmd("RPOPLPUSH", "d", "d"), cmd("LRANGE", "d", "0", "-1"),
		}},
		{"lmpop", [][]string{
			cmd("RPUSH", "b", "1", "2", "3", "4"), cmd("LMPOP", "2", "a", "b", "LEFT"), cmd("LMPOP", "2", "a", "b", "RIGHT", "COUNT", "2"),
			cmd("LMPOP", "2", "a", "b", "left", "count", "10"), cmd("LMPOP", "2", "a", "b", "LEFT"), cmd("EXISTS", "b"),
			cmd("LMPOP", "0", "a", "LEFT"), cmd("LMPOP", "-1", "a", "LEFT"), cmd("LMPOP", "x", "a", "LEFT"),
			cmd("LMPOP", "3", "a", "b", "LEFT"), cmd("LMPOP", "9223372036854775807", "a", "LEFT"), cmd("LMPOP", "9223372036854775806", "a", "LEFT"),
			cmd("ZMPOP", "9223372036854775807", "a", "MIN"), cmd("BLMPOP", "0", "9223372036854775807", "a", "LEFT"), cmd("BZMPOP", "0", "9223372036854775807", "a", "MIN"), cmd("LMPOP", "1", "a", "MIDDLE"), cmd("LMPOP", "1", "a", "LEFT", "COUNT", "0"),
			cmd("LMPOP", "1", "a", "LEFT", "COUNT", "x"), cmd("LMPOP", "1", "a", "LEFT", "COUNT"), cmd("LMPOP", "1", "a", "LEFT", "COUNT", "1", "COUNT", "1"),
			cmd("LMPOP", "1", "a", "LEFT", "FOO"), cmd("ZADD", "z", "1", "m"), cmd("RPUSH", "c", "x"),
			cmd("LMPOP", "2", "z", "c", "LEFT"), cmd("LMPOP", "2", "c", "z", "LEFT"), cmd("LMPOP", "1"),
		}},
		{"wrong type everywhere", [][]string{
			cmd("ZADD", "z", "1", "m"), cmd("RPUSH", "l", "a"), cmd("TYPE", "z"), cmd("TYPE", "l"),
			cmd("LPUSH", "z", "x"), cmd("LLEN", "z"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { compare(t, tt.cmds...) })
	}
}

// TestLPosRankMin checks the Redis 7.2+ behaviour followed for RANK LONG_MIN (Redis
// 7.0, the server tested against, accepts it): an error before the key is looked up.
func TestLPosRankMin(t *testing.T) {
	db := New()
	for _, key := range []string{"missing", "l"} {
		if key == "l" {
			db.Do(context.Background(), "RPUSH", "l", "c")
		}
		_, err := db.Do(context.Background(), "LPOS", key, "c", "RANK", "-9223372036854775808", "COUNT", "-1")
		if !errors.Is(err, list.ErrRankOutOfRange) {
			t.Errorf("LPOS %s RANK LONG_MIN COUNT -1 = %v; want %v", key, err, list.ErrRankOutOfRange)
		}
	}
}
