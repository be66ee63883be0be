package zlite

import (
	"math"

	"github.com/zlite/zlite/zset"
)

// ZADD, ZINCRBY and ZREM: the writes that add, change or remove members by name. The
// Do forms are in zset_cmd.go.

// checkZAddOptions checks ZADD's options for n pairs in Redis's order: option
// conflicts, then INCR with several pairs.
func checkZAddOptions(opt zset.AddOptions, incr bool, n int) error {
	if opt.NX && opt.XX {
		return zset.ErrXXAndNX
	}
	if (opt.GT && opt.NX) || (opt.LT && opt.NX) || (opt.GT && opt.LT) {
		return zset.ErrGTLTNX
	}
	if incr && n > 1 {
		return ErrIncrPair
	}
	return nil
}

// validateZAdd checks ZADD's options, then the scores (NaN is not a valid float).
func validateZAdd(opt zset.AddOptions, incr bool, zs []Z) error {
	if err := checkZAddOptions(opt, incr, len(zs)); err != nil {
		return err
	}
	for i := range zs {
		if math.IsNaN(zs[i].Score) {
			return zset.ErrNotFloat
		}
	}
	return nil
}

// zadd runs a validated ZADD: it returns the ZADD count or, with incr, the new score
// and whether the update happened (ok false is Redis's nil reply).
func (tx *Tx) zadd(key string, opt zset.AddOptions, incr bool, zs []Z) (n int64, score float64, ok bool, err error) {
	if err := tx.writeErr(); err != nil {
		return 0, 0, false, err
	}
	s, err := zsetOf(tx.value(key)) // the write lookup: no "keymiss"
	if err != nil {
		return 0, 0, false, err
	}
	if s == nil && opt.XX {
		return 0, 0, false, nil
	}
	sh := tx.sh(key)
	if s != nil {
		sh.cow(key) // the watches only if something changes, as in Redis
	}
	mark := -1
	if d := tx.log(); d != nil {
		// Before the hand-off, whose pop follows it; taken back if the add fails.
		mark = len(d.rec)
		d.zadd(key, opt, incr, zs)
	}
	if s == nil {
		if !incr && len(zs) == 1 {
			// One new member: hand it to a waiter without creating the set. NX, GT, LT
			// and CH all count it as added.
			if tx.handsOff(key) && tx.handZSet(key, zs[0]) {
				return 1, 0, false, nil
			}
		}
		s = tx.newZSet(key)
	}
	changed := false
	if incr {
		before, had := 0.0, false
		if sh.watches.n != 0 || tx.notifying(EventsZSet) {
			before, had = s.Score(zs[0].Member)
		}
		score, ok, err = s.AddIncr(opt, zs[0].Member, zs[0].Score)
		changed = ok && (!had || score != before)
	} else {
		// Counted with CH, changes and additions both: the additions are the growth.
		size := s.Len()
		ch := opt.CH
		opt.CH = true
		var k int
		k, err = s.Add(opt, zs...)
		changed, n = k > 0, int64(s.Len()-size)
		if ch {
			n = int64(k)
		}
	}
	if changed {
		sh.touchWatches(key)
		if incr {
			tx.notify(EventsZSet, "zincr", key)
		} else {
			tx.notify(EventsZSet, "zadd", key)
		}
	}
	if s.Len() == 0 {
		tx.dropIfEmpty(key, s)
	} else {
		tx.signal(key)
	}
	if err != nil && mark >= 0 {
		tx.rec.rec = tx.rec.rec[:mark]
	}
	return n, score, ok, err
}

// zaddArity returns the error Redis gives a ZADD with opts options and no pairs.
func zaddArity(opts int) error {
	if 2+opts < 4 {
		return errArity("zadd")
	}
	return ErrSyntax
}

// options returns a's flags as zset options and how many flags are set.
func (a *ZAddArgs) options() (zset.AddOptions, int) {
	o := zset.AddOptions{NX: a.NX, XX: a.XX, GT: a.GT, LT: a.LT, CH: a.Ch}
	n := 0
	for _, b := range []bool{a.NX, a.XX, a.GT, a.LT, a.Ch} {
		if b {
			n++
		}
	}
	return o, n
}

// ZAdd is ZADD: it adds members to the sorted set at key, or updates their scores,
// creating the key if needed, and returns the number of new members. Callers
// blocked on key (BZPOPMIN...) are served afterwards. A NaN score is
// zset.ErrNotFloat and changes nothing. The complexity is O(log n) per member.
//
//zlite:command zadd key
func (tx *Tx) ZAdd(key string, members ...Z) (int64, error) {
	return tx.ZAddArgs(key, ZAddArgs{Members: members})
}

// ZAddNX is ZADD NX: it adds new members only. See [Tx.ZAdd]. The complexity is
// O(log n) per member.
//
//zlite:command zadd key
func (tx *Tx) ZAddNX(key string, members ...Z) (int64, error) {
	return tx.ZAddArgs(key, ZAddArgs{NX: true, Members: members})
}

// ZAddXX is ZADD XX: it updates existing members only and never creates the key.
// The complexity is O(log n) per member.
//
//zlite:command zadd key
func (tx *Tx) ZAddXX(key string, members ...Z) (int64, error) {
	return tx.ZAddArgs(key, ZAddArgs{XX: true, Members: members})
}

// ZAddGT is ZADD GT: it adds new members and raises existing scores only. The
// complexity is O(log n) per member.
//
//zlite:command zadd key
func (tx *Tx) ZAddGT(key string, members ...Z) (int64, error) {
	return tx.ZAddArgs(key, ZAddArgs{GT: true, Members: members})
}

// ZAddLT is ZADD LT: it adds new members and lowers existing scores only. The
// complexity is O(log n) per member.
//
//zlite:command zadd key
func (tx *Tx) ZAddLT(key string, members ...Z) (int64, error) {
	return tx.ZAddArgs(key, ZAddArgs{LT: true, Members: members})
}

// ZAddArgs is ZADD with options: it returns the number of new members (with Ch, new
// plus changed). Option conflicts are zset.ErrXXAndNX and zset.ErrGTLTNX; nothing
// changes on error. The complexity is O(log n) per member.
//
//zlite:command zadd key
func (tx *Tx) ZAddArgs(key string, args ZAddArgs) (int64, error) {
	opt, nopts := args.options()
	if len(args.Members) == 0 {
		return 0, zaddArity(nopts)
	}
	if err := validateZAdd(opt, false, args.Members); err != nil {
		return 0, err
	}
	n, _, _, err := tx.zadd(key, opt, false, args.Members)
	return n, err
}

// ZAddArgsIncr is ZADD ... INCR: it adds the single member's score to its current
// score (a new member gets it) and returns the result; ok is false when NX, XX, GT or
// LT prevented the update (Redis's nil reply). More than one member is
// [ErrIncrPair]; a NaN sum is zset.ErrNaNResult. The complexity is O(log n).
//
//zlite:command zadd key
func (tx *Tx) ZAddArgsIncr(key string, args ZAddArgs) (score float64, ok bool, err error) {
	opt, nopts := args.options()
	if len(args.Members) == 0 {
		return 0, false, zaddArity(nopts + 1)
	}
	if err := validateZAdd(opt, true, args.Members); err != nil {
		return 0, false, err
	}
	_, score, ok, err = tx.zadd(key, opt, true, args.Members)
	return score, ok, err
}

// ZIncrBy is ZINCRBY: it adds increment to member's score, adding the member (with
// score increment) if needed, and returns the new score. A NaN increment is
// zset.ErrNotFloat, a NaN result zset.ErrNaNResult. The complexity is O(log n).
//
//zlite:command zincrby key
func (tx *Tx) ZIncrBy(key string, increment float64, member string) (float64, error) {
	zs := []Z{{Member: member, Score: increment}}
	if err := validateZAdd(zset.AddOptions{}, true, zs); err != nil {
		return 0, err
	}
	_, score, _, err := tx.zadd(key, zset.AddOptions{}, true, zs)
	return score, err
}

// ZRem is ZREM: it removes members from the sorted set at key and returns how many
// were present, deleting the key once it is empty. The complexity is O(log n) per
// member.
//
//zlite:command zrem key
func (tx *Tx) ZRem(key string, members ...string) (int64, error) {
	if len(members) == 0 {
		return 0, errArity("zrem")
	}
	s, err := tx.zsetWrite(key)
	if s == nil || err != nil {
		return 0, err
	}
	n := s.Remove(members...)
	if n > 0 {
		tx.sh(key).touchWatches(key)
		tx.notify(EventsZSet, "zrem", key)
	}
	tx.dropIfEmpty(key, s)
	if d := tx.log(); d != nil && n > 0 {
		d.cmd(members, "zrem", key)
	}
	return int64(n), nil
}
