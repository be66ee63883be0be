package zlite

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zlite/zlite/persist"
)

// The crash test: a child process (this test binary, run again as
// TestCrashChild) writes to a DB made by Open and prints each acknowledgement to
// its stdout, a pipe; the parent SIGKILLs it at a random moment, reopens the
// directory and checks that every acknowledged write is there and that no batch is
// half-applied. Rounds share the directory (each round's keys have their own
// prefix), so every round also reopens after the crashes before it, and snapshots
// (explicit and automatic) are interrupted by the kills.

const crashEnv = "ZLITE_CRASH_CHILD" // dir,policy,prefix

// TestCrashChild is the child's workload; it does nothing unless run by TestCrash.
//
// Keys, per round prefix p:
//   - p:ua (list), p:ub (sorted set), p:uh (hash), p:us (set) and p:uc (string):
//     one Update batch per i pushes i on the list, adds it to the sorted set, the
//     hash (field and value i) and the set, and increments the counter;
//     acknowledged "u i".
//   - p:q: RPUSH i ("q+ i") and LPOP ("q- v") in turn, so it holds a range of i.
//   - p:bq: RPUSH i ("b+ i") from the main loop, BLPOP from another goroutine
//     ("b- v"), served by hand-off or after the push.
func TestCrashChild(t *testing.T) {
	env := os.Getenv(crashEnv)
	if env == "" {
		t.Skip("run by TestCrash")
	}
	parts := strings.Split(env, ",")
	dir, p := parts[0], parts[2]
	policy := map[string]persist.SyncPolicy{"always": SyncAlways, "everysec": SyncEverySecond, "no": SyncNever}[parts[1]]
	db, err := Open(dir, WithSync(policy), WithAutoSnapshot(50, 16<<10))
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(3)
	}
	ctx := context.Background()
	var mu sync.Mutex
	ack := func(format string, args ...any) {
		mu.Lock()
		fmt.Fprintf(os.Stdout, format+"\n", args...)
		mu.Unlock()
	}
	die := func(what string, err error) {
		ack("error %s: %v", what, err)
		os.Exit(4)
	}
	go func() {
		for {
			_, v, ok, err := db.BLPop(ctx, 0, p+":bq")
			if err != nil || !ok {
				die("blpop", err)
			}
			ack("b- %s", v)
		}
	}()
	go func() {
		for {
			if err := db.Snapshot(); err != nil && !strings.Contains(err.Error(), "in progress") {
				die("snapshot", err)
			}
			time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond) // pacing, not synchronization
		}
	}()
	for i := 1; ; i++ {
		s := strconv.Itoa(i)
		err := db.Update(func(tx *Tx) error {
			if _, err := tx.RPush(p+":ua", s); err != nil {
				return err
			}
			if _, err := tx.ZAdd(p+":ub", Z{Member: s, Score: float64(i)}); err != nil {
				return err
			}
			if _, err := tx.HSet(p+":uh", s, s); err != nil {
				return err
			}
			if _, err := tx.SAdd(p+":us", s); err != nil {
				return err
			}
			_, err := tx.Incr(p + ":uc")
			return err
		})
		if err != nil {
			die("update", err)
		}
		ack("u %d", i)
		if _, err := db.RPush(ctx, p+":q", s); err != nil {
			die("rpush", err)
		}
		ack("q+ %d", i)
		if i%2 == 0 {
			v, ok, err := db.LPop(ctx, p+":q")
			if err != nil || !ok {
				die("lpop", err)
			}
			ack("q- %s", v)
		}
		if _, err := db.Do(ctx, "RPUSH", p+":bq", s); err != nil {
			die("rpush bq", err)
		}
		ack("b+ %d", i)
	}
}

// crashAcks is what a child acknowledged: the highest i of each kind.
type crashAcks struct{ u, qPush, qPop, bPush, bPop int }

func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("forks child processes")
	}
	seed := zTestSeed(t)
	r := rand.New(rand.NewPCG(seed, 1))
	dir := t.TempDir()
	// EverySecond and Never write through a memory-mapped log (on Linux), Always
	// with write(2); switching policies between rounds reopens each kind of log with
	// the other path.
	rounds := []string{"always", "always", "always", "always", "always", "always", "everysec", "everysec", "everysec", "always",
		"no", "no", "everysec", "always"}
	for round, policy := range rounds {
		p := "r" + strconv.Itoa(round)
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+dir+","+policy+","+p)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill after a random time, reading acknowledgements meanwhile; the pipe keeps
		// what was written before the kill.
		kill := time.AfterFunc(time.Duration(30+r.IntN(250))*time.Millisecond, func() { cmd.Process.Signal(syscall.SIGKILL) })
		var a crashAcks
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var kind string
			var n int
			if _, err := fmt.Sscanf(sc.Text(), "%s %d", &kind, &n); err != nil {
				continue // the test framework's own output
			}
			switch kind {
			case "u":
				a.u = n
			case "q+":
				a.qPush = n
			case "q-":
				a.qPop = n
			case "b+":
				a.bPush = n
			case "b-":
				a.bPop = max(a.bPop, n)
			case "error":
				t.Fatalf("round %d: child: %s", round, sc.Text())
			}
		}
		kill.Stop()
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		db := openT(t, dir)
		checkCrash(t, db, round, policy, p, a)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// checkCrash checks round's keys after a kill against the acknowledgements a.
func checkCrash(t *testing.T, db *DB, round int, policy, p string, a crashAcks) {
	t.Helper()
	ctx := context.Background()
	ints := func(vs []string) []int {
		out := make([]int, len(vs))
		for i, v := range vs {
			out[i], _ = strconv.Atoi(v)
		}
		return out
	}
	numeric := func(x, y string) int { n, _ := strconv.Atoi(x); m, _ := strconv.Atoi(y); return n - m }
	ua, _ := db.LRange(ctx, p+":ua", 0, -1)
	ub, _ := db.ZRange(ctx, p+":ub", 0, -1)
	slices.SortFunc(ub, numeric)
	uh, _ := db.HKeys(ctx, p+":uh")
	slices.SortFunc(uh, numeric)
	us, _ := db.SMembers(ctx, p+":us")
	slices.SortFunc(us, numeric)
	uc, _, _ := db.Get(ctx, p+":uc")
	if !slices.Equal(ua, ub) || !slices.Equal(ua, uh) || !slices.Equal(ua, us) || len(ua) > 0 && uc != strconv.Itoa(len(ua)) {
		t.Fatalf("round %d (%s): a batch is half-applied: %d list items, %d sorted-set members, %d hash fields, %d set members, counter %q",
			round, policy, len(ua), len(ub), len(uh), len(us), uc)
	}
	if len(ua) < a.u {
		t.Fatalf("round %d (%s): %d batches after acknowledging %d", round, policy, len(ua), a.u)
	}
	// q and bq hold a contiguous range [lo, hi): every acknowledged push that was not
	// popped is there, no acknowledged pop came back, and at most the one command
	// in flight was applied without its acknowledgement.
	for _, c := range []struct {
		key       string
		push, pop int
	}{{p + ":q", a.qPush, a.qPop}, {p + ":bq", a.bPush, a.bPop}} {
		// A pop's acknowledgement may come before its push's (BLPOP runs in another
		// goroutine): a popped element was pushed.
		c.push = max(c.push, c.pop)
		vs, _ := db.LRange(ctx, c.key, 0, -1)
		is := ints(vs)
		lo, hi := c.push+1, c.push+1 // empty: every push was popped
		if len(is) > 0 {
			lo, hi = is[0], is[len(is)-1]+1
			for j, v := range is {
				if v != lo+j {
					t.Fatalf("round %d (%s): %s = %v is not a range", round, policy, c.key, is)
				}
			}
		}
		if lo < c.pop+1 || lo > c.pop+2 || hi < c.push+1 || hi > c.push+2 {
			t.Fatalf("round %d (%s): %s = [%d, %d) after acknowledging pushes to %d and pops to %d",
				round, policy, c.key, lo, hi, c.push, c.pop)
		}
	}
	t.Logf("round %d (%s): %d batches, q to %d/%d, bq to %d/%d acknowledged", round, policy, a.u, a.qPush, a.qPop, a.bPush, a.bPop)
}
