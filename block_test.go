package zlite

import (
	"context"
	"errors"
	"math"
	"runtime"
	"strconv"
	"testing"
	"testing/synctest"
	"time"
)

// TestBlockingCompare checks the blocking commands' replies and errors against
// Redis where they do not wait (data ready, errors) or wait briefly (timeouts of
// 10 ms on both sides).
func TestBlockingCompare(t *testing.T) {
	tests := []struct {
		name string
		cmds [][]string
	}{
		{"blpop brpop", [][]string{
			cmd("RPUSH", "b", "1", "2", "3"), cmd("BLPOP", "a", "b", "0"), cmd("BRPOP", "a", "b", "0"),
			cmd("BLPOP", "b", "b", "1"), cmd("EXISTS", "b"), cmd("BLPOP", "a", "0.01"), cmd("BRPOP", "a", "b", "0.01"),
			// inf, 1e300 and 1e400 are out of range (Redis 7.2+; 7.0 says negative): see
			// TestTimeoutEdgesVsRedis.
			cmd("BLPOP", "a", "-1"), cmd("BLPOP", "a", "x"), cmd("BLPOP", "a", "-inf"),
			cmd("BLPOP", "a", "nan"), cmd("BLPOP", "a", ""), cmd("BLPOP", "a", " 1"),
			cmd("BLPOP", "a", "1 "), cmd("BLPOP", "a", "0x1p-7"),
			cmd("ZADD", "z", "1", "m"), cmd("RPUSH", "l", "x"), cmd("BLPOP", "missing", "z", "l", "0"),
			cmd("BRPOP", "missing", "l", "z", "0"), cmd("BLPOP"), cmd("BLPOP", "a"),
		}},
		{"blmove brpoplpush", [][]string{
			cmd("RPUSH", "s", "a", "b", "c"), cmd("BLMOVE", "s", "d", "LEFT", "RIGHT", "0"),
			cmd("BLMOVE", "s", "d", "right", "left", "0"), cmd("LRANGE", "d", "0", "-1"),
			cmd("BLMOVE", "missing", "d", "LEFT", "LEFT", "0.01"), cmd("BLMOVE", "s", "d", "UP", "LEFT", "x"),
			cmd("BLMOVE", "s", "d", "LEFT", "LEFT", "x"), cmd("BLMOVE", "s", "d", "LEFT", "LEFT", "-1"),
			cmd("ZADD", "z", "1", "m"), cmd("BLMOVE", "s", "z", "LEFT", "LEFT", "0"), cmd("BLMOVE", "z", "d", "LEFT", "LEFT", "0"),
			cmd("BRPOPLPUSH", "s", "d", "0"), cmd("BRPOPLPUSH", "s", "d", "0.01"), cmd("BRPOPLPUSH", "s", "d", "x"),
			cmd("BRPOPLPUSH", "d", "z", "0"), cmd("BRPOPLPUSH", "d", "d", "0"), cmd("LRANGE", "d", "0", "-1"),
		}},
		{"blmpop", [][]string{
			cmd("RPUSH", "b", "1", "2", "3", "4"), cmd("BLMPOP", "0", "2", "a", "b", "LEFT"),
			cmd("BLMPOP", "0", "2", "a", "b", "RIGHT", "COUNT", "2"), cmd("BLMPOP", "0.01", "1", "a", "LEFT"),
			cmd("BLMPOP", "x", "0", "a", "LEFT"), cmd("BLMPOP", "x", "1", "a", "LEFT"), cmd("BLMPOP", "-1", "1", "a", "LEFT"),
			cmd("BLMPOP", "0", "1", "a", "UP"), cmd("BLMPOP", "0", "2", "a", "LEFT"), cmd("BLMPOP", "0", "1", "a", "LEFT", "COUNT", "0"),
			cmd("BLMPOP", "0", "1", "a", "LEFT", "BAR"), cmd("ZADD", "z", "1", "m"), cmd("BLMPOP", "0", "2", "z", "b", "LEFT"),
			cmd("BLMPOP", "0", "1", "b", "LEFT", "COUNT", "9"), cmd("BLMPOP", "0", "1", "a"),
		}},
		{"bzpopmin bzpopmax", [][]string{
			cmd("ZADD", "z", "1", "a", "2", "b", "3", "c"), cmd("BZPOPMIN", "x", "z", "0"), cmd("BZPOPMAX", "x", "z", "0"),
			cmd("BZPOPMIN", "x", "0.01"), cmd("BZPOPMAX", "z", "-1"), cmd("BZPOPMAX", "z", "x"), cmd("RPUSH", "l", "x"),
			cmd("BZPOPMIN", "l", "z", "0"), cmd("BZPOPMIN", "z", "l", "0"), cmd("EXISTS", "z"), cmd("BZPOPMIN", "z"),
			cmd("ZADD", "f", "1.5", "a", "-2.25", "b"), cmd("BZPOPMIN", "f", "0"), cmd("BZPOPMAX", "f", "0"),
		}},
		{"bzmpop", [][]string{
			cmd("ZADD", "z", "1", "a", "2", "b", "3", "c"), cmd("BZMPOP", "0", "2", "x", "z", "MIN"),
			cmd("BZMPOP", "0", "1", "z", "max", "COUNT", "5"), cmd("EXISTS", "z"), cmd("BZMPOP", "0.01", "1", "z", "MIN"),
			cmd("BZMPOP", "x", "0", "z", "MIN"), cmd("BZMPOP", "x", "1", "z", "MIN"), cmd("BZMPOP", "0", "1", "z", "LEFT"),
			cmd("BZMPOP", "0", "1", "z", "MIN", "COUNT", "-1"), cmd("BZMPOP", "0", "1", "z", "MIN", "COUNT", "1", "COUNT", "1"),
			cmd("RPUSH", "l", "x"), cmd("BZMPOP", "0", "1", "l", "MIN"), cmd("BZMPOP", "0", "1", "z"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { compare(t, tt.cmds...) })
	}
}

// TestParseTimeout covers the conversion to time.Duration (the parsing itself is
// TestTimeoutMillis's): milliseconds, and a cap at 292 years.
func TestParseTimeout(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  error
	}{
		{"0", 0, nil},
		{"1.5", 1500 * time.Millisecond, nil},
		{"1e-400", time.Millisecond, nil},
		{"9000000000000", math.MaxInt64, nil},
		{"-1", 0, ErrTimeoutNegative},
		{"inf", 0, ErrTimeoutOutOfRange},
		{"nan", 0, ErrTimeoutNotFloat},
	}
	for _, tt := range tests {
		got, err := parseTimeout(tt.in)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("parseTimeout(%q) = %v, %v; want %v, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// distinctKeys returns n distinct key names.
func distinctKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "key:" + strconv.Itoa(i)
	}
	return keys
}

// TestBlockingManyKeys guards against a regression where a BLPOP on 20k distinct keys
// swept the whole wait-queue map once per key (O(n²) under the lock, 5 s, stalling
// every other command). Registration must examine O(keys) queues, whatever ran before; the
// count of queues examined by sweeps is the regression check (not the time).
func TestBlockingManyKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		db := track(New())
		keys := distinctKeys(20000)
		args := append(append([]string{"BLPOP"}, keys...), keys[:100]...) // repeats count once
		enqueued := 0
		for round := range 3 {
			c, cancel := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() {
				_, err := db.Do(c, append(args, "0")...)
				done <- err
			}()
			synctest.Wait()
			enqueued += len(keys)
			st := db.waitStats()
			if st.Blocked != 1 || st.Swept > 2*enqueued {
				t.Fatalf("round %d: %d blocked, sweeps examined %d queues for %d keys enqueued; want 1 and at most %d",
					round, st.Blocked, st.Swept, enqueued, 2*enqueued)
			}
			if round == 2 {
				db.RPush(ctx, keys[len(keys)-1], "x") // served on its last key
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				cancel()
				break
			}
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("BLPOP = %v; want context.Canceled", err)
			}
		}
		mustCheck(t, db)
		if n := db.blockedCount(); n != 0 {
			t.Fatalf("blockedCount = %d; want 0", n)
		}
	})
}

// BenchmarkBLPopKeys measures a BLPOP on n distinct keys that blocks and is then
// served by a push onto its last key: trying the keys, registering on each, and
// leaving every queue once served. The cost must grow linearly with n (ns/key flat).
func BenchmarkBLPopKeys(b *testing.B) {
	for _, n := range []int{1, 100, 10000, 40000} {
		b.Run("op=BLPOP/keys="+strconv.Itoa(n)+"/impl=zlite", func(b *testing.B) {
			ctx := context.Background()
			db := New()
			keys := distinctKeys(n)
			last := keys[n-1]
			got := make(chan string)
			go func() {
				for {
					_, v, _, _ := db.BLPop(ctx, 0, keys...)
					got <- v
					if v == "stop" {
						return
					}
				}
			}()
			b.ReportAllocs()
			for b.Loop() {
				for db.blockedCount() == 0 { // push once the BLPOP has blocked
					runtime.Gosched()
				}
				db.RPush(ctx, last, "x")
				<-got
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/key")
			db.RPush(ctx, last, "stop")
			<-got
		})
	}
}
