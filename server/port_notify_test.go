package server

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/internal/redistest"
)

// Ports of the "Keyspace notifications:" tests of Redis 7.0's
// tests/unit/pubsub.tcl, as scenarios (see scenario_test.go) run on zlite-server
// and on redis-server, every push compared byte for byte, in RESP2 and RESP3.
// As in the tcl suite the commands run in DB 9, so that the channels name it.
// The Redis is one of the test's own: notify-keyspace-events is a server-wide
// setting, and a subscriber to every channel on the shared Redis would receive
// the events of other packages' tests running at the same time.
// Each scenario ends with a PUBLISH on a channel the subscriber's pattern also
// matches, read as the next push: an event zlite published and Redis did not (or
// the other way round) would be read in its place.
//
// Left out, and why:
//   - "stream events test": zlite has no streams.
//   - "evicted events": zlite has no maxmemory, so it evicts nothing.
//   - "expired events (triggered expire)" polls EXISTS with sleeps until the key
//     is gone; "expired-events" below reads the event the first of the lazy and
//     the active expiry publishes, as "(background expire)" does.
//
// TestNotifyCommands goes further: for each command that publishes events it
// compares everything the command published on both servers.
var notifyScenarios = []scenario{
	{"notify-keyspace", 2, []string{
		"0: CONFIG SET notify-keyspace-events KA", "1> CLIENT REPLY OFF", "1: PSUBSCRIBE *",
		"0: SET foo bar", "1<",
	}},
	{"notify-keyevent", 2, []string{
		"0: CONFIG SET notify-keyspace-events EA", "1> CLIENT REPLY SKIP", "1: PSUBSCRIBE *",
		"0: SET foo bar", "1<",
	}},
	{"notify-both", 2, []string{
		"0: CONFIG SET notify-keyspace-events KEA", "1: CLIENT REPLY ON", "1: PSUBSCRIBE *",
		"0: SET foo bar", "1<", "1<",
	}},
	{"notify-mask", 2, []string{
		"0: CONFIG SET notify-keyspace-events KEl", "0: DEL mylist", "1: PSUBSCRIBE *",
		"0: SET foo bar", "0: LPUSH mylist a", "1<", "1<",
	}},
	{"notify-general", 2, []string{
		"0: CONFIG SET notify-keyspace-events KEg", "1: PSUBSCRIBE *",
		"0: SET foo bar", "0: EXPIRE foo 1", "0: DEL foo", "1<", "1<", "1<", "1<",
	}},
	{"notify-list", 2, []string{
		"0: CONFIG SET notify-keyspace-events KEl", "0: DEL mylist", "1: PSUBSCRIBE *",
		"0: LPUSH mylist a", "0: RPUSH mylist a", "0: RPOP mylist", "1<", "1<", "1<", "1<", "1<", "1<",
	}},
	{"notify-set", 2, []string{
		"0: CONFIG SET notify-keyspace-events Ks", "0: DEL myset", "1: PSUBSCRIBE *",
		"0: SADD myset a b c d", "0: SREM myset x", "0: SADD myset x y z", "0: SREM myset x", "1<", "1<", "1<",
	}},
	{"notify-zset", 2, []string{
		"0: CONFIG SET notify-keyspace-events Kz", "0: DEL myzset", "1: PSUBSCRIBE *",
		"0: ZADD myzset 1 a 2 b", "0: ZREM myzset x", "0: ZADD myzset 3 x 4 y 5 z", "0: ZREM myzset x", "1<", "1<", "1<",
	}},
	{"notify-hash", 2, []string{
		"0: CONFIG SET notify-keyspace-events Kh", "0: DEL myhash", "1: PSUBSCRIBE *",
		"0: HMSET myhash yes 1 no 0", "0: HINCRBY myhash yes 10", "1<", "1<",
	}},
	{"notify-expired", 2, []string{
		"0: CONFIG SET notify-keyspace-events Ex", "0: DEL foo", "1: PSUBSCRIBE *",
		"0: PSETEX foo 100 1", "1<",
	}},
	{"notify-config", 1, []string{
		"0: CONFIG SET notify-keyspace-events gKE", "0: CONFIG GET notify-keyspace-events",
		"0: CONFIG SET notify-keyspace-events $lshzxeKE", "0: CONFIG GET notify-keyspace-events",
		"0: CONFIG SET notify-keyspace-events KA", "0: CONFIG GET notify-keyspace-events",
		"0: CONFIG SET notify-keyspace-events EA", "0: CONFIG GET notify-keyspace-events",
		// Beyond the tcl test: the canonical order, A swallowing n, and the error.
		"0: CONFIG SET notify-keyspace-events mnEKg", "0: CONFIG GET notify-keyspace-events",
		"0: CONFIG SET notify-keyspace-events KEAn", "0: CONFIG GET notify-key*",
		"0: CONFIG SET notify-keyspace-events KEQ", "0: CONFIG GET notify-keyspace-events",
		"0: CONFIG SET notify-keyspace-events ''", "0: CONFIG GET notify-keyspace-events",
	}},
	// Beyond the tcl tests: a push that serves a blocked client publishes the
	// push's events, then those of the pop that served it.
	{"notify-blocked", 3, []string{
		"0: CONFIG SET notify-keyspace-events KEA", "1: SELECT 9", "2: PSUBSCRIBE *",
		"1> BLPOP q 0", "blocked 1", "0: RPUSH q a", "1<", "2<", "2<", "2<", "2<", "2<", "2<",
		"1> BLMOVE src dst LEFT RIGHT 0", "blocked 1", "0: LPUSH src v w", "1<", "2<", "2<", "2<", "2<", "2<", "2<",
		"1> BZPOPMIN zq1 zq2 0", "blocked 1", "0: ZADD zq2 1 m", "1<", "2<", "2<", "2<", "2<", "2<", "2<",
		"1> BLMPOP 0 1 lq RIGHT COUNT 5", "blocked 1", "0: MULTI", "0: RPUSH lq a", "0: RPUSH lq b", "0: EXEC", "1<",
		"2<", "2<", "2<", "2<", "2<", "2<", "2<", "2<",
	}},
	{"notify-new", 2, []string{
		"0: CONFIG SET notify-keyspace-events En", "1: PSUBSCRIBE *",
		"0: SET foo bar", "0: SET foo baz", "0: SET bar bar", "1<", "1<",
	}},
}

// ownRedis starts a redis-server of t's own for the notification tests, or
// skips t.
func ownRedis(t *testing.T) string {
	t.Helper()
	addr, _, err := redistest.Own(t)
	if err != nil {
		t.Skipf("no redis-server of the test's own: %v", err)
	}
	return addr
}

// notifySides is sides for the notification tests, on the Redis at raddr: the
// commands' client is in DB 9 on both servers, and zlite's DB 9 runs the active
// expiry cycle (as zlite-server does).
func notifySides(t *testing.T, raddr string, n, proto int) []*pair {
	t.Helper()
	db := zlite.New()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	db.StartExpiry(ctx, 10*time.Millisecond)
	zaddr, _ := startServer(t, WithDB(9, db))
	ps := sidesAt(t, n, zaddr, raddr)
	for _, p := range ps {
		for _, w := range p.conns {
			w.do("HELLO", strconv.Itoa(proto))
		}
	}
	ps[0].conns[1].do("FLUSHALL")
	for _, w := range ps[0].conns {
		w.do("SELECT", "9")
	}
	return ps
}

// TestNotifyScenarios runs the ports of pubsub.tcl's notification tests.
func TestNotifyScenarios(t *testing.T) {
	raddr := ownRedis(t)
	for _, sc := range notifyScenarios {
		for _, proto := range []int{2, 3} {
			t.Run(sc.name+"/resp="+strconv.Itoa(proto), func(t *testing.T) {
				steps := sc.steps
				if sc.clients > 1 {
					// Nothing more was published than the scenario read.
					sub := strconv.Itoa(sc.clients - 1)
					steps = append(steps[:len(steps):len(steps)], "0: PUBLISH end-of-scenario x", sub+"<")
				}
				runSteps(t, scenario{sc.name, sc.clients, steps}, notifySides(t, raddr, sc.clients, proto))
			})
		}
	}
}

// notifyCommands are command sequences whose events TestNotifyCommands compares:
// one per Redis source file's notifyKeyspaceEvent calls, the edge cases where a
// command publishes nothing (NX refused, a no-op) beside those where it does.
var notifyCommands = []struct {
	name, flags string
	cmds        []string
}{
	{"strings", "KEAm", []string{
		"SET k v", "SET k v EX 10", "SET k w NX", "SET k w XX KEEPTTL", "SET k w GET PX 5000", "SETEX k 10 v", "PSETEX k 100000 v",
		"SETNX k x", "SETNX k2 x", "MSET a 1 b 2", "MSETNX a 1 c 3", "MSETNX c 3 d 4", "GETSET k v", "GETDEL k", "GETDEL k",
		"SET k v", "GETEX k EX 5", "GETEX k PERSIST", "GETEX k PERSIST", "GETEX k", "GETEX k EXAT 1", "GETEX nokey EX 5",
		"INCR n", "INCRBY n 2", "DECR n", "DECRBY n 3", "INCRBYFLOAT n 1.5", "INCR k2",
		"APPEND s ab", "APPEND s c", "SETRANGE s 1 x", "SETRANGE s 1 ''", "SETRANGE s2 2 x", "SETRANGE s3 0 ''",
	}},
	{"bits", "KEAm", []string{
		"SETBIT b 3 1", "SETBIT b 3 1", "SETBIT b 3 0", "SETBIT b 100 0",
		"BITFIELD b SET u8 0 1", "BITFIELD b GET u8 0", "BITFIELD b SET u8 0 1", "BITFIELD b INCRBY u8 0 0", "BITFIELD b2 GET u8 0",
		"BITFIELD b3 OVERFLOW FAIL INCRBY u2 0 1",
		"SET x abc", "BITOP NOT d x", "BITOP AND d nosuch", "BITOP AND d nosuch", "BITOP OR d x nosuch",
	}},
	{"lists", "KEAm", []string{
		"LPUSH l a b", "RPUSH l c", "LPUSHX l d", "RPUSHX l e", "LPUSHX nol d", "LSET l 0 x", "LINSERT l BEFORE x y",
		"LINSERT l BEFORE nosuch y", "LREM l 1 y", "LREM l 1 nosuch", "LTRIM l 0 3", "LPOP l", "RPOP l", "LPOP l 0", "RPOP l 9",
		"LPOP l", "RPUSH l a b c", "LMOVE l m LEFT RIGHT", "LMOVE l l RIGHT LEFT", "RPOPLPUSH l m", "RPOPLPUSH l m",
		"RPOPLPUSH l m", "RPUSH l a b", "LMPOP 2 nol l RIGHT COUNT 5", "RPUSH l a", "BLPOP l 0", "RPUSH l a b", "BLMOVE l m RIGHT LEFT 0",
		"BRPOPLPUSH l m 0", "BLMPOP 0 1 m LEFT COUNT 2", "LTRIM m 5 6",
	}},
	{"sets", "KEAm", []string{
		// SPOP chooses at random: the pops below take the whole set.
		"SADD s a b c", "SADD s a", "SREM s x", "SREM s a b", "SPOP s", "SPOP s 0", "SADD s a", "SPOP s 1", "SADD s a", "SPOP s 9",
		"SADD s a b", "SMOVE s d a", "SMOVE s d x", "SMOVE s d b", "SADD s a", "SMOVE s d a", "SMOVE d d a",
		"SADD x 1 2", "SADD y 2 3", "SINTERSTORE o x y", "SUNIONSTORE o x y", "SDIFFSTORE o x y", "SINTERSTORE o x nosuch",
		"SINTERSTORE o x nosuch", "SDIFFSTORE o nosuch x", "SUNIONSTORE o nosuch",
	}},
	{"hashes", "KEAm", []string{
		"HSET h a 1 b 2", "HSET h a 1", "HMSET h c 3", "HSETNX h a 9", "HSETNX h z 9", "HSETNX h2 f v", "HINCRBY h a 1",
		"HINCRBYFLOAT h a 1.5", "HDEL h nosuch", "HDEL h a b", "HDEL h c z", "HGET h a", "HDEL h2 f",
	}},
	{"zsets", "KEAm", []string{
		"ZADD z 1 a 2 b 3 c 4 d 5 e", "ZADD z 1 a", "ZADD z NX 9 a", "ZADD z XX CH 9 a", "ZADD z GT 1 a", "ZADD nz XX 1 a",
		"ZADD z INCR 1 a", "ZINCRBY z 0 a", "ZINCRBY z 1 a", "ZINCRBY nz2 1 a", "ZREM z nosuch", "ZREM z a",
		"ZREMRANGEBYSCORE z 100 200", "ZREMRANGEBYSCORE z 2 2", "ZREMRANGEBYRANK z 0 0", "ZREMRANGEBYLEX z [d [d",
		"ZPOPMIN z", "ZPOPMAX z 0", "ZADD z 1 a 2 b", "ZPOPMAX z 5", "ZADD z 1 a 2 b", "ZMPOP 2 nz z MIN COUNT 1",
		"BZPOPMIN z 0", "ZADD z 1 a", "BZPOPMAX z 0", "ZADD z 1 a 2 b", "BZMPOP 0 1 z MAX COUNT 9",
		"ZADD x 1 a", "ZADD y 2 a", "ZUNIONSTORE o 2 x y", "ZINTERSTORE o 2 x y", "ZDIFFSTORE o 2 x y", "ZDIFFSTORE o 1 x",
		"ZINTERSTORE o 2 x nosuch", "ZINTERSTORE o 2 x nosuch", "ZRANGESTORE o2 x 0 -1", "ZRANGESTORE o2 x 5 6", "ZUNIONSTORE o 1 nosuch",
	}},
	{"generic", "KEAm", []string{
		"SET a 1", "SET b 2", "DEL a a nosuch", "UNLINK b", "SET a 1", "EXPIRE a 100", "EXPIRE a 100 NX", "PEXPIRE a 100000 XX",
		"EXPIREAT a 99999999999", "PERSIST a", "PERSIST a", "EXPIRE nosuch 10", "PEXPIRE a -1", "SET a 1", "EXPIREAT a 1",
		"SET a 1", "RENAME a b", "RENAME b b", "RENAMENX b c", "SET d 4", "RENAMENX b d", "RENAME b d", "COPY d e", "COPY d e",
		"COPY d e REPLACE", "COPY d d2 DB 3", "COPY d d2 DB 3", "COPY d d2 DB 3 REPLACE", "MOVE d 4", "SET d x", "MOVE d 4",
		"RPUSH l 3 1 2", "SORT l STORE sl", "SORT nosuch STORE sl", "SORT nosuch STORE sl", "FLUSHDB", "SET x 1", "FLUSHALL",
	}},
	{"keymiss", "KEm", []string{
		"SET a 1", "GET x", "GET a", "MGET a x y a", "STRLEN x", "GETRANGE x 0 1", "SUBSTR x 0 1", "GETEX x", "GETEX x EX 5",
		"GETDEL x", "GETSET g 1", "GETSET g 2", "SET s v GET", "SET s w GET", "SET n v NX GET", "LCS p q", "LCS a q",
		"SET w v", "SETNX w2 v", "INCR i", "APPEND ap x", "SETRANGE sr 0 x", "MSETNX m1 1 m2 2",
		"GETBIT x 0", "BITCOUNT x", "BITPOS x 1", "BITFIELD x GET u8 0", "BITFIELD_RO x GET u8 0", "BITFIELD bf SET u8 0 1",
		"SETBIT sb 1 1", "BITOP AND d a nosuch x",
		"LLEN x", "LINDEX x 0", "LRANGE x 0 -1", "LPOS x a", "LPUSHX x a", "LPOP x", "RPOP x 2", "LMOVE x d LEFT RIGHT",
		"RPOPLPUSH x d", "LMPOP 2 x y LEFT", "LREM x 0 a", "LTRIM x 0 1", "LINSERT x BEFORE a b", "LSET x 0 a",
		"RPUSH l a", "LMOVE l nl LEFT LEFT", "BLPOP nl 0",
		"SADD sa 1", "SCARD x", "SISMEMBER x m", "SMISMEMBER x m", "SMEMBERS x", "SRANDMEMBER x", "SRANDMEMBER x 2", "SSCAN x 0",
		"SINTER x sa y", "SUNIONSTORE d x sa", "SDIFF sa y", "SINTERCARD 2 y x", "SREM x m", "SPOP x", "SPOP x 2", "SMOVE x sa m",
		"SMOVE sa y 1",
		"HGET x f", "HMGET x f g", "HLEN x", "HSTRLEN x f", "HGETALL x", "HKEYS x", "HVALS x", "HEXISTS x f", "HSCAN x 0",
		"HRANDFIELD x", "HRANDFIELD x 2", "HSETNX hs f v", "HINCRBY hi f 1", "HDEL x f",
		"ZADD za 1 m", "ZCARD x", "ZSCORE x m", "ZMSCORE x m", "ZRANK x m", "ZREVRANK x m", "ZCOUNT x -inf +inf",
		"ZLEXCOUNT x - +", "ZRANGE x 0 -1", "ZRANGEBYSCORE x -inf +inf", "ZREVRANGEBYLEX x + -", "ZRANDMEMBER x", "ZSCAN x 0",
		"ZUNION 2 x za", "ZINTERSTORE d 3 za x y", "ZDIFF 2 za y", "ZINTERCARD 1 x", "ZRANGESTORE d x 0 -1", "ZINCRBY zi 1 m",
		"ZREM x m", "ZPOPMIN x", "ZPOPMAX x 2", "ZREMRANGEBYRANK x 0 1", "ZMPOP 1 x MIN", "BZPOPMIN za 0",
		"EXISTS a x x", "TYPE x", "TTL x", "PTTL x", "EXPIRETIME x", "PEXPIRETIME x", "TOUCH x a", "COPY x e", "COPY a e",
		"COPY x e DB 3", "MOVE x 4", "DEL x", "UNLINK x", "EXPIRE x 5", "PERSIST x", "RENAME x y", "RENAMENX x y",
		"OBJECT ENCODING x", "MEMORY USAGE x", "KEYS x*", "DBSIZE",
		"RPUSH sl 2 1", "SET w_1 5", "HSET h_2 f v", "SORT x", "SORT x STORE d", "SORT_RO x BY w_*",
		"SORT sl BY w_* GET # GET h_*->f", "SORT sl BY nosort GET w_*",
		"MULTI", "GET x", "LLEN x", "EXEC", "EVAL return~redis.call('GET',KEYS[1]) 1 x",
	}},
	{"new", "KEn", []string{
		"SET k v", "SET k w", "SET k w NX", "MSET k 1 k2 2", "INCR n", "INCR n", "APPEND s x", "SETRANGE s2 1 x", "SETBIT b 1 1",
		"BITFIELD b2 SET u8 0 1", "INCRBYFLOAT f 1", "GETSET g 1", "LPUSH l a", "LPUSH l b", "RPOPLPUSH l m", "SADD s3 a",
		"SMOVE s3 s4 a", "HSET h a 1", "HINCRBY h2 a 1", "ZADD z 1 a", "ZINCRBY z2 1 a", "ZUNIONSTORE u 1 z", "ZUNIONSTORE u 1 z",
		"RENAME u u2", "COPY u2 u3", "COPY u2 u9 DB 2", "MOVE u3 5", "RPUSH sl 1", "SORT sl STORE sl2", "SADD x 1", "SINTERSTORE x2 x",
		"BITOP NOT b3 b",
	}},
	{"masks", "KEl", []string{"SET k v", "LPUSH l a", "DEL l", "ZADD z 1 a", "RPUSH l a", "LPOP l"}},
	{"keyspace-only", "Kg$", []string{"SET k v EX 10", "DEL k", "LPUSH l a"}},
	{"keyevent-only", "Ez", []string{"ZADD z 1 a", "ZREM z a", "SET k v"}},
	{"no-channel", "A", []string{"SET k v", "DEL k"}},
	{"multi", "KEA", []string{"MULTI", "SET k v", "LPUSH l a", "DEL k", "RPOP l", "EXEC"}},
	{"script", "KEA", []string{"EVAL redis.call('SET',KEYS[1],'v');redis.call('EXPIRE',KEYS[1],5);return~redis.call('DEL',KEYS[1]) 1 k"}},
	{"swapdb", "KEA", []string{"SET k v", "SWAPDB 9 1", "SET k w", "SELECT 1", "SET k v", "SWAPDB 1 9", "DEL k", "SELECT 9", "DEL k"}},
	{"select", "KEA", []string{"SELECT 0", "SET k v", "SELECT 15", "LPUSH l a", "SELECT 9"}},
}

// TestNotifyCommands runs each sequence of notifyCommands on both servers with
// a subscriber to every channel (PSUBSCRIBE *), and compares, after each
// command, its reply and every push it caused, up to a PUBLISH that marks the
// command's end.
func TestNotifyCommands(t *testing.T) {
	raddr := ownRedis(t)
	for _, tc := range notifyCommands {
		for _, proto := range []int{2, 3} {
			t.Run(tc.name+"/resp="+strconv.Itoa(proto), func(t *testing.T) {
				ps := notifySides(t, raddr, 2, proto)
				cmd, sub := ps[0], ps[1]
				cmd.do("CONFIG", "SET", "notify-keyspace-events", tc.flags)
				sub.do("PSUBSCRIBE", "*")
				queued := false // inside MULTI: the events come at EXEC
				for _, c := range tc.cmds {
					args := commandWords(c)
					cmd.send(args...)
					cmd.check(c)
					switch strings.ToUpper(args[0]) {
					case "MULTI":
						queued = true
					case "EXEC", "DISCARD":
						queued = false
					}
					if queued {
						continue
					}
					cmd.send("PUBLISH", "end-of-command", c)
					cmd.check(c + ": PUBLISH")
					comparePushes(t, sub, c)
				}
			})
		}
	}
}

// commandWords splits a command as the scenarios do: "~" is a space inside an
// argument and an argument of two single quotes the empty string.
func commandWords(c string) []string {
	args := strings.Fields(c)
	for i := range args {
		args[i] = strings.ReplaceAll(args[i], "~", " ")
		if args[i] == "''" {
			args[i] = ""
		}
	}
	return args
}

// comparePushes reads p's pushes on both sides, one from each at a time, until
// the end-of-command marker, and fails at the first that differs: an event one
// server published and the other did not meets the other's next event or
// marker.
func comparePushes(t *testing.T, p *pair, what string) {
	t.Helper()
	for i := 0; ; i++ {
		z, zerr := p.conns[0].read()
		r, rerr := p.conns[1].read()
		if zerr != nil || rerr != nil {
			t.Fatalf("%s: push %d: zlite %q (err %v); redis %q (err %v)", what, i, z, zerr, r, rerr)
		}
		if msg := compareWire(z, r); msg != "" {
			t.Fatalf("%s: push %d: %s\nzlite: %q\nredis: %q", what, i, msg, z, r)
		}
		if strings.Contains(z, "\r\nend-of-command\r\n") {
			return
		}
		if i > 100 {
			t.Fatalf("%s: no end-of-command marker", what)
		}
	}
}
