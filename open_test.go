package zlite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/zlite/zlite/persist"
)

// dump describes every key of db: its type and elements, in order.
func dump(t testing.TB, db *DB) map[string]string {
	t.Helper()
	ctx := context.Background()
	keys, err := db.Keys(ctx, "*")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, k := range keys {
		typ, _ := db.Type(ctx, k)
		at, _ := db.PExpireTime(ctx, k)
		defer func() { m[k] += fmt.Sprintf(" expireat=%d", at) }()
		switch typ {
		case "list":
			vs, _ := db.LRange(ctx, k, 0, -1)
			m[k] = fmt.Sprintf("list%q", vs)
		case "zset":
			zs, _ := db.ZRangeWithScores(ctx, k, 0, -1)
			m[k] = fmt.Sprintf("zset%v", zs)
		case "string":
			s, _, _ := db.Get(ctx, k)
			m[k] = fmt.Sprintf("string%q", s)
		case "set":
			ms, _ := db.SMembers(ctx, k)
			slices.Sort(ms) // an intset reloaded may be one again, in its own order
			m[k] = fmt.Sprintf("set%q", ms)
		case "hash":
			fs, _ := db.HKeys(ctx, k)
			vs, _ := db.HVals(ctx, k)
			m[k] = fmt.Sprintf("hash%q%q", fs, vs)
		}
	}
	return m
}

// openT opens dir with opts, failing the test on error; Close is the caller's.
func openT(t testing.TB, dir string, opts ...Option) *DB {
	t.Helper()
	db, err := Open(dir, opts...)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	return db
}

// randomWrite returns a random write command (and some that fail or change
// nothing) over a few keys of both types.
func randomWrite(r *rand.Rand) []string {
	lk := func() string { return []string{"l1", "l2", "l3"}[r.IntN(3)] }
	zk := func() string { return []string{"z1", "z2", "z3"}[r.IntN(3)] }
	anyk := func() string { return []string{"l1", "l2", "z1", "z2", "s1", "x", "t1", "h1"}[r.IntN(8)] }
	tk := func() string { return []string{"t1", "t2"}[r.IntN(2)] }
	hk := func() string { return []string{"h1", "h2"}[r.IntN(2)] }
	m := func() string { return []string{"1", "7", "-2", "a", "b", strconv.Itoa(r.IntN(600))}[r.IntN(6)] }
	sk := func() string { return []string{"s1", "s2"}[r.IntN(2)] }
	v := func() string { return "v" + strconv.Itoa(r.IntN(6)) }
	n := func(lo, hi int) string { return strconv.Itoa(lo + r.IntN(hi-lo+1)) }
	sc := func() string {
		return []string{"1", "-2.5", "3", "0.1", "+inf", "-inf", "1e300", strconv.Itoa(r.IntN(9))}[r.IntN(8)]
	}
	side := func() string { return []string{"LEFT", "RIGHT"}[r.IntN(2)] }
	switch r.IntN(53) {
	case 43, 44:
		return []string{"sadd", tk(), m(), m()}
	case 45:
		return []string{"srem", tk(), m(), m()}
	case 46:
		return []string{"smove", tk(), tk(), m()}
	case 47:
		return []string{[]string{"sinterstore", "sunionstore", "sdiffstore"}[r.IntN(3)], tk(), tk(), tk()}
	case 48:
		return []string{"hset", hk(), m(), v(), m(), v()}
	case 49:
		return []string{"hdel", hk(), m(), m()}
	case 50:
		return []string{[]string{"hincrby", "hincrbyfloat"}[r.IntN(2)], hk(), m(), n(-3, 3)}
	case 51:
		return []string{"hsetnx", hk(), m(), v()}
	case 41:
		return []string{"setbit", sk(), n(0, 40), n(0, 1)}
	case 52:
		return []string{"bitfield", sk(), "OVERFLOW", []string{"WRAP", "SAT", "FAIL"}[r.IntN(3)], "INCRBY", "i5", "#" + n(0, 6), n(-20, 20), "SET", "u3", n(0, 30), n(0, 9)}
	case 42:
		return []string{"bitop", []string{"AND", "OR", "XOR"}[r.IntN(3)], sk(), sk(), sk()}
	case 33:
		return []string{"set", sk(), v(), []string{"NX", "XX", "GET", "KEEPTTL"}[r.IntN(4)]}
	case 34:
		return []string{"set", sk(), v(), "PX", n(1, 400)}
	case 35:
		return []string{"append", sk(), v()}
	case 36:
		return []string{[]string{"incr", "decr"}[r.IntN(2)], sk()}
	case 37:
		return []string{"incrbyfloat", sk(), sc()}
	case 38:
		return []string{"setrange", sk(), n(0, 8), v()}
	case 39:
		return []string{"mset", sk(), v(), sk(), n(-3, 3)}
	case 40:
		return []string{[]string{"getdel", "getset"}[r.IntN(2)], sk(), v()}[:2+r.IntN(2)]
	case 26, 27:
		return []string{"pexpire", anyk(), n(-5, 400)}
	case 28:
		return []string{"expire", anyk(), n(1, 2), []string{"NX", "XX", "GT", "LT"}[r.IntN(4)]}
	case 29:
		return []string{"persist", anyk()}
	case 30:
		return []string{"copy", anyk(), anyk(), "REPLACE"}[:3+r.IntN(2)]
	case 31:
		return []string{"renamenx", anyk(), anyk()}
	case 32:
		return []string{"unlink", anyk()}
	case 0, 1:
		return []string{"lpush", lk(), v(), v()}
	case 2, 3:
		return []string{"rpush", lk(), v()}
	case 4:
		return []string{"lpop", lk()}
	case 5:
		return []string{"rpop", lk(), n(0, 3)}
	case 6:
		return []string{"lmove", lk(), lk(), side(), side()}
	case 7:
		return []string{"lset", lk(), n(-2, 2), v()}
	case 8:
		return []string{"linsert", lk(), []string{"BEFORE", "after"}[r.IntN(2)], v(), v()}
	case 9:
		return []string{"lrem", lk(), n(-2, 2), v()}
	case 10:
		return []string{"ltrim", lk(), n(-3, 2), n(-3, 3)}
	case 11:
		return []string{"lmpop", "2", lk(), lk(), side(), "COUNT", n(1, 3)}
	case 12, 13:
		return []string{"zadd", zk(), sc(), v(), sc(), v()}
	case 14:
		return []string{"zadd", zk(), []string{"NX", "XX", "GT", "LT", "CH"}[r.IntN(5)], sc(), v()}
	case 15:
		return []string{"zincrby", zk(), sc(), v()}
	case 16:
		return []string{"zrem", zk(), v(), v()}
	case 17:
		return []string{[]string{"zpopmin", "zpopmax"}[r.IntN(2)], zk(), n(1, 3)}
	case 18:
		return []string{"zremrangebyscore", zk(), "(1", "+inf"}
	case 19:
		return []string{"zremrangebyrank", zk(), n(-2, 1), n(-1, 2)}
	case 20:
		return []string{"zremrangebylex", zk(), "[v2", "+"}
	case 21:
		return []string{[]string{"zunionstore", "zinterstore"}[r.IntN(2)], zk(), "2", zk(), zk(), "WEIGHTS", "2", "0.5"}
	case 22:
		return []string{"zrangestore", zk(), zk(), "0", n(-1, 2)}
	case 23:
		return []string{"del", anyk(), anyk()}
	case 24:
		return []string{"rename", anyk(), anyk()}
	default:
		return []string{"zmpop", "2", zk(), zk(), []string{"MIN", "MAX"}[r.IntN(2)]}
	}
}

// TestPersistReplay runs random writes (Do, typed methods, Update batches) on a
// DB made by Open and on one made by New, compares every reply, takes snapshots at
// random moments and reopens the directory at random moments: the reopened DB must
// hold what the in-memory one holds.
func TestPersistReplay(t *testing.T) {
	seed := zTestSeed(t)
	r := rand.New(rand.NewPCG(seed, 0))
	ctx := context.Background()
	dir := t.TempDir()
	// One fake clock for both, moved on at each step: keys expire between commands.
	var clock atomic.Int64
	clock.Store(1e12)
	now := func() time.Time { return time.UnixMilli(clock.Load()) }
	mem := New(WithClock(now))
	db := openT(t, dir, WithSync(SyncNever), WithClock(now))
	defer func() { db.Close() }()
	for i := range 3000 {
		clock.Add(int64(r.IntN(40)))
		switch k := r.IntN(100); {
		case k < 3:
			if err := db.Snapshot(); err != nil {
				t.Fatalf("step %d: Snapshot: %v", i, err)
			}
		case k < 6:
			if err := db.Close(); err != nil {
				t.Fatalf("step %d: Close: %v", i, err)
			}
			db = openT(t, dir, WithSync(SyncNever), WithClock(now))
			if got, want := dump(t, db), dump(t, mem); !maps2Equal(got, want) {
				t.Fatalf("step %d: reopened: %v; want %v", i, got, want)
			}
		case k < 12:
			// A batch of a few commands.
			var cmds [][]string
			for range 1 + r.IntN(4) {
				cmds = append(cmds, randomWrite(r))
			}
			run := func(d *DB) []string {
				var out []string
				d.Update(func(tx *Tx) error {
					for _, c := range cmds {
						v, err := tx.Do(c...)
						out = append(out, fmt.Sprint(v, err))
					}
					return nil
				})
				return out
			}
			if got, want := run(db), run(mem); !slices.Equal(got, want) {
				t.Fatalf("step %d: Update(%q) = %q; want %q", i, cmds, got, want)
			}
		case k < 20:
			// Typed methods.
			key := []string{"l1", "l2", "z1"}[r.IntN(3)]
			run := func(d *DB) string {
				a, err1 := d.RPush(ctx, key, "t"+strconv.Itoa(i))
				b, err2 := d.ZAdd(ctx, "z"+key[1:], Z{Member: "t", Score: float64(i)})
				c, _, err3 := d.LPop(ctx, "l3")
				return fmt.Sprint(a, err1, b, err2, c, err3)
			}
			if got, want := run(db), run(mem); got != want {
				t.Fatalf("step %d: typed = %s; want %s", i, got, want)
			}
		default:
			c := randomWrite(r)
			v1, err1 := db.Do(ctx, c...)
			v2, err2 := mem.Do(ctx, c...)
			if got, want := fmt.Sprint(v1, err1), fmt.Sprint(v2, err2); got != want {
				t.Fatalf("step %d: Do(%q) = %s; want %s", i, c, got, want)
			}
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openT(t, dir, WithClock(now))
	if got, want := dump(t, db), dump(t, mem); !maps2Equal(got, want) {
		t.Fatalf("reopened at the end: %v; want %v", got, want)
	}
}

func maps2Equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// fullFS is the OS file system whose file writes fail with ENOSPC once full is set.
type fullFS struct {
	persist.OSFS
	full atomic.Bool
}

func (f *fullFS) OpenFile(name string, flag int, perm fs.FileMode) (persist.File, error) {
	fl, err := f.OSFS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return &fullFile{File: fl, fs: f}, nil
}

type fullFile struct {
	persist.File
	fs *fullFS
}

func (f *fullFile) Write(b []byte) (int, error) {
	if f.fs.full.Load() {
		return 0, syscall.ENOSPC
	}
	return f.File.Write(b)
}

// TestPersistDiskFull fills the disk under an Open DB: the write that meets it
// returns a MISCONF error matching ENOSPC, later writes are refused and change
// nothing, reads keep working, and a reopen finds the writes acknowledged before.
func TestPersistDiskFull(t *testing.T) {
	ctx := context.Background()
	for _, policy := range []persist.SyncPolicy{SyncAlways, SyncEverySecond} {
		t.Run(policy.String(), func(t *testing.T) {
			dir := t.TempDir()
			ffs := &fullFS{}
			db := openT(t, dir, WithSync(policy), WithPersistOptions(persist.WithFS(ffs)))
			if _, err := db.RPush(ctx, "l", "a", "b"); err != nil {
				t.Fatal(err)
			}
			ffs.full.Store(true)
			_, err := db.RPush(ctx, "l", "c")
			var me *MisconfError
			if !errors.As(err, &me) || !errors.Is(err, syscall.ENOSPC) || !errors.Is(err, persist.ErrFailed) {
				t.Fatalf("RPush on a full disk: %v; want a *MisconfError matching ENOSPC and persist.ErrFailed", err)
			}
			if want := "MISCONF Errors writing to the AOF file: no space left on device"; err.Error() != want {
				t.Errorf("error text %q; want %q", err.Error(), want)
			}
			// Refused before it changes anything, through every entry point.
			if _, err := db.ZAdd(ctx, "z", Z{Member: "m", Score: 1}); !errors.As(err, &me) {
				t.Errorf("ZAdd after the failure: %v; want MISCONF", err)
			}
			if _, err := db.Do(ctx, "LPUSH", "l", "x"); !errors.As(err, &me) {
				t.Errorf("Do(LPUSH) after the failure: %v; want MISCONF", err)
			}
			if err := db.Update(func(tx *Tx) error { _, err := tx.LPush("l", "y"); return err }); !errors.As(err, &me) {
				t.Errorf("Update after the failure: %v; want MISCONF", err)
			}
			// Reads work; memory holds the write that met the failure (as Redis would).
			if got, err := db.LRange(ctx, "l", 0, -1); err != nil || !slices.Equal(got, []string{"a", "b", "c"}) {
				t.Errorf("LRange = %q, %v; want [a b c]", got, err)
			}
			if n, _ := db.Exists(ctx, "z"); n != 0 {
				t.Errorf("refused ZAdd created z")
			}
			db.Close() // reports the failure
			ffs.full.Store(false)
			db = openT(t, dir)
			defer db.Close()
			if got, _ := db.LRange(ctx, "l", 0, -1); !slices.Equal(got, []string{"a", "b"}) {
				t.Errorf("after reopening: l = %q; want the acknowledged [a b]", got)
			}
		})
	}
}

// TestPersistBlocking checks that served blocking pops are logged as the pops
// they were: by a direct hand-off (the key did not exist), by the serve after a
// batch, and BLMOVE and BZPOPMIN; after a reopen nothing popped comes back.
func TestPersistBlocking(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openT(t, dir, WithSync(SyncAlways))
	blocked := func(n int64) {
		for db.Stats().Blocked != n {
			runtime.Gosched()
		}
	}
	type res struct {
		v   string
		err error
	}
	ch := make(chan res, 4)
	go func() {
		_, v, _, err := db.BLPop(ctx, 0, "q")
		ch <- res{v, err}
	}()
	go func() {
		v, _, err := db.BLMove(ctx, "q2", "dst", "LEFT", "RIGHT", 0)
		ch <- res{v, err}
	}()
	go func() {
		_, z, _, err := db.BZPopMin(ctx, 0, "z")
		ch <- res{z.Member, err}
	}()
	blocked(3)
	if _, err := db.RPush(ctx, "q", "a", "b"); err != nil { // hand-off of a
		t.Fatal(err)
	}
	if err := db.Update(func(tx *Tx) error { // served after the batch
		_, err := tx.RPush("q2", "c", "d")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ZAdd(ctx, "z", Z{Member: "m", Score: 1}); err != nil { // hand-off of m
		t.Fatal(err)
	}
	var got []string
	for range 3 {
		r := <-ch
		if r.err != nil {
			t.Fatal(r.err)
		}
		got = append(got, r.v)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"a", "c", "m"}) {
		t.Fatalf("served %q; want a, c, m", got)
	}
	want := dump(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openT(t, dir)
	defer db.Close()
	if got := dump(t, db); !maps2Equal(got, want) {
		t.Fatalf("reopened: %v; want %v", got, want)
	}
	if want["q"] != `list["b"] expireat=-1` || want["dst"] != `list["c"] expireat=-1` || want["z"] != "" {
		t.Fatalf("state %v; want q [b], dst [c], no z", want)
	}
}

// TestSnapshotWhileWriting writes to keys while snapshots of them are taken (so
// writers copy values not yet written, and the snapshot copies the others) and
// checks that a reopen finds exactly the final state: the snapshot is the state at
// its start, the log the writes after it.
func TestSnapshotWhileWriting(t *testing.T) {
	seed := zTestSeed(t)
	r := rand.New(rand.NewPCG(seed, 2))
	ctx := context.Background()
	dir := t.TempDir()
	db := openT(t, dir, WithSync(SyncNever), WithAutoSnapshot(-1, 0))
	for i := range 300 {
		items := make([]string, 200)
		for j := range items {
			items[j] = strconv.Itoa(j)
		}
		k := strconv.Itoa(i)
		db.RPush(ctx, "l"+k, items...)
		db.ZAdd(ctx, "z"+k, Z{Member: "a", Score: 1}, Z{Member: "b", Score: float64(i)})
	}
	writes := 0
	for range 3 {
		done := make(chan error)
		go func() { done <- db.Snapshot() }()
		for running := true; running; {
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				running = false
			default:
				writes++
				k := strconv.Itoa(r.IntN(300))
				switch r.IntN(5) {
				case 0:
					db.LPop(ctx, "l"+k)
				case 1:
					db.RPush(ctx, "l"+k, "x")
				case 2:
					db.Del(ctx, "z"+k)
				case 3:
					db.Rename(ctx, "l"+k, "l"+strconv.Itoa(r.IntN(300)))
				default:
					db.ZAdd(ctx, "z"+k, Z{Member: "c", Score: float64(r.IntN(9))})
				}
			}
		}
	}
	t.Logf("%d writes while 3 snapshots ran", writes)
	want := dump(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openT(t, dir)
	defer db.Close()
	if got := dump(t, db); !maps2Equal(got, want) {
		t.Fatalf("reopened after snapshots taken while writing: %d keys; want %d (or different values)", len(got), len(want))
	}
}

// TestCloseDuringSnapshot checks that Close waits for a Snapshot called before it
// (the snapshot ends before Close returns, so nothing writes in the directory once
// another Open may hold it) and that a Snapshot after Close is refused.
func TestCloseDuringSnapshot(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openT(t, dir, WithSync(SyncNever), WithAutoSnapshot(-1, 0))
	items := make([]string, 100)
	for j := range items {
		items[j] = strconv.Itoa(j)
	}
	for i := range 2000 {
		db.RPush(ctx, "l"+strconv.Itoa(i), items...)
	}
	want := dump(t, db)
	snapping := func() bool {
		db.dur.mu.Lock()
		defer db.dur.mu.Unlock()
		return db.dur.snapping
	}
	done := make(chan error, 1)
	go func() { done <- db.Snapshot() }()
	for !snapping() {
		runtime.Gosched()
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if snapping() {
		t.Fatal("Close returned while a Snapshot called before it was still running")
	}
	if err := <-done; err != nil {
		t.Fatalf("Snapshot started before Close = %v; want nil", err)
	}
	if err := db.Snapshot(); !errors.Is(err, persist.ErrClosed) {
		t.Fatalf("Snapshot after Close = %v; want persist.ErrClosed", err)
	}
	db = openT(t, dir)
	defer db.Close()
	if got := dump(t, db); !maps2Equal(got, want) {
		t.Fatalf("reopened: %d keys; want %d (or different values)", len(got), len(want))
	}
}

// TestAutoSnapshot checks that the log is compacted on its own once it outgrows
// the thresholds: the directory ends with a snapshot and a short log.
func TestAutoSnapshot(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openT(t, dir, WithSync(SyncNever), WithAutoSnapshot(100, 4096))
	for i := range 2000 {
		db.RPush(ctx, "q", strconv.Itoa(i))
		db.LPop(ctx, "q")
		db.dur.wg.Wait() // the compaction the write may have started: the log is then bounded
	}
	if err := db.Close(); err != nil { // waits for a compaction in progress
		t.Fatal(err)
	}
	var snaps int
	var logBytes int64
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		switch {
		case strings.HasPrefix(e.Name(), "snapshot-"):
			snaps++
		case strings.HasPrefix(e.Name(), "log-"):
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			// Without the zeros preallocated for a memory-mapped log.
			logBytes += int64(len(bytes.TrimRight(data, "\x00")))
		}
	}
	// 4000 records of ~20 bytes were logged; compaction keeps the log below the
	// threshold.
	if snaps != 1 || logBytes > 4096+64 {
		t.Fatalf("after 4000 writes: %d snapshots, %d log bytes; want 1 and a log near 4 KiB", snaps, logBytes)
	}
	db = openT(t, dir)
	defer db.Close()
	if n, _ := db.Exists(ctx, "q"); n != 0 {
		t.Fatalf("q exists after reopening; every element was popped")
	}
}

// TestPersistRandomPops checks that SPOP, whose choice is random, is logged as the
// removal of what it chose: a reopened DB holds the sets the pops left, from the
// log and from a snapshot.
func TestPersistRandomPops(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openT(t, dir)
	members := make([]string, 700)
	for i := range members {
		members[i] = strconv.Itoa(i * 3)
	}
	for _, k := range []string{"ints", "strs"} {
		if _, err := db.SAdd(ctx, k, members[:300]...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.SAdd(ctx, "strs", "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SAdd(ctx, "big", members...); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"ints", "strs", "big"} {
		for range 5 {
			if _, _, err := db.SPop(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.SPopN(ctx, k, 40); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Do(ctx, "spop", "small", "0"); err != nil {
		t.Fatal(err)
	}
	db.SAdd(ctx, "gone", "a", "b")
	db.SPopN(ctx, "gone", 5)
	want := dump(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = openT(t, dir)
	if got := dump(t, db); !maps2Equal(got, want) {
		t.Fatalf("reopened from the log: %d keys, want %d", len(got), len(want))
	}
	if err := db.Snapshot(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = openT(t, dir)
	defer db.Close()
	if got := dump(t, db); !maps2Equal(got, want) {
		t.Fatalf("reopened from the snapshot: %d keys, want %d", len(got), len(want))
	}
}
