package zlite

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/redis/go-redis/v9"
)

// timeoutEdges are the timeout arguments at the edges of Redis's parsing, with what
// zlite (Redis 7.2+, on x86-64) makes of them at now = 0: the milliseconds, or the
// error. redis70 says where Redis 7.2 changed the reply and 7.0 gives another:
// "negative" (7.0 takes a timeout beyond 2^63 ms for negative) or "accepted" (7.0
// accepts a timeout whose deadline overflows); Redis 7.2+ replies ErrTimeoutOutOfRange
// to both, as zlite does.
var timeoutEdges = []struct {
	in      string
	ms      int64
	err     error
	redis70 string
}{
	{in: "0"},
	{in: "-0"},
	{in: "-0.0"},
	{in: "0.0e-99999"},
	{in: "1", ms: 1000},
	{in: "+1", ms: 1000},
	{in: "1.5", ms: 1500},
	{in: ".5", ms: 500},
	{in: "5.", ms: 5000},
	{in: "0.001", ms: 1},
	{in: "0.0015", ms: 2},
	{in: "0.0001", ms: 1}, // rounds up
	{in: "1e-3", ms: 1},
	{in: "1E2", ms: 100000},
	{in: "1e-400", ms: 1}, // a long double: tiny, not zero, rounded up to 1 ms
	{in: "1e-4950", ms: 1},
	{in: "2e-4951", ms: 1},                      // rounds to the smallest subnormal
	{in: "1e-4951", err: ErrTimeoutNotFloat},    // underflows to zero
	{in: "1e-5000", err: ErrTimeoutNotFloat},    // likewise
	{in: "0x1p-16445", ms: 1},                   // the smallest subnormal
	{in: "0x1p-16446", err: ErrTimeoutNotFloat}, // half of it: to zero (ties to even)
	{in: "0x1.8p-16446", ms: 1},                 // above half: up
	{in: "-1e-400"},                             // -0 ms once rounded up: forever
	{in: "-0.0001"},                             // likewise
	{in: "-0.001"},                              // a hair above -1 ms as a long double: forever
	{in: "-0.002", err: ErrTimeoutNegative},     // rounds up to -1 ms
	{in: "-1", err: ErrTimeoutNegative},         //
	{in: "-0.5", err: ErrTimeoutNegative},       //
	{in: "-inf", err: ErrTimeoutNegative},       //
	{in: "-1e4000", err: ErrTimeoutNegative},    // finite as a long double
	{in: "-1e5000", err: ErrTimeoutNotFloat},    // overflows
	{in: "0x10", ms: 16000},                     // hexadecimal
	{in: "0X1P-3", ms: 125},                     //
	{in: "0x.8", ms: 500},                       //
	{in: "9223372036854775.807", ms: math.MaxInt64, redis70: "accepted"}, // 2^63-1 ms: out of range once now is added
	{in: "9223372036854775.8075", err: ErrTimeoutOutOfRange, redis70: "negative"},
	{in: "9223372036854776", err: ErrTimeoutOutOfRange, redis70: "negative"},
	{in: "1e300", err: ErrTimeoutOutOfRange, redis70: "negative"},
	{in: "1e4000", err: ErrTimeoutOutOfRange, redis70: "negative"},
	{in: "1e4932", err: ErrTimeoutOutOfRange, redis70: "negative"},
	{in: "0x1p16383", err: ErrTimeoutOutOfRange, redis70: "negative"}, // the largest power of 2
	{in: "0x1p16384", err: ErrTimeoutNotFloat},                        // overflows
	{in: "1.2e4932", err: ErrTimeoutNotFloat},                         // overflows
	{in: "inf", err: ErrTimeoutOutOfRange, redis70: "negative"},
	{in: "Infinity", err: ErrTimeoutOutOfRange, redis70: "negative"},
	{in: "infin", err: ErrTimeoutNotFloat},
	{in: "nan", err: ErrTimeoutNotFloat},
	{in: "-nan", err: ErrTimeoutNotFloat},
	{in: "", err: ErrTimeoutNotFloat},
	{in: " 1", err: ErrTimeoutNotFloat},
	{in: "1 ", err: ErrTimeoutNotFloat},
	{in: "\t1", err: ErrTimeoutNotFloat},
	{in: "1\x00", err: ErrTimeoutNotFloat},
	{in: "1e", err: ErrTimeoutNotFloat},
	{in: "1e+", err: ErrTimeoutNotFloat},
	{in: "1_0", err: ErrTimeoutNotFloat},
	{in: "0x", err: ErrTimeoutNotFloat},
	{in: "0x1p", err: ErrTimeoutNotFloat},
	{in: "1.2.3", err: ErrTimeoutNotFloat},
	{in: ".", err: ErrTimeoutNotFloat},
	{in: "-", err: ErrTimeoutNotFloat},
	{in: "abc", err: ErrTimeoutNotFloat},
	{in: "1e999999999999999999999", err: ErrTimeoutNotFloat},
	{in: "1e-999999999999999999999", err: ErrTimeoutNotFloat},
	{in: "1" + strings.Repeat("0", 5118), err: ErrTimeoutNotFloat}, // finite, 5119 chars: overflows
	{in: "0." + strings.Repeat("0", 5117) + "1", err: ErrTimeoutNotFloat},
	{in: "0." + strings.Repeat("0", 5118), err: ErrTimeoutNotFloat}, // 5120 chars: too long
}

func TestTimeoutMillis(t *testing.T) {
	for _, tc := range timeoutEdges {
		ms, err := timeoutMillis(tc.in, 0)
		if ms != tc.ms || !errors.Is(err, tc.err) {
			t.Errorf("timeoutMillis(%.40q, 0) = %d, %v; want %d, %v", tc.in, ms, err, tc.ms, tc.err)
		}
	}
	// The deadline, now + ms, must fit in 64 bits (Redis 7.2+).
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for _, tc := range []struct {
		in  string
		err error
	}{
		{"9223372036854775.807", ErrTimeoutOutOfRange},
		{"9223372036854775", ErrTimeoutOutOfRange},
		{"9223370000000000", nil},
	} {
		if _, err := timeoutMillis(tc.in, now); !errors.Is(err, tc.err) {
			t.Errorf("timeoutMillis(%q, 2026) = %v; want %v", tc.in, err, tc.err)
		}
	}
}

// TestTimeoutEdgesVsRedis sends each edge to a real redis-server as BLPOP's timeout
// on a key that holds a list, so that an accepted timeout pops at once, and requires
// zlite's reply to be the same, but where Redis 7.2 changed the reply and the server
// is older (redis70).
func TestTimeoutEdgesVsRedis(t *testing.T) {
	rc := redisClient(t)
	ctx := context.Background()
	redis72 := serverIs72(t, rc)
	db := New()
	for _, tc := range timeoutEdges {
		rc.RPush(ctx, "tk", "x")
		db.RPush(ctx, "tk", "x")
		rv, rerr := rc.Do(ctx, "BLPOP", "tk", tc.in).Result()
		zv, zerr := db.Do(ctx, "BLPOP", "tk", tc.in)
		rc.Del(ctx, "tk")
		db.Del(ctx, "tk")
		want, got := replyText(rv, rerr), replyText(zv, zerr)
		if !redis72 && tc.redis70 != "" {
			want70 := map[string]string{"negative": ErrTimeoutNegative.Error(), "accepted": "popped x"}[tc.redis70]
			if want != want70 || got != ErrTimeoutOutOfRange.Error() {
				t.Errorf("BLPOP tk %.40q: redis 7.0 %q, zlite %q; want %q (7.2+) where 7.0 says %q", tc.in, want, got, ErrTimeoutOutOfRange, want70)
			}
			continue
		}
		if got != want {
			t.Errorf("BLPOP tk %.40q: zlite %q, redis %q", tc.in, got, want)
		}
	}
}

// replyText renders a reply or error for comparison.
func replyText(v any, err error) string {
	if err != nil {
		return err.Error()
	}
	if a, ok := v.([]any); ok && len(a) == 2 {
		return "popped " + a[1].(string)
	}
	return "unexpected reply"
}

// serverIs72 reports whether the test server is Redis 7.2 or newer.
func serverIs72(t *testing.T, rc *redis.Client) bool {
	info, err := rc.Info(context.Background(), "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "redis_version:"); ok {
			return v >= "7.2"
		}
	}
	return false
}

// TestTimeoutTinyAndNegativeZero: BLPOP x 1e-400 replies nil after 1 ms (it
// once blocked forever), -1e-400 and -0.001 block until served.
func TestTimeoutTinyAndNegativeZero(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := New()
		start := time.Now()
		if r, err := db.Do(ctx, "BLPOP", "x", "1e-400"); r != nil || err != nil || time.Since(start) != time.Millisecond {
			t.Fatalf("BLPOP x 1e-400 = %v, %v after %v; want nil after 1ms", r, err, time.Since(start))
		}
		for _, in := range []string{"-1e-400", "-0.001"} {
			got := make(chan any, 1)
			go func() {
				r, _ := db.Do(ctx, "BLPOP", "x", in)
				got <- r
			}()
			time.Sleep(time.Hour)
			synctest.Wait()
			select {
			case r := <-got:
				t.Fatalf("BLPOP x %s returned %v; want blocked until served", in, r)
			default:
			}
			db.RPush(ctx, "x", "v")
			if r := <-got; len(r.([]any)) != 2 {
				t.Fatalf("BLPOP x %s = %v; want [x v]", in, r)
			}
		}
	})
}

// TestTimeoutTinyVsRedis checks on the real server that 1e-400 times out at once and
// -1e-400 blocks (it is released with CLIENT UNBLOCK).
func TestTimeoutTinyVsRedis(t *testing.T) {
	rc := redisClient(t)
	ctx := context.Background()
	conn := rc.Conn()
	defer conn.Close()
	if r, err := conn.Do(ctx, "BLPOP", "tiny-none", "1e-400").Result(); !errors.Is(err, redis.Nil) {
		t.Fatalf("redis BLPOP tiny-none 1e-400 = %v, %v; want nil", r, err)
	}
	id, err := conn.ClientID(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		_, err := conn.Do(ctx, "BLPOP", "tiny-none", "-1e-400").Result()
		got <- err
	}()
	// Unblock it once it is blocked: CLIENT UNBLOCK reports 1 only for a blocked client.
	for {
		n, err := rc.ClientUnblock(ctx, id).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond) // polling the server's state, not synchronising goroutines
	}
	if err := <-got; !errors.Is(err, redis.Nil) {
		t.Fatalf("redis BLPOP tiny-none -1e-400 after CLIENT UNBLOCK: %v; want nil", err)
	}
}
