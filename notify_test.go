package zlite

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/zlite/zlite/pubsub"
)

// eventLog subscribes to every keyspace-event channel of db's hub and returns a
// function that drains what was published since the last call, as "event key"
// words: each event must arrive on __keyspace@<n>__:<key> and then on
// __keyevent@<n>__:<event>, with n the DB's number.
func eventLog(t *testing.T, hub *pubsub.Hub, n string) func() []string {
	t.Helper()
	sub := hub.Subscriber()
	sub.PSubscribe("__key*__:*")
	t.Cleanup(sub.Close)
	return func() []string {
		t.Helper()
		msgs, err := sub.Drain(nil)
		if err != nil {
			t.Fatalf("Drain: %v", err)
		}
		var out []string
		for i := 0; i < len(msgs); i++ {
			ks, ok := strings.CutPrefix(msgs[i].Channel, "__keyspace@"+n+"__:")
			if !ok || i+1 == len(msgs) {
				t.Fatalf("message %d = %+v; want a __keyspace@%s__ one followed by its keyevent", i, msgs[i], n)
			}
			ev := msgs[i+1]
			if ev.Channel != "__keyevent@"+n+"__:"+msgs[i].Payload || ev.Payload != ks {
				t.Fatalf("keyevent after %+v = %+v; want channel __keyevent@%s__:%s, payload %q", msgs[i], ev, n, msgs[i].Payload, ks)
			}
			out = append(out, msgs[i].Payload+" "+ks)
			i++
		}
		return out
	}
}

// TestNotifyCommands checks the events each command publishes, names and order
// as Redis 7.0's notifyKeyspaceEvent calls (server/port_notify_test.go compares
// them with a real redis-server).
func TestNotifyCommands(t *testing.T) {
	tests := []struct {
		name  string
		flags string     // notify-keyspace-events; "" means KEA
		setup [][]string // run before the subscriber starts
		cmds  [][]string
		want  []string
	}{
		{"set", "", nil, [][]string{{"SET", "k", "v"}}, []string{"set k"}},
		{"set ex", "", nil, [][]string{{"SET", "k", "v", "EX", "10"}}, []string{"set k", "expire k"}},
		{"set nx refused", "", [][]string{{"SET", "k", "v"}}, [][]string{{"SET", "k", "w", "NX"}}, nil},
		{"setex", "", nil, [][]string{{"SETEX", "k", "10", "v"}}, []string{"set k", "expire k"}},
		{"mset", "", nil, [][]string{{"MSET", "a", "1", "b", "2"}}, []string{"set a", "set b"}},
		{"getset", "", nil, [][]string{{"GETSET", "k", "v"}}, []string{"set k"}},
		{"getdel", "", [][]string{{"SET", "k", "v"}}, [][]string{{"GETDEL", "k"}, {"GETDEL", "k"}}, []string{"del k"}},
		{"getex", "", [][]string{{"SET", "k", "v"}}, [][]string{{"GETEX", "k", "EX", "5"}, {"GETEX", "k", "PERSIST"}, {"GETEX", "k", "PERSIST"}},
			[]string{"expire k", "persist k"}},
		{"getex exat past", "", [][]string{{"SET", "k", "v"}}, [][]string{{"GETEX", "k", "EXAT", "1"}}, []string{"del k"}},
		{"incr", "", nil, [][]string{{"INCR", "n"}, {"INCRBY", "n", "2"}, {"DECR", "n"}, {"INCRBYFLOAT", "n", "1.5"}},
			[]string{"incrby n", "incrby n", "incrby n", "incrbyfloat n"}},
		{"append setrange", "", nil, [][]string{{"APPEND", "k", "ab"}, {"SETRANGE", "k", "1", "x"}, {"SETRANGE", "k", "1", ""}},
			[]string{"append k", "setrange k"}},
		{"setbit", "", nil, [][]string{{"SETBIT", "k", "3", "1"}, {"SETBIT", "k", "3", "1"}}, []string{"setbit k"}},
		{"bitfield", "", nil, [][]string{{"BITFIELD", "k", "SET", "u8", "0", "1"}, {"BITFIELD", "k", "GET", "u8", "0"}},
			[]string{"setbit k"}},
		{"bitop", "", [][]string{{"SET", "a", "x"}, {"SET", "d", "y"}}, [][]string{{"BITOP", "NOT", "d", "a"}, {"BITOP", "AND", "d", "nosuch"}},
			[]string{"set d", "del d"}},
		{"lists", "", nil, [][]string{{"LPUSH", "l", "a", "b"}, {"RPUSH", "l", "c"}, {"LPUSHX", "l", "d"}, {"LSET", "l", "0", "x"},
			{"LINSERT", "l", "BEFORE", "x", "y"}, {"LREM", "l", "1", "y"}, {"LTRIM", "l", "0", "1"}, {"LPOP", "l"}, {"RPOP", "l"}},
			[]string{"lpush l", "rpush l", "lpush l", "lset l", "linsert l", "lrem l", "ltrim l", "lpop l", "rpop l", "del l"}},
		{"lpop count", "", [][]string{{"RPUSH", "l", "a", "b"}}, [][]string{{"LPOP", "l", "0"}, {"LPOP", "l", "5"}},
			[]string{"lpop l", "del l"}},
		{"lmove", "", [][]string{{"RPUSH", "s", "a"}}, [][]string{{"LMOVE", "s", "d", "LEFT", "RIGHT"}},
			[]string{"rpush d", "lpop s", "del s"}},
		{"lmpop", "", [][]string{{"RPUSH", "l", "a", "b"}}, [][]string{{"LMPOP", "2", "x", "l", "RIGHT", "COUNT", "5"}},
			[]string{"rpop l", "del l"}},
		{"sets", "", nil, [][]string{{"SADD", "s", "a", "b"}, {"SADD", "s", "a"}, {"SREM", "s", "a"}, {"SPOP", "s"}},
			[]string{"sadd s", "srem s", "spop s", "del s"}},
		{"spop count", "", [][]string{{"SADD", "s", "a", "b", "c"}}, [][]string{{"SPOP", "s", "1"}, {"SPOP", "s", "9"}},
			[]string{"spop s", "spop s", "del s"}},
		{"smove", "", [][]string{{"SADD", "s", "a"}}, [][]string{{"SMOVE", "s", "d", "a"}}, []string{"srem s", "del s", "sadd d"}},
		{"sinterstore", "", [][]string{{"SADD", "a", "1"}, {"SADD", "b", "2"}}, [][]string{{"SUNIONSTORE", "d", "a", "b"}, {"SINTERSTORE", "d", "a", "b"}, {"SDIFFSTORE", "d", "a", "b"}},
			[]string{"sunionstore d", "del d", "sdiffstore d"}},
		{"hashes", "", nil, [][]string{{"HSET", "h", "a", "1"}, {"HSETNX", "h", "a", "2"}, {"HSETNX", "h", "b", "2"}, {"HINCRBY", "h", "a", "1"},
			{"HINCRBYFLOAT", "h", "a", "1.5"}, {"HDEL", "h", "a", "x"}, {"HDEL", "h", "b"}},
			[]string{"hset h", "hset h", "hincrby h", "hincrbyfloat h", "hdel h", "hdel h", "del h"}},
		{"zsets", "", nil, [][]string{{"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"}, {"ZADD", "z", "1", "a"}, {"ZINCRBY", "z", "1", "a"},
			{"ZINCRBY", "z", "0", "a"}, {"ZREM", "z", "a"}, {"ZREMRANGEBYSCORE", "z", "2", "2"}, {"ZREMRANGEBYRANK", "z", "0", "0"},
			{"ZREMRANGEBYLEX", "z", "-", "+"}},
			[]string{"zadd z", "zincr z", "zrem z", "zremrangebyscore z", "zremrangebyrank z", "zremrangebylex z", "del z"}},
		{"zpop", "", [][]string{{"ZADD", "z", "1", "a", "2", "b"}}, [][]string{{"ZPOPMIN", "z"}, {"ZPOPMAX", "z", "0"}, {"ZMPOP", "1", "z", "MAX"}},
			[]string{"zpopmin z", "zpopmax z", "del z"}},
		{"zstore", "", [][]string{{"ZADD", "a", "1", "x"}}, [][]string{{"ZUNIONSTORE", "d", "1", "a"}, {"ZINTERSTORE", "d", "2", "a", "nosuch"},
			{"ZRANGESTORE", "d", "a", "0", "-1"}, {"ZDIFFSTORE", "d", "1", "a"}},
			[]string{"zunionstore d", "del d", "zrangestore d", "zdiffstore d"}},
		{"sort store", "", [][]string{{"RPUSH", "l", "2", "1"}}, [][]string{{"SORT", "l", "STORE", "d"}, {"SORT", "nosuch", "STORE", "d"}},
			[]string{"sortstore d", "del d"}},
		{"generic", "", [][]string{{"SET", "a", "1"}, {"SET", "b", "2"}}, [][]string{{"DEL", "a", "a", "x"}, {"EXPIRE", "b", "10"},
			{"PERSIST", "b"}, {"PERSIST", "b"}, {"RENAME", "b", "c"}, {"COPY", "c", "d"}, {"UNLINK", "c"}, {"PEXPIRE", "d", "-1"}},
			[]string{"del a", "expire b", "persist b", "rename_from b", "rename_to c", "copy_to d", "del c", "del d"}},
		{"classes filter", "KEg", nil, [][]string{{"SET", "k", "v", "EX", "10"}, {"LPUSH", "l", "x"}, {"DEL", "l"}},
			[]string{"expire k", "del l"}},
		{"class without channel", "A", nil, [][]string{{"SET", "k", "v"}}, nil},
		{"new", "KEn", [][]string{{"SET", "old", "v"}}, [][]string{{"SET", "k", "v"}, {"SET", "k", "w"}, {"SET", "old", "x"}, {"LPUSH", "l", "a"},
			{"LPUSH", "l", "b"}, {"SADD", "s", "a"}, {"HSET", "h", "a", "1"}, {"ZADD", "z", "1", "a"}, {"INCR", "n"}, {"RENAME", "n", "m"},
			{"COPY", "m", "c"}, {"ZUNIONSTORE", "u", "1", "z"}},
			[]string{"new k", "new l", "new s", "new h", "new z", "new n", "new m", "new c", "new u"}},
		{"new with KEA", "KEAn", nil, [][]string{{"RPUSH", "l", "a"}, {"RPOPLPUSH", "l", "d"}},
			[]string{"new l", "rpush l", "new d", "lpush d", "rpop l", "del l"}},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			flags := tt.flags
			if flags == "" {
				flags = "KEA"
			}
			ev, err := ParseKeyspaceEvents(flags)
			if err != nil {
				t.Fatal(err)
			}
			db := New()
			for _, c := range tt.setup {
				if _, err := db.Do(ctx, c...); err != nil {
					t.Fatalf("setup %q: %v", c, err)
				}
			}
			db.SetKeyspaceEvents(ev)
			events := eventLog(t, db.PubSub(), "0")
			for _, c := range tt.cmds {
				if _, err := db.Do(ctx, c...); err != nil && !errors.Is(err, ErrNoSuchKey) {
					t.Fatalf("%q: %v", c, err)
				}
			}
			if got := events(); strings.Join(got, ", ") != strings.Join(tt.want, ", ") {
				t.Errorf("events = %q; want %q", got, tt.want)
			}
		})
	}
}

// TestNotifyKeyMiss checks "keymiss" for each command family: published by the
// commands that read a key (Redis's lookupKeyRead) for each key they find
// missing, in the order they look keys up, and never by those that write it
// (lookupKeyWrite), by OBJECT or by a blocking pop (server/port_notify_test.go
// and fuzz's TestDifferentialEvents compare them with a real redis-server).
func TestNotifyKeyMiss(t *testing.T) {
	tests := []struct {
		name  string
		setup [][]string
		cmds  [][]string
		want  []string
	}{
		{"string reads", [][]string{{"SET", "a", "1"}}, [][]string{{"GET", "x"}, {"GET", "a"}, {"MGET", "a", "x", "y", "a"},
			{"STRLEN", "x"}, {"GETRANGE", "x", "0", "1"}, {"SUBSTR", "x", "0", "1"}, {"GETEX", "x"}, {"GETEX", "x", "EX", "5"},
			{"GETDEL", "x"}, {"LCS", "p", "q"}, {"LCS", "a", "q"}},
			[]string{"keymiss x", "keymiss x", "keymiss y", "keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x",
				"keymiss x", "keymiss p", "keymiss q", "keymiss q"}},
		{"string get and set", nil, [][]string{{"GETSET", "g", "1"}, {"GETSET", "g", "2"}, {"SET", "s", "v", "GET"}, {"SET", "s", "w", "GET"},
			{"SET", "n", "v", "NX", "GET"}},
			[]string{"keymiss g", "keymiss s", "keymiss n"}},
		{"string writes", nil, [][]string{{"SET", "a", "v"}, {"SETNX", "b", "v"}, {"SET", "c", "v", "XX"}, {"MSETNX", "d", "1", "e", "2"},
			{"INCR", "f"}, {"INCRBYFLOAT", "g", "1"}, {"APPEND", "h", "x"}, {"SETRANGE", "i", "0", "x"}, {"SETEX", "j", "5", "v"}}, nil},
		{"bits", [][]string{{"SET", "a", "x"}}, [][]string{{"GETBIT", "x", "0"}, {"BITCOUNT", "x"}, {"BITPOS", "x", "1"},
			{"BITFIELD", "x", "GET", "u8", "0"}, {"BITFIELD_RO", "x", "GET", "u8", "0"}, {"BITFIELD", "y", "SET", "u8", "0", "1"},
			{"SETBIT", "z", "1", "1"}, {"BITOP", "AND", "d", "a", "nosuch", "x"}},
			[]string{"keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss nosuch", "keymiss x"}},
		{"list reads", nil, [][]string{{"LLEN", "x"}, {"LINDEX", "x", "0"}, {"LRANGE", "x", "0", "-1"}, {"LPOS", "x", "a"}},
			[]string{"keymiss x", "keymiss x", "keymiss x", "keymiss x"}},
		{"list writes", nil, [][]string{{"LPUSHX", "x", "a"}, {"RPUSHX", "x", "a"}, {"LPOP", "x"}, {"RPOP", "x", "2"},
			{"LMOVE", "x", "d", "LEFT", "RIGHT"}, {"RPOPLPUSH", "x", "d"}, {"LMPOP", "2", "x", "y", "LEFT"}, {"LREM", "x", "0", "a"},
			{"LTRIM", "x", "0", "1"}, {"LINSERT", "x", "BEFORE", "a", "b"}, {"LSET", "x", "0", "a"},
			{"LPUSH", "l", "a"}, {"LMOVE", "l", "new", "LEFT", "LEFT"}}, nil},
		{"set reads", [][]string{{"SADD", "a", "1"}}, [][]string{{"SCARD", "x"}, {"SISMEMBER", "x", "m"}, {"SMISMEMBER", "x", "m"},
			{"SMEMBERS", "x"}, {"SRANDMEMBER", "x"}, {"SRANDMEMBER", "x", "2"}, {"SSCAN", "x", "0"}, {"SINTER", "x", "a", "y"},
			{"SUNIONSTORE", "d", "x", "a"}, {"SDIFF", "a", "y"}, {"SINTERCARD", "2", "y", "x"}},
			[]string{"keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss y",
				"keymiss x", "keymiss y", "keymiss y", "keymiss x"}},
		{"set writes", [][]string{{"SADD", "a", "1"}}, [][]string{{"SADD", "s", "m"}, {"SREM", "x", "m"}, {"SPOP", "x"}, {"SPOP", "x", "2"},
			{"SMOVE", "x", "a", "m"}, {"SMOVE", "a", "y", "1"}}, nil},
		{"hash reads", nil, [][]string{{"HGET", "x", "f"}, {"HMGET", "x", "f", "g"}, {"HLEN", "x"}, {"HSTRLEN", "x", "f"}, {"HGETALL", "x"},
			{"HKEYS", "x"}, {"HVALS", "x"}, {"HEXISTS", "x", "f"}, {"HSCAN", "x", "0"}, {"HRANDFIELD", "x"}, {"HRANDFIELD", "x", "2"}},
			[]string{"keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x",
				"keymiss x", "keymiss x"}},
		{"hash writes", nil, [][]string{{"HSET", "h", "f", "v"}, {"HSETNX", "i", "f", "v"}, {"HINCRBY", "j", "f", "1"},
			{"HINCRBYFLOAT", "k", "f", "1"}, {"HDEL", "x", "f"}}, nil},
		{"zset reads", [][]string{{"ZADD", "a", "1", "m"}}, [][]string{{"ZCARD", "x"}, {"ZSCORE", "x", "m"}, {"ZMSCORE", "x", "m"},
			{"ZRANK", "x", "m"}, {"ZREVRANK", "x", "m"}, {"ZCOUNT", "x", "-inf", "+inf"}, {"ZLEXCOUNT", "x", "-", "+"},
			{"ZRANGE", "x", "0", "-1"}, {"ZRANGEBYSCORE", "x", "-inf", "+inf"}, {"ZREVRANGEBYLEX", "x", "+", "-"},
			{"ZRANDMEMBER", "x"}, {"ZSCAN", "x", "0"}, {"ZUNION", "2", "x", "a"}, {"ZINTERSTORE", "d", "3", "a", "x", "y"},
			{"ZDIFF", "2", "a", "y"}, {"ZINTERCARD", "1", "x"}, {"ZRANGESTORE", "d", "x", "0", "-1"}},
			[]string{"keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x",
				"keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss y", "keymiss y", "keymiss x", "keymiss x"}},
		{"zset writes", nil, [][]string{{"ZADD", "z", "1", "m"}, {"ZINCRBY", "y", "1", "m"}, {"ZREM", "x", "m"}, {"ZPOPMIN", "x"},
			{"ZPOPMAX", "x", "2"}, {"ZREMRANGEBYRANK", "x", "0", "1"}, {"ZREMRANGEBYSCORE", "x", "0", "1"}, {"ZREMRANGEBYLEX", "x", "-", "+"},
			{"ZMPOP", "1", "x", "MIN"}}, nil},
		{"generic reads", [][]string{{"SET", "a", "1"}}, [][]string{{"EXISTS", "a", "x", "x"}, {"TYPE", "x"}, {"TTL", "x"}, {"PTTL", "x"},
			{"EXPIRETIME", "x"}, {"PEXPIRETIME", "x"}, {"TOUCH", "x", "a"}, {"COPY", "x", "d"}, {"COPY", "a", "d"}},
			[]string{"keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x", "keymiss x"}},
		{"generic writes", [][]string{{"SET", "a", "1"}}, [][]string{{"DEL", "x"}, {"UNLINK", "x"}, {"EXPIRE", "x", "5"}, {"PEXPIRE", "x", "5"},
			{"PERSIST", "x"}, {"RENAME", "x", "y"}, {"RENAMENX", "x", "y"}, {"RENAME", "a", "b"}, {"KEYS", "*"}, {"SCAN", "0"}, {"RANDOMKEY"}, {"DBSIZE"}}, nil},
		{"sort", [][]string{{"RPUSH", "l", "2", "1"}, {"SET", "w_1", "5"}, {"HSET", "h_2", "f", "v"}},
			[][]string{{"SORT", "x"}, {"SORT", "x", "STORE", "d"}, {"SORT_RO", "x", "BY", "w_*"},
				{"SORT", "l", "BY", "w_*", "GET", "#", "GET", "h_*->f"}, {"SORT", "l", "BY", "nosort", "GET", "w_*"}},
			[]string{"keymiss x", "keymiss x", "keymiss x", "keymiss w_2", "keymiss h_1", "keymiss w_2"}},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := New()
			for _, c := range tt.setup {
				if _, err := db.Do(ctx, c...); err != nil {
					t.Fatalf("setup %q: %v", c, err)
				}
			}
			db.SetKeyspaceEvents(EventsKeyspace | EventsKeyevent | EventsKeyMiss)
			events := eventLog(t, db.PubSub(), "0")
			for _, c := range tt.cmds {
				if _, err := db.Do(ctx, c...); err != nil && !errors.Is(err, ErrNoSuchKey) {
					t.Fatalf("%q: %v", c, err)
				}
			}
			if got := events(); strings.Join(got, ", ") != strings.Join(tt.want, ", ") {
				t.Errorf("events = %q; want %q", got, tt.want)
			}
		})
	}
}

// TestNotifyKeyMissExpired checks that a read of a key whose time has come
// publishes "expired" then "keymiss", a write only "expired", and that "keymiss"
// is its own class: not part of A.
func TestNotifyKeyMissExpired(t *testing.T) {
	clk := newFakeClock()
	db := New(WithClock(clk.Now), WithKeyspaceEvents(EventsKeyspace|EventsKeyevent|EventsExpired|EventsKeyMiss))
	events := eventLog(t, db.PubSub(), "0")
	do(t, db, "SET", "r", "v", "PX", "100")
	do(t, db, "SET", "w", "v", "PX", "100")
	clk.Advance(100 * time.Millisecond)
	do(t, db, "GET", "r")
	do(t, db, "LPUSH", "w", "a")
	want := []string{"expired r", "keymiss r", "expired w"}
	if got := events(); strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Fatalf("events = %q; want %q", got, want)
	}
	ctx := context.Background()
	if _, ok := db.ObjectEncoding(ctx, "nosuch"); ok {
		t.Errorf("ObjectEncoding(nosuch) found it")
	}
	if _, ok, _ := db.MemoryUsage(ctx, "nosuch"); ok {
		t.Errorf("MemoryUsage(nosuch) found it")
	}
	if got := events(); len(got) != 0 {
		t.Errorf("OBJECT ENCODING and MEMORY USAGE of a missing key published %q; want nothing", got)
	}
	db.SetKeyspaceEvents(EventsKeyspace | EventsKeyevent | EventsAll)
	do(t, db, "GET", "nosuch")
	if got := events(); len(got) != 0 {
		t.Errorf("GET nosuch with KEA published %q; want nothing (m is not part of A)", got)
	}
}

// TestNotifyBlocked checks that a push served to a blocked pop publishes the
// events of a push onto a new list followed by the pop's, as Redis serves the
// client after the command that made the key ready.
func TestNotifyBlocked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := New(WithKeyspaceEvents(EventsKeyspace | EventsKeyevent | EventsAll | EventsNew))
		events := eventLog(t, db.PubSub(), "0")
		ctx := context.Background()
		done := make(chan string)
		go func() {
			_, v, _, _ := db.BLPop(ctx, 0, "q")
			done <- v
		}()
		synctest.Wait() // the pop is blocked
		if _, err := db.RPush(ctx, "q", "x"); err != nil {
			t.Fatal(err)
		}
		if v := <-done; v != "x" {
			t.Fatalf("BLPop = %q; want x", v)
		}
		want := []string{"new q", "rpush q", "lpop q", "del q"}
		if got := events(); strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Errorf("events = %q; want %q", got, want)
		}
	})
}

// TestNotifyExpired checks "expired" from a lazy expiry (a read meeting the key)
// and from the active expiry at a command's end, which reclaims the other due key
// of the shard, timed by the injected clock.
func TestNotifyExpired(t *testing.T) {
	clk := newFakeClock()
	db := New(WithClock(clk.Now), WithShards(1), WithKeyspaceEvents(EventsKeyspace|EventsKeyevent|EventsExpired))
	events := eventLog(t, db.PubSub(), "0")
	do(t, db, "SET", "lazy", "v", "PX", "100")
	do(t, db, "SET", "active", "v", "PX", "100")
	clk.Advance(99 * time.Millisecond)
	do(t, db, "GET", "lazy")
	if got := events(); len(got) != 0 {
		t.Fatalf("events 1 ms early = %q; want none", got)
	}
	clk.Advance(time.Millisecond)
	do(t, db, "GET", "lazy")
	want := []string{"expired lazy", "expired active"}
	if got := events(); strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Fatalf("events after GET = %q; want %q", got, want)
	}
}

// TestNotifyEventHub checks that SetEventHub moves the events to another hub,
// under the DB number given, and that nil returns them to the DB's own.
func TestNotifyEventHub(t *testing.T) {
	db := New(WithKeyspaceEvents(EventsKeyspace|EventsKeyevent|EventsString), WithEventsDB(3))
	own := eventLog(t, db.PubSub(), "3")
	do(t, db, "SET", "k", "v")
	if got := own(); len(got) != 1 || got[0] != "set k" {
		t.Fatalf("events with WithEventsDB(3) = %q; want [set k]", got)
	}
	hub := pubsub.NewHub()
	other := eventLog(t, hub, "7")
	db.SetEventHub(hub, 7)
	do(t, db, "SET", "k", "v")
	if got, mine := other(), own(); len(got) != 1 || len(mine) != 0 {
		t.Fatalf("after SetEventHub(hub, 7): hub got %q, own hub %q; want [set k], []", got, mine)
	}
	db.SetEventHub(nil, 0)
	zero := eventLog(t, db.PubSub(), "0")
	do(t, db, "SET", "k", "v")
	if got := zero(); len(got) != 1 {
		t.Fatalf("after SetEventHub(nil, 0) = %q; want [set k]", got)
	}
}

// TestNotifyMuted checks Tx.MuteEvents and Tx.NotifyKeyspaceEvent, and that a
// batch's commands publish as they run.
func TestNotifyMuted(t *testing.T) {
	db := New(WithKeyspaceEvents(EventsKeyspace | EventsKeyevent | EventsAll))
	events := eventLog(t, db.PubSub(), "0")
	err := db.Update(func(tx *Tx) error {
		if err := tx.Set("a", "1", 0); err != nil {
			return err
		}
		tx.MuteEvents(true)
		if _, err := tx.LPush("l", "x"); err != nil {
			return err
		}
		tx.NotifyKeyspaceEvent(EventsGeneric, "move_to", "l")
		tx.MuteEvents(false)
		_, err := tx.Del("a")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"set a", "move_to l", "del a"}
	if got := events(); strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("events = %q; want %q", got, want)
	}
	// The mute ends with the batch.
	do(t, db, "LPUSH", "l", "y")
	if got := events(); len(got) != 1 || got[0] != "lpush l" {
		t.Errorf("events after the batch = %q; want [lpush l]", got)
	}
}

// TestParseKeyspaceEvents checks the flag letters both ways against the strings
// Redis's CONFIG GET returns for them.
func TestParseKeyspaceEvents(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"KEA", "AKE"},
		{"AKE", "AKE"},
		{"g$lshzxetd", "A"},
		{"g$lshzxet", "g$lshzxet"},
		{"Ex", "xE"},
		{"KEm", "KEm"},
		{"mnEK", "nKEm"},
		{"An", "A"},
		{"zzK", "zK"},
		{"E$lshgzxetdn", "AE"},
	}
	for _, tt := range tests {
		ev, err := ParseKeyspaceEvents(tt.in)
		if err != nil || ev.String() != tt.want {
			t.Errorf("ParseKeyspaceEvents(%q) = %q, %v; want %q, nil", tt.in, ev, err, tt.want)
		}
	}
	for _, bad := range []string{"a", "KE ", "Q", "k"} {
		if _, err := ParseKeyspaceEvents(bad); !errors.Is(err, ErrKeyspaceEvents) {
			t.Errorf("ParseKeyspaceEvents(%q) error = %v; want ErrKeyspaceEvents", bad, err)
		}
	}
	if ErrKeyspaceEvents.Error() != "Invalid event class character. Use 'Ag$lshzxeKEtmdn'." {
		t.Errorf("ErrKeyspaceEvents = %q; want Redis's text", ErrKeyspaceEvents)
	}
}

// TestNotifyOffAllocs checks that a write allocates nothing for notifications
// while they are off, and that turning them on makes it publish.
func TestNotifyOffAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	ctx := context.Background()
	db := New()
	do(t, db, "SET", "n", "1")
	do(t, db, "ZADD", "z", "1", "m")
	score := 0.0
	allocs := testing.AllocsPerRun(100, func() {
		score++
		if _, err := db.Incr(ctx, "n"); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ZAdd(ctx, "z", Z{Member: "m", Score: score}); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := db.Get(ctx, "nosuch"); ok || err != nil {
			t.Fatalf("Get(nosuch) = _, %v, %v; want false, nil", ok, err)
		}
	})
	if allocs != 0 {
		t.Errorf("INCR, ZADD and a GET of a missing key with notifications off: %v allocations; want 0", allocs)
	}
	db.SetKeyspaceEvents(EventsKeyevent | EventsString)
	events := db.PSubscribe(ctx, "*")
	defer events.Close()
	if _, err := db.Incr(ctx, "n"); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := events.Drain(nil); len(msgs) != 1 || msgs[0].Channel != "__keyevent@0__:incrby" {
		t.Errorf("INCR with Eg$ published %+v; want one __keyevent@0__:incrby", msgs)
	}
}

// TestNotifyActiveExpiryCycle checks "expired" from DB.StartExpiry's goroutine,
// with nobody touching the key, in a synctest bubble whose clock the cycle reads.
func TestNotifyActiveExpiryCycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := New(WithKeyspaceEvents(EventsKeyevent | EventsKeyspace | EventsExpired))
		events := eventLog(t, db.PubSub(), "0")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		do(t, db, "SET", "k", "v", "PX", "100")
		db.StartExpiry(ctx, 10*time.Millisecond)
		time.Sleep(50 * time.Millisecond) // the bubble's clock: no real wait
		synctest.Wait()
		if got := events(); len(got) != 0 {
			t.Fatalf("events at 50 ms = %q; want none", got)
		}
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		if got := events(); len(got) != 1 || got[0] != "expired k" {
			t.Fatalf("events at 150 ms = %q; want [expired k]", got)
		}
		cancel()
		synctest.Wait() // the cycle's goroutine has returned
	})
}
