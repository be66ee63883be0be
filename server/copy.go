package server

import (
	"strconv"
	"strings"
	"time"

	"github.com/zlite/zlite"
)

// copyTarget looks at the options of COPY source destination [DB n] [REPLACE], as
// the keyspace's COPY parses them. A keyspace takes DB 0 as "this keyspace", so a
// COPY to the client's own keyspace has its DB indexes rewritten to 0 in args, and
// copyTarget returns -1; DB naming another keyspace (0 to 15) returns its number,
// for [copyAcross]. Anything else (no DB, an index out of range, an error in the
// options) returns -1, and the keyspace's COPY replies as Redis: Redis checks the
// last index only after every option, the keyspace each where it meets it, so the
// indexes before the one to judge are rewritten to 0.
func (c *client) copyTarget(args []string) int {
	last := -1
	for j := 3; j < len(args); j++ {
		switch {
		case strings.EqualFold(args[j], "replace"):
		case strings.EqualFold(args[j], "db") && j+1 < len(args):
			if n, err := strconv.ParseInt(args[j+1], 10, 32); err != nil || strconv.FormatInt(n, 10) != args[j+1] {
				zeroDBs(args, j+1) // not an integer: the keyspace's error, here
				return -1
			}
			last = j + 1
			j++
		default:
			zeroDBs(args, j) // a syntax error
			return -1
		}
	}
	if last < 0 {
		return -1
	}
	n, _ := strconv.Atoi(args[last])
	switch {
	case n < 0 || n >= NumDBs:
		zeroDBs(args, last)
		return -1
	case n == c.db:
		zeroDBs(args, len(args))
		return -1
	}
	return n
}

// zeroDBs sets to 0 the DB indexes of COPY's options (args[3:]) that come before
// args[end], options that copyTarget has found valid.
func zeroDBs(args []string, end int) {
	for j := 3; j+1 < end; j++ {
		if strings.EqualFold(args[j], "db") {
			args[j+1] = "0"
			j++
		}
	}
}

// hasReplace reports whether COPY's options (args[3:]) hold REPLACE.
func hasReplace(args []string) bool {
	for _, a := range args[3:] {
		if strings.EqualFold(a, "replace") {
			return true
		}
	}
	return false
}

// keyValue is a key's value and TTL as read by readKey, to be written under
// another keyspace's lock by writeTo.
type keyValue struct {
	typ  string
	list []string
	zs   []zlite.Z
	str  string
	strs []string      // a set's members; a hash's fields, then its values
	at   time.Duration // PEXPIRETIME: Unix milliseconds, or negative
}

// readKey reads key's value and TTL; typ is "none" when key does not exist. Its
// one lookup of a missing key publishes "keymiss", as Redis's COPY reads its source.
func readKey(tx *zlite.Tx, key string) keyValue {
	var v keyValue
	v.typ, _ = tx.Type(key)
	switch v.typ {
	case "none":
		return v
	case "list":
		v.list, _ = tx.LRange(key, 0, -1)
	case "zset":
		v.zs, _ = tx.ZRangeWithScores(key, 0, -1)
	case "string":
		v.str, _, _ = tx.Get(key)
	case "set":
		v.strs, _ = tx.SMembers(key)
	case "hash":
		v.strs, _ = tx.HKeys(key)
		vals, _ := tx.HVals(key)
		v.strs = append(v.strs, vals...)
	}
	v.at, _ = tx.PExpireTime(key)
	return v
}

// writeTo creates key, which does not exist, with v's value and TTL, with RPUSH,
// ZADD, SADD, HSET or SET, so that clients blocked on key are served.
func (v keyValue) writeTo(tx *zlite.Tx, key string) error {
	var err error
	switch v.typ {
	case "list":
		_, err = tx.RPush(key, v.list...)
	case "zset":
		_, err = tx.ZAdd(key, v.zs...)
	case "set":
		_, err = tx.SAdd(key, v.strs...)
	case "hash":
		pairs := make([]string, 0, len(v.strs))
		for i := range len(v.strs) / 2 {
			pairs = append(pairs, v.strs[i], v.strs[len(v.strs)/2+i])
		}
		_, err = tx.HSet(key, pairs...)
	default:
		err = tx.Set(key, v.str, 0)
	}
	if err == nil && v.at >= 0 {
		_, err = tx.PExpireAt(key, time.UnixMilli(int64(v.at/time.Millisecond)))
	}
	return err
}

// copyAcross is COPY src dst DB n from keyspace from to another keyspace to: it
// copies src's value and TTL to dst and returns 1, or 0 when src does not exist or
// dst does and replace is false, as Redis. It reads src under from's lock and then
// writes dst under to's (see writeTo), so a command on to may run between the
// two; the copy is that of the source as it was when read. The complexity is O(n)
// for n elements.
func copyAcross(from, to *zlite.DB, src, dst string, replace bool) (int64, error) {
	var v keyValue
	_ = from.ViewKeys([]string{src}, func(tx *zlite.Tx) error {
		v = readKey(tx, src)
		return nil
	})
	if v.typ == "none" {
		return 0, nil
	}
	var n int64
	err := to.UpdateKeys([]string{dst}, func(tx *zlite.Tx) error {
		tx.MuteEvents(true) // Redis's events are "new" and "copy_to", below
		if e, _ := tx.Exists(dst); e > 0 {
			if !replace {
				return nil
			}
			if _, err := tx.Del(dst); err != nil {
				return err
			}
		}
		err := v.writeTo(tx, dst)
		tx.MuteEvents(false)
		if err == nil {
			n = 1
			tx.NotifyKeyspaceEvent(zlite.EventsNew, "new", dst)
			tx.NotifyKeyspaceEvent(zlite.EventsGeneric, "copy_to", dst)
		}
		return err
	})
	return n, err
}

// cmdMove is MOVE key db: the key, with its TTL, from the client's keyspace to
// keyspace db, unless it exists there (0). Both keyspaces' shards of key are held
// at once, the lower-numbered keyspace's first (so two MOVEs the other way round
// cannot deadlock): no command sees the key in both or in neither. O(n) for n
// elements.
func cmdMove(c *client, a []string) bool {
	n, err := strconv.ParseInt(a[2], 10, 32)
	switch {
	case err != nil || strconv.FormatInt(n, 10) != a[2]:
		c.w.errorReply(zlite.ErrNotInteger.Error())
		return false
	case n < 0 || n >= NumDBs:
		c.w.errorReply("ERR DB index is out of range")
		return false
	case int(n) == c.db:
		c.w.errorReply(zlite.ErrSameObject.Error())
		return false
	}
	from, to, key := c.srv.DB(c.db), c.srv.DB(int(n)), a[1]
	var moved int64
	move := func(src, dst *zlite.Tx) error {
		// Redis's events are "new", "move_from" and "move_to", below: its lookups
		// of key are writes, which publish no "keymiss".
		src.MuteEvents(true)
		dst.MuteEvents(true)
		if e, _ := src.Exists(key); e == 0 {
			return nil
		}
		if e, _ := dst.Exists(key); e > 0 {
			return nil
		}
		if err := readKey(src, key).writeTo(dst, key); err != nil {
			return err
		}
		moved = 1
		_, err := src.Del(key)
		src.MuteEvents(false)
		dst.MuteEvents(false)
		dst.NotifyKeyspaceEvent(zlite.EventsNew, "new", key)
		src.NotifyKeyspaceEvent(zlite.EventsGeneric, "move_from", key)
		dst.NotifyKeyspaceEvent(zlite.EventsGeneric, "move_to", key)
		return err
	}
	keys := []string{key}
	if c.db < int(n) {
		err = from.UpdateKeys(keys, func(src *zlite.Tx) error {
			return to.UpdateKeys(keys, func(dst *zlite.Tx) error { return move(src, dst) })
		})
	} else {
		err = to.UpdateKeys(keys, func(dst *zlite.Tx) error {
			return from.UpdateKeys(keys, func(src *zlite.Tx) error { return move(src, dst) })
		})
	}
	if err != nil {
		c.w.errorReply(err.Error())
		return false
	}
	c.w.integer(moved)
	return false
}
