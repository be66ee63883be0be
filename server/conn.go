package server

import (
	"bufio"
	"context"
	"crypto/subtle"
	"errors"
	"io"
	"maps"
	"net"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zlite/zlite"

	"github.com/zlite/zlite/internal/serverapi"
	"github.com/zlite/zlite/pubsub"
)

// Causes of a cancelled blocking command.
var (
	errDisconnected   = errors.New("server: client disconnected")
	errUnblockTimeout = errors.New("server: CLIENT UNBLOCK TIMEOUT")
	errUnblockError   = errors.New("server: CLIENT UNBLOCK ERROR")
	// errSwapped cancels a blocked command whose keyspace SWAPDB moved to another
	// index: it blocks again in the keyspace at the client's index.
	errSwapped = errors.New("server: SWAPDB moved the keyspace")
)

// client is one connection's state. Fields without a comment are touched only by
// the connection's goroutine.
type client struct {
	srv  *Server
	id   int64
	nc   net.Conn
	io   io.ReadWriter // nc's reads and writes: nc, or its raw I/O (see rawIO)
	rd   reader
	w    writer
	fr   *flushReader
	born time.Time

	db       int
	authed   bool
	multi    *multiState // non-nil between MULTI and EXEC/DISCARD
	watch    watchSet
	cause    error         // why the last blocking command was cancelled
	notifyFn func(bool)    // c.notify, made once
	watching chan struct{} // closed when the watcher of a blocked command ends
	inline   bool          // served in the caller's goroutine (syncConn), not by serve

	// sub is the connection's Pub/Sub subscriber, set by its first subscribe
	// command (pubsub.go) and read by CLIENT LIST; pushing is set with it, and
	// from then on wmu guards w, which the pusher goroutine (ended by closing
	// pushDone) shares.
	sub      atomic.Pointer[pubsub.Subscriber]
	wmu      sync.Mutex
	pushing  bool
	pushDone chan struct{}

	monitor    *monitorQueue // set by MONITOR (monitor.go)
	monitoring atomic.Bool   // monitor is set, for CLIENT LIST
	inExec     bool          // a server command runs inside EXEC
	didBlock   bool          // the blocking command running has blocked (SLOWLOG)
	// done is closed when the client is killed (DEBUG SLEEP ends).
	done     chan struct{}
	doneOnce sync.Once

	memo    commandMemo        // the command looked up last (see lookupCommand)
	batch   []pending          // parsed keyspace commands not yet run (see dispatch)
	cmds    [][]string         // the batch's arguments, for the keyspace's pipeline
	results []serverapi.Result // the batch's replies
	pairs   pairBuf            // the pairs of the batch's replies written by the keyspace
	replies replyMode          // CLIENT REPLY's state

	mu      sync.Mutex // guards the fields below, read by CLIENT LIST/KILL/UNBLOCK
	name    string
	resp    int
	lastCmd string
	cancel  context.CancelCauseFunc // set while a blocking command runs
	waiting bool                    // the keyspace holds it blocked (see notify)
	on      *zlite.DB               // the keyspace of the blocking command that runs
	killed  bool
	stopped bool // Shutdown: finish the current command, then close

	last   atomic.Int64 // unix nanoseconds of the last read, for idle
	ending atomic.Bool  // killed or stopped is set: the per-command check is one load
}

// flushReader is the connection's reader under bufio: before each read from the
// network it flushes the replies written so far (so a pipeline's replies go out in
// as few writes as possible, and none waits while the server waits for input) and
// arms the idle timeout.
type flushReader struct {
	c       *client
	blocked atomic.Bool // the watcher reads while a command blocks: no flush, no timeout
}

func (f *flushReader) Read(p []byte) (int, error) {
	c := f.c
	if f.blocked.Load() {
		return c.io.Read(p)
	}
	if c.w.bw.Buffered() > 0 {
		if err := c.w.bw.Flush(); err != nil {
			return 0, err
		}
	}
	if idle := time.Duration(c.srv.idle.Load()); idle > 0 {
		_ = c.nc.SetReadDeadline(time.Now().Add(idle))
	}
	if c.pushing {
		// The step holds the writer; the pusher may write while this waits.
		c.wmu.Unlock()
		defer c.wmu.Lock()
	}
	return c.io.Read(p)
}

// lockW takes the writer from the pusher, once the connection has one (see
// pubsub.go); unlockW gives it back.
func (c *client) lockW() {
	if c.pushing {
		c.wmu.Lock()
	}
}

func (c *client) unlockW() {
	if c.pushing {
		c.wmu.Unlock()
	}
}

func newClient(s *Server, nc net.Conn) *client {
	c := &client{srv: s, id: s.nextID.Add(1), nc: nc, io: nc, born: time.Now(), resp: 2, done: make(chan struct{})}
	if r, ok := newRawIO(nc); ok {
		c.io = r
	}
	c.fr = &flushReader{c: c}
	c.notifyFn = c.notify
	c.rd.br = bufio.NewReaderSize(c.fr, 16<<10)
	c.w.bw = bufio.NewWriterSize(c.io, 16<<10)
	c.w.errs = &s.errs
	c.authed = *s.password.Load() == ""
	c.last.Store(c.born.UnixNano())
	return c
}

// serve runs the connection until the client quits or fails, or the server stops it.
func (c *client) serve() {
	s := c.srv
	s.log.Debug("client connected", "id", c.id, "addr", c.nc.RemoteAddr().String())
	defer func() {
		// A fault in one command ends its connection, never the server.
		if r := recover(); r != nil {
			s.log.Error("command panicked; connection closed", "id", c.id, "panic", r, "stack", string(debug.Stack()))
		}
		c.watch.clear()
		c.nc.Close()
		c.endMonitor(true)
		c.endPush()
		s.log.Debug("client disconnected", "id", c.id)
	}()
	for {
		if c.stopping() {
			c.lockW()
			_ = c.w.bw.Flush()
			c.unlockW()
			return
		}
		if !c.step() {
			return
		}
	}
}

// step reads and runs one command; it reports false when the connection must end
// (QUIT, a protocol error, a read error), its replies flushed. A command that lies
// whole in the read buffer is parsed there (see reader.buffered); only when none
// does, step runs the commands parsed so far (see dispatch) and then reads, which
// flushes their replies first. The first command of what the read brought is
// parsed in the buffer too when it lies there whole, as the ones after it.
func (c *client) step() bool {
	c.lockW()
	defer c.unlockW() // pushing may have turned true: subscriber locked then
	s := c.srv
	args, reused := c.rd.buffered(s.maxBulk.Load(), c.needsAuth())
	if !reused {
		c.runBatch()
		var err error
		if c.rd.br.Buffered() == 0 {
			_, err = c.rd.br.Peek(1) // the read
		}
		if err == nil {
			args, reused = c.rd.buffered(s.maxBulk.Load(), c.needsAuth())
		}
		if !reused && err == nil {
			args, err = c.rd.next(s.maxBulk.Load(), c.needsAuth())
		}
		if err != nil {
			var pe *ProtocolError
			if errors.As(err, &pe) {
				if !c.replies.next() {
					c.w.errorReply("ERR " + pe.Error())
				}
				_ = c.w.bw.Flush()
				s.log.Debug("protocol error", "id", c.id, "err", err)
			} else if errors.Is(err, os.ErrDeadlineExceeded) {
				s.log.Debug("idle client closed", "id", c.id)
			}
			return false
		}
		// The last interaction is the last read, as Redis's lastinteraction.
		c.last.Store(time.Now().UnixNano())
	}
	if quit := c.dispatch(args, reused); quit {
		_ = c.w.bw.Flush()
		return false
	}
	return true
}

func (c *client) isKilled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.killed
}

func (c *client) stopping() bool {
	if !c.ending.Load() {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.killed || (c.stopped && c.rd.br.Buffered() == 0)
}

// needsAuth reports whether the client must authenticate first.
func (c *client) needsAuth() bool {
	if c.authed {
		return false
	}
	if *c.srv.password.Load() == "" {
		c.authed = true
		return false
	}
	return true
}

// checkPassword compares p with requirepass in constant time.
func (c *client) checkPassword(p string) bool {
	want := *c.srv.password.Load()
	return want != "" && subtle.ConstantTimeCompare([]byte(p), []byte(want)) == 1
}

// kill closes the connection at once: a blocked command is cancelled (its element,
// if not yet served, stays in the keyspace) and the connection's goroutine ends.
func (c *client) kill() {
	c.end(&c.killed)
	c.doneOnce.Do(func() { close(c.done) })
	c.nc.Close()
}

// stop asks the connection to end after the command it is running.
func (c *client) stop() {
	c.end(&c.stopped)
	// Wake a read waiting for the next command; buffered commands still run.
	_ = c.nc.SetReadDeadline(time.Now())
}

// end sets *flag (c.killed or c.stopped) under c.mu and cancels the command the
// client is blocked in, if any, as disconnected.
func (c *client) end(flag *bool) {
	c.mu.Lock()
	*flag = true
	c.ending.Store(true)
	cancel := c.cancel
	c.mu.Unlock()
	if cancel != nil {
		cancel(errDisconnected)
	}
}

// unblock cancels the client's blocking command, if it is blocked, with cause; it
// reports whether it was. A client served (see notify) is no longer blocked.
func (c *client) unblock(cause error) bool {
	c.mu.Lock()
	cancel := c.cancel
	if !c.waiting {
		c.mu.Unlock()
		return false
	}
	c.cancel = nil
	c.mu.Unlock()
	cancel(cause)
	return true
}

// maxBatch bounds the commands of a batch (see dispatch), and so the time one
// connection holds the keyspace and the replies it holds in memory.
const maxBatch = 128

// pending is a parsed keyspace command of the batch, waiting to run.
type pending struct {
	args  []string
	sh    serverapi.Shape
	mute  bool   // its reply is discarded (see replyMode)
	write bool   // a write command (rdb_changes_since_last_save)
	orig  string // the name as sent, for MONITOR and SLOWLOG
}

// dispatch runs one command and writes its reply; it reports whether the
// connection must close (QUIT, a failed write). reused says that args is the
// reader's (see reader.buffered), valid until the batch runs.
//
// A non-blocking keyspace command outside MULTI joins the batch instead: the
// pipelined commands of the connection that the read buffer holds whole run
// together by the keyspace's pipeline (serverapi.Hooks.DoPipelined) (one keyspace lock for all where that is
// observably the same), when the buffer holds no further command, the batch is
// full, or any other command comes; their replies are written in order before
// that command's. A command's reply, error or not, is discarded while CLIENT REPLY
// says so (see replyMode).
func (c *client) dispatch(args []string, reused bool) (quit bool) {
	sc, cmd, isServer, err := lookupCommand(&c.memo, args)
	var name string
	switch {
	case isServer && sc.subs != nil && len(args) > 1:
		name = sc.name + "|" + strings.ToLower(args[1]) // CLIENT LIST's cmd=client|list
	case isServer:
		name = sc.name
	case err == nil:
		name = cmd.Name()
	default:
		name = "NULL"
	}
	if name != c.lastCmd { // only this goroutine writes lastCmd
		c.mu.Lock()
		c.lastCmd = name
		c.mu.Unlock()
	}
	if c.pushing {
		c.pendingPushes() // published before this command: written before its reply
	}
	mute := c.replies.next() // CLIENT REPLY OFF or SKIP: no reply
	if c.srv.scripts.busy.Load() != 0 && err == nil && c.rejectBusy(sc, cmd, isServer, args, mute) {
		return false
	}
	across := -1 // COPY ... DB n to another keyspace: its number
	if err == nil && !isServer && c.multi == nil && cmd.Name() == "copy" {
		across = c.copyTarget(args)
	}
	subscribed := c.inPubSubContext()
	if err == nil && !isServer && !cmd.Blocking() && across < 0 && c.multi == nil && !c.needsAuth() && !subscribed && c.monitor == nil {
		orig := args[0]
		args[0] = cmd.Name() // the keyspace's own lookup then finds it at once
		c.batch = append(c.batch, pending{args: args, sh: hooks.Shape(cmd, args), mute: mute, write: cmd.Write(), orig: orig})
		if len(c.batch) == maxBatch || c.rd.br.Buffered() == 0 {
			c.runBatch()
		}
		return false
	}
	if reused {
		args = slices.Clone(args) // MULTI and WATCH keep them
	}
	c.runBatch()
	c.w.mute(mute)
	defer c.w.mute(false)
	c.srv.commands.Add(1)
	if err != nil {
		// A known command (not an unknown subcommand) counts as rejected.
		rejected := ""
		switch {
		case isServer && (sc.subs == nil || len(args) < 2):
			rejected = sc.name
		case !isServer && cmd != (zlite.Command{}):
			rejected = cmd.Name()
		}
		c.reject(rejected, err.Error())
		return false
	}
	if c.needsAuth() && !(isServer && sc.noAuth) {
		c.reject(name, "NOAUTH Authentication required.")
		return false
	}
	if subscribed && !pubsubAllowed[strings.SplitN(name, "|", 2)[0]] {
		c.reject(name, "ERR Can't execute '"+name+"': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context")
		return false
	}
	if c.monitor != nil && (!isServer || monitorKeyspace[name]) {
		c.reject(name, "ERR Replica can't interact with the keyspace")
		return false
	}
	if c.multi != nil && isServer && sc.noMulti {
		c.reject(name, "ERR Command not allowed inside a transaction")
		return false
	}
	if c.multi != nil && !(isServer && sc.inMulti) {
		c.multi.queue(args, cmd, sc)
		c.w.status("QUEUED")
		return false
	}
	start := c.srv.now()
	switch {
	case isServer:
		c.before(sc.name, args)
		quit = sc.run(c, args)
	case across >= 0:
		n, err := copyAcross(c.srv.DB(c.db), c.srv.DB(across), args[1], args[2], hasReplace(args))
		c.reply(n, err, hooks.Shape(cmd, args), false)
		c.srv.dirty.Add(1)
	default:
		c.didBlock = false
		c.execBlocking(cmd, args)
		c.srv.dirty.Add(1)
	}
	if !quit {
		d := c.srv.now().Sub(start)
		if c.didBlock {
			d = 0 // the wait is not the command's time (see slowlog.go)
		}
		if isServer {
			c.srv.cstats.ran(name, d)
		}
		c.ran(name, args, d)
	}
	return quit
}

// before shows an EVAL, EVALSHA or FCALL (and their _RO forms) to the monitors
// before it runs, as Redis does (its script's commands follow).
func (c *client) before(name string, args []string) {
	switch name {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		c.srv.feedMonitors(c, c.db, false, args)
	}
}

// ran records a command that ran, under its name as CLIENT LIST shows it
// (client|list), and took d: SLOWLOG (but EXEC, whose commands count each) and
// MONITOR (but Redis's admin commands).
func (c *client) ran(name string, args []string, d time.Duration) {
	if name != "exec" {
		c.record(args, d)
	}
	if c.srv.mon.n.Load() != 0 && !monitorAdmin[name] {
		c.srv.feedMonitors(c, c.db, false, args)
	}
}

// commandName is a server command's name as CLIENT LIST and INFO commandstats
// show it: "client|list" for a subcommand.
func commandName(sc *serverCommand, args []string) string {
	if sc.subs != nil && len(args) > 1 {
		return sc.name + "|" + strings.ToLower(args[1])
	}
	return sc.name
}

// reject replies the error e to the command name that may not run (its words, a
// script past busy-reply-threshold, authentication), failing the transaction it
// would be queued in. A refused EXEC ends the transaction at once, as Redis's
// execCommandAbort: EXECABORT with e's message (without an ERR code), even when
// no transaction is open.
func (c *client) reject(name, e string) {
	if name != "" {
		c.srv.cstats.rejected(name)
	}
	switch {
	case name == "exec":
		c.multi = nil
		c.watch.clear()
		c.w.errorReply("EXECABORT Transaction discarded because of: " + strings.TrimPrefix(e, "ERR "))
		return
	case c.multi != nil:
		c.multi.aborted = true
	}
	c.w.errorReply(e)
}

// runBatch runs the batch of keyspace commands (see dispatch) and writes their
// replies.
func (c *client) runBatch() {
	b := c.batch
	if len(b) == 0 {
		c.rd.release()
		return
	}
	c.srv.commands.Add(int64(len(b)))
	db := c.srv.DB(c.db)
	start := c.srv.now()
	if len(b) == 1 {
		v, err := db.Do(context.Background(), b[0].args...)
		c.w.mute(b[0].mute)
		c.reply(v, err, b[0].sh, false)
	} else {
		cmds := c.cmds[:0]
		for _, p := range b {
			cmds = append(cmds, p.args)
		}
		res := slices.Grow(c.results[:0], len(b))[:len(b)]
		hooks.DoPipelined(context.Background(), db, cmds, res, &c.pairs)
		for i, p := range b {
			c.w.mute(p.mute)
			if _, ok := res[i].Value.(serverapi.WrittenPairs); ok && res[i].Err == nil {
				c.w.pairs(&c.pairs, p.sh)
				continue
			}
			c.reply(res[i].Value, res[i].Err, p.sh, false)
		}
		c.pairs.reset()
		clear(cmds)
		clear(res)
		c.cmds, c.results = cmds[:0], res[:0]
	}
	c.w.mute(false)
	// Each command of the batch counts an equal share of its time (slowlog.go).
	d := c.srv.now().Sub(start) / time.Duration(len(b))
	writes := int64(0)
	for _, p := range b {
		if p.write {
			writes++
		}
		name := p.args[0]
		p.args[0] = p.orig
		c.ran(name, p.args, d)
	}
	if writes > 0 {
		c.srv.dirty.Add(writes)
	}
	clear(b)
	c.batch = b[:0]
	c.rd.release()
}

// execBlocking runs a blocking keyspace command outside MULTI and writes its reply.
func (c *client) execBlocking(cmd zlite.Command, args []string) {
	start := time.Now()
	v, err := c.block(args)
	for err != nil && errors.Is(err, context.Canceled) && errors.Is(c.cause, errSwapped) {
		// As Redis, whose blocked clients stay with their keyspace's index: wait
		// again in the keyspace now there, for what is left of the timeout.
		args = withTimeLeft(args, time.Since(start))
		v, err = c.block(args)
	}
	if err != nil && errors.Is(err, context.Canceled) {
		switch cause := c.cause; {
		case errors.Is(cause, errUnblockTimeout):
			v, err = nil, nil
		case errors.Is(cause, errUnblockError):
			err = errUnblocked
		default:
			return // disconnected or killed: no reply
		}
	}
	c.reply(v, err, hooks.Shape(cmd, args), false)
}

var errUnblocked = errors.New("UNBLOCKED client unblocked via CLIENT UNBLOCK")

// withTimeLeft returns the blocking command args with its timeout (the first
// argument of BLMPOP and BZMPOP, the last of the others) less elapsed, at least a
// millisecond; a timeout of 0 (none) or one that does not parse stays as it is.
func withTimeLeft(args []string, elapsed time.Duration) []string {
	i := len(args) - 1
	if name := strings.ToLower(args[0]); name == "blmpop" || name == "bzmpop" {
		i = 1
	}
	t, err := strconv.ParseFloat(args[i], 64)
	if err != nil || t <= 0 {
		return args
	}
	left := max(t-elapsed.Seconds(), 0.001)
	args = slices.Clone(args)
	args[i] = strconv.FormatFloat(left, 'f', 3, 64)
	return args
}

// reblock cancels the blocking command of the client when it runs in one of dbs,
// blocked or about to block, to block again at its index (errSwapped), and
// reports whether it did. SWAPDB calls it after it moved the keyspaces, and block
// takes its keyspace under c.mu, so a command either saw the move or is
// cancelled.
func (c *client) reblock(dbs ...*zlite.DB) bool {
	c.mu.Lock()
	cancel := c.cancel
	if cancel == nil || !slices.Contains(dbs, c.on) {
		c.mu.Unlock()
		return false
	}
	c.cancel = nil
	c.mu.Unlock()
	cancel(errSwapped)
	return true
}

// reply writes a keyspace command's reply.
func (c *client) reply(v any, err error, sh serverapi.Shape, batch bool) {
	if err != nil {
		c.w.errorReply(err.Error())
		return
	}
	c.w.value(v, sh, batch)
}

// block runs a blocking command in the client's keyspace, cancelled when the client
// disconnects, is killed or unblocked, or SWAPDB moves the keyspace (reblock).
// When the command blocks, notify starts a watcher goroutine that
// flushes the replies so far and reads ahead on the connection to notice a
// disconnect; block stops it (by a read deadline in the past) before it returns, so
// only one goroutine reads or writes at a time. A command served at once starts
// no goroutine and writes nothing. In-process (see syncConn) the client's
// goroutine is the one waiting and no watcher runs: a Close of the connection from
// elsewhere cancels it through kill.
func (c *client) block(args []string) (any, error) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	c.mu.Lock()
	if c.killed || c.stopped {
		// Killed or shut down before the command could register its cancel: end
		// found nothing to cancel, so the command must not block.
		c.mu.Unlock()
		return nil, context.Canceled
	}
	db := c.srv.DB(c.db)
	c.cancel, c.on = cancel, db
	c.mu.Unlock()
	// The pusher may write while the command waits (the watcher locks for its
	// flush); the writer is taken back once the watcher has ended.
	c.unlockW()
	defer c.lockW()
	v, err := hooks.DoNotify(ctx, db, c.notifyFn, args...)
	c.mu.Lock()
	if c.waiting { // timed out or cancelled
		c.waiting = false
		c.srv.blocked.Add(-1)
	}
	c.cancel, c.on = nil, nil
	c.mu.Unlock()
	c.cause = context.Cause(ctx)
	if done := c.watching; done != nil {
		c.watching = nil
		_ = c.nc.SetReadDeadline(time.Unix(1, 0))
		<-done
		_ = c.nc.SetReadDeadline(time.Time{})
		c.fr.blocked.Store(false)
	}
	return v, err
}

// notify is the keyspace's notice for the client's blocking command (see
// serverapi.Hooks.DoNotify), run under the keyspace lock: the client is blocked, for
// CLIENT LIST, CLIENT UNBLOCK and INFO's blocked_clients, from the moment the
// keyspace blocks it until the moment a command serves it (before that command
// replies), as in Redis, which unblocks a served client before it runs the next
// command; a command served at once never shows as blocked. The notice that it
// blocks comes on the client's own goroutine, which starts the watcher (see
// block); the other comes on the serving command's.
func (c *client) notify(blocked bool) {
	c.mu.Lock()
	c.waiting = blocked
	cancel := c.cancel
	c.mu.Unlock()
	if !blocked {
		c.srv.blocked.Add(-1)
		return
	}
	c.srv.blocked.Add(1)
	c.didBlock = true
	if c.inline {
		return
	}
	// No idle timeout while blocked, and no flush from the reads that watch; set
	// here, before block can set the deadline that stops the watcher.
	c.fr.blocked.Store(true)
	_ = c.nc.SetReadDeadline(time.Time{})
	c.watching = make(chan struct{})
	go c.watchDisconnect(cancel, c.watching)
}

// watchDisconnect flushes the replies written before the blocked command (whose
// goroutine writes its reply only once done is closed), then reads ahead into the
// connection's buffer while the command blocks: a failed flush, an end of stream
// or a read error other than the deadline that block sets to stop it cancels the
// command. A client that pipelines a full buffer while blocked is no longer
// watched (as its bytes are not lost, only not yet read).
func (c *client) watchDisconnect(cancel context.CancelCauseFunc, done chan<- struct{}) {
	defer close(done)
	c.lockW()
	err := c.w.flush()
	c.unlockW()
	if err != nil {
		cancel(errDisconnected)
		return
	}
	br := c.rd.br
	for n := br.Buffered() + 1; n <= br.Size(); n = br.Buffered() + 1 {
		if _, err := br.Peek(n); err != nil {
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				cancel(errDisconnected)
			}
			return
		}
	}
}

// command is an entry of the server's command table: a server command, or a
// keyspace command that no server command overrides.
type command struct {
	sc  *serverCommand
	cmd zlite.Command
}

// commandTable holds every command by its lower-case and its upper-case name, the
// two spellings clients send (built at init, after serverCommands).
var commandTable = map[string]command{}

func buildCommandTable() {
	for cmd := range zlite.Commands() {
		commandTable[cmd.Name()] = command{cmd: cmd}
	}
	for name, sc := range serverCommands {
		commandTable[name] = command{sc: sc}
	}
	for name, e := range maps.Clone(commandTable) {
		commandTable[strings.ToUpper(name)] = e
	}
}

// commandMemo is the last entry of the command table that lookupCommand found and
// the name it was found by: a pipeline mostly repeats one command, whose name then
// costs a string comparison instead of a map lookup. It holds the name as the
// client sent it (at most one request's arguments, see arenaMax).
type commandMemo struct {
	name string
	e    command
}

// lookupCommand finds the command named by args[0], case-insensitively and without
// allocating (the name is folded in a stack buffer), and checks its arity: it
// returns a server command (isServer) or a keyspace one, or Redis's error. A name
// found is kept in memo, which is consulted first.
func lookupCommand(memo *commandMemo, args []string) (sc *serverCommand, cmd zlite.Command, isServer bool, err error) {
	e, ok := memo.e, memo.name == args[0] && memo.name != ""
	if !ok {
		e, ok = commandTable[args[0]]
	}
	if !ok {
		var buf [24]byte
		if name := args[0]; len(name) <= len(buf) {
			for i := 0; i < len(name); i++ {
				ch := name[i]
				if 'A' <= ch && ch <= 'Z' {
					ch += 'a' - 'A'
				}
				buf[i] = ch
			}
			e, ok = commandTable[string(buf[:len(name)])]
		}
	}
	if ok {
		memo.name, memo.e = args[0], e
	}
	switch {
	case !ok:
		_, err = zlite.Lookup(args) // the unknown command's error
		return nil, cmd, false, err
	case e.sc != nil:
		return e.sc, cmd, true, e.sc.check(args)
	}
	if a := e.cmd.Arity(); (a > 0 && len(args) != a) || len(args) < -a {
		err = arityError(e.cmd.Name())
	}
	return nil, e.cmd, false, err
}

// sortClients orders clients by id.
func sortClients(cs []*client) {
	slices.SortFunc(cs, func(a, b *client) int { return int(a.id - b.id) })
}
