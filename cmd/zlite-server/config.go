package main

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/persist"
)

// config is zlite-server's settings: the defaults, then the configuration file's
// directives, then the command line's flags, each overriding the one before.
type config struct {
	bind       []string // listen addresses without the port; a leading '-' marks one that may be missing
	port       int
	addr       string // -addr: host:port, replacing bind and port when set
	password   string
	maxClients int
	maxBulk    int64
	idle       time.Duration
	busy       time.Duration
	grace      time.Duration
	dir        string // empty: in memory
	appendOnly bool
	fsync      persist.SyncPolicy
	fsyncName  string
	save       []savePoint
	autoPct    int
	autoMin    int64
	logLevel   slog.Level
	logFile    string
	cpuProfile string
	version    bool

	// runtime are the file's other Redis directives, applied as CONFIG SET
	// applies them once the server exists (slowlog-max-len,
	// hash-max-listpack-entries, notify-keyspace-events, ...); those the server
	// has no parameter for, or refuses, are logged as ignored.
	runtime []runtimeSetting
}

// A runtimeSetting is a directive of the configuration file for the server's
// CONFIG SET.
type runtimeSetting struct {
	line        int
	name, value string
}

// savePoint is one condition of the save schedule (Redis's "save <seconds>
// <changes>"): a keyspace is snapshotted once at least changes writes were made
// and seconds seconds passed since its last snapshot.
type savePoint struct {
	seconds int64
	changes uint64
}

// defaultConfig returns Redis's defaults, except that the server listens on
// loopback only and keeps its data in memory unless a dir is given.
func defaultConfig() *config {
	return &config{
		bind:       []string{"127.0.0.1"},
		port:       6379,
		maxClients: 10000,
		maxBulk:    512 << 20,
		busy:       5 * time.Second,
		grace:      10 * time.Second,
		appendOnly: true,
		fsync:      zlite.SyncEverySecond,
		fsyncName:  "everysec",
		save:       []savePoint{{3600, 1}, {300, 100}, {60, 10000}},
		autoPct:    zlite.DefaultAutoSnapshotPercent,
		autoMin:    zlite.DefaultAutoSnapshotMinSize,
		logLevel:   slog.LevelInfo,
	}
}

// A directive is a setting that the configuration file and the command line both
// take under its Redis name ("port 7000", -port 7000).
type directive struct {
	name string
	// multi is set for a directive that takes any number of arguments (save,
	// bind); the others take exactly one.
	multi bool
	set   func(c *config, args []string) error
	usage string
}

// directives are the Redis directives that zlite-server implements.
var directives = []directive{
	{name: "port", usage: "TCP `port` to listen on (6379; 0: any free one)", set: func(c *config, a []string) error {
		n, err := integer(a[0], 0, 65535)
		c.port = int(n)
		return err
	}},
	{name: "bind", multi: true, usage: "`addresses` to listen on, separated by spaces, '-' before one that may be missing (default 127.0.0.1)", set: func(c *config, a []string) error {
		if len(a) > 16 {
			return errTooManyBinds
		}
		if len(a) == 1 && a[0] == "" {
			a = nil
		}
		c.bind = append([]string(nil), a...)
		return nil
	}},
	{name: "requirepass", usage: "`password` clients must AUTH with (empty: none)", set: func(c *config, a []string) error {
		c.password = a[0]
		return nil
	}},
	{name: "maxclients", usage: "maximum `number` of connected clients (10000)", set: func(c *config, a []string) error {
		n, err := integer(a[0], 1, math.MaxUint32)
		c.maxClients = int(n)
		return err
	}},
	{name: "timeout", usage: "close clients idle for longer than `seconds` (or a duration such as 5m; 0: never)", set: func(c *config, a []string) error {
		d, err := duration(a[0], time.Second, math.MaxInt32)
		c.idle = d
		return err
	}},
	{name: "proto-max-bulk-len", usage: "longest bulk string accepted in a request, a `size` (512mb)", set: func(c *config, a []string) error {
		n, err := memory(a[0], 1<<20, math.MaxInt64)
		c.maxBulk = n
		return err
	}},
	{name: "busy-reply-threshold", usage: "`milliseconds` (or a duration) after which a running script makes other commands get BUSY (5000; 0: never)", set: setBusy},
	{name: "lua-time-limit", usage: "`milliseconds`: alias of busy-reply-threshold", set: setBusy},
	{name: "shutdown-timeout", usage: "on SIGTERM, the `seconds` (or a duration) running commands and scripts have to finish before they are stopped (10)", set: func(c *config, a []string) error {
		d, err := duration(a[0], time.Second, math.MaxInt32)
		c.grace = d
		return err
	}},
	{name: "dir", usage: "data `directory`, one subdirectory per keyspace (empty: keep the data in memory only)", set: func(c *config, a []string) error {
		c.dir = a[0]
		return nil
	}},
	{name: "appendonly", usage: "`yes` (a data dir always has a log of every write; no is ignored with a warning)", set: func(c *config, a []string) error {
		b, err := yesNo(a[0])
		c.appendOnly = b
		return err
	}},
	{name: "appendfsync", usage: "`policy` of the log's fsync: always (each write), everysec or no (everysec)", set: func(c *config, a []string) error {
		switch strings.ToLower(a[0]) {
		case "everysec":
			c.fsync = zlite.SyncEverySecond
		case "always":
			c.fsync = zlite.SyncAlways
		case "no":
			c.fsync = zlite.SyncNever
		default:
			return errAppendFsync
		}
		c.fsyncName = strings.ToLower(a[0])
		return nil
	}},
	{name: "save", multi: true, usage: "snapshot `schedule`, \"<seconds> <changes> ...\" (\"3600 1 300 100 60 10000\"; \"\": none)", set: func(c *config, a []string) error {
		pts, err := parseSave(a)
		c.save = pts
		return err
	}},
	{name: "auto-aof-rewrite-percentage", usage: "snapshot when the log outgrew the last snapshot by this `percentage` (100; 0: never)", set: func(c *config, a []string) error {
		n, err := integer(a[0], 0, math.MaxInt32)
		c.autoPct = int(n)
		return err
	}},
	{name: "auto-aof-rewrite-min-size", usage: "... but not before the log holds this `size` (64mb)", set: func(c *config, a []string) error {
		n, err := memory(a[0], 0, math.MaxInt64)
		c.autoMin = n
		return err
	}},
	{name: "loglevel", usage: "`level` of the log: debug, verbose (connection events, as debug), notice or warning (notice)", set: func(c *config, a []string) error {
		switch strings.ToLower(a[0]) {
		case "debug", "verbose":
			c.logLevel = slog.LevelDebug
		case "notice":
			c.logLevel = slog.LevelInfo
		case "warning":
			c.logLevel = slog.LevelWarn
		default:
			return errLogLevel
		}
		return nil
	}},
	{name: "logfile", usage: "append the log to this `file` (empty: standard error)", set: func(c *config, a []string) error {
		c.logFile = a[0]
		return nil
	}},
	{name: "daemonize", usage: "`no`: zlite-server runs in the foreground, under a supervisor", set: func(c *config, a []string) error {
		b, err := yesNo(a[0])
		if err == nil && b {
			err = errors.New("zlite-server does not daemonize: run it under a supervisor (systemd, a container) with daemonize no")
		}
		return err
	}},
	{name: "databases", usage: "`16`: the number of keyspaces", set: func(c *config, a []string) error {
		n, err := integer(a[0], 1, math.MaxInt32)
		if err == nil && n != 16 {
			err = errors.New("zlite-server has exactly 16 databases")
		}
		return err
	}},
}

// refused are Redis directives whose absence would change what clients can do or
// who can do it: ignoring them could open the server, so they fail startup.
var refused = map[string]string{
	"include":        "include is not supported: put the directives in one file",
	"rename-command": "rename-command is not supported",
	"user":           "ACL users are not supported (use requirepass)",
	"aclfile":        "ACL users are not supported (use requirepass)",
	"loadmodule":     "modules are not supported",
	"sentinel":       "sentinel mode is not supported",
}

// ignored are the other directives of Redis 7.0 (src/config.c), which
// zlite-server accepts with a warning: they tune what zlite does not have
// (replication, RDB files, eviction, TLS, ...) or does its own way.
var ignored = strings.Fields(`
acl-pubsub-default acllog-max-len active-defrag-cycle-max active-defrag-cycle-min
active-defrag-ignore-bytes active-defrag-max-scan-fields active-defrag-threshold-lower
active-defrag-threshold-upper active-expire-effort activedefrag activerehashing
always-show-logo aof-disable-auto-gc aof-load-truncated aof-rewrite-incremental-fsync
aof-timestamp-enabled aof-use-rdb-preamble aof_rewrite_cpulist appenddirname
appendfilename bgsave_cpulist bind-source-addr bio_cpulist client-output-buffer-limit
client-query-buffer-limit cluster-allow-pubsubshard-when-down
cluster-allow-reads-when-down cluster-allow-replica-migration cluster-announce-bus-port
cluster-announce-hostname cluster-announce-ip cluster-announce-port
cluster-announce-tls-port cluster-config-file cluster-enabled cluster-link-sendbuf-limit
cluster-migration-barrier cluster-node-timeout cluster-port
cluster-preferred-endpoint-type cluster-replica-no-failover
cluster-replica-validity-factor cluster-require-full-coverage cluster-slave-no-failover
cluster-slave-validity-factor crash-log-enabled crash-memcheck-enabled dbfilename
disable-thp dynamic-hz enable-debug-command enable-module-command
enable-protected-configs hash-max-listpack-entries hash-max-listpack-value
hash-max-ziplist-entries hash-max-ziplist-value hll-sparse-max-bytes hz ignore-warnings
io-threads io-threads-do-reads jemalloc-bg-thread key-load-delay
latency-monitor-threshold latency-tracking latency-tracking-info-percentiles
lazyfree-lazy-eviction lazyfree-lazy-expire lazyfree-lazy-server-del
lazyfree-lazy-user-del lazyfree-lazy-user-flush lfu-decay-time lfu-log-factor
list-compress-depth list-max-listpack-size list-max-ziplist-entries
list-max-ziplist-size list-max-ziplist-value loading-process-events-interval-bytes
lua-replicate-commands masterauth masteruser maxmemory maxmemory-clients
maxmemory-eviction-tenacity maxmemory-policy maxmemory-samples min-replicas-max-lag
min-replicas-to-write min-slaves-max-lag min-slaves-to-write no-appendfsync-on-rewrite
notify-keyspace-events oom-score-adj oom-score-adj-values pidfile proc-title-template
propagation-error-behavior protected-mode rdb-del-sync-files rdb-key-save-delay
rdb-save-incremental-fsync rdbchecksum rdbcompression repl-backlog-size
repl-backlog-ttl repl-disable-tcp-nodelay repl-diskless-load repl-diskless-sync
repl-diskless-sync-delay repl-diskless-sync-max-replicas repl-ping-replica-period
repl-ping-slave-period repl-timeout replica-announce-ip replica-announce-port
replica-announced replica-ignore-disk-write-errors replica-ignore-maxmemory
replica-lazy-flush replica-priority replica-read-only replica-serve-stale-data
replicaof sanitize-dump-payload server_cpulist set-max-intset-entries set-proc-title
shutdown-on-sigint shutdown-on-sigterm slave-announce-ip slave-announce-port
slave-ignore-maxmemory slave-lazy-flush slave-priority slave-read-only
slave-serve-stale-data slaveof slowlog-log-slower-than slowlog-max-len socket-mark-id
stop-writes-on-bgsave-error stream-node-max-bytes stream-node-max-entries supervised
syslog-enabled syslog-facility syslog-ident tcp-backlog tcp-keepalive tls-auth-clients
tls-ca-cert-dir tls-ca-cert-file tls-cert-file tls-ciphers tls-ciphersuites
tls-client-cert-file tls-client-key-file tls-client-key-file-pass tls-cluster
tls-dh-params-file tls-key-file tls-key-file-pass tls-port tls-prefer-server-ciphers
tls-protocols tls-replication tls-session-cache-size tls-session-cache-timeout
tls-session-caching tracking-table-max-keys unixsocket unixsocketperm
use-exit-on-panic watchdog-period zset-max-listpack-entries zset-max-listpack-value
zset-max-ziplist-entries zset-max-ziplist-value`)

// lookupDirective returns the directive named name (lower case).
func lookupDirective(name string) (directive, bool) {
	for _, d := range directives {
		if d.name == name {
			return d, true
		}
	}
	return directive{}, false
}

func setBusy(c *config, a []string) error {
	d, err := duration(a[0], time.Millisecond, math.MaxInt64/int64(time.Millisecond))
	c.busy = d
	return err
}

// Redis's texts for the errors of a configuration (src/config.c).
const (
	errBadDirective = configText("Bad directive or wrong number of arguments")
	errArgCount     = configText("wrong number of arguments")
	errUnbalanced   = configText("Unbalanced quotes in configuration line")
	errTooManyBinds = configText("Too many bind addresses specified.")
	errSave         = configText("Invalid save parameters")
	errInteger      = configText("argument couldn't be parsed into an integer")
	errMem          = configText("argument must be a memory value")
	errYesNo        = configText("argument must be 'yes' or 'no'")
	errAppendFsync  = configText("argument(s) must be one of the following: everysec, always, no")
	errLogLevel     = configText("argument(s) must be one of the following: debug, verbose, notice, warning")
)

// configText is an error whose text is Redis's.
type configText string

func (e configText) Error() string { return string(e) }

// configError is a configuration file error, reported as Redis reports one.
type configError struct {
	line int    // 1-based; 0 when the error is not one line's
	text string // the line, trimmed
	err  error
}

func (e *configError) Error() string {
	var b strings.Builder
	b.WriteString("\n*** FATAL CONFIG FILE ERROR ***\n")
	if e.line > 0 {
		fmt.Fprintf(&b, "Reading the configuration file, at line %d\n>>> '%s'\n", e.line, e.text)
	}
	b.WriteString(e.err.Error())
	return b.String()
}

func (e *configError) Unwrap() error { return e.err }

// loadFile applies the directives of the configuration file at path to c.
func (c *config) loadFile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("can't open config file: %w", err)
	}
	return c.load(string(b))
}

// load applies the directives of a configuration file's text to c: one per line,
// its arguments split as Redis splits them (splitArgs), blank lines and lines
// starting with # skipped, the directive's name case-insensitive.
func (c *config) load(text string) error {
	savesSeen := false
	for i, line := range strings.Split(text, "\n") {
		line = strings.Trim(line, " \t\r\n")
		if line == "" || line[0] == '#' {
			continue
		}
		fail := func(err error) error { return &configError{line: i + 1, text: line, err: err} }
		args, err := splitArgs(line)
		if err != nil {
			return fail(err)
		}
		if len(args) == 0 {
			continue
		}
		name := strings.ToLower(args[0])
		args = args[1:]
		if d, ok := lookupDirective(name); ok {
			switch {
			case !d.multi && len(args) != 1:
				return fail(errArgCount)
			case d.multi && len(args) == 1 && args[0] != "":
				// "save '3600 1 60 100'": one argument holding them all, as Redis
				// takes it.
				if args, err = splitArgs(args[0]); err != nil {
					return fail(err)
				}
			}
			prev := c.save
			if err := d.set(c, args); err != nil {
				return fail(err)
			}
			if name == "save" {
				// As in Redis, the file's first save line replaces the default
				// schedule, the next ones add to it, and save "" empties it.
				if savesSeen && len(c.save) > 0 {
					c.save = slices.Concat(prev, c.save)
				}
				savesSeen = true
			}
			continue
		}
		if why, ok := refused[name]; ok {
			return fail(errors.New(why))
		}
		if len(args) > 0 && containsString(ignored, name) {
			c.runtime = append(c.runtime, runtimeSetting{line: i + 1, name: name, value: strings.Join(args, " ")})
			continue
		}
		return fail(errBadDirective)
	}
	return nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// splitArgs splits a configuration line into arguments as Redis's sdssplitargs
// does: separated by white space; in double quotes with the escapes \n \r \t \b
// \a \xHH and a backslash before any other character standing for it; in single
// quotes with \' only. A closing quote ends the argument and must be followed by
// a space or the end of the line. The error is Redis's text for a line that breaks
// these rules.
func splitArgs(line string) ([]string, error) {
	var args []string
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i == len(line) {
			return args, nil
		}
		var cur []byte
		inDouble, inSingle, done := false, false, false
		for !done {
			switch {
			case inDouble:
				if i == len(line) {
					return nil, errUnbalanced
				}
				switch ch := line[i]; {
				case ch == '\\' && i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					v, _ := strconv.ParseUint(line[i+2:i+4], 16, 8)
					cur = append(cur, byte(v))
					i += 3
				case ch == '\\' && i+1 < len(line):
					i++
					cur = append(cur, unescape(line[i]))
				case ch == '"':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return nil, errUnbalanced
					}
					done = true
				default:
					cur = append(cur, ch)
				}
			case inSingle:
				if i == len(line) {
					return nil, errUnbalanced
				}
				switch ch := line[i]; {
				case ch == '\\' && i+1 < len(line) && line[i+1] == '\'':
					i++
					cur = append(cur, '\'')
				case ch == '\'':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return nil, errUnbalanced
					}
					done = true
				default:
					cur = append(cur, ch)
				}
			default:
				if i == len(line) {
					done = true
					continue
				}
				switch ch := line[i]; ch {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inDouble = true
				case '\'':
					inSingle = true
				default:
					cur = append(cur, ch)
				}
			}
			if i < len(line) {
				i++
			}
		}
		args = append(args, string(cur))
	}
}

// unescape is the byte a backslash and b stand for in double quotes.
func unescape(b byte) byte {
	switch b {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	}
	return b
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}

func isHex(b byte) bool {
	return '0' <= b && b <= '9' || 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F'
}

// integer parses a decimal integer in [lo, hi], with Redis's error texts.
func integer(s string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, errInteger
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("argument must be between %d and %d inclusive", lo, hi)
	}
	return n, nil
}

// memory parses a size as Redis does: digits and an optional unit, b, k (1000),
// kb (1024), m, mb, g or gb, case-insensitive; the result must be in [lo, hi].
func memory(s string, lo, hi int64) (int64, error) {
	digits := strings.TrimLeftFunc(s, func(r rune) bool { return r >= '0' && r <= '9' })
	unit := strings.ToLower(digits)
	digits = s[:len(s)-len(digits)]
	mul := map[string]uint64{"": 1, "b": 1, "k": 1000, "kb": 1024, "m": 1000 * 1000, "mb": 1 << 20, "g": 1000 * 1000 * 1000, "gb": 1 << 30}[unit]
	if mul == 0 || digits == "" {
		return 0, errMem
	}
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || n > math.MaxUint64/mul {
		return 0, errMem
	}
	v := n * mul
	if v > uint64(hi) || int64(v) < lo {
		return 0, fmt.Errorf("argument must be between %d and %d inclusive", lo, hi)
	}
	return int64(v), nil
}

// duration parses a whole number of units (Redis's form: timeout in seconds,
// busy-reply-threshold in milliseconds), at most maxUnits, or a Go duration such as
// "1m30s" or "250ms" (the command line's older form).
func duration(s string, unit time.Duration, maxUnits int64) (time.Duration, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 || n > maxUnits {
			return 0, fmt.Errorf("argument must be between 0 and %d inclusive", maxUnits)
		}
		return time.Duration(n) * unit, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errInteger
	}
	if d < 0 {
		return 0, fmt.Errorf("argument must be between 0 and %d inclusive", maxUnits)
	}
	return d, nil
}

// yesNo parses a Redis boolean.
func yesNo(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "yes":
		return true, nil
	case "no":
		return false, nil
	}
	return false, errYesNo
}

// parseSave parses save's arguments: pairs of seconds (at least 1) and changes (at
// least 0); none, or a single empty one, is no schedule.
func parseSave(a []string) ([]savePoint, error) {
	if len(a) == 1 && a[0] == "" {
		a = nil
	}
	if len(a)%2 != 0 {
		return nil, errSave
	}
	pts := []savePoint{}
	for i := 0; i < len(a); i += 2 {
		sec, err1 := strconv.ParseInt(a[i], 10, 64)
		ch, err2 := strconv.ParseUint(a[i+1], 10, 64)
		if err1 != nil || err2 != nil || sec < 1 {
			return nil, errSave
		}
		pts = append(pts, savePoint{seconds: sec, changes: ch})
	}
	return pts, nil
}
