package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/internal/serverapi"
	"github.com/zlite/zlite/internal/testmain"
	"github.com/zlite/zlite/zset"
)

// TestPairsMatchValue runs the same pipelines of ZPOPMIN and ZPOPMAX (with and
// without a count, on small and tree sets, an empty key and a list) on two equal
// keyspaces, one through serverapi.Hooks.DoPipelined and [writer.value], the other through
// serverapi.Hooks.DoPipelined with a PairWriter and [writer.pairs], and requires the same bytes in RESP2 and
// RESP3, with writer buffers small enough that scores and members straddle them.
func TestPairsMatchValue(t *testing.T) {
	r := rand.New(rand.NewPCG(testmain.Seed(t), 13))
	scores := []float64{0, math.Copysign(0, -1), 1, -3, 2.5, 0.1, 1e21, 1e-7, 5e-324,
		math.MaxFloat64, 1 << 62, 1<<62 + 1<<10, -(1 << 63), math.Inf(1), math.Inf(-1), 1.0 / 3}
	fill := func(db *zlite.DB, n int) {
		ctx := context.Background()
		for i := range n {
			m := "m" + strconv.Itoa(i)
			if i%97 == 5 {
				m = strings.Repeat("x", 300+i) // longer than the small buffers
			}
			sc := scores[r.IntN(len(scores))]
			if r.IntN(2) == 0 {
				sc = r.NormFloat64() * 1e3
			}
			if _, err := db.Do(ctx, "ZADD", "z", zset.FormatScore(sc), m); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.Do(ctx, "RPUSH", "l", "a"); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []int{1, 5, 200, 3000} {
		for _, size := range []int{16, 64, 16 << 10} {
			for _, resp3 := range []bool{false, true} {
				name := fmt.Sprintf("n=%d/buf=%d/resp3=%v", n, size, resp3)
				t.Run(name, func(t *testing.T) {
					fillSeed := r.Uint64()
					dbs := [2]*zlite.DB{zlite.New(), zlite.New()}
					for _, db := range dbs {
						r = rand.New(rand.NewPCG(fillSeed, 1))
						fill(db, n)
					}
					var out [2]bytes.Buffer
					ws := [2]*writer{}
					for i := range ws {
						ws[i] = &writer{bw: bufio.NewWriterSize(&out[i], size), resp3: resp3}
					}
					var pb pairBuf
					for round := 0; round < 50; round++ {
						var cmds [][]string
						for range 1 + r.IntN(20) {
							c := []string{[]string{"ZPOPMIN", "zpopmax"}[r.IntN(2)], []string{"z", "z", "z", "none", "l"}[r.IntN(5)]}
							switch r.IntN(4) {
							case 0:
								c = append(c, strconv.Itoa(r.IntN(4)))
							case 1:
								c = append(c, strconv.Itoa(r.IntN(n+2)))
							case 2:
								c = append(c, []string{"-1", "x", "1", "2"}[r.IntN(4)], []string{"", "3"}[r.IntN(2)])
								if c[3] == "" {
									c = c[:3]
								}
							}
							cmds = append(cmds, c)
						}
						copyCmds := func() [][]string {
							cs := make([][]string, len(cmds))
							for i, c := range cmds {
								cs[i] = append([]string(nil), c...)
							}
							return cs
						}
						res := [2][]serverapi.Result{make([]serverapi.Result, len(cmds)), make([]serverapi.Result, len(cmds))}
						hooks.DoPipelined(context.Background(), dbs[0], copyCmds(), res[0], nil)
						hooks.DoPipelined(context.Background(), dbs[1], copyCmds(), res[1], &pb)
						for i, c := range cmds {
							cmd, err := zlite.Lookup(c)
							var sh serverapi.Shape
							if err == nil {
								sh = hooks.Shape(cmd, c)
							}
							for k, rs := range res {
								switch {
								case rs[i].Err != nil:
									ws[k].errorReply(rs[i].Err.Error())
								case k == 1 && rs[i].Value == serverapi.WrittenPairs{}:
									ws[k].pairs(&pb, sh)
								default:
									ws[k].value(rs[i].Value, sh, false)
								}
							}
						}
						pb.reset()
						for _, w := range ws {
							if err := w.bw.Flush(); err != nil {
								t.Fatal(err)
							}
						}
						if a, b := out[0].String(), out[1].String(); a != b {
							t.Fatalf("round %d, %q: pairs wrote\n%q\nwant\n%q", round, cmds, b, a)
						}
					}
					if got := out[1].Len(); got == 0 {
						t.Fatal("nothing written")
					}
				})
			}
		}
	}
}

// TestWireZPopPipelined pipelines ZADD and ZPOPMIN/ZPOPMAX, with and without a
// count, on a filled key, an empty key and a list, to both servers, and compares
// the replies on the wire in RESP2 and RESP3 (the pipelined pops are the ones that
// write their pairs straight into the reply; see serverapi.Hooks.DoPipelined with a PairWriter).
func TestWireZPopPipelined(t *testing.T) {
	s := testmain.Seed(t)
	for _, proto := range []int{2, 3} {
		t.Run("resp="+strconv.Itoa(proto), func(t *testing.T) {
			p := sides(t, 1, proto)[0]
			r := rand.New(rand.NewPCG(s, uint64(proto)))
			p.do("RPUSH", "l", "a")
			for range 20 {
				var b strings.Builder
				var cmds [][]string
				for i := range 64 {
					var c []string
					switch k := r.IntN(10); {
					case k < 4:
						m := strconv.Itoa(r.IntN(300))
						c = []string{"ZADD", "z", strconv.Itoa(r.IntN(50) - 25), "element:" + m, strconv.Itoa(i) + ".5", "f" + m}
					case k < 7:
						c = []string{[]string{"ZPOPMIN", "ZPOPMAX"}[r.IntN(2)], "z"}
					case k < 8:
						c = []string{[]string{"ZPOPMIN", "ZPOPMAX"}[r.IntN(2)], "z", strconv.Itoa(r.IntN(5))}
					default:
						c = []string{"ZPOPMIN", []string{"none", "l"}[r.IntN(2)], []string{"1", "-1", "x"}[r.IntN(3)]}[:2+r.IntN(2)]
					}
					cmds = append(cmds, c)
					b.Write(encode(c...))
				}
				p.raw(b.String())
				for _, c := range cmds {
					p.check(fmt.Sprintf("%q", c))
				}
			}
		})
	}
}
