package fuzz

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/zlite/zlite"
	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/internal/testmain"
)

// zliteTarget runs commands through the keyspace's Do, one after the other.
type zliteTarget struct{ db *zlite.DB }

func (z zliteTarget) exec(cmds [][]string) ([]val, error) {
	out := make([]val, len(cmds))
	for i, c := range cmds {
		// The main transcript never leaves a blocking command without something to
		// serve, so the deadline only turns a wrongly blocking command into an error
		// reply (a divergence) instead of a hung test.
		out[i] = z.do(c)
	}
	return out, nil
}

// do runs one command; a panic becomes an error reply starting "panic:", which no
// Redis reply matches.
func (z zliteTarget) do(args []string) (v val) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			v = val{kind: kErr, s: fmt.Sprintf("panic: %v", p)}
		}
	}()
	return toVal(z.db.Do(ctx, args...))
}

// allCommands lists every command the generator can emit.
func allCommands() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range commands {
		for _, n := range c.names {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// implemented returns the generator's commands that db implements (the others reply
// "ERR unknown command"), and those it does not. Probing sends each name alone: an
// arity error or a harmless reply on the empty keyspace.
func implemented(db *zlite.DB) (map[string]bool, []string) {
	ok := map[string]bool{}
	var missing []string
	for _, n := range allCommands() {
		_, err := db.Do(context.Background(), n)
		if err != nil && strings.HasPrefix(err.Error(), "ERR unknown command") {
			missing = append(missing, n)
			continue
		}
		ok[n] = true
	}
	db.Do(context.Background(), "FLUSHALL")
	return ok, missing
}

// redisClient is the package's connection to Redis for the differential tests,
// opened once.
var redisClient = sync.OnceValues(func() (*redis.Client, error) {
	addr, err := redistest.Addr()
	if err != nil {
		return nil, err
	}
	return newRedisClient(addr, redisDB, "zlite-fuzz-diff"), nil
})

// newDiffer returns a differ between a fresh keyspace and Redis, or skips t.
func newDiffer(t testing.TB) (*differ, map[string]bool) {
	redistest.Require(t)
	c, err := redisClient()
	if err != nil {
		t.Fatal(err)
	}
	db := zlite.New()
	allowed, missing := implemented(db)
	if len(missing) > 0 {
		t.Logf("commands the keyspace lacks, left out of the transcript: %s", strings.Join(missing, " "))
	}
	return &differ{zl: zliteTarget{db}, rd: redisTarget{c}, redis72: redisVersion72(t, c),
		fresh: func() target { return zliteTarget{zlite.New()} }}, allowed
}

// TestDifferential runs a seeded random transcript of every sorted-set, list and key
// command the keyspace implements on zlite and on redis-server, and requires
// identical replies (up to the loosenings in loosen_test.go).
func TestDifferential(t *testing.T) {
	d, allowed := newDiffer(t)
	s := testmain.Seed(t)
	n := transcriptLen(t)
	t.Logf("ZLITE_SEED=%d, %d commands", s, n)
	start := time.Now()
	runSeeded(t, d, s, n, allowed)
	t.Logf("compared %d commands with Redis in %v: no divergence", d.compared, time.Since(start).Round(time.Millisecond))
}

// FuzzDifferential decodes the input into a transcript and runs it on zlite and on
// Redis. It is skipped without Redis. All fuzz workers share one Redis database, so
// fuzz it with -parallel 1 (as .ci/fuzz does).
func FuzzDifferential(f *testing.F) {
	for _, seed := range [][]byte{
		{},
		[]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09"),
		[]byte("zadd z1 1 a 2 b; zrange z1 0 -1 withscores"),
		[]byte{0xff, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80, 0x90, 0xa0, 0xb0, 0xc0, 0xd0, 0xe0, 0xf0},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, allowed := newDiffer(t)
		g := &gen{src: &byteSource{b: data}, allowed: allowed}
		steps := []step{flushStep}
		for len(steps) < 200 && !g.src.done() {
			if s := g.next(); s != nil {
				steps = append(steps, s)
			}
		}
		div, err := d.run(steps)
		if err != nil {
			t.Fatal(err)
		}
		if div != nil {
			transcript := steps[:div.step+1]
			small, sdiv := d.minimise(transcript)
			if sdiv == nil { // not reproducible: report what happened
				small, sdiv = transcript, div
			}
			t.Fatalf("divergence: %s\nzlite: %s\nredis: %s\nproblem: %s\ntranscript:\n%s",
				formatCmd(sdiv.args), sdiv.zl, sdiv.rd, sdiv.msg, d.report(small))
		}
	})
}
