package zlite

import (
	"github.com/zlite/zlite/internal/glob"
	"math/bits"
	"strconv"
	"strings"

	"github.com/zlite/zlite/list"
	"github.com/zlite/zlite/zset"
)

// Del is DEL: it deletes the given keys and returns how many existed. Callers blocked
// on them stay blocked. O(1) per key.
//
//zlite:command del keys...
func (tx *Tx) Del(keys ...string) (int64, error) {
	if err := tx.writeErr(); err != nil {
		return 0, err
	}
	var n int64
	for _, k := range keys {
		if tx.sh(k).del(k) {
			n++
		}
	}
	if d := tx.log(); d != nil && n > 0 {
		d.cmd(keys, "del")
	}
	return n, nil
}

// Exists is EXISTS: how many of keys exist, a key named twice counting twice. O(1)
// per key.
//
//zlite:command exists keys...
func (tx *Tx) Exists(keys ...string) (int64, error) {
	var n int64
	for _, k := range keys {
		if _, ok := tx.sh(k).lookup(k); ok {
			n++
		}
	}
	return n, nil
}

// typeName is TYPE's reply for a value.
func typeName(v any) string {
	switch v.(type) {
	case *zset.Set:
		return "zset"
	case *list.List:
		return "list"
	}
	return "none"
}

// Type is TYPE: "zset", "list", or "none" when key does not exist. O(1).
//
//zlite:command type key
func (tx *Tx) Type(key string) (string, error) {
	return typeName(tx.value(key)), nil
}

// Keys is KEYS: every key matching the glob pattern (as Redis: * ? [a-z] [^a] \x),
// shard by shard in creation order, expired keys left out. O(number of keys).
//
//zlite:command keys *
func (tx *Tx) Keys(pattern string) ([]string, error) {
	all := pattern == "*"
	r := []string{}
	for b := tx.held; b != 0; b &= b - 1 {
		sh := &tx.db.shards[bits.TrailingZeros64(b)]
		t := &sh.keys
		now := sh.walkNow()
		for i := range t.ents {
			if t.live(i) && !sh.expiredAt(i, now) && (all || glob.Match(pattern, t.key(i))) {
				r = append(r, t.keyCopy(i))
			}
		}
	}
	return r, nil
}

// Scan is SCAN cursor MATCH match COUNT count: it returns some keys and the cursor to
// continue from, 0 when the iteration is complete. Start with cursor 0. match ""
// matches every key, count ≤ 0 means 10. Every key that exists during the whole
// iteration is returned exactly once; keys created or deleted meanwhile may or may
// not be. The cursor names a shard (its top 8 bits) and the creation number of the
// next key to visit in it: the cost is O(log n + count), plus O(shards) over empty
// shards.
//
//zlite:command scan *
func (tx *Tx) Scan(cursor uint64, match string, count int64) ([]string, uint64, error) {
	return tx.scan(cursor, match, count, "")
}

// ScanType is SCAN with TYPE keyType ("zset" or "list"; other names match nothing).
// The cost is that of [Tx.Scan].
//
//zlite:command scan *
func (tx *Tx) ScanType(cursor uint64, match string, count int64, keyType string) ([]string, uint64, error) {
	return tx.scan(cursor, match, count, keyType)
}

// scanShardShift is the position of the shard's number in a SCAN cursor.
const scanShardShift = 56

func (tx *Tx) scan(cursor uint64, match string, count int64, keyType string) ([]string, uint64, error) {
	db := tx.db
	if count <= 0 {
		count = 10
	}
	if match == "*" {
		match = ""
	}
	r := []string{}
	visited := int64(0)
	seq := cursor & (1<<scanShardShift - 1)
	for si := int(cursor >> scanShardShift); si < len(db.shards); si, seq = si+1, 0 {
		if tx.held&(1<<si) == 0 {
			continue // a shard that UpdateKeys did not lock
		}
		sh := &db.shards[si]
		t := &sh.keys
		now := sh.walkNow()
		i := t.seek(seq)
		for ; i < len(t.ents) && visited < count; i++ {
			if !t.live(i) {
				continue
			}
			visited++
			if sh.expiredAt(i, now) {
				continue
			}
			if match != "" && !glob.Match(match, t.key(i)) {
				continue
			}
			if keyType != "" && !strings.EqualFold(keyType, typeName(t.value(i))) {
				continue
			}
			r = append(r, t.keyCopy(i))
		}
		for i < len(t.ents) && !t.live(i) {
			i++
		}
		if i < len(t.ents) {
			return r, uint64(si)<<scanShardShift | t.ents[i].seq, nil
		}
	}
	return r, 0, nil
}

// DBSize is DBSIZE: the number of keys. Keys whose time has come are deleted
// first, so the count never includes them (Redis's may, until its active expiry
// cycle reaches them): O(shards), plus O(log n) per such key.
//
//zlite:command dbsize *
func (tx *Tx) DBSize() (int64, error) {
	var n int64
	for b := tx.held; b != 0; b &= b - 1 {
		sh := &tx.db.shards[bits.TrailingZeros64(b)]
		sh.reclaim(-1)
		n += int64(sh.keys.n)
	}
	return n, nil
}

// FlushAll is FLUSHALL: it deletes every key. Blocked callers stay blocked. O(1)
// (the old keys are left to the garbage collector).
//
//zlite:command flushall *
func (tx *Tx) FlushAll() error {
	if err := tx.writeErr(); err != nil {
		return err
	}
	for b := tx.held; b != 0; b &= b - 1 {
		tx.db.shards[bits.TrailingZeros64(b)].flush()
	}
	if d := tx.log(); d != nil {
		d.cmd(nil, "flushall")
	}
	return nil
}

// Rename is RENAME: it moves key's value and TTL to newKey, replacing any value
// there, and serves callers blocked on newKey. [ErrNoSuchKey] when key does not
// exist. O(1).
//
//zlite:command rename key newKey
func (tx *Tx) Rename(key, newKey string) error {
	_, err := tx.rename(key, newKey, false)
	return err
}

// rename is RENAME, or RENAMENX when nx is set, which then reports false and
// changes nothing when newKey exists.
func (tx *Tx) rename(key, newKey string, nx bool) (bool, error) {
	if err := tx.writeErr(); err != nil {
		return false, err
	}
	src, dst := tx.sh(key), tx.sh(newKey)
	i, ok := src.lookup(key)
	if !ok {
		return false, ErrNoSuchKey
	}
	if key == newKey {
		return !nx, nil
	}
	if _, ok := dst.lookup(newKey); ok && nx {
		return false, nil
	}
	src.touch(key)            // a snapshot copies the value before it moves out
	v := src.keys.detached(i) // outlives the entry's deletion
	at, ttl := src.expiry(i)
	src.remove(i, key)
	dst.del(newKey)
	dst.add(newKey, v)
	if ttl {
		dst.setExpiry(len(dst.keys.ents)-1, at)
	}
	if d := tx.log(); d != nil {
		d.cmd(nil, "rename", key, newKey)
	}
	tx.signal(newKey)
	return true, nil
}

func init() {
	register(
		&command{name: "del", arity: -2, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.Del(a[1:]...))
		}},
		&command{name: "exists", arity: -2, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.Exists(a[1:]...))
		}},
		&command{name: "type", arity: 2, reply: replyStatus, run: func(tx *Tx, a []string) (any, error) {
			return tx.Type(a[1])
		}},
		&command{name: "keys", arity: 2, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			ks, _ := tx.Keys(a[1])
			return stringsReply(ks), nil
		}},
		&command{name: "scan", arity: -2, reply: replyBulk, run: cmdScan},
		&command{name: "dbsize", arity: 1, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.DBSize())
		}},
		&command{name: "flushall", arity: -1, reply: replyStatus, write: true, run: func(tx *Tx, a []string) (any, error) {
			if len(a) > 2 || (len(a) == 2 && !strings.EqualFold(a[1], "sync") && !strings.EqualFold(a[1], "async")) {
				return nil, ErrSyntax
			}
			return okReply(tx.FlushAll())
		}},
		&command{name: "rename", arity: 3, reply: replyStatus, write: true, run: func(tx *Tx, a []string) (any, error) {
			return okReply(tx.Rename(a[1], a[2]))
		}},
	)
}

// parseCursor parses a SCAN cursor as Redis's strtoul: optional sign (a '-' wraps
// around), decimal digits, nothing else; the empty string is 0.
func parseCursor(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	neg := false
	d := s
	if d[0] == '+' || d[0] == '-' {
		neg = d[0] == '-'
		d = d[1:]
	}
	n, err := strconv.ParseUint(d, 10, 64)
	if err != nil || d == "" || d[0] == '+' || d[0] == '-' {
		return 0, ErrInvalidCursor
	}
	if neg {
		n = -n
	}
	return n, nil
}

// cmdScan is SCAN cursor [MATCH pattern] [COUNT count] [TYPE type].
func cmdScan(tx *Tx, a []string) (any, error) {
	cursor, err := parseCursor(a[1])
	if err != nil {
		return nil, err
	}
	match, count, keyType, err := parseScanOptions(a[2:], true)
	if err != nil {
		return nil, err
	}
	keys, next, _ := tx.scan(cursor, match, count, keyType)
	return []any{strconv.FormatUint(next, 10), stringsReply(keys)}, nil
}

// parseScanOptions parses the [MATCH pattern] [COUNT count] options of SCAN and
// ZSCAN, and SCAN's [TYPE type] when withType is set. count defaults to 10; an empty
// TYPE comes back as "\x00", which matches no type name.
func parseScanOptions(opts []string, withType bool) (match string, count int64, keyType string, err error) {
	count = 10
	for i := 0; i < len(opts); i += 2 {
		more := i+1 < len(opts)
		switch {
		case strings.EqualFold(opts[i], "count") && more:
			n, err := parseInt(opts[i+1])
			if err != nil {
				return "", 0, "", err
			}
			if n < 1 {
				return "", 0, "", ErrSyntax
			}
			count = n
		case strings.EqualFold(opts[i], "match") && more:
			match = opts[i+1]
		case withType && strings.EqualFold(opts[i], "type") && more:
			keyType = opts[i+1]
			if keyType == "" {
				keyType = "\x00" // matches no type name
			}
		default:
			return "", 0, "", ErrSyntax
		}
	}
	return match, count, keyType, nil
}
