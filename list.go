package zlite

import (
	"math"
	"strings"

	"github.com/zlite/zlite/list"
)

// LPosArgs are LPOS's options, as in go-redis: Rank 0 means the first match (RANK 1),
// a negative Rank searches from the tail; MaxLen 0 compares every element.
type LPosArgs struct {
	Rank, MaxLen int64
}

// push implements LPUSH, RPUSH, LPUSHX and RPUSHX.
func (tx *Tx) push(name, key string, left, xx bool, values []string) (int64, error) {
	if len(values) == 0 {
		return 0, errArity(name)
	}
	l, err := tx.listWrite(key)
	if err != nil {
		return 0, err
	}
	if d := tx.log(); d != nil && (l != nil || !xx) {
		d.cmd(values, name, key) // before the hand-off, whose pops follow it
	}
	if l == nil {
		if xx {
			return 0, nil
		}
		if tx.handsOff(key) {
			// Hand the values to the waiters without creating the list first; the
			// reply is the length after the push, as in Redis.
			n := len(values)
			lo, hi := tx.handList(key, left, values)
			if lo == hi {
				return int64(n), nil
			}
			l = tx.newList(key)
			if left {
				l.PushFront(values[n-hi : n-lo]...)
			} else {
				l.PushBack(values[lo:hi]...)
			}
			tx.signal(key)
			return int64(n), nil
		}
		l = tx.newList(key)
	}
	if left {
		l.PushFront(values...)
	} else {
		l.PushBack(values...)
	}
	tx.sh(key).touchWatches(key)
	tx.notify(EventsList, pushEvent(left), key)
	tx.signal(key)
	return int64(l.Len()), nil
}

// LPush is LPUSH: it inserts values at the head of the list at key, one after the
// other (LPUSH k a b c leaves c b a), creating the key if needed, and returns the new
// length. Callers blocked on key are served after the push. The complexity is O(1)
// per value.
//
//zlite:command lpush key
func (tx *Tx) LPush(key string, values ...string) (int64, error) {
	return tx.push("lpush", key, true, false, values)
}

// RPush is RPUSH: it appends values to the list at key, creating it if needed, and
// returns the new length. The complexity is O(1) per value.
//
//zlite:command rpush key
func (tx *Tx) RPush(key string, values ...string) (int64, error) {
	return tx.push("rpush", key, false, false, values)
}

// LPushX is LPUSHX: LPUSH only if key already holds a list; it returns 0 otherwise.
// The complexity is O(1) per value.
//
//zlite:command lpushx key
func (tx *Tx) LPushX(key string, values ...string) (int64, error) {
	return tx.push("lpushx", key, true, true, values)
}

// RPushX is RPUSHX: RPUSH only if key already holds a list; it returns 0 otherwise.
// The complexity is O(1) per value.
//
//zlite:command rpushx key
func (tx *Tx) RPushX(key string, values ...string) (int64, error) {
	return tx.push("rpushx", key, false, true, values)
}

// popOne implements LPOP and RPOP without a count (DB.pop is the pop that serves a
// blocked caller).
func (tx *Tx) popOne(key string, left bool) (string, bool, error) {
	l, err := tx.listWrite(key)
	if l == nil || err != nil {
		return "", false, err
	}
	var v string
	if left {
		v, _ = l.PopFront()
	} else {
		v, _ = l.PopBack()
	}
	tx.sh(key).touchWatches(key)
	tx.notify(EventsList, popEvent(left), key)
	tx.dropIfEmpty(key, l)
	if d := tx.log(); d != nil {
		d.pop(&popReq{kind: popList, left: left}, key)
	}
	return v, true, nil
}

// popCount implements LPOP and RPOP with a count: nil for a missing key, an empty
// slice for count 0, ErrNotPositive for a negative count.
func (tx *Tx) popCount(key string, left bool, count int64) ([]string, error) {
	if count < 0 {
		return nil, ErrNotPositive
	}
	l, err := tx.listWrite(key)
	if l == nil || err != nil {
		return nil, err
	}
	var vs []string
	if left {
		vs = l.PopFrontN(clampInt(count))
	} else {
		vs = l.PopBackN(clampInt(count))
	}
	if len(vs) > 0 {
		tx.sh(key).touchWatches(key)
		tx.notify(EventsList, popEvent(left), key)
	}
	tx.dropIfEmpty(key, l)
	if d := tx.log(); d != nil && len(vs) > 0 {
		d.pop(&popReq{kind: popList, left: left, count: len(vs), vals: vs}, key)
	}
	if vs == nil {
		vs = []string{}
	}
	return vs, nil
}

// LPop is LPOP: it removes and returns the first element of the list at key, or
// ("", false) when the key does not exist. The complexity is O(1).
//
//zlite:command lpop key
func (tx *Tx) LPop(key string) (string, bool, error) { return tx.popOne(key, true) }

// RPop is RPOP: it removes and returns the last element of the list at key, or
// ("", false) when the key does not exist. The complexity is O(1).
//
//zlite:command rpop key
func (tx *Tx) RPop(key string) (string, bool, error) { return tx.popOne(key, false) }

// LPopCount is LPOP key count: it removes and returns up to count elements from the
// head; nil when the key does not exist, empty for count 0, [ErrNotPositive] for a
// negative count. The complexity is O(count).
//
//zlite:command lpop key
func (tx *Tx) LPopCount(key string, count int) ([]string, error) {
	return tx.popCount(key, true, int64(count))
}

// RPopCount is RPOP key count: [Tx.LPopCount] from the tail (the last element
// first). The complexity is O(count).
//
//zlite:command rpop key
func (tx *Tx) RPopCount(key string, count int) ([]string, error) {
	return tx.popCount(key, false, int64(count))
}

// LLen is LLEN: the length of the list at key, 0 if it does not exist. O(1).
//
//zlite:command llen key
func (tx *Tx) LLen(key string) (int64, error) {
	l, err := tx.listRead(key)
	if l == nil || err != nil {
		return 0, err
	}
	return int64(l.Len()), nil
}

// LIndex is LINDEX: the element at index (negative counts from the tail), or
// ("", false) when out of range or the key does not exist. The complexity is that of
// [list.List.Index].
//
//zlite:command lindex key
func (tx *Tx) LIndex(key string, index int64) (string, bool, error) {
	l, err := tx.listRead(key)
	if l == nil || err != nil {
		return "", false, err
	}
	v, ok := l.Index(clampInt(index))
	return v, ok, nil
}

// LSet is LSET: it replaces the element at index. Errors: [ErrNoSuchKey] when the key
// does not exist, list.ErrIndexOutOfRange. The complexity is that of [list.List.Set].
//
//zlite:command lset key
func (tx *Tx) LSet(key string, index int64, value string) error {
	l, err := tx.listWrite(key)
	if err != nil {
		return err
	}
	if l == nil {
		return ErrNoSuchKey
	}
	if err := l.Set(clampInt(index), value); err != nil {
		return err
	}
	tx.sh(key).touchWatches(key)
	tx.notify(EventsList, "lset", key)
	if d := tx.log(); d != nil {
		d.start(4)
		d.word("lset")
		d.word(key)
		d.int(index)
		d.word(value)
	}
	return nil
}

// LRange is LRANGE: the elements from start to stop inclusive, negative indexes
// counting from the tail, clamped as Redis does; empty when the key does not exist.
// The complexity is O(start + number of elements returned) at worst.
//
//zlite:command lrange key
func (tx *Tx) LRange(key string, start, stop int64) ([]string, error) {
	l, err := tx.listRead(key)
	if err != nil {
		return nil, err
	}
	if l == nil {
		return []string{}, nil
	}
	r := l.Range(clampInt(start), clampInt(stop))
	if r == nil {
		r = []string{}
	}
	return r, nil
}

// LInsert is LINSERT: op is "BEFORE" or "AFTER" (any case, else [ErrSyntax]). It
// inserts value next to the first occurrence of pivot and returns the new length,
// -1 when pivot is absent, 0 when the key does not exist. O(n).
//
//zlite:command linsert key
func (tx *Tx) LInsert(key, op, pivot, value string) (int64, error) {
	var before bool
	switch {
	case strings.EqualFold(op, "before"):
		before = true
	case strings.EqualFold(op, "after"):
	default:
		return 0, ErrSyntax
	}
	l, err := tx.listWrite(key)
	if l == nil || err != nil {
		return 0, err
	}
	n := l.Insert(before, pivot, value)
	if n > 0 {
		tx.sh(key).touchWatches(key)
		tx.notify(EventsList, "linsert", key)
	}
	if d := tx.log(); d != nil && n > 0 {
		d.cmd(nil, "linsert", key, op, pivot, value)
	}
	return int64(n), nil
}

// LInsertBefore is LINSERT key BEFORE pivot value: see [Tx.LInsert]. O(n).
//
//zlite:command linsert key
func (tx *Tx) LInsertBefore(key, pivot, value string) (int64, error) {
	return tx.LInsert(key, "BEFORE", pivot, value)
}

// LInsertAfter is LINSERT key AFTER pivot value: see [Tx.LInsert]. O(n).
//
//zlite:command linsert key
func (tx *Tx) LInsertAfter(key, pivot, value string) (int64, error) {
	return tx.LInsert(key, "AFTER", pivot, value)
}

// LRem is LREM: it removes up to |count| occurrences of value (all when count is 0),
// from the head when count > 0 and from the tail when count < 0, and returns how
// many it removed. O(n).
//
//zlite:command lrem key
func (tx *Tx) LRem(key string, count int64, value string) (int64, error) {
	l, err := tx.listWrite(key)
	if l == nil || err != nil {
		return 0, err
	}
	n := l.Remove(clampInt(count), value)
	if n > 0 {
		tx.sh(key).touchWatches(key)
		tx.notify(EventsList, "lrem", key)
	}
	tx.dropIfEmpty(key, l)
	if d := tx.log(); d != nil && n > 0 {
		d.start(4)
		d.word("lrem")
		d.word(key)
		d.int(count)
		d.word(value)
	}
	return int64(n), nil
}

// LTrim is LTRIM: it keeps only the elements from start to stop inclusive (indexes
// as LRANGE), deleting the key when nothing is left. O(number removed).
//
//zlite:command ltrim key
func (tx *Tx) LTrim(key string, start, stop int64) error {
	l, err := tx.listWrite(key)
	if l == nil || err != nil {
		return err
	}
	l.Trim(clampInt(start), clampInt(stop))
	tx.sh(key).touchWatches(key) // as Redis, even when nothing was trimmed
	tx.notify(EventsList, "ltrim", key)
	tx.dropIfEmpty(key, l)
	if d := tx.log(); d != nil {
		d.start(4)
		d.word("ltrim")
		d.word(key)
		d.int(start)
		d.int(stop)
	}
	return nil
}

// lpos validates LPOS's options and runs it; count 0 means all matches.
func (tx *Tx) lpos(key, value string, rank, count, maxLen int64) ([]int, error) {
	r := clampInt(rank)
	if r == math.MinInt && rank != math.MinInt64 {
		r++ // where int is 32 bits: only Redis's LONG_MIN is out of range
	}
	if err := list.ValidatePos(r, clampInt(count), clampInt(maxLen)); err != nil {
		return nil, err
	}
	l, err := tx.listRead(key)
	if l == nil || err != nil {
		return nil, err
	}
	return l.Pos(value, r, clampInt(count), clampInt(maxLen))
}

// LPos is LPOS without COUNT: the index (from the head) of the a.Rank-th match of
// value, or (0, false) when there is none. O(n) at worst.
//
//zlite:command lpos key
func (tx *Tx) LPos(key, value string, a LPosArgs) (int64, bool, error) {
	rank := a.Rank
	if rank == 0 {
		rank = 1
	}
	idx, err := tx.lpos(key, value, rank, 1, a.MaxLen)
	if err != nil || len(idx) == 0 {
		return 0, false, err
	}
	return int64(idx[0]), true, nil
}

// LPosCount is LPOS with COUNT: the indexes of up to count matches (all when count is
// 0), starting from the a.Rank-th. O(n) at worst.
//
//zlite:command lpos key
func (tx *Tx) LPosCount(key, value string, count int64, a LPosArgs) ([]int64, error) {
	rank := a.Rank
	if rank == 0 {
		rank = 1
	}
	idx, err := tx.lpos(key, value, rank, count, a.MaxLen)
	if err != nil {
		return nil, err
	}
	r := make([]int64, len(idx))
	for i, x := range idx {
		r[i] = int64(x)
	}
	return r, nil
}

// move implements LMOVE and RPOPLPUSH.
func (tx *Tx) move(src, dst string, srcLeft, dstLeft bool) (string, bool, error) {
	if err := tx.writeErr(); err != nil {
		return "", false, err
	}
	r := popReq{kind: popMove, left: srcLeft, dst: dst, dstLeft: dstLeft}
	tx.tryKeys(&r, []string{src})
	return r.val, r.ok, r.err
}

// LMove is LMOVE: it pops an element from src (srcPos "LEFT" = head, "RIGHT" = tail)
// and pushes it onto dst (dstPos), atomically, returning it; ("", false) when src
// does not exist. src and dst may be the same list (a rotation). Callers blocked on
// dst are served after the push. O(1).
//
//zlite:command lmove src dst
func (tx *Tx) LMove(src, dst, srcPos, dstPos string) (string, bool, error) {
	sl, dl, err := parseMove(srcPos, dstPos)
	if err != nil {
		return "", false, err
	}
	return tx.move(src, dst, sl, dl)
}

// RPopLPush is RPOPLPUSH: LMOVE src dst RIGHT LEFT (see [Tx.LMove]). O(1).
//
//zlite:command rpoplpush src dst
func (tx *Tx) RPopLPush(src, dst string) (string, bool, error) {
	return tx.move(src, dst, false, true)
}

// LMPop is LMPOP: it pops up to count elements from the first non-empty list among
// keys, from the head when direction is "LEFT" or the tail when "RIGHT", and returns
// that key and the elements; values is nil when every key is missing. Errors as
// Redis for count < 1 or a bad direction. O(count) plus one lookup per key tried.
//
//zlite:command lmpop keys...
func (tx *Tx) LMPop(direction string, count int64, keys ...string) (key string, values []string, err error) {
	r, err := typedMPop(popList, direction, count, keys)
	if err == nil {
		err = tx.once(&r, keys)
	}
	return r.key, r.vals, err
}
