package server

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/persist"
)

// SAVE, BGSAVE [SCHEDULE], BGREWRITEAOF, LASTSAVE, DEBUG RELOAD and SHUTDOWN SAVE
// over the keyspaces made persistent by zlite.Open: each takes a snapshot
// (zlite.DB.Snapshot, which also compacts the keyspace's log, as Redis's
// BGREWRITEAOF). A keyspace made by zlite.New has nothing to save: SAVE and the
// others reply as after a save. BGSAVE and BGREWRITEAOF are one kind of job,
// run in the background one at a time; the other asked for meanwhile is
// scheduled, as Redis schedules the one that cannot run beside a child process.

// WithReopen sets what DEBUG RELOAD does: it calls f for each keyspace made
// persistent by zlite.Open (index i, as SWAPDB last left it); f snapshots and
// closes db and returns the keyspace reopened from its directory, which the server
// puts in db's place, as SWAPDB replaces keyspaces (clients blocked in db block
// again in the new one). An error leaves db in place and fails DEBUG RELOAD.
// Without WithReopen, DEBUG RELOAD takes a snapshot of each persistent keyspace.
func WithReopen(f func(i int, db *zlite.DB) (*zlite.DB, error)) Option {
	return func(s *Server) { s.reopen = f }
}

// WithSwapHandler sets what SWAPDB does before it swaps two keyspaces: it calls
// f with their numbers (i != j), and swaps them only if f returns nil; an error
// fails SWAPDB with "ERR SWAPDB could not be persisted: " and the error's text,
// both keyspaces left where they were. cmd/zlite-server records there which
// directory each number holds, so that a swap outlives the process. The server
// calls f for one SWAPDB at a time, never during DEBUG RELOAD, in the order the
// swaps apply.
func WithSwapHandler(f func(i, j int) error) Option {
	return func(s *Server) { s.saves.onSwap = f }
}

// saveState is the server's record of its saves, for LASTSAVE and INFO
// persistence, and what orders SWAPDB and DEBUG RELOAD.
type saveState struct {
	// moving is held by SWAPDB (around the swap handler and the swap) and by DEBUG
	// RELOAD (around all its reopens), so that the keyspaces are moved by one of
	// them at a time, and the swap handler sees the swaps in their order.
	moving sync.Mutex
	onSwap func(i, j int) error // WithSwapHandler's

	mu        sync.Mutex
	running   string // "rdb" (BGSAVE) or "aof" (BGREWRITEAOF) while a job runs
	scheduled string // the job asked for while the other ran
	started   time.Time
	lastSave  time.Time
	lastOK    bool
	lastAOFOK bool
	lastSec   int64 // rdb_last_bgsave_time_sec, -1 before the first
	lastAOF   int64 // aof_last_rewrite_time_sec
	saves     int64
	rewrites  int64
	dirtyAt   int64 // s.dirty at the last save
	wg        sync.WaitGroup
}

// persistentDBs returns the distinct keyspaces made by zlite.Open, by index.
func (s *Server) persistentDBs() map[int]*zlite.DB {
	out := map[int]*zlite.DB{}
	for i := range NumDBs {
		db := s.DB(i)
		if _, _, ok := db.Persistence(); ok {
			out[i] = db
		}
	}
	return out
}

// saveAll snapshots every persistent keyspace and records the save.
func (s *Server) saveAll() error {
	dirty := s.dirty.Load()
	var first error
	for _, db := range s.persistentDBs() {
		if err := db.Snapshot(); err != nil && !errors.Is(err, zlite.ErrNotPersistent) && first == nil {
			first = err
		}
	}
	st := &s.saves
	st.mu.Lock()
	st.lastOK = first == nil
	if first == nil {
		st.lastSave = s.now()
		st.dirtyAt = dirty
		st.saves++
	}
	st.mu.Unlock()
	return first
}

// cmdSave is SAVE.
func cmdSave(c *client, a []string) bool {
	st := &c.srv.saves
	st.mu.Lock()
	running := st.running
	st.mu.Unlock()
	if running == "rdb" {
		c.w.errorReply("ERR Background save already in progress")
		return false
	}
	if err := c.srv.saveAll(); err != nil {
		c.srv.log.Error("SAVE failed", "err", err)
		c.w.errorReply("ERR")
		return false
	}
	c.w.status("OK")
	return false
}

// cmdBgsave is BGSAVE [SCHEDULE].
func cmdBgsave(c *client, a []string) bool {
	schedule := false
	if len(a) > 1 {
		if len(a) > 2 || !strings.EqualFold(a[1], "schedule") {
			c.w.errorReply(errSyntax)
			return false
		}
		schedule = true
	}
	st := &c.srv.saves
	st.mu.Lock()
	defer st.mu.Unlock()
	switch st.running {
	case "rdb":
		c.w.errorReply("ERR Background save already in progress")
	case "aof":
		if !schedule {
			c.w.errorReply("ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.")
			return false
		}
		st.scheduled = "rdb"
		c.w.status("Background saving scheduled")
	default:
		c.srv.startJob("rdb")
		c.w.status("Background saving started")
	}
	return false
}

// cmdBgrewriteaof is BGREWRITEAOF.
func cmdBgrewriteaof(c *client, a []string) bool {
	st := &c.srv.saves
	st.mu.Lock()
	defer st.mu.Unlock()
	switch st.running {
	case "aof":
		c.w.errorReply("ERR Background append only file rewriting already in progress")
	case "rdb":
		st.scheduled = "aof"
		c.w.status("Background append only file rewriting scheduled")
	default:
		c.srv.startJob("aof")
		c.w.status("Background append only file rewriting started")
	}
	return false
}

// startJob runs a background save of kind ("rdb" or "aof"), then the one
// scheduled meanwhile, if any. s.saves.mu is held.
func (s *Server) startJob(kind string) {
	st := &s.saves
	st.running, st.started = kind, s.now()
	st.wg.Add(1)
	go func() {
		defer st.wg.Done()
		for {
			err := s.saveAll()
			if err != nil {
				s.log.Error("background save failed", "kind", kind, "err", err)
			}
			st.mu.Lock()
			sec := int64(s.now().Sub(st.started).Seconds())
			if kind == "rdb" {
				st.lastSec = sec
			} else {
				st.lastAOF, st.lastAOFOK = sec, err == nil
				st.rewrites++
			}
			next := st.scheduled
			st.scheduled = ""
			if next == "" {
				st.running = ""
				st.mu.Unlock()
				return
			}
			kind = next
			st.running, st.started = kind, s.now()
			st.mu.Unlock()
		}
	}()
}

// cmdLastsave is LASTSAVE: the Unix time of the last successful save (the start,
// before any).
func cmdLastsave(c *client, a []string) bool {
	st := &c.srv.saves
	st.mu.Lock()
	t := st.lastSave
	st.mu.Unlock()
	c.w.integer(t.Unix())
	return false
}

// reload is DEBUG RELOAD (see WithReopen). It holds saves.moving throughout, so
// that no SWAPDB moves a keyspace between the reopen and the store of the new one
// at its number.
func (s *Server) reload() error {
	s.saves.moving.Lock()
	defer s.saves.moving.Unlock()
	for i, db := range s.persistentDBs() {
		if s.reopen == nil {
			if err := db.Snapshot(); err != nil && !errors.Is(err, persist.ErrSnapshotInProgress) {
				return err
			}
			continue
		}
		ndb, err := s.reopen(i, db)
		if err != nil {
			return err
		}
		if ndb == nil || ndb == db {
			continue
		}
		// As the keyspace it replaces: its events, into the server's hub.
		ndb.SetKeyspaceEvents(db.KeyspaceEvents())
		ndb.SetEventHub(s.hub, i)
		s.swapmu.Lock()
		dbs := *s.dbs.Load()
		dbs[i] = ndb
		s.dbs.Store(&dbs)
		s.swapmu.Unlock()
		for _, o := range s.snapshot() {
			o.watch.swapped.Or(1 << i)
			o.reblock(db)
		}
	}
	return nil
}

// syncPolicyName is appendfsync's name for p.
func syncPolicyName(p persist.SyncPolicy) string {
	switch p {
	case zlite.SyncAlways:
		return "always"
	case zlite.SyncNever:
		return "no"
	}
	return "everysec"
}

// persistenceParams are CONFIG's persistence settings, merged into configParams
// at init.
var persistenceParams = map[string]configParam{
	"save": {
		get: func(s *Server) string {
			if v, ok := s.kept.Load("save"); ok {
				return v.(string)
			}
			return ""
		},
		set: func(v string) (func(*Server), string) {
			if !validSave(v) {
				return nil, "Invalid save parameters"
			}
			return func(s *Server) { s.kept.Store("save", v) }, ""
		},
	},
	"appendonly": {
		get: func(s *Server) string {
			if _, _, ok := s.DB(0).Persistence(); ok {
				return "yes"
			}
			return "no"
		},
		set: func(v string) (func(*Server), string) {
			v = strings.ToLower(v)
			if v != "yes" && v != "no" {
				return nil, "argument must be 'yes' or 'no'"
			}
			return nil, "" // checked against the server in configSetChecked
		},
	},
	"appendfsync": {
		get: func(s *Server) string {
			p, _, ok := s.DB(0).Persistence()
			if !ok {
				return "everysec" // Redis's default, for an in-memory keyspace
			}
			return syncPolicyName(p)
		},
		set: func(v string) (func(*Server), string) {
			switch strings.ToLower(v) {
			case "always", "everysec", "no":
				return nil, ""
			}
			return nil, "argument(s) must be one of the following: everysec, always, no"
		},
	},
	"dir": {
		get: func(s *Server) string {
			if _, dir, ok := s.DB(0).Persistence(); ok {
				return dir
			}
			wd, _ := os.Getwd()
			return wd
		},
		set: func(v string) (func(*Server), string) { return nil, "" },
	},
	"slowlog-log-slower-than": {
		get: func(s *Server) string { return strconv.FormatInt(s.slow.slower.Load(), 10) },
		set: func(v string) (func(*Server), string) {
			n, err := configInt(v, -1, 1<<63-1)
			return func(s *Server) { s.slow.slower.Store(n) }, err
		},
	},
	"slowlog-max-len": {
		get: func(s *Server) string { return strconv.FormatInt(s.slow.maxLen.Load(), 10) },
		set: func(v string) (func(*Server), string) {
			n, err := configInt(v, 0, 1<<63-1)
			return func(s *Server) { s.slow.maxLen.Store(n); s.slow.trim() }, err
		},
	},
}

// persistenceCheck is the second half of CONFIG SET's check for appendonly,
// appendfsync and dir, which depend on the server: a value other than the
// current one is refused, as zlite sets them when a keyspace is opened
// (zlite.Open, zlite.WithSync). It returns the error text or "".
func persistenceCheck(s *Server, name, v string) string {
	switch name {
	case "appendonly":
		if strings.ToLower(v) != configParams[name].get(s) {
			return "zlite cannot turn persistence on or off at run time (a keyspace is persistent when opened with zlite.Open)"
		}
	case "appendfsync":
		if strings.ToLower(v) != configParams[name].get(s) {
			return "zlite cannot change the sync policy at run time (zlite.WithSync at zlite.Open)"
		}
	case "dir":
		if v != configParams[name].get(s) {
			return "zlite cannot change dir at run time (the directory given to zlite.Open)"
		}
	}
	return ""
}

func init() {
	for name, p := range persistenceParams {
		configParams[name] = p
	}
}

// infoPersistence writes INFO persistence's fields: aof_enabled when keyspace 0
// is persistent, the saves of SAVE, BGSAVE and BGREWRITEAOF (the last save is
// the start before any), rdb_changes_since_last_save as the write commands run
// since.
func (s *Server) infoPersistence(b *strings.Builder, line func(string, any)) {
	st := &s.saves
	st.mu.Lock()
	defer st.mu.Unlock()
	flag := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	status := func(ok bool) string {
		if ok {
			return "ok"
		}
		return "err"
	}
	current := func(kind string) int64 {
		if st.running != kind {
			return -1
		}
		return int64(s.now().Sub(st.started).Seconds())
	}
	_, _, aof := s.DB(0).Persistence()
	b.WriteString("# Persistence\r\n")
	line("loading", 0)
	line("async_loading", 0)
	line("rdb_changes_since_last_save", s.dirty.Load()-st.dirtyAt)
	line("rdb_bgsave_in_progress", flag(st.running == "rdb"))
	line("rdb_last_save_time", st.lastSave.Unix())
	line("rdb_last_bgsave_status", status(st.lastOK))
	line("rdb_last_bgsave_time_sec", st.lastSec)
	line("rdb_current_bgsave_time_sec", current("rdb"))
	line("rdb_saves", st.saves)
	line("aof_enabled", flag(aof))
	line("aof_rewrite_in_progress", flag(st.running == "aof"))
	line("aof_rewrite_scheduled", flag(st.scheduled == "aof"))
	line("aof_last_rewrite_time_sec", st.lastAOF)
	line("aof_current_rewrite_time_sec", current("aof"))
	line("aof_last_bgrewrite_status", status(st.lastAOFOK))
	line("aof_rewrites", st.rewrites)
	line("aof_last_write_status", "ok")
}
