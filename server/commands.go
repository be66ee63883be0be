package server

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/pubsub"
)

// serverCommand is a command the server answers itself: connection state, server
// information, transactions. run writes the reply and reports whether the
// connection must close.
type serverCommand struct {
	name    string
	arity   int
	noAuth  bool // allowed before AUTH (AUTH, HELLO, QUIT, RESET)
	inMulti bool // runs at once inside MULTI instead of being queued
	noMulti bool // refused inside MULTI (SHUTDOWN), failing the transaction
	// subs, for a container command (CLIENT, CONFIG...), maps each subcommand to its
	// arity, checked with the command's before AUTH and MULTI, as in Redis.
	subs map[string]int
	run  func(c *client, a []string) (quit bool)
}

// check returns Redis's error for a wrong arity or an unknown subcommand.
func (sc *serverCommand) check(a []string) error {
	if (sc.arity > 0 && len(a) != sc.arity) || len(a) < -sc.arity {
		return arityError(sc.name)
	}
	if sc.subs == nil || len(a) < 2 {
		return nil
	}
	sub := strings.ToLower(a[1])
	n, ok := sc.subs[sub]
	if !ok {
		return errors.New("ERR unknown subcommand '" + trunc(a[1], 128) + "'. Try " + strings.ToUpper(sc.name) + " HELP.")
	}
	if (n > 0 && len(a) != n) || len(a) < -n {
		return arityError(sc.name + "|" + sub)
	}
	return nil
}

func arityError(name string) error {
	return errors.New("ERR wrong number of arguments for '" + name + "' command")
}

// serverCommands is the server's own command table; commands not in it go to the
// keyspace's ([zlite.Lookup]).
var serverCommands = map[string]*serverCommand{}

func init() {
	for _, sc := range []*serverCommand{
		{name: "ping", arity: -1, run: cmdPing},
		{name: "echo", arity: 2, run: func(c *client, a []string) bool { c.w.bulk(a[1]); return false }},
		{name: "quit", arity: -1, noAuth: true, inMulti: true, run: func(c *client, a []string) bool { c.w.status("OK"); return true }},
		{name: "reset", arity: 1, noAuth: true, inMulti: true, run: cmdReset},
		{name: "hello", arity: -1, noAuth: true, run: cmdHello},
		{name: "auth", arity: -2, noAuth: true, run: cmdAuth},
		{name: "select", arity: 2, run: cmdSelect},
		{name: "swapdb", arity: 3, run: cmdSwapDB},
		{name: "flushdb", arity: -1, run: cmdFlush(false)},
		{name: "flushall", arity: -1, run: cmdFlush(true)},
		{name: "client", arity: -2, run: cmdClient, subs: map[string]int{"id": 2, "setname": 3, "getname": 2,
			"list": -2, "info": 2, "kill": -3, "unblock": -3, "setinfo": 4, "no-evict": 3, "no-touch": 3, "reply": 3, "help": 2,
			"tracking": -3, "caching": 3, "getredir": 2, "trackinginfo": 2}},
		{name: "info", arity: -1, run: cmdInfo},
		{name: "config", arity: -2, run: cmdConfig, subs: map[string]int{"get": -3, "set": -4, "resetstat": 2, "help": 2}},
		{name: "command", arity: -1, run: cmdCommand, subs: map[string]int{"count": 2, "list": -2, "info": -2, "docs": -2, "getkeys": -4, "help": 2}},
		{name: "object", arity: -2, run: cmdObject, subs: map[string]int{"encoding": 3, "freq": 3, "idletime": 3, "refcount": 3, "help": 2}},
		{name: "time", arity: 1, run: cmdTime},
		{name: "multi", arity: 1, inMulti: true, run: cmdMulti},
		{name: "exec", arity: 1, inMulti: true, run: cmdExec},
		{name: "discard", arity: 1, inMulti: true, run: cmdDiscard},
		{name: "watch", arity: -2, inMulti: true, run: cmdWatch},
		{name: "unwatch", arity: 1, run: cmdUnwatch},
		{name: "eval", arity: -3, run: cmdEval(false, false)},
		{name: "evalsha", arity: -3, run: cmdEval(true, false)},
		{name: "eval_ro", arity: -3, run: cmdEval(false, true)},
		{name: "evalsha_ro", arity: -3, run: cmdEval(true, true)},
		{name: "script", arity: -2, run: cmdScript, subs: map[string]int{"load": 3, "exists": -3, "flush": -2, "kill": 2, "help": 2}},
		{name: "fcall", arity: -3, run: cmdFCall(false)},
		{name: "fcall_ro", arity: -3, run: cmdFCall(true)},
		{name: "function", arity: -2, run: cmdFunction, subs: map[string]int{"load": -3, "delete": 3, "flush": -2,
			"list": -2, "stats": 2, "kill": 2, "help": 2}},
		{name: "shutdown", arity: -1, noMulti: true, run: cmdShutdown},
		{name: "move", arity: 3, run: cmdMove},
		{name: "subscribe", arity: -2, run: subscribeCommand("subscribe", (*pubsub.Subscriber).Subscribe)},
		{name: "psubscribe", arity: -2, run: subscribeCommand("psubscribe", (*pubsub.Subscriber).PSubscribe)},
		{name: "ssubscribe", arity: -2, run: subscribeCommand("ssubscribe", (*pubsub.Subscriber).SSubscribe)},
		{name: "unsubscribe", arity: -1, run: unsubscribeCommand("unsubscribe", (*pubsub.Subscriber).Unsubscribe)},
		{name: "punsubscribe", arity: -1, run: unsubscribeCommand("punsubscribe", (*pubsub.Subscriber).PUnsubscribe)},
		{name: "sunsubscribe", arity: -1, run: unsubscribeCommand("sunsubscribe", (*pubsub.Subscriber).SUnsubscribe)},
		{name: "lastsave", arity: 1, run: cmdLastsave},
		{name: "save", arity: 1, noMulti: true, run: cmdSave},
		{name: "bgsave", arity: -1, run: cmdBgsave},
		{name: "bgrewriteaof", arity: 1, run: cmdBgrewriteaof},
		{name: "monitor", arity: 1, run: cmdMonitor},
		{name: "slowlog", arity: -2, run: cmdSlowlog, subs: map[string]int{"get": -2, "len": 2, "reset": 2, "help": 2}},
		{name: "memory", arity: -2, run: cmdMemory, subs: map[string]int{"usage": -3, "stats": 2, "doctor": 2,
			"malloc-stats": 2, "purge": 2, "help": 2}},
		{name: "debug", arity: -2, run: cmdDebug},
		{name: "wait", arity: 3, run: cmdWait},
		{name: "publish", arity: 3, run: cmdPublish(false)},
		{name: "spublish", arity: 3, run: cmdPublish(true)},
		{name: "pubsub", arity: -2, run: cmdPubSub, subs: map[string]int{"channels": -2, "numsub": -2, "numpat": 2,
			"shardchannels": -2, "shardnumsub": -2, "help": 2}},
	} {
		serverCommands[sc.name] = sc
	}
	buildCommandTable()
}

func cmdPing(c *client, a []string) bool {
	switch {
	case len(a) <= 2 && c.inPubSubContext():
		// RESP2 with subscriptions: a push-shaped ["pong", argument or ""].
		c.w.array(2)
		c.w.bulk("pong")
		c.w.bulk(strings.Join(a[1:], ""))
		return false
	}
	switch len(a) {
	case 1:
		c.w.status("PONG")
	case 2:
		c.w.bulk(a[1])
	default:
		c.w.errorReply(arityError("ping").Error())
	}
	return false
}

// cmdReset is RESET: leave MULTI, unwatch, select 0, RESP2, no name, replies on,
// unauthenticated when a password is set.
func cmdReset(c *client, a []string) bool {
	if s := c.sub.Load(); s != nil {
		s.Unsubscribe()
		s.PUnsubscribe()
		s.SUnsubscribe()
	}
	c.endMonitor(false)
	c.multi = nil
	c.watch.clear()
	c.db = 0
	c.mu.Lock()
	c.name, c.resp = "", 2
	c.mu.Unlock()
	c.w.resp3 = false
	c.authed = *c.srv.password.Load() == ""
	c.resetReplies()
	c.w.status("RESET")
	return false
}

// cmdHello is HELLO [protover [AUTH username password] [SETNAME clientname]].
func cmdHello(c *client, a []string) bool {
	proto := 0
	if len(a) > 1 {
		n, err := strconv.ParseInt(a[1], 10, 64)
		if err != nil {
			c.w.errorReply("ERR Protocol version is not an integer or out of range")
			return false
		}
		if n < 2 || n > 3 {
			c.w.errorReply("NOPROTO unsupported protocol version")
			return false
		}
		proto = int(n)
	}
	var name string
	setName := false
	for i := 2; i < len(a); i++ {
		more := len(a) - i - 1
		switch {
		case strings.EqualFold(a[i], "auth") && more >= 2:
			if !c.auth(a[i+1], a[i+2]) {
				return false
			}
			i += 2
		case strings.EqualFold(a[i], "setname") && more >= 1:
			if err := checkClientName(a[i+1]); err != nil {
				c.w.errorReply(err.Error())
				return false
			}
			name, setName = a[i+1], true
			i++
		default:
			c.w.errorReply("ERR Syntax error in HELLO option '" + a[i] + "'")
			return false
		}
	}
	if c.needsAuth() {
		c.w.errorReply("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return false
	}
	c.mu.Lock()
	if setName {
		c.name = name
	}
	if proto != 0 {
		c.resp = proto
	}
	c.mu.Unlock()
	c.w.resp3 = c.resp == 3
	c.w.mapHeader(7)
	c.w.bulk("server")
	c.w.bulk("redis")
	c.w.bulk("version")
	c.w.bulk(Version)
	c.w.bulk("proto")
	c.w.integer(int64(c.resp))
	c.w.bulk("id")
	c.w.integer(c.id)
	c.w.bulk("mode")
	c.w.bulk("standalone")
	c.w.bulk("role")
	c.w.bulk("master")
	c.w.bulk("modules")
	c.w.array(0)
	return false
}

// auth checks a username and password (only "default" exists; without
// requirepass it takes any password) and writes the error reply on failure.
func (c *client) auth(user, pass string) bool {
	if user == "default" && (*c.srv.password.Load() == "" || c.checkPassword(pass)) {
		c.authed = true
		return true
	}
	c.w.errorReply("WRONGPASS invalid username-password pair or user is disabled.")
	return false
}

// cmdAuth is AUTH [username] password.
func cmdAuth(c *client, a []string) bool {
	if len(a) > 3 {
		c.w.errorReply("ERR syntax error")
		return false
	}
	if len(a) == 2 && *c.srv.password.Load() == "" {
		c.w.errorReply("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
		return false
	}
	user, pass := "default", a[len(a)-1]
	if len(a) == 3 {
		user = a[1]
	}
	if c.auth(user, pass) {
		c.w.status("OK")
	}
	return false
}

// parseDB parses a keyspace number as SELECT and SWAPDB do.
func parseDB(s string) (int, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || strings.ContainsAny(s, " +") || (len(s) > 1 && s[0] == '0') {
		return 0, zlite.ErrNotInteger
	}
	if n < 0 || n >= NumDBs {
		return 0, errDBRange
	}
	return int(n), nil
}

var errDBRange = errors.New("ERR DB index is out of range")

func cmdSelect(c *client, a []string) bool {
	n, err := parseDB(a[1])
	if err != nil {
		c.w.errorReply(err.Error())
		return false
	}
	c.db = n
	c.w.status("OK")
	return false
}

// cmdSwapDB is SWAPDB index1 index2. Clients watching a key of either keyspace fail
// their EXEC (Redis fails only those whose keys exist in one of the two).
func cmdSwapDB(c *client, a []string) bool {
	i, err := parseDB(a[1])
	if err == zlite.ErrNotInteger {
		err = errors.New("ERR invalid first DB index")
	}
	if err != nil {
		c.w.errorReply(err.Error())
		return false
	}
	j, err := parseDB(a[2])
	if err == zlite.ErrNotInteger {
		err = errors.New("ERR invalid second DB index")
	}
	if err != nil {
		c.w.errorReply(err.Error())
		return false
	}
	s := c.srv
	s.saves.moving.Lock()
	defer s.saves.moving.Unlock()
	if f := s.saves.onSwap; f != nil && i != j {
		if err := f(i, j); err != nil {
			c.w.errorReply("ERR SWAPDB could not be persisted: " + err.Error())
			return false
		}
	}
	s.swapmu.Lock()
	dbs := *s.dbs.Load()
	dbs[i], dbs[j] = dbs[j], dbs[i]
	s.dbs.Store(&dbs)
	dbs[i].SetEventHub(s.hub, i) // keyspace events name a DB by its new number
	dbs[j].SetEventHub(s.hub, j)
	s.swapmu.Unlock()
	for _, o := range s.snapshot() {
		o.watch.swapped.Or(1<<i | 1<<j)
		if i != j {
			o.reblock(dbs[i], dbs[j])
		}
	}
	c.w.status("OK")
	return false
}

// cmdFlush is FLUSHDB and FLUSHALL [ASYNC|SYNC].
func cmdFlush(all bool) func(c *client, a []string) bool {
	return func(c *client, a []string) bool {
		if len(a) > 2 || (len(a) == 2 && !strings.EqualFold(a[1], "sync") && !strings.EqualFold(a[1], "async")) {
			c.w.errorReply(zlite.ErrSyntax.Error())
			return false
		}
		for i := range NumDBs {
			if all || i == c.db {
				_ = c.srv.DB(i).FlushAll(context.Background())
			}
		}
		c.w.status("OK")
		return false
	}
}

func cmdTime(c *client, a []string) bool {
	now := time.Now()
	c.w.array(2)
	c.w.bulk(strconv.FormatInt(now.Unix(), 10))
	c.w.bulk(strconv.FormatInt(int64(now.Nanosecond()/1000), 10))
	return false
}

// cmdObject is OBJECT ENCODING|FREQ|IDLETIME|REFCOUNT|HELP key.
func cmdObject(c *client, a []string) bool {
	sub := strings.ToLower(a[1])
	if sub == "help" {
		c.w.array(len(objectHelp))
		for _, l := range objectHelp {
			c.w.status(l)
		}
		return false
	}
	enc, ok := c.srv.DB(c.db).ObjectEncoding(context.Background(), a[2])
	if !ok {
		c.w.null(false)
		return false
	}
	switch sub {
	case "encoding":
		c.w.bulk(enc)
	case "refcount":
		c.w.integer(1)
	case "freq":
		c.w.errorReply("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
	case "idletime":
		// Redis (whose default maxmemory-policy, noeviction, keeps an LRU clock per
		// key) replies the seconds since the key's last access; zlite keeps none.
		c.w.errorReply("ERR zlite does not track key access times")
	}
	return false
}

// objectHelp is OBJECT HELP's reply, Redis's lines.
var objectHelp = []string{
	"OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"ENCODING <key>",
	"    Return the kind of internal representation used in order to store the value",
	"    associated with a <key>.",
	"FREQ <key>",
	"    Return the access frequency index of the <key>. The returned integer is",
	"    proportional to the logarithm of the recent access frequency of the key.",
	"IDLETIME <key>",
	"    Return the idle time of the <key>, that is the approximated number of",
	"    seconds elapsed since the last access to the key.",
	"REFCOUNT <key>",
	"    Return the number of references of the value associated with the specified",
	"    <key>.",
	"HELP",
	"    Prints this help.",
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// checkClientName is Redis's rule for CLIENT SETNAME and HELLO SETNAME.
func checkClientName(name string) error {
	for i := 0; i < len(name); i++ {
		if name[i] < '!' || name[i] > '~' {
			//lint:ignore ST1005 Redis's reply, byte for byte, ends with a full stop.
			return errors.New("ERR Client names cannot contain spaces, newlines or special characters.")
		}
	}
	return nil
}
