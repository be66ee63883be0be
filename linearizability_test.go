package zlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// Linearizability tests: several goroutines run random commands on a few keys of one
// DB, every call and return is timestamped, and porcupine checks that the history has
// a sequential order, consistent with real time, that a small model of Redis accepts.
// They guard the keyspace's atomicity against changes to its locking (a
// sharded keyspace must keep every command, multi-key command and batch atomic; reads
// and View batches that share a shard's lock must still see one state: VIEW reads the
// sizes of two keys in one View or ViewKeys batch).
//
// The keys are two sorted sets (z0, z1; members a, b, c; small integral scores) and
// two lists (l0, l1; every pushed value is one byte, distinct within a history), so a model state is a
// small comparable value. Blocking pops use a timeout of linTimeout: a served pop
// returns what the model pops, and a timed-out pop (nil reply) is legal only at a
// point where all its keys are empty, which is exactly what Redis promises.

// linKey numbers the keys of the model: z0, z1, l0, l1.
type linKey int8

var linKeys = [...]string{"z0", "z1", "l0", "l1"}

// linMembers are the members of the sorted sets, in their byte order.
var linMembers = [...]string{"a", "b", "c"}

type linOp uint8

const (
	opZAdd linOp = iota
	opZScore
	opZRank
	opZPopMin
	opZRem
	opBZPopMin // keys k, k2
	opZMove    // Update batch: move member m from k to k2 with its score
	opLPush
	opRPop
	opLLen
	opLMove // LMOVE k k2 LEFT RIGHT
	opBLPop // keys k, k2
	opRename
	opDel
	opView // a View (s even) or ViewKeys batch reading the sizes of k and k2
)

var linOpNames = [...]string{"ZADD", "ZSCORE", "ZRANK", "ZPOPMIN", "ZREM", "BZPOPMIN",
	"ZMOVE", "LPUSH", "RPOP", "LLEN", "LMOVE", "BLPOP", "RENAME", "DEL", "VIEW"}

// linIn is one call: the command, its key(s), a member and score for sorted sets,
// a value for LPUSH.
type linIn struct {
	op    linOp
	k, k2 linKey
	m     int8
	s     int8
	v     byte
}

// multi reports whether the call reads or writes k2 as well as k.
func (in linIn) multi() bool {
	switch in.op {
	case opBZPopMin, opZMove, opLMove, opBLPop, opRename, opView:
		return in.k != in.k2
	}
	return false
}

// linOut is one reply, comparable with ==: n is a count, length or rank; ok says
// whether something was found, popped or served (from key k: member m with score s,
// or list value v); err is the error text.
type linOut struct {
	n   int64
	ok  bool
	k   linKey
	m   int8
	s   int8
	v   byte
	err string
}

// linState is the model's keyspace: z[i][m] is the score of member m in set zi, or
// -1; l[i] is list li, one byte per element, head first.
type linState struct {
	z [2][3]int8
	l [2]string
}

func linInit() linState {
	var st linState
	for i := range st.z {
		for m := range st.z[i] {
			st.z[i][m] = -1
		}
	}
	return st
}

// exists reports whether key k holds a value in st.
func (st *linState) exists(k linKey) bool {
	if k >= 2 {
		return st.l[k-2] != ""
	}
	return st.z[k] != [3]int8{-1, -1, -1}
}

// size returns the number of members or elements of key k in st.
func (st *linState) size(k linKey) int64 {
	if k >= 2 {
		return int64(len(st.l[k-2]))
	}
	n := int64(0)
	for _, s := range st.z[k] {
		if s >= 0 {
			n++
		}
	}
	return n
}

// zmin returns the member of zi with the lowest (score, member), or false.
func (st *linState) zmin(i linKey) (int8, bool) {
	best := int8(-1)
	for m, s := range st.z[i] {
		if s >= 0 && (best < 0 || s < st.z[i][best]) {
			best = int8(m)
		}
	}
	return best, best >= 0
}

// step applies in to st (a copy) and returns the reply Redis would give.
func (st linState) step(in linIn) (linOut, linState) {
	var out linOut
	switch in.op {
	case opZAdd:
		if st.z[in.k][in.m] < 0 {
			out.n = 1
		}
		st.z[in.k][in.m] = in.s
	case opZScore:
		out.s = st.z[in.k][in.m]
		out.ok = out.s >= 0
		if !out.ok {
			out.s = 0
		}
	case opZRank:
		s := st.z[in.k][in.m]
		if out.ok = s >= 0; out.ok {
			for m, o := range st.z[in.k] {
				if o >= 0 && (o < s || o == s && int8(m) < in.m) {
					out.n++
				}
			}
		}
	case opZPopMin:
		if m, ok := st.zmin(in.k); ok {
			out = linOut{ok: true, k: in.k, m: m, s: st.z[in.k][m]}
			st.z[in.k][m] = -1
		}
	case opZRem:
		if st.z[in.k][in.m] >= 0 {
			out.n = 1
			st.z[in.k][in.m] = -1
		}
	case opBZPopMin:
		for _, k := range []linKey{in.k, in.k2} {
			if m, ok := st.zmin(k); ok {
				out = linOut{ok: true, k: k, m: m, s: st.z[k][m]}
				st.z[k][m] = -1
				break
			}
		}
	case opZMove:
		if s := st.z[in.k][in.m]; s >= 0 {
			out.ok = true
			st.z[in.k][in.m] = -1
			st.z[in.k2][in.m] = s
		}
	case opLPush:
		st.l[in.k-2] = string(in.v) + st.l[in.k-2]
		out.n = int64(len(st.l[in.k-2]))
	case opRPop:
		if l := st.l[in.k-2]; l != "" {
			out = linOut{ok: true, k: in.k, v: l[len(l)-1]}
			st.l[in.k-2] = l[:len(l)-1]
		}
	case opLLen:
		out.n = int64(len(st.l[in.k-2]))
	case opLMove:
		if l := st.l[in.k-2]; l != "" {
			out = linOut{ok: true, k: in.k, v: l[0]}
			st.l[in.k-2] = l[1:]
			st.l[in.k2-2] += l[:1]
		}
	case opBLPop:
		for _, k := range []linKey{in.k, in.k2} {
			if l := st.l[k-2]; l != "" {
				out = linOut{ok: true, k: k, v: l[0]}
				st.l[k-2] = l[1:]
				break
			}
		}
	case opRename:
		switch {
		case !st.exists(in.k):
			out.err = ErrNoSuchKey.Error()
		case in.k < 2:
			st.z[in.k2], st.z[in.k] = st.z[in.k], [3]int8{-1, -1, -1}
		case in.k != in.k2:
			st.l[in.k2-2], st.l[in.k-2] = st.l[in.k-2], ""
		}
	case opView:
		out.n = st.size(in.k)<<8 | st.size(in.k2)
	case opDel:
		if st.exists(in.k) {
			out.n = 1
		}
		if in.k < 2 {
			st.z[in.k] = [3]int8{-1, -1, -1}
		} else {
			st.l[in.k-2] = ""
		}
	}
	return out, st
}

func (in linIn) String() string {
	s := linOpNames[in.op] + " " + linKeys[in.k]
	switch in.op {
	case opBZPopMin, opZMove, opLMove, opBLPop, opRename, opView:
		s += " " + linKeys[in.k2]
	}
	switch in.op {
	case opZAdd:
		s += fmt.Sprintf(" %d %s", in.s, linMembers[in.m])
	case opZScore, opZRank, opZRem, opZMove:
		s += " " + linMembers[in.m]
	case opLPush:
		s += fmt.Sprintf(" %d", in.v)
	}
	return s
}

func (out linOut) String() string {
	switch {
	case out.err != "":
		return out.err
	case !out.ok:
		return fmt.Sprintf("%d", out.n)
	case out.v != 0:
		return fmt.Sprintf("%s %d", linKeys[out.k], out.v)
	}
	return fmt.Sprintf("ok %s %s %d n=%d", linKeys[out.k], linMembers[max(out.m, 0)], out.s, out.n)
}

func (st linState) String() string {
	var b strings.Builder
	for i, z := range st.z {
		fmt.Fprintf(&b, "%s{", linKeys[i])
		for m, s := range z {
			if s >= 0 {
				fmt.Fprintf(&b, " %s:%d", linMembers[m], s)
			}
		}
		b.WriteString(" } ")
	}
	for i, l := range st.l {
		fmt.Fprintf(&b, "%s%v ", linKeys[i+2], []byte(l))
	}
	return b.String()
}

// linModel is the sequential specification. Its partitions are the groups of keys
// that the history's multi-key calls connect: with single-key calls only, each key is
// checked on its own, which keeps the search small.
var linModel = porcupine.Model{
	Partition: linPartition,
	Init:      func() any { return linInit() },
	Step: func(state, input, output any) (bool, any) {
		want, next := state.(linState).step(input.(linIn))
		return want == output.(linOut), next
	},
	DescribeOperation: func(input, output any) string {
		return fmt.Sprintf("%v -> %v", input, output)
	},
	DescribeState: func(state any) string { return state.(linState).String() },
}

// linPartition splits a history into the connected components of its keys.
func linPartition(history []porcupine.Operation) [][]porcupine.Operation {
	var parent [len(linKeys)]linKey
	for i := range parent {
		parent[i] = linKey(i)
	}
	find := func(k linKey) linKey {
		for parent[k] != k {
			k = parent[k]
		}
		return k
	}
	for _, op := range history {
		in := op.Input.(linIn)
		if in.multi() {
			parent[find(in.k)] = find(in.k2)
		}
	}
	var parts [len(linKeys)][]porcupine.Operation
	for _, op := range history {
		root := find(op.Input.(linIn).k)
		parts[root] = append(parts[root], op)
	}
	var out [][]porcupine.Operation
	for _, p := range parts {
		if len(p) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// linTimeout is the blocking pops' timeout: short, so that some are served and some
// time out while the others run.
const linTimeout = time.Millisecond

// linMover runs opZMove: the real one is one Update batch.
type linMover func(db *DB, src, dst, member string) (bool, error)

// updateMove is ZMOVE as one Update batch: ZSCORE src, then ZREM src and ZADD dst.
func updateMove(db *DB, src, dst, member string) (bool, error) {
	return batchMove(db.Update, src, dst, member)
}

// updateKeysMove is updateMove as an UpdateKeys batch, which locks the shards of src
// and dst alone.
func updateKeysMove(db *DB, src, dst, member string) (bool, error) {
	return batchMove(func(fn func(*Tx) error) error { return db.UpdateKeys([]string{src, dst}, fn) }, src, dst, member)
}

// batchMove is ZMOVE as one batch run by update.
func batchMove(update func(func(*Tx) error) error, src, dst, member string) (moved bool, err error) {
	err = update(func(tx *Tx) error {
		s, ok, err := tx.ZScore(src, member)
		if err != nil || !ok {
			return err
		}
		if _, err := tx.ZRem(src, member); err != nil {
			return err
		}
		moved = true
		_, err = tx.ZAdd(dst, Z{Member: member, Score: s})
		return err
	})
	return moved, err
}

// run performs in on db and returns its reply in the model's terms.
func (in linIn) run(ctx context.Context, db *DB, move linMover) linOut {
	var out linOut
	var err error
	k, k2 := linKeys[in.k], linKeys[in.k2]
	member := func(name string) int8 {
		for i, m := range linMembers {
			if m == name {
				return int8(i)
			}
		}
		return -1 // an unknown member fails the comparison with the model
	}
	key := func(name string) linKey {
		for i, n := range linKeys {
			if n == name {
				return linKey(i)
			}
		}
		return -1
	}
	popped := func(key linKey, zs []Z) {
		if len(zs) == 1 {
			out = linOut{ok: true, k: key, m: member(zs[0].Member), s: int8(zs[0].Score)}
		}
	}
	served := func(ok bool, key linKey, v string) {
		if ok {
			out = linOut{ok: true, k: key}
			if len(v) == 1 {
				out.v = v[0] // pushed values are one byte, never 0
			}
		}
	}
	switch in.op {
	case opZAdd:
		out.n, err = db.ZAdd(ctx, k, Z{Member: linMembers[in.m], Score: float64(in.s)})
	case opZScore:
		var s float64
		s, out.ok, err = db.ZScore(ctx, k, linMembers[in.m])
		out.s = int8(s)
	case opZRank:
		out.n, out.ok, err = db.ZRank(ctx, k, linMembers[in.m])
	case opZPopMin:
		var zs []Z
		zs, err = db.ZPopMin(ctx, k)
		popped(in.k, zs)
	case opZRem:
		out.n, err = db.ZRem(ctx, k, linMembers[in.m])
	case opBZPopMin:
		var name string
		var z Z
		var ok bool
		name, z, ok, err = db.BZPopMin(ctx, linTimeout, k, k2)
		if ok {
			popped(key(name), []Z{z})
		}
	case opZMove:
		out.ok, err = move(db, k, k2, linMembers[in.m])
	case opLPush:
		out.n, err = db.LPush(ctx, k, string(in.v))
	case opRPop:
		var v string
		var ok bool
		v, ok, err = db.RPop(ctx, k)
		served(ok, in.k, v)
	case opLLen:
		out.n, err = db.LLen(ctx, k)
	case opLMove:
		var v string
		var ok bool
		v, ok, err = db.LMove(ctx, k, k2, "LEFT", "RIGHT")
		served(ok, in.k, v)
	case opBLPop:
		var name, v string
		var ok bool
		name, v, ok, err = db.BLPop(ctx, linTimeout, k, k2)
		served(ok, key(name), v)
	case opRename:
		err = db.Rename(ctx, k, k2)
	case opDel:
		out.n, err = db.Del(ctx, k)
	case opView:
		read := func(tx *Tx) error {
			for _, name := range []string{k, k2} {
				var n int64
				var err error
				if name[0] == 'z' {
					n, err = tx.ZCard(name)
				} else {
					n, err = tx.LLen(name)
				}
				if err != nil {
					return err
				}
				out.n = out.n<<8 | n
			}
			return nil
		}
		if in.s%2 == 0 {
			err = db.View(read)
		} else {
			err = db.ViewKeys([]string{k, k2}, read)
		}
	}
	if err != nil {
		out.err = err.Error()
	}
	return out
}

// linRecorder timestamps calls and returns on one monotonic clock.
type linRecorder struct {
	start time.Time
	mu    sync.Mutex
	ops   []porcupine.Operation
}

func newLinRecorder() *linRecorder { return &linRecorder{start: time.Now()} }

func (r *linRecorder) now() int64 { return int64(time.Since(r.start)) }

// do runs in on db as client and records the call.
func (r *linRecorder) do(ctx context.Context, db *DB, move linMover, client int, in linIn) {
	call := r.now()
	out := in.run(ctx, db, move)
	ret := r.now()
	r.mu.Lock()
	r.ops = append(r.ops, porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret})
	r.mu.Unlock()
}

// check runs porcupine on the history; on a failure it writes the visualisation.
func (r *linRecorder) check(t *testing.T) porcupine.CheckResult {
	t.Helper()
	res, info := porcupine.CheckOperationsVerbose(linModel, r.ops, 0)
	if res != porcupine.Ok {
		path := filepath.Join(t.TempDir(), "history.html")
		if err := porcupine.VisualizePath(linModel, info, path); err != nil {
			t.Logf("visualisation: %v", err)
		} else {
			t.Logf("history (%d operations): %s", len(r.ops), path)
		}
	}
	return res
}

// linTally counts what a history exercised: blocking pops served and timed out, and
// pairs of calls that overlapped in time.
type linTally struct{ served, timedOut, overlaps int }

func (c *linTally) add(ops []porcupine.Operation) {
	for i, op := range ops {
		if in := op.Input.(linIn); in.op == opBLPop || in.op == opBZPopMin {
			if op.Output.(linOut).ok {
				c.served++
			} else {
				c.timedOut++
			}
		}
		for _, o := range ops[i+1:] {
			if o.Call <= op.Return && op.Call <= o.Return {
				c.overlaps++
			}
		}
	}
}

// linGen draws random calls: with multi false, only single-key ones (so porcupine
// checks each key on its own).
type linGen struct {
	rng   *rand.Rand
	multi bool
	vals  *atomic.Uint32 // source of distinct list values
}

func (g linGen) next() linIn {
	r := g.rng
	in := linIn{k: linKey(r.IntN(2)), m: int8(r.IntN(len(linMembers))), s: int8(r.IntN(4))}
	in.k2 = 1 - in.k
	ops := []linOp{opZAdd, opZAdd, opZScore, opZRank, opZPopMin, opZRem, opBZPopMin, opDel, opView}
	if g.multi {
		ops = append(ops, opZMove, opZMove, opRename)
	}
	if r.IntN(2) == 1 { // a list call
		in.k, in.k2 = in.k+2, in.k2+2
		ops = []linOp{opLPush, opLPush, opRPop, opLLen, opBLPop, opDel, opView}
		if g.multi {
			ops = append(ops, opLMove, opLMove, opRename)
		}
	}
	in.op = ops[r.IntN(len(ops))]
	if !g.multi {
		in.k2 = in.k // blocking pops on one key
	}
	if in.op == opLPush {
		in.v = byte(g.vals.Add(1)%255 + 1)
	}
	return in
}

// linHistory runs clients goroutines of perClient random calls each on a new DB and
// returns the recorded history.
func linHistory(seed uint64, clients, perClient int, multi bool, move linMover, opts ...Option) *linRecorder {
	ctx := context.Background()
	db := New(opts...)
	rec := newLinRecorder()
	var vals atomic.Uint32
	var wg sync.WaitGroup
	for c := range clients {
		g := linGen{rng: rand.New(rand.NewPCG(seed, uint64(c))), multi: multi, vals: &vals}
		wg.Go(func() {
			for range perClient {
				rec.do(ctx, db, move, c, g.next())
			}
		})
	}
	wg.Wait()
	return rec
}

// TestLinearizability checks many random concurrent histories against the model,
// first of single-key calls (partitioned by key), then with LMOVE, RENAME and
// Update batches moving a member between sets (one model for each group of keys).
// ZLITE_SEED replays the calls of a run (not the interleaving, which is the
// scheduler's).
func TestLinearizability(t *testing.T) {
	base := zTestSeed(t)
	rounds, clients, perClient := 100, 4, 60
	if testing.Short() {
		rounds = 5
	}
	// The four keys spread over the default shards (multi-key calls lock several,
	// blocking pops on two keys wait in the global queues), or share one shard; the
	// move is an Update batch (every shard) or an UpdateKeys one (its two keys').
	configs := []struct {
		name string
		move linMover
		opts []Option
	}{
		{"shards=64/move=Update", updateMove, nil},
		{"shards=64/move=UpdateKeys", updateKeysMove, nil},
		{"shards=1/move=Update", updateMove, []Option{WithShards(1)}},
	}
	for _, cfg := range configs {
		for _, multi := range []bool{false, true} {
			if !multi && cfg.name != configs[0].name {
				continue // the move is a multi-key call
			}
			t.Run(fmt.Sprintf("%s/multikey=%t", cfg.name, multi), func(t *testing.T) {
				linRounds(t, base, rounds, clients, perClient, multi, cfg.move, cfg.opts)
			})
		}
	}
}

// linRounds checks rounds random histories of one configuration.
func linRounds(t *testing.T, base uint64, rounds, clients, perClient int, multi bool, move linMover, opts []Option) {
	var tally linTally
	for i := range uint64(rounds) {
		rec := linHistory(base+i, clients, perClient, multi, move, opts...)
		if res := rec.check(t); res != porcupine.Ok {
			t.Fatalf("round %d (ZLITE_SEED=%d replays the calls): history is %s", i, base, res)
		}
		tally.add(rec.ops)
	}
	t.Logf("%d rounds: blocking pops served %d, timed out %d; overlapping pairs %d",
		rounds, tally.served, tally.timedOut, tally.overlaps)
	if tally.served == 0 || tally.timedOut == 0 || tally.overlaps == 0 {
		t.Errorf("the histories exercised too little: %+v", tally)
	}
}

// splitMove is a deliberately broken ZMOVE: two batches, so another caller can run
// between the removal and the add and see the member in neither set. between, if not
// nil, runs there.
func splitMove(between func()) linMover {
	return func(db *DB, src, dst, member string) (moved bool, err error) {
		var s float64
		err = db.Update(func(tx *Tx) error {
			var ok bool
			s, ok, err = tx.ZScore(src, member)
			if err != nil || !ok {
				return err
			}
			moved = true
			_, err = tx.ZRem(src, member)
			return err
		})
		if !moved || err != nil {
			return moved, err
		}
		if between != nil {
			between()
		}
		err = db.Update(func(tx *Tx) error {
			_, err := tx.ZAdd(dst, Z{Member: member, Score: s})
			return err
		})
		return moved, err
	}
}

// TestLinearizabilityRejectsRandom makes sure the random workload can catch a broken
// batch: with the split ZMOVE yielding between its two batches, about two rounds in
// three are rejected here, so 40 rounds all passing would mean the check had gone
// blind (a chance of about 1e-19 otherwise).
func TestLinearizabilityRejectsRandom(t *testing.T) {
	base := zTestSeed(t)
	for i := range uint64(40) {
		rec := linHistory(base+i, 4, 60, true, splitMove(runtime.Gosched))
		if res, _ := porcupine.CheckOperationsVerbose(linModel, rec.ops, 0); res == porcupine.Illegal {
			t.Logf("rejected in round %d", i)
			return
		}
	}
	t.Fatal("40 random histories with a split ZMOVE were all accepted")
}

// TestLinearizabilityRejects makes sure the check can fail: while a split ZMOVE of a
// from z0 to z1 is between its two batches, another client reads ZSCORE z0 a and then
// ZSCORE z1 a and finds it in neither. Every order of those calls has a in one of the
// sets, so porcupine must reject the history; with the real, atomic move the same
// script must pass.
func TestLinearizabilityRejects(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		broken bool
		want   porcupine.CheckResult
	}{
		{"split", true, porcupine.Illegal},
		{"update", false, porcupine.Ok},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := New()
			rec := newLinRecorder()
			rec.do(ctx, db, nil, 0, linIn{op: opZAdd, k: 0, m: 0, s: 1})
			read := func() {
				rec.do(ctx, db, nil, 1, linIn{op: opZScore, k: 0, m: 0})
				rec.do(ctx, db, nil, 1, linIn{op: opZScore, k: 1, m: 0})
			}
			move := linMover(updateMove)
			if tc.broken {
				move = splitMove(read)
			}
			rec.do(ctx, db, move, 0, linIn{op: opZMove, k: 0, k2: 1, m: 0})
			if !tc.broken {
				read()
			}
			if got := rec.check(t); got != tc.want {
				t.Fatalf("check(%s move history) = %s; want %s", tc.name, got, tc.want)
			}
		})
	}
}

// TestLinearizabilityModel pins the model on the sequences whose replies Redis
// defines, so that a wrong model cannot make the checks above pass vacuously.
func TestLinearizabilityModel(t *testing.T) {
	z := func(k linKey, m, s int8) linOut { return linOut{ok: true, k: k, m: m, s: s} }
	l := func(k linKey, v byte) linOut { return linOut{ok: true, k: k, v: v} }
	steps := []struct {
		in   linIn
		want linOut
	}{
		{linIn{op: opBZPopMin, k: 0, k2: 1}, linOut{}},
		{linIn{op: opZAdd, k: 1, m: 2, s: 3}, linOut{n: 1}},
		{linIn{op: opZAdd, k: 1, m: 1, s: 3}, linOut{n: 1}},
		{linIn{op: opZAdd, k: 1, m: 1, s: 3}, linOut{}},
		{linIn{op: opZRank, k: 1, m: 2}, linOut{n: 1, ok: true}},
		{linIn{op: opZScore, k: 1, m: 0}, linOut{}},
		{linIn{op: opZMove, k: 1, k2: 0, m: 2}, linOut{ok: true}},
		{linIn{op: opZScore, k: 0, m: 2}, linOut{ok: true, s: 3}},
		{linIn{op: opBZPopMin, k: 0, k2: 1}, z(0, 2, 3)},
		{linIn{op: opRename, k: 0, k2: 1}, linOut{err: ErrNoSuchKey.Error()}},
		{linIn{op: opRename, k: 1, k2: 0}, linOut{}},
		{linIn{op: opView, k: 1, k2: 0}, linOut{n: 0<<8 | 1}},
		{linIn{op: opView, k: 0, k2: 0, s: 1}, linOut{n: 1<<8 | 1}},
		{linIn{op: opZPopMin, k: 0}, z(0, 1, 3)},
		{linIn{op: opDel, k: 0}, linOut{}},
		{linIn{op: opLPush, k: 2, v: 7}, linOut{n: 1}},
		{linIn{op: opLPush, k: 2, v: 8}, linOut{n: 2}},
		{linIn{op: opLMove, k: 2, k2: 3}, l(2, 8)},
		{linIn{op: opLLen, k: 3}, linOut{n: 1}},
		{linIn{op: opBLPop, k: 2, k2: 3}, l(2, 7)},
		{linIn{op: opRPop, k: 3}, l(3, 8)},
		{linIn{op: opBLPop, k: 3, k2: 2}, linOut{}},
	}
	db := New()
	st := linInit()
	for i, s := range steps {
		got, next := st.step(s.in)
		if got != s.want {
			t.Fatalf("step %d: model %v = %v; want %v", i, s.in, got, s.want)
		}
		if real := s.in.run(context.Background(), db, updateMove); real != s.want {
			t.Fatalf("step %d: DB %v = %v; want %v", i, s.in, real, s.want)
		}
		st = next
	}
}
