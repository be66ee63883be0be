package queues_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/redisq"
	"github.com/zlite/zlite/server"
)

// The cross-language tests run the classic recipes' own code (Ruby with the redis gem,
// PHP with phpredis, shell with redis-cli: testdata/seeds) beside the Classic adapters
// on one server, once on zlite-server (in process) and once on a redis-server of the
// test's own, and require that each side serves what the other wrote, in the recipe's
// order, and that both servers end every step in the same state.
//
// A missing interpreter or library skips the test with what to install, unless
// ZLITE_REQUIRE_SEEDS=1 (as in CI), which makes it fail instead.

// seedTool is an interpreter with the library a recipe needs.
type seedTool struct {
	name  string   // for messages
	check []string // a command that succeeds when the tool works
	hint  string   // how to install it
}

var (
	seedToolRuby = seedTool{"ruby with the redis gem", []string{"ruby", "-e", `require "redis"`}, "apt-get install ruby ruby-redis"}
	seedToolPHP  = seedTool{"php with phpredis", []string{"php", "-r", `exit(class_exists("Redis") ? 0 : 1);`}, "apt-get install php-cli php-redis"}
	seedToolCLI  = seedTool{"redis-cli", []string{"redis-cli", "--version"}, "apt-get install redis-tools"}
	// /usr/bin/python3: a python3 earlier in PATH may be another installation without redis-py.
	seedToolPython = seedTool{"/usr/bin/python3 with redis-py", []string{"/usr/bin/python3", "-c", "import redis"}, "apt-get install python3-redis"}

	seedToolMu  sync.Mutex
	seedToolErr = map[string]error{}
)

// seedNeedTool skips t (fails it with ZLITE_REQUIRE_SEEDS=1) unless tool works.
func seedNeedTool(t *testing.T, tool seedTool) {
	t.Helper()
	seedToolMu.Lock()
	err, seen := seedToolErr[tool.name]
	if !seen {
		var out []byte
		out, err = exec.Command(tool.check[0], tool.check[1:]...).CombinedOutput()
		if err != nil {
			err = fmt.Errorf("%w: %s", err, strings.TrimSpace(string(out)))
		}
		seedToolErr[tool.name] = err
	}
	seedToolMu.Unlock()
	if err == nil {
		return
	}
	if os.Getenv("ZLITE_REQUIRE_SEEDS") == "1" {
		t.Fatalf("%s required (ZLITE_REQUIRE_SEEDS=1) but unusable: %v; %s", tool.name, err, tool.hint)
	}
	t.Skipf("skipping: %s unusable (%v); %s, or set ZLITE_REQUIRE_SEEDS=1 to fail instead", tool.name, err, tool.hint)
}

// seedServer is one server the recipes and the adapters share.
type seedServer struct {
	name       string
	host, port string
	c          *redis.Client
	b          queues.Backend // redisq over c
}

// seedServers returns a zlite-server serving on a loopback port in this process and
// a redis-server of the test's own, each with a client and a backend.
func seedServers(t *testing.T) []seedServer {
	t.Helper()
	srv := server.New()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	t.Cleanup(func() {
		srv.Close()
		<-served
	})
	addr, _, err := redistest.Own(t)
	if err != nil {
		if os.Getenv("ZLITE_REQUIRE_SEEDS") == "1" || os.Getenv("ZLITE_REQUIRE_REDIS") == "1" {
			t.Fatalf("redis-server required but unavailable: %v; apt-get install redis-server", err)
		}
		t.Skipf("skipping: no redis-server of its own (%v); apt-get install redis-server", err)
	}
	var out []seedServer
	for _, s := range []struct{ name, addr string }{{"zlite", l.Addr().String()}, {"redis", addr}} {
		host, port, err := net.SplitHostPort(s.addr)
		require.NoError(t, err)
		c := redis.NewClient(&redis.Options{Addr: s.addr})
		t.Cleanup(func() { c.Close() })
		b := redisq.New(c, &redisq.Options{Slice: 50 * time.Millisecond})
		out = append(out, seedServer{s.name, host, port, c, b})
	}
	return out
}

// run runs a recipe program against s and returns its output lines.
func (s seedServer) run(t *testing.T, prog ...string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog[0], prog[1:]...)
	cmd.Env = append(os.Environ(), "REDIS_HOST="+s.host, "REDIS_PORT="+s.port, "BRPOP_TIMEOUT=5", "SEED_SLEEP=0.01")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s on %s: %s", strings.Join(prog, " "), s.name, stderr.String())
	text := strings.TrimRight(string(out), "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// dump returns every key of s with its type and contents, one line per key, sorted.
func (s seedServer) dump(t *testing.T) []string {
	t.Helper()
	ctx := context.Background()
	keys, err := s.c.Keys(ctx, "*").Result()
	require.NoError(t, err)
	slices.Sort(keys)
	var out []string
	for _, k := range keys {
		typ, err := s.c.Type(ctx, k).Result()
		require.NoError(t, err)
		line := k + " " + typ + ":"
		switch typ {
		case "zset":
			zs, err := s.c.ZRangeWithScores(ctx, k, 0, -1).Result()
			require.NoError(t, err)
			for _, z := range zs {
				line += fmt.Sprintf(" %v=%s", z.Member, strconv.FormatFloat(z.Score, 'f', -1, 64))
			}
		case "list":
			vs, err := s.c.LRange(ctx, k, 0, -1).Result()
			require.NoError(t, err)
			line += " " + strings.Join(vs, " | ")
		default:
			t.Fatalf("dump: key %q of type %s", k, typ)
		}
		out = append(out, line)
	}
	return out
}

// seedDir is where the recipe programs are.
func seedDir(t *testing.T) string {
	d, err := filepath.Abs(filepath.Join("testdata", "seeds"))
	require.NoError(t, err)
	return d
}

// seedOnBoth runs scenario on zlite-server and on redis-server, each returning a
// transcript (outputs and state dumps), and requires the transcripts to be equal.
func seedOnBoth(t *testing.T, scenario func(t *testing.T, s seedServer) []string) {
	t.Helper()
	var transcripts [][]string
	for _, s := range seedServers(t) {
		t.Run("server="+s.name, func(t *testing.T) { transcripts = append(transcripts, scenario(t, s)) })
	}
	if len(transcripts) == 2 && !t.Failed() {
		require.Equal(t, transcripts[1], transcripts[0], "transcript on zlite-server (actual) differs from redis-server's (expected)")
	}
}

func TestSeedInteropWaitlist(t *testing.T) {
	seedNeedTool(t, seedToolRuby)
	rb := filepath.Join(seedDir(t), "waitlist.rb")
	seedOnBoth(t, func(t *testing.T, s seedServer) []string {
		ctx := guard(t)
		var tr []string
		ruby := func(steps ...string) []string {
			out := s.run(t, append([]string{"ruby", rb}, steps...)...)
			tr = append(tr, out...)
			return out
		}
		w := queues.NewClassicWaitlist(s.b, "waitlist", queues.WithClock(seedAt(1452267103)))
		seat := func(table int64, want string) {
			t.Helper()
			p, ok, err := w.Seat(ctx, table, queues.Exact)
			require.NoError(t, err)
			require.Equal(t, want, p.Name, "Seat(%d) = %+v, %v", table, p, ok)
			tr = append(tr, "go seated "+p.Name)
		}

		ruby("now:1452266753", "add:Bob:2", "now:1452267102", "add:Karen:2", "add:Al:2", "add:You:4")
		require.NoError(t, w.Add(ctx, "Zed", 2))
		require.NoError(t, w.Add(ctx, "Liz", 4))
		tr = append(tr, s.dump(t)...)
		require.Equal(t, []string{"waitlist zset: 1452266753 Bob=2 1452267102 Al=2 1452267102 Karen=2 1452267103 Zed=2 1452267102 You=4 1452267103 Liz=4"}, s.dump(t))

		seat(2, "Bob") // the recipe's party, arrived first
		require.Equal(t, []string{"seated 1452267102 Al"}, ruby("seat:2"))
		pos, ok, err := w.Position(ctx, "Zed")
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, int64(4), pos) // after Karen, You (…102) and Liz (…103 L < Z)
		require.Equal(t, []string{"seated 1452267102 You"}, ruby("seat:4"))
		seat(4, "Liz") // Go's party, found by the recipe's order
		require.Equal(t, []string{"seated 1452267102 Karen", "seated 1452267103 Zed", "seated none"}, ruby("seat:2", "seat:2", "seat:2"))
		seat(2, "")
		require.Empty(t, s.dump(t))
		return tr
	})
}

func TestSeedInteropCallQueue(t *testing.T) {
	seedNeedTool(t, seedToolRuby)
	rb := filepath.Join(seedDir(t), "callqueue.rb")
	const t0 = 1767323045.25
	sec := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	seedOnBoth(t, func(t *testing.T, s seedServer) []string {
		ctx := guard(t)
		var tr []string
		ruby := func(steps ...string) []string {
			out := s.run(t, append([]string{"ruby", rb}, steps...)...)
			tr = append(tr, out...)
			return out
		}
		q := func(now float64) *queues.ClassicCallQueue {
			return queues.NewClassicCallQueue(s.b, "queue:calls", queues.WithClock(seedAt(now)))
		}

		ruby("now:"+sec(t0), "enqueue:c1:1", "now:"+sec(t0+1), "enqueue:c2:5")
		require.NoError(t, q(t0+2).Enqueue(ctx, "c3", 5))
		require.NoError(t, q(t0+0.5).Enqueue(ctx, "c4", 1))
		dump := s.dump(t)
		tr = append(tr, dump...)
		// The scores Go wrote are the recipe's, to the bit.
		want := "queue:calls zset:"
		for _, c := range []struct {
			id   string
			prio int64
			t    float64
		}{{"c4", 1, t0 + 0.5}, {"c1", 1, t0}, {"c3", 5, t0 + 2}, {"c2", 5, t0 + 1}} {
			want += fmt.Sprintf(" %s=%s", c.id, strconv.FormatFloat(float64(c.prio)*1e10+(1e10-c.t), 'f', -1, 64))
		}
		require.Equal(t, []string{want}, dump)

		require.Equal(t, []string{"position c3 2", "position c1 3"}, ruby("position:c3", "position:c1"))
		for id, want := range map[string]int64{"c2": 1, "c4": 4} {
			pos, ok, err := q(t0).Position(ctx, id)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, want, pos, "Position(%q)", id)
		}
		c, ok, err := q(t0).Dequeue(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, queues.Call{ID: "c2", Priority: 5, Since: time.UnixMicro(int64((t0 + 1) * 1e6))}, c)
		require.Equal(t, []string{"dequeued c3"}, ruby("dequeue"))

		// Stale calls: the recipe lists them by ascending score, Go longest-waiting first.
		require.Equal(t, []string{"stale c4,c1"}, ruby("now:"+sec(t0+100), "stale:60"))
		stale, err := q(t0+100).Stale(ctx, 60*time.Second)
		require.NoError(t, err)
		require.Len(t, stale, 2)
		require.Equal(t, []string{"c1", "c4"}, []string{stale[0].ID, stale[1].ID})
		tr = append(tr, "go stale "+stale[0].ID+","+stale[1].ID)

		cancelled, err := q(t0).Cancel(ctx, "c4")
		require.NoError(t, err)
		require.True(t, cancelled)
		require.Equal(t, []string{"cancelled c4 false", "dequeued c1", "dequeued none"}, ruby("cancel:c4", "dequeue", "dequeue"))

		// A Go operator blocked in Dequeue (BZPOPMAX) takes the call Ruby enqueues.
		got := make(chan queues.Call, 1)
		fail := make(chan error, 1)
		go func() {
			c, ok, err := q(t0).Dequeue(ctx, 20*time.Second)
			if err != nil || !ok {
				fail <- fmt.Errorf("Dequeue = %v, %v, %v", c, ok, err)
				return
			}
			got <- c
		}()
		time.Sleep(50 * time.Millisecond)
		ruby("now:"+sec(t0+200), "enqueue:late:2")
		select {
		case c := <-got:
			require.Equal(t, "late", c.ID)
			require.Equal(t, float64(2), c.Priority)
			tr = append(tr, "go dequeued "+c.ID)
		case err := <-fail:
			t.Fatal(err)
		}
		require.Empty(t, s.dump(t))

		// Ruby operators (ZPOPMAX) and Go operators (BZPOPMAX) drain one queue at once:
		// every call is taken exactly once, and each side takes them in serving order.
		const n = 300
		for i := range n {
			require.NoError(t, q(t0+float64(i)).Enqueue(ctx, fmt.Sprintf("d%03d", i), int64(i%3)))
		}
		var mu sync.Mutex
		taken := map[string]string{}
		take := func(who, id string) {
			mu.Lock()
			defer mu.Unlock()
			if prev, dup := taken[id]; dup {
				t.Errorf("%s taken by %s and by %s", id, prev, who)
			}
			taken[id] = who
		}
		var wg sync.WaitGroup
		errs := make(chan error, 2)
		for g := range 2 {
			wg.Go(func() {
				for {
					c, ok, err := q(t0).Dequeue(ctx, 10*time.Millisecond)
					if err != nil {
						errs <- err
						return
					}
					if !ok {
						return
					}
					take(fmt.Sprint("go", g), c.ID)
					time.Sleep(3 * time.Millisecond) // leave some to Ruby, which starts slower
				}
			})
		}
		out := s.run(t, "ruby", rb, "drain")
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		var rubyOrder []string
		for _, line := range out {
			id := strings.TrimPrefix(line, "dequeued ")
			take("ruby", id)
			rubyOrder = append(rubyOrder, id)
		}
		require.Len(t, taken, n)
		// Serving order: priority 2 first, within a priority the earliest.
		require.True(t, slices.IsSortedFunc(rubyOrder, func(a, b string) int {
			ia, _ := strconv.Atoi(a[1:])
			ib, _ := strconv.Atoi(b[1:])
			if ia%3 != ib%3 {
				return ib%3 - ia%3
			}
			return ia - ib
		}), "Ruby took calls out of serving order: %v", rubyOrder)
		t.Logf("ruby took %d of %d", len(out), n)
		tr = append(tr, fmt.Sprintf("drained %d", len(taken)))
		require.Empty(t, s.dump(t))
		return tr
	})
}

func TestSeedInteropMessageQueues(t *testing.T) {
	seedNeedTool(t, seedToolCLI)
	sh := filepath.Join(seedDir(t), "mq.sh")
	seedOnBoth(t, func(t *testing.T, s seedServer) []string {
		ctx := guard(t)
		var tr []string
		cli := func(args ...string) []string {
			out := s.run(t, append([]string{"sh", sh}, args...)...)
			tr = append(tr, out...)
			return out
		}
		pop := func(q *queues.FIFO, want string) {
			t.Helper()
			v, ok, err := q.Pop(ctx, 5*time.Second)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, want, v)
			tr = append(tr, "go popped "+v)
		}

		// FIFO: LPUSH + BRPOP on the plain list "jobs".
		fifo := queues.NewClassicFIFO(s.b, "jobs")
		cli("push", "jobs", "1", "2", "3")
		pop(fifo, "1")
		require.NoError(t, fifo.Push(ctx, "4"))
		require.Equal(t, []string{"jobs 2"}, cli("pop", "jobs"))
		pop(fifo, "3")
		require.Equal(t, []string{"jobs 4"}, cli("pop", "jobs"))

		// A Go consumer blocked in BRPOP takes what redis-cli pushes.
		got := make(chan string, 1)
		go func() {
			v, _, _ := fifo.Pop(ctx, 20*time.Second)
			got <- v
		}()
		time.Sleep(50 * time.Millisecond)
		cli("push", "jobs", "5")
		require.Equal(t, "5", <-got)

		// Levels: "BRPOP a b 0" drains a before b.
		lv := queues.NewClassicLevels(s.b, []string{"a", "b"})
		for _, k := range []string{"a", "b"} {
			for _, v := range []string{"1", "2", "3"} {
				cli("push", k, v)
			}
		}
		levelPop := func(want string) {
			t.Helper()
			l, v, ok, err := lv.Pop(ctx, 5*time.Second)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, want, l+" "+v)
			tr = append(tr, "go popped "+l+" "+v)
		}
		levelPop("a 1")
		require.Equal(t, []string{"a 2"}, cli("pop", "a", "b"))
		levelPop("a 3")
		require.NoError(t, lv.Push(ctx, "b", "4"))
		tr = append(tr, s.dump(t)...)
		require.Equal(t, []string{"b list: 4 | 3 | 2 | 1"}, s.dump(t))
		require.Equal(t, []string{"b 1"}, cli("pop", "a", "b"))
		levelPop("b 2")
		require.Equal(t, []string{"b 3"}, cli("pop", "a", "b"))
		levelPop("b 4")

		// Timed: the sorted set "seta" scored by a timestamp (seconds here).
		timed := func(now float64) *queues.ClassicTimed {
			return queues.NewClassicTimed(s.b, "seta", time.Second, queues.WithClock(seedAt(now)))
		}
		tryPop := func(now float64, want string) {
			t.Helper()
			j, ok, err := timed(now).TryPop(ctx)
			require.NoError(t, err)
			require.Equal(t, want, j.Payload, "TryPop at %v = %v, %v", now, j, ok)
			tr = append(tr, "go took "+j.Payload)
		}
		for i, m := range []string{"a", "b", "c", "d"} {
			cli("timed-add", "seta", strconv.Itoa(100*(i+1)), m)
		}
		tryPop(200, "a")
		require.Equal(t, []string{"b"}, cli("timed-pop", "seta", "201"))
		_, err := timed(0).Schedule(ctx, "e", time.Unix(150, 0))
		require.NoError(t, err)
		tr = append(tr, s.dump(t)...)
		require.Equal(t, []string{"seta zset: e=150 c=300 d=400"}, s.dump(t))
		require.Equal(t, []string{"e"}, cli("timed-pop", "seta", "201"))
		require.Empty(t, cli("timed-pop", "seta", "201"))
		tryPop(201, "")
		tryPop(400, "c")
		require.Equal(t, []string{"d"}, cli("timed-pop", "seta", "400"))
		require.Empty(t, s.dump(t))
		return tr
	})
}

func TestSeedInteropDelayed(t *testing.T) {
	seedNeedTool(t, seedToolPHP)
	script := filepath.Join(seedDir(t), "delayed.php")
	seedOnBoth(t, func(t *testing.T, s seedServer) []string {
		ctx := guard(t)
		var tr []string
		php := func(steps ...string) []string {
			out := s.run(t, append([]string{"php", script}, steps...)...)
			tr = append(tr, out...)
			return out
		}
		sched := func(now float64) *queues.ClassicScheduler {
			return queues.NewClassicScheduler(s.b, "job", queues.WithClock(seedAt(now)))
		}
		job := func(queue, fun, param string) string {
			return `{"queue":"` + queue + `","fun":"` + fun + `","parameter":` + param + `}`
		}

		php(`add|job|email|sendMail|100|{"to":"a@example.com"}`, `add|job|sms|sendSms|200|["+100"]`,
			`add|job|email|sendMail|300|{"to":"late@example.com"}`)
		id, err := sched(0).AddFutureJob(ctx, queues.ClassicJob{Queue: "email", Fun: "sendMail", Parameter: json.RawMessage(`{"to":"go@example.com"}`)}, time.Unix(150, 0))
		require.NoError(t, err)
		dump := s.dump(t)
		tr = append(tr, dump...)
		require.Equal(t, []string{"job zset: " + job("email", "sendMail", `{"to":"a@example.com"}`) + "=100 " + id + "=150 " +
			job("sms", "sendSms", `["+100"]`) + "=200 " + job("email", "sendMail", `{"to":"late@example.com"}`) + "=300"}, dump)

		moved, err := sched(250).Step(ctx)
		require.NoError(t, err)
		var got []string
		for _, j := range moved {
			got = append(got, j.Queue+" "+j.Fun+" "+string(j.Parameter))
		}
		require.Equal(t, []string{`email sendMail {"to":"a@example.com"}`, `email sendMail {"to":"go@example.com"}`, `sms sendSms ["+100"]`}, got)
		tr = append(tr, got...)
		require.Equal(t, []string{"moved " + job("email", "sendMail", `{"to":"late@example.com"}`)}, php("now|400", "getQueue|job"))

		require.Equal(t, []string{`popped sendMail {"to":"a@example.com"}`}, php("pop|email"))
		v, ok, err := sched(0).Queue("email").Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		require.Equal(t, id, v)
		require.Equal(t, []string{`popped sendMail {"to":"late@example.com"}`, `popped sendSms ["+100"]`, "popped none"}, php("pop|email", "pop|sms", "pop|sms"))

		// A job Go adds is moved and run by the recipe's code.
		_, err = sched(0).AddFutureJob(ctx, queues.ClassicJob{Queue: "email", Fun: "remind", Parameter: json.RawMessage(`[1,"two"]`)}, time.Unix(500, 0))
		require.NoError(t, err)
		require.Empty(t, php("now|499", "getQueue|job"))
		require.Equal(t, []string{"moved " + job("email", "remind", `[1,"two"]`), `popped remind [1,"two"]`}, php("now|500", "getQueue|job", "pop|email"))
		require.Empty(t, s.dump(t))
		return tr
	})
}

// TestSeedInteropToolErrors checks that a missing tool skips (without
// ZLITE_REQUIRE_SEEDS) and that the reason is kept.
func TestSeedInteropToolErrors(t *testing.T) {
	if os.Getenv("ZLITE_REQUIRE_SEEDS") == "1" {
		t.Skip("with ZLITE_REQUIRE_SEEDS=1 a missing tool fails the test: nothing to check here")
	}
	tool := seedTool{"a tool that does not exist", []string{"zlite-no-such-tool"}, "nothing to install"}
	var ran, skipped bool
	t.Run("missing", func(t *testing.T) {
		ran = true
		defer func() { skipped = t.Skipped() }()
		seedNeedTool(t, tool)
	})
	if !ran {
		t.Skip("the -run pattern left out the subtest")
	}
	require.True(t, skipped, "seedNeedTool did not skip for a missing tool")
	seedToolMu.Lock()
	err := seedToolErr[tool.name]
	seedToolMu.Unlock()
	var ee *exec.Error
	require.ErrorAs(t, err, &ee)
}

func TestSeedInteropTimedPython(t *testing.T) {
	seedNeedTool(t, seedToolPython)
	py := filepath.Join(seedDir(t), "timed.py")
	const ms0 = 1767323045000 // Unix ms, as the recipe's Java consumer compares them
	msArg := func(ms float64) string { return strconv.FormatFloat(ms, 'f', -1, 64) }
	seedOnBoth(t, func(t *testing.T, s seedServer) []string {
		ctx := guard(t)
		var tr []string
		python := func(steps ...string) []string {
			out := s.run(t, append([]string{"/usr/bin/python3", py}, steps...)...)
			tr = append(tr, out...)
			return out
		}
		timed := func(ms float64) *queues.ClassicTimed {
			return queues.NewClassicTimed(s.b, "seta", time.Millisecond,
				queues.WithClock(func() time.Time { return time.UnixMicro(int64(ms * 1000)) }))
		}
		tryPop := func(ms float64, want string) {
			t.Helper()
			j, ok, err := timed(ms).TryPop(ctx)
			require.NoError(t, err)
			require.Equal(t, want, j.Payload, "TryPop at %v ms = %v, %v", ms, j, ok)
			tr = append(tr, "go took "+j.Payload)
		}

		python("add:seta:"+msArg(ms0+1)+":m1", "add:seta:"+msArg(ms0+2)+":m2")
		_, err := timed(0).Schedule(ctx, "g1", time.UnixMicro((ms0+1)*1000+500))
		require.NoError(t, err)
		tr = append(tr, s.dump(t)...)
		require.Equal(t, []string{"seta zset: m1=1767323045001 g1=1767323045001.5 m2=1767323045002"}, s.dump(t))
		tryPop(ms0+1, "m1")
		require.Equal(t, []string{"took none"}, python("pop:seta:"+msArg(ms0+1)))
		require.Equal(t, []string{"took g1"}, python("pop:seta:"+msArg(ms0+2)))
		tryPop(ms0+2, "m2")

		// Python's two-step consumer and two Go consumers drain one queue at once: every
		// message is taken exactly once.
		const n = 300
		for i := range n {
			_, err := timed(0).Schedule(ctx, fmt.Sprintf("d%03d", i), time.UnixMilli(ms0+int64(i)))
			require.NoError(t, err)
		}
		var mu sync.Mutex
		taken := map[string]string{}
		take := func(who, m string) {
			mu.Lock()
			defer mu.Unlock()
			if prev, dup := taken[m]; dup {
				t.Errorf("%s taken by %s and by %s", m, prev, who)
			}
			taken[m] = who
		}
		var wg sync.WaitGroup
		errs := make(chan error, 2)
		for g := range 2 {
			wg.Go(func() {
				q := timed(ms0 + n)
				for {
					j, ok, err := q.TryPop(ctx)
					if err != nil {
						errs <- err
						return
					}
					if !ok {
						return
					}
					take(fmt.Sprint("go", g), j.Payload)
					time.Sleep(2 * time.Millisecond) // leave some to Python, which starts slower
				}
			})
		}
		cmd := []string{"/usr/bin/python3", py, "drain:seta:" + msArg(ms0+n)}
		out := s.run(t, cmd...)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		for _, line := range out {
			take("python", strings.TrimPrefix(line, "took "))
		}
		require.Len(t, taken, n)
		tr = append(tr, fmt.Sprintf("drained %d", len(taken)))
		t.Logf("python took %d of %d", len(out), n)
		require.Empty(t, s.dump(t))
		return tr
	})
}
