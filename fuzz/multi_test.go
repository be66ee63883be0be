package fuzz

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/internal/testmain"
)

// nakedBlocking returns a blocking command with nothing pushed before it: inside a
// transaction neither side may block, and both must answer as on a timeout when
// nothing is ready.
func nakedBlocking(g *gen) []string {
	switch g.n(5) {
	case 0:
		return []string{g.pick([]string{"BLPOP", "BRPOP"}), g.lkey(), g.lkey(), "0"}
	case 1:
		return []string{"BLMOVE", g.lkey(), g.lkey(), "LEFT", "RIGHT", "0"}
	case 2:
		return []string{"BLMPOP", "0", "1", g.lkey(), "LEFT", "COUNT", "2"}
	case 3:
		return []string{g.pick([]string{"BZPOPMIN", "BZPOPMAX"}), g.zkey(), "0"}
	default:
		return []string{"BZMPOP", "0", "2", g.zkey(), g.zkey(), "MAX"}
	}
}

// txDo runs one command in a batch; a panic becomes an error reply starting "panic:".
func txDo(tx *zlite.Tx, args []string) (v val) {
	defer func() {
		if p := recover(); p != nil {
			v = val{kind: kErr, s: fmt.Sprintf("panic: %v", p)}
		}
	}()
	return toVal(tx.Do(args...))
}

// TestDifferentialMulti runs seeded transactions: MULTI … EXEC on Redis, one
// DB.Update calling Tx.Do per command on zlite, and compares every command's result
// inside EXEC's reply. Transactions Redis refuses at queue time (arity errors) are
// dropped on both sides. Blocking commands also appear with nothing to serve: inside
// a transaction they must answer at once, as on a timeout.
func TestDifferentialMulti(t *testing.T) {
	d, allowed := newDiffer(t)
	db := zlite.New()
	s := testmain.Seed(t)
	n := transcriptLen(t) / 4
	t.Logf("ZLITE_SEED=%d, %d commands in transactions", s, n)
	g := &gen{src: randSource{rand.New(rand.NewPCG(s, s^0x51))}, allowed: allowed}
	compared, dropped := 0, 0
	for compared < n {
		// A segment: FLUSHALL, then transactions of 1–8 steps.
		var txs [][][]string
		var rc [][]string
		rc = append(rc, []string{"FLUSHDB"})
		db.Do(context.Background(), "FLUSHALL")
		for range 10 + g.n(30) {
			var cmds [][]string
			for range 1 + g.n(8) {
				if g.chance(15) {
					cmds = append(cmds, nakedBlocking(g))
				} else if s := g.next(); s != nil {
					cmds = append(cmds, s...)
				}
			}
			txs = append(txs, cmds)
			rc = append(rc, []string{"MULTI"})
			for _, c := range cmds {
				rc = append(rc, redisArgs(c, d.redis72))
			}
			rc = append(rc, []string{"EXEC"})
		}
		rv, err := d.rd.exec(rc)
		if err != nil {
			t.Fatal(err)
		}
		k := 1
		var done []string // the segment so far, for failure reports
		for _, cmds := range txs {
			queued := rv[k+1 : k+1+len(cmds)]
			exec := rv[k+1+len(cmds)]
			k += len(cmds) + 2
			if exec.kind == kErr {
				if !strings.HasPrefix(exec.s, "EXECABORT") {
					t.Fatalf("EXEC: %s", exec)
				}
				dropped++
				continue
			}
			for _, q := range queued {
				if q.kind != kStr || q.s != "QUEUED" {
					t.Fatalf("queued reply %s with EXEC %s", q, exec)
				}
			}
			zv := make([]val, len(cmds))
			db.Update(func(tx *zlite.Tx) error {
				for i, c := range cmds {
					zv[i] = txDo(tx, c)
				}
				return nil
			})
			done = append(done, "MULTI")
			for _, c := range cmds {
				done = append(done, formatCmd(c))
			}
			done = append(done, "EXEC")
			for i, c := range cmds {
				var after val
				if i+1 < len(cmds) {
					after = zv[i+1]
				}
				if exec.kind != kArr || len(exec.a) != len(cmds) {
					t.Fatalf("EXEC reply %s for %d commands", exec, len(cmds))
				}
				if msg := compareReply(c, zv[i], exec.a[i], after, d.redis72); msg != "" {
					t.Fatalf("divergence inside a transaction after %d commands (ZLITE_SEED=%d)\n"+
						"command: %s\nzlite:   %s\nredis:   %s\nproblem: %s\ntranscript since FLUSHALL:\n  %s",
						compared, s, formatCmd(c), zv[i], exec.a[i], msg, strings.Join(done, "\n  "))
				}
				compared++
			}
		}
	}
	t.Logf("compared %d commands inside transactions with Redis (%d transactions refused at queue time)", compared, dropped)
}
