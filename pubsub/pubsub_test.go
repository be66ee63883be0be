package pubsub

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zlite/zlite/internal/testmain"
)

func TestMain(m *testing.M) { testmain.Run(m) }

// drain returns every message s holds.
func drain(t *testing.T, s *Subscriber) []Message {
	t.Helper()
	got, err := s.Drain(nil)
	if err != nil {
		t.Fatalf("drain: %v", err)
	}
	return got
}

// TestCounts checks the counts each (un)subscribe step reports, as Redis's
// replies: channels and patterns together, shard channels apart, a repeated
// name counted once, an unsubscribe-all of nothing one empty step.
func TestCounts(t *testing.T) {
	h := NewHub()
	s := h.Subscriber()
	for _, tc := range []struct {
		name string
		do   func() []Change
		want []Change
	}{
		{"subscribe", func() []Change { return s.Subscribe("a", "b", "a") }, []Change{{"a", 1}, {"b", 2}, {"a", 2}}},
		{"psubscribe", func() []Change { return s.PSubscribe("n*", "n*") }, []Change{{"n*", 3}, {"n*", 3}}},
		{"ssubscribe", func() []Change { return s.SSubscribe("x") }, []Change{{"x", 1}}},
		{"unsubscribe one absent", func() []Change { return s.Unsubscribe("zz") }, []Change{{"zz", 3}}},
		{"unsubscribe all", func() []Change { return s.Unsubscribe() }, []Change{{"a", 2}, {"b", 1}}},
		{"unsubscribe all again", func() []Change { return s.Unsubscribe() }, []Change{{"", 1}}},
		{"punsubscribe all", func() []Change { return s.PUnsubscribe() }, []Change{{"n*", 0}}},
		{"sunsubscribe all", func() []Change { return s.SUnsubscribe() }, []Change{{"x", 0}}},
		{"sunsubscribe nothing", func() []Change { return s.SUnsubscribe() }, []Change{{"", 0}}},
	} {
		if got := tc.do(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v; want %v", tc.name, got, tc.want)
		}
	}
	if c, p, sh := h.Counts(); c+p+sh != 0 {
		t.Errorf("hub still counts %d channels, %d patterns, %d shard channels", c, p, sh)
	}
}

// TestPublish checks who receives what: subscribers of the channel, then one
// pmessage per matching pattern, shard channels apart from both, and the receiver
// count Publish returns.
func TestPublish(t *testing.T) {
	h := NewHub()
	a, b, c := h.Subscriber(), h.Subscriber(), h.Subscriber()
	a.Subscribe("news.tech")
	a.PSubscribe("news.*", "*tech")
	b.PSubscribe("news.[st]*")
	c.SSubscribe("news.tech")
	for _, tc := range []struct {
		publish    func() int
		want       int
		a, b, c    []Message
		numsub     int
		numPattern int
	}{
		{
			publish: func() int { return h.Publish("news.tech", "1") }, want: 4,
			a: []Message{{KindMessage, "", "news.tech", "1"}, {KindPMessage, "*tech", "news.tech", "1"}, {KindPMessage, "news.*", "news.tech", "1"}},
			b: []Message{{KindPMessage, "news.[st]*", "news.tech", "1"}},
		},
		{
			publish: func() int { return h.Publish("news.art", "2") }, want: 1,
			a: []Message{{KindPMessage, "news.*", "news.art", "2"}},
		},
		{
			publish: func() int { return h.SPublish("news.tech", "3") }, want: 1,
			c: []Message{{KindSMessage, "", "news.tech", "3"}},
		},
		{publish: func() int { return h.Publish("other", "4") }, want: 0},
	} {
		if got := tc.publish(); got != tc.want {
			t.Errorf("publish %v: %d receivers; want %d", tc, got, tc.want)
		}
		gotA := drain(t, a)
		// The message first, then a's pmessages in the hub's pattern order:
		// compared as a set.
		sortMessages(gotA)
		sortMessages(tc.a)
		for _, x := range []struct {
			name      string
			got, want []Message
		}{{"a", gotA, tc.a}, {"b", drain(t, b), tc.b}, {"c", drain(t, c), tc.c}} {
			if !slices.Equal(x.got, x.want) {
				t.Errorf("%s got %v; want %v", x.name, x.got, x.want)
			}
		}
	}
	if n, p := h.NumSub("news.tech"), h.NumPat(); n != 1 || p != 3 {
		t.Errorf("numsub = %d, numpat = %d; want 1, 3", n, p)
	}
	if got := h.Channels("news.*"); !slices.Equal(got, []string{"news.tech"}) {
		t.Errorf("channels news.* = %v", got)
	}
	if got := h.ShardChannels("*"); !slices.Equal(got, []string{"news.tech"}) {
		t.Errorf("shard channels = %v", got)
	}
	for _, s := range []*Subscriber{a, b, c} {
		s.Close()
	}
	if c, p, sh := h.Counts(); c+p+sh != 0 {
		t.Errorf("after Close the hub counts %d, %d, %d", c, p, sh)
	}
}

func sortMessages(m []Message) {
	slices.SortFunc(m, func(x, y Message) int { return strings.Compare(x.Pattern+"\x00"+x.Channel, y.Pattern+"\x00"+y.Channel) })
}

// TestReceive checks Receive's order, its wait ended by ctx, and what a closed
// subscriber returns, through Messages too.
func TestReceive(t *testing.T) {
	h := NewHub()
	s := h.Subscriber()
	s.Subscribe("c")
	for i := range 3 {
		h.Publish("c", strconv.Itoa(i))
	}
	ctx := context.Background()
	i := 0
	for m, err := range s.Messages(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if m.Payload != strconv.Itoa(i) {
			t.Fatalf("message %d: %q", i, m.Payload)
		}
		if i++; i == 3 {
			break
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Receive(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("receive with a cancelled context: %v", err)
	}
	h.Publish("c", "last")
	s.Close()
	if _, err := s.Receive(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("receive after close: %v; want ErrClosed (what was queued is dropped)", err)
	}
	if got := s.Subscribe("d"); !slices.Equal(got, []Change{{"d", 0}}) {
		t.Errorf("subscribe after close = %v; want nothing subscribed", got)
	}
	if n := h.Publish("d", "x"); n != 0 {
		t.Errorf("publish to a closed subscriber's channel reached %d", n)
	}
}

// TestSlowSubscriber checks that a subscriber whose queue passes the hard limit,
// or stays above the soft one for its period (on an injected clock), is closed
// with ErrSlow and unsubscribed, while one that keeps up is not.
func TestSlowSubscriber(t *testing.T) {
	now := time.Unix(1000, 0)
	h := NewHub()
	h.SetClock(func() time.Time { return now })
	payload := string(make([]byte, 968)) // 1000 bytes a message with the channel "c"
	t.Run("hard", func(t *testing.T) {
		h.SetLimits(Limits{Hard: 10_000})
		slow, fast := h.Subscriber(), h.Subscriber()
		slow.Subscribe("c")
		fast.Subscribe("c")
		for i := range 11 {
			if n := h.Publish("c", payload); n != 2-min(1, i/10) {
				t.Fatalf("publish %d reached %d", i, n)
			}
			drain(t, fast)
		}
		if err := slow.Err(); !errors.Is(err, ErrSlow) {
			t.Fatalf("slow subscriber: %v; want ErrSlow", err)
		}
		if _, err := slow.Receive(context.Background()); !errors.Is(err, ErrSlow) {
			t.Errorf("receive: %v", err)
		}
		if fast.Err() != nil || h.NumSub("c") != 1 {
			t.Errorf("fast: %v, numsub %d", fast.Err(), h.NumSub("c"))
		}
		fast.Close()
	})
	t.Run("soft", func(t *testing.T) {
		h.SetLimits(Limits{Soft: 5_000, SoftFor: time.Minute})
		s := h.Subscriber()
		s.Subscribe("c")
		for range 6 {
			h.Publish("c", payload) // above 5000 from the 6th: the period starts
		}
		now = now.Add(59 * time.Second)
		h.Publish("c", payload)
		if s.Err() != nil {
			t.Fatalf("closed before the soft period: %v", s.Err())
		}
		drain(t, s) // back under: the period ends
		for range 6 {
			h.Publish("c", payload)
		}
		now = now.Add(59 * time.Second)
		h.Publish("c", payload)
		if s.Err() != nil {
			t.Fatalf("the period did not restart after the drain: %v", s.Err())
		}
		now = now.Add(time.Second)
		h.Publish("c", payload)
		if !errors.Is(s.Err(), ErrSlow) {
			t.Fatalf("after 60 s above the soft limit: %v; want ErrSlow", s.Err())
		}
	})
}

// TestConcurrent runs 100 subscribers (channels and patterns) and 4 publishers
// at once and checks that every live subscriber gets every message, each
// publisher's in its order, and all subscribers in one order.
func TestConcurrent(t *testing.T) {
	h := NewHub()
	const subs, pubs, each = 100, 4, 200
	var ready, done sync.WaitGroup
	got := make([][]Message, subs)
	ready.Add(subs)
	done.Add(subs)
	for i := range subs {
		go func() {
			defer done.Done()
			s := h.Subscriber()
			defer s.Close()
			if i%2 == 0 {
				s.Subscribe("load")
			} else {
				s.PSubscribe("lo*")
			}
			ready.Done()
			for len(got[i]) < pubs*each {
				m, err := s.Receive(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				got[i] = append(got[i], m)
			}
		}()
	}
	ready.Wait()
	var wg sync.WaitGroup
	for p := range pubs {
		wg.Go(func() {
			for j := range each {
				if n := h.Publish("load", fmt.Sprintf("%d:%d", p, j)); n != subs {
					t.Errorf("publish reached %d of %d", n, subs)
				}
			}
		})
	}
	wg.Wait()
	done.Wait()
	for i := range got {
		next := make([]int, pubs)
		for _, m := range got[i] {
			var p, j int
			fmt.Sscanf(m.Payload, "%d:%d", &p, &j)
			if j != next[p] {
				t.Fatalf("subscriber %d: publisher %d's message %d after %d", i, p, j, next[p]-1)
			}
			next[p]++
		}
		payloads := func(ms []Message) []string {
			out := make([]string, len(ms))
			for k, m := range ms {
				out[k] = m.Payload
			}
			return out
		}
		if !slices.Equal(payloads(got[i]), payloads(got[0])) {
			t.Fatalf("subscribers 0 and %d saw the messages in different orders", i)
		}
	}
}
