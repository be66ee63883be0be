// Command zlite-server serves zlite keyspaces over the Redis protocol (RESP2 and
// RESP3), so that redis-cli, redis-benchmark and any Redis client can use them,
// and keeps them on disk when given a data directory.
//
//	zlite-server -dir /var/lib/zlite                  # persistent, on 127.0.0.1:6379
//	zlite-server /etc/zlite.conf --port 6380          # a redis.conf, a flag overriding it
//	go run ./cmd/zlite-server -addr 127.0.0.1:6379    # in memory only
//
// # Settings
//
// Each setting is a Redis directive of the same name, given in a configuration
// file (the one positional argument, in redis.conf's syntax) or as a flag (-port
// 7000 or --port 7000); a flag overrides the file, which overrides the default.
//
//	port N                         TCP port (6379); 0 picks a free one (Redis: no TCP)
//	bind ADDR...                   addresses to listen on (127.0.0.1: loopback only, unlike
//	                               Redis's default); "-ADDR" may be missing, "*" is every
//	                               IPv4 address, "::*" every IPv6 one
//	requirepass PASS               password clients must AUTH with (none)
//	maxclients N                   connected clients at most (10000)
//	timeout SECONDS                close a client idle for longer (0: never)
//	proto-max-bulk-len SIZE        longest bulk string of a request (512mb)
//	busy-reply-threshold MS        after a script ran this long other commands get BUSY
//	                               (5000; 0: never); lua-time-limit is its alias
//	shutdown-timeout SECONDS       on SIGTERM, how long running commands may finish (10)
//	dir PATH                       data directory; empty (the default): in memory only
//	appendonly yes                 a data dir always has a log; no is ignored with a warning
//	appendfsync always|everysec|no when the log is fsynced (everysec; see Data)
//	save "SECONDS CHANGES ..."     snapshot schedule ("3600 1 300 100 60 10000"; "": none)
//	auto-aof-rewrite-percentage N  snapshot when the log outgrew the last snapshot by N % (100;
//	auto-aof-rewrite-min-size SIZE   0: never), once it holds SIZE (64mb)
//	loglevel LEVEL                 debug, verbose (both log connection events), notice, warning
//	logfile PATH                   append the log to a file (empty: standard error)
//	daemonize no                   zlite-server runs in the foreground (yes is an error)
//	databases 16                   the number of keyspaces (any other number is an error)
//
// A duration may also be written as Go writes one (-timeout 5m, -busy-reply-threshold
// 250ms), a SIZE with Redis's units (k = 1000, kb = 1024, m, mb, g, gb). Flags with
// no Redis directive: -addr host:port (replaces bind and port), -v (loglevel debug),
// -cpuprofile FILE (a CPU profile of the whole run, for go tool pprof), -version
// (prints "zlite-server v=<module version or devel> go=<Go version>" and exits).
//
// The configuration file is read as Redis reads redis.conf: one directive per line,
// blank lines and lines starting with # skipped, directive names case-insensitive,
// arguments separated by spaces and quoted as in redis-cli ("a b", 'it\'s',
// "\x41\n"). An unknown directive, a wrong number of arguments or a bad value
// stops the server before it starts, with Redis's report:
//
//	*** FATAL CONFIG FILE ERROR ***
//	Reading the configuration file, at line 2
//	>>> 'appendfsync sometimes'
//	argument(s) must be one of the following: everysec, always, no
//
// Redis 7.0's other directives are applied as CONFIG SET applies them once the
// server exists (slowlog-log-slower-than, slowlog-max-len, notify-keyspace-events,
// the encodings' thresholds such as hash-max-listpack-entries, ...); those the
// server has no parameter for (replication, RDB files, eviction, TLS, ...) or
// refuses are ignored, each with a warning in the log. The exceptions are the
// directives whose absence would change who may do what: include, rename-command,
// user, aclfile, loadmodule and sentinel are errors.
//
// # Data
//
// With a dir, each of the 16 keyspaces is kept in its own subdirectory, db0 to
// db15, by zlite.Open: a snapshot of the keyspace and a log of every write after
// it, fsynced as appendfsync says. always: before the write is acknowledged, so
// that not even a power failure loses an acknowledged write. everysec: written to
// the file before it is acknowledged, so that a crash of the process loses nothing,
// and fsynced every second, so that a power failure loses about the last second.
// no: as everysec, but the system decides when the file reaches the disk.
//
// A snapshot compacts the log. One is taken on the save schedule: for a keyspace,
// once one of the save points holds, at least CHANGES write commands and SECONDS
// seconds since its last snapshot (CONFIG GET save shows the schedule and CONFIG
// SET save replaces it while the server runs); when the log outgrows the auto-aof-rewrite thresholds; and at SIGTERM. Startup loads every
// keyspace: its newest snapshot, then the log after it. Each subdirectory is locked
// while open, so a second zlite-server on the same dir fails at startup, naming the
// directory in use.
//
// SWAPDB outlives the process, as in Redis, whose RDB file holds each database at
// the number it had when saved: the file "keyspaces" in the dir says which
// subdirectory each number holds ("0 db1", "1 db0", ... one line per number; absent
// until the first SWAPDB, meaning db0 to db15 in order), and SWAPDB replaces it
// (a new file written and fsynced, then renamed over the old one) before it swaps
// the keyspaces in memory. So once SWAPDB has replied, a restart, whether after a
// crash or a shutdown, loads each number from the directory the swap gave it, and
// a write acknowledged after the swap is found at the number it was made under. If
// the file cannot be written, SWAPDB fails and swaps nothing. A "keyspaces" file
// that does not name db0 to db15 once each stops the server at startup.
//
// DEBUG RELOAD snapshots each keyspace, closes it and opens its directory again,
// at the number it holds (after SWAPDB 0 1, number 0 is reloaded from db1). It
// takes turns with SWAPDB. Other clients are not held out meanwhile: a write of
// another client that reaches a keyspace while it is closed fails with an error
// (it is not acknowledged, and not applied after the reload); every write
// acknowledged before or during DEBUG RELOAD is in the reloaded keyspace.
//
// # Signals and SHUTDOWN
//
// SIGTERM or SIGINT shuts the server down: it stops accepting, lets each connection
// finish its command (what still runs after shutdown-timeout, such as a script that
// never ends, is stopped), then, when a save schedule is set, snapshots every
// keyspace (as Redis saves on SIGTERM when it has save points; this takes time in
// proportion to the data, and is logged), closes the keyspaces, which makes
// their logs durable, and exits with status 0. A second signal ends the process at
// once; the logs still hold every acknowledged write. SHUTDOWN from a client closes
// the server and the keyspaces the same way; the server snapshots them first for
// SHUTDOWN SAVE.
//
// # Log
//
// Lines are written by log/slog's text handler (logfmt). At startup: "zlite-server
// is starting" (version, go, pid), a warning per ignored directive, with a dir
// "Keyspace loaded" per keyspace that holds keys (db, keys, seconds) and "DB loaded
// from disk" (keys, seconds), "Server initialized" (dir, appendfsync, save), "zlite-server
// listening" per address (addr) and "Ready to accept connections". While running:
// "DB saved on disk" per scheduled snapshot (db, changes, after_seconds, seconds) and
// the server's own lines (connection events at debug level). At shutdown: "Received
// signal, scheduling shutdown" (signal) or "User requested shutdown...", "Saving the
// final snapshot of each keyspace before exiting", "DB saved on disk" per keyspace
// that holds keys (db, keys, changes, seconds) and for all (keyspaces, keys,
// seconds), and "zlite-server is now ready to exit, bye bye".
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/zlite/zlite/server"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	var ce *configError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.As(err, &ce):
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	default:
		fmt.Fprintln(os.Stderr, "zlite-server:", err)
		os.Exit(1)
	}
}

// versionLine is what -version prints.
func versionLine() string {
	v, gov := "devel", runtime.Version()
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		gov = bi.GoVersion
	}
	return fmt.Sprintf("zlite-server v=%s go=%s", v, gov)
}

// newFlagSet returns the command line's flags, each setting its field of c.
func newFlagSet(c *config, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("zlite-server", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: zlite-server [/path/to/zlite.conf] [flags]")
		fs.PrintDefaults()
	}
	fs.StringVar(&c.addr, "addr", "", "address to listen on, host:port (replaces bind and port)")
	for _, d := range directives {
		fs.Func(d.name, d.usage, func(v string) error {
			args := []string{v}
			if d.multi && v != "" {
				var err error
				if args, err = splitArgs(v); err != nil {
					return err
				}
			}
			return d.set(c, args)
		})
	}
	fs.BoolFunc("v", "log connection events (loglevel debug)", func(string) error {
		c.logLevel = slog.LevelDebug
		return nil
	})
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file")
	fs.BoolVar(&c.version, "version", false, "print the version and exit")
	return fs
}

// parseFlags parses args, the configuration file's path before or among the flags.
func parseFlags(fs *flag.FlagSet, args []string) (file string, err error) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		file, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	if rest := fs.Args(); len(rest) > 0 {
		if file != "" {
			return "", fmt.Errorf("unexpected argument %q: one configuration file at most", rest[0])
		}
		file = rest[0]
		if err := fs.Parse(rest[1:]); err != nil {
			return "", err
		}
		if fs.NArg() > 0 {
			return "", fmt.Errorf("unexpected argument %q: one configuration file at most", fs.Arg(0))
		}
	}
	return file, nil
}

// parseArgs returns the settings args give: the defaults, overridden by the
// configuration file if one is named, overridden by the flags.
func parseArgs(args []string, stderr io.Writer) (*config, error) {
	probe := defaultConfig()
	file, err := parseFlags(newFlagSet(probe, stderr), args)
	if err != nil || probe.version {
		return probe, err
	}
	c := defaultConfig()
	if file != "" {
		if err := c.loadFile(file); err != nil {
			return nil, err
		}
	}
	// The flags parsed above without error: they do again, over the file's settings.
	if _, err := parseFlags(newFlagSet(c, io.Discard), args); err != nil {
		return nil, err
	}
	return c, nil
}

// listenAddr is one address to listen on.
type listenAddr struct {
	addr     string
	optional bool // bind's "-addr": skipped with a warning if unavailable
}

// listenAddrs returns the addresses c says to listen on.
func (c *config) listenAddrs() []listenAddr {
	if c.addr != "" {
		return []listenAddr{{addr: c.addr}}
	}
	var as []listenAddr
	for _, b := range c.bind {
		host, optional := strings.CutPrefix(b, "-")
		switch host {
		case "*":
			host = "0.0.0.0"
		case "::*":
			host = "::"
		}
		as = append(as, listenAddr{addr: net.JoinHostPort(host, strconv.Itoa(c.port)), optional: optional})
	}
	return as
}

// listen opens c's listeners.
func listen(c *config, log *slog.Logger) ([]net.Listener, error) {
	var ls []net.Listener
	for _, a := range c.listenAddrs() {
		l, err := net.Listen("tcp", a.addr)
		if err != nil && a.optional {
			log.Warn("Could not listen on an optional bind address", "addr", a.addr, "err", err)
			continue
		}
		if err != nil {
			for _, l := range ls {
				l.Close()
			}
			return nil, err
		}
		ls = append(ls, l)
	}
	if len(ls) == 0 {
		return nil, errors.New("no address to listen on (bind is empty or none is available)")
	}
	return ls, nil
}

func saveString(pts []savePoint) string {
	var b strings.Builder
	for i, p := range pts {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d %d", p.seconds, p.changes)
	}
	return b.String()
}

// run starts zlite-server with args, serves until a signal or SHUTDOWN and shuts
// down. -version writes to stdout, the log goes to stderr unless logfile is set.
func run(args []string, stdout, stderr io.Writer) error {
	c, err := parseArgs(args, stderr)
	if err != nil {
		return err
	}
	if c.version {
		fmt.Fprintln(stdout, versionLine())
		return nil
	}
	logOut := stderr
	if c.logFile != "" {
		f, err := os.OpenFile(c.logFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("can't open the log file: %w", err)
		}
		defer f.Close()
		logOut = f
	}
	if c.cpuProfile != "" {
		f, err := os.Create(c.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	log := slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: c.logLevel}))
	v := strings.Fields(versionLine())
	log.Info("zlite-server is starting", "version", strings.TrimPrefix(v[1], "v="), "go", strings.TrimPrefix(v[2], "go="), "pid", os.Getpid())
	if c.dir != "" && !c.appendOnly {
		log.Warn("appendonly no is ignored: with a dir, every write is logged")
	}

	ls, err := listen(c, log)
	if err != nil {
		return err
	}
	opts := []server.Option{server.WithPassword(c.password), server.WithMaxClients(c.maxClients),
		server.WithProtoMaxBulkLen(c.maxBulk), server.WithIdleTimeout(c.idle), server.WithLogger(log),
		server.WithBusyReplyThreshold(c.busy)}
	var spaces []*keyspace
	if c.dir != "" {
		var lay *layout
		if spaces, lay, err = openKeyspaces(c, log, time.Now); err != nil {
			for _, l := range ls {
				l.Close()
			}
			return err
		}
		for i, ks := range spaces {
			opts = append(opts, server.WithDB(i, ks.current()))
		}
		opts = append(opts, server.WithReopen(reopener(spaces, c, log, time.Now)), server.WithSwapHandler(func(i, j int) error {
			if err := lay.swap(i, j); err != nil {
				log.Error("SWAPDB failed: the new layout of the keyspaces could not be saved", "db1", i, "db2", j, "err", err)
				return err
			}
			return nil
		}))
	}
	shutdown := make(chan struct{})
	opts = append(opts, server.WithShutdownHandler(func() { close(shutdown) }))
	srv := server.New(opts...)
	for _, r := range c.runtime {
		switch known, err := srv.ConfigSet(r.name, r.value); {
		case !known:
			log.Warn("Ignoring a Redis directive that zlite-server does not implement", "directive", fmt.Sprintf("line %d: %s", r.line, r.name))
		case err != nil:
			log.Warn("Ignoring a Redis directive that zlite-server cannot apply", "directive", fmt.Sprintf("line %d: %s", r.line, r.name), "reason", strings.TrimPrefix(err.Error(), "ERR "))
		}
	}
	dir, saves := c.dir, saveString(c.save)
	if dir == "" {
		dir, saves = "(none: in memory)", ""
	}
	log.Info("Server initialized", "dir", dir, "appendfsync", c.fsyncName, "save", saves)

	// The schedule lives in the server's CONFIG save, so that CONFIG GET shows it
	// and CONFIG SET changes it.
	if len(spaces) > 0 {
		if _, err := srv.ConfigSet("save", saves); err != nil {
			return err
		}
	}
	points := func() []savePoint {
		v, _ := srv.ConfigGet("save")
		pts, _ := parseSave(strings.Fields(v))
		return pts
	}
	schedCtx, stopSchedule := context.WithCancel(context.Background())
	var schedWG sync.WaitGroup
	if len(spaces) > 0 {
		s := &schedule{points: points, spaces: spaces, log: log, now: time.Now}
		schedWG.Go(func() { s.run(schedCtx) })
	}
	// finish stops the schedule, saves if asked and closes the keyspaces.
	finish := func(save bool) error {
		stopSchedule()
		schedWG.Wait()
		if len(spaces) == 0 {
			return nil
		}
		if save && len(points()) > 0 {
			saveAll(spaces, log, time.Now)
		}
		return closeKeyspaces(spaces, log)
	}

	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, syscall.SIGTERM, os.Interrupt)
	defer signal.Stop(sigc)
	errc := make(chan error, len(ls))
	for _, l := range ls {
		go func() { errc <- srv.Serve(l) }()
		log.Info("zlite-server listening", "addr", l.Addr().String())
	}
	log.Info("Ready to accept connections")
	// waitServe waits for the Serve calls still running.
	waitServe := func(n int) {
		for range n {
			<-errc
		}
	}
	// shutdownCommand ends the run after SHUTDOWN closed the server, n Serve calls
	// still running.
	shutdownCommand := func(n int) error {
		<-shutdown
		waitServe(n)
		err := finish(false)
		log.Info("zlite-server is now ready to exit, bye bye")
		return err
	}
	select {
	case err := <-errc:
		if errors.Is(err, server.ErrServerClosed) { // only SHUTDOWN closes it here
			return shutdownCommand(len(ls) - 1)
		}
		log.Error("Serving failed", "err", err)
		_ = srv.Close()
		waitServe(len(ls) - 1)
		if ferr := finish(false); ferr != nil {
			log.Error("Closing the keyspaces failed", "err", ferr)
		}
		return err
	case <-shutdown:
		return shutdownCommand(len(ls))
	case sig := <-sigc:
		// A second SIGTERM or SIGINT now ends the process at once.
		signal.Stop(sigc)
		log.Info("Received signal, scheduling shutdown", "signal", sig.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.grace)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		log.Warn("Commands still running at the shutdown timeout were stopped", "timeout", c.grace)
	}
	waitServe(len(ls))
	err = finish(true)
	log.Info("zlite-server is now ready to exit, bye bye")
	return err
}
