package zlite

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/zlite/zlite/internal/redistest"
)

// The differential test helper: the same commands run through DB.Do and through
// go-redis's Do on a real redis-server, and the replies must be identical.
//
// Named loosenings (each justified):
//   - scores: in replies of sorted-set commands (names starting with Z or BZ), two bulk
//     strings that both parse as float64 and are equal as numbers are equal. Redis 7.0
//     (the server tested against) replies scores with "%.17g", zlite with Redis 7.2's
//     shortest round-trip text ("1.1" where 7.0 says "1.1000000000000001").
//   - sorted: a command written with the prefix "sorted:" (e.g. "sorted:KEYS") has
//     its top-level array reply sorted on both sides before comparing, for replies
//     whose order is Redis's hash-table order (KEYS).
//   - FLUSHALL is sent to Redis as FLUSHDB: the server may be shared with other test
//     packages (CI runs packages in parallel), so these tests use database
//     redisTestDB and never touch the others.

// redisTestDB is the Redis database this package's tests use.
const redisTestDB = 4

var (
	clientOnce sync.Once
	client     *redis.Client
)

// redisClient returns a go-redis client (RESP2, database redisTestDB) for the test
// server, or skips t when there is no Redis.
func redisClient(t testing.TB) *redis.Client {
	t.Helper()
	addr := redistest.Require(t)
	clientOnce.Do(func() {
		client = redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, DB: redisTestDB, PoolSize: 4})
	})
	return client
}

func closeRedisClient() {
	if client != nil {
		client.Close()
	}
}

// compare runs cmds, in order, on a new DB and on a flushed Redis database and
// requires identical replies and error texts for each.
func compare(t *testing.T, cmds ...[]string) {
	t.Helper()
	ctx := context.Background()
	rc := redisClient(t)
	if err := rc.FlushDB(ctx).Err(); err != nil {
		t.Fatalf("FLUSHDB: %v", err)
	}
	db := New()
	for i, c := range cmds {
		sorted := false
		words := slices.Clone(c)
		if name, ok := strings.CutPrefix(words[0], "sorted:"); ok {
			sorted, words[0] = true, name
		}
		got, gotErr := db.Do(ctx, words...)
		rwords := words
		if strings.EqualFold(words[0], "flushall") {
			rwords = append([]string{"FLUSHDB"}, words[1:]...)
		}
		args := make([]any, len(rwords))
		for j, w := range rwords {
			args[j] = w
		}
		want, wantErr := rc.Do(ctx, args...).Result()
		if errors.Is(wantErr, redis.Nil) {
			want, wantErr = nil, nil
		}
		g, w := canon(got, gotErr, sorted), canon(want, wantErr, sorted)
		if g != w && !(isZCommand(words[0]) && scoresEqual(got, want)) {
			t.Errorf("command %d %q:\n zlite: %s\n redis: %s", i, c, g, w)
		}
		if err := db.check(); err != nil {
			t.Fatalf("after command %d %q: %v", i, c, err)
		}
	}
}

// isZCommand reports whether name is a sorted-set command, whose replies may hold
// scores.
func isZCommand(name string) bool {
	n := strings.ToLower(name)
	return strings.HasPrefix(n, "z") || strings.HasPrefix(n, "bz")
}

// canon formats a Do reply (or error) canonically, the same way for both sides.
func canon(v any, err error, sorted bool) string {
	if err != nil {
		return "(error) " + err.Error()
	}
	if sorted {
		if a, ok := v.([]any); ok {
			parts := make([]string, len(a))
			for i, x := range a {
				parts[i] = canon(x, nil, false)
			}
			slices.Sort(parts)
			return "[" + strings.Join(parts, ", ") + "]"
		}
	}
	switch x := v.(type) {
	case nil:
		return "(nil)"
	case int64:
		return "(integer) " + strconv.FormatInt(x, 10)
	case string:
		return strconv.Quote(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = canon(e, nil, false)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprintf("(unexpected %T) %v", v, v)
}

// scoresEqual is structural equality where strings that both parse as floats
// compare as numbers (the "scores" loosening).
func scoresEqual(a, b any) bool {
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !scoresEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		fx, err1 := strconv.ParseFloat(x, 64)
		fy, err2 := strconv.ParseFloat(y, 64)
		return err1 == nil && err2 == nil && (fx == fy || math.IsNaN(fx) && math.IsNaN(fy))
	}
	return canon(a, nil, false) == canon(b, nil, false)
}

// cmd is shorthand for one command's words.
func cmd(words ...string) []string { return words }

func TestCompareFramework(t *testing.T) {
	tests := []struct {
		name string
		cmds [][]string
	}{
		{"unknown command", [][]string{cmd("FOO", "a", "b"), cmd("fOo"), cmd("foo", strings.Repeat("x", 200), "y"),
			cmd("foo", strings.Repeat("x", 100), strings.Repeat("y", 100), "z"), cmd("foo", "a\r\nb")}},
		{"arity", [][]string{cmd("LPUSH"), cmd("lpush", "k"), cmd("LLEN"), cmd("LLEN", "a", "b"), cmd("Del"),
			cmd("lpop", "k", "1", "2"), cmd("blpop", "k")}},
		{"case-insensitive", [][]string{cmd("RpUsH", "k", "a"), cmd("lrange", "k", "0", "-1"), cmd("TYPE", "k")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { compare(t, tt.cmds...) })
	}
}

// redisZ builds a go-redis sorted-set member.
func redisZ(score float64, member string) redis.Z { return redis.Z{Score: score, Member: member} }
