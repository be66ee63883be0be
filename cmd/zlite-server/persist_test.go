package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
)

// model is what a worker's keys should hold: a string, map[string]string (hash),
// map[string]bool (set), map[string]float64 (sorted set) or []string (list) by key.
type model map[string]any

func (m model) clone() model {
	c := model{}
	for k, v := range m {
		switch v := v.(type) {
		case map[string]string:
			c[k] = maps.Clone(v)
		case map[string]bool:
			c[k] = maps.Clone(v)
		case map[string]float64:
			c[k] = maps.Clone(v)
		case []string:
			c[k] = slices.Clone(v)
		default:
			c[k] = v
		}
	}
	return c
}

// apply applies one command of the workload to m, as Redis would.
func (m model) apply(c []string) {
	k := c[1]
	switch c[0] {
	case "SET":
		m[k] = c[2]
	case "HSET":
		h, _ := m[k].(map[string]string)
		if h == nil {
			h = map[string]string{}
			m[k] = h
		}
		h[c[2]] = c[3]
	case "SADD":
		s, _ := m[k].(map[string]bool)
		if s == nil {
			s = map[string]bool{}
			m[k] = s
		}
		s[c[2]] = true
	case "SREM":
		if s, ok := m[k].(map[string]bool); ok {
			delete(s, c[2])
			if len(s) == 0 {
				delete(m, k)
			}
		}
	case "ZADD":
		z, _ := m[k].(map[string]float64)
		if z == nil {
			z = map[string]float64{}
			m[k] = z
		}
		sc, _ := strconv.ParseFloat(c[2], 64)
		z[c[3]] = sc
	case "RPUSH":
		l, _ := m[k].([]string)
		m[k] = append(l, c[2])
	case "LPOP":
		if l, ok := m[k].([]string); ok {
			if len(l) == 1 {
				delete(m, k)
			} else {
				m[k] = l[1:]
			}
		}
	default:
		panic("model: unknown command " + c[0])
	}
}

// dump renders m as dumpServer renders a server's keys.
func (m model) dump() string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch v := m[k].(type) {
		case string:
			fmt.Fprintf(&b, "%s string %s\n", k, v)
		case map[string]string:
			fmt.Fprintf(&b, "%s hash %s\n", k, pairs(v))
		case map[string]bool:
			fmt.Fprintf(&b, "%s set %s\n", k, strings.Join(slices.Sorted(maps.Keys(v)), " "))
		case map[string]float64:
			zs := make([]redis.Z, 0, len(v))
			for mem, sc := range v {
				zs = append(zs, redis.Z{Member: mem, Score: sc})
			}
			fmt.Fprintf(&b, "%s zset %s\n", k, zrender(zs))
		case []string:
			fmt.Fprintf(&b, "%s list %s\n", k, strings.Join(v, " "))
		}
	}
	return b.String()
}

func pairs(h map[string]string) string {
	var fs []string
	for _, f := range slices.Sorted(maps.Keys(h)) {
		fs = append(fs, f+"="+h[f])
	}
	return strings.Join(fs, " ")
}

func zrender(zs []redis.Z) string {
	sort.Slice(zs, func(i, j int) bool {
		if zs[i].Score != zs[j].Score {
			return zs[i].Score < zs[j].Score
		}
		return zs[i].Member.(string) < zs[j].Member.(string)
	})
	var s []string
	for _, z := range zs {
		s = append(s, fmt.Sprintf("%v:%g", z.Member, z.Score))
	}
	return strings.Join(s, " ")
}

// dumpServer renders the keys of rdb's keyspace that start with prefix.
func dumpServer(ctx context.Context, rdb *redis.Client, prefix string) (string, error) {
	keys, err := rdb.Keys(ctx, prefix+"*").Result()
	if err != nil {
		return "", err
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		typ, err := rdb.Type(ctx, k).Result()
		if err != nil {
			return "", err
		}
		switch typ {
		case "string":
			v, err := rdb.Get(ctx, k).Result()
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "%s string %s\n", k, v)
		case "hash":
			h, err := rdb.HGetAll(ctx, k).Result()
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "%s hash %s\n", k, pairs(h))
		case "set":
			s, err := rdb.SMembers(ctx, k).Result()
			if err != nil {
				return "", err
			}
			slices.Sort(s)
			fmt.Fprintf(&b, "%s set %s\n", k, strings.Join(s, " "))
		case "zset":
			zs, err := rdb.ZRangeWithScores(ctx, k, 0, -1).Result()
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "%s zset %s\n", k, zrender(zs))
		case "list":
			l, err := rdb.LRange(ctx, k, 0, -1).Result()
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "%s list %s\n", k, strings.Join(l, " "))
		default:
			return "", fmt.Errorf("key %q of type %q", k, typ)
		}
	}
	return b.String(), nil
}

// workOp returns the commands of a worker's i-th write: one command, or several
// to run as one MULTI/EXEC transaction over five keys of every type.
func workOp(prefix string, i int) [][]string {
	n := strconv.Itoa(i)
	switch i % 6 {
	case 0:
		return [][]string{{"SET", prefix + "s" + strconv.Itoa(i%5), "v" + n}}
	case 1:
		return [][]string{{"HSET", prefix + "h", "f" + strconv.Itoa(i%7), "v" + n}}
	case 2:
		if i%4 == 0 {
			return [][]string{{"SREM", prefix + "set", "m" + strconv.Itoa((i+5)%13)}}
		}
		return [][]string{{"SADD", prefix + "set", "m" + strconv.Itoa(i%13)}}
	case 3:
		return [][]string{{"ZADD", prefix + "z", n, "m" + strconv.Itoa(i%11)}}
	case 4:
		if i%8 == 0 {
			return [][]string{{"LPOP", prefix + "l"}}
		}
		return [][]string{{"RPUSH", prefix + "l", "v" + n}}
	}
	return [][]string{
		{"SET", prefix + "tx:s", n},
		{"HSET", prefix + "tx:h", "n", n},
		{"SADD", prefix + "tx:set", "m" + n},
		{"ZADD", prefix + "tx:z", n, "m" + n},
		{"RPUSH", prefix + "tx:l", n},
	}
}

func anyArgs(c []string) []any {
	a := make([]any, len(c))
	for i, w := range c {
		a[i] = w
	}
	return a
}

// send runs one workload write on rdb.
func send(ctx context.Context, rdb *redis.Client, op [][]string) error {
	if len(op) == 1 {
		err := rdb.Do(ctx, anyArgs(op[0])...).Err()
		if errors.Is(err, redis.Nil) { // LPOP of an empty list
			err = nil
		}
		return err
	}
	p := rdb.TxPipeline()
	for _, c := range op {
		p.Do(ctx, anyArgs(c)...)
	}
	_, err := p.Exec(ctx)
	return err
}

// worker is one client of the workload, writing its own keys (prefix) in one
// keyspace and recording what the server acknowledged.
type worker struct {
	prefix string
	db     int
	acked  model // the state after every acknowledged write
	next   int   // the write in flight when the worker stopped (may have been applied)
	failed bool  // whether the worker stopped on an error rather than when told to
}

// runWorkload runs workers against addr until stop is closed or their writes
// fail, closing reached once they made at least minWrites writes in all.
func runWorkload(addr string, workers []*worker, minWrites int64, reached, stop chan struct{}) {
	var total atomic.Int64
	var once sync.Once
	var wg sync.WaitGroup
	for _, w := range workers {
		w.acked = model{}
		wg.Go(func() {
			rdb := redis.NewClient(&redis.Options{Addr: addr, DB: w.db, MaxRetries: -1, PoolSize: 1})
			defer rdb.Close()
			ctx := context.Background()
			for i := 0; ; i++ {
				select {
				case <-stop:
					w.next = -1
					return
				default:
				}
				op := workOp(w.prefix, i)
				if err := send(ctx, rdb, op); err != nil {
					w.next, w.failed = i, true
					return
				}
				for _, c := range op {
					w.acked.apply(c)
				}
				if total.Add(1) == minWrites {
					once.Do(func() { close(reached) })
				}
			}
		})
	}
	wg.Wait()
	once.Do(func() { close(reached) }) // the workers failed before minWrites
}

// newWorkers returns 3 workers on keyspace 0 and one on keyspace 5.
func newWorkers() []*worker {
	return []*worker{{prefix: "a:", db: 0}, {prefix: "b:", db: 0}, {prefix: "c:", db: 0}, {prefix: "d:", db: 5}}
}

// checkWorkers checks that the server at addr holds each worker's acknowledged
// writes, plus possibly the one in flight, and nothing else: so no transaction is
// half-applied.
func checkWorkers(t *testing.T, addr string, workers []*worker) {
	t.Helper()
	ctx := context.Background()
	for _, w := range workers {
		rdb := redis.NewClient(&redis.Options{Addr: addr, DB: w.db, MaxRetries: -1})
		got, err := dumpServer(ctx, rdb, w.prefix)
		rdb.Close()
		if err != nil {
			t.Fatalf("reading worker %s's keys: %v", w.prefix, err)
		}
		want := w.acked.dump()
		if got == want {
			continue
		}
		if w.next >= 0 {
			m := w.acked.clone()
			for _, c := range workOp(w.prefix, w.next) {
				m.apply(c)
			}
			if got == m.dump() {
				continue // the write in flight was applied
			}
		}
		t.Errorf("worker %s (db %d, write %d in flight): the server holds\n%s\nwant the acknowledged writes\n%s", w.prefix, w.db, w.next, got, want)
	}
}

// TestSIGKILL kills zlite-server (appendfsync always) in the middle of writes
// from several clients and checks that, restarted on the same dir, it holds every
// acknowledged write and no half transaction.
func TestSIGKILL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := startChild(t, "-dir", dir, "-appendfsync", "always")
	workers := newWorkers()
	reached, stop := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() { runWorkload(c.addr, workers, 400, reached, stop); close(done) }()
	<-reached
	if _, err := c.stop(t, syscall.SIGKILL); err == nil {
		t.Fatal("zlite-server exited with status 0 after SIGKILL")
	}
	<-done
	for _, w := range workers {
		if !w.failed {
			t.Fatalf("worker %s stopped without an error", w.prefix)
		}
	}
	c2 := startChild(t, "-dir", dir)
	if _, _, ok := c2.logs.wait(0, "DB loaded from disk"); !ok {
		t.Error("no \"DB loaded from disk\" line at startup")
	}
	checkWorkers(t, c2.addr, workers)
}

// TestSIGTERMSaves writes from several clients while the save schedule ("1 1")
// snapshots, stops them, and checks that a second server on the same dir fails,
// that SIGTERM snapshots every keyspace and exits with status 0, and that the
// data is all there after a restart.
func TestSIGTERMSaves(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := startChild(t, "-dir", dir, "-appendfsync", "always", "-save", "1 1")
	workers := newWorkers()
	reached, stop := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() { runWorkload(c.addr, workers, 200, reached, stop); close(done) }()
	<-reached
	// The schedule snapshots keyspace 0 a second after the writes began, while
	// they go on.
	if _, _, ok := c.logs.wait(0, `msg="DB saved on disk" db=0`); !ok {
		t.Fatal("no scheduled snapshot of keyspace 0 in the log")
	}
	close(stop)
	<-done
	for _, w := range workers {
		if w.failed {
			t.Fatalf("worker %s failed", w.prefix)
		}
	}

	second := startChildNoWait(t, "-dir", dir)
	logs := second.logs.all()
	if err := second.cmd.Wait(); err == nil || !strings.Contains(logs, "is in use by another zlite-server") {
		t.Errorf("a second zlite-server on the same dir: %v, log:\n%s\nwant exit status 1 naming the directory in use", err, logs)
	}

	logs, err := c.stop(t, syscall.SIGTERM)
	if err != nil {
		t.Fatalf("zlite-server after SIGTERM: %v; want exit status 0\n%s", err, logs)
	}
	for _, want := range []string{"Received signal, scheduling shutdown", "Saving the final snapshot of each keyspace before exiting",
		`msg="DB saved on disk" keyspaces=16`, "bye bye"} {
		if !strings.Contains(logs, want) {
			t.Errorf("log after SIGTERM lacks %q:\n%s", want, logs)
		}
	}
	for _, db := range []string{"db0", "db5", "db15"} {
		if snaps, _ := filepath.Glob(filepath.Join(dir, db, "snapshot-*.zsnap")); len(snaps) == 0 {
			t.Errorf("no snapshot in %s after SIGTERM", db)
		}
	}

	c2 := startChild(t, "-dir", dir)
	keys := 0
	for _, w := range workers[:3] {
		keys += len(w.acked)
	}
	want := fmt.Sprintf(`msg="Keyspace loaded" db=0 keys=%d `, keys)
	if _, _, ok := c2.logs.wait(0, want); !ok {
		t.Errorf("no line %q at the restart", want)
	}
	for _, w := range workers {
		w.next = -1 // every write was acknowledged
	}
	checkWorkers(t, c2.addr, workers)
}

// TestConfigSetSave: CONFIG GET save shows the schedule the server runs, and
// CONFIG SET save changes it: a server started without one snapshots once a
// client sets "1 1" and writes.
func TestConfigSetSave(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := startChild(t, "-dir", dir, "-appendfsync", "no", "-save", "")
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: c.addr, MaxRetries: -1})
	defer rdb.Close()
	if got, err := rdb.ConfigGet(ctx, "save").Result(); err != nil || got["save"] != "" {
		t.Fatalf("CONFIG GET save = %v, %v; want \"\" (no schedule)", got, err)
	}
	if err := rdb.ConfigSet(ctx, "save", "1 1").Err(); err != nil {
		t.Fatal(err)
	}
	if got, err := rdb.ConfigGet(ctx, "save").Result(); err != nil || got["save"] != "1 1" {
		t.Fatalf("CONFIG GET save after CONFIG SET = %v, %v; want \"1 1\"", got, err)
	}
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := c.logs.wait(0, `msg="DB saved on disk" db=0 changes=1`); !ok {
		t.Fatalf("no scheduled snapshot after CONFIG SET save \"1 1\":\n%s", c.logs.all())
	}
}

// TestShutdownCommand: SHUTDOWN SAVE from a client snapshots, ends the server
// with status 0 and the data kept.
func TestShutdownCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := startChild(t, "-dir", dir, "-appendfsync", "no")
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: c.addr, MaxRetries: -1})
	if err := rdb.ZAdd(ctx, "z", redis.Z{Score: 1, Member: "a"}).Err(); err != nil {
		t.Fatal(err)
	}
	_ = rdb.ShutdownSave(ctx).Err() // the server closes the connection without a reply
	rdb.Close()
	logs := c.logs.all()
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("zlite-server after SHUTDOWN: %v; want exit status 0\n%s", err, logs)
	}
	if !strings.Contains(logs, "bye bye") {
		t.Errorf("log after SHUTDOWN lacks the last line:\n%s", logs)
	}
	if snaps, _ := filepath.Glob(filepath.Join(dir, "db0", "snapshot-*.zsnap")); len(snaps) == 0 {
		t.Error("no snapshot in db0 after SHUTDOWN SAVE")
	}
	c2 := startChild(t, "-dir", dir)
	rdb = redis.NewClient(&redis.Options{Addr: c2.addr, MaxRetries: -1})
	defer rdb.Close()
	if got, err := rdb.ZScore(ctx, "z", "a").Result(); got != 1 || err != nil {
		t.Errorf("after SHUTDOWN and a restart, ZSCORE z a = %v, %v; want 1, nil", got, err)
	}
}

// TestDebugReload: DEBUG RELOAD snapshots and reopens each keyspace, with its
// data, and the server goes on serving it.
func TestDebugReload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := startChild(t, "-dir", dir)
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: c.addr, DB: 3, MaxRetries: -1})
	defer rdb.Close()
	if err := rdb.HSet(ctx, "h", "f", "v").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.Do(ctx, "DEBUG", "RELOAD").Err(); err != nil {
		t.Fatalf("DEBUG RELOAD: %v", err)
	}
	if _, _, ok := c.logs.wait(0, `msg="DB reloaded by DEBUG RELOAD" db=3`); !ok {
		t.Error("no reload of keyspace 3 in the log")
	}
	if snaps, _ := filepath.Glob(filepath.Join(dir, "db3", "snapshot-*.zsnap")); len(snaps) == 0 {
		t.Error("no snapshot in db3 after DEBUG RELOAD")
	}
	if got, err := rdb.HGet(ctx, "h", "f").Result(); got != "v" || err != nil {
		t.Errorf("after DEBUG RELOAD, HGET h f = %q, %v; want \"v\", nil", got, err)
	}
	if err := rdb.HSet(ctx, "h", "g", "w").Err(); err != nil {
		t.Fatalf("HSET after DEBUG RELOAD: %v", err)
	}
	if logs, err := c.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("zlite-server after SIGTERM: %v\n%s", err, logs)
	}
	c2 := startChild(t, "-dir", dir)
	rdb2 := redis.NewClient(&redis.Options{Addr: c2.addr, DB: 3, MaxRetries: -1})
	defer rdb2.Close()
	if got, err := rdb2.HGetAll(ctx, "h").Result(); err != nil || len(got) != 2 || got["g"] != "w" {
		t.Errorf("after a restart, HGETALL h = %v, %v; want f=v g=w", got, err)
	}
}

// TestConfigFile starts zlite-server from a configuration file, with a flag
// overriding one of its directives, and checks the settings took effect.
func TestConfigFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	conf := filepath.Join(dir, "zlite.conf")
	text := fmt.Sprintf("# zlite-server\nrequirepass secret\ndir %q\nappendfsync everysec\nsave \"\"\nmaxmemory 1gb\nloglevel notice\n", filepath.Join(dir, "data"))
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startChild(t, conf, "-appendfsync", "always")
	for _, want := range []string{`directive="line 6: maxmemory"`, `appendfsync=always save=""`} {
		if _, _, ok := c.logs.wait(0, want); !ok {
			t.Errorf("log lacks %q", want)
		}
	}
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: c.addr, MaxRetries: -1})
	defer rdb.Close()
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err == nil || !strings.HasPrefix(err.Error(), "NOAUTH") {
		t.Errorf("SET without AUTH: %v; want NOAUTH", err)
	}
	logs, err := c.stop(t, syscall.SIGTERM)
	if err != nil {
		t.Fatalf("zlite-server after SIGTERM: %v\n%s", err, logs)
	}
	if strings.Contains(logs, "Saving the final snapshot") {
		t.Errorf("save \"\": the server snapshotted at SIGTERM:\n%s", logs)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "db0")); err != nil {
		t.Errorf("the configuration file's dir was not used: %v", err)
	}
}
