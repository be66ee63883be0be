package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
)

// wantKeys checks that number db of the server at addr holds exactly the string
// keys want.
func wantKeys(t *testing.T, addr string, db int, when string, want map[string]string) {
	t.Helper()
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: addr, DB: db, MaxRetries: -1})
	defer rdb.Close()
	keys, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatalf("%s, KEYS * in db %d: %v", when, db, err)
	}
	if len(keys) != len(want) {
		t.Errorf("%s, db %d holds keys %q; want %d keys %v", when, db, keys, len(want), want)
	}
	for k, v := range want {
		if got, err := rdb.Get(ctx, k).Result(); got != v || err != nil {
			t.Errorf("%s, GET %s in db %d = %q, %v; want %q, nil", when, k, db, got, err, v)
		}
	}
}

// do runs one command on number db of the server at addr.
func do(t *testing.T, addr string, db int, args ...any) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, DB: db, MaxRetries: -1})
	defer rdb.Close()
	if err := rdb.Do(context.Background(), args...).Err(); err != nil {
		t.Fatalf("%v in db %d: %v", args, db, err)
	}
}

// shutdownChild ends c with SHUTDOWN, or with SIGKILL when kill is set.
func shutdownChild(t *testing.T, c *child, kill bool) {
	t.Helper()
	if kill {
		if logs, err := c.stop(t, syscall.SIGKILL); err == nil {
			t.Fatalf("zlite-server exited with status 0 after SIGKILL\n%s", logs)
		}
		return
	}
	rdb := redis.NewClient(&redis.Options{Addr: c.addr, MaxRetries: -1})
	_ = rdb.Shutdown(context.Background()).Err() // the server closes the connection without a reply
	rdb.Close()
	logs := c.logs.all()
	if err := c.cmd.Wait(); err != nil {
		t.Fatalf("zlite-server after SHUTDOWN: %v; want exit status 0\n%s", err, logs)
	}
}

// TestSwapDBPersists: after SWAPDB 0 1 and a restart, whether the server was
// killed (SIGKILL) or shut down (SHUTDOWN), number 0 holds what 1 held and the
// reverse, with the writes made after the swap; a second swap after the restart
// (SWAPDB 1 2) is kept on top of the first, and DEBUG RELOAD keeps both.
func TestSwapDBPersists(t *testing.T) {
	for _, tc := range []struct {
		name string
		kill bool
	}{{"SIGKILL", true}, {"SHUTDOWN", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			c := startChild(t, "-dir", dir)
			do(t, c.addr, 0, "SET", "k", "zero")
			do(t, c.addr, 1, "SET", "k", "one")
			do(t, c.addr, 0, "SWAPDB", "0", "1")
			do(t, c.addr, 0, "SET", "after", "swap")
			wantKeys(t, c.addr, 0, "after SWAPDB 0 1", map[string]string{"k": "one", "after": "swap"})
			shutdownChild(t, c, tc.kill)

			c = startChild(t, "-dir", dir)
			when := "after SWAPDB 0 1 and a restart after " + tc.name
			wantKeys(t, c.addr, 0, when, map[string]string{"k": "one", "after": "swap"})
			wantKeys(t, c.addr, 1, when, map[string]string{"k": "zero"})
			wantKeys(t, c.addr, 2, when, nil)

			do(t, c.addr, 0, "SWAPDB", "1", "2")
			do(t, c.addr, 0, "DEBUG", "RELOAD")
			when = "after SWAPDB 1 2 and DEBUG RELOAD"
			wantKeys(t, c.addr, 0, when, map[string]string{"k": "one", "after": "swap"})
			wantKeys(t, c.addr, 1, when, nil)
			wantKeys(t, c.addr, 2, when, map[string]string{"k": "zero"})
			shutdownChild(t, c, tc.kill)

			c = startChild(t, "-dir", dir)
			when = "after SWAPDB 1 2 and a second restart after " + tc.name
			wantKeys(t, c.addr, 0, when, map[string]string{"k": "one", "after": "swap"})
			wantKeys(t, c.addr, 1, when, nil)
			wantKeys(t, c.addr, 2, when, map[string]string{"k": "zero"})
		})
	}
}

// layoutText is a layout file giving number n the directory names[n].
func layoutText(names ...string) string {
	var b strings.Builder
	for n, name := range names {
		fmt.Fprintf(&b, "%d %s\n", n, name)
	}
	return b.String()
}

// TestReadLayout: readLayout gives db0 to db15 without a file, the file's
// directories with one, and refuses a file that does not give each number a
// distinct keyspace directory.
func TestReadLayout(t *testing.T) {
	identity := make([]string, 16)
	for i := range identity {
		identity[i] = fmt.Sprintf("db%d", i)
	}
	swapped := slices.Clone(identity)
	swapped[0], swapped[1] = "db1", "db0"
	for _, tc := range []struct {
		name, file string // file "" for none
		want       []string
		err        string
	}{
		{name: "none", want: identity},
		{name: "swapped", file: layoutText(swapped...), want: swapped},
		{name: "reordered lines", file: "1 db0\n" + strings.Replace(layoutText(swapped...), "1 db0\n", "", 1), want: swapped},
		{name: "repeated directory", file: layoutText(append([]string{"db1"}, identity[1:]...)...), err: `directory "db1" is not one of db0 to db15 or is repeated`},
		{name: "15 lines", file: layoutText(identity[:15]...), err: "15 lines, want 16"},
		{name: "db16", file: layoutText(append([]string{"db16"}, identity[1:]...)...), err: `directory "db16"`},
		{name: "db01", file: layoutText(append([]string{"db01"}, identity[1:]...)...), err: `directory "db01"`},
		{name: "other name", file: layoutText(append([]string{"data"}, identity[1:]...)...), err: `directory "data"`},
		{name: "repeated number", file: "0 db0\n" + layoutText(identity...)[len("0 db0\n"):] + "0 db0\n", err: `number "0" is out of range or repeated`},
		{name: "bad line", file: "0\n", err: `line 1 is not "<number> <directory>"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.file != "" {
				if err := os.WriteFile(filepath.Join(dir, layoutFile), []byte(tc.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := readLayout(dir)
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("readLayout = %v, %v; want an error with %q", got, err, tc.err)
				}
			case err != nil || !slices.Equal(got[:], tc.want):
				t.Errorf("readLayout = %v, %v; want %v, nil", got, err, tc.want)
			}
		})
	}
}

// TestSwapDBBadLayout: a layout file that does not give each number a distinct
// keyspace directory stops the server at startup, naming the file.
func TestSwapDBBadLayout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, layoutFile), []byte("0 db1\n1 db1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startChildNoWait(t, "-dir", dir)
	logs := c.logs.all()
	if err := c.cmd.Wait(); err == nil || !strings.Contains(logs, filepath.Join(dir, layoutFile)) {
		t.Errorf("zlite-server with db1 at two numbers: %v, log:\n%s\nwant exit status 1 naming %s", err, logs, layoutFile)
	}
}
