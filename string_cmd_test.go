package zlite

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestStringCommands runs the string commands through Do and through go-redis on a
// real redis-server, and requires the same replies and error texts.
func TestStringCommands(t *testing.T) {
	cmd := func(w ...string) []string { return w }
	tests := []struct {
		name string
		cmds [][]string
	}{
		{"get set", [][]string{
			cmd("GET", "s"), cmd("SET", "s", "v"), cmd("GET", "s"), cmd("SET", "s", ""), cmd("GET", "s"), cmd("STRLEN", "s"),
			cmd("EXISTS", "s"), cmd("TYPE", "s"), cmd("SET", "s", "a", "NX"), cmd("SET", "t", "a", "XX"), cmd("GET", "t"),
			cmd("SET", "t", "b", "nx"), cmd("SET", "t", "c", "xx"), cmd("GET", "t"), cmd("SET", "t", "d", "NX", "XX"),
			cmd("SET", "t", "d", "XX", "NX"), cmd("SET", "t", "d", "GET"), cmd("SET", "u", "e", "GET"), cmd("GET", "u"),
			cmd("SET", "t", "f", "NX", "GET"), cmd("SET", "new", "f", "XX", "GET"), cmd("EXISTS", "new"), cmd("SET", "t", "g", "GET", "GET"),
			cmd("SET", "t", "g", "FOO"), cmd("SET", "t"), cmd("SET"), cmd("GET", "t", "u"),
		}},
		{"set expiry", [][]string{
			cmd("SET", "k", "v", "EX", "100"), cmd("TTL", "k"), cmd("SET", "k", "v"), cmd("TTL", "k"),
			cmd("SET", "k", "v", "PX", "100000"), cmd("TTL", "k"), cmd("SET", "k", "w", "KEEPTTL"), cmd("TTL", "k"), cmd("GET", "k"),
			cmd("SET", "k", "v", "EXAT", "4000000000"), cmd("EXPIRETIME", "k"), cmd("SET", "k", "v", "PXAT", "4000000000123"), cmd("PEXPIRETIME", "k"),
			cmd("SET", "k", "v", "EX", "0"), cmd("SET", "k", "v", "EX", "-1"), cmd("SET", "k", "v", "EX", "x"), cmd("SET", "k", "v", "PX", "0"),
			cmd("SET", "k", "v", "EX", "9223372036854775807"), cmd("SET", "k", "v", "EX", "9223372036854775"), cmd("SET", "k", "v", "PX", "9223372036854775807"),
			cmd("SET", "k", "v", "EX", "10", "PX", "10"), cmd("SET", "k", "v", "EX", "10", "KEEPTTL"), cmd("SET", "k", "v", "KEEPTTL", "EX", "10"),
			cmd("SET", "k", "v", "EX", "10", "EX", "20"), cmd("TTL", "k"), cmd("SET", "k", "v", "EX"), cmd("SET", "k", "v", "EXAT", "1"), cmd("GET", "k"), cmd("EXISTS", "k"),
			cmd("SET", "k", "v", "PXAT", "1", "GET"), cmd("SETEX", "k", "100", "v"), cmd("TTL", "k"), cmd("SETEX", "k", "0", "v"), cmd("SETEX", "k", "x", "v"),
			cmd("PSETEX", "k", "100000", "v"), cmd("TTL", "k"), cmd("PSETEX", "k", "-5", "v"), cmd("SETNX", "k", "w"), cmd("SETNX", "n", "w"), cmd("GET", "n"),
			cmd("EXPIRE", "n", "100"), cmd("GETSET", "n", "x"), cmd("TTL", "n"), cmd("GETSET", "nope", "x"),
		}},
		{"getex getdel", [][]string{
			cmd("SET", "k", "v"), cmd("GETEX", "k"), cmd("GETEX", "k", "EX", "100"), cmd("TTL", "k"), cmd("GETEX", "k", "PERSIST"), cmd("TTL", "k"),
			cmd("GETEX", "k", "PXAT", "4000000000123"), cmd("PEXPIRETIME", "k"), cmd("GETEX", "k", "EXAT", "1"), cmd("EXISTS", "k"),
			cmd("GETEX", "missing", "EX", "x"), cmd("SET", "k", "v"), cmd("GETEX", "k", "EX", "x"), cmd("GETEX", "k", "EX", "0"), cmd("GETEX", "k", "EX"),
			cmd("GETEX", "k", "PERSIST", "EX", "10"), cmd("GETEX", "k", "EX", "10", "PERSIST"), cmd("GETEX", "k", "FOO"), cmd("GETEX", "k", "EX", "10", "EX", "20"), cmd("TTL", "k"),
			cmd("GETDEL", "k"), cmd("GETDEL", "k"), cmd("EXISTS", "k"), cmd("RPUSH", "l", "a"), cmd("GETDEL", "l"), cmd("GETEX", "l"), cmd("GETEX", "l", "EX", "x"),
		}},
		{"mget mset", [][]string{
			cmd("MSET", "a", "1", "b", "2"), cmd("MGET", "a", "b", "c"), cmd("RPUSH", "l", "x"), cmd("MGET", "l", "a"),
			cmd("MSET", "a"), cmd("MSET", "a", "1", "b"), cmd("MSETNX", "a", "9", "z", "9"), cmd("MGET", "a", "z"), cmd("MSETNX", "y", "1", "z", "2"),
			cmd("MGET", "y", "z"), cmd("MSETNX", "y"), cmd("EXPIRE", "a", "100"), cmd("MSET", "a", "3"), cmd("TTL", "a"), cmd("MSET", "l", "s"), cmd("TYPE", "l"),
		}},
		{"append strlen getrange setrange", [][]string{
			cmd("APPEND", "s", "hello"), cmd("APPEND", "s", " world"), cmd("GET", "s"), cmd("STRLEN", "s"), cmd("STRLEN", "nope"),
			cmd("GETRANGE", "s", "0", "4"), cmd("GETRANGE", "s", "-5", "-1"), cmd("GETRANGE", "s", "-1", "-5"), cmd("GETRANGE", "s", "5", "2"),
			cmd("GETRANGE", "s", "-100", "100"), cmd("GETRANGE", "s", "100", "200"), cmd("GETRANGE", "nope", "0", "1"), cmd("GETRANGE", "s", "x", "1"),
			cmd("SUBSTR", "s", "1", "3"), cmd("GETRANGE", "s", "0", "-100"), cmd("GETRANGE", "s", "9223372036854775807", "-9223372036854775808"),
			cmd("SETRANGE", "s", "6", "WORLD"), cmd("GET", "s"), cmd("SETRANGE", "s", "20", "!"), cmd("GET", "s"), cmd("SETRANGE", "s", "0", ""),
			cmd("SETRANGE", "n", "3", "x"), cmd("GET", "n"), cmd("SETRANGE", "m", "3", ""), cmd("EXISTS", "m"), cmd("SETRANGE", "s", "-1", "x"),
			cmd("SETRANGE", "s", "x", "x"), cmd("SETRANGE", "s", "536870911", "xy"), cmd("SETRANGE", "s", "536870912", ""), cmd("SETRANGE", "q", "536870912", "x"), cmd("EXISTS", "q"),
			cmd("SET", "e", ""), cmd("GETRANGE", "e", "0", "-1"), cmd("APPEND", "e", ""), cmd("RPUSH", "l", "a"), cmd("APPEND", "l", "x"), cmd("STRLEN", "l"),
			cmd("GETRANGE", "l", "0", "1"), cmd("SETRANGE", "l", "0", "x"),
		}},
		{"incr", [][]string{
			cmd("INCR", "n"), cmd("INCR", "n"), cmd("DECR", "n"), cmd("INCRBY", "n", "100"), cmd("DECRBY", "n", "50"), cmd("GET", "n"),
			cmd("INCRBY", "n", "x"), cmd("INCRBY", "n", "1.5"), cmd("DECRBY", "n", "-9223372036854775808"), cmd("SET", "n", "9223372036854775807"),
			cmd("INCR", "n"), cmd("SET", "n", "-9223372036854775808"), cmd("DECR", "n"), cmd("INCRBY", "n", "-1"), cmd("SET", "n", " 1"), cmd("INCR", "n"),
			cmd("SET", "n", "01"), cmd("INCR", "n"), cmd("SET", "n", "+1"), cmd("INCR", "n"), cmd("SET", "n", "1x"), cmd("INCR", "n"), cmd("SET", "n", ""),
			cmd("INCR", "n"), cmd("RPUSH", "l", "a"), cmd("INCR", "l"), cmd("SET", "t", "5", "EX", "100"), cmd("INCR", "t"), cmd("TTL", "t"),
			cmd("INCRBY", "n", "9223372036854775808"),
		}},
		{"incrbyfloat", [][]string{
			cmd("INCRBYFLOAT", "f", "0.1"), cmd("INCRBYFLOAT", "f", "0.2"), cmd("GET", "f"), cmd("INCRBYFLOAT", "f", "-0.3"), cmd("GET", "f"),
			cmd("INCRBYFLOAT", "f", "1e10"), cmd("INCRBYFLOAT", "f", "5.0e3"), cmd("INCRBYFLOAT", "f", "x"), cmd("INCRBYFLOAT", "f", "inf"),
			cmd("INCRBYFLOAT", "f", "nan"), cmd("INCRBYFLOAT", "f", " 1"), cmd("INCRBYFLOAT", "f", ""), cmd("SET", "f", "abc"), cmd("INCRBYFLOAT", "f", "1"),
			cmd("SET", "f", "10"), cmd("INCRBYFLOAT", "f", "-10"), cmd("GET", "f"), cmd("INCRBYFLOAT", "g", "3.0"), cmd("INCRBYFLOAT", "g", "1.5e-7"),
			cmd("INCRBYFLOAT", "h", "1.7976931348623157e308"), cmd("INCRBYFLOAT", "h", "1e308"), cmd("INCRBYFLOAT", "i", "0x10"),
			cmd("INCRBYFLOAT", "j", "123456789012345678"), cmd("INCRBYFLOAT", "j", "0.5"), cmd("RPUSH", "l", "a"), cmd("INCRBYFLOAT", "l", "1"),
			cmd("SET", "k", "5", "EX", "100"), cmd("INCRBYFLOAT", "k", "1.5"), cmd("TTL", "k"),
		}},
		{"bits", [][]string{
			cmd("SETBIT", "b", "7", "1"), cmd("GET", "b"), cmd("SETBIT", "b", "7", "1"), cmd("SETBIT", "b", "7", "0"), cmd("SETBIT", "b", "100", "1"),
			cmd("STRLEN", "b"), cmd("GETBIT", "b", "100"), cmd("GETBIT", "b", "99"), cmd("GETBIT", "b", "100000"), cmd("GETBIT", "nope", "3"),
			cmd("SETBIT", "b", "-1", "1"), cmd("SETBIT", "b", "x", "1"), cmd("SETBIT", "b", "1", "2"), cmd("SETBIT", "b", "1", "x"), cmd("SETBIT", "b", "4294967296", "1"),
			cmd("GETBIT", "b", "4294967296"), cmd("GETBIT", "b", "-1"), cmd("SETBIT", "n", "3", "0"), cmd("GET", "n"),
			cmd("SET", "s", "foobar"), cmd("BITCOUNT", "s"), cmd("BITCOUNT", "s", "0", "0"), cmd("BITCOUNT", "s", "1", "1"), cmd("BITCOUNT", "s", "1", "1", "BYTE"),
			cmd("BITCOUNT", "s", "5", "30", "BIT"), cmd("BITCOUNT", "s", "-3", "-1", "bit"), cmd("BITCOUNT", "s", "-1", "-3"), cmd("BITCOUNT", "s", "-1", "-3", "FOO"),
			cmd("BITCOUNT", "s", "0", "1", "FOO"), cmd("BITCOUNT", "s", "0"), cmd("BITCOUNT", "s", "x", "1"), cmd("BITCOUNT", "nope", "x"), cmd("BITCOUNT", "s", "0", "-1", "BIT", "x"),
			cmd("BITCOUNT", "s", "100", "200"), cmd("BITCOUNT", "s", "-100", "100", "BIT"), cmd("SET", "i", "12345"), cmd("SETBIT", "i", "2", "0"), cmd("GET", "i"),
			cmd("RPUSH", "l", "a"), cmd("SETBIT", "l", "1", "1"), cmd("GETBIT", "l", "1"), cmd("BITCOUNT", "l"),
		}},
		{"bitpos bitop", [][]string{
			cmd("BITPOS", "nope", "1"), cmd("BITPOS", "nope", "0"), cmd("BITPOS", "nope", "2"), cmd("BITPOS", "nope", "x"),
			cmd("SET", "z", "\x00\x00\x00"), cmd("BITPOS", "z", "1"), cmd("BITPOS", "z", "0"), cmd("SET", "f", "\xff\xff\xff"),
			cmd("BITPOS", "f", "0"), cmd("BITPOS", "f", "0", "1"), cmd("BITPOS", "f", "0", "0", "1"), cmd("BITPOS", "f", "1", "-1"),
			cmd("SET", "m", "\xff\xf0\x00"), cmd("BITPOS", "m", "0"), cmd("BITPOS", "m", "1", "2"), cmd("BITPOS", "m", "0", "2", "-1"),
			cmd("BITPOS", "m", "1", "7", "15", "BIT"), cmd("BITPOS", "m", "0", "7", "15", "BIT"), cmd("BITPOS", "m", "0", "3", "6", "bit"),
			cmd("BITPOS", "f", "0", "3", "6", "BIT"), cmd("BITPOS", "f", "0", "3", "100", "BIT"), cmd("BITPOS", "m", "1", "-5", "-1", "BIT"),
			cmd("BITPOS", "m", "1", "5", "2"), cmd("BITPOS", "m", "0", "0", "1", "FOO"), cmd("BITPOS", "m", "0", "0", "1", "BIT", "x"),
			cmd("BITPOS", "m", "0", "x"), cmd("BITPOS", "m", "0", "0", "x"), cmd("SET", "e", ""), cmd("BITPOS", "e", "0"), cmd("BITPOS", "e", "1"),
			cmd("BITPOS", "e", "0", "0"), cmd("RPUSH", "l", "a"), cmd("BITPOS", "l", "1"), cmd("BITPOS", "l", "3"),
			cmd("SET", "a", "foobar"), cmd("SET", "b", "abcdef"), cmd("SET", "c", "xy"), cmd("BITOP", "AND", "d", "a", "b"), cmd("GET", "d"),
			cmd("BITOP", "or", "d", "a", "c"), cmd("GET", "d"), cmd("BITOP", "XOR", "d", "a", "b", "c"), cmd("GET", "d"), cmd("BITOP", "NOT", "d", "c"), cmd("GET", "d"),
			cmd("BITOP", "NOT", "d", "a", "b"), cmd("BITOP", "NAND", "d", "a"), cmd("BITOP", "AND", "d", "nope1", "nope2"), cmd("EXISTS", "d"),
			cmd("BITOP", "AND", "d", "a", "l"), cmd("BITOP", "AND", "l", "a", "nope"), cmd("TYPE", "l"), cmd("GET", "l"), cmd("BITOP", "AND", "d"),
			cmd("EXPIRE", "d", "100"), cmd("BITOP", "OR", "d", "a"), cmd("TTL", "d"),
		}},
		{"bitfield", [][]string{
			cmd("BITFIELD", "b"), cmd("EXISTS", "b"), cmd("BITFIELD", "b", "GET", "u8", "0"), cmd("EXISTS", "b"), cmd("BITFIELD", "b", "SET", "u8", "0", "255"),
			cmd("GET", "b"), cmd("BITFIELD", "b", "GET", "u8", "0", "GET", "i8", "0", "GET", "u4", "4", "GET", "i64", "0", "GET", "u63", "3"),
			cmd("BITFIELD", "b", "SET", "i5", "#3", "-7", "GET", "i5", "#3", "GET", "u5", "15"), cmd("GET", "b"), cmd("STRLEN", "b"),
			cmd("BITFIELD", "b", "INCRBY", "u2", "100", "1", "INCRBY", "u2", "100", "1", "INCRBY", "u2", "100", "1", "INCRBY", "u2", "100", "1"),
			cmd("BITFIELD", "b", "OVERFLOW", "SAT", "INCRBY", "u2", "102", "5", "INCRBY", "i4", "120", "100", "INCRBY", "i4", "120", "-100"),
			cmd("BITFIELD", "b", "OVERFLOW", "FAIL", "INCRBY", "u2", "102", "5", "INCRBY", "i8", "0", "-200", "SET", "u3", "0", "9", "GET", "u8", "0"),
			cmd("BITFIELD", "b", "OVERFLOW", "WRAP", "SET", "u8", "0", "-1", "SET", "i8", "0", "300", "INCRBY", "i64", "0", "9223372036854775807"),
			cmd("BITFIELD", "b", "OVERFLOW", "SAT", "SET", "u8", "0", "-1", "SET", "i8", "0", "300", "SET", "i8", "0", "-300", "INCRBY", "i64", "0", "9223372036854775807"),
			cmd("BITFIELD", "b", "OVERFLOW", "SAT", "INCRBY", "i64", "0", "-9223372036854775808", "INCRBY", "u63", "1", "9223372036854775807"),
			cmd("BITFIELD", "b", "GET", "u64", "0"), cmd("BITFIELD", "b", "GET", "i65", "0"), cmd("BITFIELD", "b", "GET", "i0", "0"), cmd("BITFIELD", "b", "GET", "x8", "0"),
			cmd("BITFIELD", "b", "GET", "", "0"), cmd("BITFIELD", "b", "GET", "u08", "0"), cmd("BITFIELD", "b", "GET", "u8", "-1"), cmd("BITFIELD", "b", "GET", "u8", "x"),
			cmd("BITFIELD", "b", "GET", "u8", "4294967296"), cmd("BITFIELD", "b", "GET", "u8", "#536870912"), cmd("BITFIELD", "b", "GET", "u8", "#"),
			cmd("BITFIELD", "b", "GET", "u8", "#2305843009213693952"), cmd("BITFIELD", "b", "SET", "u8", "0", "x"), cmd("BITFIELD", "b", "SET", "u8", "0"),
			cmd("BITFIELD", "b", "GET", "u8"), cmd("BITFIELD", "b", "FOO"), cmd("BITFIELD", "b", "OVERFLOW", "MAYBE", "GET", "u8", "0"), cmd("BITFIELD", "b", "OVERFLOW"),
			cmd("BITFIELD", "b", "get", "u8", "0", "set", "u8", "8", "1", "incrby", "u8", "8", "2", "overflow", "fail"), cmd("BITFIELD_RO", "b", "GET", "u8", "8"),
			cmd("BITFIELD_RO", "b", "SET", "u8", "8", "1"), cmd("BITFIELD_RO", "b", "INCRBY", "u8", "8", "x"), cmd("BITFIELD_RO", "nope", "GET", "i16", "3"), cmd("BITFIELD_RO", "b"),
			cmd("RPUSH", "l", "a"), cmd("BITFIELD", "l", "GET", "u8", "0"), cmd("BITFIELD", "l", "SET", "u8", "0", "1"), cmd("BITFIELD_RO", "l", "GET", "u8", "0"),
			cmd("BITFIELD_RO", "l", "SET", "u8", "0", "1"), cmd("BITFIELD", "l", "GET", "x8", "0"), cmd("SET", "i", "12"), cmd("BITFIELD", "i", "GET", "u8", "0"),
			cmd("BITFIELD", "i", "SET", "u8", "8", "65"), cmd("GET", "i"), cmd("SET", "e", "v", "EX", "100"), cmd("BITFIELD", "e", "SET", "u1", "0", "1"), cmd("TTL", "e"),
			cmd("BITFIELD", "f", "SET", "u8", "16", "0"), cmd("GET", "f"), cmd("BITFIELD", "g", "OVERFLOW", "FAIL", "SET", "u2", "0", "9"), cmd("EXISTS", "g"),
		}},
		{"lcs", [][]string{
			cmd("MSET", "a", "ohmytext", "b", "mynewtext"), cmd("LCS", "a", "b"), cmd("LCS", "a", "b", "LEN"), cmd("LCS", "a", "b", "IDX"),
			cmd("LCS", "a", "b", "IDX", "MINMATCHLEN", "4"), cmd("LCS", "a", "b", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN"), cmd("LCS", "a", "b", "idx", "withmatchlen"),
			cmd("LCS", "a", "b", "LEN", "IDX"), cmd("LCS", "a", "b", "MINMATCHLEN", "x"), cmd("LCS", "a", "b", "MINMATCHLEN"), cmd("LCS", "a", "b", "FOO"),
			cmd("LCS", "a", "b", "IDX", "MINMATCHLEN", "-5"), cmd("LCS", "a", "nope"), cmd("LCS", "nope", "nope2", "IDX"), cmd("LCS", "a", "a", "IDX", "WITHMATCHLEN"),
			cmd("MSET", "x", "abcabcabcxyz", "y", "xbcaayzabcbc"), cmd("LCS", "x", "y"), cmd("LCS", "x", "y", "IDX", "WITHMATCHLEN"), cmd("LCS", "y", "x", "IDX"),
			cmd("MSET", "p", "GTTCCTAATA", "q", "CGATAATTGAGA"), cmd("LCS", "p", "q"), cmd("LCS", "p", "q", "IDX", "WITHMATCHLEN", "MINMATCHLEN", "2"),
			cmd("RPUSH", "l", "a"), cmd("LCS", "a", "l"), cmd("LCS", "l", "nope", "FOO"), cmd("LCS", "a"),
			cmd("SET", "big", strings.Repeat("x", 12000)), cmd("LCS", "big", "big"), cmd("LCS", "big", "a", "LEN"),
		}},
		{"short and long strings", [][]string{
			cmd("SET", "k", strings.Repeat("a", 21), "EX", "100"), cmd("APPEND", "k", "b"), cmd("APPEND", "k", "c"), cmd("GET", "k"), cmd("TTL", "k"),
			cmd("SETRANGE", "k", "1", "XY"), cmd("GET", "k"), cmd("SET", "k", "short", "KEEPTTL"), cmd("TTL", "k"), cmd("SETRANGE", "k", "30", "z"), cmd("GET", "k"),
			cmd("SET", "b", "x"), cmd("SETBIT", "b", "200", "1"), cmd("STRLEN", "b"), cmd("GETBIT", "b", "200"), cmd("BITCOUNT", "b"),
			cmd("SET", "n", "9999999999999999999"), cmd("INCRBYFLOAT", "n", "0.5"), cmd("APPEND", "n", "123"), cmd("GET", "n"), cmd("GETDEL", "n"), cmd("GETDEL", "n"),
			cmd("SET", "r", strings.Repeat("r", 22)), cmd("RENAME", "r", "r2"), cmd("GET", "r2"), cmd("COPY", "r2", "r3"), cmd("APPEND", "r3", "!"), cmd("GET", "r2"), cmd("GET", "r3"),
			cmd("MSET", "m1", "a", "m2", strings.Repeat("m", 40)), cmd("MGET", "m1", "m2"), cmd("SET", "m2", "b", "GET"), cmd("GETEX", "m1", "EXAT", "1"), cmd("EXISTS", "m1"),
			cmd("BITFIELD", "f", "SET", "u8", "200", "7"), cmd("STRLEN", "f"), cmd("BITOP", "OR", "g", "f", "b"), cmd("STRLEN", "g"), cmd("LCS", "r2", "r3"),
		}},
		{"types and keys", [][]string{
			cmd("SET", "s", "v"), cmd("RENAME", "s", "t"), cmd("GET", "t"), cmd("COPY", "t", "u"), cmd("APPEND", "u", "2"), cmd("GET", "t"), cmd("GET", "u"),
			cmd("ZADD", "z", "1", "m"), cmd("GET", "z"), cmd("SET", "z", "v"), cmd("TYPE", "z"), cmd("ZADD", "z", "1", "m"), cmd("LPUSH", "t", "x"),
			cmd("INCR", "i"), cmd("sorted:KEYS", "*"), cmd("DEL", "t", "u"), cmd("DBSIZE"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { compare(t, tt.cmds...) })
	}
}

// TestStringEncoding checks OBJECT ENCODING of strings made by each kind of write
// against Redis's.
func TestStringEncoding(t *testing.T) {
	ctx := context.Background()
	rc := redisClient(t)
	if err := rc.FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	db := New()
	big := strings.Repeat("x", 44)
	cmds := [][]string{
		{"SET", "int", "1"}, {"SET", "long", "12345678901234567890"}, {"SET", "neg", "-12"}, {"SET", "lead", "012"},
		{"SET", "short", "abc"}, {"SET", "e44", big}, {"SET", "e45", big + "x"}, {"SET", "app", "ab"}, {"APPEND", "app", "c"},
		{"APPEND", "newapp", "12"}, {"SETBIT", "bits", "9", "1"}, {"INCRBYFLOAT", "f", "2"}, {"INCR", "i"}, {"SETRANGE", "r", "0", "1"}, {"MSET", "m", "7"},
		{"SET", "i2", "5"}, {"INCRBY", "i2", "10"}, {"GETSET", "gs", "99"}, {"SETEX", "ex", "100", "abc"},
	}
	for _, c := range cmds {
		args := make([]any, len(c))
		for i, w := range c {
			args[i] = w
		}
		if err := rc.Do(ctx, args...).Err(); err != nil && err != redis.Nil {
			t.Fatalf("redis %q: %v", c, err)
		}
		if _, err := db.Do(ctx, c...); err != nil {
			t.Fatalf("zlite %q: %v", c, err)
		}
	}
	keys, _ := db.Keys(ctx, "*")
	if len(keys) != len(cmds)-2 {
		t.Fatalf("%d keys, want %d", len(keys), len(cmds)-2)
	}
	err := db.View(func(tx *Tx) error {
		for _, k := range keys {
			got, _ := tx.ObjectEncoding(k)
			if want := rc.ObjectEncoding(ctx, k).Val(); got != want {
				t.Errorf("OBJECT ENCODING %s = %q, Redis %q", k, got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestStringTyped checks the typed string methods against their Do forms' effects.
func TestStringTyped(t *testing.T) {
	ctx := context.Background()
	db := New()
	if err := db.Set(ctx, "k", "v", time.Minute); err != nil {
		t.Fatal(err)
	}
	if ttl, _ := db.TTL(ctx, "k"); ttl != time.Minute {
		t.Errorf("TTL after Set with a minute = %v", ttl)
	}
	if err := db.Set(ctx, "k", "w", KeepTTL); err != nil {
		t.Fatal(err)
	}
	if ttl, _ := db.TTL(ctx, "k"); ttl != time.Minute {
		t.Errorf("TTL after Set with KeepTTL = %v", ttl)
	}
	if ok, _ := db.SetNX(ctx, "k", "x", 0); ok {
		t.Error("SetNX on an existing key set it")
	}
	if ok, _ := db.SetXX(ctx, "missing", "x", 0); ok {
		t.Error("SetXX on a missing key set it")
	}
	old, ok, err := db.SetArgs(ctx, "k", "y", SetArgs{Get: true, Mode: "xx"})
	if old != "w" || !ok || err != nil {
		t.Errorf("SetArgs GET = %q, %v, %v; want w, true, nil", old, ok, err)
	}
	if _, _, err := db.SetArgs(ctx, "k", "y", SetArgs{Mode: "maybe"}); err != ErrSyntax {
		t.Errorf("SetArgs with Mode maybe: %v, want ErrSyntax", err)
	}
	if r, ok, _ := db.SetArgs(ctx, "k", "z", SetArgs{Mode: "NX"}); ok || r != "" {
		t.Errorf("SetArgs NX on an existing key = %q, %v", r, ok)
	}
	if n, err := db.IncrBy(ctx, "n", 41); n != 41 || err != nil {
		t.Errorf("IncrBy = %d, %v", n, err)
	}
	if f, err := db.IncrByFloat(ctx, "n", 0.5); f != 41.5 || err != nil {
		t.Errorf("IncrByFloat = %v, %v", f, err)
	}
	if _, err := db.Incr(ctx, "n"); err != ErrNotInteger {
		t.Errorf("Incr on 41.5: %v, want ErrNotInteger", err)
	}
	if err := db.MSet(ctx, "a", "1", "b"); err == nil {
		t.Error("MSet with an odd number of words succeeded")
	}
	vs, oks, _ := db.MGet(ctx, "a", "k", "n")
	if vs[1] != "y" || vs[2] != "41.5" || oks[0] {
		t.Errorf("MGet = %q, %v", vs, oks)
	}
	if v, ok, _ := db.GetEx(ctx, "k", 0); v != "y" || !ok {
		t.Errorf("GetEx = %q, %v", v, ok)
	}
	if ttl, _ := db.TTL(ctx, "k"); ttl != -1 {
		t.Errorf("TTL after GetEx 0 (PERSIST) = %v", ttl)
	}
	if err := db.SetEx(ctx, "k", "v", 0); err == nil {
		t.Error("SetEx with no TTL succeeded")
	}
}
