package server

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zlite/zlite"
)

// infoSections are INFO's sections in Redis's order; "default" and "all" print them all.
var infoSections = []string{"server", "clients", "memory", "persistence", "stats", "replication", "cpu", "errorstats", "keyspace"}

// cmdInfo is INFO [section ...] with Redis's field names.
func cmdInfo(c *client, a []string) bool {
	want := map[string]bool{}
	for _, s := range a[1:] {
		s = strings.ToLower(s)
		if s == "default" || s == "all" || s == "everything" {
			for _, x := range infoSections {
				want[x] = true
			}
			want["commandstats"] = want["commandstats"] || s != "default"
			continue
		}
		want[s] = true
	}
	if len(a) == 1 {
		for _, x := range infoSections {
			want[x] = true
		}
	}
	var b strings.Builder
	for _, sec := range append(infoSections, "commandstats") {
		if !want[sec] {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\r\n")
		}
		c.srv.infoSection(&b, sec)
	}
	c.w.verbatim(b.String())
	return false
}

func (s *Server) infoSection(b *strings.Builder, sec string) {
	line := func(k string, v any) { fmt.Fprintf(b, "%s:%v\r\n", k, v) }
	switch sec {
	case "server":
		up := time.Since(s.started)
		b.WriteString("# Server\r\n")
		line("redis_version", Version)
		line("redis_mode", "standalone")
		line("zlite_server", "yes")
		line("os", runtime.GOOS+" "+runtime.GOARCH)
		line("arch_bits", strconv.IntSize)
		line("go_version", runtime.Version())
		line("process_id", os.Getpid())
		line("uptime_in_seconds", int64(up.Seconds()))
		line("uptime_in_days", int64(up.Hours()/24))
	case "clients":
		s.mu.Lock()
		n := len(s.clients)
		s.mu.Unlock()
		b.WriteString("# Clients\r\n")
		line("connected_clients", n)
		line("maxclients", s.maxClients.Load())
		line("blocked_clients", s.blocked.Load())
	case "memory":
		m, peak := s.memSample()
		b.WriteString("# Memory\r\n")
		line("used_memory", m.HeapAlloc)
		line("used_memory_human", human(m.HeapAlloc))
		line("used_memory_rss", m.Sys)
		line("used_memory_rss_human", human(m.Sys))
		line("used_memory_peak", peak)
		line("used_memory_peak_human", human(peak))
		line("used_memory_peak_perc", fmt.Sprintf("%.2f%%", float64(m.HeapAlloc)*100/float64(max(peak, 1))))
		line("used_memory_startup", s.memStartup)
		line("used_memory_lua", 0)
		line("used_memory_scripts", 0)
		line("maxmemory", 0)
		line("maxmemory_human", "0B")
		line("maxmemory_policy", "noeviction")
		line("allocator_allocated", m.HeapAlloc)
		line("allocator_active", m.HeapInuse)
		line("allocator_resident", m.Sys)
		line("mem_fragmentation_ratio", fmt.Sprintf("%.2f", float64(m.Sys)/float64(max(m.HeapAlloc, 1))))
		line("mem_fragmentation_bytes", int64(m.Sys)-int64(m.HeapAlloc))
		line("mem_allocator", "go")
	case "persistence":
		s.infoPersistence(b, line)
	case "replication":
		b.WriteString("# Replication\r\n")
		line("role", "master")
		line("connected_slaves", 0)
		line("master_failover_state", "no-failover")
		line("master_replid", s.replID)
		line("master_replid2", strings.Repeat("0", 40))
		line("master_repl_offset", 0)
		line("second_repl_offset", -1)
		line("repl_backlog_active", 0)
		line("repl_backlog_size", 1<<20)
		line("repl_backlog_first_byte_offset", 0)
		line("repl_backlog_histlen", 0)
	case "cpu":
		b.WriteString("# CPU\r\n")
		if sys, user, ok := cpuTimes(); ok {
			line("used_cpu_sys", fmt.Sprintf("%.6f", sys.Seconds()))
			line("used_cpu_user", fmt.Sprintf("%.6f", user.Seconds()))
			line("used_cpu_sys_children", "0.000000")
			line("used_cpu_user_children", "0.000000")
		}
	case "errorstats":
		b.WriteString("# Errorstats\r\n")
		for _, e := range s.errs.counts() {
			fmt.Fprintf(b, "errorstat_%s:count=%d\r\n", e.code, e.n)
		}
	case "stats":
		b.WriteString("# Stats\r\n")
		line("total_connections_received", s.connections.Load())
		line("total_commands_processed", s.commands.Load())
		line("rejected_connections", s.rejected.Load())
		var expired uint64
		for i := range NumDBs {
			_ = s.DB(i).View(func(tx *zlite.Tx) error { _, e := hooks.ExpiryCounts(tx); expired += e; return nil })
		}
		line("expired_keys", int64(expired))
		channels, patterns, shards := s.hub.Counts()
		line("pubsub_channels", channels)
		line("pubsub_patterns", patterns)
		line("pubsubshard_channels", shards)
		line("total_error_replies", s.errs.total())
	case "commandstats":
		s.cstats.write(b, s.keyspaceCalls())
	case "keyspace":
		b.WriteString("# Keyspace\r\n")
		for i := range NumDBs {
			var n, expires int64
			_ = s.DB(i).View(func(tx *zlite.Tx) error { // not counted as a DBSIZE
				n, _ = tx.DBSize()
				expires, _ = hooks.ExpiryCounts(tx)
				return nil
			})
			if n > 0 {
				// avg_ttl is Redis's estimate from its active expiry's samples; zlite
				// keeps none, and reports 0 as Redis does before it has sampled.
				fmt.Fprintf(b, "db%d:keys=%d,expires=%d,avg_ttl=0\r\n", i, n, expires)
			}
		}
	}
}

// human formats a byte count as Redis's bytesToHuman.
func human(n uint64) string {
	f := float64(n)
	switch {
	case n < 1024:
		return strconv.FormatUint(n, 10) + "B"
	case n < 1<<20:
		return fmt.Sprintf("%.2fK", f/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.2fM", f/(1<<20))
	}
	return fmt.Sprintf("%.2fG", f/(1<<30))
}

// cmdClient is CLIENT ID|SETNAME|GETNAME|LIST|INFO|KILL|UNBLOCK|REPLY|SETINFO|NO-EVICT|HELP.
func cmdClient(c *client, a []string) bool {
	sub := strings.ToLower(a[1])
	switch sub {
	case "id":
		c.w.integer(c.id)
	case "setname":
		if err := checkClientName(a[2]); err != nil {
			c.w.errorReply(err.Error())
			return false
		}
		c.mu.Lock()
		c.name = a[2]
		c.mu.Unlock()
		c.w.status("OK")
	case "getname":
		c.mu.Lock()
		name := c.name
		c.mu.Unlock()
		if name == "" {
			c.w.null(false)
		} else {
			c.w.bulk(name)
		}
	case "list":
		cmdClientList(c, a)
	case "info":
		c.w.verbatim(c.info())
	case "kill":
		return cmdClientKill(c, a)
	case "unblock":
		cmdClientUnblock(c, a)
	case "reply":
		cmdClientReply(c, a[2])
	case "setinfo", "no-evict", "no-touch":
		c.w.status("OK")
	case "tracking", "caching", "getredir", "trackinginfo":
		// Client-side caching needs invalidation messages for every key a client
		// read, which zlite's keyspaces do not track.
		c.w.errorReply("ERR CLIENT " + strings.ToUpper(sub) + " is not supported by zlite (no client-side caching)")
	case "help":
		c.w.array(1)
		c.w.status("CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are: ID SETNAME GETNAME LIST INFO KILL UNBLOCK REPLY SETINFO")
	}
	return false
}

// replyMode is a connection's CLIENT REPLY state, as Redis's client flags
// CLIENT_REPLY_OFF, CLIENT_REPLY_SKIP and CLIENT_REPLY_SKIP_NEXT: Redis drops
// every reply (errors, QUEUED and EXEC's included) written while off or skip is
// set, and skip lasts one command. The zero value replies to everything.
type replyMode struct {
	off      bool // CLIENT REPLY OFF: nothing until CLIENT REPLY ON or RESET
	skip     bool // the command running follows CLIENT REPLY SKIP
	skipNext bool // CLIENT REPLY SKIP ran: the next command's reply is dropped
}

// next starts a command (or a protocol error's reply) and reports whether its
// reply is to be dropped. The complexity is O(1).
func (m *replyMode) next() bool {
	m.skip, m.skipNext = m.skipNext, false
	return m.off || m.skip
}

// cmdClientReply is CLIENT REPLY ON|OFF|SKIP. OFF takes effect at once (the rest
// of an EXEC that runs it is not sent either), SKIP from the next command on, as
// in Redis.
func cmdClientReply(c *client, mode string) {
	switch strings.ToLower(mode) {
	case "on":
		c.replies.off, c.replies.skip = false, false
		c.w.mute(false)
		c.w.status("OK")
	case "off":
		c.replies.off = true
		c.w.mute(true)
	case "skip":
		c.replies.skipNext = !c.replies.off
	default:
		c.w.errorReply(errSyntax)
	}
}

// resetReplies is RESET's part in CLIENT REPLY: OFF and a SKIP not yet in effect
// end, so that RESET's own reply is sent unless a SKIP before it drops it.
func (c *client) resetReplies() {
	c.replies.off, c.replies.skipNext = false, false
	c.w.mute(c.replies.skip)
}

const errSyntax = "ERR syntax error"

// parseLongLong parses a 64-bit integer as Redis's string2ll: an optional '-', no
// '+', no leading zero, no space.
func parseLongLong(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && strconv.FormatInt(n, 10) == s
}

// clientType checks a client type name of CLIENT LIST TYPE and CLIENT KILL TYPE
// and returns it as kind names it: "normal", "pubsub", or "" for the replication
// types, which no zlite client has; it returns Redis's error for an unknown one.
func clientType(name string) (string, error) {
	switch t := strings.ToLower(name); t {
	case "normal", "pubsub":
		return t, nil
	case "master", "replica", "slave":
		return "", nil
	}
	return "", errors.New("ERR Unknown client type '" + name + "'")
}

// kind is the client's type for CLIENT LIST TYPE and CLIENT KILL TYPE: "pubsub"
// while it has a subscription, as Redis's CLIENT_PUBSUB, else "normal".
func (c *client) kind() string {
	if s := c.sub.Load(); s != nil {
		if ch, p, sh := s.Subscriptions(); ch+p+sh > 0 {
			return "pubsub"
		}
	}
	return "normal"
}

// live returns the connected clients in id order but those killed, whose
// goroutines have yet to end: Redis frees a killed client at once. The complexity
// is O(clients).
func (s *Server) live() []*client {
	return slices.DeleteFunc(s.snapshot(), (*client).isKilled)
}

// cmdClientList is CLIENT LIST [TYPE type | ID id [id ...]]: every client in id
// order, those of a type, or those with the ids given in their order (an id twice
// lists its client twice, an id of no client lists nothing), as in Redis.
// The complexity is O(clients) to list them all, O(ids) otherwise.
func cmdClientList(c *client, a []string) {
	var cs []*client
	switch {
	case len(a) == 2:
		cs = c.srv.live()
	case len(a) == 4 && strings.EqualFold(a[2], "type"):
		t, err := clientType(a[3])
		if err != nil {
			c.w.errorReply(err.Error())
			return
		}
		cs = slices.DeleteFunc(c.srv.live(), func(o *client) bool { return o.kind() != t })
	case len(a) > 3 && strings.EqualFold(a[2], "id"):
		for _, v := range a[3:] {
			id, ok := parseLongLong(v)
			if !ok {
				c.w.errorReply("ERR Invalid client ID")
				return
			}
			if o := c.srv.client(id); o != nil && !o.isKilled() {
				cs = append(cs, o)
			}
		}
	default:
		c.w.errorReply(errSyntax)
		return
	}
	var b strings.Builder
	for _, o := range cs {
		b.WriteString(o.info())
	}
	c.w.verbatim(b.String())
}

// info is the client's line of CLIENT LIST, with Redis's field names.
func (c *client) info() string {
	c.mu.Lock()
	name, resp, cmd, blocked := c.name, c.resp, c.lastCmd, c.waiting
	c.mu.Unlock()
	var sub, psub, ssub int
	if s := c.sub.Load(); s != nil {
		sub, psub, ssub = s.Subscriptions()
	}
	flags := "N"
	switch {
	case c.monitoring.Load():
		flags = "O"
	case blocked:
		flags = "b"
	case sub+psub+ssub > 0:
		flags = "P"
	}
	now := time.Now()
	idle := now.Sub(time.Unix(0, c.last.Load()))
	return fmt.Sprintf("id=%d addr=%s laddr=%s fd=-1 name=%s age=%d idle=%d flags=%s db=%d sub=%d psub=%d ssub=%d multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=16384 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd=%s user=default redir=-1 resp=%d\n",
		c.id, c.nc.RemoteAddr(), c.nc.LocalAddr(), name, int64(now.Sub(c.born).Seconds()), int64(idle.Seconds()), flags, c.db, sub, psub, ssub, cmd, resp)
}

// killFilter is what CLIENT KILL's filters ask for; a client matches when it
// passes every filter given.
type killFilter struct {
	id              int64 // 0: any
	addr, laddr     string
	byAddr, byLaddr bool   // ADDR, LADDR given
	typ             string // TYPE given: "normal", "pubsub", or "" for one no zlite client has
	byType          bool
	skipMe          bool // not the caller
}

// match reports whether client o passes the filters of a CLIENT KILL that self
// runs.
func (f *killFilter) match(self, o *client) bool {
	return (!f.byType || f.typ != "" && o.kind() == f.typ) && (f.id == 0 || o.id == f.id) &&
		(!f.byAddr || o.nc.RemoteAddr().String() == f.addr) &&
		(!f.byLaddr || o.nc.LocalAddr().String() == f.laddr) &&
		!(f.skipMe && o == self)
}

// parseKillFilter parses CLIENT KILL's filters a[2:] (ID, TYPE, ADDR, LADDR, USER,
// SKIPME, each with a value) with Redis's checks, in Redis's order.
func parseKillFilter(a []string) (killFilter, error) {
	f := killFilter{skipMe: true}
	for i := 2; i < len(a); i += 2 {
		if i+1 >= len(a) {
			return f, errors.New(errSyntax)
		}
		switch v := a[i+1]; strings.ToLower(a[i]) {
		case "id":
			n, ok := parseLongLong(v)
			if !ok || n < 1 {
				return f, errors.New("ERR client-id should be greater than 0")
			}
			f.id = n
		case "type":
			t, err := clientType(v)
			if err != nil {
				return f, err
			}
			f.typ, f.byType = t, true // as Redis, the last TYPE counts
		case "addr":
			f.addr, f.byAddr = v, true
		case "laddr":
			f.laddr, f.byLaddr = v, true
		case "user":
			if v != "default" { // zlite's one user, as Redis's without ACLs
				return f, errors.New("ERR No such user '" + v + "'")
			}
		case "skipme":
			switch strings.ToLower(v) {
			case "yes":
				f.skipMe = true
			case "no":
				f.skipMe = false
			default:
				return f, errors.New(errSyntax)
			}
		default:
			return f, errors.New(errSyntax)
		}
	}
	return f, nil
}

// cmdClientKill is CLIENT KILL addr (+OK, or an error when no client has that
// address; the caller may be killed) or CLIENT KILL filter value [filter value ...]
// (the number of clients killed; the caller only with SKIPME no). Other clients
// are closed at once; the caller's connection closes after the reply, as in Redis.
// The complexity is O(clients).
func cmdClientKill(c *client, a []string) bool {
	f := killFilter{addr: a[2], byAddr: true}
	if len(a) > 3 {
		var err error
		if f, err = parseKillFilter(a); err != nil {
			c.w.errorReply(err.Error())
			return false
		}
	}
	killed, self := int64(0), false
	for _, o := range c.srv.live() {
		if !f.match(c, o) {
			continue
		}
		if o == c {
			self = true // closed by the caller's goroutine, after the reply
		} else {
			o.kill()
		}
		killed++
	}
	switch {
	case len(a) > 3:
		c.w.integer(killed)
	case killed == 0:
		c.w.errorReply("ERR No such client")
	default:
		c.w.status("OK")
	}
	return self
}

// cmdClientUnblock is CLIENT UNBLOCK id [TIMEOUT|ERROR]: a client blocked in a
// blocking pop replies as on a timeout, or with an UNBLOCKED error.
func cmdClientUnblock(c *client, a []string) {
	cause := errUnblockTimeout
	if len(a) == 4 {
		switch strings.ToLower(a[3]) {
		case "timeout":
		case "error":
			cause = errUnblockError
		default:
			c.w.errorReply("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
			return
		}
	} else if len(a) > 4 {
		c.w.errorReply("ERR unknown subcommand or wrong number of arguments for '" + trunc(a[1], 128) + "'. Try CLIENT HELP.")
		return
	}
	id, ok := parseLongLong(a[2])
	if !ok {
		c.w.errorReply(zlite.ErrNotInteger.Error())
		return
	}
	if o := c.srv.client(id); o != nil && o.unblock(cause) {
		c.w.integer(1)
		return
	}
	c.w.integer(0)
}

// configParam is a setting CONFIG GET reports. set checks a value as Redis does
// and returns the function that applies it, or the text Redis puts after
// "CONFIG SET failed (...) - "; it is nil for a setting Redis cannot change.
type configParam struct {
	get func(s *Server) string
	set func(v string) (apply func(s *Server), err string)
}

var configParams = map[string]configParam{
	"requirepass": {
		get: func(s *Server) string { return *s.password.Load() },
		set: func(v string) (func(*Server), string) {
			return func(s *Server) { s.password.Store(&v) }, ""
		},
	},
	"maxclients": {
		get: func(s *Server) string { return strconv.FormatInt(s.maxClients.Load(), 10) },
		set: func(v string) (func(*Server), string) {
			n, err := configInt(v, 1, math.MaxUint32)
			return func(s *Server) { s.maxClients.Store(n) }, err
		},
	},
	"proto-max-bulk-len": {
		get: func(s *Server) string { return strconv.FormatInt(s.maxBulk.Load(), 10) },
		set: func(v string) (func(*Server), string) {
			m, ok := parseMemory(v)
			if !ok {
				return nil, "argument must be a memory value"
			}
			n := int64(m) // Redis keeps it in a long long
			if n < 1<<20 {
				return nil, fmt.Sprintf("argument must be between %d and %d inclusive", 1<<20, int64(math.MaxInt64))
			}
			return func(s *Server) { s.maxBulk.Store(n) }, ""
		},
	},
	"notify-keyspace-events": {
		get: func(s *Server) string { return s.DB(0).KeyspaceEvents().String() },
		set: func(v string) (func(*Server), string) {
			ev, err := zlite.ParseKeyspaceEvents(v)
			if err != nil {
				return nil, err.Error()
			}
			return func(s *Server) {
				for _, db := range s.dbs.Load() {
					db.SetKeyspaceEvents(ev)
				}
			}, ""
		},
	},
	"timeout": {
		get: func(s *Server) string { return strconv.FormatInt(int64(time.Duration(s.idle.Load())/time.Second), 10) },
		set: func(v string) (func(*Server), string) {
			n, err := configInt(v, 0, math.MaxInt32)
			return func(s *Server) { s.idle.Store(int64(time.Duration(n) * time.Second)) }, err
		},
	},
	"hash-max-listpack-entries": limitParam(func(l *zlite.EncodingLimits) *int { return &l.Hash.Entries }, false),
	"hash-max-ziplist-entries":  limitParam(func(l *zlite.EncodingLimits) *int { return &l.Hash.Entries }, false),
	"hash-max-listpack-value":   limitParam(func(l *zlite.EncodingLimits) *int { return &l.Hash.Value }, true),
	"hash-max-ziplist-value":    limitParam(func(l *zlite.EncodingLimits) *int { return &l.Hash.Value }, true),
	"zset-max-listpack-entries": limitParam(func(l *zlite.EncodingLimits) *int { return &l.ZSet.Entries }, false),
	"zset-max-ziplist-entries":  limitParam(func(l *zlite.EncodingLimits) *int { return &l.ZSet.Entries }, false),
	"zset-max-listpack-value":   limitParam(func(l *zlite.EncodingLimits) *int { return &l.ZSet.Value }, true),
	"zset-max-ziplist-value":    limitParam(func(l *zlite.EncodingLimits) *int { return &l.ZSet.Value }, true),
	"set-max-intset-entries":    limitParam(func(l *zlite.EncodingLimits) *int { return &l.Set.Ints }, false),
	"set-max-listpack-entries":  limitParam(func(l *zlite.EncodingLimits) *int { return &l.Set.Packed.Entries }, false),
	"set-max-listpack-value":    limitParam(func(l *zlite.EncodingLimits) *int { return &l.Set.Packed.Value }, true),
	"list-max-listpack-size":    listMaxSize,
	"list-max-ziplist-size":     listMaxSize,
	"list-compress-depth":       keptParam("list-compress-depth", 0, 0, math.MaxInt32),
	"busy-reply-threshold":      busyReplyThreshold,
	"lua-time-limit":            busyReplyThreshold, // busy-reply-threshold's old name
	"databases":                 {get: func(*Server) string { return strconv.Itoa(NumDBs) }},
}

// busyReplyThreshold is busy-reply-threshold in milliseconds (see script.go).
var busyReplyThreshold = configParam{
	get: func(s *Server) string { return strconv.FormatInt(s.busyThreshold.Load(), 10) },
	set: func(v string) (func(*Server), string) {
		n, err := configInt(v, 0, math.MaxInt64)
		return func(s *Server) { s.busyThreshold.Store(n) }, err
	},
}

// listMaxSize is list-max-listpack-size (list-max-ziplist-size): the size of
// Redis's quicklist nodes, which zlite's lists do not have.
var listMaxSize = keptParam("list-max-listpack-size", -2, math.MinInt32, math.MaxInt32)

// keptParam is an integer CONFIG parameter between lo and hi that zlite accepts
// and reports but that changes nothing, because it tunes a structure of Redis's
// that zlite does not have; def is Redis's default.
func keptParam(name string, def, lo, hi int64) configParam {
	return configParam{
		get: func(s *Server) string {
			if v, ok := s.kept.Load(name); ok {
				return strconv.FormatInt(v.(int64), 10)
			}
			return strconv.FormatInt(def, 10)
		},
		set: func(v string) (func(*Server), string) {
			n, err := configInt(v, lo, hi)
			return func(s *Server) { s.kept.Store(name, n) }, err
		},
	}
}

// limitParam is a CONFIG parameter of a compact encoding's threshold (a field of
// zlite.EncodingLimits), set in all the keyspaces at once and read from keyspace
// 0; memory marks the byte sizes, which take memory units (64, 1kb) as Redis's
// memory configs do. Redis's range is 0 to LONG_MAX.
func limitParam(field func(*zlite.EncodingLimits) *int, memory bool) configParam {
	return configParam{
		get: func(s *Server) string {
			l := s.DB(0).EncodingLimits()
			return strconv.Itoa(*field(&l))
		},
		set: func(v string) (func(*Server), string) {
			var n int64
			if memory {
				m, ok := parseMemory(v)
				if !ok {
					return nil, "argument must be a memory value"
				}
				if m > math.MaxInt64 {
					return nil, fmt.Sprintf("argument must be between 0 and %d inclusive", int64(math.MaxInt64))
				}
				n = int64(m)
			} else {
				var err string
				if n, err = configInt(v, 0, math.MaxInt64); err != "" {
					return nil, err
				}
			}
			return func(s *Server) {
				for i := range NumDBs {
					db := s.DB(i)
					l := db.EncodingLimits()
					*field(&l) = int(n)
					db.SetEncodingLimits(l)
				}
			}, ""
		},
	}
}

// configInt parses an integer setting between lo and hi as Redis does, with its
// errors.
func configInt(v string, lo, hi int64) (int64, string) {
	n, ok := parseLongLong(v)
	switch {
	case !ok:
		return 0, "argument couldn't be parsed into an integer"
	case n < lo || n > hi:
		return 0, fmt.Sprintf("argument must be between %d and %d inclusive", lo, hi)
	}
	return n, ""
}

// parseMemory parses a memory value as Redis's memtoull: decimal digits (none is
// zero) and an optional unit b, k, kb, m, mb, g or gb in any case (k is 1000, kb
// 1024); the number saturates at 2^64-1 and the product wraps, as in Redis, whose
// range check then judges it.
func parseMemory(v string) (uint64, bool) {
	i := 0
	for i < len(v) && '0' <= v[i] && v[i] <= '9' {
		i++
	}
	var mul uint64
	switch strings.ToLower(v[i:]) {
	case "", "b":
		mul = 1
	case "k":
		mul = 1000
	case "kb":
		mul = 1 << 10
	case "m":
		mul = 1000 * 1000
	case "mb":
		mul = 1 << 20
	case "g":
		mul = 1000 * 1000 * 1000
	case "gb":
		mul = 1 << 30
	default:
		return 0, false
	}
	if i >= 128 { // Redis's buffer for the digits
		return 0, false
	}
	n, err := strconv.ParseUint(v[:i], 10, 64)
	if err != nil && i > 0 {
		n = math.MaxUint64 // out of range: strtoull saturates
	}
	return n * mul, true
}

// validSave reports whether v is a save setting Redis accepts: "", or pairs of
// seconds (at least 1) and changes (at least 0), separated by single spaces.
func validSave(v string) bool {
	if v == "" {
		return true
	}
	f := strings.Split(v, " ")
	if len(f)%2 != 0 {
		return false
	}
	for j, x := range f {
		n, ok := parseStrtoll(x)
		if !ok || (j%2 == 0 && n < 1) || (j%2 == 1 && n < 0) {
			return false
		}
	}
	return true
}

// parseStrtoll parses s as C's strtoll in base 10 that must consume all of s:
// leading white space, an optional sign, digits (the value saturating), and an
// empty string as zero.
func parseStrtoll(s string) (int64, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg, t = t[0] == '-', t[1:]
	}
	if t == "" {
		return 0, s == "" // no digits: strtoll consumes nothing
	}
	var n int64
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return 0, false
		}
		if n < math.MaxInt64/10 || (n == math.MaxInt64/10 && t[i]-'0' <= 7) {
			n = n*10 + int64(t[i]-'0')
		} else {
			n = math.MaxInt64
		}
	}
	if neg {
		n = -n
	}
	return n, true
}

// cmdConfig is CONFIG GET pattern [pattern ...] | SET param value [param value ...] |
// RESETSTAT | HELP, for the settings zlite has.
func cmdConfig(c *client, a []string) bool {
	s := c.srv
	switch sub := strings.ToLower(a[1]); sub {
	case "get":
		configGet(c, a[2:])
	case "set":
		if err := configSet(s, a[2:]); err != "" {
			c.w.errorReply(err)
			return false
		}
		c.w.status("OK")
	case "resetstat":
		s.commands.Store(0)
		s.connections.Store(0)
		s.rejected.Store(0)
		s.errs.reset()
		s.cstats.reset(s.keyspaceCalls())
		c.w.status("OK")
	case "help":
		c.w.array(1)
		c.w.status("CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are: GET <pattern> SET <directive> <value> RESETSTAT")
	}
	return false
}

// configGet replies CONFIG GET's map: each setting named by a pattern, once, in
// the order of the patterns (the settings a glob matches in name order; Redis's
// order is its hash table's). A pattern without * ? or [ names a setting in any
// case and is its key in the reply, as in Redis; a glob matches names without
// regard to case. The complexity is O(patterns × settings).
func configGet(c *client, patterns []string) {
	var keys, names []string
	seen := map[string]bool{}
	add := func(key, name string) {
		if !seen[name] {
			seen[name] = true
			keys, names = append(keys, key), append(names, name)
		}
	}
	for _, p := range patterns {
		if !strings.ContainsAny(p, "*?[") {
			if name := strings.ToLower(p); configParams[name].get != nil {
				add(p, name)
			}
			continue
		}
		var matched []string
		for name := range configParams {
			if ok, _ := path.Match(strings.ToLower(p), name); ok {
				matched = append(matched, name)
			}
		}
		sortStrings(matched)
		for _, name := range matched {
			add(name, name)
		}
	}
	c.w.mapHeader(len(keys))
	for i, k := range keys {
		c.w.bulk(k)
		c.w.bulk(configParams[names[i]].get(c.srv))
	}
}

// ConfigSet applies CONFIG SET param value on s, from the program (a setting of a
// configuration file, say): the same parameters, checks and errors as the command,
// with Redis's text. known is false when the server has no such parameter; the
// error is then Redis's for an unknown option. The complexity is that of the
// command: O(1) for most parameters, O(keyspaces) for those applied to each.
func (s *Server) ConfigSet(param, value string) (known bool, err error) {
	if _, known = configParams[strings.ToLower(param)]; !known {
		return false, errors.New("ERR Unknown option or number of arguments for CONFIG SET - '" + param + "'")
	}
	if e := configSet(s, []string{param, value}); e != "" {
		return true, errors.New(e)
	}
	return true, nil
}

// ConfigGet returns the value CONFIG GET param replies on s, for the program (a
// save schedule that follows CONFIG SET save, say); known is false when the server
// has no such parameter. The complexity is O(1) for most parameters.
func (s *Server) ConfigGet(param string) (value string, known bool) {
	p, known := configParams[strings.ToLower(param)]
	if !known {
		return "", false
	}
	return p.get(s), true
}

// configSet applies CONFIG SET's param value pairs, all of them or none, and
// returns "" or Redis's error: the first unknown, immutable or repeated name, in
// the order given, else the first value Redis would refuse.
// The complexity is O(pairs²) for the repeats (Redis's too).
func configSet(s *Server, pairs []string) string {
	if len(pairs)%2 != 0 {
		return errSyntax
	}
	failed := func(name, why string) string {
		return "ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + why
	}
	names := make([]string, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		name := strings.ToLower(pairs[i])
		p, ok := configParams[name]
		switch {
		case !ok:
			return "ERR Unknown option or number of arguments for CONFIG SET - '" + pairs[i] + "'"
		case p.set == nil:
			return failed(pairs[i], "can't set immutable config")
		case slices.Contains(names, name):
			return failed(pairs[i], "duplicate parameter")
		}
		names = append(names, name)
	}
	applies := make([]func(*Server), len(names))
	for i, name := range names {
		apply, err := configParams[name].set(pairs[2*i+1])
		if err == "" {
			err = persistenceCheck(s, name, pairs[2*i+1])
		}
		if err != "" {
			return failed(name, err)
		}
		if apply == nil { // a persistence setting set to its current value
			apply = func(*Server) {}
		}
		applies[i] = apply
	}
	for _, apply := range applies {
		apply(s)
	}
	return ""
}
