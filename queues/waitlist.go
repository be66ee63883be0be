package queues

import "context"

// Waitlist is for matching waiting parties to resources of a size, as a restaurant
// seats parties: parties ask for a number of seats and are seated in arrival order
// when a table that suits them frees up.
//
// The usual Redis recipe scores each party by its seat count and names it "<unix seconds> <name>",
// so that Redis orders equal seat counts by arrival second, and ties within a second
// by name. Here the member is a fixed-width arrival sequence followed by the name, so
// arrival order is exact at any rate; a second sorted set indexes parties by name (score:
// their sequence) for [Waitlist.Leave] and [Waitlist.Position]. Both change together in
// one atomic step, and seating is atomic: two hosts seating at once never seat the
// same party.
//
// Waitlist is safe for concurrent use.
type Waitlist struct {
	b                   Backend
	name                string
	st                  *counters
	seats, arrival, seq string
	at                  where
}

// Party is a waiting party.
type Party struct {
	Name  string // as given to [Waitlist.Add]
	Seats int64  // the seats it asked for
}

// Match says which parties a free table may seat.
type Match int

const (
	// Exact seats the earliest party that asked for exactly the table's size (the
	// recipe's ZRANGEBYSCORE waitlist (K-1 (K+1 LIMIT 0 1).
	Exact Match = iota
	// Fits seats the earliest party that fits: asked for at most the table's size.
	Fits
)

// NewWaitlist returns the waitlist called name on b. Its keys are "{name}:seats"
// (score: seats; member: sequence + name), "{name}:arrival" (score: sequence; member:
// name) and "{name}:meta". It uses the option [WithStats]. It panics if name is
// empty.
func NewWaitlist(b Backend, name string, opts ...Option) *Waitlist {
	checkName("Waitlist", name)
	return &Waitlist{b: b, name: name, st: newCounters(newConfig(opts), false), seats: key(name, "seats"), arrival: key(name, "arrival"), seq: key(name, "meta"), at: where{"waitlist", name}}
}

func (w *Waitlist) keys() []string { return []string{w.seats, w.arrival, w.seq} }

var waitlistAdd = NewScript(luaSeq+`
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 0 end
local s = seq(KEYS[3])
redis.call('ZADD', KEYS[1], ARGV[2], s .. ARGV[1])
redis.call('ZADD', KEYS[2], tonumber('0x' .. s), ARGV[1])
return 1
`, func(tx Tx, keys, args []string) (any, error) {
	if _, ok, err := tx.ZScore(keys[1], args[0]); err != nil || ok {
		return int64(0), err
	}
	s, err := nextSeq(tx, keys[2])
	if err != nil {
		return nil, err
	}
	seats, _ := parseScore(args[1])
	if _, err := tx.ZAdd(keys[0], seats, s+args[0]); err != nil {
		return nil, err
	}
	if _, err := tx.ZAdd(keys[1], seqNumber(s), args[0]); err != nil {
		return nil, err
	}
	return int64(1), nil
})

// Add puts the party name, asking for seats seats, at the end of the waitlist. It
// returns [ErrEmptyID] for an empty name, [ErrBadSeats] when seats < 1 and
// [ErrDuplicate] when a party of that name is already waiting. The complexity is
// O(log n).
func (w *Waitlist) Add(ctx context.Context, name string, seats int64) error {
	if name == "" {
		return w.at.fail("add", name, ErrEmptyID)
	}
	if seats < 1 {
		return w.at.fail("add", name, ErrBadSeats)
	}
	r, err := w.b.Eval(ctx, waitlistAdd, w.keys(), name, fmtInt(seats))
	if err != nil {
		return err
	}
	if replyInt(r) == 0 {
		return w.at.fail("add", name, ErrDuplicate)
	}
	w.st.enq(1)
	return nil
}

var waitlistSeat = NewScript(`
local best, seats
if ARGV[2] == 'exact' then
  local r = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[1], 'WITHSCORES', 'LIMIT', 0, 1)
  best, seats = r[1], r[2]
else
  local min = '-inf'
  while true do
    local r = redis.call('ZRANGEBYSCORE', KEYS[1], min, ARGV[1], 'WITHSCORES', 'LIMIT', 0, 1)
    if #r == 0 then break end
    -- Compare arrival numbers, not strings: Lua compares strings by the server's locale.
    if best == nil or tonumber(string.sub(r[1], 1, 16), 16) < tonumber(string.sub(best, 1, 16), 16) then
      best, seats = r[1], r[2]
    end
    min = '(' .. r[2]
  end
end
if best == nil then return false end
redis.call('ZREM', KEYS[1], best)
redis.call('ZREM', KEYS[2], string.sub(best, 17))
return {best, seats}
`, func(tx Tx, keys, args []string) (any, error) {
	var best *Z
	if args[1] == "exact" {
		r, err := tx.ZRangeByScoreWithScores(keys[0], args[0], args[0], 0, 1)
		if err != nil {
			return nil, err
		}
		if len(r) > 0 {
			best = &r[0]
		}
	} else {
		// The earliest party of each distinct size ≤ table, one range step per size.
		min := "-inf"
		for {
			r, err := tx.ZRangeByScoreWithScores(keys[0], min, args[0], 0, 1)
			if err != nil {
				return nil, err
			}
			if len(r) == 0 {
				break
			}
			if best == nil || r[0].Member < best.Member {
				best = &r[0]
			}
			min = "(" + fmtFloat(r[0].Score)
		}
	}
	if best == nil {
		return nil, nil
	}
	name := stripSeq(best.Member)
	if _, err := tx.ZRem(keys[0], best.Member); err != nil {
		return nil, err
	}
	if _, err := tx.ZRem(keys[1], name); err != nil {
		return nil, err
	}
	return []any{best.Member, fmtFloat(best.Score)}, nil
}).WithUndo(waitlistRestore)

// waitlistRestore puts back a party that waitlistSeat took (its reply: member,
// seats), unless a party of that name was added again meanwhile.
var waitlistRestore = NewScript(`
local name = string.sub(ARGV[1], 17)
if redis.call('ZSCORE', KEYS[2], name) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[2], tonumber(string.sub(ARGV[1], 1, 16), 16), name)
return 1
`, nil)

// Seat removes and returns the party to seat at a free table of size table: with
// [Exact], the earliest-arrived party that asked for exactly table seats; with
// [Fits], the earliest-arrived party that asked for at most table seats. It returns
// ok == false when no party suits, and [ErrBadSeats] when table < 1. The complexity
// is O(log n) for Exact and O(d log n) for Fits, d being the number of distinct party
// sizes up to table.
func (w *Waitlist) Seat(ctx context.Context, table int64, m Match) (Party, bool, error) {
	if table < 1 {
		return Party{}, false, w.at.fail("seat", "", ErrBadSeats)
	}
	mode := "exact"
	if m == Fits {
		mode = "fits"
	}
	r, err := w.b.Eval(ctx, waitlistSeat, w.keys(), fmtInt(table), mode)
	if err != nil || r == nil {
		return Party{}, false, err
	}
	a, err := replyArray(r)
	if err != nil || len(a) != 2 {
		return Party{}, false, err
	}
	w.st.deq(1)
	return Party{Name: stripSeq(replyString(a[0])), Seats: int64(replyFloat(a[1]))}, true, nil
}

var waitlistLeave = NewScript(`
local s = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not s then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[1], string.format('%016x', tonumber(s)) .. ARGV[1])
return 1
`, func(tx Tx, keys, args []string) (any, error) {
	s, ok, err := tx.ZScore(keys[1], args[0])
	if err != nil || !ok {
		return int64(0), err
	}
	if _, err := tx.ZRem(keys[1], args[0]); err != nil {
		return nil, err
	}
	if _, err := tx.ZRem(keys[0], seqPrefix(int64(s))+args[0]); err != nil {
		return nil, err
	}
	return int64(1), nil
})

// Leave removes the party name from the waitlist and reports whether it was waiting.
// The complexity is O(log n).
func (w *Waitlist) Leave(ctx context.Context, name string) (bool, error) {
	if name == "" {
		return false, w.at.fail("leave", name, ErrEmptyID)
	}
	r, err := w.b.Eval(ctx, waitlistLeave, w.keys(), name)
	if replyInt(r) == 1 {
		w.st.cancel()
	}
	return replyInt(r) == 1, err
}

var waitlistPosition = NewScript(`
local r = redis.call('ZRANK', KEYS[2], ARGV[1])
if not r then return false end
return r + 1
`, func(tx Tx, keys, args []string) (any, error) {
	r, ok, err := tx.ZRank(keys[1], args[0])
	if err != nil || !ok {
		return nil, err
	}
	return r + 1, nil
})

// Position returns the 1-based place of the party name in arrival order (ZRANK), or
// ok == false when it is not waiting. The complexity is O(log n).
func (w *Waitlist) Position(ctx context.Context, name string) (int64, bool, error) {
	if name == "" {
		return 0, false, w.at.fail("position", name, ErrEmptyID)
	}
	r, err := w.b.Eval(ctx, waitlistPosition, w.keys(), name)
	if err != nil || r == nil {
		return 0, false, err
	}
	return replyInt(r), true, nil
}

var waitlistItems = NewScript(`
local names = redis.call('ZRANGE', KEYS[2], ARGV[1], ARGV[2], 'WITHSCORES')
local out = {}
for i = 1, #names, 2 do
  out[#out+1] = names[i]
  out[#out+1] = redis.call('ZSCORE', KEYS[1], string.format('%016x', tonumber(names[i+1])) .. names[i])
end
return out
`, func(tx Tx, keys, args []string) (any, error) {
	start, stop := parseInt(args[0]), parseInt(args[1])
	names, err := tx.ZRangeWithScores(keys[1], start, stop)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, 2*len(names))
	for _, n := range names {
		s, _, err := tx.ZScore(keys[0], seqPrefix(int64(n.Score))+n.Member)
		if err != nil {
			return nil, err
		}
		out = append(out, n.Member, fmtFloat(s))
	}
	return out, nil
})

// Items returns up to count waiting parties in arrival order, skipping the first
// offset: the page a host's screen shows. It returns [ErrBadRange] when offset or
// count is negative. The complexity is O(log n + k log n) for k parties returned.
func (w *Waitlist) Items(ctx context.Context, offset, count int64) ([]Party, error) {
	if err := w.at.checkRange("items", offset, count); err != nil {
		return nil, err
	}
	a, err := page(ctx, w.b, waitlistItems, w.keys(), offset, count)
	if err != nil || len(a) == 0 {
		return nil, err
	}
	out := make([]Party, 0, len(a)/2)
	for i := 0; i+1 < len(a); i += 2 {
		out = append(out, Party{Name: replyString(a[i]), Seats: int64(replyFloat(a[i+1]))})
	}
	return out, nil
}

// Len returns the number of waiting parties (ZCARD). The complexity is O(1).
func (w *Waitlist) Len(ctx context.Context) (int64, error) { return w.b.ZCard(ctx, w.arrival) }

// Stats returns the number of waiting parties, split by party size (the first
// [MaxStatsLevels] sizes, smallest first), and this process's counters; see
// [Stats]. The complexity is O(MaxStatsLevels · log n).
func (w *Waitlist) Stats(ctx context.Context) (Stats, error) {
	s := Stats{Name: w.name, Type: "waitlist"}
	w.st.fill(&s)
	var err error
	if s.Depth, err = w.Len(ctx); err != nil {
		return s, err
	}
	s.Levels, err = groups(ctx, w.b, w.seats, fmtFloat)
	return s, err
}
