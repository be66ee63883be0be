package fuzz

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisDB is the database the differential tests use on the Redis server. CI shares
// one server between every package's tests, so this package keeps to a database of
// its own and flushes only that (see the "isolation" loosening).
const redisDB = 11

// A target runs a batch of commands and returns one reply per command.
type target interface {
	exec(cmds [][]string) ([]val, error)
}

// redisTarget runs commands on a real redis-server through go-redis, pipelined.
type redisTarget struct{ c *redis.Client }

func newRedisClient(addr string, db int, name string) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:            addr,
		DB:              db,
		Protocol:        2, // byte-for-byte bulk strings, the replies Do is shaped like
		ClientName:      name,
		DisableIdentity: true,
		PoolSize:        1,
		ReadTimeout:     30 * time.Second,
		WriteTimeout:    30 * time.Second,
	})
}

func (r redisTarget) exec(cmds [][]string) ([]val, error) {
	ctx := context.Background()
	pipe := r.c.Pipeline()
	out := make([]*redis.Cmd, len(cmds))
	for i, c := range cmds {
		args := make([]any, len(c))
		for j, a := range c {
			args[j] = a
		}
		out[i] = pipe.Do(ctx, args...)
	}
	_, _ = pipe.Exec(ctx) // per-command errors are read below
	vals := make([]val, len(cmds))
	for i, c := range out {
		v, err := c.Result()
		if err != nil && !isReplyError(err) {
			return nil, fmt.Errorf("%s: %w", formatCmd(cmds[i]), err)
		}
		vals[i] = toVal(v, err)
	}
	return vals, nil
}

// isReplyError reports whether err is a reply from the server rather than a failure
// to talk to it.
func isReplyError(err error) bool {
	_, ok := err.(interface{ RedisError() })
	return ok || err == redis.Nil
}

// redisVersion72 reports whether the server is Redis 7.2 or newer.
func redisVersion72(t testing.TB, c *redis.Client) bool {
	info, err := c.Info(context.Background(), "server").Result()
	if err != nil {
		t.Fatalf("INFO server: %v", err)
	}
	m := regexp.MustCompile(`redis_version:(\d+)\.(\d+)`).FindStringSubmatch(info)
	if m == nil {
		t.Fatalf("INFO server has no redis_version: %q", info)
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	t.Logf("redis-server %s.%s", m[1], m[2])
	return major > 7 || major == 7 && minor >= 2
}

// differ runs steps on the keyspace under test (zl) and on Redis (rd) and compares
// every reply.
type differ struct {
	zl, rd   target
	redis72  bool
	compared int
	// fresh, when set, returns a new keyspace for replays, so that a minimised
	// transcript reproduces from nothing, not from the state the run left behind.
	fresh func() target
}

// divergence describes the first reply that differed.
type divergence struct {
	step, cmd int // index of the step in the batch, and of the command within it
	args      []string
	zl, rd    val
	msg       string
}

// replay runs steps like run, on a fresh keyspace when the differ has a source of them.
func (d *differ) replay(steps []step) (*divergence, error) {
	if d.fresh == nil {
		return d.run(steps)
	}
	saved, compared := d.zl, d.compared
	d.zl = d.fresh()
	defer func() { d.zl, d.compared = saved, compared }()
	return d.run(steps)
}

// run runs steps on both sides and returns the first divergence, or nil.
func (d *differ) run(steps []step) (*divergence, error) {
	var zc, rc [][]string
	for _, s := range steps {
		for _, c := range s {
			zc = append(zc, c)
			rc = append(rc, redisArgs(c, d.redis72))
		}
	}
	zv, err := d.zl.exec(zc)
	if err != nil {
		return nil, err
	}
	rv, err := d.rd.exec(rc)
	if err != nil {
		return nil, err
	}
	k := 0
	for si, s := range steps {
		for ci, c := range s {
			var after val
			if ci+1 < len(s) {
				after = zv[k+1]
			}
			if msg := compareReply(c, zv[k], rv[k], after, d.redis72); msg != "" {
				return &divergence{step: si, cmd: ci, args: c, zl: zv[k], rd: rv[k], msg: msg}, nil
			}
			d.compared++
			k++
		}
	}
	return nil, nil
}

var flushStep = step{{"FLUSHALL"}}

// minimise removes steps from transcript (which starts with FLUSHALL and whose last
// step diverges) one at a time, keeping each removal after which the last step still
// diverges. It returns the shorter transcript and its divergence, or a nil divergence
// when the transcript itself does not diverge when replayed: the run's result then
// depended on what happened before the FLUSHALL, or on chance.
func (d *differ) minimise(transcript []step) ([]step, *divergence) {
	div, err := d.replay(transcript)
	if err != nil || div == nil || div.step != len(transcript)-1 {
		return transcript, nil
	}
	cur := transcript
	for i := len(cur) - 2; i >= 1; i-- {
		cand := append(append([]step{}, cur[:i]...), cur[i+1:]...)
		got, err := d.replay(cand)
		if err == nil && got != nil && got.step == len(cand)-1 {
			cur, div = cand, got
		}
	}
	return cur, div
}

// report renders a transcript with both sides' replies, for a failure message.
func (d *differ) report(transcript []step) string {
	var zc, rc [][]string
	for _, s := range transcript {
		for _, c := range s {
			zc = append(zc, c)
			rc = append(rc, redisArgs(c, d.redis72))
		}
	}
	zl := d.zl
	if d.fresh != nil {
		zl = d.fresh()
	}
	zv, zerr := zl.exec(zc)
	rv, rerr := d.rd.exec(rc)
	if zerr != nil || rerr != nil {
		return fmt.Sprintf("(replay failed: %v %v)", zerr, rerr)
	}
	var b strings.Builder
	for i, c := range zc {
		fmt.Fprintf(&b, "  %s\n      zlite: %s\n      redis: %s\n", formatCmd(c), zv[i], rv[i])
	}
	return b.String()
}

// transcriptLen returns how many commands the seeded differential test compares:
// ZLITE_DIFF_COMMANDS if set, else 200k (20k under the race detector, whose CI run is
// followed by a full run without it in .ci/fuzz).
func transcriptLen(t testing.TB) int {
	if s := os.Getenv("ZLITE_DIFF_COMMANDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("ZLITE_DIFF_COMMANDS=%q: %v", s, err)
		}
		return n
	}
	if raceEnabled {
		return 20_000
	}
	return 200_000
}

// runSeeded generates about n commands from seed in segments that each start with
// FLUSHALL, runs them on d in pipelined batches and fails t on the first divergence
// with the transcript since the segment's FLUSHALL, minimised.
func runSeeded(t *testing.T, d *differ, seed uint64, n int, allowed map[string]bool) {
	t.Helper()
	g := &gen{src: randSource{rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}, allowed: allowed}
	const batchCmds = 2000
	var (
		batch    []step
		segStart []int // indexes in batch of each segment's FLUSHALL
		cmds     int
		total    int
	)
	flush := func() {
		div, err := d.run(batch)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if div != nil {
			start := 0
			for _, s := range segStart {
				if s <= div.step {
					start = s
				}
			}
			transcript := batch[start : div.step+1]
			small, sdiv := d.minimise(transcript)
			if sdiv == nil {
				t.Fatalf("divergence after %d commands compared (ZLITE_SEED=%d)\n"+
					"command: %s\nzlite:   %s\nredis:   %s\nproblem: %s\n"+
					"NOT reproducible: the %d steps since FLUSHALL, replayed on a fresh keyspace, "+
					"do not diverge there (state survived FLUSHALL, or chance). They were:\n%s",
					d.compared, seed, formatCmd(div.args), div.zl, div.rd, div.msg, len(transcript), d.report(transcript))
			}
			t.Fatalf("divergence after %d commands compared (ZLITE_SEED=%d)\n"+
				"command: %s\nzlite:   %s\nredis:   %s\nproblem: %s\n"+
				"minimal transcript (%d of the %d steps since FLUSHALL), replayed on both:\n%s",
				d.compared, seed, formatCmd(sdiv.args), sdiv.zl, sdiv.rd, sdiv.msg,
				len(small), len(transcript), d.report(small))
		}
		batch, segStart, cmds = batch[:0], segStart[:0], 0
	}
	for total < n {
		segStart = append(segStart, len(batch))
		seg := g.segment()
		batch = append(batch, seg...)
		cmds++ // the FLUSHALL
		for _, s := range seg[1:] {
			cmds += len(s)
			total += len(s)
		}
		if cmds >= batchCmds {
			flush()
		}
	}
	flush()
}
