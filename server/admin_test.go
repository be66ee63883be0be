package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/internal/redistest"
)

// The admin commands (CLIENT REPLY, CLIENT LIST and KILL, CONFIG) compared with
// redis-server on the wire, in the steps of scenario_test.go. A suppressed reply is
// a send-only step ("0> PING"): had it been sent, the next compared reply would be
// it. Named loosenings: CONFIG GET's pairs are compared as a set (Redis's order is
// its hash table's); CLIENT LIST's lines by their ids (addresses and ages differ).

// cmdStep is a step that sends args, which may be empty strings, to client 0 and
// compares its reply.
func cmdStep(args ...string) string { return "raw 0: " + string(encode(args...)) }

var adminScenarios = []scenario{
	{"client-reply", 1, []string{
		"0> CLIENT REPLY OFF", "0> PING", "0> PING a", "0> NOSUCH", "0> CLIENT REPLY FOO", "0> ZADD",
		"0: CLIENT REPLY ON", "0: PING b",
		"0> CLIENT REPLY SKIP", "0> PING c", "0: PING d",
		"0> CLIENT REPLY SKIP", "0> NOSUCH", "0: PING e",
		"0> CLIENT REPLY SKIP", "0> CLIENT REPLY", "0: PING f",
		"0> CLIENT REPLY SKIP", "0: CLIENT REPLY ON", "0: PING g",
		"0> CLIENT REPLY SKIP", "0> CLIENT REPLY SKIP", "0> PING h", "0: PING i",
		"0> CLIENT REPLY OFF", "0> CLIENT REPLY SKIP", "0: CLIENT REPLY ON", "0: PING j",
		"0> CLIENT REPLY SKIP", "0> CLIENT REPLY OFF", "0> PING k", "0: CLIENT REPLY ON", "0: PING l",
		"0: CLIENT REPLY FOO", "0: CLIENT REPLY on", "0> client reply Skip", "0> PING m", "0: PING n",
		"0: CLIENT REPLY ON x", "0: CLIENT REPLY",
		// Keyspace commands, which a pipeline batches, and their errors.
		"0: RPUSH l a b", "0> CLIENT REPLY SKIP", "0> LRANGE l 0 -1", "0: LLEN l",
		"0> CLIENT REPLY OFF", "0> RPUSH l c", "0> LRANGE l 0 -1", "0> ZADD l 1 x", "0> ZPOPMIN nz 2",
		"0: CLIENT REPLY ON", "0: LRANGE l 0 -1",
		"0: ZADD z 1 a 2 b 3 c", "0> CLIENT REPLY SKIP", "0> ZPOPMIN z", "0: ZPOPMIN z", "0: ZPOPMAX z 5",
		// RESET ends OFF and replies; a SKIP before it drops its reply.
		"0> CLIENT REPLY OFF", "0: RESET", "0: PING o",
		"0> CLIENT REPLY SKIP", "0> RESET", "0: PING p",
		"0> CLIENT REPLY SKIP", "0> BLPOP nokey 0.01", "0: PING q",
		"0> CLIENT REPLY OFF", "0> BLPOP nokey 0.01", "0> BZPOPMIN nokey 0.01", "0: CLIENT REPLY ON",
		"0> CLIENT REPLY SKIP", "0> ZRANGE z 0 -1 WITHSCORES", "0: ZSCORE z b",
	}},
	{"client-reply-multi", 1, []string{
		// CLIENT REPLY is queued; in EXEC, SKIP drops the reply of the command after
		// EXEC, and EXEC's array still counts it (so the next reply completes it).
		"0: MULTI", "0: CLIENT REPLY SKIP", "0: PING a", "0> EXEC", "0> PING b", "0: PING c",
		"0> CLIENT REPLY SKIP", "0> MULTI", "0: PING a", "0: EXEC",
		// OFF in EXEC drops the replies after it at once; ON brings them back.
		"0: MULTI", "0: CLIENT REPLY OFF", "0: PING a", "0: CLIENT REPLY ON", "0> EXEC", "0> PING b", "0: PING c",
		"0> CLIENT REPLY OFF", "0> MULTI", "0> PING a", "0> CLIENT REPLY ON", "0: EXEC", "0: PING d",
		"0> CLIENT REPLY OFF", "0> MULTI", "0> NOSUCH", "0> EXEC", "0: CLIENT REPLY ON",
		"0> CLIENT REPLY SKIP", "0> MULTI", "0: RPUSH l x", "0> CLIENT REPLY SKIP", "0> DISCARD", "0: LLEN l",
	}},
	{"client-reply-blocking", 2, []string{
		"1> CLIENT REPLY SKIP", "1> BLPOP bq 0", "blocked 1", "0: RPUSH bq v", "1: PING r", "0: LLEN bq",
		"1> CLIENT REPLY OFF", "1> BZPOPMIN bz 0", "blocked 1", "0: ZADD bz 1 m", "1: CLIENT REPLY ON", "0: ZCARD bz",
		"1> CLIENT REPLY SKIP", "1> BLPOP bq 0", "blocked 1", "0: CLIENT UNBLOCK {1} ERROR", "1: PING s",
		// The reply before a dropped blocking command's arrives while it blocks.
		"raw 1: " + string(encode("RPUSH", "other", "a")) + string(encode("CLIENT", "REPLY", "SKIP")) + string(encode("BLPOP", "bq", "0")),
		"blocked 1", "0: RPUSH bq w", "1: PING t", "0: LLEN bq",
	}},
	{"client-list-kill", 3, []string{
		"0: CLIENT LIST ID", "0: CLIENT LIST ID abc", "0: CLIENT LIST ID {1} abc", "0: CLIENT LIST ID +5",
		"0: CLIENT LIST ID 05", "0: CLIENT LIST ID 0", "0: CLIENT LIST ID -5 99999999",
		"0: CLIENT LIST TYPE", "0: CLIENT LIST TYPE foo", "0: CLIENT LIST TYPE normal x", "0: CLIENT LIST TYPE master",
		"0: CLIENT LIST TYPE replica", "0: CLIENT LIST TYPE slave", "0: CLIENT LIST TYPE PubSub",
		"0: CLIENT LIST foo", "0: CLIENT LIST foo bar",
		"0: CLIENT KILL", "0: CLIENT KILL 1.2.3.4:5", "0: CLIENT KILL ID", "0: CLIENT KILL ID 0", "0: CLIENT KILL ID -1",
		"0: CLIENT KILL ID abc", "0: CLIENT KILL ID +5", "0: CLIENT KILL ID 99999999", "0: CLIENT KILL ID 1 SKIPME",
		"0: CLIENT KILL ID 99999999999999999999", "0: CLIENT KILL TYPE foo", "0: CLIENT KILL ID {1} TYPE master",
		"0: CLIENT KILL USER nobody", "0: CLIENT KILL ID {1} USER nobody", "0: CLIENT KILL MAXAGE 10",
		"0: CLIENT KILL ID {1} LADDR 1.2.3.4:5", "0: CLIENT KILL ID {1} ADDR 1.2.3.4:5", "0: CLIENT KILL SKIPME maybe",
		"0: CLIENT KILL ADDR 1.2.3.4:5 ID abc", "0: CLIENT KILL TYPE foo ID abc", "0: CLIENT KILL foo bar",
		"0: CLIENT KILL ID {0}", "0: CLIENT KILL ID {0} SKIPME yes", "0: CLIENT KILL ID {1} TYPE pubsub",
		"0: CLIENT KILL ID {1} TYPE Normal USER default SKIPME yes", "0: CLIENT KILL ID {1}", "0: CLIENT LIST ID {1}", "1!",
		"0: CLIENT UNBLOCK {1} TIMEOUT x", "0: CLIENT UNBLOCK +5", "0: CLIENT UNBLOCK x FOO",
		"2: CLIENT KILL ID {2} SKIPME NO", "2!",
		"0: MULTI", "0: CLIENT KILL ID {0} SKIPME no", "0: EXEC", "0!",
	}},
	{"config-set", 1, []string{
		"0: CONFIG SET maxclients 99999999999", "0: CONFIG SET maxclients 0", "0: CONFIG SET maxclients abc",
		"0: CONFIG SET maxclients -1", "0: CONFIG SET maxclients +5", "0: CONFIG SET maxclients 05",
		"0: CONFIG SET maxclients 99999999999999999999", cmdStep("CONFIG", "SET", "maxclients", ""),
		"0: CONFIG SET maxclients 4294967295", "0: CONFIG GET maxclients", "0: CONFIG SET MAXCLIENTS 10000",
		"0: CONFIG SET timeout 99999999999999", "0: CONFIG GET timeout", "0: CONFIG SET timeout -1",
		"0: CONFIG SET timeout 2147483648", "0: CONFIG SET timeout 1.5", "0: CONFIG SET TIMEOUT x",
		"0: CONFIG SET timeout 2147483647", "0: CONFIG GET timeout", "0: CONFIG SET timeout 0",
		"0: CONFIG SET proto-max-bulk-len 1", "0: CONFIG SET proto-max-bulk-len 99999999999999999999",
		"0: CONFIG SET proto-max-bulk-len abc", "0: CONFIG SET proto-max-bulk-len -5", "0: CONFIG SET proto-max-bulk-len +5",
		cmdStep("CONFIG", "SET", "proto-max-bulk-len", ""), "0: CONFIG SET proto-max-bulk-len mb",
		"0: CONFIG SET proto-max-bulk-len 1.5mb", "0: CONFIG SET proto-max-bulk-len 16000000000gb",
		"0: CONFIG SET proto-max-bulk-len 17179869184gb", "0: CONFIG SET proto-max-bulk-len 1~mb",
		"0: CONFIG SET proto-max-bulk-len 1MB", "0: CONFIG GET proto-max-bulk-len",
		"0: CONFIG SET proto-max-bulk-len 2000Kb", "0: CONFIG GET proto-max-bulk-len",
		"0: CONFIG SET proto-max-bulk-len 3m", "0: CONFIG GET proto-max-bulk-len",
		"0: CONFIG SET proto-max-bulk-len 1048576B", "0: CONFIG GET proto-max-bulk-len",
		"0: CONFIG SET proto-max-bulk-len 17179869185gb", "0: CONFIG GET proto-max-bulk-len",
		"0: CONFIG SET proto-max-bulk-len 9223372036854775807", "0: CONFIG GET proto-max-bulk-len",
		"0: CONFIG SET proto-max-bulk-len 9223372036854775808", "0: CONFIG SET proto-max-bulk-len 512mb",
		"0: CONFIG SET databases 5", "0: CONFIG SET DATABASES 16", "0: CONFIG GET databases",
		"0: CONFIG SET save abc", "0: CONFIG SET save 1", "0: CONFIG SET save 0~1", "0: CONFIG SET save 1~-1",
		"0: CONFIG SET save ~", "0: CONFIG SET save 1~1~", "0: CONFIG SET save x~1", cmdStep("CONFIG", "SET", "save", ""),
		"0: CONFIG GET save",
		"0: CONFIG SET appendonly maybe", "0: CONFIG SET appendonly NO", "0: CONFIG SET appendonly no", "0: CONFIG GET appendonly",
		cmdStep("CONFIG", "SET", "requirepass", ""), "0: CONFIG GET requirepass",
		"0: CONFIG SET timeout 1 timeout 2", "0: CONFIG SET TIMEOUT 1 timeout 2", "0: CONFIG SET timeout 1 TIMEOUT 2",
		"0: CONFIG SET timeout x timeout 1", "0: CONFIG SET timeout 5 maxclients 0", "0: CONFIG GET timeout",
		"0: CONFIG SET maxclients 20 timeout x", "0: CONFIG GET maxclients",
		"0: CONFIG SET foo 1 timeout x", "0: CONFIG SET timeout x foo 1", "0: CONFIG SET databases 1 foo 1",
		"0: CONFIG SET maxclients 0 foo 1", "0: CONFIG SET maxclients 0 databases 1", "0: CONFIG SET databases 16 databases 16",
		"0: CONFIG SET timeout 1 x", "0: CONFIG SET", "0: CONFIG SET a", "0: CONFIG GET",
		"0: CONFIG SET maxclients 10000 timeout 0 proto-max-bulk-len 512mb", "0: CONFIG GET maxclients",
		"0: CONFIG GET TIMEOUT", "0: CONFIG GET timeout TIMEOUT", "0: CONFIG GET TIMEOUT timeout", "0: CONFIG GET nosuch",
		"0: CONFIG GET time*", "0: CONFIG GET TIME?UT", "0: CONFIG GET maxclient?", "0: CONFIG GET proto-max-bulk-le[mn]",
		"0: CONFIG GET requirepas*", "0: CONFIG GET databa*", "0: CONFIG GET s[a]ve", "0: CONFIG GET [^t]ave",
		"0: CONFIG GET app*only",
	}},
}

// redisDefaults are the settings the admin scenarios change on the shared Redis,
// restored after them.
var redisDefaults = []string{"CONFIG", "SET", "maxclients", "10000", "timeout", "0",
	"proto-max-bulk-len", "512mb", "requirepass", "", "save", "", "appendonly", "no",
	"hash-max-listpack-entries", "512", "hash-max-listpack-value", "64", "zset-max-listpack-entries", "128",
	"zset-max-listpack-value", "64", "set-max-intset-entries", "512"}

// restoreRedis puts the settings of redisDefaults back on the Redis at raddr when
// t ends.
func restoreRedis(t *testing.T, raddr string) {
	t.Cleanup(func() {
		nc, err := net.DialTimeout("tcp", raddr, 5*time.Second)
		if err != nil {
			t.Errorf("restoring Redis's settings: %v", err)
			return
		}
		defer nc.Close()
		_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
		w := &wire{t: t, nc: nc, br: bufio.NewReader(nc)}
		if r := w.do(redisDefaults...); r != "+OK\r\n" {
			t.Errorf("restoring Redis's settings: %q", r)
		}
	})
}

// TestAdminScenarios runs the admin scenarios on both servers, in RESP2 and RESP3.
func TestAdminScenarios(t *testing.T) {
	restoreRedis(t, redistest.Require(t))
	for _, sc := range adminScenarios {
		for _, proto := range []int{2, 3} {
			t.Run(sc.name+"/resp="+strconv.Itoa(proto), func(t *testing.T) {
				runScenario(t, sc, proto)
			})
		}
	}
}

// scenarioCommands returns the commands of a one-client scenario's steps, or false
// when a step is not a plain command of client 0.
func scenarioCommands(sc scenario) ([][]string, bool) {
	var cmds [][]string
	for _, step := range sc.steps {
		if sc.clients != 1 || len(step) < 3 || step[0] != '0' || (step[1] != ':' && step[1] != '>') {
			return nil, false
		}
		args := strings.Fields(step[2:])
		for i := range args {
			args[i] = strings.ReplaceAll(args[i], "~", " ")
		}
		cmds = append(cmds, args)
	}
	return cmds, true
}

// TestClientReplyPipelined sends each one-client reply scenario in one write, as a
// pipeline whose keyspace commands the server batches, or one command per write,
// and compares all the bytes each server sends back (up to an ECHO at the end).
func TestClientReplyPipelined(t *testing.T) {
	restoreRedis(t, redistest.Require(t))
	for _, sc := range adminScenarios[:2] {
		cmds, ok := scenarioCommands(sc)
		if !ok {
			t.Fatalf("%s: not a one-client scenario of commands", sc.name)
		}
		for _, proto := range []int{2, 3} {
			for _, oneWrite := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/resp=%d/one-write=%v", sc.name, proto, oneWrite), func(t *testing.T) {
					p := sides(t, 1, proto)[0]
					var all []byte
					for _, c := range cmds {
						if !oneWrite {
							p.raw(string(encode(c...)))
							continue
						}
						all = append(all, encode(c...)...)
					}
					end := encode("CLIENT", "REPLY", "ON")
					end = append(end, encode("ECHO", "the-end")...)
					p.raw(string(append(all, end...)))
					var got [2][]byte
					for side, w := range p.conns {
						b, err := readUntil(w, "$7\r\nthe-end\r\n")
						if err != nil {
							t.Fatalf("side %d: %v after %q", side, err, b)
						}
						got[side] = b
					}
					if !bytes.Equal(got[0], got[1]) {
						t.Fatalf("replies differ\nzlite: %q\nredis: %q", got[0], got[1])
					}
				})
			}
		}
	}
}

// readUntil reads from w until what it has read ends with suffix.
func readUntil(w *wire, suffix string) ([]byte, error) {
	_ = w.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	var b []byte
	for !bytes.HasSuffix(b, []byte(suffix)) {
		c, err := w.br.ReadByte()
		if err != nil {
			return b, err
		}
		b = append(b, c)
	}
	return b, nil
}

var listedID = regexp.MustCompile(`(?m)^id=(\d+) `)

// listedIDs returns the ids of a CLIENT LIST reply's lines, in order.
func listedIDs(reply string) []string {
	var ids []string
	for _, m := range listedID.FindAllStringSubmatch(reply, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// TestClientListFilters checks the clients CLIENT LIST ID and TYPE list, by their
// ids, on both servers.
func TestClientListFilters(t *testing.T) {
	ps := sides(t, 2, 2)
	for side := range 2 {
		a, b := ps[0].conns[side], ps[1].conns[side]
		ida := strings.Trim(a.do("CLIENT", "ID"), ":\r\n")
		idb := strings.Trim(b.do("CLIENT", "ID"), ":\r\n")
		for _, tc := range []struct {
			args []string
			want []string
		}{
			{[]string{"ID", idb, "99999999", ida, idb}, []string{idb, ida, idb}},
			{[]string{"ID", ida}, []string{ida}},
			{[]string{"id", "-1", "0"}, nil},
			{[]string{"TYPE", "pubsub"}, nil},
			{[]string{"TYPE", "master"}, nil},
		} {
			r := a.do(append([]string{"CLIENT", "LIST"}, tc.args...)...)
			if got := listedIDs(r); !slices.Equal(got, tc.want) {
				t.Errorf("side %d: CLIENT LIST %q lists ids %q; want %q (%q)", side, tc.args, got, tc.want, r)
			}
		}
		for _, typ := range []string{"normal", "NORMAL"} {
			got := listedIDs(a.do("CLIENT", "LIST", "TYPE", typ))
			if !slices.Contains(got, ida) || !slices.Contains(got, idb) {
				t.Errorf("side %d: CLIENT LIST TYPE %s lists ids %q; want %s and %s among them", side, typ, got, ida, idb)
			}
		}
	}
}

// TestClientKillAddr kills clients by ADDR and LADDR and by the old form, the
// caller included, on both servers: the caller gets its reply, then the server
// closes its connection.
func TestClientKillAddr(t *testing.T) {
	for _, tc := range []struct {
		name      string
		args      func(victim, caller *wire) []string
		self      bool   // the caller is the one killed
		want      string // the reply
		victimEnd bool   // the victim is closed
	}{
		{"addr", func(v, _ *wire) []string { return []string{"CLIENT", "KILL", "ADDR", v.nc.LocalAddr().String()} }, false, ":1\r\n", true},
		{"addr-laddr", func(v, _ *wire) []string {
			return []string{"CLIENT", "KILL", "ADDR", v.nc.LocalAddr().String(), "LADDR", v.nc.RemoteAddr().String()}
		}, false, ":1\r\n", true},
		{"laddr-other", func(v, _ *wire) []string {
			return []string{"CLIENT", "KILL", "ADDR", v.nc.LocalAddr().String(), "LADDR", "1.2.3.4:5"}
		}, false, ":0\r\n", false},
		{"old-form", func(v, _ *wire) []string { return []string{"CLIENT", "KILL", v.nc.LocalAddr().String()} }, false, "+OK\r\n", true},
		{"old-form-self", func(_, c *wire) []string { return []string{"CLIENT", "KILL", c.nc.LocalAddr().String()} }, true, "+OK\r\n", false},
		{"addr-self-skipme", func(_, c *wire) []string {
			return []string{"CLIENT", "KILL", "ADDR", c.nc.LocalAddr().String(), "SKIPME", "no"}
		}, true, ":1\r\n", false},
		{"addr-self", func(_, c *wire) []string { return []string{"CLIENT", "KILL", "ADDR", c.nc.LocalAddr().String()} }, false, ":0\r\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := sides(t, 2, 2)
			for side := range 2 {
				caller, victim := ps[0].conns[side], ps[1].conns[side]
				if r := caller.do(tc.args(victim, caller)...); r != tc.want {
					t.Errorf("side %d: reply %q; want %q", side, r, tc.want)
				}
				for _, c := range []struct {
					w      *wire
					closed bool
				}{{caller, tc.self}, {victim, tc.victimEnd}} {
					c.w.send("PING")
					r, err := c.w.read()
					if gone := err != nil; gone != c.closed || (!gone && r != "+PONG\r\n") {
						t.Errorf("side %d: PING after the kill: %q, %v; want closed %v", side, r, err, c.closed)
					}
				}
			}
		})
	}
}

// TestConfigGetSet compares CONFIG GET with several patterns, its pairs as a set,
// and checks that a CONFIG SET is applied all or none.
func TestConfigGetSet(t *testing.T) {
	restoreRedis(t, redistest.Require(t))
	p := sides(t, 1, 3)[0]
	for _, args := range [][]string{
		{"timeout", "maxclients"},
		{"maxclients", "timeout", "MAXCLIENTS", "maxc*"},
		{"databa*", "sav?", "appendon*", "requirepas*", "proto-max-bulk-len", "nosuch"},
		{"d*s", "TIME?UT", "timeout"},
	} {
		var got [2][]string
		for side, w := range p.conns {
			r := w.do(append([]string{"CONFIG", "GET"}, args...)...)
			tr, err := parseTree(bufio.NewReader(strings.NewReader(r)))
			if err != nil || tr.kind != '%' {
				t.Fatalf("side %d: CONFIG GET %q: %q, %v", side, args, r, err)
			}
			for i := 0; i+1 < len(tr.kids); i += 2 {
				got[side] = append(got[side], tr.kids[i].s+"="+tr.kids[i+1].s)
			}
			slices.Sort(got[side])
		}
		if !slices.Equal(got[0], got[1]) {
			t.Errorf("CONFIG GET %q: zlite %q; redis %q", args, got[0], got[1])
		}
	}

	addr, s := startServer(t)
	c := dial(t, addr)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"timeout", "5", "maxclients", "0"}, "-ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument must be between 1 and 4294967295 inclusive\r\n"},
		{[]string{"proto-max-bulk-len", "2mb", "timeout", "99999999999999"}, "-ERR CONFIG SET failed (possibly related to argument 'timeout') - argument must be between 0 and 2147483647 inclusive\r\n"},
		{[]string{"maxclients", "7", "appendonly", "yes"}, "-ERR CONFIG SET failed (possibly related to argument 'appendonly') - zlite cannot turn persistence on or off at run time (a keyspace is persistent when opened with zlite.Open)\r\n"},
		{[]string{"requirepass", "x", "appendfsync", "always"}, "-ERR CONFIG SET failed (possibly related to argument 'appendfsync') - zlite cannot change the sync policy at run time (zlite.WithSync at zlite.Open)\r\n"},
		{[]string{"requirepass", "x", "save", "3600 1", "dir", "/nonexistent"}, "-ERR CONFIG SET failed (possibly related to argument 'dir') - zlite cannot change dir at run time (the directory given to zlite.Open)\r\n"},
	} {
		if r := c.do(append([]string{"CONFIG", "SET"}, tc.args...)...); r != tc.want {
			t.Errorf("CONFIG SET %q = %q; want %q", tc.args, r, tc.want)
		}
		if got := [4]int64{s.maxClients.Load(), s.maxBulk.Load(), s.idle.Load(), int64(len(*s.password.Load()))}; got != [4]int64{10000, 512 << 20, 0, 0} {
			t.Errorf("after CONFIG SET %q: maxclients, proto-max-bulk-len, timeout, len(requirepass) = %v; want them unchanged", tc.args, got)
		}
	}
	if r := c.do("CONFIG", "SET", "timeout", "7", "maxclients", "9", "proto-max-bulk-len", "2mb"); r != "+OK\r\n" {
		t.Fatalf("CONFIG SET of three settings = %q", r)
	}
	if got, want := [3]int64{s.maxClients.Load(), s.maxBulk.Load(), s.idle.Load()}, [3]int64{9, 2 << 20, int64(7 * time.Second)}; got != want {
		t.Errorf("after CONFIG SET of three: maxclients, proto-max-bulk-len, timeout = %v; want %v", got, want)
	}
}

// TestConfigEncodingLimits sets the thresholds of the compact encodings on both
// servers, as Redis's own test suites do, and compares the encodings that values
// then get, CONFIG GET and the errors. (set-max-listpack-* is Redis 7.2's, which
// Redis 7.0 does not know: it is checked on zlite alone.)
func TestConfigEncodingLimits(t *testing.T) {
	restoreRedis(t, redistest.Require(t))
	p := sides(t, 1, 2)[0]
	for _, c := range [][]string{
		{"CONFIG", "SET", "hash-max-listpack-entries", "2", "zset-max-ziplist-entries", "3", "set-max-intset-entries", "2"},
		{"CONFIG", "GET", "hash-max-listpack-entries"}, {"CONFIG", "GET", "hash-max-ziplist-entries"}, {"CONFIG", "GET", "set-max-intset-entries"},
		{"HSET", "h", "a", "1", "b", "2"}, {"OBJECT", "ENCODING", "h"}, {"HSET", "h", "c", "3"}, {"OBJECT", "ENCODING", "h"},
		{"ZADD", "z", "1", "a", "2", "b", "3", "c"}, {"OBJECT", "ENCODING", "z"}, {"ZADD", "z", "4", "d"}, {"OBJECT", "ENCODING", "z"},
		{"SADD", "s", "1", "2"}, {"OBJECT", "ENCODING", "s"}, {"SADD", "s", "3"}, {"OBJECT", "ENCODING", "s"},
		{"CONFIG", "SET", "hash-max-listpack-value", "1kb"}, {"CONFIG", "GET", "hash-max-listpack-value"},
		{"CONFIG", "SET", "hash-max-listpack-value", "4", "zset-max-listpack-value", "4"}, {"HSET", "v", "f", "12345"}, {"OBJECT", "ENCODING", "v"},
		{"ZADD", "w", "1", "12345"}, {"OBJECT", "ENCODING", "w"},
		{"CONFIG", "SET", "hash-max-listpack-entries", "x"}, {"CONFIG", "SET", "hash-max-listpack-entries", "-1"},
		{"CONFIG", "SET", "hash-max-listpack-entries", "1kb"}, {"CONFIG", "SET", "hash-max-listpack-value", "x"},
		{"CONFIG", "SET", "set-max-intset-entries", "9223372036854775808"},
	} {
		p.do(c...)
	}
	c := p.conns[0]
	for _, w := range [][]string{{"CONFIG", "SET", "set-max-listpack-entries", "1"}, {"SADD", "t", "a"}} {
		if r := c.do(w...); r != "+OK\r\n" && r != ":1\r\n" {
			t.Fatalf("%q = %q", w, r)
		}
	}
	if r := c.do("OBJECT", "ENCODING", "t"); r != "$8\r\nlistpack\r\n" {
		t.Errorf("a set of one member with set-max-listpack-entries 1: %q", r)
	}
	if r := c.do("SADD", "t", "b"); r != ":1\r\n" {
		t.Fatal(r)
	}
	if r := c.do("OBJECT", "ENCODING", "t"); r != "$9\r\nhashtable\r\n" {
		t.Errorf("a set of two members with set-max-listpack-entries 1: %q", r)
	}
}

// TestClientReplyDialer checks CLIENT REPLY on an in-process connection: a read
// for a reply that never comes ends at its deadline, and replies resume after
// CLIENT REPLY ON.
func TestClientReplyDialer(t *testing.T) {
	db := zlite.New()
	defer db.Close()
	nc, err := Dialer(db)(context.Background(), "tcp", "")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	w := &wire{t: t, nc: nc, br: bufio.NewReader(nc)}
	w.write(append(encode("CLIENT", "REPLY", "OFF"), encode("PING")...))
	_ = nc.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if b, err := w.br.ReadByte(); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read after CLIENT REPLY OFF and PING: %q, %v; want the deadline's error", b, err)
	}
	w.write(append(encode("RPUSH", "l", "a"), encode("CLIENT", "REPLY", "SKIP")...))
	w.write(encode("LRANGE", "l", "0", "-1"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"CLIENT", "REPLY", "ON"}, "+OK\r\n"},
		{[]string{"LRANGE", "l", "0", "-1"}, "*1\r\n$1\r\na\r\n"},
	} {
		if r := w.do(tc.args...); r != tc.want {
			t.Errorf("%q = %q; want %q", tc.args, r, tc.want)
		}
	}
}

// TestClientReplyProtocolError checks that a protocol error's reply is dropped
// under CLIENT REPLY OFF and that the connection is closed, with no byte sent.
// (Redis drops the reply too, but keeps the connection open, reading no more.)
func TestClientReplyProtocolError(t *testing.T) {
	addr, _ := startServer(t)
	w := dial(t, addr)
	w.write([]byte("*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$3\r\nOFF\r\n*1\r\n$4\r\nPING\r\n*x\r\n"))
	b, err := readUntil(w, "\n")
	if len(b) != 0 || err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("read %q, %v; want nothing, then the connection closed", b, err)
	}
}
