package zlite

import (
	"errors"
	"github.com/zlite/zlite/dict"
	"github.com/zlite/zlite/internal/keytable"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/zlite/zlite/internal/glob"

	"github.com/zlite/zlite/list"
	"github.com/zlite/zlite/set"
	"github.com/zlite/zlite/zset"
)

// The generic key commands (Redis's keyspace group): DEL, UNLINK, EXISTS, TOUCH, TYPE,
// KEYS, SCAN, DBSIZE, FLUSHALL, RENAME, RENAMENX, COPY, RANDOMKEY and OBJECT ENCODING.
// The Do forms are in keys_cmd.go.

var (
	// ErrSameObject is COPY's reply when the source and destination are one key.
	ErrSameObject = errors.New("ERR source and destination objects are the same")
	// ErrDBIndex is COPY's reply to a DB option other than 0: a DB is one keyspace,
	// as a Redis server configured with "databases 1".
	ErrDBIndex = errors.New("ERR DB index is out of range")
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
			tx.notify(EventsGeneric, "del", k)
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
		} else {
			tx.missed(k)
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
	case *stringValue, *keytable.Short:
		return "string"
	case *dict.Map:
		return "hash"
	case *set.Set:
		return "set"
	}
	return "none"
}

// Type is TYPE: "string", "list", "zset", "hash", "set", or "none" when key does
// not exist. O(1).
//
//zlite:command type key
func (tx *Tx) Type(key string) (string, error) {
	return typeName(tx.read(key)), nil
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
		for i := range t.Entries() {
			if t.Live(i) && !sh.expiredAt(i, now) && (all || glob.Match(pattern, t.Key(i))) {
				r = append(r, t.KeyCopy(i))
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

// ScanType is SCAN with TYPE keyType (a name [Tx.Type] gives, in any case; other
// names match nothing).
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
		i := t.Seek(seq)
		for ; i < t.Entries() && visited < count; i++ {
			if !t.Live(i) {
				continue
			}
			visited++
			if sh.expiredAt(i, now) {
				continue
			}
			if match != "" && !glob.Match(match, t.Key(i)) {
				continue
			}
			if keyType != "" && !strings.EqualFold(keyType, typeName(t.Value(i))) {
				continue
			}
			r = append(r, t.KeyCopy(i))
		}
		for i < t.Entries() && !t.Live(i) {
			i++
		}
		if i < t.Entries() {
			return r, uint64(si)<<scanShardShift | t.Seq(i), nil
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
		n += int64(sh.keys.Len())
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
	v := src.keys.Detached(i) // outlives the entry's deletion
	at, ttl := src.expiry(i)
	src.remove(i, key)
	dst.del(newKey)
	j := dst.add(newKey, v)
	if ttl {
		dst.setExpiry(j, at)
	}
	tx.notify(EventsNew, "new", newKey)
	tx.notify(EventsGeneric, "rename_from", key)
	tx.notify(EventsGeneric, "rename_to", newKey)
	if d := tx.log(); d != nil {
		d.cmd(nil, "rename", key, newKey)
	}
	tx.signal(newKey)
	return true, nil
}

// Copy is COPY source destination [DB db] [REPLACE]: it copies source's value and
// TTL to destination and returns 1, or 0 when source does not exist or destination
// does and replace is false. destDB must be 0 ([ErrDBIndex] otherwise: a DB is one
// keyspace); [ErrSameObject] when the keys are the same. Callers blocked on
// destination are served. O(n) for a value of n elements.
//
//zlite:command copy source destination
func (tx *Tx) Copy(source, destination string, destDB int, replace bool) (int64, error) {
	if err := tx.writeErr(); err != nil {
		return 0, err
	}
	if destDB != 0 {
		return 0, ErrDBIndex
	}
	if source == destination {
		return 0, ErrSameObject
	}
	src, dst := tx.sh(source), tx.sh(destination)
	i, ok := src.lookup(source)
	if !ok {
		tx.missed(source) // Redis reads the source, and writes the destination
		return 0, nil
	}
	v := src.keys.Value(i)
	at, ttl := src.expiry(i)
	if _, ok := dst.lookup(destination); ok {
		if !replace {
			return 0, nil
		}
		dst.del(destination)
	}
	j := dst.add(destination, clone(v))
	if ttl {
		dst.setExpiry(j, at)
	}
	tx.notify(EventsNew, "new", destination)
	tx.notify(EventsGeneric, "copy_to", destination)
	if d := tx.log(); d != nil {
		d.cmd(nil, "copy", source, destination, "REPLACE")
	}
	tx.signal(destination)
	return 1, nil
}

// clone returns a deep copy of a key's value (COPY; a snapshot's copy-on-write). O(n).
func clone(v any) any {
	switch v := v.(type) {
	case *zset.Set:
		return v.Clone()
	case *list.List:
		c := list.New()
		for _, s := range v.All() {
			c.PushBack(s)
		}
		return c
	case *stringValue:
		return &stringValue{b: slices.Clone(v.b), enc: v.enc}
	case *keytable.Short:
		return keytable.NewShort(v.Bytes(), v.Enc)
	case *dict.Map:
		return v.Clone()
	case *set.Set:
		return v.Clone()
	}
	panic("zlite: cannot copy a value of this type")
}

// RenameNX is RENAMENX: [Tx.Rename] only if newKey does not exist; it reports
// whether the key was renamed (false when key and newKey are the same). O(1).
//
//zlite:command renamenx key newKey
func (tx *Tx) RenameNX(key, newKey string) (bool, error) {
	return tx.rename(key, newKey, true)
}

// Unlink is UNLINK: [Tx.Del] (zlite frees values through the garbage collector, so
// every delete is already non-blocking). O(1) per key.
//
//zlite:command unlink keys...
func (tx *Tx) Unlink(keys ...string) (int64, error) {
	return tx.Del(keys...)
}

// Touch is TOUCH: how many of keys exist (zlite keeps no access times to update).
// O(1) per key.
//
//zlite:command touch keys...
func (tx *Tx) Touch(keys ...string) (int64, error) {
	return tx.Exists(keys...)
}

// RandomKey is RANDOMKEY: a key chosen uniformly at random, false when the keyspace
// is empty. Expired keys it meets are deleted and the draw repeated. O(1) expected
// (at most half the key table's entries are deleted ones), plus O(1) per expired
// key deleted.
//
//zlite:command randomkey *
func (tx *Tx) RandomKey() (string, bool, error) {
	db := tx.db
	for {
		n := 0
		for b := tx.held; b != 0; b &= b - 1 {
			n += db.shards[bits.TrailingZeros64(b)].keys.Len()
		}
		if n == 0 {
			return "", false, nil
		}
		// The shard holding the r-th key, counting shard by shard.
		r := rand.IntN(n)
		var sh *shard
		for b := tx.held; b != 0; b &= b - 1 {
			sh = &db.shards[bits.TrailingZeros64(b)]
			if r < sh.keys.Len() {
				break
			}
			r -= sh.keys.Len()
		}
		if key, ok := sh.randomKey(); ok {
			return key, true, nil
		}
	}
}

// randomKey returns one of the shard's keys chosen uniformly, or false when the
// one drawn had expired (it is deleted: draw again). The shard holds a key.
func (sh *shard) randomKey() (string, bool) {
	t := &sh.keys
	for {
		i := rand.IntN(t.Entries())
		if !t.Live(i) {
			continue
		}
		if sh.expiredAt(i, sh.walkNow()) {
			sh.expireEntry(i, t.Key(i))
			return "", false
		}
		return t.KeyCopy(i), true
	}
}

// ObjectEncoding is OBJECT ENCODING key: what Redis says for key: a sorted set's
// own encoding ("listpack" while small, "skiplist" after, as [zset.Set.Encoding]
// reports), "quicklist" for a list (Redis 7.0's only list encoding); ok is false
// when key does not exist. The complexity is O(1).
//
//zlite:command object key
func (tx *Tx) ObjectEncoding(key string) (enc string, ok bool) {
	v := tx.value(key)
	if v == nil {
		return "", false
	}
	return encodingOf(v), true
}

// encodingOf is OBJECT ENCODING's reply for a value.
func encodingOf(v any) string {
	switch v := v.(type) {
	case *keytable.Short:
		s, _ := stringOf(v)
		return s.Encoding()
	case interface{ Encoding() string }:
		return v.Encoding()
	}
	return "quicklist"
}
