package server

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zlite/zlite/internal/redistest"
)

// Scripted transcripts, compared on the wire with redis-server as in diff_test.go.
// A step is "N: CMD args" (send on client N, compare the reply), "N> CMD args" (send
// only), "N<" (read and compare the reply of an earlier send), "N<<" (read two
// and compare them in either order: the "push-after-reply" loosening, see
// port_pubsub_test.go), "N~" (read it without
// comparing: HELLO's map names the server's version and the client's id), "N!" (the
// server closed client N's connection), "raw N: bytes" (send bytes as they are and
// compare one reply) or "blocked K" (wait until K clients are blocked on both
// servers). In an argument "~" is a space; an argument of two single quotes is the
// empty string.
type scenario struct {
	name    string
	clients int
	steps   []string
}

var scenarios = []scenario{
	{"connection", 1, []string{
		"0: PING", "0: PING hello", "0: PING a b", "0: ECHO x", "0: ECHO",
		"0: SELECT 1", "0: ZADD z 1 a", "0: DBSIZE", "0: SELECT 0", "0: DBSIZE", "0: ZSCORE z a",
		"0: SELECT 16", "0: SELECT -1", "0: SELECT x", "0: SELECT 01", "0: SELECT",
		"0: SWAPDB 0 1", "0: ZSCORE z a", "0: SWAPDB 0 99", "0: SWAPDB x 0", "0: SWAPDB 0 y",
		"0: FLUSHDB", "0: DBSIZE", "0: FLUSHDB x", "0: FLUSHALL ASYNC",
		"0: CLIENT GETNAME", "0: CLIENT SETNAME my-name", "0: CLIENT GETNAME", "0: CLIENT SETNAME bad name",
		"0: CLIENT NOSUCH", "0: CLIENT", "0: CLIENT SETNAME",
		"0: AUTH x", "0: AUTH default x", "0: AUTH a b c",
		"0: CONFIG GET maxclients", "0: CONFIG GET nosuchparam", "0: CONFIG SET nosuchparam 1",
		"0: OBJECT ENCODING nokey", "0: OBJECT NOSUCH k", "0: OBJECT FREQ nokey", "0: OBJECT IDLETIME nokey", "0: OBJECT HELP", "0: OBJECT REFCOUNT nokey",
		"0: COMMAND DOCS zadd blpop zrange copy nosuch ping zrangestore bzmpop eval",
		"0: COMMAND GETKEYS sort abc store def", "0: COMMAND GETKEYS sort abc LIMIT 0 1 BY x STORE d GET # STORE e",
		"0: COMMAND GETKEYS zunionstore d 2 a b", "0: COMMAND GETKEYS zunion 3 a b", "0: COMMAND GETKEYS mset a 1 b 2",
		"0: COMMAND GETKEYS eval s 1 k x", "0: COMMAND GETKEYS eval s 5 k", "0: COMMAND GETKEYS watch a b",
		"0: COMMAND GETKEYS keys x", "0: COMMAND GETKEYS get a b", "0: COMMAND GETKEYS nosuch a", "0: COMMAND GETKEYS get",
		"0: COMMAND GETKEYS object encoding k", "0: COMMAND GETKEYS ping x", "0: COMMAND GETKEYS lmpop 1 l left",
		"0: CONFIG SET list-max-ziplist-size 32", "0: CONFIG GET list-max-listpack-size", "0: CONFIG SET list-compress-depth -1",
		"0: CONFIG SET list-max-listpack-size x", "0: CONFIG SET list-max-listpack-size -2",
		"0: HELLO 4", "0: HELLO x", "0: LASTSAVE x",
		"0: NOSUCHCOMMAND a b", "0: zadd", "0: RESET", "0: QUIT", "0!",
	}},
	{"object-encoding", 1, []string{
		"0: ZADD small 1 a 2 b", "0: OBJECT ENCODING small",
		"0: ZADD big 1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "0: OBJECT ENCODING big",
		"0: RPUSH l a", "0: OBJECT ENCODING l", "0: OBJECT FREQ l", "0: OBJECT REFCOUNT l", "0: OBJECT REFCOUNT small",
	}},
	{"multi-exec", 1, []string{
		"0: MULTI", "0: ZADD z 1 a", "0: ZINCRBY z 2 a", "0: ZRANGE z 0 -1 WITHSCORES", "0: LPUSH z x",
		"0: BLPOP nokey 0", "0: BLMOVE a b LEFT LEFT 0", "0: BZPOPMIN nokey 0", "0: PING", "0: EXEC",
		"0: EXEC", "0: DISCARD", "0: MULTI", "0: MULTI", "0: ZADD z 2 b", "0: DISCARD", "0: ZCARD z",
		"0: MULTI", "0: ZADD z 3 c", "0: EXEC x", "0: PING", "0: EXEC x", "0: ZCARD z",
		"0: MULTI", "0: EXEC",
		"0: MULTI", "0: ZADD z 3 c", "0: NOSUCH", "0: ZADD z", "0: EXEC", "0: ZCARD z",
		"0: MULTI", "0: WATCH z", "0: ZSCORE z a", "0: EXEC",
	}},
	{"watch", 2, []string{
		"0: ZADD z 1 a", "0: WATCH z", "1: ZADD z 2 a", "0: MULTI", "0: ZSCORE z a", "0: EXEC",
		"0: WATCH z", "1: ZSCORE z a", "0: MULTI", "0: ZSCORE z a", "0: EXEC",
		"0: WATCH nokey", "1: LPUSH nokey v", "0: MULTI", "0: LLEN nokey", "0: EXEC",
		"0: WATCH nokey", "1: DEL nokey", "0: MULTI", "0: LLEN nokey", "0: EXEC",
		"0: WATCH z", "0: UNWATCH", "1: ZADD z 5 a", "0: MULTI", "0: ZSCORE z a", "0: EXEC",
		"0: WATCH z", "1: FLUSHALL", "0: MULTI", "0: ZSCORE z a", "0: EXEC",
		"0: WATCH z", "1: RPUSH l a", "1: RENAME l z", "0: MULTI", "0: TYPE z", "0: EXEC",
		"0: WATCH z", "0: MULTI", "0: LPOP z", "0: DISCARD", "1: RPUSH z b", "0: MULTI", "0: LRANGE z 0 -1", "0: EXEC",
	}},
	{"blocking", 3, []string{
		"1> BLPOP q 0", "blocked 1", "2> BLPOP q 0", "blocked 2", "0: RPUSH q a b c", "1<", "2<", "0: LRANGE q 0 -1",
		"1> BZPOPMIN zq1 zq2 0", "blocked 1", "0: ZADD zq2 1 m 2 n", "1<",
		"1> BLMOVE src dst LEFT RIGHT 0", "blocked 1", "2> BLPOP dst 0", "blocked 2", "0: LPUSH src v", "1<", "2<",
		"1> BRPOP q2 0.05", "1<", "1> BLMOVE q2 q3 LEFT LEFT 0.05", "1<", "1> BZPOPMAX zq3 0.05", "1<",
		"1> BLMPOP 0 2 a q4 RIGHT COUNT 2", "blocked 1", "0: RPUSH q4 1 2 3", "1<",
		"1> BZMPOP 0 1 zq5 MAX COUNT 5", "blocked 1", "0: ZADD zq5 1 a 2 b", "1<",
		"1> BLPOP wl 0", "blocked 1", "0: MULTI", "0: RPUSH wl a", "0: RPUSH wl b", "0: EXEC", "1<", "0: LRANGE wl 0 -1",
	}},
	{"served before the push replies", 2, []string{
		// Redis serves a blocked client right after the command that made it ready,
		// before the pusher's next command (here pipelined in one write) runs, and
		// it is no longer blocked when the pusher's reply arrives.
		"1> BLPOP pq 0", "blocked 1",
		"raw 0: *3\r\n$5\r\nRPUSH\r\n$2\r\npq\r\n$1\r\na\r\n*3\r\n$5\r\nRPUSH\r\n$2\r\npq\r\n$1\r\nb\r\n*4\r\n$6\r\nLRANGE\r\n$2\r\npq\r\n$1\r\n0\r\n$2\r\n-1\r\n",
		"raw 0:", "raw 0:", "1<",
		"1> BZPOPMIN pz 0", "blocked 1", "0: ZADD pz 1 m", "0: CLIENT UNBLOCK {1}", "1<",
		"1> BLPOP pq2 0", "blocked 1", "0: LPUSH pq2 x", "0: CLIENT UNBLOCK {1} ERROR", "1<",
	}},
	{"copy-db", 2, []string{
		"0: ZADD cz 1 a 2.5 b", "0: PEXPIRE cz 100000", "0: COPY cz cz DB 1", "0: SELECT 1",
		"0: ZRANGE cz 0 -1 WITHSCORES", "0: TTL cz", "0: COPY cz cz DB 0", "0: COPY cz cz DB 0 REPLACE",
		"0: RPUSH cl x y", "0: COPY cl cl2 DB 1", "0: LRANGE cl2 0 -1", "0: TTL cl2", "0: COPY cl cl DB 1",
		"0: COPY cl x DB 16", "0: COPY cl x DB -1", "0: COPY cl x DB foo", "0: COPY cl x DB 01", "0: COPY cl x DB 2 FOO", "0: COPY cl x DB 5 DB foo", "0: COPY cl x DB 3 DB 1",
		"0: COPY nokey x DB 2", "0: SET cs v PX 100000", "0: COPY cs cs DB 3", "0: SELECT 3", "0: GET cs", "0: TTL cs", "0: SELECT 0", "0: ZRANGE cz 0 -1 WITHSCORES", "0: TTL cz", "0: DBSIZE",
		"1: SELECT 2", "1> BLPOP bl 0", "blocked 1", "0: RPUSH src9 v w", "0: COPY src9 bl DB 2", "1<",
		"1: LRANGE bl 0 -1", "0: LRANGE src9 0 -1",
	}},
	{"swapdb-wakes-blocked", 3, []string{
		// list.tcl "SWAPDB awakes blocked client": the blocked client stays with
		// its keyspace's index and is served by what SWAPDB brings there.
		"0: SELECT 1", "0: RPUSH k hello", "0: SELECT 9", "1: SELECT 9", "1> BRPOP k 5", "blocked 1",
		"0: SWAPDB 1 9", "1<", "1: LRANGE k 0 -1", "0: SELECT 1", "0: EXISTS k",
		"1> BLPOP q 0", "2: SELECT 9", "2> BZPOPMIN z 0", "blocked 2", "0: SWAPDB 9 3", "0: SWAPDB 3 9",
		"0: SELECT 9", "0: RPUSH q a", "1<", "0: ZADD z 1 m", "2<",
	}},
	{"client-unblock", 2, []string{
		"1> BLPOP q 0", "blocked 1", "0: CLIENT UNBLOCK {1} TIMEOUT", "1<",
		"1> BZPOPMIN zq 0", "blocked 1", "0: CLIENT UNBLOCK {1} ERROR", "1<",
		"0: CLIENT UNBLOCK {1}", "0: CLIENT UNBLOCK x", "0: CLIENT UNBLOCK {1} FOO",
		"0: CLIENT KILL ID {1}", "1!", "0: CLIENT KILL ID 999999", "0: CLIENT KILL 1.2.3.4:5",
	}},
	{"scripts", 1, []string{
		"0: RPUSH lst a",
		"0: EVAL return~redis.call('ZADD',KEYS[1],1,'m') 1 lst",
		"0: EVAL return~redis.pcall('ZADD',KEYS[1],1,'m') 1 lst",
		"0: EVAL return~redis.call('NOSUCH') 0",
		"0: EVAL return~{1,2.7,'x',true,false,{ok='fine'}} 0",
		"0: EVAL return~{err='my~err'} 0",
		"0: EVAL return~redis.call('ZADD','z',1) 0",
		"0: EVAL return~1 x", "0: EVAL return~1 5", "0: EVAL return~1 -1",
		"0: EVALSHA abc 0", "0: SCRIPT LOAD return~1", "0: EVALSHA e0e1f9fabfc9d4800c877a703b823ac0578ff8db 0",
		"0: SCRIPT EXISTS e0e1f9fabfc9d4800c877a703b823ac0578ff8db abc",
		"0: EVAL error('boom') 0",
		"0: EVAL return~redis.call('LPOP','nokey') 0",
		"0: EVAL return~redis.call('LSET','lst',0,'b') 0",
		"0: EVAL return~redis.error_reply('E1~bad') 0",
		"0: EVAL return~redis.status_reply('FINE') 0",
		"0: EVAL return~redis.call('PING') 0",
		"0: EVAL return~redis.call('BLPOP','nokey',0) 0",
		"0: EVAL local~n=redis.call('ZADD',KEYS[1],ARGV[1],'a');return~{n,redis.call('ZSCORE',KEYS[1],'a'),redis.call('ZRANGE',KEYS[1],0,-1,'WITHSCORES')} 1 zs 2.5",
		"0: EVAL return~tonumber(ARGV[1])*2 0 21",
		"0: SCRIPT FLUSH", "0: SCRIPT EXISTS e0e1f9fabfc9d4800c877a703b823ac0578ff8db",
	}},
	{"protocol-multibulk-len", 1, []string{"raw 0: *1\r\n$4\r\nPING\r\n*x\r\n", "raw 0:", "0!"}},
	{"protocol-bulk-len", 1, []string{"raw 0: *1\r\n$-5\r\n", "0!"}},
	{"protocol-bulk-huge", 1, []string{"raw 0: *1\r\n$999999999999\r\n", "0!"}},
	{"protocol-expected-dollar", 1, []string{"raw 0: *2\r\n$4\r\nECHO\r\n:5\r\n", "0!"}},
	{"protocol-mbulk-huge", 1, []string{"raw 0: *4294967296\r\n", "0!"}},
	{"protocol-empty-and-inline", 1, []string{
		"raw 0: *0\r\n*-1\r\n\r\nPING\r\n", "raw 0: ECHO \"a\\x41\\n b\" \r\n", "raw 0: ECHO 'it\\'s'\r\n",
		"raw 0: ECHO 'it''s'\r\n", "0!",
	}},
	{"protocol-unbalanced", 1, []string{"raw 0: ECHO \"unbalanced\r\n", "0!"}},
	{"protocol-pipelined-before-error", 1, []string{"raw 0: PING\r\n*1\r\n$4\r\nPING\r\n*1\r\n$x\r\n", "raw 0:", "raw 0:", "0!"}},
}

// TestWireScenarios runs each scenario on both servers, in RESP2 and RESP3.
func TestWireScenarios(t *testing.T) {
	for _, sc := range scenarios {
		for _, proto := range []int{2, 3} {
			t.Run(sc.name+"/resp="+strconv.Itoa(proto), func(t *testing.T) {
				runScenario(t, sc, proto)
			})
		}
	}
}

func runScenario(t *testing.T, sc scenario, proto int) {
	runSteps(t, sc, sides(t, sc.clients, proto))
}

// runSteps runs a scenario's steps on client pairs.
func runSteps(t *testing.T, sc scenario, ps []*pair) {
	// {N} in a step is client N's id on each side.
	ids := make([][2]string, sc.clients)
	for i, p := range ps {
		for side, w := range p.conns {
			r := w.do("CLIENT", "ID")
			ids[i][side] = strings.TrimSuffix(strings.TrimPrefix(r, ":"), "\r\n")
		}
	}
	for _, step := range sc.steps {
		if k, ok := strings.CutPrefix(step, "blocked "); ok {
			n, _ := strconv.Atoi(k)
			waitBlocked(t, ps[0], n)
			continue
		}
		if rest, ok := strings.CutPrefix(step, "raw "); ok {
			n := int(rest[0] - '0')
			body := strings.TrimPrefix(rest[2:], " ")
			if body != "" {
				ps[n].raw(body)
			}
			ps[n].check(step)
			continue
		}
		n := int(step[0] - '0')
		p := ps[n]
		switch op, rest := step[1], strings.TrimSpace(step[2:]); op {
		case '<':
			if rest == "<" {
				p.checkTwo(step)
				break
			}
			p.check(step)
		case '~':
			for side, w := range p.conns {
				if _, err := w.read(); err != nil {
					t.Fatalf("%s: side %d: %v", step, side, err)
				}
			}
		case '!':
			p.closed(step)
		case ':', '>':
			args := strings.Fields(rest)
			for i := range args {
				args[i] = strings.ReplaceAll(args[i], "~", " ") // a space inside an argument
				if args[i] == "''" {
					args[i] = "" // the empty string
				}
			}
			for side, w := range p.conns {
				a := make([]string, len(args))
				for i, x := range args {
					for j := range ids {
						x = strings.ReplaceAll(x, "{"+strconv.Itoa(j)+"}", ids[j][side])
					}
					a[i] = x
				}
				w.send(a...)
			}
			if op == ':' {
				p.check(step)
			}
		default:
			t.Fatalf("bad step %q", step)
		}
	}
}

// waitBlocked waits until n clients are blocked on each side (INFO clients), by
// asking, not by sleeping.
func waitBlocked(t *testing.T, p *pair, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for side, w := range p.conns {
		for {
			r := w.do("INFO", "clients")
			if strings.Contains(r, "blocked_clients:"+strconv.Itoa(n)+"\r\n") {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("side %d: %d clients never blocked: %q", side, n, r)
			}
		}
	}
}

// TestWireAuth compares the requirepass behaviour with a redis-server of the
// test's own (CONFIG SET requirepass on it), byte for byte.
func TestWireAuth(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("skipping: redis-server not installed")
	}
	raddr, err := redistest.Start(bin)
	if err != nil {
		t.Fatal(err)
	}
	admin := dial(t, raddr)
	if r := admin.do("CONFIG", "SET", "requirepass", "s3cret"); r != "+OK\r\n" {
		t.Fatalf("CONFIG SET requirepass: %q", r)
	}
	zaddr, _ := startServer(t, WithPassword("s3cret"))
	steps := []string{
		"0: PING", "0: ZADD k 1 a", "0: MULTI", "0: AUTH wrong", "0: AUTH default wrong", "0: AUTH a b c",
		"0: HELLO 3", "0: HELLO 2 AUTH default wrong", "0: CLIENT ID2", "0: QUIT", "0!",
		"1: AUTH s3cret", "1: PING", "1> HELLO 2 AUTH default s3cret SETNAME n1", "1~", "1: CLIENT GETNAME",
		"1: AUTH default s3cret", "1: RESET", "1: PING",
		"raw 2: *11\r\n", "2!",
		"raw 3: *1\r\n$16385\r\n", "3!",
		"raw 4: *1\r\n$16384\r\n" + strings.Repeat("x", 16384) + "\r\n",
	}
	for _, proto := range []string{"2", "3"} {
		t.Run("resp="+proto, func(t *testing.T) {
			ps := sidesAt(t, 5, zaddr, raddr)
			if proto == "3" {
				for _, p := range ps[1:2] {
					for _, w := range p.conns {
						w.do("HELLO", "3", "AUTH", "default", "s3cret")
					}
				}
			}
			runSteps(t, scenario{name: "auth", clients: 5, steps: steps}, ps)
		})
	}
}

// watchNoOps is a scenario of writes that leave a key as it was, and their
// neighbours that change it: client 0 watches the key, client 1 runs the write,
// and client 0's EXEC (nil when the key was touched) is compared with Redis's,
// which touches a key only when a command changes it (and always for some that
// rewrite it with the same value, as HSET and APPEND do).
func watchNoOps() scenario {
	cases := []struct{ key, write string }{
		{"s", "SADD s a"}, {"s", "SADD s new"}, {"s", "SREM s zz"}, {"s", "SREM s a"},
		{"s", "SMOVE s s2 zz"}, {"s2", "SMOVE s s2 a"}, {"s", "SMOVE s s2 a"}, {"s2", "SMOVE s s2 b"}, {"s", "SMOVE s s a"},
		{"s", "SPOP s 0"}, {"s", "SPOP nokey"}, {"s", "SINTERSTORE nokey s none"}, {"nokey", "SINTERSTORE nokey s none"},
		{"nokey", "SUNIONSTORE nokey none"}, {"nokey", "SDIFFSTORE nokey none s"}, {"s", "SDIFFSTORE s s"},
		{"h", "HSET h f v"}, {"h", "HSETNX h f x"}, {"h", "HSETNX h g x"}, {"h", "HDEL h zz"}, {"h", "HDEL h f"},
		{"h", "HINCRBY h n 0"}, {"h", "HMSET h f v"},
		{"str", "SETRANGE str 0 ''"}, {"nokey", "SETRANGE nokey 0 ''"}, {"str", "SETRANGE str 0 a"}, {"str", "APPEND str ''"},
		{"str", "SET str x NX"}, {"str", "SETNX str x"}, {"str", "MSETNX str x new y"}, {"str", "SET str abc XX"},
		{"str", "GETEX str"}, {"str", "GETEX str PERSIST"}, {"str", "PERSIST str"}, {"str", "GETDEL nokey"}, {"str", "RENAME str str"},
		{"cnt", "INCRBY cnt 0"}, {"cnt", "INCRBYFLOAT cnt 0"},
		{"bits", "SETBIT bits 3 1"}, {"bits", "SETBIT bits 3 0"}, {"bits", "SETBIT bits 100 0"},
		{"bits", "BITFIELD bits GET u8 0"}, {"bits", "BITFIELD bits SET u8 0 16"}, {"bits", "BITFIELD bits SET u8 0 17"},
		{"bits", "BITFIELD bits INCRBY u8 0 0"}, {"bits", "BITFIELD bits OVERFLOW FAIL INCRBY u2 0 9"},
		{"nokey", "BITOP AND nokey none1 none2"}, {"str", "BITOP AND str none1 none2"},
		{"nokey", "SORT s STORE nokey"}, {"nokey", "SORT none STORE nokey"}, {"str", "SORT none STORE str"},
		{"z", "ZUNIONSTORE z 1 none"}, {"nokey", "ZUNIONSTORE nokey 1 s"},
		{"z", "ZADD z 1 m"}, {"z", "ZADD z 2 m"}, {"z", "ZADD z NX 5 m"}, {"z", "ZADD z XX 1 new"}, {"z", "ZADD z GT 0 m"},
		{"z", "ZINCRBY z 0 m"}, {"z", "ZREM z nope"}, {"z", "ZREMRANGEBYSCORE z 5 6"}, {"z", "ZREMRANGEBYRANK z 5 6"},
		{"z", "ZREMRANGEBYLEX z [x [y"}, {"z", "ZPOPMIN z 0"}, {"z", "ZMPOP 1 z MIN COUNT 0"},
		{"l", "LREM l 0 zz"}, {"l", "LINSERT l BEFORE zz v"}, {"l", "LTRIM l 0 -1"}, {"l", "LSET l 0 a"},
		{"l", "LPOP l 0"}, {"l", "LMOVE l l RIGHT RIGHT"}, {"l", "RPUSHX nokey v"},
	}
	setup := []string{"0: FLUSHALL", "0: SADD s a b", "0: SADD s2 a", "0: HSET h f v n 1", "0: SET str abc",
		"0: SET cnt 5", "0: SETBIT bits 3 1", "0: ZADD z 1 m", "0: RPUSH l a"}
	var steps []string
	for _, c := range cases {
		steps = append(steps, setup...)
		steps = append(steps, "0: WATCH "+c.key, "1: "+c.write,
			"0: MULTI", "0: ECHO "+strings.ReplaceAll(c.write, " ", "~"), "0: EXEC")
	}
	return scenario{"watch-no-op", 2, steps}
}

func init() { scenarios = append(scenarios, watchNoOps()) }
