package server

import (
	"slices"
	"strings"

	"github.com/zlite/zlite"
)

// cmdInfoEntry is one command's entry in COMMAND and COMMAND INFO.
type cmdInfoEntry struct {
	name  string
	arity int
	flags []string
	keys  [3]int
}

// allCommands lists the server's and the keyspace's commands by name.
func allCommands() []cmdInfoEntry {
	var out []cmdInfoEntry
	for cmd := range zlite.Commands() {
		if _, ok := serverCommands[cmd.Name()]; ok {
			continue // FLUSHALL: the server's (all 16 keyspaces) takes over
		}
		flags := []string{"readonly"}
		if cmd.Write() {
			flags = []string{"write"}
		}
		if cmd.Blocking() {
			flags = append(flags, "blocking")
		}
		first, last, step := cmd.Keys()
		out = append(out, cmdInfoEntry{cmd.Name(), cmd.Arity(), flags, [3]int{first, last, step}})
	}
	for _, sc := range serverCommands {
		flags := []string{"fast"}
		if sc.noAuth {
			flags = append(flags, "no_auth")
		}
		out = append(out, cmdInfoEntry{sc.name, sc.arity, flags, [3]int{}})
	}
	slices.SortFunc(out, func(a, b cmdInfoEntry) int { return strings.Compare(a.name, b.name) })
	return out
}

func (w *writer) commandInfo(e cmdInfoEntry) {
	w.array(10)
	w.bulk(e.name)
	w.integer(int64(e.arity))
	w.setHeader(len(e.flags))
	for _, f := range e.flags {
		w.status(f)
	}
	for _, k := range e.keys {
		w.integer(int64(k))
	}
	w.setHeader(0) // ACL categories
	w.setHeader(0) // tips
	w.array(0)     // key specs
	w.array(0)     // subcommands
}

// cmdCommand is COMMAND, COMMAND COUNT, COMMAND INFO name..., COMMAND DOCS
// [name...] (Redis's own entries, see command_docs.go) and COMMAND LIST.
func cmdCommand(c *client, a []string) bool {
	all := allCommands()
	find := func(name string) (cmdInfoEntry, bool) {
		i, ok := slices.BinarySearchFunc(all, strings.ToLower(name), func(e cmdInfoEntry, n string) int { return strings.Compare(e.name, n) })
		if !ok {
			return cmdInfoEntry{}, false
		}
		return all[i], true
	}
	if len(a) == 1 {
		c.w.array(len(all))
		for _, e := range all {
			c.w.commandInfo(e)
		}
		return false
	}
	switch sub := strings.ToLower(a[1]); sub {
	case "count":
		c.w.integer(int64(len(all)))
	case "list":
		c.w.array(len(all))
		for _, e := range all {
			c.w.bulk(e.name)
		}
	case "info":
		names := a[2:]
		if len(names) == 0 {
			c.w.array(len(all))
			for _, e := range all {
				c.w.commandInfo(e)
			}
			return false
		}
		c.w.array(len(names))
		for _, n := range names {
			if e, ok := find(n); ok {
				c.w.commandInfo(e)
			} else {
				c.w.null(true)
			}
		}
	case "docs":
		var es []cmdInfoEntry
		if len(a) == 2 {
			es = all
		}
		for _, n := range a[2:] {
			if e, ok := find(n); ok {
				es = append(es, e)
			}
		}
		top := node{kind: '%'}
		for _, e := range es {
			if d, ok := commandDocs(e.name); ok {
				top.kids = append(top.kids, node{kind: '$', s: e.name}, d)
			}
		}
		c.w.node(top)
	default:
		c.w.errorReply("ERR unknown subcommand '" + trunc(a[1], 128) + "'. Try COMMAND HELP.")
	}
	return false
}

func sortStrings(s []string) { slices.Sort(s) }
