package queues

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ClassicWaitlist is a [Waitlist] over the key layout of the classic Redis waitlist
// recipe, so that an application that already keeps its waitlist that way (in Ruby:
// redis.zadd("waitlist", seats, "#{Time.now.to_i} #{name}")) and a Go service can
// share one waitlist, during a migration or for good.
//
// # Layout
//
// One sorted set, the key given to [NewClassicWaitlist] verbatim: score the seats a
// party asked for, member "<Unix seconds> <name>" (the arrival second in decimal, a
// space, the name). Among equal scores Redis orders members by their bytes, so a
// party of a size is served in arrival order to the second; the recipe seats a table
// of size K with ZRANGEBYSCORE key (K-1 (K+1 LIMIT 0 1 followed by ZREM.
// ClassicWaitlist reads and writes exactly that: parties the recipe's code added are
// seated here in the recipe's order, and parties added here are found and seated by
// the recipe's code.
//
// # What the layout loses, and what ClassicWaitlist keeps
//
//   - Arrival order only to the second: parties of one size that arrived within the
//     same second are seated by name (byte order), not by arrival. [Waitlist] keeps an
//     arrival sequence instead.
//   - The decimal second has 10 digits from 2001 to 2286, so byte order is time order
//     for members written in that span.
//   - No index by name: [ClassicWaitlist.Leave] and [ClassicWaitlist.Position] scan the
//     set (O(n)), and a name is not unique: a party added twice in different seconds
//     is two members. [ClassicWaitlist.Add] rejects only an identical member (same
//     name, same second), which ZADD would silently merge.
//   - The recipe's seat is two commands, so two hosts running it may both read the
//     same party, and one ZREM then removes nothing. ClassicWaitlist seats in one
//     atomic step: two Go hosts never seat the same party, and a party a Go host
//     seated is gone before any recipe host reads.
//
// Members that are not "<seconds> <name>" (written by other code) are served by their
// bytes like any other; their whole member is their name when it has no space.
//
// # Redis Cluster
//
// Every step touches the one key, so the layout works on a cluster as it is.
//
// ClassicWaitlist is safe for concurrent use, in one process or many.
type ClassicWaitlist struct {
	b     Backend
	key   string
	clock nower
	at    where
}

// NewClassicWaitlist returns the waitlist kept in the sorted set key in the recipe's
// layout (see [ClassicWaitlist]). It uses the option [WithClock] (the arrival second
// of [ClassicWaitlist.Add]). It panics if key is empty. The complexity is O(1).
func NewClassicWaitlist(b Backend, key string, opts ...Option) *ClassicWaitlist {
	checkName("ClassicWaitlist", key)
	cfg := newConfig(opts)
	return &ClassicWaitlist{b: b, key: key, clock: cfg.clock, at: where{"classicwaitlist", key}}
}

// classicMemberName returns the name part of a recipe member "<seconds> <name>": what
// follows the first space, or the whole member when it has none.
func classicMemberName(m string) string {
	if i := strings.IndexByte(m, ' '); i >= 0 {
		return m[i+1:]
	}
	return m
}

// luaClassicName is classicMemberName in Lua.
const luaClassicName = `
local function mname(m)
  local sp = string.find(m, ' ', 1, true)
  if sp then return string.sub(m, sp + 1) end
  return m
end
`

// luaBytesLess defines less(a, b), byte order as Redis orders members: Lua's own <
// on strings follows the server's locale.
const luaBytesLess = `
local function less(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end
`

// classicZAddNew is ZADD KEYS[1] ARGV[1] ARGV[2] unless ARGV[2] is already a member:
// 1 when added, 0 when it was there.
var classicZAddNew = NewScript(`
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then return 0 end
return redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
`, func(tx Tx, keys, args []string) (any, error) {
	if _, ok, err := tx.ZScore(keys[0], args[1]); err != nil || ok {
		return int64(0), err
	}
	score, _ := parseScore(args[0])
	return tx.ZAdd(keys[0], score, args[1])
})

// Add puts the party name, asking for seats seats, on the waitlist as the recipe
// does: ZADD key seats "<Unix seconds> <name>", the second read from the clock. It
// returns [ErrEmptyID] for an empty name, [ErrBadSeats] when seats < 1, and
// [ErrDuplicate] when the same member (name and second) is already there. The
// complexity is O(log n).
func (w *ClassicWaitlist) Add(ctx context.Context, name string, seats int64) error {
	if name == "" {
		return w.at.fail("add", name, ErrEmptyID)
	}
	if seats < 1 {
		return w.at.fail("add", name, ErrBadSeats)
	}
	m := strconv.FormatInt(w.clock.Now().Unix(), 10) + " " + name
	r, err := w.b.Eval(ctx, classicZAddNew, []string{w.key}, fmtInt(seats), m)
	if err != nil {
		return err
	}
	if replyInt(r) == 0 {
		return w.at.fail("add", name, ErrDuplicate)
	}
	return nil
}

// classicSeat takes one party from KEYS[1] within the score range ARGV[2]..ARGV[3]:
// with ARGV[1] "first" the first member of the range (lowest score, then bytes), with
// "earliest" the byte-least member among the first of each distinct score in range
// (the earliest arrival). It replies {member, score}, or nil when none is in range.
var classicSeat = NewScript(luaBytesLess+`
local best, score
local min = ARGV[2]
while true do
  local r = redis.call('ZRANGEBYSCORE', KEYS[1], min, ARGV[3], 'WITHSCORES', 'LIMIT', 0, 1)
  if #r == 0 then break end
  if best == nil or less(r[1], best) then best, score = r[1], r[2] end
  if ARGV[1] == 'first' then break end
  min = '(' .. r[2]
end
if best == nil then return false end
redis.call('ZREM', KEYS[1], best)
return {best, score}
`, func(tx Tx, keys, args []string) (any, error) {
	var best *Z
	min := args[1]
	for {
		r, err := tx.ZRangeByScoreWithScores(keys[0], min, args[2], 0, 1)
		if err != nil {
			return nil, err
		}
		if len(r) == 0 {
			break
		}
		if best == nil || r[0].Member < best.Member {
			best = &r[0]
		}
		if args[0] == "first" {
			break
		}
		min = "(" + fmtFloat(r[0].Score)
	}
	if best == nil {
		return nil, nil
	}
	if _, err := tx.ZRem(keys[0], best.Member); err != nil {
		return nil, err
	}
	return []any{best.Member, fmtFloat(best.Score)}, nil
}).WithUndo(classicZRestore)

// classicZRestore puts back a member that a step took (its reply: member, score),
// unless it was added again meanwhile.
var classicZRestore = NewScript(`
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
return redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
`, nil)

// Seat removes and returns the party to seat at a free table of size table, in one
// atomic step: with [Exact], the recipe's choice (ZRANGEBYSCORE key (table-1
// (table+1 LIMIT 0 1, then ZREM): the earliest party that asked for exactly table
// seats; with [Fits], the earliest party that asked for at most table seats (earliest
// by member bytes: arrival second, then name). It returns ok == false when no party
// suits, and [ErrBadSeats] when table < 1. The complexity is O(log n) for Exact and
// O(d log n) for Fits, d being the number of distinct party sizes up to table.
func (w *ClassicWaitlist) Seat(ctx context.Context, table int64, m Match) (Party, bool, error) {
	if table < 1 {
		return Party{}, false, w.at.fail("seat", "", ErrBadSeats)
	}
	args := []string{"first", "(" + fmtInt(table-1), "(" + fmtInt(table+1)}
	if m == Fits {
		args = []string{"earliest", "-inf", fmtInt(table)}
	}
	r, err := w.b.Eval(ctx, classicSeat, []string{w.key}, args...)
	if err != nil || r == nil {
		return Party{}, false, err
	}
	a, err := replyArray(r)
	if err != nil || len(a) != 2 {
		return Party{}, false, err
	}
	return Party{Name: classicMemberName(replyString(a[0])), Seats: int64(replyFloat(a[1]))}, true, nil
}

// classicLeave removes every member of KEYS[1] whose name part is ARGV[1] and
// replies how many it removed.
var classicLeave = NewScript(luaClassicName+`
local n = 0
for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if mname(m) == ARGV[1] then
    redis.call('ZREM', KEYS[1], m)
    n = n + 1
  end
end
return n
`, func(tx Tx, keys, args []string) (any, error) {
	all, err := tx.ZRangeWithScores(keys[0], 0, -1)
	if err != nil {
		return nil, err
	}
	var n int64
	for _, z := range all {
		if classicMemberName(z.Member) == args[0] {
			if _, err := tx.ZRem(keys[0], z.Member); err != nil {
				return nil, err
			}
			n++
		}
	}
	return n, nil
})

// Leave removes the party name from the waitlist (every entry of that name, added in
// whichever second) and reports whether it was waiting. It returns [ErrEmptyID] for
// an empty name. The complexity is O(n): the layout has no index by name.
func (w *ClassicWaitlist) Leave(ctx context.Context, name string) (bool, error) {
	if name == "" {
		return false, w.at.fail("leave", name, ErrEmptyID)
	}
	r, err := w.b.Eval(ctx, classicLeave, []string{w.key}, name)
	return replyInt(r) > 0, err
}

// classicPosition replies the 1-based place, in member byte order over the whole set
// (arrival order), of the earliest member of KEYS[1] named ARGV[1], or nil.
var classicPosition = NewScript(luaClassicName+luaBytesLess+`
local all = redis.call('ZRANGE', KEYS[1], 0, -1)
local mine
for _, m in ipairs(all) do
  if mname(m) == ARGV[1] and (mine == nil or less(m, mine)) then mine = m end
end
if mine == nil then return false end
local pos = 1
for _, m in ipairs(all) do
  if less(m, mine) then pos = pos + 1 end
end
return pos
`, func(tx Tx, keys, args []string) (any, error) {
	all, err := tx.ZRangeWithScores(keys[0], 0, -1)
	if err != nil {
		return nil, err
	}
	mine, found := "", false
	for _, z := range all {
		if classicMemberName(z.Member) == args[0] && (!found || z.Member < mine) {
			mine, found = z.Member, true
		}
	}
	if !found {
		return nil, nil
	}
	pos := int64(1)
	for _, z := range all {
		if z.Member < mine {
			pos++
		}
	}
	return pos, nil
})

// Position returns the 1-based place of the party name in arrival order over every
// party size (to the second; within a second by name), or ok == false when it is not
// waiting. It returns [ErrEmptyID] for an empty name. The complexity is O(n).
func (w *ClassicWaitlist) Position(ctx context.Context, name string) (int64, bool, error) {
	if name == "" {
		return 0, false, w.at.fail("position", name, ErrEmptyID)
	}
	r, err := w.b.Eval(ctx, classicPosition, []string{w.key}, name)
	if err != nil || r == nil {
		return 0, false, err
	}
	return replyInt(r), true, nil
}

// Items returns up to count waiting parties in arrival order over every party size
// (member byte order: arrival second, then name), skipping the first offset. It reads
// the whole set in one atomic step and returns [ErrBadRange] when offset or count is
// negative. The complexity is O(n log n).
func (w *ClassicWaitlist) Items(ctx context.Context, offset, count int64) ([]Party, error) {
	if err := w.at.checkRange("items", offset, count); err != nil {
		return nil, err
	}
	if count == 0 {
		return nil, nil
	}
	a, err := page(ctx, w.b, zsetPage, []string{w.key}, 0, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	all := make([]Z, 0, len(a)/2)
	for i := 0; i+1 < len(a); i += 2 {
		all = append(all, Z{Member: replyString(a[i]), Score: replyFloat(a[i+1])})
	}
	slices.SortFunc(all, func(x, y Z) int { return strings.Compare(x.Member, y.Member) })
	if offset >= int64(len(all)) {
		return nil, nil
	}
	all = all[offset:]
	if count < int64(len(all)) {
		all = all[:count]
	}
	out := make([]Party, len(all))
	for i, z := range all {
		out[i] = Party{Name: classicMemberName(z.Member), Seats: int64(z.Score)}
	}
	return out, nil
}

// Len returns the number of waiting parties (ZCARD). The complexity is O(1).
func (w *ClassicWaitlist) Len(ctx context.Context) (int64, error) { return w.b.ZCard(ctx, w.key) }
