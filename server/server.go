package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zlite/zlite"

	"github.com/zlite/zlite/internal/serverapi"
	"github.com/zlite/zlite/pubsub"
)

// NumDBs is the number of keyspaces a Server holds, Redis's default "databases".
const NumDBs = 16

// Version is the Redis version the server reports (INFO redis_version, HELLO): zlite
// follows Redis 7.2's replies where 7.2 changed them.
const Version = "7.2.0"

// Option configures a [Server] at [New].
type Option func(*Server)

// WithDB makes db keyspace number i (0 to 15) instead of a new empty one.
func WithDB(i int, db *zlite.DB) Option {
	return func(s *Server) {
		if i >= 0 && i < NumDBs {
			dbs := *s.dbs.Load()
			dbs[i] = db
			s.dbs.Store(&dbs)
		}
	}
}

// WithPassword sets requirepass: clients must AUTH (or HELLO ... AUTH) with it
// before any other command. Empty means no password (the default).
func WithPassword(p string) Option { return func(s *Server) { s.password.Store(&p) } }

// WithMaxClients sets maxclients (default 10000): a connection beyond it gets
// "-ERR max number of clients reached" and is closed.
func WithMaxClients(n int) Option { return func(s *Server) { s.maxClients.Store(int64(n)) } }

// WithProtoMaxBulkLen sets proto-max-bulk-len (default 512 MiB): a longer bulk
// string in a request is a protocol error.
func WithProtoMaxBulkLen(n int64) Option { return func(s *Server) { s.maxBulk.Store(n) } }

// WithIdleTimeout sets Redis's "timeout": a client idle for longer (blocked clients
// excepted) is closed. Zero (the default) means never.
func WithIdleTimeout(d time.Duration) Option {
	return func(s *Server) { s.idle.Store(int64(d)) }
}

// WithLogger sets the logger for connection events (at debug level) and errors.
func WithLogger(l *slog.Logger) Option { return func(s *Server) { s.log = l } }

// WithBusyReplyThreshold sets busy-reply-threshold (Redis's lua-time-limit, 5s by
// default): once a script has run longer, other commands get Redis's BUSY error
// until it ends or SCRIPT KILL, FUNCTION KILL or SHUTDOWN NOSAVE stops it. Zero
// turns busy mode off (scripts then run to their end, holding their keyspace).
func WithBusyReplyThreshold(d time.Duration) Option {
	return func(s *Server) { s.busyThreshold.Store(d.Milliseconds()) }
}

// WithShutdownHandler sets what SHUTDOWN does after it has closed the server
// (cmd/zlite-server exits); without one, SHUTDOWN only closes it.
func WithShutdownHandler(f func()) Option { return func(s *Server) { s.onShutdown = f } }

// Server serves the Redis protocol over [zlite.DB] keyspaces. It is safe for
// concurrent use; each connection is served by its own goroutine.
type Server struct {
	// dbs is the keyspaces by number; SWAPDB stores a new array (under swapmu), so a
	// command reads its keyspace with one load of a pointer no write contends on.
	dbs    atomic.Pointer[[NumDBs]*zlite.DB]
	swapmu sync.Mutex

	password   atomic.Pointer[string]
	maxClients atomic.Int64
	maxBulk    atomic.Int64
	idle       atomic.Int64 // time.Duration

	log     *slog.Logger
	started time.Time
	scripts scripts
	// busyThreshold is busy-reply-threshold (lua-time-limit) in milliseconds: a
	// script running longer puts the server in busy mode (see script.go); 0 never.
	busyThreshold atomic.Int64
	scriptMemory  atomic.Int64 // how much one script may grow the heap (scriptMemoryLimit)
	// kept is the settings CONFIG SET stores and CONFIG GET reports that change
	// nothing in zlite (see keptParam), by name.
	kept       sync.Map
	onShutdown func()       // called after SHUTDOWN closed the server
	errs       errorStats   // INFO errorstats and total_error_replies
	cstats     commandStats // INFO commandstats
	replID     string       // INFO's master_replid, drawn at New
	// hub is the Pub/Sub of every connection: that of the keyspace at 0 when the
	// server was made (SWAPDB does not move it).
	hub *pubsub.Hub

	mu        sync.Mutex
	clients   map[int64]*client
	listeners map[net.Listener]struct{}
	closed    bool
	wg        sync.WaitGroup // one per connection goroutine

	mon    monitors  // MONITOR's connections (monitor.go)
	slow   slowlog   // SLOWLOG (slowlog.go)
	saves  saveState // SAVE, BGSAVE, LASTSAVE (persistence.go)
	reopen func(i int, db *zlite.DB) (*zlite.DB, error)
	// clock is the server's time for MONITOR, SLOWLOG and the saves' times; nil
	// is time.Now (tests set it).
	clock        func() time.Time
	dirty        atomic.Int64  // write commands run, for rdb_changes_since_last_save
	memPeak      atomic.Uint64 // used_memory_peak
	monLimit     int           // a monitor's limit if not monitorLimit (tests)
	memStartup   uint64        // the heap at New, MEMORY STATS's startup.allocated
	activeExpire atomic.Bool   // DEBUG SET-ACTIVE-EXPIRE, kept
	closing      chan struct{} // closed by Close and Shutdown (DEBUG SLEEP ends)
	closeOnce    sync.Once

	nextID      atomic.Int64
	blocked     atomic.Int64
	connections atomic.Int64 // total_connections_received
	commands    atomic.Int64 // total_commands_processed
	rejected    atomic.Int64 // rejected_connections
}

// New returns a server over 16 keyspaces, new empty ones unless given by [WithDB],
// with Redis's defaults for the settings opts leave alone. It starts nothing: see
// [Server.Serve], [Server.ServeConn] and [Server.Dialer].
func New(opts ...Option) *Server {
	s := &Server{
		clients:   make(map[int64]*client),
		listeners: make(map[net.Listener]struct{}),
		started:   time.Now(),
		log:       slog.New(slog.DiscardHandler),
		replID:    randomHex(40),
	}
	empty := ""
	s.password.Store(&empty)
	s.maxClients.Store(10000)
	s.maxBulk.Store(512 << 20)
	s.busyThreshold.Store(5000)
	s.scriptMemory.Store(scriptMemoryLimit)
	s.slow.slower.Store(10000)
	s.slow.maxLen.Store(128)
	s.activeExpire.Store(true)
	s.closing = make(chan struct{})
	s.saves.lastSave, s.saves.lastOK, s.saves.lastAOFOK = s.started, true, true
	s.saves.lastSec, s.saves.lastAOF = -1, -1
	m, _ := s.memSample()
	s.memStartup = m.HeapAlloc
	s.dbs.Store(new([NumDBs]*zlite.DB))
	for _, o := range opts {
		o(s)
	}
	dbs := *s.dbs.Load()
	for i := range dbs {
		if dbs[i] == nil {
			dbs[i] = zlite.New()
		}
	}
	s.dbs.Store(&dbs)
	s.hub = dbs[0].PubSub()
	for i, db := range dbs {
		db.SetEventHub(s.hub, i) // keyspace events: every DB into the one hub, by number
	}
	return s
}

// DB returns keyspace number i (0 to 15), as SWAPDB last left it. The complexity
// is O(1).
func (s *Server) DB(i int) *zlite.DB { return s.dbs.Load()[i] }

// ErrServerClosed is returned by [Server.Serve] after [Server.Close] or
// [Server.Shutdown].
var ErrServerClosed = errors.New("server: closed")

// hooks is what the server needs of a keyspace beyond zlite's public API: reply
// shapes, the pipeline, blocking notices and the expiry counts.
var hooks = serverapi.Get[zlite.DB, zlite.Tx, zlite.Command]()

// Serve accepts connections on l and serves each on its own goroutine until l
// fails or the server is closed; it then returns the error (ErrServerClosed after
// Close). Serve closes l.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		l.Close()
		return ErrServerClosed
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
		l.Close()
	}()
	for {
		c, err := l.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			return err
		}
		s.ServeConn(c)
	}
}

// ServeConn serves one connection on a new goroutine and returns at once; the
// connection is closed when the client quits or disconnects, or the server closes.
// Beyond maxclients it replies Redis's error and closes the connection. The
// complexity is O(1).
func (s *Server) ServeConn(nc net.Conn) {
	c := s.register(nc, false)
	if c == nil {
		return
	}
	go func() {
		defer s.wg.Done()
		c.serve()
		s.unregister(c)
	}()
}

// register adds a client for nc, or refuses it (closed server, maxclients) and
// returns nil. A client served by its own goroutine is counted in s.wg.
func (s *Server) register(nc net.Conn, inline bool) *client {
	s.connections.Add(1)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		nc.Close()
		return nil
	}
	if int64(len(s.clients)) >= s.maxClients.Load() {
		s.mu.Unlock()
		s.rejected.Add(1)
		_, _ = io.WriteString(nc, "-ERR max number of clients reached\r\n")
		nc.Close()
		return nil
	}
	c := newClient(s, nc)
	c.inline = inline
	s.clients[c.id] = c
	if !inline {
		s.wg.Add(1)
	}
	s.mu.Unlock()
	return c
}

func (s *Server) unregister(c *client) {
	s.mu.Lock()
	delete(s.clients, c.id)
	s.mu.Unlock()
}

// Close closes the listeners and every connection at once (blocked commands are
// cancelled; their elements stay in the keyspace) and waits for the connection
// goroutines to end. The keyspaces stay usable. The complexity is O(connections).
func (s *Server) Close() error {
	s.closeOnce.Do(func() { close(s.closing) })
	s.scripts.stopAll()
	s.mu.Lock()
	s.closed = true
	for l := range s.listeners {
		l.Close()
	}
	for _, c := range s.clients {
		c.kill()
	}
	s.mu.Unlock()
	s.wg.Wait()
	s.saves.wg.Wait()
	return nil
}

// Shutdown stops accepting connections, lets every connection finish the command
// it is running (a blocked command is cancelled) and closes it, or gives up and
// closes everything when ctx is done, returning ctx.Err().
func (s *Server) Shutdown(ctx context.Context) error {
	s.closeOnce.Do(func() { close(s.closing) })
	s.mu.Lock()
	s.closed = true
	for l := range s.listeners {
		l.Close()
	}
	for _, c := range s.clients {
		c.stop()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); s.saves.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		_ = s.Close()
		return ctx.Err()
	}
}

// cmdShutdown is SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]: the server closes
// every connection (the caller's without a reply, as in Redis) and then calls the
// handler of [WithShutdownHandler]. While a script is past busy-reply-threshold
// only SHUTDOWN NOSAVE is allowed; it stops the script whether or not it wrote.
// SAVE (or neither SAVE nor NOSAVE with save points set, CONFIG SET save)
// snapshots every persistent keyspace first; a failed snapshot fails SHUTDOWN
// unless FORCE is given, as in Redis.
func cmdShutdown(c *client, a []string) bool {
	nosave, save, abort, force := false, false, false, false
	for _, o := range a[1:] {
		switch strings.ToLower(o) {
		case "nosave":
			nosave = true
		case "save":
			save = true
		case "now":
		case "force":
			force = true
		case "abort":
			abort = true
		default:
			c.w.errorReply("ERR syntax error")
			return false
		}
	}
	if (abort && len(a) > 2) || (nosave && save) {
		c.w.errorReply("ERR syntax error")
		return false
	}
	if abort {
		c.w.errorReply("ERR No shutdown in progress.")
		return false
	}
	s := c.srv
	if !nosave {
		if e := s.scripts.busyError("", nil); e != "" {
			c.w.errorReply(e)
			return false
		}
	}
	if save || (!nosave && configParams["save"].get(s) != "") {
		if err := s.saveAll(); err != nil && !force {
			s.log.Error("error trying to save the keyspaces before shutdown", "err", err)
			c.w.errorReply("ERR Errors trying to SHUTDOWN. Check logs.")
			return false
		}
	}
	s.log.Warn("User requested shutdown...")
	go func() {
		_ = s.Close()
		if s.onShutdown != nil {
			s.onShutdown()
		}
	}()
	return true
}

// client returns the connected client with the given id.
func (s *Server) client(id int64) *client {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clients[id]
}

// snapshot returns the connected clients in id order.
func (s *Server) snapshot() []*client {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs := make([]*client, 0, len(s.clients))
	for _, c := range s.clients {
		cs = append(cs, c)
	}
	sortClients(cs)
	return cs
}
