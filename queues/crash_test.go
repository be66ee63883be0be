package queues_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/internal/redistest"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
	"github.com/zlite/zlite/queues/redisq"
)

// The crash tests of the Reliable queue's guarantees. A worker runs in a child
// process (crash_child_test.go) and reports each call after it returned; the
// parent SIGKILLs it at a point it chooses, then reads the queue's keys (on the
// redis-server, or from the zlite directory it reopens) and checks them against a
// model built from the reports: every reported push is there, no reported ack came
// back, every element is in exactly one of ready, processing, retry and dead, and
// its attempts, last error and enqueue time are the ones the reports imply. Then
// the parent drains the queue with several consumers and Reap, on a fake clock
// moved past the child's leases, and checks that no element was lost (each is acked
// exactly once, or dead) and none was acked twice, and that each lease the child
// died holding came back with its attempt counted and the reason "lease expired".
//
// In lockstep rounds the child waits after each report, so the parent knows its
// state exactly when it dies. In the other rounds it runs on, and the kill lands in
// the middle of whatever it does; the checks then allow for the one call the child
// had started and not reported (a push that is there, a pop that took an element,
// an Ack or Fail of its last delivery that was applied), and only for that one.

// crashWhere is where the model says an element is.
type crashWhere int

const (
	// crashWaiting: in ready or in the retry set (Pop and Reap move due retries to
	// ready without a report).
	crashWaiting crashWhere = iota
	crashProcessing
	crashDead
	crashAcked
)

func (w crashWhere) String() string {
	return [...]string{"waiting", "processing", "dead", "acked"}[w]
}

// crashJob is the model of one element.
type crashJob struct {
	id, payload string
	enq         int64 // enqueue time, Unix µs
	where       crashWhere
	failures    int64
	lastErr     string
	failedAt    int64 // the child's clock at its last Fail of the element, 0: none
	leased      bool  // in processing with a lease
	popAt       int64 // the child's clock when it popped the element, 0: unknown
	// childAttempt is the attempt of the child's last delivery of the element;
	// held says the child died with the element in processing, returned that the
	// parent has had it delivered since.
	childAttempt   int64
	held, returned bool
	diedOf         string // the reason of the failure that sent it to the dead set
	acks           int    // Acks that returned true, the child's and the parent's
}

// crashModel is what the child's reports and the parent's own calls imply about a
// queue. Its methods are called with mu held, or by one goroutine.
type crashModel struct {
	mu          sync.Mutex
	maxAttempts int64
	jobs        map[string]*crashJob
	order       []string // ids in push order
	events      int
	now         int64  // the child's clock at its last report
	pending     string // the child's last pop, whose outcome it has not reported yet
	done        bool   // the child reported the end of its steps
	// counts for the log
	childAcks, childFails, holds, parentAcks, parentFails, expired int
}

func newCrashModel(maxAttempts int64) *crashModel {
	return &crashModel{maxAttempts: maxAttempts, jobs: map[string]*crashJob{}}
}

func (m *crashModel) add(id, payload string, enq int64) *crashJob {
	j := &crashJob{id: id, payload: payload, enq: enq}
	m.jobs[id] = j
	m.order = append(m.order, id)
	return j
}

// fail records a failed delivery of j, which is in processing.
func (m *crashModel) fail(j *crashJob, reason string) {
	j.failures++
	j.lastErr = reason
	j.leased = false
	if m.maxAttempts > 0 && j.failures >= m.maxAttempts {
		j.where, j.diedOf = crashDead, reason
		return
	}
	j.where = crashWaiting
}

// count returns how many elements are where.
func (m *crashModel) count(where crashWhere) int {
	n := 0
	for _, j := range m.jobs {
		if j.where == where {
			n++
		}
	}
	return n
}

// retrying returns how many elements the child failed wait out a retry delay that
// ends more than margin after the child's clock.
func (m *crashModel) retrying(margin time.Duration) int {
	n := 0
	for _, j := range m.jobs {
		if j.where != crashWaiting || j.failedAt == 0 {
			continue
		}
		// As queues' retryDue computes it, for the first element of a step.
		d := math.Min(float64(crashBase.Microseconds())*math.Pow(2, float64(j.failures-1)), float64(crashMax.Microseconds()))
		due := int64(float64(j.failedAt) + d + math.Floor(d*crashJitter*crashRand))
		if due > m.now+margin.Microseconds() {
			n++
		}
	}
	return n
}

// apply applies one report of the child and checks the delivery it reports.
func (m *crashModel) apply(ev string) error {
	m.events++
	kind, rest, _ := strings.Cut(ev, " ")
	bad := func(err error) error { return fmt.Errorf("event %d %q: %w", m.events, ev, err) }
	// finished is the job of an outcome report: the child's last pop.
	finished := func() (*crashJob, error) {
		if rest != m.pending {
			return nil, bad(fmt.Errorf("the last pop was %q", m.pending))
		}
		m.pending = ""
		return m.jobs[rest], nil
	}
	switch kind {
	case "push":
		var id, payload string
		var now int64
		if _, err := fmt.Sscanf(rest, "%s %s %d", &id, &payload, &now); err != nil {
			return bad(err)
		}
		if m.jobs[id] != nil {
			return bad(errors.New("the id of an earlier push"))
		}
		m.add(id, payload, now)
		m.now = now
	case "pop":
		var id, payload, lastErr string
		var attempt, enq, now int64
		if _, err := fmt.Sscanf(rest, "%s %s %d %d %d %q", &id, &payload, &attempt, &enq, &now, &lastErr); err != nil {
			return bad(err)
		}
		j := m.jobs[id]
		switch {
		case j == nil:
			return bad(errors.New("delivered an element never pushed"))
		case j.where != crashWaiting:
			return bad(fmt.Errorf("delivered an element that was %v", j.where))
		case payload != j.payload || attempt != j.failures+1 || lastErr != j.lastErr || enq != j.enq:
			return bad(fmt.Errorf("delivery (%s, attempt %d, %q, enqueued %d); want (%s, attempt %d, %q, enqueued %d)",
				payload, attempt, lastErr, enq, j.payload, j.failures+1, j.lastErr, j.enq))
		}
		j.where, j.leased, j.popAt, j.childAttempt = crashProcessing, true, now, attempt
		m.pending, m.now = id, now
	case "ack":
		j, err := finished()
		if err != nil {
			return err
		}
		j.where = crashAcked
		j.acks++
		m.childAcks++
	case "fail":
		j, err := finished()
		if err != nil {
			return err
		}
		m.fail(j, crashReason)
		j.failedAt = m.now
		m.childFails++
	case "hold":
		if _, err := finished(); err != nil {
			return err
		}
		m.holds++
	case "done":
		m.done = true
	default:
		return bad(errors.New("unexpected report"))
	}
	return nil
}

// runCrashChild starts a child with cfg, applies its reports to m, SIGKILLs it as
// soon as kill(m) holds after a report, and returns once it is dead and every
// report it wrote before it died is applied. It returns the number of reports
// after which it decided to kill.
func runCrashChild(t *testing.T, m *crashModel, cfg crashChildConfig, kill func(m *crashModel) bool) int {
	t.Helper()
	env, err := json.Marshal(cfg)
	require.NoError(t, err)
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChildReliable$", "-test.count=1", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+string(env))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { // on every path, so that no child outlives its test
		_ = cmd.Process.Kill()
		_ = stdin.Close()
		_ = cmd.Wait()
	}()
	// fatal ends the child first: its stderr may be read only after Wait.
	fatal := func(format string, args ...any) {
		t.Helper()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf(format+"\nthe child's stderr:\n%s", append(args, stderr.String())...)
	}
	killedAt := 0
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		ev, ok := strings.CutPrefix(sc.Text(), "ev ")
		if !ok {
			continue // the test framework's own output
		}
		if err := m.apply(ev); err != nil {
			fatal("child: %v", err)
		}
		if killedAt > 0 {
			continue // written before the kill: still to be applied
		}
		if kill(m) {
			if err := cmd.Process.Kill(); err != nil {
				fatal("SIGKILL: %v", err)
			}
			killedAt = m.events
			continue
		}
		if m.done {
			fatal("the child ended its %d steps (%d reports) before the kill point", cfg.Steps, m.events)
		}
		if cfg.Lockstep {
			if _, err := stdin.Write([]byte{'g'}); err != nil {
				fatal("writing to the child: %v", err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		fatal("reading the child's reports: %v", err)
	}
	if killedAt == 0 {
		fatal("the child exited on its own after %d reports", m.events)
	}
	return killedAt
}

// crashRaw reads a queue's keys as they are stored, beneath the queue's API.
type crashRaw struct {
	lrange  func(ctx context.Context, key string) ([]string, error)
	hgetall func(ctx context.Context, key string) (map[string]string, error)
}

func crashRawRedis(c *redis.Client) crashRaw {
	return crashRaw{
		lrange:  func(ctx context.Context, key string) ([]string, error) { return c.LRange(ctx, key, 0, -1).Result() },
		hgetall: func(ctx context.Context, key string) (map[string]string, error) { return c.HGetAll(ctx, key).Result() },
	}
}

func crashRawDB(db *zlite.DB) crashRaw {
	return crashRaw{
		lrange:  func(ctx context.Context, key string) ([]string, error) { return db.LRange(ctx, key, 0, -1) },
		hgetall: db.HGetAll,
	}
}

// crashSeen is where an element was found.
type crashSeen struct {
	where    string // "ready", "processing", "retry" or "dead"
	d        queues.Delivery
	leased   bool
	deadline time.Time
}

// crashAll is a page size that holds every element of a crash test's queue.
const crashAll = 1 << 20

// crashInspect reads every element of the queue name and the metadata hash, and
// checks that each element is in exactly one place and each lease belongs to an
// element in processing.
func crashInspect(t *testing.T, ctx context.Context, q *queues.Reliable, raw crashRaw, name string) (map[string]crashSeen, map[string]string) {
	t.Helper()
	seen := map[string]crashSeen{}
	put := func(s crashSeen) {
		if old, dup := seen[s.d.ID]; dup {
			t.Errorf("element %s is in %s and in %s", s.d.ID, old.where, s.where)
		}
		seen[s.d.ID] = s
	}
	ready, err := q.Items(ctx, 0, crashAll)
	require.NoError(t, err)
	for _, d := range ready {
		put(crashSeen{where: "ready", d: d})
	}
	retry, err := q.Retrying(ctx, 0, crashAll)
	require.NoError(t, err)
	for _, l := range retry {
		put(crashSeen{where: "retry", d: l.Delivery})
	}
	dead, err := q.Dead(ctx, 0, crashAll)
	require.NoError(t, err)
	for _, e := range dead {
		put(crashSeen{where: "dead", d: e.Delivery})
	}
	info, err := raw.hgetall(ctx, "{"+name+"}:info")
	require.NoError(t, err)
	processing, err := raw.lrange(ctx, "{"+name+"}:processing")
	require.NoError(t, err)
	for _, e := range processing {
		// An element without a lease is not listed by InFlight: its metadata comes
		// from the hash, as Reliable reads it.
		id := e[:16]
		a, _ := strconv.ParseInt(info[id+":a"], 10, 64)
		d := queues.Delivery{ID: id, Payload: e[16:], Attempt: a + 1, LastError: info[id+":e"]}
		if enq, _ := strconv.ParseInt(info[id+":t"], 10, 64); enq != 0 {
			d.Enqueued = time.UnixMicro(enq)
		}
		put(crashSeen{where: "processing", d: d})
	}
	leases, err := q.InFlight(ctx, 0, crashAll)
	require.NoError(t, err)
	for _, l := range leases {
		s, ok := seen[l.ID]
		if !ok || s.where != "processing" {
			t.Errorf("element %s has a lease and is in %q, not in processing", l.ID, s.where)
			continue
		}
		if l.Delivery != s.d {
			t.Errorf("InFlight lists %+v; the hash says %+v", l.Delivery, s.d)
		}
		s.leased, s.deadline = true, l.Deadline
		seen[l.ID] = s
	}
	return seen, info
}

// reconcile checks the queue as found after the kill against m, and brings m up
// to date with the one call the child may have had in flight (race: it was not in
// lockstep). It marks the elements the child died holding.
func (m *crashModel) reconcile(t *testing.T, seen map[string]crashSeen, info map[string]string, race bool) (loosened []string) {
	t.Helper()
	if id := m.pending; id != "" {
		// The child's last delivery, with no outcome reported.
		j := m.jobs[id]
		s, ok := seen[id]
		switch {
		case ok && s.where == "processing" && s.leased:
			// It died before its Ack or Fail returned, or while holding it.
		case !ok && race:
			loosened = append(loosened, "the Ack of "+id+" was applied")
			j.where = crashAcked
			j.acks++
			m.childAcks++
		case ok && race:
			loosened = append(loosened, "the Fail of "+id+" was applied")
			m.fail(j, crashReason)
			m.childFails++
		default:
			t.Errorf("the child's last delivery %s is in %q; want processing, with its lease", id, s.where)
		}
		m.pending = ""
	}
	for _, id := range slices.Sorted(maps.Keys(seen)) {
		s := seen[id]
		j := m.jobs[id]
		switch {
		case j == nil && race && s.where == "ready" && (len(m.order) == 0 || id > slices.Max(m.order)):
			loosened = append(loosened, "the Push of "+id+" was applied")
			m.add(id, s.d.Payload, s.d.Enqueued.UnixMicro())
		case j == nil:
			t.Errorf("element %s (%+v) is in %s, and no push of it was reported", id, s.d, s.where)
		case j.where == crashWaiting && s.where == "processing" && race:
			loosened = append(loosened, "the Pop of "+id+" took it")
			j.where, j.leased, j.childAttempt = crashProcessing, s.leased, j.failures+1
		}
	}
	if len(loosened) > 1 {
		t.Errorf("the child had one call in flight, yet: %s", strings.Join(loosened, "; "))
	}
	for _, id := range m.order {
		j := m.jobs[id]
		s, ok := seen[id]
		if j.where == crashAcked {
			if ok {
				t.Errorf("element %s, whose Ack returned true, is back in %s: %+v", id, s.where, s.d)
			}
			continue
		}
		want := map[crashWhere][]string{crashWaiting: {"ready", "retry"}, crashProcessing: {"processing"}, crashDead: {"dead"}}[j.where]
		if !slices.Contains(want, s.where) {
			t.Errorf("element %s (%s, %d failures, %q) is %v in the model; found in %q", id, j.payload, j.failures, j.lastErr, j.where, s.where)
			continue
		}
		wantAttempt := j.failures + 1
		if j.where == crashDead {
			wantAttempt = j.failures // Dead reports the attempt that failed last
		}
		if got, want := s.d, (queues.Delivery{ID: id, Payload: j.payload, Attempt: wantAttempt, Enqueued: time.UnixMicro(j.enq), LastError: j.lastErr}); got != want {
			t.Errorf("element %s in %s: %+v; want %+v", id, s.where, got, want)
		}
		if j.where == crashProcessing {
			j.held = true
			if !s.leased {
				j.leased = false
			} else if want := time.UnixMicro(j.popAt).Add(crashLease); j.popAt != 0 && !s.deadline.Equal(want) {
				t.Errorf("element %s: lease to %v; want %v (popped at %v)", id, s.deadline, want, time.UnixMicro(j.popAt))
			}
		}
	}
	m.checkInfo(t, info)
	return loosened
}

// checkInfo checks that the metadata hash holds the enqueue time, failures and
// last error of exactly the live and dead elements.
func (m *crashModel) checkInfo(t *testing.T, info map[string]string) {
	t.Helper()
	want := map[string]string{}
	for _, j := range m.jobs {
		if j.where == crashAcked {
			continue
		}
		want[j.id+":t"] = strconv.FormatInt(j.enq, 10)
		if j.failures > 0 {
			want[j.id+":a"] = strconv.FormatInt(j.failures, 10)
		}
		if j.lastErr != "" {
			want[j.id+":e"] = j.lastErr
		}
	}
	var diff []string
	for f, v := range want {
		if info[f] != v {
			diff = append(diff, fmt.Sprintf("%s = %q, want %q", f, info[f], v))
		}
	}
	for f, v := range info {
		if _, ok := want[f]; !ok {
			diff = append(diff, fmt.Sprintf("%s = %q, want none", f, v))
		}
	}
	slices.Sort(diff)
	if len(diff) > 0 {
		t.Errorf("metadata hash: %d fields differ: %s", len(diff), strings.Join(diff[:min(len(diff), 10)], "; "))
	}
}

// crashErrs collects the failures of the consumers' goroutines, which must not
// call t.Fatal.
type crashErrs struct {
	mu   sync.Mutex
	errs []string
}

func (e *crashErrs) add(format string, args ...any) {
	e.mu.Lock()
	e.errs = append(e.errs, fmt.Sprintf(format, args...))
	e.mu.Unlock()
}

// deliver checks the parent's delivery d against the model, then acks it, or
// fails it if its payload marks it as poison.
func (m *crashModel) deliver(ctx context.Context, q *queues.Reliable, d queues.Delivery, errs *crashErrs) {
	m.mu.Lock()
	j := m.jobs[d.ID]
	switch {
	case j == nil:
		m.mu.Unlock()
		errs.add("delivered %+v, which was never pushed", d)
		return
	case j.where != crashWaiting:
		errs.add("delivered %+v, which is %v", d, j.where)
	case d != (queues.Delivery{ID: j.id, Payload: j.payload, Attempt: j.failures + 1, Enqueued: time.UnixMicro(j.enq), LastError: j.lastErr}):
		errs.add("delivered %+v; want attempt %d, last error %q, enqueued %v", d, j.failures+1, j.lastErr, time.UnixMicro(j.enq))
	}
	if j.held && !j.returned && (d.Attempt != j.childAttempt+1 || d.LastError != leaseExpired) {
		errs.add("%s, whose lease the child held at attempt %d, came back as attempt %d with %q; want attempt %d with %q",
			d.ID, j.childAttempt, d.Attempt, d.LastError, j.childAttempt+1, leaseExpired)
	}
	j.returned = j.returned || j.held
	j.where, j.leased = crashProcessing, true
	poison := strings.HasPrefix(j.payload, "p-")
	m.mu.Unlock()
	var ok bool
	var err error
	if poison {
		ok, err = q.Fail(ctx, d, errors.New(crashPoison))
	} else {
		ok, err = q.Ack(ctx, d)
	}
	if err != nil || !ok {
		errs.add("finishing %+v (poison: %v) = %v, %v; want true, nil", d, poison, ok, err)
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if poison {
		m.fail(j, crashPoison)
		m.parentFails++
		return
	}
	j.where = crashAcked
	j.acks++
	m.parentAcks++
}

// drain runs workers consumers on q, which reads clock, until the queue is
// empty: each round reaps, then pops until the queue runs dry (Acking each
// delivery, or Failing the poison ones, and reaping in between: no lease runs
// out within a round, so those Reaps end none), then moves clock past every lease
// and retry delay. It returns the number of rounds.
func (m *crashModel) drain(t *testing.T, ctx context.Context, q *queues.Reliable, clock *fakeClock, workers int) int {
	t.Helper()
	for round := 1; ; round++ {
		if round > 10+int(m.maxAttempts) {
			t.Fatalf("the queue is not empty after %d rounds", round-1)
		}
		var want int64
		for _, j := range m.jobs {
			switch {
			case j.where != crashProcessing:
			case j.leased:
				want++
				m.fail(j, leaseExpired)
			default:
				j.leased = true // Reap leases an element found without one
			}
		}
		n, err := q.Reap(ctx)
		require.NoError(t, err)
		require.Equal(t, want, n, "round %d: Reap ended %d leases; want the %d the child held", round, n, want)
		m.expired += int(n)
		var errs crashErrs
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for i := 1; ; i++ {
					d, ok, err := q.Pop(ctx, 5*time.Millisecond)
					if err != nil {
						errs.add("Pop: %v", err)
						return
					}
					if !ok {
						return
					}
					m.deliver(ctx, q, d, &errs)
					if i%4 == 0 {
						if n, err := q.Reap(ctx); err != nil || n != 0 {
							errs.add("Reap among live consumers = %d, %v; want 0, nil", n, err)
						}
					}
				}
			})
		}
		wg.Wait()
		if len(errs.errs) > 0 {
			t.Fatalf("round %d: %d errors:\n%s", round, len(errs.errs), strings.Join(errs.errs, "\n"))
		}
		st, err := q.Stats(ctx)
		require.NoError(t, err)
		if st.Depth == 0 && st.InFlight == 0 && st.Retrying == 0 {
			return round
		}
		clock.Advance(crashLease + time.Second)
	}
}

// final checks the drained queue: no element lost, none acked twice, each lease
// the child died holding came back (or died of its expiry), and the dead set and
// the metadata hash are what the model says. It returns the number of dead elements.
func (m *crashModel) final(t *testing.T, ctx context.Context, q *queues.Reliable, raw crashRaw, name string) int {
	t.Helper()
	var lost, dup []string
	for _, id := range m.order {
		j := m.jobs[id]
		switch {
		case j.acks > 1 || j.acks == 1 && j.where != crashAcked:
			dup = append(dup, fmt.Sprintf("%s (%d acks, %v)", id, j.acks, j.where))
		case j.where == crashAcked && j.acks == 1, j.where == crashDead && j.acks == 0:
		default:
			lost = append(lost, fmt.Sprintf("%s (%v, %d acks)", id, j.where, j.acks))
		}
		if j.held && !j.returned && (j.where != crashDead || j.diedOf != leaseExpired || j.failures != j.childAttempt) {
			t.Errorf("%s: the child died holding attempt %d; it neither came back nor died of its expired lease (%v, %d failures, %q)",
				id, j.childAttempt, j.where, j.failures, j.lastErr)
		}
	}
	if len(lost) > 0 || len(dup) > 0 {
		t.Errorf("of %d elements, %d lost: %v; %d acked more than once: %v", len(m.order), len(lost), lost, len(dup), dup)
	}
	seen, info := crashInspect(t, ctx, q, raw, name)
	dead := 0
	for id, s := range seen {
		j := m.jobs[id]
		switch {
		case s.where != "dead":
			t.Errorf("%s is in %s after the drain", id, s.where)
		case j == nil || j.where != crashDead:
			t.Errorf("%s is dead; the model says %+v", id, j)
		case j.failures != m.maxAttempts:
			t.Errorf("%s died after %d failures; want %d", id, j.failures, m.maxAttempts)
		default:
			dead++
		}
	}
	if want := m.count(crashDead); dead != want {
		t.Errorf("%d elements in the dead set; want %d", dead, want)
	}
	m.checkInfo(t, info)
	return dead
}

// crashRound is one round of a crash test.
type crashRound struct {
	maxAttempts int64
	lockstep    bool
}

func (r crashRound) String() string {
	return fmt.Sprintf("max=%d/lockstep=%v", r.maxAttempts, r.lockstep)
}

// TestCrashReliableRedis: the parent pushes elements to a redis-server; a child
// consumer acks some, fails some and holds the leases of others, and is SIGKILLed
// holding them (in lockstep rounds, right after a report; otherwise wherever it
// is). The parent then drains the queue with Reap and checks that nothing was lost
// or acked twice and that the child's leases came back with their attempts counted
// and the reason "lease expired" (or died of it, with one attempt allowed).
func TestCrashReliableRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	addr := redistest.Require(t)
	c := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { c.Close() })
	b := redisq.New(c, &redisq.Options{Slice: 50 * time.Millisecond})
	raw := crashRawRedis(c)
	r := rand.New(rand.NewPCG(testSeed(t), 1))
	const n = 60
	for i, rc := range []crashRound{{1, true}, {2, true}, {3, true}, {1, false}, {2, false}, {3, false}} {
		seed, killAfter := r.Uint64(), 4+r.IntN(n)
		t.Run(fmt.Sprintf("round=%d/%v", i, rc), func(t *testing.T) {
			ctx := guard(t)
			name := qname(t)
			clock := newFakeClock()
			q := crashQueue(b, name, rc.maxAttempts, clock.Now)
			m := newCrashModel(rc.maxAttempts)
			for i := range n {
				payload := fmt.Sprintf("j-%d", i)
				if i%6 == 5 {
					payload = fmt.Sprintf("p-%d", i)
				}
				id, err := q.Push(ctx, payload)
				require.NoError(t, err)
				m.add(id, payload, clock.Now().UnixMicro())
			}
			cfg := crashChildConfig{Backend: "redis", Addr: addr, Queue: name, Seed: seed, MaxAttempts: rc.maxAttempts,
				Lockstep: rc.lockstep, Start: clock.Now().UnixMicro(), Steps: 4 * n}
			killedAt := runCrashChild(t, m, cfg, func(m *crashModel) bool {
				return m.events >= killAfter && m.count(crashProcessing) > 0 && m.childAcks > 0
			})
			seen, info := crashInspect(t, ctx, q, raw, name)
			loosened := m.reconcile(t, seen, info, !rc.lockstep)
			held := m.count(crashProcessing)
			if t.Failed() {
				t.FailNow()
			}
			clock.Advance(time.Hour) // past every lease and retry delay of the child
			rounds := m.drain(t, ctx, q, clock, 3)
			dead := m.final(t, ctx, q, raw, name)
			t.Logf("seed %d: killed after report %d of %d; child: %d acked, %d failed, %d held at death; %v; "+
				"parent: %d leases expired, %d acked, %d failed, %d dead, %d rounds",
				seed, killedAt, m.events, m.childAcks, m.childFails, held, loosened,
				m.expired, m.parentAcks, m.parentFails, dead, rounds)
		})
	}
}

// TestCrashReliableEmbedded: a child pushes to and consumes from a Reliable queue
// on a zlite directory (SyncAlways), reporting each call after it returned, and
// is SIGKILLed while it has elements in processing, waiting out a retry and dead.
// The parent reopens the directory and checks that every reported push is there,
// in the place and with the metadata the reports imply, and no reported ack came
// back; then it drains the queue and checks that nothing was lost or acked twice.
// Rounds share the directory, so each also reopens after the kills before it, and
// the queues of earlier rounds must stay as they were left.
func TestCrashReliableEmbedded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(testSeed(t), 1))
	type left struct {
		name string
		dead int64
	}
	var earlier []left
	// checkEarlier checks that the queues of the rounds before stayed drained.
	checkEarlier := func(t *testing.T, ctx context.Context, b queues.Backend) {
		t.Helper()
		for _, e := range earlier {
			st, err := queues.NewReliable(b, e.name).Stats(ctx)
			require.NoError(t, err)
			if st.Depth != 0 || st.InFlight != 0 || st.Retrying != 0 || st.Dead != e.dead {
				t.Errorf("queue %s of an earlier round: %d ready, %d in processing, %d retrying, %d dead; want 0, 0, 0, %d",
					e.name, st.Depth, st.InFlight, st.Retrying, st.Dead, e.dead)
			}
		}
	}
	for i, rc := range []crashRound{{2, false}, {3, false}, {2, true}, {3, true}, {2, false}, {3, false}} {
		seed, killAfter := r.Uint64(), 120+r.IntN(120)
		t.Run(fmt.Sprintf("round=%d/%v", i, rc), func(t *testing.T) {
			ctx := guard(t)
			name := fmt.Sprintf("crash-%d", i)
			clock := newFakeClock()
			m := newCrashModel(rc.maxAttempts)
			cfg := crashChildConfig{Backend: "embedded", Dir: dir, Queue: name, Seed: seed, MaxAttempts: rc.maxAttempts,
				Lockstep: rc.lockstep, Start: clock.Now().UnixMicro(), Pushes: 1000, Steps: 5000}
			killedAt := runCrashChild(t, m, cfg, func(m *crashModel) bool {
				// A margin of 60 steps, so that the retries are still waiting when
				// the kill lands a few steps later.
				return m.events >= killAfter && m.count(crashProcessing) > 0 && m.count(crashDead) > 0 &&
					m.retrying(60*crashStep) > 0
			})
			db, err := zlite.Open(dir, zlite.WithSync(zlite.SyncAlways))
			require.NoError(t, err)
			defer func() { require.NoError(t, db.Close()) }()
			b := embedded.New(db)
			raw := crashRawDB(db)
			checkEarlier(t, ctx, b)
			q := crashQueue(b, name, rc.maxAttempts, clock.Now)
			seen, info := crashInspect(t, ctx, q, raw, name)
			places := map[string]int{}
			for _, s := range seen {
				places[s.where]++
			}
			for _, p := range []string{"processing", "retry", "dead"} {
				if places[p] == 0 {
					t.Errorf("killed with nothing in %s: %v", p, places)
				}
			}
			loosened := m.reconcile(t, seen, info, !rc.lockstep)
			if t.Failed() {
				t.FailNow()
			}
			clock.Advance(time.Hour)
			rounds := m.drain(t, ctx, q, clock, 3)
			dead := m.final(t, ctx, q, raw, name)
			earlier = append(earlier, left{name, int64(dead)})
			t.Logf("seed %d: killed after report %d of %d with %v; %d pushed; child: %d acked, %d failed; %v; "+
				"parent: %d leases expired, %d acked, %d failed, %d dead, %d rounds",
				seed, killedAt, m.events, places, len(m.order), m.childAcks, m.childFails, loosened,
				m.expired, m.parentAcks, m.parentFails, dead, rounds)
		})
	}
	// The last round's drain, too, is in the files.
	db, err := zlite.Open(dir, zlite.WithSync(zlite.SyncAlways))
	require.NoError(t, err)
	checkEarlier(t, guard(t), embedded.New(db))
	require.NoError(t, db.Close())
}
