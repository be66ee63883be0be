package server

import (
	"slices"
	"strconv"
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
	case "getkeys":
		commandGetKeys(c, a[2:])
	default:
		c.w.errorReply("ERR unknown subcommand '" + trunc(a[1], 128) + "'. Try COMMAND HELP.")
	}
	return false
}

// commandKeys returns the keys of the command in args, or Redis's COMMAND
// GETKEYS error text.
func commandKeys(args []string) ([]string, string) {
	const (
		noKeys   = "The command has no key arguments"
		badArity = "Invalid number of arguments specified for command"
		badArgs  = "Invalid arguments specified for command"
	)
	arityOK := func(arity int) bool {
		return (arity <= 0 || len(args) == arity) && len(args) >= -arity
	}
	if sc, ok := serverCommands[strings.ToLower(args[0])]; ok {
		switch sc.name {
		case "watch", "move", "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		case "object":
			if len(args) < 3 || strings.EqualFold(args[1], "help") {
				return nil, noKeys
			}
		default:
			return nil, noKeys
		}
		switch {
		case !arityOK(sc.arity):
			return nil, badArity
		case sc.name == "watch":
			return args[1:], ""
		case sc.name == "object":
			return args[2:3], ""
		case sc.name == "move":
			return args[1:2], ""
		}
		// Scripts may name no keys: a count Redis cannot use names none.
		n, err := strconv.ParseInt(args[2], 10, 64)
		if err != nil || n < 0 || n > int64(len(args)-3) {
			return nil, ""
		}
		return args[3 : 3+n], ""
	}
	cmd, ok := zlite.LookupName(args[0])
	switch {
	case !ok:
		return nil, "Invalid command specified"
	case !cmd.HasKeys():
		return nil, noKeys
	case !arityOK(cmd.Arity()):
		return nil, badArity
	}
	keys, ok := cmd.KeysIn(args)
	if !ok {
		return nil, badArgs
	}
	return keys, ""
}

// commandGetKeys is COMMAND GETKEYS: the keys of the command in args, with Redis's
// errors for an unknown command, a wrong number of words, a command without keys
// and a key count out of range.
func commandGetKeys(c *client, args []string) {
	keys, err := commandKeys(args)
	if err != "" {
		c.w.errorReply("ERR " + err)
		return
	}
	c.w.array(len(keys))
	for _, k := range keys {
		c.w.bulk(k)
	}
}

func sortStrings(s []string) { slices.Sort(s) }
