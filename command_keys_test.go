package zlite

import (
	"context"
	"testing"
)

// TestCommandKeysLikeRedis checks every command's arity and key positions against
// redis-server's COMMAND INFO: a command whose keys are declared wrongly would lock
// the wrong shards and read keys it does not hold. Loosened: ZRANK and ZREVRANK take
// Redis 7.2's WITHSCORE, so their arity is 7.2's -3 where 7.0 says 3.
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
		if c.Name() == "zrank" || c.Name() == "zrevrank" {
			want[0] = int64(-3)
		}
		if got != want {
			t.Errorf("%s: arity, first, last, step = %v; Redis %v", c.Name(), got, want)
		}
	}
}
