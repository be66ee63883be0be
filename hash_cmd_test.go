package zlite

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestHashCommands runs the hash commands through Do and on a real redis-server,
// and requires the same replies and error texts. Orders are compared exactly while
// a hash is small (Redis's listpack keeps insertion order, as zlite's packed
// encoding does); HRANDFIELD is compared where its reply is the whole hash.
func TestHashCommands(t *testing.T) {
	cmd := func(w ...string) []string { return w }
	long := strings.Repeat("v", 65)
	tests := []struct {
		name string
		cmds [][]string
	}{
		{"hset hget", [][]string{
			cmd("HSET", "h", "a", "1"), cmd("HSET", "h", "b", "2", "c", "3"), cmd("HSET", "h", "a", "9", "d", "4"), cmd("HGET", "h", "a"),
			cmd("HGET", "h", "zz"), cmd("HGET", "nope", "a"), cmd("HGETALL", "h"), cmd("HKEYS", "h"), cmd("HVALS", "h"), cmd("HLEN", "h"),
			cmd("HSET", "h", "a"), cmd("HSET", "h", "a", "1", "b"), cmd("HSET", "h"), cmd("HMSET", "h", "e", "5", "f", "6"), cmd("HMSET", "h", "e"),
			cmd("HMGET", "h", "a", "nope", "e"), cmd("HMGET", "nope", "a", "b"), cmd("HSETNX", "h", "a", "x"), cmd("HSETNX", "h", "g", "7"),
			cmd("HSETNX", "new", "f", "v"), cmd("HGETALL", "new"), cmd("TYPE", "h"), cmd("HSET", "h", "", ""),
			cmd("HGET", "h", ""), cmd("HSTRLEN", "h", "a"), cmd("HSTRLEN", "h", "nope"), cmd("HSTRLEN", "nope", "a"), cmd("HEXISTS", "h", "a"),
			cmd("HEXISTS", "h", "nope"), cmd("HEXISTS", "nope", "a"), cmd("HGETALL", "nope"), cmd("HKEYS", "nope"), cmd("HLEN", "nope"),
		}},
		{"hdel", [][]string{
			cmd("HSET", "h", "a", "1", "b", "2", "c", "3"), cmd("HDEL", "h", "b"), cmd("HGETALL", "h"), cmd("HDEL", "h", "b", "zz"),
			cmd("HDEL", "h", "a", "c", "a"), cmd("EXISTS", "h"), cmd("HDEL", "nope", "a"), cmd("HDEL", "h"), cmd("HSET", "h", "x", "1"),
			cmd("EXPIRE", "h", "100"), cmd("HSET", "h", "y", "2"), cmd("TTL", "h"), cmd("HDEL", "h", "x", "y"), cmd("TTL", "h"),
		}},
		{"hincrby", [][]string{
			cmd("HINCRBY", "h", "n", "5"), cmd("HINCRBY", "h", "n", "-7"), cmd("HGET", "h", "n"), cmd("HINCRBY", "h", "n", "x"),
			cmd("HINCRBY", "h", "n", "1.5"), cmd("HSET", "h", "s", "abc"), cmd("HINCRBY", "h", "s", "1"), cmd("HSET", "h", "m", "9223372036854775807"),
			cmd("HINCRBY", "h", "m", "1"), cmd("HSET", "h", "m", "-9223372036854775808"), cmd("HINCRBY", "h", "m", "-1"), cmd("HSET", "h", "z", "01"),
			cmd("HINCRBY", "h", "z", "1"), cmd("HSET", "h", "z", " 1"), cmd("HINCRBY", "h", "z", "1"), cmd("HINCRBY", "nope", "f", "9223372036854775808"),
			cmd("EXISTS", "nope"), cmd("HINCRBY", "h2", "f", "-9223372036854775808"), cmd("HGETALL", "h2"),
		}},
		{"hincrbyfloat", [][]string{
			cmd("HINCRBYFLOAT", "h", "f", "0.1"), cmd("HINCRBYFLOAT", "h", "f", "0.2"), cmd("HGET", "h", "f"), cmd("HINCRBYFLOAT", "h", "f", "-0.3"),
			cmd("HINCRBYFLOAT", "h", "f", "1e10"), cmd("HINCRBYFLOAT", "h", "f", "x"), cmd("HINCRBYFLOAT", "h", "f", "inf"), cmd("HINCRBYFLOAT", "h", "f", "-inf"),
			cmd("HINCRBYFLOAT", "h", "f", "nan"), cmd("HINCRBYFLOAT", "h", "f", ""), cmd("HSET", "h", "s", "abc"), cmd("HINCRBYFLOAT", "h", "s", "1"),
			cmd("HSET", "h", "i", "10"), cmd("HINCRBYFLOAT", "h", "i", "-10"), cmd("HGET", "h", "i"), cmd("HINCRBYFLOAT", "h", "g", "1.7976931348623157e308"),
			cmd("HINCRBYFLOAT", "h", "g", "1e308"), cmd("HINCRBYFLOAT", "h", "x", "0x10"), cmd("HINCRBYFLOAT", "h", "y", "5.0e3"), cmd("sorted:HGETALL", "h"),
			cmd("HINCRBYFLOAT", "nope", "f", "inf"), cmd("EXISTS", "nope"), cmd("SET", "str", "1"), cmd("HINCRBYFLOAT", "str", "f", "x"), cmd("HINCRBYFLOAT", "str", "f", "1"),
		}},
		{"hrandfield", [][]string{
			cmd("HRANDFIELD", "nope"), cmd("HRANDFIELD", "nope", "3"), cmd("HRANDFIELD", "nope", "-3", "WITHVALUES"), cmd("HSET", "h", "a", "1", "b", "2", "c", "3"),
			cmd("HRANDFIELD", "h", "3"), cmd("HRANDFIELD", "h", "10", "withvalues"), cmd("HRANDFIELD", "h", "0"), cmd("HRANDFIELD", "h", "0", "WITHVALUES"),
			cmd("HRANDFIELD", "h", "x"), cmd("HRANDFIELD", "h", "1", "FOO"), cmd("HRANDFIELD", "h", "1", "WITHVALUES", "x"), cmd("HRANDFIELD", "h", "x", "FOO"),
			cmd("HRANDFIELD", "h", "-9223372036854775808"), cmd("HRANDFIELD", "h", "-9223372036854775807", "WITHVALUES"),
			cmd("HRANDFIELD", "h", "4611686018427387904", "WITHVALUES"), cmd("HRANDFIELD", "nope", "4611686018427387904", "WITHVALUES"),
			cmd("SET", "s", "x"), cmd("HRANDFIELD", "s"), cmd("HRANDFIELD", "s", "1"), cmd("HRANDFIELD", "s", "x"),
		}},
		{"hscan", [][]string{
			cmd("HSET", "h", "a1", "1", "b1", "2", "a2", "3"), cmd("HSCAN", "h", "0"), cmd("HSCAN", "h", "0", "MATCH", "a*"), cmd("HSCAN", "h", "0", "COUNT", "1"),
			cmd("HSCAN", "h", "x"), cmd("HSCAN", "h", "0", "COUNT", "0"), cmd("HSCAN", "h", "0", "FOO", "1"), cmd("HSCAN", "h", "0", "MATCH"),
			cmd("HSCAN", "nope", "0"), cmd("HSCAN", "nope", "0", "FOO"), cmd("SET", "s", "x"), cmd("HSCAN", "s", "0"),
		}},
		{"types", [][]string{
			cmd("SET", "s", "x"), cmd("HSET", "s", "a", "1"), cmd("HGET", "s", "a"), cmd("HGETALL", "s"), cmd("HDEL", "s", "a"), cmd("HLEN", "s"),
			cmd("HSETNX", "s", "a", "1"), cmd("HMGET", "s", "a"), cmd("HINCRBY", "s", "a", "1"), cmd("HINCRBY", "s", "a", "x"), cmd("HSET", "h", "f", "v"),
			cmd("GET", "h"), cmd("LPUSH", "h", "x"), cmd("ZADD", "h", "1", "m"), cmd("RENAME", "h", "h2"), cmd("HGETALL", "h2"), cmd("COPY", "h2", "h3"),
			cmd("HSET", "h3", "g", "w"), cmd("HGETALL", "h2"), cmd("HGETALL", "h3"), cmd("sorted:KEYS", "*"), cmd("DEL", "h3"), cmd("SCAN", "0", "TYPE", "hash"),
		}},
		{"encoding", [][]string{
			cmd("HSET", "h", "f", strings.Repeat("v", 64)), cmd("HSET", "h", "g", long),
			cmd("HSET", "k", strings.Repeat("f", 65), "v"), cmd("HDEL", "h", "g"),
		}},
	}
	many := []string{"HSET", "big"}
	for i := range 512 {
		many = append(many, "f"+strconv.Itoa(i), strconv.Itoa(i))
	}
	tests = append(tests, struct {
		name string
		cmds [][]string
	}{"512 and 513", [][]string{
		many, cmd("HGETALL", "big"), cmd("HSET", "big", "f0", "x"),
		cmd("HSET", "big", "f512", "x"), cmd("HLEN", "big"), cmd("sorted:HKEYS", "big"),
		cmd("HGET", "big", "f77"), cmd("HDEL", "big", "f1", "f2"), cmd("HLEN", "big"),
	}})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { compare(t, tt.cmds...) })
	}
}

// TestHashTyped checks the typed hash methods against their Do forms' effects.
func TestHashTyped(t *testing.T) {
	ctx := context.Background()
	db := New()
	if n, err := db.HSet(ctx, "h", "a", "1", "b", "2"); n != 2 || err != nil {
		t.Fatalf("HSet = %d, %v; want 2, nil", n, err)
	}
	if _, err := db.HSet(ctx, "h", "a"); !errors.Is(err, ErrArity) {
		t.Errorf("HSet with an odd number of words: %v, want ErrArity", err)
	}
	if v, ok, err := db.HGet(ctx, "h", "a"); v != "1" || !ok || err != nil {
		t.Errorf("HGet(a) = %q, %v, %v; want 1, true, nil", v, ok, err)
	}
	all, _ := db.HGetAll(ctx, "h")
	if len(all) != 2 || all["a"] != "1" || all["b"] != "2" {
		t.Errorf("HGetAll = %v", all)
	}
	vs, ok, _ := db.HMGet(ctx, "h", "b", "nope")
	if !slices.Equal(vs, []string{"2", ""}) || !slices.Equal(ok, []bool{true, false}) {
		t.Errorf("HMGet = %q, %v", vs, ok)
	}
	if n, err := db.HIncrBy(ctx, "h", "a", 41); n != 42 || err != nil {
		t.Errorf("HIncrBy = %d, %v", n, err)
	}
	if f, err := db.HIncrByFloat(ctx, "h", "a", 0.5); f != 42.5 || err != nil {
		t.Errorf("HIncrByFloat = %v, %v", f, err)
	}
	if _, err := db.HIncrBy(ctx, "h", "a", 1); err != ErrHashNotInteger {
		t.Errorf("HIncrBy on 42.5: %v, want ErrHashNotInteger", err)
	}
	kvs, err := db.HRandFieldWithValues(ctx, "h", -5)
	if len(kvs) != 5 || err != nil {
		t.Fatalf("HRandFieldWithValues(-5) = %v, %v", kvs, err)
	}
	for _, kv := range kvs {
		if v, _, _ := db.HGet(ctx, "h", kv.Key); v != kv.Value {
			t.Errorf("HRandFieldWithValues gave %q=%q, the hash holds %q", kv.Key, kv.Value, v)
		}
	}
	fields, _ := db.HRandField(ctx, "h", 1)
	if len(fields) != 1 || (fields[0] != "a" && fields[0] != "b") {
		t.Errorf("HRandField(1) = %q", fields)
	}
	if n, _ := db.HDel(ctx, "h", "a", "b", "c"); n != 2 {
		t.Errorf("HDel = %d, want 2", n)
	}
	if n, _ := db.Exists(ctx, "h"); n != 0 {
		t.Error("the emptied hash still exists")
	}
}

// TestHashRandDistinct checks HRANDFIELD's positive count on a hash past the packed
// encoding: count distinct fields, for a count on each side of the strategy switch.
func TestHashRandDistinct(t *testing.T) {
	ctx := context.Background()
	db := New()
	for i := range 1000 {
		if _, err := db.HSet(ctx, "h", "f"+strconv.Itoa(i), strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	for _, count := range []int{1, 10, 333, 334, 999} {
		kvs, err := db.HRandFieldWithValues(ctx, "h", count)
		if err != nil || len(kvs) != count {
			t.Fatalf("HRandFieldWithValues(%d) = %d fields, %v", count, len(kvs), err)
		}
		seen := map[string]bool{}
		for _, kv := range kvs {
			if seen[kv.Key] || "f"+kv.Value != kv.Key {
				t.Fatalf("HRandFieldWithValues(%d): %q=%q repeated or wrong", count, kv.Key, kv.Value)
			}
			seen[kv.Key] = true
		}
	}
}
