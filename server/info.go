package server

import (
	"fmt"
	"os"
	"path"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/zlite/zlite"
)

// infoSections are INFO's sections in Redis's order; "default" and "all" print them all.
var infoSections = []string{"server", "clients", "memory", "stats", "keyspace"}

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
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		b.WriteString("# Memory\r\n")
		line("used_memory", m.HeapAlloc)
		line("used_memory_human", human(m.HeapAlloc))
		line("used_memory_rss", m.Sys)
		line("used_memory_rss_human", human(m.Sys))
		line("maxmemory", 0)
		line("maxmemory_policy", "noeviction")
	case "stats":
		b.WriteString("# Stats\r\n")
		line("total_connections_received", s.connections.Load())
		line("total_commands_processed", s.commands.Load())
		line("rejected_connections", s.rejected.Load())
		var expired uint64
		for i := range NumDBs {
			_ = s.DB(i).View(func(tx *zlite.Tx) error { _, e := zlite.ExpiryCounts(tx); expired += e; return nil })
		}
		line("expired_keys", int64(expired))
	case "commandstats":
		// Summed over the keyspaces; zlite.DB.Stats visits every key, so this
		// section (not in INFO's default) costs O(keys).
		calls := map[string]uint64{}
		for i := range NumDBs {
			for name, cs := range s.DB(i).Stats().Command {
				calls[name] += cs.Calls
			}
		}
		b.WriteString("# Commandstats\r\n")
		names := make([]string, 0, len(calls))
		for n := range calls {
			names = append(names, n)
		}
		sortStrings(names)
		for _, n := range names {
			fmt.Fprintf(b, "cmdstat_%s:calls=%d,usec=0,usec_per_call=0.00,rejected_calls=0,failed_calls=0\r\n", n, calls[n])
		}
	case "keyspace":
		b.WriteString("# Keyspace\r\n")
		for i := range NumDBs {
			var n, expires int64
			_ = s.DB(i).View(func(tx *zlite.Tx) error { // not counted as a DBSIZE
				n, _ = tx.DBSize()
				expires, _ = zlite.ExpiryCounts(tx)
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

// cmdClient is CLIENT ID|SETNAME|GETNAME|LIST|INFO|KILL|UNBLOCK|SETINFO|NO-EVICT|HELP.
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
		var b strings.Builder
		for _, o := range c.srv.snapshot() {
			b.WriteString(o.info())
		}
		c.w.verbatim(b.String())
	case "info":
		c.w.verbatim(c.info())
	case "kill":
		return cmdClientKill(c, a)
	case "unblock":
		cmdClientUnblock(c, a)
	case "setinfo", "no-evict", "no-touch", "reply":
		c.w.status("OK")
	case "help":
		c.w.array(1)
		c.w.status("CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are: ID SETNAME GETNAME LIST INFO KILL UNBLOCK SETINFO")
	}
	return false
}

// info is the client's line of CLIENT LIST, with Redis's field names.
func (c *client) info() string {
	c.mu.Lock()
	name, resp, cmd, blocked := c.name, c.resp, c.lastCmd, c.waiting
	c.mu.Unlock()
	flags := "N"
	if blocked {
		flags = "b"
	}
	now := time.Now()
	idle := now.Sub(time.Unix(0, c.last.Load()))
	return fmt.Sprintf("id=%d addr=%s laddr=%s fd=-1 name=%s age=%d idle=%d flags=%s db=%d sub=0 psub=0 ssub=0 multi=-1 qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=16384 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd=%s user=default redir=-1 resp=%d\n",
		c.id, c.nc.RemoteAddr(), c.nc.LocalAddr(), name, int64(now.Sub(c.born).Seconds()), int64(idle.Seconds()), flags, c.db, cmd, resp)
}

// cmdClientKill is CLIENT KILL addr, or CLIENT KILL [ID id] [ADDR addr] [SKIPME yes|no].
func cmdClientKill(c *client, a []string) bool {
	if len(a) == 3 {
		for _, o := range c.srv.snapshot() {
			if o.nc.RemoteAddr().String() == a[2] {
				o.kill()
				c.w.status("OK")
				return o == c
			}
		}
		c.w.errorReply("ERR No such client")
		return false
	}
	var id int64 = -1
	addr, skipMe := "", true
	for i := 2; i < len(a); i += 2 {
		if i+1 >= len(a) {
			c.w.errorReply("ERR syntax error")
			return false
		}
		switch v := a[i+1]; strings.ToLower(a[i]) {
		case "id":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				c.w.errorReply("ERR client-id should be greater than 0")
				return false
			}
			id = n
		case "addr":
			addr = v
		case "skipme":
			switch strings.ToLower(v) {
			case "yes":
				skipMe = true
			case "no":
				skipMe = false
			default:
				c.w.errorReply("ERR syntax error")
				return false
			}
		default:
			c.w.errorReply("ERR syntax error")
			return false
		}
	}
	killed, self := int64(0), false
	for _, o := range c.srv.snapshot() {
		if (id != -1 && o.id != id) || (addr != "" && o.nc.RemoteAddr().String() != addr) || (skipMe && o == c) {
			continue
		}
		o.kill()
		killed++
		self = self || o == c
	}
	c.w.integer(killed)
	return self
}

// cmdClientUnblock is CLIENT UNBLOCK id [TIMEOUT|ERROR]: a client blocked in a
// blocking pop replies as on a timeout, or with an UNBLOCKED error.
func cmdClientUnblock(c *client, a []string) {
	id, err := strconv.ParseInt(a[2], 10, 64)
	if err != nil {
		c.w.errorReply(zlite.ErrNotInteger.Error())
		return
	}
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
		c.w.errorReply("ERR syntax error")
		return
	}
	if o := c.srv.client(id); o != nil && o.unblock(cause) {
		c.w.integer(1)
		return
	}
	c.w.integer(0)
}

// configParams are the settings CONFIG GET reports; set is nil for read-only ones.
type configParam struct {
	get func(s *Server) string
	set func(s *Server, v string) error
}

var configParams = map[string]configParam{
	"requirepass": {
		get: func(s *Server) string { return *s.password.Load() },
		set: func(s *Server, v string) error { s.password.Store(&v); return nil },
	},
	"maxclients": {
		get: func(s *Server) string { return strconv.FormatInt(s.maxClients.Load(), 10) },
		set: func(s *Server, v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 {
				return fmt.Errorf("argument must be between 1 and %d inclusive", int64(1)<<31-1)
			}
			s.maxClients.Store(n)
			return nil
		},
	},
	"proto-max-bulk-len": {
		get: func(s *Server) string { return strconv.FormatInt(s.maxBulk.Load(), 10) },
		set: func(s *Server, v string) error {
			n, err := parseMemory(v)
			if err != nil || n < 1024*1024 {
				return fmt.Errorf("argument must be a memory value")
			}
			s.maxBulk.Store(n)
			return nil
		},
	},
	"timeout": {
		get: func(s *Server) string { return strconv.FormatInt(int64(time.Duration(s.idle.Load())/time.Second), 10) },
		set: func(s *Server, v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return fmt.Errorf("argument must be between 0 and %d inclusive", int64(1)<<31-1)
			}
			s.idle.Store(int64(time.Duration(n) * time.Second))
			return nil
		},
	},
	"databases":  {get: func(*Server) string { return strconv.Itoa(NumDBs) }},
	"save":       {get: func(*Server) string { return "" }},
	"appendonly": {get: func(*Server) string { return "no" }},
}

// parseMemory parses a memory value as Redis's config does: a number with an
// optional k/kb/m/mb/g/gb unit.
func parseMemory(v string) (int64, error) {
	l := strings.ToLower(v)
	mul := int64(1)
	for _, u := range []struct {
		suffix string
		mul    int64
	}{{"kb", 1024}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1000}, {"m", 1000 * 1000}, {"g", 1000 * 1000 * 1000}, {"b", 1}} {
		if strings.HasSuffix(l, u.suffix) {
			l, mul = strings.TrimSuffix(l, u.suffix), u.mul
			break
		}
	}
	n, err := strconv.ParseInt(l, 10, 64)
	return n * mul, err
}

// cmdConfig is CONFIG GET pattern [pattern ...] | SET param value [param value ...] |
// RESETSTAT | HELP, for the settings zlite has.
func cmdConfig(c *client, a []string) bool {
	s := c.srv
	switch sub := strings.ToLower(a[1]); sub {
	case "get":
		var keys []string
		for name := range configParams {
			for _, p := range a[2:] {
				if ok, _ := path.Match(strings.ToLower(p), name); ok {
					keys = append(keys, name)
					break
				}
			}
		}
		sortStrings(keys)
		c.w.mapHeader(len(keys))
		for _, k := range keys {
			c.w.bulk(k)
			c.w.bulk(configParams[k].get(s))
		}
	case "set":
		if len(a)%2 != 0 {
			c.w.errorReply(arityError("config|set").Error())
			return false
		}
		for i := 2; i < len(a); i += 2 {
			p, ok := configParams[strings.ToLower(a[i])]
			if !ok {
				c.w.errorReply("ERR Unknown option or number of arguments for CONFIG SET - '" + a[i] + "'")
				return false
			}
			if p.set == nil {
				c.w.errorReply("ERR CONFIG SET failed (possibly related to argument '" + a[i] + "') - can't set immutable config")
				return false
			}
		}
		for i := 2; i < len(a); i += 2 {
			if err := configParams[strings.ToLower(a[i])].set(s, a[i+1]); err != nil {
				c.w.errorReply("ERR CONFIG SET failed (possibly related to argument '" + a[i] + "') - " + err.Error())
				return false
			}
		}
		c.w.status("OK")
	case "resetstat":
		s.commands.Store(0)
		s.connections.Store(0)
		s.rejected.Store(0)
		c.w.status("OK")
	case "help":
		c.w.array(1)
		c.w.status("CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are: GET <pattern> SET <directive> <value> RESETSTAT")
	}
	return false
}
