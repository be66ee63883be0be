package server

import (
	"sync/atomic"
	"time"

	"github.com/zlite/zlite"
)

// multiState is a client's transaction between MULTI and EXEC.
type multiState struct {
	cmds    []queued
	aborted bool // a command was refused at queue time: EXEC replies EXECABORT
}

// queued is one command of a transaction.
type queued struct {
	args []string
	cmd  zlite.Command  // a keyspace command, or
	sc   *serverCommand // a server command (PING, SELECT, FLUSHDB...)
}

func (m *multiState) queue(args []string, cmd zlite.Command, sc *serverCommand) {
	m.cmds = append(m.cmds, queued{args: args, cmd: cmd, sc: sc})
}

// watchSet is a client's watched keys, one zlite.Watch per keyspace and WATCH call.
type watchSet struct {
	ws []watchOn
	// swapped has bit i set when SWAPDB swapped keyspace i since the last clear:
	// EXEC fails if a key of it is watched. Set by other clients' goroutines.
	swapped atomic.Uint32
}

type watchOn struct {
	db int
	w  *zlite.Watch
}

func (s *watchSet) add(db int, w *zlite.Watch) { s.ws = append(s.ws, watchOn{db, w}) }

// dirty reports whether any watched key was modified.
func (s *watchSet) dirty() bool {
	swapped := s.swapped.Load()
	for _, x := range s.ws {
		if x.w.Dirty() || swapped&(1<<x.db) != 0 {
			return true
		}
	}
	return false
}

// clear stops watching (UNWATCH, EXEC, DISCARD, RESET, disconnect).
func (s *watchSet) clear() {
	for _, x := range s.ws {
		x.w.Close()
	}
	s.ws = s.ws[:0]
	s.swapped.Store(0)
}

func cmdMulti(c *client, a []string) bool {
	if c.multi != nil {
		c.w.errorReply("ERR MULTI calls can not be nested")
		return false
	}
	c.multi = &multiState{}
	c.w.status("OK")
	return false
}

func cmdDiscard(c *client, a []string) bool {
	if c.multi == nil {
		c.w.errorReply("ERR DISCARD without MULTI")
		return false
	}
	c.multi = nil
	c.watch.clear()
	c.w.status("OK")
	return false
}

func cmdWatch(c *client, a []string) bool {
	if c.multi != nil {
		c.w.errorReply("ERR WATCH inside MULTI is not allowed")
		return false
	}
	c.watch.add(c.db, c.srv.DB(c.db).Watch(a[1:]...))
	c.w.status("OK")
	return false
}

func cmdUnwatch(c *client, a []string) bool {
	c.watch.clear()
	c.w.status("OK")
	return false
}

// cmdExec runs the queued commands. Consecutive keyspace commands run as one
// db.Update batch of the selected keyspace; the first batch checks the watched keys
// inside it, so no write slips in between the check and the commands. A server
// command in the transaction (PING, ECHO, SELECT...) runs in its place between
// batches.
func cmdExec(c *client, a []string) bool {
	m := c.multi
	if m == nil {
		c.w.errorReply("ERR EXEC without MULTI")
		return false
	}
	c.multi = nil
	defer c.watch.clear()
	if m.aborted {
		c.w.errorReply("EXECABORT Transaction discarded because of previous errors.")
		return false
	}
	type result struct {
		v   any
		err error
		d   time.Duration
	}
	results := make([]result, 0, len(m.cmds))
	for i := 0; i == 0 || i < len(m.cmds); {
		db := c.srv.DB(c.db)
		j, aborted := i, false
		_ = db.Update(func(tx *zlite.Tx) error {
			if i == 0 && c.watch.dirty() {
				aborted = true
				return nil
			}
			for ; j < len(m.cmds) && m.cmds[j].sc == nil; j++ {
				t0 := c.srv.now()
				v, err := tx.Do(m.cmds[j].args...)
				results = append(results, result{v, err, c.srv.now().Sub(t0)})
			}
			return nil
		})
		if aborted {
			c.w.null(true)
			return false
		}
		if i == 0 {
			c.w.array(len(m.cmds))
		}
		for k, r := range results {
			q := m.cmds[i+k]
			c.reply(r.v, r.err, hooks.Shape(q.cmd, q.args), true)
			if q.cmd.Write() {
				c.srv.dirty.Add(1)
			}
			c.ran(q.cmd.Name(), q.args, r.d)
		}
		results = results[:0]
		for i = j; i < len(m.cmds) && m.cmds[i].sc != nil; i++ {
			q := m.cmds[i]
			t0 := c.srv.now()
			c.inExec = true
			c.before(q.sc.name, q.args)
			quit := q.sc.run(c, q.args)
			c.inExec = false
			if quit {
				return true
			}
			name, d := commandName(q.sc, q.args), c.srv.now().Sub(t0)
			c.srv.cstats.ran(name, d)
			c.ran(name, q.args, d)
		}
		if i == 0 {
			break // an empty transaction
		}
	}
	return false
}
