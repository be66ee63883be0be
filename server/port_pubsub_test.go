package server

import (
	"strconv"
	"testing"
)

// Ports of Redis 7.0's tests/unit/pubsub.tcl (all but its keyspace notification
// tests) and tests/unit/pubsubshard.tcl, as scenarios (see scenario_test.go): each
// tcl test is one scenario, its deferring clients the scenario's clients, every
// push read and compared byte for byte with redis-server's, in RESP2 and RESP3.
// A scenario ends with RESET on every client that subscribed, so that the next
// one finds the shared redis-server with no subscription left (PUBSUB NUMPAT and
// CHANNELS count every connection's).
//
// One loosening beyond diff_test.go's: "push-after-reply". A message that a
// command publishes to its own connection (PUBLISH, or a script's) comes after
// that command's reply in Redis 7.2 and zlite, before it in 7.0: the two frames
// are compared in either order.
//
// Left out, and why:
//   - 7.2's "publish to self inside multi" and "... inside script": not in 7.0's
//     file. "publish-to-self" below runs the script case, loosened as above; in a
//     transaction Redis 7.0 writes the push inside EXEC's array, so
//     TestPublishToSelfOrder checks zlite's 7.2 order there on its own.
//   - "Pub/Sub PING on RESP3" and the RESP3 variants: every scenario runs in RESP2
//     and RESP3 both.
//   - pubsubshard.tcl's cluster cases: no cluster mode.
//   - The order of the pushes of an UNSUBSCRIBE or PUNSUBSCRIBE without arguments
//     from more than one name, and of the pmessages of one channel that several of
//     a client's patterns match: Redis walks a hash table (in an order that
//     changes with each server's hash seed), zlite its insertion order. The tcl
//     tests read those replies as sets; the cases here unsubscribe all from one
//     name, and the counts of the many-name case are checked by
//     pubsub.TestCounts.
var pubsubScenarios = []scenario{
	{"pubsub-ping", 1, []string{
		"0: SUBSCRIBE somechannel", "0: PING", "0: PING foo", "0: PING a b",
		"0: UNSUBSCRIBE somechannel", "0: PING", "0: RESET",
	}},
	{"publish-subscribe-basics", 2, []string{
		"1> SUBSCRIBE chan1 chan2", "1<", "1<",
		"0: PUBLISH chan1 hello", "0: PUBLISH chan2 world", "1<", "1<",
		"1: UNSUBSCRIBE chan1", "0: PUBLISH chan1 hello", "0: PUBLISH chan2 world", "1<",
		"1: UNSUBSCRIBE chan2", "0: PUBLISH chan1 hello", "0: PUBLISH chan2 world",
		"1: RESET",
	}},
	{"publish-subscribe-two-clients", 3, []string{
		"1: SUBSCRIBE chan1", "2: SUBSCRIBE chan1", "0: PUBLISH chan1 hello", "1<", "2<",
		"1: RESET", "2: RESET",
	}},
	{"publish-after-unsubscribe-all", 2, []string{
		"1> SUBSCRIBE chan1", "1<", "1: UNSUBSCRIBE", "0: PUBLISH chan1 hello", "1: PING",
		"1> SUBSCRIBE chan1 chan2", "1<", "1<", "1: UNSUBSCRIBE chan1", "1: UNSUBSCRIBE", "0: PUBLISH chan2 x", "1: PING",
	}},
	{"subscribe-twice", 2, []string{
		"1> SUBSCRIBE chan1 chan1 chan1", "1<", "1<", "1<", "0: PUBLISH chan1 hello", "1<", "1: RESET",
	}},
	{"unsubscribe-not-subscribed", 1, []string{
		"0> UNSUBSCRIBE foo bar quux", "0<", "0<", "0<", "0: PING",
		"0> PUNSUBSCRIBE foo.* bar.* quux.*", "0<", "0<", "0<", "0: PING",
		"0> SUNSUBSCRIBE foo bar", "0<", "0<", "0: PING",
	}},
	{"psubscribe-basics", 2, []string{
		"1> PSUBSCRIBE foo.* bar.*", "1<", "1<",
		"0: PUBLISH foo.1 hello", "0: PUBLISH bar.1 hello", "0: PUBLISH foo1 hello", "0: PUBLISH barfoo.1 hello",
		"0: PUBLISH qux.1 hello", "1<", "1<",
		"1: PUNSUBSCRIBE foo.*", "0: PUBLISH foo.1 hello", "0: PUBLISH bar.1 hello", "1<",
		"1: PUNSUBSCRIBE bar.*", "0: PUBLISH foo.1 hello", "0: PUBLISH bar.1 hello",
		"1> PSUBSCRIBE [a-c]?x \\* h[^e]llo", "1<", "1<", "1<",
		"0: PUBLISH bqx 1", "0: PUBLISH dqx 2", "0: PUBLISH * 3", "0: PUBLISH x 4", "0: PUBLISH hallo 5", "0: PUBLISH hello 6",
		"1<", "1<", "1<", "1: RESET",
	}},
	{"psubscribe-two-clients", 3, []string{
		"1: PSUBSCRIBE chan.*", "2: PSUBSCRIBE chan.*", "0: PUBLISH chan.foo hello", "1<", "2<",
		"1: RESET", "2: RESET",
	}},
	{"publish-after-punsubscribe-all", 2, []string{
		"1> PSUBSCRIBE chan1.*", "1<", "1: PUNSUBSCRIBE", "0: PUBLISH chan1.hi hello", "1: PING",
	}},
	{"messages-with-client-reply-off", 2, []string{
		"1> CLIENT REPLY OFF", "1: SUBSCRIBE channel", "1: PSUBSCRIBE ch*",
		"0: PUBLISH channel hello", "1<", "1<",
		"1: UNSUBSCRIBE channel", "1: PUNSUBSCRIBE ch*", "1: RESET",
	}},
	{"numsub-numpat-channels", 3, []string{
		"0: PUBSUB NUMSUB abc def", "0: PUBSUB NUMSUB", "0: PUBSUB NUMPAT", "0: PUBSUB CHANNELS",
		"1: PSUBSCRIBE foo*", "2: PSUBSCRIBE foo*", "1: PSUBSCRIBE bar*", "2: PSUBSCRIBE baz*",
		"0: PUBSUB NUMPAT",
		"1: SUBSCRIBE news.1", "2: SUBSCRIBE news.1", "0: PUBSUB NUMSUB news.1 news.2 foo*",
		"0: PUBSUB CHANNELS", "0: PUBSUB CHANNELS news.*", "0: PUBSUB CHANNELS x*",
		"0: PUBSUB", "0: PUBSUB NOSUCH", "0: PUBSUB NUMPAT x", "0: PUBSUB CHANNELS a b", "0: PUBSUB SHARDCHANNELS a b",
		"1: RESET", "2: RESET", "0: PUBSUB NUMPAT", "0: PUBSUB CHANNELS",
	}},
	{"mix-subscribe-psubscribe", 2, []string{
		"1: SUBSCRIBE foo.bar", "1: PSUBSCRIBE foo.*", "0: PUBLISH foo.bar hello", "1<", "1<", "1: RESET",
	}},
	{"always-reply", 1, []string{
		"0: PUNSUBSCRIBE", "0: UNSUBSCRIBE", "0: SUNSUBSCRIBE", "0: PUNSUBSCRIBE", "0: UNSUBSCRIBE",
	}},
	{"subscribed-context", 2, []string{
		// RESP2 refuses all but the subscribe commands, PING, QUIT and RESET while
		// subscribed; RESP3 runs everything.
		"0: SUBSCRIBE c", "0: GET k", "0: SET k v", "0: PUBLISH other x", "0: CLIENT GETNAME", "0: PUBSUB NUMSUB c",
		"0: MULTI", "0: EXEC", "0: NOSUCH", "0: GET", "0: SUBSCRIBE", "0: PUBLISH c",
		"1: PUBLISH c m", "0<", "0: PSUBSCRIBE x*", "0: UNSUBSCRIBE c", "0: GET k", "0: PUNSUBSCRIBE", "0: GET k",
		"0: SUBSCRIBE c", "0: RESET", "0: GET k",
		"0: SUBSCRIBE c", "0: QUIT", "0!",
	}},
	{"publish-to-self", 1, []string{
		// A push for the client itself comes after the reply of the command that
		// published it in Redis 7.2 and zlite, before it in 7.0: compared in
		// either order (push-after-reply).
		"0: SUBSCRIBE me", "0: RESET", "0> HELLO 3", "0~", "0: SUBSCRIBE me",
		"0> PUBLISH me hi", "0<<", "0: PING", "0> EVAL return~redis.call('PUBLISH','me','lua') 0", "0<<",
		"0: RESET",
	}},
	{"publish-in-multi-and-script", 2, []string{
		"1: SUBSCRIBE ch", "0: MULTI", "0: PUBLISH ch a", "0: PUBLISH ch b", "0: EXEC", "1<", "1<",
		"0: EVAL return~redis.call('PUBLISH','ch','c') 0", "1<",
		"0: EVAL return~redis.call('SPUBLISH','ch','d') 0",
		"0: EVAL return~redis.call('SUBSCRIBE','ch') 0", "0: EVAL return~redis.pcall('PUBLISH','ch') 0",
		"0: MULTI", "0: SUBSCRIBE ch2", "0: EXEC", "0: PING", "0: RESET", "1: RESET",
	}},
	{"spublish-ssubscribe-basics", 2, []string{
		"1> SSUBSCRIBE chan1 chan2", "1<", "1<",
		"0: SPUBLISH chan1 hello", "0: SPUBLISH chan2 world", "1<", "1<",
		"1: SUNSUBSCRIBE chan1", "0: SPUBLISH chan1 hello", "0: SPUBLISH chan2 world", "1<",
		"1: SUNSUBSCRIBE chan2", "0: SPUBLISH chan1 hello", "0: SPUBLISH chan2 world",
		"1: SSUBSCRIBE chan1 chan1", "1<", "0: PUBSUB SHARDNUMSUB chan1 chan2", "0: PUBSUB SHARDCHANNELS",
		"0: PUBSUB SHARDCHANNELS ch*", "0: PUBSUB SHARDCHANNELS x", "1: SUNSUBSCRIBE", "1: RESET",
	}},
	{"spublish-with-publish", 3, []string{
		// Shard channels and channels of the same name are apart; patterns never
		// match a shard channel.
		"1: SSUBSCRIBE chan1", "2: SUBSCRIBE chan1", "1: PSUBSCRIBE chan*",
		"0: SPUBLISH chan1 hello", "1<", "0: PUBLISH chan1 world", "2<", "1<",
		"0: PUBSUB NUMSUB chan1", "0: PUBSUB SHARDNUMSUB chan1", "0: PUBSUB CHANNELS", "0: PUBSUB SHARDCHANNELS",
		"1: RESET", "2: RESET",
	}},
	{"shard-client-reply-off", 2, []string{
		"1> CLIENT REPLY OFF", "1: SSUBSCRIBE channel", "0: SPUBLISH channel hello", "1<",
		"1: SUNSUBSCRIBE channel", "1: RESET",
	}},
	{"client-list-kill-pubsub", 3, []string{
		"1: SUBSCRIBE a", "1: PSUBSCRIBE b*", "2: SSUBSCRIBE c",
		"0: CLIENT KILL TYPE pubsub SKIPME yes", "1!", "2!", "0: CLIENT KILL TYPE normal SKIPME yes",
		"0: CLIENT KILL TYPE pubsub TYPE normal SKIPME no", "0!",
	}},
}

// TestPortPubSub runs the Pub/Sub scenarios on both servers, in RESP2 and RESP3.
func TestPortPubSub(t *testing.T) {
	for _, sc := range pubsubScenarios {
		for _, proto := range []int{2, 3} {
			t.Run(sc.name+"/resp="+strconv.Itoa(proto), func(t *testing.T) {
				runScenario(t, sc, proto)
			})
		}
	}
}

// TestPublishToSelfOrder checks Redis 7.2's order for a message a connection
// publishes to itself in a transaction and in a script (7.2's "publish to self
// inside multi" and "... inside script"): the command's whole reply first, then
// the pushes.
func TestPublishToSelfOrder(t *testing.T) {
	addr, _ := startServer(t)
	w := dial(t, addr)
	w.do("HELLO", "3")
	if r := w.do("SUBSCRIBE", "foo"); r != ">3\r\n$9\r\nsubscribe\r\n$3\r\nfoo\r\n:1\r\n" {
		t.Fatalf("subscribe: %q", r)
	}
	push := func(payload string) string {
		return ">3\r\n$7\r\nmessage\r\n$3\r\nfoo\r\n$3\r\n" + payload + "\r\n"
	}
	for _, tc := range []struct {
		name  string
		cmds  [][]string
		reply string
	}{
		{"multi", [][]string{{"MULTI"}, {"PING", "abc"}, {"PUBLISH", "foo", "bar"}, {"PUBLISH", "foo", "vaz"}, {"PING", "def"}, {"EXEC"}},
			"*4\r\n$3\r\nabc\r\n:1\r\n:1\r\n$3\r\ndef\r\n"},
		{"script", [][]string{{"EVAL", "redis.call('ping','abc') redis.call('publish','foo','bar') redis.call('publish','foo','vaz') return 'bla'", "0"}},
			"$3\r\nbla\r\n"},
		{"publish", [][]string{{"PUBLISH", "foo", "bar"}, {"PUBLISH", "foo", "vaz"}}, ":1\r\n"},
	} {
		var last string
		for _, c := range tc.cmds {
			last = w.do(c...)
		}
		if tc.name == "publish" {
			// The first PUBLISH's reply, then its push, then the second's reply.
			if last != push("bar") {
				t.Fatalf("%s: %q; want the first push before the second reply", tc.name, last)
			}
			if last, _ = w.read(); last != tc.reply {
				t.Fatalf("%s: second reply %q", tc.name, last)
			}
			if r, _ := w.read(); r != push("vaz") {
				t.Fatalf("%s: %q; want the second push", tc.name, r)
			}
			continue
		}
		if last != tc.reply {
			t.Fatalf("%s: reply %q; want %q", tc.name, last, tc.reply)
		}
		for _, p := range []string{"bar", "vaz"} {
			if r, _ := w.read(); r != push(p) {
				t.Fatalf("%s: %q; want %q", tc.name, r, push(p))
			}
		}
	}
}
