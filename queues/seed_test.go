package queues_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/queues"
)

// seedRawZAdd is ZADD key score member, as another program writing the layout does.
var seedRawZAdd = queues.NewScript(`return redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])`,
	func(tx queues.Tx, keys, args []string) (any, error) {
		s, _ := strconv.ParseFloat(args[0], 64)
		return tx.ZAdd(keys[0], s, args[1])
	})

// seedRawZRange is ZRANGE key 0 -1 WITHSCORES.
var seedRawZRange = queues.NewScript(`return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')`,
	func(tx queues.Tx, keys, args []string) (any, error) {
		zs, err := tx.ZRangeWithScores(keys[0], 0, -1)
		out := []any{}
		for _, z := range zs {
			out = append(out, z.Member, strconv.FormatFloat(z.Score, 'g', -1, 64))
		}
		return out, err
	})

// seedRawLRange is LRANGE key 0 -1.
var seedRawLRange = queues.NewScript(`return redis.call('LRANGE', KEYS[1], 0, -1)`,
	func(tx queues.Tx, keys, args []string) (any, error) {
		vs, err := tx.LRange(keys[0], 0, -1)
		out := []any{}
		for _, v := range vs {
			out = append(out, v)
		}
		return out, err
	})

// seedZAdd writes member with score into the sorted set key, as other code would.
func seedZAdd(t *testing.T, b queues.Backend, key string, score float64, member string) {
	t.Helper()
	_, err := b.Eval(context.Background(), seedRawZAdd, []string{key}, strconv.FormatFloat(score, 'g', -1, 64), member)
	require.NoError(t, err)
}

// seedZRange returns the sorted set key as "member score" lines, in order.
func seedZRange(t *testing.T, b queues.Backend, key string) []string {
	t.Helper()
	r, err := b.Eval(context.Background(), seedRawZRange, []string{key})
	require.NoError(t, err)
	var out []string
	a, _ := r.([]any)
	for i := 0; i+1 < len(a); i += 2 {
		s, _ := strconv.ParseFloat(fmt.Sprint(a[i+1]), 64)
		out = append(out, fmt.Sprintf("%v %s", a[i], strconv.FormatFloat(s, 'f', -1, 64)))
	}
	return out
}

// seedLRange returns the list key, left to right.
func seedLRange(t *testing.T, b queues.Backend, key string) []string {
	t.Helper()
	r, err := b.Eval(context.Background(), seedRawLRange, []string{key})
	require.NoError(t, err)
	var out []string
	a, _ := r.([]any)
	for _, v := range a {
		out = append(out, fmt.Sprint(v))
	}
	return out
}

// seedAt returns a fixed clock at Unix time sec.
func seedAt(sec float64) func() time.Time {
	t := time.Unix(0, int64(math.Round(sec*1e9)))
	return func() time.Time { return t }
}

func TestSeedWaitlistLayout(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		for _, tt := range []struct {
			name  string
			raw   []queues.Z // written by the recipe's code: seats, "<seconds> <name>"
			add   []queues.Party
			now   float64
			table int64
			match queues.Match
			want  []string // names seated, one Seat each, until none suits
		}{
			{name: "recipe order", raw: []queues.Z{{Member: "1452266753 Bob", Score: 2}, {Member: "1452267102 Karen", Score: 2}, {Member: "1452267136 You", Score: 4}},
				table: 2, want: []string{"Bob", "Karen"}},
			{name: "same second by name", raw: []queues.Z{{Member: "1452267102 Karen", Score: 2}, {Member: "1452267102 Al", Score: 2}},
				table: 2, want: []string{"Al", "Karen"}},
			{name: "go after recipe", raw: []queues.Z{{Member: "1452267102 Karen", Score: 2}},
				add: []queues.Party{{Name: "Zed", Seats: 2}}, now: 1452267103, table: 2, want: []string{"Karen", "Zed"}},
			{name: "go before recipe", raw: []queues.Z{{Member: "1452267102 Karen", Score: 2}},
				add: []queues.Party{{Name: "Zed", Seats: 2}}, now: 1452267000, table: 2, want: []string{"Zed", "Karen"}},
			{name: "exact skips other sizes", raw: []queues.Z{{Member: "1 a", Score: 1}, {Member: "2 b", Score: 3}, {Member: "3 c", Score: 2}},
				table: 2, want: []string{"c"}},
			{name: "fits takes earliest of any smaller size", raw: []queues.Z{{Member: "3 a", Score: 1}, {Member: "1 b", Score: 3}, {Member: "2 c", Score: 2}, {Member: "0 d", Score: 5}},
				table: 3, match: queues.Fits, want: []string{"b", "c", "a"}},
			{name: "foreign member without a second", raw: []queues.Z{{Member: "walk-in", Score: 2}},
				table: 2, want: []string{"walk-in"}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				key := qname(t)
				for _, z := range tt.raw {
					seedZAdd(t, b, key, z.Score, z.Member)
				}
				w := queues.NewClassicWaitlist(b, key, queues.WithClock(seedAt(tt.now)))
				for _, p := range tt.add {
					require.NoError(t, w.Add(ctx, p.Name, p.Seats))
					require.Contains(t, seedZRange(t, b, key), fmt.Sprintf("%d %s %d", int64(tt.now), p.Name, p.Seats))
				}
				var got []string
				for {
					p, ok, err := w.Seat(ctx, tt.table, tt.match)
					require.NoError(t, err)
					if !ok {
						break
					}
					got = append(got, p.Name)
				}
				require.Equal(t, tt.want, got)
			})
		}

		t.Run("position leave items errors", func(t *testing.T) {
			key := qname(t)
			seedZAdd(t, b, key, 2, "100 Bob")
			seedZAdd(t, b, key, 4, "101 Karen")
			w := queues.NewClassicWaitlist(b, key, queues.WithClock(seedAt(102)))
			require.NoError(t, w.Add(ctx, "Liz", 2))
			require.ErrorIs(t, w.Add(ctx, "Liz", 3), queues.ErrDuplicate)
			require.ErrorIs(t, w.Add(ctx, "", 3), queues.ErrEmptyID)
			require.ErrorIs(t, w.Add(ctx, "x", 0), queues.ErrBadSeats)
			_, _, err := w.Seat(ctx, 0, queues.Exact)
			require.ErrorIs(t, err, queues.ErrBadSeats)
			for name, want := range map[string]int64{"Bob": 1, "Karen": 2, "Liz": 3} {
				pos, ok, err := w.Position(ctx, name)
				require.NoError(t, err)
				require.True(t, ok, name)
				require.Equal(t, want, pos, "Position(%q)", name)
			}
			items, err := w.Items(ctx, 1, 5)
			require.NoError(t, err)
			require.Equal(t, []queues.Party{{Name: "Karen", Seats: 4}, {Name: "Liz", Seats: 2}}, items)
			left, err := w.Leave(ctx, "Karen")
			require.NoError(t, err)
			require.True(t, left)
			left, err = w.Leave(ctx, "Karen")
			require.NoError(t, err)
			require.False(t, left)
			_, ok, err := w.Position(ctx, "Karen")
			require.NoError(t, err)
			require.False(t, ok)
			n, err := w.Len(ctx)
			require.NoError(t, err)
			require.Equal(t, int64(2), n)
		})

		t.Run("concurrent seats", func(t *testing.T) {
			key := qname(t)
			const n = 60
			for i := range n {
				seedZAdd(t, b, key, 2, fmt.Sprintf("%d p%02d", 1000+i, i))
			}
			w := queues.NewClassicWaitlist(b, key)
			seated := seedTakeAll(t, func() (string, bool, error) {
				p, ok, err := w.Seat(ctx, 2, queues.Exact)
				return p.Name, ok, err
			})
			require.Len(t, seated, n)
		})
	})
}

// seedTakeAll runs take from four goroutines until it reports nothing left and returns
// what each took, failing on a duplicate.
func seedTakeAll(t *testing.T, take func() (string, bool, error)) map[string]bool {
	t.Helper()
	var mu sync.Mutex
	got := map[string]bool{}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			for {
				v, ok, err := take()
				if err != nil {
					errs <- err
					return
				}
				if !ok {
					return
				}
				mu.Lock()
				if got[v] {
					errs <- fmt.Errorf("%q taken twice", v)
				}
				got[v] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	return got
}

func TestSeedCallQueueLayout(t *testing.T) {
	const t0 = 1.8e9
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		type call struct {
			id   string
			prio int64
			t    float64 // Unix seconds
			ruby bool    // written by the recipe's code, else by Enqueue
		}
		for _, tt := range []struct {
			name  string
			calls []call
			want  []string // dequeue order
		}{
			{"priority then arrival", []call{{"c1", 1, t0, true}, {"c2", 5, t0 + 1, true}, {"c3", 5, t0 + 2, false}, {"c4", 1, t0 + 0.5, false}},
				[]string{"c2", "c3", "c1", "c4"}},
			{"microseconds apart", []call{{"a", 1, t0, false}, {"b", 1, t0 + 5e-6, true}, {"c", 1, t0 + 10e-6, false}},
				[]string{"a", "b", "c"}},
			{"ties within the spacing go by reverse id", []call{{"a", 1, t0, false}, {"b", 1, t0 + 1e-6, true}},
				[]string{"b", "a"}},
			{"negative priority", []call{{"low", -3, t0, true}, {"zero", 0, t0 + 9, false}},
				[]string{"zero", "low"}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				key := qname(t)
				for _, c := range tt.calls {
					if c.ruby {
						seedZAdd(t, b, key, float64(c.prio)*1e10+(1e10-c.t), c.id)
						continue
					}
					q := queues.NewClassicCallQueue(b, key, queues.WithClock(seedAt(c.t)))
					require.NoError(t, q.Enqueue(ctx, c.id, c.prio))
				}
				q := queues.NewClassicCallQueue(b, key)
				items, err := q.Items(ctx, 0, 100)
				require.NoError(t, err)
				var got []string
				for i, c := range items {
					got = append(got, c.ID)
					pos, ok, err := q.Position(ctx, c.ID)
					require.NoError(t, err)
					require.True(t, ok)
					require.Equal(t, int64(i+1), pos, "Position(%q)", c.ID)
				}
				require.Equal(t, tt.want, got, "Items")
				got = nil
				for range tt.calls {
					c, ok, err := q.Dequeue(ctx, time.Second)
					require.NoError(t, err)
					require.True(t, ok)
					got = append(got, c.ID)
					for _, in := range tt.calls {
						if in.id == c.ID {
							require.Equal(t, float64(in.prio), c.Priority)
							require.InDelta(t, in.t, float64(c.Since.UnixMicro())/1e6, 4e-6, "Since of %q", c.ID)
						}
					}
				}
				require.Equal(t, tt.want, got, "Dequeue")
				_, ok, err := q.TryDequeue(ctx)
				require.NoError(t, err)
				require.False(t, ok)
			})
		}

		t.Run("score is the recipe's", func(t *testing.T) {
			key := qname(t)
			now := time.Unix(1767323045, 123456789)
			q := queues.NewClassicCallQueue(b, key, queues.WithClock(func() time.Time { return now }))
			require.NoError(t, q.Enqueue(ctx, "c1", 3))
			want := 3*1e10 + (1e10 - float64(now.UnixNano())/1e9)
			require.Equal(t, []string{"c1 " + strconv.FormatFloat(want, 'f', -1, 64)}, seedZRange(t, b, key))
			require.ErrorIs(t, q.Enqueue(ctx, "c1", 3), queues.ErrDuplicate)
			require.ErrorIs(t, q.Enqueue(ctx, "", 3), queues.ErrEmptyID)
			require.ErrorIs(t, q.Enqueue(ctx, "big", queues.ClassicCallMaxPriority+1), queues.ErrBadPriority)
			ok, err := q.Cancel(ctx, "c1")
			require.NoError(t, err)
			require.True(t, ok)
			n, err := q.Len(ctx)
			require.NoError(t, err)
			require.Zero(t, n)
		})

		t.Run("stale", func(t *testing.T) {
			key := qname(t)
			seedZAdd(t, b, key, 1e10+(1e10-(t0-100)), "old-ruby")
			for _, c := range []struct {
				id   string
				prio int64
				t    float64
			}{{"old-go", 7, t0 - 50}, {"fresh", 9, t0 - 10}} {
				require.NoError(t, queues.NewClassicCallQueue(b, key, queues.WithClock(seedAt(c.t))).Enqueue(ctx, c.id, c.prio))
			}
			q := queues.NewClassicCallQueue(b, key, queues.WithClock(seedAt(t0)))
			stale, err := q.Stale(ctx, 30*time.Second)
			require.NoError(t, err)
			var ids []string
			for _, c := range stale {
				ids = append(ids, c.ID)
			}
			require.Equal(t, []string{"old-ruby", "old-go"}, ids)
			_, err = q.Stale(ctx, -1)
			require.ErrorIs(t, err, queues.ErrBadDuration)
		})

		t.Run("dequeue waits for a recipe enqueue", func(t *testing.T) {
			key := qname(t)
			q := queues.NewClassicCallQueue(b, key)
			done := make(chan struct{})
			go func() {
				defer close(done)
				time.Sleep(30 * time.Millisecond)
				_, _ = b.Eval(context.Background(), seedRawZAdd, []string{key}, "1.5e10", "late")
			}()
			c, ok, err := q.Dequeue(ctx, 5*time.Second)
			<-done
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, "late", c.ID)
			c, ok, err = q.Dequeue(ctx, 20*time.Millisecond)
			require.NoError(t, err)
			require.False(t, ok, "Dequeue on an empty queue = %v", c)
			cctx, cancel := context.WithCancel(ctx)
			cancel()
			_, _, err = q.Dequeue(cctx, 0)
			require.ErrorIs(t, err, context.Canceled)
		})

		t.Run("concurrent dequeues", func(t *testing.T) {
			key := qname(t)
			const n = 60
			for i := range n {
				seedZAdd(t, b, key, float64(i%3)*1e10+(1e10-(t0+float64(i))), fmt.Sprintf("c%02d", i))
			}
			q := queues.NewClassicCallQueue(b, key)
			got := seedTakeAll(t, func() (string, bool, error) {
				c, ok, err := q.Dequeue(ctx, 20*time.Millisecond)
				return c.ID, ok, err
			})
			require.Len(t, got, n)
		})
	})
}

// TestSeedClassicCallPrecision measures what the recipe's score keeps of the enqueue
// time: Since decoded from a score is less than the score's float64 spacing from the
// true time (the score rounds twice: 10¹⁰ − t, then the sum; Since rounds to the
// microsecond), and that spacing is the one documented on ClassicCallQueue.
func TestSeedClassicCallPrecision(t *testing.T) {
	const now = 1.8e9
	for _, tt := range []struct {
		prio    int64
		spacing float64 // seconds
	}{
		{1, 0x1p-18}, {2, 0x1p-18}, {3, 0x1p-17}, {6, 0x1p-17}, {7, 0x1p-16}, {12, 0x1p-16},
		{99, 0x1p-13}, {1000, 0x1p-9}, {queues.ClassicCallMaxPriority, 0.5}, {-5, 0x1p-17},
	} {
		t.Run(fmt.Sprint("priority=", tt.prio), func(t *testing.T) {
			sc := queues.ClassicCallScore(tt.prio, time.Unix(int64(now), 0))
			if got := spacing(sc); got != tt.spacing && tt.prio > 0 {
				t.Errorf("spacing(score(%d)) = %v s; want %v s", tt.prio, got, tt.spacing)
			}
			worst := 0.0
			for i := range 1000 {
				ts := time.Unix(int64(now), int64(i)*999_983) // spread over the second
				p, since := queues.ClassicCallDecode(queues.ClassicCallScore(tt.prio, ts))
				if p != tt.prio {
					t.Fatalf("ClassicCallDecode(score(%d, %v)) priority = %d", tt.prio, ts, p)
				}
				worst = max(worst, math.Abs(since.Sub(ts).Seconds()))
			}
			if limit := spacing(sc); worst >= limit {
				t.Errorf("priority %d: worst Since error %v s; want less than %v s", tt.prio, worst, limit)
			}
			t.Logf("priority %d: spacing %.3g s, worst Since error %.3g s", tt.prio, spacing(sc), worst)
		})
	}
	if p := int64(queues.ClassicCallMaxPriority + 1); spacing(queues.ClassicCallScore(p, time.Unix(int64(now), 0))) != 1 {
		t.Errorf("spacing above ClassicCallMaxPriority is not a whole second")
	}
}

func TestSeedListLayouts(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		t.Run("fifo", func(t *testing.T) {
			key := qname(t)
			_, err := b.LPush(ctx, key, "1", "2") // redis-cli lpush
			require.NoError(t, err)
			q := queues.NewClassicFIFO(b, key)
			require.NoError(t, q.Push(ctx, "3"))
			require.Equal(t, []string{"3", "2", "1"}, seedLRange(t, b, key))
			for _, want := range []string{"1", "2", "3"} {
				v, ok, err := q.Pop(ctx, time.Second)
				require.NoError(t, err)
				require.True(t, ok)
				require.Equal(t, want, v)
			}
		})
		t.Run("levels", func(t *testing.T) {
			tag := "{" + qname(t) + "}" // one slot, for a cluster
			a, bb := tag+"a", tag+"b"
			for _, k := range []string{a, bb} {
				for _, v := range []string{"1", "2", "3"} {
					_, err := b.LPush(ctx, k, v)
					require.NoError(t, err)
				}
			}
			q := queues.NewClassicLevels(b, []string{a, bb})
			require.Equal(t, []string{a, bb}, q.Names())
			var got []string
			for range 6 {
				l, v, ok, err := q.Pop(ctx, time.Second)
				require.NoError(t, err)
				require.True(t, ok)
				got = append(got, l[len(tag):]+v)
			}
			require.Equal(t, []string{"a1", "a2", "a3", "b1", "b2", "b3"}, got)
			require.Panics(t, func() { queues.NewClassicLevels(b, []string{a, a}) })
			require.Panics(t, func() { queues.NewClassicLevels(b, nil) })
		})
	})
}

func TestSeedTimedLayout(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		for _, tt := range []struct {
			name string
			unit time.Duration
			raw  []queues.Z
			now  float64 // in units
			want []string
		}{
			{"transcript", time.Second, []queues.Z{{Member: "a", Score: 100}, {Member: "b", Score: 200}, {Member: "c", Score: 300}, {Member: "d", Score: 400}}, 200, []string{"a", "b"}},
			{"equal times by bytes", time.Second, []queues.Z{{Member: "y", Score: 5}, {Member: "x", Score: 5}}, 5, []string{"x", "y"}},
			{"milliseconds", time.Millisecond, []queues.Z{{Member: "m1", Score: 1767323045001}, {Member: "m2", Score: 1767323045002}}, 1767323045001, []string{"m1"}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				key := qname(t)
				for _, z := range tt.raw {
					seedZAdd(t, b, key, z.Score, z.Member)
				}
				now := time.UnixMicro(int64(tt.now * float64(tt.unit/time.Microsecond)))
				q := queues.NewClassicTimed(b, key, tt.unit, queues.WithClock(func() time.Time { return now }))
				var got []string
				for {
					j, ok, err := q.TryPop(ctx)
					require.NoError(t, err)
					if !ok {
						break
					}
					require.Equal(t, j.ID, j.Payload)
					got = append(got, j.Payload)
				}
				require.Equal(t, tt.want, got)
			})
		}

		t.Run("schedule writes the recipe's score", func(t *testing.T) {
			key := qname(t)
			q := queues.NewClassicTimed(b, key, time.Millisecond)
			due := time.UnixMilli(1767323045123).Add(456 * time.Microsecond)
			added, err := q.Schedule(ctx, "m", due)
			require.NoError(t, err)
			require.True(t, added)
			require.Equal(t, []string{"m 1767323045123.456"}, seedZRange(t, b, key))
			added, err = q.Schedule(ctx, "m", due.Add(time.Second))
			require.NoError(t, err)
			require.False(t, added)
			items, err := q.Items(ctx, 0, 10)
			require.NoError(t, err)
			require.Len(t, items, 1)
			require.True(t, items[0].Due.Equal(due.Add(time.Second)), "Due = %v", items[0].Due)
			ok, err := q.Cancel(ctx, "m")
			require.NoError(t, err)
			require.True(t, ok)
			_, err = q.Schedule(ctx, "", due)
			require.ErrorIs(t, err, queues.ErrEmptyID)
		})

		t.Run("pop waits for the due time", func(t *testing.T) {
			key := qname(t)
			clock := newFakeClock()
			q := queues.NewClassicTimed(b, key, time.Second, queues.WithClock(clock.Now))
			_, err := q.Schedule(ctx, "later", clock.Now().Add(time.Minute))
			require.NoError(t, err)
			_, ok, err := q.Pop(ctx, 30*time.Millisecond)
			require.NoError(t, err)
			require.False(t, ok)
			done := make(chan struct{})
			go func() {
				defer close(done)
				time.Sleep(20 * time.Millisecond)
				clock.Advance(time.Minute)
			}()
			j, ok, err := q.Pop(ctx, 5*time.Second)
			<-done
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, "later", j.Payload)
		})

		t.Run("concurrent pops", func(t *testing.T) {
			key := qname(t)
			const n = 60
			for i := range n {
				seedZAdd(t, b, key, float64(i), fmt.Sprint("m", i))
			}
			q := queues.NewClassicTimed(b, key, time.Second)
			got := seedTakeAll(t, func() (string, bool, error) {
				j, ok, err := q.TryPop(ctx)
				return j.Payload, ok, err
			})
			require.Len(t, got, n)
		})
	})
}

func TestSeedSchedulerLayout(t *testing.T) {
	each(t, func(t *testing.T, b queues.Backend) {
		ctx := guard(t)
		t.Run("moves in due order", func(t *testing.T) {
			tag := "{" + qname(t) + "}" // one slot, for a cluster
			key, email, sms := tag+"job", tag+"email", tag+"sms"
			php := func(queue, fun, param string) string { // PHP's json_encode of the job array
				return `{"queue":"` + queue + `","fun":"` + fun + `","parameter":` + param + `}`
			}
			seedZAdd(t, b, key, 100, php(email, "sendMail", `{"to":"a@example.com"}`))
			seedZAdd(t, b, key, 200, php(sms, "sendSms", `["+100"]`))
			seedZAdd(t, b, key, 300, php(email, "sendMail", `{"to":"late@example.com"}`))
			seedZAdd(t, b, key, 120, "not json")
			s := queues.NewClassicScheduler(b, key, queues.WithClock(seedAt(250)))
			id, err := s.AddFutureJob(ctx, queues.ClassicJob{Queue: email, Fun: "sendMail", Parameter: json.RawMessage(`{"to":"go@example.com"}`)}, time.Unix(150, 0))
			require.NoError(t, err)
			require.Equal(t, php(email, "sendMail", `{"to":"go@example.com"}`), id)
			moved, err := s.Step(ctx)
			require.ErrorIs(t, err, queues.ErrBadJob)
			var got []string
			for _, j := range moved {
				got = append(got, j.Fun+" "+string(j.Parameter))
			}
			require.Equal(t, []string{`sendMail {"to":"a@example.com"}`, `sendMail {"to":"go@example.com"}`, `sendSms ["+100"]`}, got)
			require.Equal(t, []string{id, php(email, "sendMail", `{"to":"a@example.com"}`)}, seedLRange(t, b, email))
			require.Equal(t, []string{"not json 120", php(email, "sendMail", `{"to":"late@example.com"}`) + " 300"}, seedZRange(t, b, key))
			v, ok, err := s.Queue(email).Pop(ctx, time.Second)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, php(email, "sendMail", `{"to":"a@example.com"}`), v)
			ok, err = s.Cancel(ctx, "not json")
			require.NoError(t, err)
			require.True(t, ok)
			items, err := s.Items(ctx, 0, 10)
			require.NoError(t, err)
			require.Len(t, items, 1)
			require.Equal(t, time.Unix(300, 0), items[0].Due)
		})

		t.Run("bad jobs", func(t *testing.T) {
			s := queues.NewClassicScheduler(b, qname(t))
			for _, tt := range []struct {
				job  queues.ClassicJob
				want error
			}{
				{queues.ClassicJob{Fun: "f"}, queues.ErrNoQueue},
				{queues.ClassicJob{Queue: "q"}, queues.ErrBadJob},
				{queues.ClassicJob{Queue: "q", Fun: "f", Parameter: json.RawMessage("{")}, queues.ErrBadJob},
			} {
				_, err := s.AddFutureJob(ctx, tt.job, time.Now())
				require.ErrorIs(t, err, tt.want, "AddFutureJob(%+v)", tt.job)
			}
			id, err := s.AddFutureJob(ctx, queues.ClassicJob{Queue: "q", Fun: "f"}, time.Now())
			require.NoError(t, err)
			require.Equal(t, `{"queue":"q","fun":"f","parameter":null}`, id)
		})

		t.Run("concurrent movers move each job once", func(t *testing.T) {
			tag := "{" + qname(t) + "}"
			key, list := tag+"job", tag+"work"
			s := queues.NewClassicScheduler(b, key)
			const n = 60
			for i := range n {
				_, err := s.AddFutureJob(ctx, queues.ClassicJob{Queue: list, Fun: "f", Parameter: json.RawMessage(strconv.Itoa(i))}, time.Unix(int64(i), 0))
				require.NoError(t, err)
			}
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			for range 4 {
				wg.Go(func() {
					if _, err := s.Step(ctx); err != nil {
						errs <- err
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			require.Len(t, seedLRange(t, b, list), n)
		})

		t.Run("run moves a job when due", func(t *testing.T) {
			tag := "{" + qname(t) + "}"
			key, list := tag+"job", tag+"work"
			clock := newFakeClock()
			s := queues.NewClassicScheduler(b, key, queues.WithClock(clock.Now))
			_, err := s.AddFutureJob(ctx, queues.ClassicJob{Queue: list, Fun: "f"}, clock.Now().Add(time.Hour))
			require.NoError(t, err)
			rctx, cancel := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { done <- s.Run(rctx, nil) }()
			time.Sleep(20 * time.Millisecond)
			clock.Advance(time.Hour)
			v, ok, err := s.Queue(list).Pop(ctx, 5*time.Second)
			cancel()
			require.ErrorIs(t, <-done, context.Canceled)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, `{"queue":"`+list+`","fun":"f","parameter":null}`, v)
		})
	})
}
