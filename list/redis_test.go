package list

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/internal/testmain"
)

// keyspace is a minimal command layer over List for comparing with a real
// redis-server: keys vanish when their list empties, and replies are shaped like
// go-redis's Do().Result() (int64, string, []any, redis.Nil for a null reply).
type keyspace map[string]*List

var (
	errNotInt   = errors.New("ERR value is not an integer or out of range")
	errPositive = errors.New("ERR value is out of range, must be positive")
	errNoKey    = errors.New("ERR no such key")
	errSyntax   = errors.New("ERR syntax error")
)

func (ks keyspace) do(args ...string) (any, error) {
	cmd, key := strings.ToUpper(args[0]), args[1]
	l := ks[key]
	num := func(s string) (int, error) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, errNotInt
		}
		return int(n), nil
	}
	strs := func(ss []string) []any {
		out := make([]any, len(ss))
		for i, s := range ss {
			out[i] = s
		}
		return out
	}
	defer func() {
		if l := ks[key]; l != nil && l.Len() == 0 {
			delete(ks, key)
		}
	}()
	switch cmd {
	case "LPUSH", "RPUSH":
		if l == nil {
			l = New()
			ks[key] = l
		}
		if cmd == "LPUSH" {
			l.PushFront(args[2:]...)
		} else {
			l.PushBack(args[2:]...)
		}
		return int64(l.Len()), nil
	case "LPOP", "RPOP":
		if len(args) == 3 {
			c, err := num(args[2])
			if err != nil || c < 0 {
				return nil, errPositive
			}
			if l == nil {
				return nil, redis.Nil
			}
			if cmd == "LPOP" {
				return strs(l.PopFrontN(c)), nil
			}
			return strs(l.PopBackN(c)), nil
		}
		if l == nil {
			return nil, redis.Nil
		}
		if cmd == "LPOP" {
			v, _ := l.PopFront()
			return v, nil
		}
		v, _ := l.PopBack()
		return v, nil
	case "LLEN":
		if l == nil {
			return int64(0), nil
		}
		return int64(l.Len()), nil
	case "LINDEX":
		i, err := num(args[2])
		if err != nil {
			return nil, err
		}
		if l == nil {
			return nil, redis.Nil
		}
		if v, ok := l.Index(i); ok {
			return v, nil
		}
		return nil, redis.Nil
	case "LSET":
		if l == nil {
			return nil, errNoKey
		}
		i, err := num(args[2])
		if err != nil {
			return nil, err
		}
		if err := l.Set(i, args[3]); err != nil {
			return nil, err
		}
		return "OK", nil
	case "LRANGE", "LTRIM":
		start, err := num(args[2])
		if err != nil {
			return nil, err
		}
		stop, err := num(args[3])
		if err != nil {
			return nil, err
		}
		if cmd == "LTRIM" {
			if l != nil {
				l.Trim(start, stop)
			}
			return "OK", nil
		}
		if l == nil {
			return []any{}, nil
		}
		return strs(l.Range(start, stop)), nil
	case "LINSERT":
		where := strings.ToUpper(args[2])
		if where != "BEFORE" && where != "AFTER" {
			return nil, errSyntax
		}
		if l == nil {
			return int64(0), nil
		}
		return int64(l.Insert(where == "BEFORE", args[3], args[4])), nil
	case "LREM":
		c, err := num(args[2])
		if err != nil {
			return nil, err
		}
		if l == nil {
			return int64(0), nil
		}
		return int64(l.Remove(c, args[3])), nil
	case "LPOS":
		rank, count, maxLen, withCount := 1, 0, 0, false
		for i := 3; i+1 < len(args); i += 2 {
			n, err := num(args[i+1])
			switch strings.ToUpper(args[i]) {
			case "RANK":
				if err != nil {
					return nil, err
				}
				rank = n
				err = ValidatePos(rank, 0, 0)
			case "COUNT":
				if err != nil {
					return nil, ErrNegativeCount // Redis 7.0 gives this text for a non-number too
				}
				count, withCount = n, true
				err = ValidatePos(1, count, 0)
			case "MAXLEN":
				if err != nil {
					return nil, ErrNegativeMaxLen
				}
				maxLen = n
				err = ValidatePos(1, 0, maxLen)
			default:
				return nil, errSyntax
			}
			if err != nil {
				return nil, err
			}
		}
		if l == nil {
			l = New()
		}
		c := count
		if !withCount {
			c = 1
		}
		idx, err := l.Pos(args[2], rank, c, maxLen)
		if err != nil {
			return nil, err
		}
		if !withCount {
			if len(idx) == 0 {
				return nil, redis.Nil
			}
			return int64(idx[0]), nil
		}
		out := make([]any, len(idx))
		for i, x := range idx {
			out[i] = int64(x)
		}
		return out, nil
	case "LMOVE", "RPOPLPUSH":
		dkey := args[2]
		srcFront, dstFront := false, true
		if cmd == "LMOVE" {
			srcFront, dstFront = strings.EqualFold(args[3], "LEFT"), strings.EqualFold(args[4], "LEFT")
		}
		if l == nil {
			return nil, redis.Nil
		}
		dst := ks[dkey]
		if dst == nil {
			dst = New()
			ks[dkey] = dst
		}
		v, _ := Move(l, dst, srcFront, dstFront)
		return v, nil
	}
	return nil, fmt.Errorf("test keyspace: unknown command %s", cmd)
}

// compareTranscript runs cmds on Redis and on the keyspace and requires the same
// replies (value and type, or identical error text).
func compareTranscript(t *testing.T, rdb *redis.Client, ks keyspace, cmds [][]string) {
	t.Helper()
	ctx := context.Background()
	for _, c := range cmds {
		args := make([]any, len(c))
		for i, a := range c {
			args[i] = a
		}
		want, werr := rdb.Do(ctx, args...).Result()
		got, gerr := ks.do(c...)
		if werr != nil || gerr != nil {
			if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
				t.Fatalf("%q: error %v; Redis says %v (reply %#v)", c, gerr, werr, want)
			}
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q = %#v; Redis says %#v", c, got, want)
		}
	}
}

func redisClient(t *testing.T) *redis.Client {
	addr := redistest.Require(t)
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

func split(s string) []string { return strings.Fields(s) }

func TestAgainstRedis(t *testing.T) {
	rdb := redisClient(t)
	const k, k2 = "list:t:k", "list:t:k2"
	ctx := context.Background()
	rdb.Del(ctx, k, k2)
	var cmds [][]string
	for _, line := range []string{
		"RPUSH list:t:k a b c a b c",
		"LPUSH list:t:k x y",
		"LLEN list:t:k",
		"LRANGE list:t:k 0 -1", "LRANGE list:t:k -3 -1", "LRANGE list:t:k 5 2", "LRANGE list:t:k -100 100",
		"LRANGE list:t:k 100 200", "LRANGE list:t:k x 1",
		"LINDEX list:t:k 0", "LINDEX list:t:k -1", "LINDEX list:t:k 99", "LINDEX list:t:k -99", "LINDEX list:t:k z",
		"LSET list:t:k 1 Y", "LSET list:t:k -1 C", "LSET list:t:k 99 x", "LSET list:t:k -99 x", "LSET list:t:nokey 0 x",
		"LRANGE list:t:k 0 -1",
		"LINSERT list:t:k BEFORE a A", "LINSERT list:t:k AFTER c CC", "LINSERT list:t:k AFTER nope z",
		"LINSERT list:t:nokey AFTER a z", "LINSERT list:t:k SIDEWAYS a z",
		"LRANGE list:t:k 0 -1",
		"LPOS list:t:k a", "LPOS list:t:k a RANK 2", "LPOS list:t:k a RANK -1", "LPOS list:t:k a RANK -2 COUNT 0",
		"LPOS list:t:k b COUNT 0", "LPOS list:t:k b COUNT 1 MAXLEN 3", "LPOS list:t:k b MAXLEN 4 COUNT 0",
		"LPOS list:t:k zz", "LPOS list:t:k zz COUNT 0", "LPOS list:t:nokey a", "LPOS list:t:nokey a COUNT 2",
		"LPOS list:t:k a RANK 0", "LPOS list:t:k a COUNT -1", "LPOS list:t:k a MAXLEN -1",
		"LPOS list:t:k a MAXLEN -1 RANK 0", "LPOS list:t:k a RANK 0 COUNT -1", "LPOS list:t:nokey a RANK 0",
		"LPOS list:t:k a RANK 9223372036854775807", "LPOS list:t:k a RANK -9223372036854775807",
		"LPOS list:t:k a BOGUS 1",
		"LREM list:t:k 1 a", "LREM list:t:k -1 c", "LREM list:t:k 0 b", "LREM list:t:k 0 nope", "LREM list:t:nokey 0 a",
		"LRANGE list:t:k 0 -1",
		"LMOVE list:t:k list:t:k2 LEFT RIGHT", "LMOVE list:t:k list:t:k2 RIGHT LEFT", "LMOVE list:t:k list:t:k LEFT RIGHT",
		"LMOVE list:t:k list:t:k RIGHT LEFT", "RPOPLPUSH list:t:k list:t:k2", "RPOPLPUSH list:t:nokey list:t:k2",
		"LRANGE list:t:k 0 -1", "LRANGE list:t:k2 0 -1",
		"LPOP list:t:k", "RPOP list:t:k", "LPOP list:t:k 0", "LPOP list:t:k 2", "RPOP list:t:k2 2",
		"LPOP list:t:k -1", "LPOP list:t:nokey", "LPOP list:t:nokey 0", "LPOP list:t:nokey 3", "RPOP list:t:nokey 3",
		"RPUSH list:t:k 1 2 3 4 5 6 7 8 9",
		"LTRIM list:t:k 1 -2", "LRANGE list:t:k 0 -1", "LTRIM list:t:k -3 100", "LRANGE list:t:k 0 -1",
		"LTRIM list:t:k 5 1", "LLEN list:t:k", "LTRIM list:t:nokey 0 1",
		"RPOP list:t:k2 100", "LLEN list:t:k2", "LPOP list:t:k2 1",
	} {
		cmds = append(cmds, split(line))
	}
	compareTranscript(t, rdb, keyspace{}, cmds)
}

// TestAgainstRedisRandom replays random command sequences, with values large enough to
// span pages, on Redis and on List and compares every reply.
func TestAgainstRedisRandom(t *testing.T) {
	rdb := redisClient(t)
	s := testmain.Seed(t)
	r := rand.New(rand.NewPCG(s, 3))
	keys := []string{"list:r:a", "list:r:b"}
	rdb.Del(context.Background(), keys...)
	val := func() string {
		if r.IntN(10) == 0 {
			return strings.Repeat(string(rune('p'+r.IntN(3))), 100+r.IntN(300))
		}
		return string(rune('a' + r.IntN(5)))
	}
	num := func(n int) string { return strconv.Itoa(r.IntN(2*n+3) - n - 1) }
	steps := 3000
	if raceEnabled || testing.Short() {
		steps = 500
	}
	var cmds [][]string
	for range steps {
		k, k2 := keys[r.IntN(2)], keys[r.IntN(2)]
		side := func() string { return []string{"LEFT", "RIGHT"}[r.IntN(2)] }
		var c []string
		switch r.IntN(12) {
		case 0, 1:
			c = []string{"RPUSH", k, val(), val(), val()}
		case 2, 3:
			c = []string{"LPUSH", k, val(), val()}
		case 4:
			c = []string{[]string{"LPOP", "RPOP"}[r.IntN(2)], k}
			if r.IntN(2) == 0 {
				c = append(c, strconv.Itoa(r.IntN(4)))
			}
		case 5:
			c = []string{"LRANGE", k, num(30), num(30)}
		case 6:
			c = []string{"LINDEX", k, num(30)}
		case 7:
			c = []string{"LSET", k, num(30), val()}
		case 8:
			c = []string{"LINSERT", k, []string{"BEFORE", "AFTER"}[r.IntN(2)], val(), val()}
		case 9:
			c = []string{"LREM", k, strconv.Itoa(r.IntN(5) - 2), val()}
		case 10:
			c = []string{"LPOS", k, val(), "RANK", strconv.Itoa([]int{1, 2, -1, -2}[r.IntN(4)]), "COUNT", strconv.Itoa(r.IntN(3)), "MAXLEN", strconv.Itoa(r.IntN(20))}
		case 11:
			if r.IntN(4) == 0 {
				c = []string{"LTRIM", k, strconv.Itoa(r.IntN(3)), strconv.Itoa(-1 - r.IntN(3))}
			} else {
				c = []string{"LMOVE", k, k2, side(), side()}
			}
		}
		cmds = append(cmds, c)
	}
	for _, k := range keys {
		cmds = append(cmds, []string{"LRANGE", k, "0", "-1"})
	}
	compareTranscript(t, rdb, keyspace{}, cmds)
}

// TestRankMinInt64 names the one loosening against Redis 7.0: RANK
// -9223372036854775808 is accepted there as RANK -1 (an overflow fixed in Redis 7.2,
// redis/redis#12167), and List follows Redis 7.2+, which rejects it.
func TestRankMinInt64(t *testing.T) {
	rdb := redisClient(t)
	ctx := context.Background()
	const k = "list:t:minrank"
	rdb.Del(ctx, k)
	rdb.RPush(ctx, k, "a", "b", "a")
	ks := keyspace{}
	ks.do("RPUSH", k, "a", "b", "a")
	cmd := []string{"LPOS", k, "a", "RANK", "-9223372036854775808"}
	_, gerr := ks.do(cmd...)
	if !errors.Is(gerr, ErrRankOutOfRange) {
		t.Fatalf("%q: %v; want ErrRankOutOfRange", cmd, gerr)
	}
	info, err := rdb.Info(ctx, "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	if v := redisVersion(info); v[0] > 7 || v[0] == 7 && v[1] >= 2 {
		compareTranscript(t, rdb, ks, [][]string{cmd})
		return
	}
	// Older Redis: its answer is the one for RANK -1.
	want, err := rdb.Do(ctx, "LPOS", k, "a", "RANK", "-1").Result()
	got, _ := rdb.Do(ctx, "LPOS", k, "a", "RANK", "-9223372036854775808").Result()
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Redis < 7.2: RANK MinInt64 = %v; want the RANK -1 reply %v (%v)", got, want, err)
	}
}

func redisVersion(info string) [2]int {
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "redis_version:"); ok {
			parts := strings.Split(v, ".")
			var out [2]int
			for i := 0; i < 2 && i < len(parts); i++ {
				out[i], _ = strconv.Atoi(parts[i])
			}
			return out
		}
	}
	return [2]int{}
}
