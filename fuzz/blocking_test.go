package fuzz

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/zlite/zlite"
	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/internal/testmain"
)

// An event of a blocking scenario: client runs args, either to completion or, with
// block, in the background until the server holds it blocked (or it returns at once);
// or, with wait, time passes.
type event struct {
	client string
	args   []string
	block  bool
	wait   time.Duration
}

type scenario struct {
	name   string
	events []event
}

func blk(client string, args ...string) event { return event{client: client, args: args, block: true} }
func run(client string, args ...string) event { return event{client: client, args: args} }
func pass(d time.Duration) event              { return event{wait: d} }

// blockingScenarios are the fixed schedules: who blocks on what, in which order, and
// what wakes them.
var blockingScenarios = []scenario{
	{"fifo", []event{blk("A", "BLPOP", "q", "0"), blk("B", "BLPOP", "q", "0"), run("C", "RPUSH", "q", "x", "y", "z"), run("C", "LRANGE", "q", "0", "-1")}},
	{"lpush serves from the final state", []event{blk("A", "BLPOP", "q", "0"), blk("B", "BRPOP", "q", "0"), run("C", "LPUSH", "q", "a", "b", "c"), run("C", "LRANGE", "q", "0", "-1")}},
	{"first ready key", []event{blk("A", "BLPOP", "q1", "q2", "0"), run("C", "RPUSH", "q2", "a"), run("C", "RPUSH", "q1", "b"), run("C", "LLEN", "q1")}},
	{"served once", []event{blk("A", "BRPOP", "q1", "q2", "0"), blk("B", "BLPOP", "q2", "0"), run("C", "RPUSH", "q1", "a"), run("C", "RPUSH", "q2", "b", "c"), run("C", "LRANGE", "q2", "0", "-1")}},
	{"blmove chain", []event{blk("A", "BLMOVE", "src", "dst", "LEFT", "RIGHT", "0"), blk("B", "BLPOP", "dst", "0"), run("C", "RPUSH", "src", "v"), run("C", "EXISTS", "src", "dst")}},
	{"brpoplpush rotation", []event{blk("A", "BRPOPLPUSH", "q", "q", "0"), blk("B", "BLPOP", "q", "0"), run("C", "RPUSH", "q", "x"), run("C", "LLEN", "q")}},
	{"bzpopmin and bzpopmax", []event{blk("A", "BZPOPMIN", "z", "0"), blk("B", "BZPOPMAX", "z", "0"), run("C", "ZADD", "z", "1", "a", "2", "b", "3", "c"), run("C", "ZRANGE", "z", "0", "-1", "WITHSCORES")}},
	{"bzpopmin keys in order", []event{blk("A", "BZPOPMIN", "z1", "z2", "0"), run("C", "ZADD", "z2", "0.5", "m"), run("C", "ZCARD", "z2")}},
	{"blmpop count", []event{blk("A", "BLMPOP", "0", "2", "q1", "q2", "LEFT", "COUNT", "2"), blk("B", "BLMPOP", "0", "1", "q2", "RIGHT", "COUNT", "5"), run("C", "RPUSH", "q2", "a", "b", "c"), run("C", "EXISTS", "q2")}},
	{"bzmpop count", []event{blk("A", "BZMPOP", "0", "1", "z", "MAX", "COUNT", "2"), blk("B", "BZMPOP", "0", "2", "y", "z", "MIN"), run("C", "ZADD", "z", "1", "a", "2", "b", "3", "c", "-inf", "d"), run("C", "ZRANGE", "z", "0", "-1")}},
	{"wrong type while blocked", []event{blk("A", "BLPOP", "k", "0"), run("C", "ZADD", "k", "1", "a"), run("C", "DEL", "k"), run("C", "RPUSH", "k", "x"), run("C", "EXISTS", "k")}},
	{"zset waiter and list push", []event{blk("A", "BZPOPMIN", "k", "0"), blk("B", "BLPOP", "k", "0"), run("C", "RPUSH", "k", "x"), run("C", "DEL", "k"), run("C", "ZADD", "k", "2", "m")}},
	{"rename wakes", []event{blk("A", "BLPOP", "dst", "0"), run("C", "RPUSH", "src", "a"), run("C", "RENAME", "src", "dst"), run("C", "EXISTS", "src", "dst")}},
	{"zunionstore wakes", []event{blk("A", "BZPOPMIN", "dst", "0"), run("C", "ZADD", "s", "1", "a", "2", "b"), run("C", "ZUNIONSTORE", "dst", "1", "s"), run("C", "ZRANGE", "dst", "0", "-1")}},
	{"lmove wakes", []event{blk("A", "BLPOP", "dst", "0"), run("C", "RPUSH", "src", "a", "b"), run("C", "LMOVE", "src", "dst", "LEFT", "RIGHT"), run("C", "LRANGE", "src", "0", "-1")}},
	{"zadd incr wakes", []event{blk("A", "BZPOPMAX", "z", "0"), run("C", "ZADD", "z", "INCR", "5", "m"), run("C", "ZCARD", "z")}},
	{"already there", []event{run("C", "RPUSH", "q", "a"), blk("A", "BLPOP", "q", "0"), blk("B", "BLPOP", "q", "0"), run("C", "RPUSH", "q", "b")}},
	{"four waiters, two pushes", []event{blk("A", "BLPOP", "q", "0"), blk("B", "BRPOP", "q", "0"), blk("D", "BLMOVE", "q", "r", "RIGHT", "LEFT", "0"), blk("E", "BLPOP", "r", "q", "0"), run("C", "RPUSH", "q", "1", "2"), run("C", "RPUSH", "q", "3"), run("C", "LPUSH", "r", "4"), run("C", "KEYS", "*")}},
	{"lpush hand-off to counted pops", []event{blk("A", "BLMPOP", "0", "1", "q", "LEFT", "COUNT", "2"), blk("B", "BRPOP", "q", "0"), blk("D", "BLMPOP", "0", "1", "q", "RIGHT", "COUNT", "2"), blk("E", "BLPOP", "q", "0"), run("C", "LPUSH", "q", "a", "b", "c", "d", "e", "f", "g"), run("C", "LRANGE", "q", "0", "-1")}},
	{"rpush hand-off meets blmove", []event{blk("A", "BLPOP", "q", "0"), blk("B", "BLMOVE", "q", "q", "LEFT", "RIGHT", "0"), blk("D", "BRPOP", "q", "0"), blk("E", "BLMOVE", "q", "r", "RIGHT", "LEFT", "0"), run("C", "RPUSH", "q", "a", "b", "c", "d"), run("C", "LRANGE", "q", "0", "-1"), run("C", "LRANGE", "r", "0", "-1")}},
	{"hand-off chain back to the pushed key", []event{blk("A", "BLMOVE", "q", "r", "LEFT", "LEFT", "0"), blk("B", "BLMOVE", "r", "q", "LEFT", "LEFT", "0"), blk("D", "BLPOP", "q", "0"), run("C", "LPUSH", "q", "x", "y"), run("C", "KEYS", "*")}},
	{"hand-off skips the other type", []event{blk("A", "BZPOPMIN", "k", "0"), blk("B", "BLPOP", "k", "0"), blk("D", "BRPOP", "j", "k", "0"), run("C", "RPUSH", "k", "x"), run("C", "RPUSH", "j", "y"), run("C", "DEL", "k"), run("C", "ZADD", "k", "GT", "CH", "2", "m"), run("C", "EXISTS", "k")}},
	{"zadd hand-off to bzmpop", []event{blk("A", "BLPOP", "z", "0"), blk("B", "BZMPOP", "0", "2", "y", "z", "MAX", "COUNT", "2"), blk("D", "BZPOPMAX", "z", "y", "0"), run("C", "ZADD", "z", "NX", "0.5", "m"), run("C", "ZADD", "y", "1", "n", "2", "o"), run("C", "ZADD", "z", "XX", "1", "p"), run("C", "KEYS", "*")}},
	{"timeouts", []event{blk("A", "BLPOP", "none", "0.1"), blk("B", "BZPOPMIN", "none", "0.1"), blk("D", "BLMPOP", "0.1", "1", "none", "LEFT"), pass(400 * time.Millisecond), run("C", "RPUSH", "none", "late"), run("C", "LLEN", "none")}},
	{"timeout then serve", []event{blk("A", "BLPOP", "q", "0.1"), blk("B", "BLPOP", "q", "0"), pass(400 * time.Millisecond), run("C", "RPUSH", "q", "x"), run("C", "LLEN", "q")}},
}

// randomScenario builds a seeded schedule: clients block on a few keys with every
// blocking command, others push, pop and delete.
func randomScenario(r *rand.Rand, i int) scenario {
	keys := []string{"q1", "q2", "z1"}
	k := func() string { return keys[r.IntN(len(keys))] }
	clients := []string{"A", "B", "D", "E"}
	busy := map[string]bool{}
	var evs []event
	for range 6 + r.IntN(8) {
		free := slices.DeleteFunc(slices.Clone(clients), func(c string) bool { return busy[c] })
		if len(free) > 0 && r.IntN(2) == 0 {
			c := free[r.IntN(len(free))]
			busy[c] = true
			var args []string
			switch r.IntN(8) {
			case 0:
				args = []string{"BLPOP", k(), k(), "0"}
			case 1:
				args = []string{"BRPOP", k(), "0"}
			case 2:
				args = []string{"BLMOVE", k(), k(), "LEFT", "RIGHT", "0"}
			case 3:
				args = []string{"BRPOPLPUSH", k(), k(), "0"}
			case 4:
				args = []string{"BLMPOP", "0", "2", k(), k(), "RIGHT", "COUNT", "2"}
			case 5:
				args = []string{"BZPOPMIN", k(), k(), "0"}
			case 6:
				args = []string{"BZPOPMAX", k(), "0"}
			default:
				args = []string{"BZMPOP", "0", "1", k(), "MIN", "COUNT", "3"}
			}
			evs = append(evs, blk(c, args...))
			continue
		}
		var args []string
		switch r.IntN(6) {
		case 0, 1:
			args = []string{"RPUSH", k(), fmt.Sprint(r.IntN(10)), fmt.Sprint(r.IntN(10))}
		case 2:
			args = []string{"LPUSH", k()}
			for range 1 + r.IntN(3) {
				args = append(args, fmt.Sprint(r.IntN(10)))
			}
		case 3:
			args = []string{"ZADD", k(), fmt.Sprint(r.IntN(5)), fmt.Sprint(r.IntN(10)), fmt.Sprint(r.IntN(5)), "m"}
		case 4:
			args = []string{"DEL", k()}
		default:
			args = []string{"LMOVE", k(), k(), "LEFT", "LEFT"}
		}
		evs = append(evs, run("C", args...))
	}
	evs = append(evs, run("C", "KEYS", "*"))
	return scenario{fmt.Sprintf("random %d", i), evs}
}

// A blockRunner plays a scenario on one side.
type blockRunner interface {
	// start runs args for client in the background and returns once the server holds
	// it blocked, or with its reply if it did not block.
	start(client string, args []string) (val, bool)
	do(client string, args []string) val
	// settle returns the replies of background commands that have been served,
	// by client, once everything the last command caused has happened.
	settle() map[string]val
	wait(d time.Duration)
	// blocked lists the clients still blocked, and releases them.
	finish() []string
}

// play runs sc on r and returns its log: every reply, and after every event the
// clients served.
func play(sc scenario, r blockRunner) []string {
	var log []string
	for _, e := range sc.events {
		switch {
		case e.wait > 0:
			r.wait(e.wait)
			log = append(log, fmt.Sprintf("(%v pass)", e.wait))
		case e.block:
			if v, done := r.start(e.client, e.args); done {
				log = append(log, fmt.Sprintf("%s: %s → %s (did not block)", e.client, formatCmd(e.args), v))
			} else {
				log = append(log, fmt.Sprintf("%s: %s → blocked", e.client, formatCmd(e.args)))
			}
		default:
			v := r.do(e.client, e.args)
			if name(e.args) == "KEYS" { // the "unordered" loosening
				v = sortReply(e.args, v)
			}
			log = append(log, fmt.Sprintf("%s: %s → %s", e.client, formatCmd(e.args), v))
		}
		served := r.settle()
		for _, c := range slices.Sorted(maps.Keys(served)) {
			log = append(log, fmt.Sprintf("    %s served: %s", c, served[c]))
		}
	}
	if b := r.finish(); len(b) > 0 {
		log = append(log, "still blocked: "+strings.Join(b, " "))
	}
	return log
}

// zliteRunner plays a scenario on a keyspace inside a synctest bubble: synctest.Wait
// returns when every client goroutine has either finished or is durably blocked, so
// "blocked" and "served" are exact, and time passes only when all are blocked.
type zliteRunner struct {
	db      *zlite.DB
	pending map[string]chan val
	cancel  map[string]context.CancelFunc
}

func (z *zliteRunner) start(client string, args []string) (val, bool) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan val, 1)
	go func() { ch <- toVal(z.db.Do(ctx, args...)) }()
	synctest.Wait()
	select {
	case v := <-ch:
		cancel()
		return v, true
	default:
		z.pending[client], z.cancel[client] = ch, cancel
		return val{}, false
	}
}

func (z *zliteRunner) do(_ string, args []string) val {
	return toVal(z.db.Do(context.Background(), args...))
}

func (z *zliteRunner) settle() map[string]val {
	synctest.Wait()
	out := map[string]val{}
	for c, ch := range z.pending {
		select {
		case v := <-ch:
			out[c] = v
			z.cancel[c]()
			delete(z.pending, c)
		default:
		}
	}
	return out
}

func (z *zliteRunner) wait(d time.Duration) { time.Sleep(d) }

func (z *zliteRunner) finish() []string {
	b := slices.Sorted(maps.Keys(z.pending))
	for c, ch := range z.pending {
		z.cancel[c]()
		<-ch
	}
	return b
}

// redisRunner plays a scenario on redis-server with one connection per client. A
// client is blocked when CLIENT LIST shows the b flag on it.
type redisRunner struct {
	t       testing.TB
	addr    string
	ctl     *redis.Client
	clients map[string]*redis.Client
	ids     map[string]int64
	pending map[string]chan val
	// expires holds, for each pending command with a timeout, when it runs out.
	expires map[string]time.Time
}

// client returns the named client, connecting it (and learning its CLIENT ID, for
// CLIENT UNBLOCK) on first use.
func (r *redisRunner) client(name string) *redis.Client {
	c, ok := r.clients[name]
	if !ok {
		c = newRedisClient(r.addr, redisDB, "zlite-fuzz-"+name)
		id, err := c.ClientID(context.Background()).Result()
		if err != nil {
			r.t.Fatalf("CLIENT ID: %v", err)
		}
		r.clients[name], r.ids[name] = c, id
	}
	return c
}

// blockedNow returns the set of our clients the server holds blocked.
func (r *redisRunner) blockedNow() map[string]bool {
	list, err := r.ctl.ClientList(context.Background()).Result()
	if err != nil {
		r.t.Fatalf("CLIENT LIST: %v", err)
	}
	out := map[string]bool{}
	for _, line := range strings.Split(list, "\n") {
		var name, flags string
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "name=zlite-fuzz-"); ok {
				name = v
			} else if v, ok := strings.CutPrefix(f, "flags="); ok {
				flags = v
			}
		}
		if name != "" && strings.Contains(flags, "b") {
			out[name] = true
		}
	}
	return out
}

func (r *redisRunner) start(client string, args []string) (val, bool) {
	c := r.client(client)
	ch := make(chan val, 1)
	go func() {
		a := make([]any, len(args))
		for i, s := range args {
			a[i] = s
		}
		ch <- toVal(c.Do(context.Background(), a...).Result())
	}()
	// Poll the server until it reports the client blocked: the only way to observe
	// another process's state.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case v := <-ch:
			return v, true
		default:
		}
		if r.blockedNow()[client] {
			r.pending[client] = ch
			if d := blockTimeout(args); d > 0 {
				r.expires[client] = time.Now().Add(d)
			}
			return val{}, false
		}
		time.Sleep(time.Millisecond)
	}
	r.t.Fatalf("client %s: %s neither returned nor blocked within 10s", client, formatCmd(args))
	return val{}, false
}

func (r *redisRunner) do(client string, args []string) val {
	v, err := redisTarget{r.client(client)}.exec([][]string{args})
	if err != nil {
		r.t.Fatal(err)
	}
	return v[0]
}

func (r *redisRunner) settle() map[string]val {
	// The server replies to the clients a command serves before it runs the next
	// command, CLIENT LIST included: a client no longer blocked has its reply on the way.
	blocked := r.blockedNow()
	out := map[string]val{}
	for c, ch := range r.pending {
		if blocked[c] {
			continue
		}
		select {
		case v := <-ch:
			out[c] = v
		case <-time.After(10 * time.Second):
			r.t.Fatalf("client %s was unblocked but no reply came within 10s", c)
		}
		delete(r.pending, c)
	}
	return out
}

// wait lets d of real time pass on the server (its clock cannot be faked), then waits
// until every client whose timeout has run out by then is released: Redis checks
// timeouts at most every 100ms (hz 10), later under load.
func (r *redisRunner) wait(d time.Duration) {
	end := time.Now().Add(d)
	time.Sleep(d)
	deadline := time.Now().Add(10 * time.Second)
	for {
		blocked := r.blockedNow()
		late := false
		for c, at := range r.expires {
			if _, ok := r.pending[c]; ok && blocked[c] && !at.After(end) {
				late = true
			}
		}
		if !late {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("clients still blocked 10s after their timeouts")
		}
		time.Sleep(time.Millisecond)
	}
}

// blockTimeout returns a blocking command's timeout (0: none or forever).
func blockTimeout(args []string) time.Duration {
	s := args[len(args)-1]
	if n := name(args); n == "BLMPOP" || n == "BZMPOP" {
		s = args[1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 {
		return 0
	}
	return time.Duration(f * float64(time.Second))
}

func (r *redisRunner) finish() []string {
	b := slices.Sorted(maps.Keys(r.pending))
	for c, ch := range r.pending {
		if err := r.ctl.ClientUnblock(context.Background(), r.ids[c]).Err(); err != nil {
			r.t.Fatalf("CLIENT UNBLOCK %s: %v", c, err)
		}
		<-ch
	}
	return b
}

// TestDifferentialBlocking plays each blocking scenario (the fixed ones and seeded
// random ones) on redis-server and on zlite and requires the same replies, the same
// clients served with the same values after each step, and the same clients left
// blocked.
func TestDifferentialBlocking(t *testing.T) {
	addr := redistest.Require(t)
	ctl := newRedisClient(addr, redisDB, "zlite-fuzz-ctl")
	defer ctl.Close()
	rr := &redisRunner{t: t, addr: addr, ctl: ctl, clients: map[string]*redis.Client{}, ids: map[string]int64{}}
	defer func() {
		for _, c := range rr.clients {
			c.Close()
		}
	}()
	seed := testmain.Seed(t)
	t.Logf("ZLITE_SEED=%d", seed)
	rnd := rand.New(rand.NewPCG(seed, 7))
	scs := slices.Clone(blockingScenarios)
	nrand := 200
	if raceEnabled || testing.Short() {
		nrand = 15
	}
	for i := range nrand {
		scs = append(scs, randomScenario(rnd, i))
	}
	compared := 0
	for _, sc := range scs {
		if err := ctl.FlushDB(context.Background()).Err(); err != nil {
			t.Fatal(err)
		}
		rr.pending, rr.expires = map[string]chan val{}, map[string]time.Time{}
		want := play(sc, rr)
		var got []string
		synctest.Test(t, func(t *testing.T) {
			got = play(sc, &zliteRunner{db: zlite.New(), pending: map[string]chan val{}, cancel: map[string]context.CancelFunc{}})
		})
		if !slices.EqualFunc(got, want, func(a, b string) bool { return a == b }) {
			t.Errorf("scenario %q differs:\nzlite:\n  %s\nredis:\n  %s", sc.name, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			continue
		}
		compared += len(sc.events)
	}
	t.Logf("compared %d scenarios (%d events) with Redis", len(scs), compared)
}
