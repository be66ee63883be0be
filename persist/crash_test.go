package persist

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/zlite/zlite/internal/testmain"
)

// The crash test re-executes the test binary as a child (TestMain sees crashChildEnv),
// which appends records from several goroutines, takes a snapshot every snapEvery
// records, and prints the sequence number of each acknowledged record. The parent
// SIGKILLs it after a random number of acknowledgements, reopens the directory and
// checks that the state is records 1..M exactly (whole, in order, none half there) with
// every acknowledged number ≤ M. Under EverySecond and Never the child's log is
// memory-mapped (on Linux), so a kill can come in the middle of a record's copy.
const (
	crashChildEnv  = "PERSIST_CRASH_DIR"
	crashSyncEnv   = "PERSIST_CRASH_SYNC"
	crashWriters   = 4
	crashSnapEvery = 64
)

// crashPayload is record n's payload: its number and filler derived from it.
func crashPayload(n int) string {
	return fmt.Sprintf("seq=%d;%s", n, strings.Repeat(string(rune('a'+n%26)), n*7%200))
}

// crashLargePayload is record n's payload in TestCrashLarge: its number and up to
// 64 KiB of filler derived from it (a quarter of them under 200 bytes).
func crashLargePayload(n int) string {
	size := n * 7919 % (64 << 10)
	if n%4 == 0 {
		size %= 200
	}
	return fmt.Sprintf("seq=%d;%s", n, strings.Repeat(string(rune('a'+n%26)), size))
}

// crashState loads dir and returns the last record number, checking that the
// snapshot and the log hold records 1..last of crashPayload exactly.
func crashState(dir string, opts ...Option) (*Store, int, error) {
	return crashStateOf(dir, crashPayload, opts...)
}

// crashStateOf is crashState for records whose payloads are payload(1), payload(2)...
func crashStateOf(dir string, payload func(int) string, opts ...Option) (*Store, int, error) {
	m := newModel()
	s, err := Open(dir, m, opts...)
	if err != nil {
		return nil, 0, err
	}
	last := 0
	if upto := m.lists["upto"]; len(upto) == 1 {
		last, _ = strconv.Atoi(upto[0])
	}
	for _, r := range m.records {
		last++
		if want := payload(last); r != want {
			s.Close()
			return nil, 0, fmt.Errorf("record %d is %.40q, want %.40q", last, r, want)
		}
	}
	return s, last, nil
}

// crashChild is the child's main; it runs until killed. With crashLargeEnv set it
// writes TestCrashLarge's records, with a snapshot every crashLargeSnapEvery, and
// copies into the mapped log as crashCopyEnv says (crashCopy).
func crashChild() int {
	dir := os.Getenv(crashChildEnv)
	p, _ := strconv.Atoi(os.Getenv(crashSyncEnv))
	payload, snapEvery := crashPayload, crashSnapEvery
	if os.Getenv(crashLargeEnv) != "" {
		payload, snapEvery = crashLargePayload, crashLargeSnapEvery
	}
	s, last, err := crashStateOf(dir, payload, WithSync(SyncPolicy(p)))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child: open:", err)
		return 3
	}
	var ackMu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	if err := crashCopy(os.Getenv(crashCopyEnv), s, func() {
		ackMu.Lock()
		fmt.Fprintln(out, crashStopLine)
		out.Flush()
		ackMu.Unlock()
	}); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 3
	}
	if SyncPolicy(p) != Always && defaultMapper != nil && !s.mapped {
		fmt.Fprintln(os.Stderr, "child: the log is not memory-mapped")
		return 5
	}
	var mu sync.Mutex // plays the keyspace lock
	fail := make(chan error, crashWriters+1)
	for range crashWriters {
		go func() {
			for {
				mu.Lock()
				last++
				n := last
				pos, err := s.Append([]byte(payload(n)))
				var w *SnapshotWriter
				if err == nil && n%snapEvery == 0 {
					w, err = s.StartSnapshot()
					if errors.Is(err, ErrSnapshotInProgress) {
						err = nil
					}
				}
				mu.Unlock()
				if err != nil {
					fail <- err
					return
				}
				if w != nil {
					go func() {
						up := strconv.Itoa(n)
						w.WriteList("upto", 0, func(yield func(string) bool) { yield(up) })
						w.WriteZSet("z", 1700000000000, func(yield func(string, float64) bool) {
							_ = yield("a", 1.5) && yield("b", float64(n))
						})
						if err := w.Commit(); err != nil {
							fail <- err
						}
					}()
				}
				if err := s.Wait(pos); err != nil {
					fail <- err
					return
				}
				ackMu.Lock()
				fmt.Fprintln(out, n)
				out.Flush()
				ackMu.Unlock()
			}
		}()
	}
	fmt.Fprintln(os.Stderr, "child:", <-fail)
	return 4
}

func TestCrashSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary; skipped with -short")
	}
	tests := []struct {
		sync    SyncPolicy
		rounds  int
		maxAcks int
	}{
		{Always, 12, 120},
		{EverySecond, 12, 1500},
		{Never, 6, 1500},
	}
	for _, tc := range tests {
		t.Run("sync="+tc.sync.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(testmain.Seed(t), 0))
			dir := t.TempDir()
			total, torn := 0, 0
			for round := range tc.rounds {
				killAfter := rng.IntN(tc.maxAcks + 1)
				if round == 0 {
					killAfter = max(killAfter, crashSnapEvery*2) // make sure snapshots happen
				}
				maxAck, _, err := crashRound(dir, tc.sync, killAfter)
				if err != nil {
					t.Fatalf("round %d (kill after %d acks): %v", round, killAfter, err)
				}
				var q quietLogger
				s, last, err := crashState(dir, WithLogger(q.logger()))
				if strings.Contains(q.String(), "torn final record") {
					torn++
				}
				if err != nil {
					t.Fatalf("round %d: reopen: %v", round, err)
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				if maxAck > last {
					t.Fatalf("round %d: record %d was acknowledged but the store holds only 1..%d", round, maxAck, last)
				}
				if last < total {
					t.Fatalf("round %d: store holds 1..%d, fewer than the %d of the round before", round, last, total)
				}
				total = last
			}
			t.Logf("%d rounds, %d records in the end, a torn final record dropped after %d kills", tc.rounds, total, torn)
		})
	}
}

// crashRound runs the child on dir, with env added to its environment, until it has
// acknowledged killAfter records or reported that it stopped inside a copy
// (crashStopLine), kills it with SIGKILL and returns the highest acknowledged record
// number and whether it had stopped.
func crashRound(dir string, p SyncPolicy, killAfter int, env ...string) (int, bool, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir, crashSyncEnv+"="+strconv.Itoa(int(p)))
	cmd.Env = append(cmd.Env, env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, false, err
	}
	if err := cmd.Start(); err != nil {
		return 0, false, err
	}
	sc := bufio.NewScanner(out)
	maxAck, acks := 0, 0
	killed, stopped := false, false
	kill := func() {
		if !killed {
			cmd.Process.Signal(syscall.SIGKILL)
			killed = true
		}
	}
	if killAfter == 0 {
		kill()
	}
	for sc.Scan() {
		if sc.Text() == crashStopLine {
			stopped = true
			kill()
			continue
		}
		n, err := strconv.Atoi(sc.Text())
		if err != nil {
			kill()
			cmd.Wait()
			return 0, false, fmt.Errorf("child printed %q", sc.Text())
		}
		maxAck = max(maxAck, n)
		if acks++; acks >= killAfter {
			kill()
		}
	}
	io.Copy(io.Discard, out)
	err = cmd.Wait()
	if strings.Contains(stderr.String(), "DATA RACE") {
		return 0, false, fmt.Errorf("the child found a data race: %s", stderr.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		return 0, false, fmt.Errorf("child ended with %v, not by SIGKILL; stderr: %s", err, stderr.String())
	}
	return maxAck, stopped, nil
}

// TestCrashLarge is TestCrashSIGKILL's check with records of up to 64 KiB and a
// snapshot every crashLargeSnapEvery records, so that records often wait in the
// buffer during a rotation and reach the mapped log through a flusher's copy. Its
// rounds take turns with three ways of copying into the mapping (crashCopy): the
// real copy, killed at a random acknowledgement; a slow copy storing a payload's
// last bytes first, killed likewise (the kill then often lands inside a copy); and
// a copy that stops halfway, in a random one of a flusher's copies of records that
// waited in the buffer, and tells the parent, which kills it there. Every state
// left must reopen, with every acknowledged record. PERSIST_CRASH_ROUNDS sets the
// rounds per policy (default crashLargeRounds), for a long campaign.
func TestCrashLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary; skipped with -short")
	}
	if defaultMapper == nil {
		t.Skip("logs are not memory-mapped on this platform")
	}
	rounds := crashLargeRounds
	if v := os.Getenv("PERSIST_CRASH_ROUNDS"); v != "" {
		var err error
		if rounds, err = strconv.Atoi(v); err != nil || rounds < 1 {
			t.Fatalf("PERSIST_CRASH_ROUNDS=%q: want a positive number", v)
		}
	}
	for _, p := range []SyncPolicy{EverySecond, Never} {
		t.Run("sync="+p.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(testmain.Seed(t), 0))
			dir := t.TempDir()
			total := 0
			var kills, stops [3]int
			torn := 0
			for round := range rounds {
				mode := round % 3
				env := []string{crashLargeEnv + "=1"}
				killAfter := 1 + rng.IntN(crashLargeMaxAcks)
				switch mode {
				case 1:
					env = append(env, crashCopyEnv+"=slow")
					killAfter = 1 + killAfter/4 // at about a thousand acks a second
				case 2:
					env = append(env, crashCopyEnv+"=stop:"+strconv.Itoa(1+rng.IntN(2*crashLargeSnapEvery)))
					killAfter = crashStopAcks // killed when it stops, long before
				}
				maxAck, stopped, err := crashRound(dir, p, killAfter, env...)
				if err != nil {
					t.Fatalf("round %d (%q, kill after %d acks): %v", round, env, killAfter, err)
				}
				kills[mode]++
				if stopped {
					stops[mode]++
				}
				var q quietLogger
				s, last, err := crashStateOf(dir, crashLargePayload, WithLogger(q.logger()))
				if err != nil {
					t.Fatalf("round %d (%q, kill after %d acks, stopped in a copy: %v): reopen: %v", round, env, killAfter, stopped, err)
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				if strings.Contains(q.String(), "torn final record") {
					torn++
				}
				if maxAck > last {
					t.Fatalf("round %d (%q): record %d was acknowledged but the store holds only 1..%d", round, env, maxAck, last)
				}
				if last < total {
					t.Fatalf("round %d (%q): store holds 1..%d, fewer than the %d of the round before", round, env, last, total)
				}
				total = last
			}
			if stops[2] != kills[2] {
				t.Fatalf("%d of %d children told to stop inside a copy did", stops[2], kills[2])
			}
			t.Logf("%d kills (%d with the real copy, %d with the slow one, %d stopped halfway through a flusher's copy), %d records in the end, a torn tail dropped after %d",
				rounds, kills[0], kills[1], kills[2], total, torn)
		})
	}
}

// TestCrashLarge's child and rounds.
const (
	crashLargeEnv       = "PERSIST_CRASH_LARGE"
	crashCopyEnv        = "PERSIST_CRASH_COPY"
	crashStopLine       = "stopped in a copy"
	crashLargeSnapEvery = 8
	crashLargeMaxAcks   = 300
	crashLargeRounds    = 30
	// crashStopAcks ends a round whose child was told to stop in a copy and did
	// not (seconds of acks; the test then fails).
	crashStopAcks = 20000
	// crashStopMin is the smallest copy that crashCopy's "slow" and "stop:k"
	// change.
	crashStopMin = 4 << 10
)

// crashCopy sets testCopy, for s, as mode says: "" leaves copy; "slow" copies a
// payload of crashStopMin bytes or more in 8 KiB pieces, its last piece first,
// sleeping between them; "stop:k" stops in the k-th copy of crashStopMin bytes or
// more that a flusher makes, with the second half of it copied: it calls stopped
// and sleeps until killed. (While a flusher runs, no Append copies into the
// mapping: a copy made then, from a goroutine not holding s.mu, is the flusher's.)
func crashCopy(mode string, s *Store, stopped func()) error {
	switch k, isStop := strings.CutPrefix(mode, "stop:"); {
	case mode == "":
	case mode == "slow":
		testCopy = func(dst, src []byte) {
			const piece = 8 << 10
			if len(src) < crashStopMin {
				copy(dst, src)
				return
			}
			for end := len(src); end > 0; end -= piece {
				from := max(end-piece, 0)
				copy(dst[from:end], src[from:end])
				time.Sleep(20 * time.Microsecond)
			}
		}
	case isStop:
		n, err := strconv.Atoi(k)
		if err != nil || n < 1 {
			return fmt.Errorf("%s=%q: want stop:<a positive count>", crashCopyEnv, mode)
		}
		var seen atomic.Int64
		testCopy = func(dst, src []byte) {
			if len(src) < crashStopMin || !flushing(s) || seen.Add(1) != int64(n) {
				copy(dst, src)
				return
			}
			half := len(src) / 2
			copy(dst[half:], src[half:])
			stopped()
			for {
				time.Sleep(time.Hour) // a sleep, not a select{}: the runtime would call a blocked process a deadlock
			}
		}
	default:
		return fmt.Errorf("%s=%q: want \"\", \"slow\" or \"stop:<count>\"", crashCopyEnv, mode)
	}
	return nil
}

// flushing reports whether a flusher is running on s, false when s.mu is held
// (by the caller, an Append copying under it, or by another goroutine).
func flushing(s *Store) bool {
	if !s.mu.TryLock() {
		return false
	}
	defer s.mu.Unlock()
	return s.flushing
}

// The lock-free crash test: the child's writers append without a common lock (as
// the keyspace's writers of different shards do), so that on a mapped log their
// copies overlap and a SIGKILL can leave holes followed by records (format version
// 3). Writer w appends "w=<w>;n=<n>" for n = 1, 2, ... (after n-1's Append
// returned) and prints "w n" once it is acknowledged. The parent checks that each
// writer's records in the reopened store are 1..M_w, in order, with every
// acknowledged n ≤ M_w: a hole only ever holds a record whose Append had not
// returned, and never separates two records of one writer.
const (
	crashFreeEnv     = "PERSIST_CRASH_FREE"
	crashFreeWriters = 8
)

func crashFreePayload(w, n int) string {
	return fmt.Sprintf("w=%d;n=%d;%s", w, n, strings.Repeat("x", n*13%300))
}

// crashFreeChild is the child of TestCrashLockFree.
func crashFreeChild() int {
	dir := os.Getenv(crashChildEnv)
	p, _ := strconv.Atoi(os.Getenv(crashSyncEnv))
	// Small preallocations, so that lock-free appends stop and start often.
	m := newModel()
	s, err := Open(dir, m, WithSync(SyncPolicy(p)), withPrealloc(64<<10, 4<<10))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child: open:", err)
		return 3
	}
	last, err := crashFreeLast(m.records)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 3
	}
	if defaultMapper != nil && !s.mapped {
		fmt.Fprintln(os.Stderr, "child: the log is not memory-mapped")
		return 5
	}
	var ackMu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	fail := make(chan error, crashFreeWriters)
	for w := range crashFreeWriters {
		go func() {
			for n := last[w] + 1; ; n++ {
				pos, err := s.Append([]byte(crashFreePayload(w, n)))
				if err == nil {
					err = s.Wait(pos)
				}
				if err != nil {
					fail <- err
					return
				}
				ackMu.Lock()
				fmt.Fprintln(out, w, n)
				out.Flush()
				ackMu.Unlock()
			}
		}()
	}
	fmt.Fprintln(os.Stderr, "child:", <-fail)
	return 4
}

func TestCrashLockFree(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary; skipped with -short")
	}
	for _, p := range []SyncPolicy{EverySecond, Never} {
		t.Run("sync="+p.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(testmain.Seed(t), 0))
			dir := t.TempDir()
			const rounds = 20
			holes, torn := 0, 0
			for round := range rounds {
				killAfter := 1 + rng.IntN(3000)
				acked, err := crashFreeRound(dir, p, killAfter)
				if err != nil {
					t.Fatalf("round %d (kill after %d acks): %v", round, killAfter, err)
				}
				var q quietLogger
				m := newModel()
				s, err := Open(dir, m, WithLogger(q.logger()))
				if err != nil {
					t.Fatalf("round %d: reopen: %v", round, err)
				}
				s.Close()
				if strings.Contains(q.String(), "unfinished records skipped") {
					holes++
				}
				if strings.Contains(q.String(), "torn final record") {
					torn++
				}
				last, err := crashFreeLast(m.records)
				if err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				for w, n := range acked {
					if n > last[w] {
						t.Fatalf("round %d: writer %d's record %d was acknowledged but the store holds only 1..%d", round, w, n, last[w])
					}
				}
			}
			t.Logf("%d rounds: holes followed by records skipped at %d reopenings, a torn tail dropped at %d", rounds, holes, torn)
		})
	}
}

// crashFreeLast checks that records hold, for each writer w, its records 1..M_w in
// order, and returns the M_w.
func crashFreeLast(records []string) ([]int, error) {
	last := make([]int, crashFreeWriters)
	for _, r := range records {
		var w, n int
		if _, err := fmt.Sscanf(r, "w=%d;n=%d;", &w, &n); err != nil || w < 0 || w >= crashFreeWriters {
			return nil, fmt.Errorf("record %.40q", r)
		}
		if n != last[w]+1 || r != crashFreePayload(w, n) {
			return nil, fmt.Errorf("writer %d's record %d follows its record %d (%.40q)", w, n, last[w], r)
		}
		last[w] = n
	}
	return last, nil
}

// crashFreeRound runs crashFreeChild on dir until it has acknowledged killAfter
// records, kills it with SIGKILL and returns each writer's highest acknowledged
// record.
func crashFreeRound(dir string, p SyncPolicy, killAfter int) ([]int, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir, crashSyncEnv+"="+strconv.Itoa(int(p)), crashFreeEnv+"=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(out)
	acked := make([]int, crashFreeWriters)
	acks := 0
	for sc.Scan() {
		var w, n int
		if _, err := fmt.Sscan(sc.Text(), &w, &n); err != nil || w < 0 || w >= crashFreeWriters {
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			return nil, fmt.Errorf("child printed %q", sc.Text())
		}
		acked[w] = max(acked[w], n)
		if acks++; acks == killAfter {
			cmd.Process.Signal(syscall.SIGKILL)
		}
	}
	io.Copy(io.Discard, out)
	err = cmd.Wait()
	if strings.Contains(stderr.String(), "DATA RACE") {
		return nil, fmt.Errorf("the child found a data race: %s", stderr.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		return nil, fmt.Errorf("child ended with %v, not by SIGKILL; stderr: %s", err, stderr.String())
	}
	return acked, nil
}
