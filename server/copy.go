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

// copyAcross is COPY src dst DB n from keyspace from to another keyspace to: it
// copies src's value and TTL to dst and returns 1, or 0 when src does not exist or
// dst does and replace is false, as Redis. It reads src under from's lock and then
// writes dst under to's (creating dst with RPUSH, ZADD, SADD, HSET or SET, so that clients blocked
// on dst are served), so a command on to may run between the two; the copy is
// that of the source as it was when read. The complexity is O(n) for n elements.
func copyAcross(from, to *zlite.DB, src, dst string, replace bool) (int64, error) {
	var (
		typ  string
		list []string
		zs   []zlite.Z
		str  string
		strs []string      // a set's members; a hash's fields, then its values
		at   time.Duration // PEXPIRETIME: Unix milliseconds, or negative
	)
	_ = from.View(func(tx *zlite.Tx) error {
		typ, _ = tx.Type(src)
		switch typ {
		case "list":
			list, _ = tx.LRange(src, 0, -1)
		case "zset":
			zs, _ = tx.ZRangeWithScores(src, 0, -1)
		case "string":
			str, _, _ = tx.Get(src)
		case "set":
			strs, _ = tx.SMembers(src)
		case "hash":
			strs, _ = tx.HKeys(src)
			vals, _ := tx.HVals(src)
			strs = append(strs, vals...)
		}
		at, _ = tx.PExpireTime(src)
		return nil
	})
	if typ == "none" {
		return 0, nil
	}
	var n int64
	err := to.Update(func(tx *zlite.Tx) error {
		if e, _ := tx.Exists(dst); e > 0 {
			if !replace {
				return nil
			}
			if _, err := tx.Del(dst); err != nil {
				return err
			}
		}
		var err error
		switch typ {
		case "list":
			_, err = tx.RPush(dst, list...)
		case "zset":
			_, err = tx.ZAdd(dst, zs...)
		case "set":
			_, err = tx.SAdd(dst, strs...)
		case "hash":
			pairs := make([]string, 0, len(strs))
			for i := range len(strs) / 2 {
				pairs = append(pairs, strs[i], strs[len(strs)/2+i])
			}
			_, err = tx.HSet(dst, pairs...)
		default:
			err = tx.Set(dst, str, 0)
		}
		if err == nil && at >= 0 {
			_, err = tx.PExpireAt(dst, time.UnixMilli(int64(at/time.Millisecond)))
		}
		if err == nil {
			n = 1
		}
		return err
	})
	return n, err
}
