package zlite

import (
	"errors"
	"math"

	"github.com/zlite/zlite/internal/glob"
	"github.com/zlite/zlite/set"
)

// The set commands: SADD, SREM, SMEMBERS, SISMEMBER, SMISMEMBER, SCARD, SPOP,
// SRANDMEMBER, SMOVE, SINTER, SINTERCARD, SUNION, SDIFF and their STORE forms, and
// SSCAN. The value is a *set.Set, in the key table's own storage; the Do forms are
// in set_cmd.go.

var (
	// ErrNumKeysArgs is SINTERCARD's error for a numkeys above the number of keys
	// given.
	ErrNumKeysArgs = errors.New("ERR Number of keys can't be greater than number of args")
)

// setRead returns the set at key for a command that reads it (see read): nil if
// the key does not exist, ErrWrongType if it holds another type.
func (tx *Tx) setRead(key string) (*set.Set, error) {
	return setOf(tx.read(key))
}

// setOf is setRead for a value already looked up.
func setOf(v any) (*set.Set, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case *set.Set:
		return v, nil
	}
	return nil, ErrWrongType
}

// setWrite is setRead for a command that will modify the set in place
// (ErrReadOnly in View).
func (tx *Tx) setWrite(key string) (*set.Set, error) {
	s, err := tx.setChange(key)
	if s != nil {
		tx.sh(key).touch(key) // WATCH, and a snapshot's copy-on-write, before the change
	}
	return s, err
}

// setChange is setWrite for a command that may leave the set as it was: it
// touches the key itself before its first change (see shard.touchy). Both use
// the write lookup (value: no "keymiss").
func (tx *Tx) setChange(key string) (*set.Set, error) {
	if err := tx.writeErr(); err != nil {
		return nil, err
	}
	return setOf(tx.value(key))
}

// newSet creates an empty set at key, which must not exist; the caller adds a
// member before returning (empty keys never outlive a command).
func (tx *Tx) newSet(key string) *set.Set {
	sh := tx.sh(key)
	sh.touch(key)
	s := sh.keys.AddSet(key) // in the key table's own storage (internal/keytable)
	tx.notify(EventsNew, "new", key)
	return s
}

// SAdd is SADD: it adds members to the set at key, creating the key if needed, and
// returns the number added. The complexity is O(1) per member (O(n) while the set
// is small: an intset or packed).
//
//zlite:command sadd key
func (tx *Tx) SAdd(key string, members ...string) (int64, error) {
	if len(members) == 0 {
		return 0, errArity("sadd")
	}
	s, err := tx.setChange(key)
	if err != nil {
		return 0, err
	}
	if s == nil {
		s = tx.newSet(key)
	}
	sh := tx.sh(key)
	pending := sh.touchy()
	var n int64
	for _, m := range members {
		if pending && !s.Has(m) {
			sh.touch(key)
			pending = false
		}
		if s.Add(m, tx.db.limits.Load().Set) {
			n++
		}
	}
	if n > 0 {
		tx.notify(EventsSet, "sadd", key)
		if d := tx.log(); d != nil {
			d.cmd(members, "sadd", key)
		}
	}
	return n, nil
}

// SRem is SREM: it removes members from the set at key, deleting the key when it
// becomes empty, and returns the number removed. O(1) per member.
//
//zlite:command srem key
func (tx *Tx) SRem(key string, members ...string) (int64, error) {
	if len(members) == 0 {
		return 0, errArity("srem")
	}
	s, err := tx.setChange(key)
	if s == nil || err != nil {
		return 0, err
	}
	sh := tx.sh(key)
	pending := sh.touchy()
	var n int64
	for _, m := range members {
		if pending && s.Has(m) {
			sh.touch(key)
			pending = false
		}
		if s.Remove(m) {
			n++
			if s.Len() == 0 {
				break
			}
		}
	}
	if n > 0 {
		tx.notify(EventsSet, "srem", key)
		if d := tx.log(); d != nil {
			d.cmd(members, "srem", key)
		}
	}
	tx.dropIfEmpty(key, s)
	return n, nil
}

// SMembers is SMEMBERS: the members of the set at key in the set's order
// (ascending while it is an intset), empty when it does not exist. O(n).
//
//zlite:command smembers key
func (tx *Tx) SMembers(key string) ([]string, error) {
	s, err := tx.setRead(key)
	if s == nil || err != nil {
		return []string{}, err
	}
	return s.Members(), nil
}

// SIsMember is SISMEMBER: whether member is in the set at key. O(1).
//
//zlite:command sismember key
func (tx *Tx) SIsMember(key, member string) (bool, error) {
	s, err := tx.setRead(key)
	if s == nil || err != nil {
		return false, err
	}
	return s.Has(member), nil
}

// SMIsMember is SMISMEMBER: whether each of members is in the set at key. O(1) per
// member.
//
//zlite:command smismember key
func (tx *Tx) SMIsMember(key string, members ...string) ([]bool, error) {
	if len(members) == 0 {
		return nil, errArity("smismember")
	}
	s, err := tx.setRead(key)
	if err != nil {
		return nil, err
	}
	out := make([]bool, len(members))
	if s != nil {
		for i, m := range members {
			out[i] = s.Has(m)
		}
	}
	return out, nil
}

// SCard is SCARD: the number of members of the set at key, 0 when it does not
// exist. O(1).
//
//zlite:command scard key
func (tx *Tx) SCard(key string) (int64, error) {
	s, err := tx.setRead(key)
	if s == nil || err != nil {
		return 0, err
	}
	return int64(s.Len()), nil
}

// SPop is SPOP key: it removes a random member of the set at key and returns it,
// deleting the key when it becomes empty; ("", false) when the key does not exist.
// O(1) expected.
//
//zlite:command spop key
func (tx *Tx) SPop(key string) (string, bool, error) {
	s, err := tx.setWrite(key)
	if s == nil || err != nil {
		return "", false, err
	}
	m, _ := s.Random(nil)
	s.Remove(m)
	tx.notify(EventsSet, "spop", key)
	if d := tx.log(); d != nil {
		d.cmd(nil, "srem", key, m)
	}
	tx.dropIfEmpty(key, s)
	return m, true, nil
}

// SPopN is SPOP key count: it removes up to count random members and returns them
// (the whole set, in its order, when count is at least its size), deleting the key
// when it becomes empty. A negative count is [ErrNotPositive]. O(count)
// expected.
//
//zlite:command spop key
func (tx *Tx) SPopN(key string, count int64) ([]string, error) {
	if count < 0 {
		return nil, ErrNotPositive
	}
	s, err := tx.setChange(key)
	if s == nil || err != nil || count == 0 {
		return []string{}, err
	}
	tx.sh(key).touch(key)
	d := tx.log()
	if count >= int64(s.Len()) {
		out := s.Members()
		tx.sh(key).del(key)
		tx.notify(EventsSet, "spop", key)
		tx.notify(EventsGeneric, "del", key)
		if d != nil {
			d.cmd(nil, "del", key)
		}
		return out, nil
	}
	out := make([]string, count)
	for i := range out {
		out[i], _ = s.Random(nil)
		s.Remove(out[i])
	}
	tx.notify(EventsSet, "spop", key)
	if d != nil {
		d.cmd(out, "srem", key)
	}
	return out, nil
}

// SRandMember is SRANDMEMBER key: a random member of the set at key, ("", false)
// when the key does not exist. O(1) expected.
//
//zlite:command srandmember key
func (tx *Tx) SRandMember(key string) (string, bool, error) {
	s, err := tx.setRead(key)
	if s == nil || err != nil {
		return "", false, err
	}
	m, _ := s.Random(nil)
	return m, true, nil
}

// SRandMemberN is SRANDMEMBER key count: with count > 0, count distinct random
// members (the whole set, in its order, when count is at least its size); with
// count < 0, -count members picked independently (repeats possible), an error
// matching [ErrReplyTooLarge] beyond [WithMaxReplyElements]. Empty for a missing
// key or count 0. The complexity is O(|count|) expected.
//
//zlite:command srandmember key
func (tx *Tx) SRandMemberN(key string, count int64) ([]string, error) {
	if count == math.MinInt64 {
		return nil, ErrRandCountRange
	}
	s, err := tx.setRead(key)
	if s == nil || err != nil || count == 0 {
		return []string{}, err
	}
	if max := tx.db.cfg.maxReply; count < -int64(max) {
		return nil, errReplyTooLarge("srandmember", max)
	}
	n := s.Len()
	switch {
	case count < 0:
		out := make([]string, -count)
		for i := range out {
			out[i], _ = s.Random(nil)
		}
		return out, nil
	case count >= int64(n):
		return s.Members(), nil
	}
	return randDistinct(int(count), n, s.Members, func() (string, string) {
		m, _ := s.Random(nil)
		return m, m
	}), nil
}

// SMove is SMOVE: it moves member from the set at source to the set at destination
// (created if needed) and reports whether member was in source. Source missing is
// false whatever destination holds; then a source or destination of another type
// is [ErrWrongType]. O(1).
//
//zlite:command smove source destination
func (tx *Tx) SMove(source, destination, member string) (bool, error) {
	if err := tx.writeErr(); err != nil {
		return false, err
	}
	src, err := setOf(tx.value(source))
	if src == nil || err != nil {
		return false, err
	}
	dst, err := setOf(tx.value(destination))
	if err != nil {
		return false, err
	}
	if source == destination {
		return src.Has(member), nil
	}
	if !src.Has(member) {
		return false, nil
	}
	// A key is touched (WATCH, a snapshot's copy) only when it changes: the
	// destination not when it holds the member already, as in Redis.
	tx.sh(source).touch(source)
	src.Remove(member)
	tx.notify(EventsSet, "srem", source)
	tx.dropIfEmpty(source, src)
	switch {
	case dst == nil:
		dst = tx.newSet(destination)
		dst.Add(member, tx.db.limits.Load().Set)
		tx.notify(EventsSet, "sadd", destination)
	case !dst.Has(member):
		tx.sh(destination).touch(destination)
		dst.Add(member, tx.db.limits.Load().Set)
		tx.notify(EventsSet, "sadd", destination)
	}
	if d := tx.log(); d != nil {
		d.cmd(nil, "smove", source, destination, member)
	}
	return true, nil
}

// setInputs returns the sets at keys (nil for a missing key), or ErrWrongType if
// any holds another type, as Redis checks them all before it reads one.
func (tx *Tx) setInputs(name string, keys []string) ([]*set.Set, error) {
	if len(keys) == 0 {
		return nil, errArity(name)
	}
	sets := make([]*set.Set, len(keys))
	for i, k := range keys {
		s, err := tx.setRead(k)
		if err != nil {
			return nil, err
		}
		sets[i] = s
	}
	return sets, nil
}

// sinter computes the intersection of sets (none nil), calling yield with each
// member in the order of the smallest set, until yield returns false.
func sinter(sets []*set.Set, yield func(string) bool) {
	small := 0
	for i, s := range sets {
		if s.Len() < sets[small].Len() {
			small = i
		}
	}
	for m := range sets[small].All() {
		in := true
		for i, s := range sets {
			if i != small && s != sets[small] && !s.Has(m) {
				in = false
				break
			}
		}
		if in && !yield(m) {
			return
		}
	}
}

// inter returns the members of the intersection of the sets at keys, in the order
// of the smallest set, and nil when a key is missing.
func (tx *Tx) inter(name string, keys []string) ([]string, error) {
	sets, err := tx.setInputs(name, keys)
	if err != nil {
		return nil, err
	}
	out := []string{}
	for _, s := range sets {
		if s == nil {
			return out, nil
		}
	}
	sinter(sets, func(m string) bool {
		out = append(out, m)
		return true
	})
	return out, nil
}

// SInter is SINTER: the members of every set at keys (a missing key is an empty
// set). The complexity is O(n·k) for the smallest set's n members and k keys.
//
//zlite:command sinter keys...
func (tx *Tx) SInter(keys ...string) ([]string, error) { return tx.inter("sinter", keys) }

// SInterCard is SINTERCARD: the size of [Tx.SInter]'s result, counting stops at
// limit when limit > 0. A negative limit is [ErrLimitNegative]. The complexity is
// O(n·k), less with a limit.
//
//zlite:command sintercard keys...
func (tx *Tx) SInterCard(limit int64, keys ...string) (int64, error) {
	if limit < 0 {
		return 0, ErrLimitNegative
	}
	if len(keys) == 0 {
		return 0, ErrNumKeys
	}
	sets, err := tx.setInputs("sintercard", keys)
	if err != nil {
		return 0, err
	}
	for _, s := range sets {
		if s == nil {
			return 0, nil
		}
	}
	var n int64
	sinter(sets, func(string) bool {
		n++
		return limit == 0 || n < limit
	})
	return n, nil
}

// SUnion is SUNION: the members of any set at keys, each once, in the order they
// are first met (ascending when all are integers, as Redis's intset result).
// O(total members).
//
//zlite:command sunion keys...
func (tx *Tx) SUnion(keys ...string) ([]string, error) {
	r, err := tx.union("sunion", keys)
	if r == nil || err != nil {
		return []string{}, err
	}
	return r.Members(), nil
}

// union builds the union of the sets at keys as a new set value (nil when empty).
func (tx *Tx) union(name string, keys []string) (*set.Set, error) {
	sets, err := tx.setInputs(name, keys)
	if err != nil {
		return nil, err
	}
	r := set.New()
	for _, s := range sets {
		if s != nil {
			for m := range s.All() {
				r.Add(m, tx.db.limits.Load().Set)
			}
		}
	}
	return r, nil
}

// diff builds the members of the first set at keys that are in none of the others
// as a new set value.
func (tx *Tx) diff(name string, keys []string) (*set.Set, error) {
	sets, err := tx.setInputs(name, keys)
	if err != nil {
		return nil, err
	}
	r := set.New()
	first := sets[0]
	if first == nil {
		return r, nil
	}
	for _, s := range sets[1:] {
		if s == first {
			return r, nil // the first set minus itself
		}
	}
	for m := range first.All() {
		in := false
		for _, s := range sets[1:] {
			if s != nil && s.Has(m) {
				in = true
				break
			}
		}
		if !in {
			r.Add(m, tx.db.limits.Load().Set)
		}
	}
	return r, nil
}

// SDiff is SDIFF: the members of the first set at keys that are in none of the
// others, in the first set's order. O(n·k) for the first set's n members.
//
//zlite:command sdiff keys...
func (tx *Tx) SDiff(keys ...string) ([]string, error) {
	r, err := tx.diff("sdiff", keys)
	if err != nil {
		return []string{}, err
	}
	return r.Members(), nil
}

// storeMembers makes r the set at destination, replacing any value of any type,
// or deletes destination when r is empty, and returns r's size.
func (tx *Tx) storeMembers(event, destination string, r *set.Set) int64 {
	tx.store(event, EventsSet, destination, r)
	return int64(r.Len())
}

// SInterStore is SINTERSTORE: [Tx.SInter] stored at destination (deleted when the
// result is empty), returning the result's size. O(n·k).
//
//zlite:command sinterstore destination keys...
func (tx *Tx) SInterStore(destination string, keys ...string) (int64, error) {
	if err := tx.writeErr(); err != nil {
		return 0, err
	}
	ms, err := tx.inter("sinterstore", keys)
	if err != nil {
		return 0, err
	}
	r := set.New()
	for _, m := range ms {
		r.Add(m, tx.db.limits.Load().Set)
	}
	return tx.storeMembers("sinterstore", destination, r), nil
}

// SUnionStore is SUNIONSTORE: [Tx.SUnion] stored at destination (deleted when the
// result is empty), returning the result's size. O(total members).
//
//zlite:command sunionstore destination keys...
func (tx *Tx) SUnionStore(destination string, keys ...string) (int64, error) {
	if err := tx.writeErr(); err != nil {
		return 0, err
	}
	r, err := tx.union("sunionstore", keys)
	if err != nil {
		return 0, err
	}
	return tx.storeMembers("sunionstore", destination, r), nil
}

// SDiffStore is SDIFFSTORE: [Tx.SDiff] stored at destination (deleted when the
// result is empty), returning the result's size. O(n·k).
//
//zlite:command sdiffstore destination keys...
func (tx *Tx) SDiffStore(destination string, keys ...string) (int64, error) {
	if err := tx.writeErr(); err != nil {
		return 0, err
	}
	r, err := tx.diff("sdiffstore", keys)
	if err != nil {
		return 0, err
	}
	return tx.storeMembers("sdiffstore", destination, r), nil
}

// SScan is SSCAN: one step of an iteration over the set at key, starting at cursor
// 0 and ending when the returned cursor is 0. match filters members with a glob
// pattern as SCAN's ("" matches all); count is the work per call (≤ 0: 10). An
// intset or a packed set is returned whole with the cursor 0, as Redis does; for a
// larger set every member present for the whole iteration is returned exactly
// once. The complexity is O(count) per call.
//
//zlite:command sscan key
func (tx *Tx) SScan(key string, cursor uint64, match string, count int64) ([]string, uint64, error) {
	s, err := tx.setRead(key)
	if s == nil || err != nil {
		return []string{}, 0, err
	}
	out, next := sscan(s, cursor, match, count)
	return out, next, nil
}

// sscan is one SSCAN step over s (see [Tx.SScan]).
func sscan(s *set.Set, cursor uint64, match string, count int64) ([]string, uint64) {
	if match == "*" {
		match = ""
	}
	out := []string{}
	keep := func(m string) bool {
		if match == "" || glob.Match(match, m) {
			out = append(out, m)
		}
		return true
	}
	next := s.Scan(cursor, int(min(count, math.MaxInt32)), keep)
	return out, next
}
