// Command zlite-server serves zlite keyspaces over the Redis protocol (RESP2 and
// RESP3), so that redis-cli, redis-benchmark and any Redis client can use them.
//
//	go run ./cmd/zlite-server -addr 127.0.0.1:6379
//
// It listens on loopback only unless -addr says otherwise. Flags (Redis's config
// names where Redis has one): -addr, -requirepass, -maxclients, -proto-max-bulk-len,
// -timeout (idle client timeout), -busy-reply-threshold (lua-time-limit), -v (debug logs: one line per connection event),
// -cpuprofile (write a CPU profile of the whole run to a file, for go tool pprof).
// SIGTERM or SIGINT shuts it down gracefully: it stops accepting, lets each
// connection finish its command (what still runs after -shutdown-timeout, 10s by
// default, such as a script that never ends, is stopped), and exits; a second signal ends the process at once. SHUTDOWN does the
// same from a client.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/zlite/zlite/server"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "zlite-server:", err)
		os.Exit(1)
	}
}

// run parses args, serves until SIGTERM/SIGINT and shuts down.
func run(args []string, stderr *os.File) error {
	fs := flag.NewFlagSet("zlite-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:6379", "address to listen on (loopback by default)")
	pass := fs.String("requirepass", "", "password clients must AUTH with (empty: none)")
	maxClients := fs.Int("maxclients", 10000, "maximum number of connected clients")
	maxBulk := fs.Int64("proto-max-bulk-len", 512<<20, "longest bulk string accepted in a request, in bytes")
	idle := fs.Duration("timeout", 0, "close clients idle for longer (0: never)")
	grace := fs.Duration("shutdown-timeout", 10*time.Second, "on SIGTERM, how long running commands and scripts may finish before they are stopped")
	busy := fs.Duration("busy-reply-threshold", 5*time.Second, "after a script ran this long, other commands get BUSY (lua-time-limit; 0: never)")
	verbose := fs.Bool("v", false, "log connection events (debug level)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file (empty: none)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	shutdown := make(chan struct{})
	srv := server.New(server.WithPassword(*pass), server.WithMaxClients(*maxClients),
		server.WithProtoMaxBulkLen(*maxBulk), server.WithIdleTimeout(*idle), server.WithLogger(log),
		server.WithBusyReplyThreshold(*busy), server.WithShutdownHandler(func() { close(shutdown) }))
	log.Info("zlite-server listening", "addr", l.Addr().String())

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-shutdown: // SHUTDOWN closed the server
		<-errc
		log.Info("zlite-server shut down by SHUTDOWN")
		return nil
	case <-ctx.Done():
	}
	// A second SIGTERM or SIGINT now ends the process at once.
	stop()
	log.Info("zlite-server shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), *grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("zlite-server: commands still running at the shutdown timeout were stopped", "timeout", *grace)
	}
	<-errc
	return nil
}
