package fuzz

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/zlite/zlite"
	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/internal/testmain"
	"github.com/zlite/zlite/pubsub"
)

// eventFlags is the notify-keyspace-events both sides of TestDifferentialEvents
// run with: every class of events, both channels, key creation and key misses.
const eventFlags = "KEAnm"

// endMarker is the channel of the PUBLISH that follows each command on the Redis
// side, so that the events of one command can be told from the next's.
const endMarker = "zlite-fuzz-end-of-command"

// eventLoosenings say where the events of a command are not compared as they
// are; as loosenings in loosen_test.go, each says why.
var eventLoosenings = []struct{ name, why string }{
	{"expiry-timing", "A key whose time has come is reclaimed by each server at a moment of its own " +
		"(Redis's cron or its next lookup, zlite's next lookup or the end of a command in its shard), " +
		"so the \"expired\" events are dropped from both sides; the replies still show that the key is gone."},
	{"version-errors", "Where a reply loosening lets zlite answer with Redis 7.2's error a command that " +
		"Redis 7.0 runs (LPOS RANK -9223372036854775808, a blocking timeout out of range, ZRANK's " +
		"fourth argument), 7.2 fails before it looks a key up: zlite must publish nothing, and " +
		"Redis 7.0's events (a \"keymiss\" of the lookup 7.2 does not make) are not compared."},
}

// versionErrors are the reply loosenings of "version-errors".
var versionErrors = map[string]bool{"lpos-rank-min": true, "timeout-out-of-range": true, "zrank-syntax": true}

// versionError reports whether the "version-errors" loosening covers c: a
// loosening of versionErrors applies, and zlite replied an error that is not
// Redis's reply.
func versionError(c []string, zl, rd val, redis72 bool) bool {
	if zl.kind != kErr || equalVal(zl, rd, false) {
		return false
	}
	for _, l := range applicable(c, redis72) {
		if versionErrors[l.name] {
			return true
		}
	}
	return false
}

// TestDifferentialEvents runs a seeded random transcript, as TestDifferential
// does, on zlite and on a redis-server of its own (notify-keyspace-events is a
// server-wide setting, which the shared one must not see changed), with a
// subscriber to every channel on each side, and requires for each command the
// same reply (up to loosen_test.go's loosenings) and the same keyspace events,
// in the same order (up to eventLoosenings).
func TestDifferentialEvents(t *testing.T) {
	addr, _, err := redistest.Own(t)
	if err != nil {
		t.Skipf("no redis-server of the test's own: %v", err)
	}
	ctx := context.Background()
	c := newRedisClient(addr, redisDB, "zlite-fuzz-events")
	defer c.Close()
	if err := c.ConfigSet(ctx, "notify-keyspace-events", eventFlags).Err(); err != nil {
		t.Fatal(err)
	}
	subc := newRedisClient(addr, redisDB, "zlite-fuzz-events-sub")
	defer subc.Close()
	rsub := subc.PSubscribe(ctx, "*")
	defer rsub.Close()
	if _, err := rsub.Receive(ctx); err != nil {
		t.Fatal(err)
	}

	ev, err := zlite.ParseKeyspaceEvents(eventFlags)
	if err != nil {
		t.Fatal(err)
	}
	// Numbered as Redis's database, so that the channels are the same bytes.
	db := zlite.New(zlite.WithKeyspaceEvents(ev), zlite.WithEventsDB(redisDB))
	zsub := db.PubSub().Subscriber()
	defer zsub.Close()
	zsub.PSubscribe("*")

	allowed, _ := implemented(zlite.New())
	seed := testmain.Seed(t)
	n := transcriptLen(t) / 10
	if testing.Short() {
		n = 2000
	}
	t.Logf("ZLITE_SEED=%d, %d commands", seed, n)
	g := &gen{src: randSource{rand.New(rand.NewPCG(seed, seed^0x5bd1e995))}, allowed: allowed}
	redis72 := redisVersion72(t, c)
	er := &eventRun{t: t, ctx: ctx, db: db, zsub: zsub, rc: c, rsub: rsub, redis72: redis72}
	for er.compared < n {
		er.segment(g.segment())
	}
	t.Logf("compared the replies of %d commands and their %d events (%d keymiss) with Redis", er.compared, er.events, er.misses)
	if er.events == 0 || er.misses == 0 {
		t.Fatalf("%d events, %d keymiss published: the comparison compared nothing", er.events, er.misses)
	}
}

// eventRun is the state of TestDifferentialEvents.
type eventRun struct {
	t        *testing.T
	ctx      context.Context
	db       *zlite.DB
	zsub     *pubsub.Subscriber
	rc       *redis.Client
	rsub     *redis.PubSub
	redis72  bool
	compared int // commands compared
	events   int // events compared
	misses   int // of which "keymiss" events
}

// segment runs one segment of steps (FLUSHALL first) on both sides: on zlite
// one command at a time, draining the events after each; on Redis in one
// pipeline with a marker PUBLISH after each command. It fails the test at the
// first reply or event list that differs, with the segment so far.
func (er *eventRun) segment(steps []step) {
	t := er.t
	var cmds [][]string
	for _, s := range steps {
		cmds = append(cmds, s...)
	}
	zv := make([]val, len(cmds))
	zev := make([][]string, len(cmds))
	z := zliteTarget{er.db}
	for i, c := range cmds {
		zv[i] = z.do(c)
		msgs, err := er.zsub.Drain(nil)
		if err != nil {
			t.Fatalf("zlite subscriber: %v", err)
		}
		for _, m := range msgs {
			zev[i] = append(zev[i], m.Channel+" "+m.Payload)
		}
	}

	pipe := er.rc.Pipeline()
	out := make([]*redis.Cmd, len(cmds))
	for i, c := range cmds {
		args := make([]any, 0, len(c))
		for _, a := range redisArgs(c, er.redis72) {
			args = append(args, a)
		}
		out[i] = pipe.Do(er.ctx, args...)
		pipe.Publish(er.ctx, endMarker, strconv.Itoa(i))
	}
	_, _ = pipe.Exec(er.ctx) // per-command errors are read below
	rv := make([]val, len(cmds))
	rev := make([][]string, len(cmds))
	for i, c := range out {
		v, err := c.Result()
		if err != nil && !isReplyError(err) {
			t.Fatalf("%s: %v", formatCmd(cmds[i]), err)
		}
		rv[i] = toVal(v, err)
		for {
			m, err := er.rsub.ReceiveMessage(er.ctx)
			if err != nil {
				t.Fatalf("Redis subscriber: %v", err)
			}
			if m.Channel == endMarker {
				if m.Payload != strconv.Itoa(i) {
					t.Fatalf("marker %q after command %d", m.Payload, i)
				}
				break
			}
			rev[i] = append(rev[i], m.Channel+" "+m.Payload)
		}
	}

	k := 0
	for _, s := range steps {
		for ci, c := range s {
			var after val
			if ci+1 < len(s) {
				after = zv[k+1]
			}
			msg := compareReply(c, zv[k], rv[k], after, er.redis72)
			ze, re := withoutExpired(zev[k]), withoutExpired(rev[k])
			if versionError(c, zv[k], rv[k], er.redis72) {
				re = nil // "version-errors": what Redis 7.2 publishes
			}
			if msg == "" && !slices.Equal(ze, re) {
				msg = fmt.Sprintf("events differ (after the loosenings %s)\n  zlite: %q\n  redis: %q", eventLooseningNames(), ze, re)
			}
			if msg != "" {
				t.Fatalf("divergence after %d commands compared\ncommand: %s\nzlite:   %s\nredis:   %s\nproblem: %s\n"+
					"the segment so far (replies and events, zlite then redis):\n%s",
					er.compared, formatCmd(c), zv[k], rv[k], msg, eventReport(cmds[:k+1], zv, rv, zev, rev))
			}
			er.compared++
			er.events += len(ze)
			for _, e := range ze {
				if strings.HasSuffix(e, " keymiss") {
					er.misses++
				}
			}
			k++
		}
	}
}

// eventLooseningNames lists the names of eventLoosenings.
func eventLooseningNames() string {
	var names []string
	for _, l := range eventLoosenings {
		names = append(names, strconv.Quote(l.name))
	}
	return strings.Join(names, ", ")
}

// withoutExpired drops the "expired" events (the "expiry-timing" loosening).
func withoutExpired(evs []string) []string {
	var out []string
	for _, e := range evs {
		if !strings.HasSuffix(e, " expired") && !strings.Contains(e, "__:expired ") {
			out = append(out, e)
		}
	}
	return out
}

// eventReport renders commands with both sides' replies and events.
func eventReport(cmds [][]string, zv, rv []val, zev, rev [][]string) string {
	var b strings.Builder
	for i, c := range cmds {
		fmt.Fprintf(&b, "  %s\n      zlite: %s %q\n      redis: %s %q\n", formatCmd(c), zv[i], zev[i], rv[i], rev[i])
	}
	return b.String()
}
