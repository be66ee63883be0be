package zlite

import (
	"context"
	"testing"
)

// TestCommandKeysLikeRedis checks every command's arity and key positions against
// redis-server's COMMAND INFO: a command whose keys are declared wrongly would lock
// the wrong shards and read keys it does not hold. Loosened: ZRANK and ZREVRANK take
// Redis 7.2's WITHSCORE, so their arity is 7.2's -3 where 7.0 says 3. SORT and
// SORT_RO report no key positions (0 0 0, as KEYS does) where Redis reports the
// sorted key (1 1 1, with the movablekeys flag): their BY and GET patterns name keys
// built from the sorted values, so they lock every shard (a whole keySpec), and
// Command.Keys reports such a command as having no fixed keys.
func TestCommandKeysLikeRedis(t *testing.T) {
	ctx := context.Background()
	rc := redisClient(t)
	for c := range Commands() {
		r, err := rc.Do(ctx, "COMMAND", "INFO", c.Name()).Slice()
		if err != nil || len(r) != 1 {
			t.Errorf("COMMAND INFO %s: %v %v", c.Name(), r, err)
			continue
		}
		info, ok := r[0].([]any)
		if !ok || len(info) < 6 {
			t.Errorf("COMMAND INFO %s: %v", c.Name(), r[0])
			continue
		}
		first, last, step := c.Keys()
		want := [4]any{info[1], info[3], info[4], info[5]}
		got := [4]any{int64(c.Arity()), int64(first), int64(last), int64(step)}
		switch c.Name() {
		case "zrank", "zrevrank":
			want[0] = int64(-3)
		case "sort", "sort_ro":
			if [3]any(want[1:]) == [3]any{int64(1), int64(1), int64(1)} {
				want[1], want[2], want[3] = int64(0), int64(0), int64(0)
			}
		}
		if got != want {
			t.Errorf("%s: arity, first, last, step = %v; Redis %v", c.Name(), got, want)
		}
	}
}
