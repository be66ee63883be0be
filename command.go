package zlite

import (
	"context"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/zlite/zlite/internal/serverapi"
	"github.com/zlite/zlite/zset"
)

//go:generate go run ./internal/gendb/cmd/gendb

// command is one entry of the command table used by [DB.Do] and [Tx.Do].
type command struct {
	// name is the canonical lower-case name, as Redis prints it in arity errors.
	name string
	// arity follows Redis: n > 0 means exactly n words (the name included), n < 0
	// means at least -n words.
	arity int
	// write is set for commands that may modify the keyspace (refused by View's Tx).
	write bool
	// stat is the command's counter index for Stats (set by register).
	stat int
	// reply declares the RESP form of the reply (see command_info.go); every command sets it.
	reply reply
	// run executes the command under the keyspace lock. args[0] is the name as typed.
	// It returns a reply shaped like go-redis Do().Result(): int64, string, []any,
	// nil for a null reply, or an error whose text is Redis's.
	run func(tx *Tx, args []string) (any, error)
	// pairs, when set, runs the command as run does but writes the member-score
	// pairs of its reply to w (see serverapi.Hooks.DoPipelined); the reply is that of run
	// when it returns no error.
	pairs func(tx *Tx, args []string, w serverapi.PairWriter) error
	// block, for blocking commands only, parses args into a waiter (run is then
	// derived from it: try once, never block).
	block func(db *DB, args []string) (blockPop, error)
	// keys says where the command's keys are (set by register from keySpecs).
	keys keySpec
	// shared is set (by register) for the reads of one key, which a pipeline of them
	// runs under the shard's lock shared with other reads (doPipelined).
	shared bool
}

// keySpec says where a command's keys are among its words, so that Do locks their
// shards: first, last and step as Redis's COMMAND INFO (keys at first, first+step,
// ..., last; a negative last counts from the end), then, when numkeys > 0, the
// keys counted by the word at numkeys, which follow it. The zero keySpec is one key,
// the first argument. A command with whole set reaches every key (KEYS, SCAN): it
// locks every shard.
type keySpec struct {
	first, last, step int
	numkeys           int
	whole             bool
}

// keySpecs holds the key positions of the commands whose keys are not just the
// first argument.
var keySpecs = map[string]keySpec{
	"blpop": {1, -2, 1, 0, false}, "brpop": {1, -2, 1, 0, false},
	"bzpopmin": {1, -2, 1, 0, false}, "bzpopmax": {1, -2, 1, 0, false},
	"del": {1, -1, 1, 0, false}, "exists": {1, -1, 1, 0, false},
	"unlink": {1, -1, 1, 0, false}, "touch": {1, -1, 1, 0, false},
	"lmove": {1, 2, 1, 0, false}, "rpoplpush": {1, 2, 1, 0, false},
	"blmove": {1, 2, 1, 0, false}, "brpoplpush": {1, 2, 1, 0, false},
	"rename": {1, 2, 1, 0, false}, "renamenx": {1, 2, 1, 0, false},
	"copy": {1, 2, 1, 0, false}, "zrangestore": {1, 2, 1, 0, false},
	"zunion": {0, 0, 0, 1, false}, "zinter": {0, 0, 0, 1, false},
	"zdiff": {0, 0, 0, 1, false}, "zintercard": {0, 0, 0, 1, false},
	"lmpop": {0, 0, 0, 1, false}, "zmpop": {0, 0, 0, 1, false},
	"blmpop": {0, 0, 0, 2, false}, "bzmpop": {0, 0, 0, 2, false},
	"zunionstore": {1, 1, 1, 2, false}, "zinterstore": {1, 1, 1, 2, false},
	"zdiffstore": {1, 1, 1, 2, false},
	"mget":       {1, -1, 1, 0, false}, "mset": {1, -1, 2, 0, false}, "msetnx": {1, -1, 2, 0, false},
	"bitop": {2, -1, 1, 0, false},
	"smove": {1, 2, 1, 0, false}, "sintercard": {0, 0, 0, 1, false},
	"sinter": {1, -1, 1, 0, false}, "sunion": {1, -1, 1, 0, false}, "sdiff": {1, -1, 1, 0, false},
	"sinterstore": {1, -1, 1, 0, false}, "sunionstore": {1, -1, 1, 0, false},
	"sdiffstore": {1, -1, 1, 0, false}, "lcs": {1, 2, 1, 0, false},
	"keys": {whole: true}, "scan": {whole: true}, "dbsize": {whole: true},
	"flushall": {whole: true}, "randomkey": {whole: true},
	// SORT's BY and GET patterns name keys made from the sorted values: any key.
	"sort": {whole: true}, "sort_ro": {whole: true},
}

// mask returns the shards that the command in args names (every shard for a
// command over the whole keyspace, or when its key count is not a number in
// range: then it fails before touching a key). O(number of keys).
func (k keySpec) mask(db *DB, args []string) uint64 {
	if k.whole {
		return db.all
	}
	if k.first == 0 && k.numkeys == 0 {
		return 1 << db.shardOf(args[1])
	}
	r, ok := k.ranges(args)
	if !ok {
		return db.all
	}
	var m uint64
	for i := r.first; i <= r.last; i += r.step {
		m |= 1 << db.shardOf(args[i])
	}
	for _, key := range args[r.counted[0]:r.counted[1]] {
		m |= 1 << db.shardOf(key)
	}
	return m
}

// keyRanges is where a command's keys are in its words: at first, first+step,
// ..., last, then counted[0] to counted[1] (the keys a count gives).
type keyRanges struct {
	first, last, step int
	counted           [2]int
}

// ranges returns the key positions of the command in args for a keySpec that is
// neither whole nor the zero one, and false when its key count is not a number in
// range.
func (k keySpec) ranges(args []string) (keyRanges, bool) {
	r := keyRanges{first: 1, last: 0, step: 1}
	if k.first > 0 {
		r.first, r.last, r.step = k.first, k.last, k.step
		if r.last < 0 {
			r.last += len(args)
		}
		r.last = min(r.last, len(args)-1)
	}
	if k.numkeys > 0 {
		n, err := parseInt(args[k.numkeys])
		if err != nil || n < 1 || n > int64(len(args)-k.numkeys-1) {
			return r, false
		}
		r.counted = [2]int{k.numkeys + 1, k.numkeys + 1 + int(n)}
	}
	return r, true
}

// lock locks the shards of the command in args (mask) and returns its Tx: a
// command of one key through lockKey, which keeps the key's hash for its lookups.
func (k keySpec) lock(db *DB, args []string) *Tx {
	if !k.whole && k.first == 0 && k.numkeys == 0 {
		return db.lockKey(args[1])
	}
	return db.lockMask(k.mask(db, args))
}

// commands is the command table, keyed by lower-case name. Each file registers its
// commands from an init function with register.
var commands = map[string]*command{}

// register adds commands to the table. It panics on a duplicate name, which is a
// programming error caught by any test.
func register(cmds ...*command) {
	for _, c := range cmds {
		if _, dup := commands[c.name]; dup {
			panic("zlite: command registered twice: " + c.name)
		}
		c.stat = statIndex(c.name)
		c.keys = keySpecs[c.name]
		if c.block != nil {
			c.write = true
			c.run = runBlockingOnce(c.block)
		}
		c.shared = !c.write && c.keys == keySpec{}
		commands[c.name] = c
	}
}

// lookup finds the command named by args[0], case-insensitively, and checks its
// arity, returning Redis's error texts.
func lookup(args []string) (*command, error) {
	if len(args) == 0 {
		return nil, errUnknownCommand([]string{""})
	}
	c, ok := commands[args[0]]
	if !ok {
		// Fold ASCII case in a stack buffer: map lookups keyed by string(bytes) do
		// not allocate, unlike strings.ToLower. Names longer than any command's
		// cannot match.
		var buf [24]byte
		name := args[0]
		if len(name) <= len(buf) {
			for i := 0; i < len(name); i++ {
				ch := name[i]
				if 'A' <= ch && ch <= 'Z' {
					ch += 'a' - 'A'
				}
				buf[i] = ch
			}
			c, ok = commands[string(buf[:len(name)])]
		}
		if !ok {
			return nil, errUnknownCommand(args)
		}
	}
	if (c.arity > 0 && len(args) != c.arity) || len(args) < -c.arity {
		return nil, errArity(c.name)
	}
	return c, nil
}

// Do runs one Redis command given as words, for example
// db.Do(ctx, "ZADD", "k", "1", "a"). Command names are case-insensitive.
//
// The reply is shaped like go-redis's Do(...).Result() with RESP2: int64 for
// integers, string for bulk and status replies ("OK"), []any for arrays, nil for a
// null reply; scores are strings formatted as Redis replies them. Errors carry
// Redis's exact text (arity, unknown command, syntax, parsing, WRONGTYPE, ...); a
// command that fails changes nothing.
//
// Blocking commands (BLPOP, BZPOPMIN, ...) wait as in Redis, taking their timeout in
// seconds from args; they also return ctx.Err() when ctx is done first. Other
// commands ignore ctx. Do costs a table lookup and argument parsing on top of the
// typed method.
func (db *DB) Do(ctx context.Context, args ...string) (any, error) {
	c, err := lookup(args)
	if err != nil {
		return nil, err
	}
	if c.block != nil {
		db.countBlocking(c.stat)
		p, err := c.block(db, args)
		if err != nil {
			return nil, err
		}
		return db.blockReply(ctx, &p)
	}
	tx := c.keys.lock(db, args)
	tx.home.count(c.stat)
	t0 := db.start()
	r, err := c.run(tx, args)
	if err = tx.finish(c.stat, t0, err); err != nil {
		return nil, err
	}
	return r, nil
}

// readers holds the Tx values of shared reads (rlockMask): the functions they are
// passed to are function values, so a Tx escapes to the heap, and reusing them keeps
// reads allocation-free.
var readers = sync.Pool{New: func() any { return new(Tx) }}

// Do runs one Redis command inside a batch; see [DB.Do]. Blocking commands do not
// block: as inside MULTI, they reply null when nothing is ready. In the Tx of
// [DB.View], write commands fail with [ErrReadOnly].
func (tx *Tx) Do(args ...string) (any, error) {
	c, err := lookup(args)
	if err != nil {
		return nil, err
	}
	tx.count(c.stat)
	if c.write {
		if err := tx.writeErr(); err != nil {
			return nil, err
		}
	}
	return c.run(tx, args)
}

// parseInt parses a 64-bit integer exactly as Redis's string2ll: an optional '-',
// no '+', no leading zeros, no spaces. Errors are ErrNotInteger.
func parseInt(s string) (int64, error) {
	if len(s) == 0 || len(s) > 20 {
		return 0, ErrNotInteger
	}
	if s == "0" {
		return 0, nil
	}
	neg := s[0] == '-'
	d := s
	if neg {
		d = s[1:]
	}
	if len(d) == 0 || d[0] < '1' || d[0] > '9' {
		return 0, ErrNotInteger
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, ErrNotInteger
	}
	return n, nil
}

// checkMPop checks the keys and count given to the typed LMPop, ZMPop, BLMPop and
// BZMPop methods.
func checkMPop(keys []string, count int64) error {
	if len(keys) == 0 {
		return ErrNumKeys
	}
	if count < 1 {
		return ErrCountPositive
	}
	return nil
}

// clampInt converts a parsed 64-bit integer to int for the engine packages.
func clampInt(n int64) int {
	return int(max(min(n, math.MaxInt), math.MinInt))
}

// parsePosition parses LEFT or RIGHT (case-insensitively); true means LEFT (the head).
func parsePosition(s string) (left bool, err error) {
	switch {
	case strings.EqualFold(s, "left"):
		return true, nil
	case strings.EqualFold(s, "right"):
		return false, nil
	}
	return false, ErrSyntax
}

// parseMove parses LMOVE and BLMOVE's wherefrom and whereto, in that order.
func parseMove(srcPos, dstPos string) (srcLeft, dstLeft bool, err error) {
	if srcLeft, err = parsePosition(srcPos); err != nil {
		return false, false, err
	}
	dstLeft, err = parsePosition(dstPos)
	return srcLeft, dstLeft, err
}

// formatScore formats a score as Redis 7.2+ replies it.
func formatScore(f float64) string {
	return zset.FormatScore(f)
}

// entriesReply is the flat [member, score, ...] reply of WITHSCORES and ZPOPMIN.
func entriesReply(zs []Z) []any {
	r := make([]any, 0, 2*len(zs))
	for _, z := range zs {
		r = append(r, z.Member, formatScore(z.Score))
	}
	return r
}

// stringsReply is an array reply of bulk strings.
func stringsReply(ss []string) []any {
	r := make([]any, len(ss))
	for i, s := range ss {
		r[i] = s
	}
	return r
}

// parseStartStop parses the start and stop indexes of "CMD key start stop" (LRANGE,
// LTRIM, ZREMRANGEBYRANK), reporting the first that is not an integer.
func parseStartStop(a []string) (start, stop int64, err error) {
	if start, err = parseInt(a[2]); err != nil {
		return 0, 0, err
	}
	stop, err = parseInt(a[3])
	return start, stop, err
}
