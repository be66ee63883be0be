package zlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/internal/serverapi"
)

// hooks is the server's side of the keyspace, which these tests drive as the server does.
var hooks = serverapi.Get[zlite.DB, zlite.Tx, zlite.Command]()

// samePipelined runs setup and then cmds through DoPipelined on one keyspace, and
// setup and cmds one Do at a time on another, and requires the same replies, errors
// included.
func samePipelined(t *testing.T, setup, cmds [][]string) {
	t.Helper()
	ctx := context.Background()
	one, batch := zlite.New(), zlite.New()
	for _, c := range setup {
		one.Do(ctx, c...)
		batch.Do(ctx, c...)
	}
	res := make([]serverapi.Result, len(cmds))
	hooks.DoPipelined(ctx, batch, cmds, res, nil)
	for i, c := range cmds {
		v, err := one.Do(ctx, c...)
		if got, want := fmt.Sprint(res[i]), fmt.Sprint(serverapi.Result{Value: v, Err: err}); got != want {
			t.Errorf("DoPipelined %q = %s; want %s (as Do)", c, got, want)
		}
	}
}

// TestDoPipelined runs pipelines of writes and reads, blocking commands and errors
// among them, and pipelines of reads alone (which share their shard, unless a key in
// it has a TTL), through DoPipelined and one Do at a time.
func TestDoPipelined(t *testing.T) {
	fill := [][]string{{"ZADD", "{u}z", "1", "a", "2", "b", "3", "c"}, {"RPUSH", "{u}l", "x", "y", "z"}}
	reads := [][]string{
		{"ZRANGE", "{u}z", "0", "-1", "WITHSCORES"}, {"ZSCORE", "{u}z", "b"}, {"NOSUCH", "k"}, {"LRANGE", "{u}l", "0", "-1"},
		{"ZRANK", "{u}z", "c"}, {"LLEN", "{u}z"}, {"ZCARD", "{u}z", "extra"}, {"TTL", "{u}l"},
	}
	tests := []struct {
		name        string
		setup, cmds [][]string
	}{
		{"writes", nil, [][]string{
			{"ZADD", "z", "1", "a", "2", "b"}, {"zincrby", "z", "1.5", "a"}, {"ZRANGE", "z", "0", "-1", "WITHSCORES"},
			{"LPUSH", "z", "x"}, {"NOSUCH", "k"}, {"ZADD", "z"}, {"RPUSH", "l", "1", "2", "3"}, {"LPOP", "l"},
			{"BLPOP", "l", "0"}, {"LRANGE", "l", "0", "-1"}, {"DEL", "l"}, {"LLEN", "l"},
		}},
		{"reads of one shard", fill, reads},
		{"reads of one shard, a key with a TTL", append(fill, []string{"EXPIRE", "{u}l", "100"}), reads},
		{"reads of two shards", fill, append(reads, []string{"ZSCORE", "other", "a"})},
		{"unknown commands only", nil, [][]string{{"NOSUCH"}, {"NOSUCH", "x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { samePipelined(t, tt.setup, tt.cmds) })
	}
}

// TestDoPipelinedManyKeys runs a pipeline over thousands of keys that it creates and
// deletes, so that key tables grow, shrink and compact while the lookups of the
// commands after the running one are warmed ahead (warmKey), and requires the replies
// of one Do at a time.
func TestDoPipelinedManyKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 16))
	var cmds [][]string
	for i := range 3000 {
		k := fmt.Sprint("k", r.IntN(4000))
		switch r.IntN(8) {
		case 0, 1, 2:
			cmds = append(cmds, []string{"ZADD", "z" + k, fmt.Sprint(i), fmt.Sprint("m", i%5)})
		case 3:
			cmds = append(cmds, []string{"ZSCORE", "z" + k, fmt.Sprint("m", i%5)})
		case 4:
			cmds = append(cmds, []string{"RPUSH", "l" + k, fmt.Sprint(i)})
		case 5:
			cmds = append(cmds, []string{"LPOP", "l" + k})
		case 6:
			cmds = append(cmds, []string{"DEL", "z" + k, "l" + k})
		default:
			cmds = append(cmds, []string{"ZPOPMIN", "z" + k})
		}
	}
	samePipelined(t, nil, cmds)
}

// TestDoPipelinedLong runs a pipeline longer than a server's batch (128 commands),
// errors among its commands, and requires the replies of one Do at a time.
func TestDoPipelinedLong(t *testing.T) {
	var cmds [][]string
	for i := range 300 {
		switch i % 3 {
		case 0:
			cmds = append(cmds, []string{"ZADD", "z", fmt.Sprint(i), fmt.Sprint("m", i)})
		case 1:
			cmds = append(cmds, []string{"NOSUCH", "k"})
		default:
			cmds = append(cmds, []string{"ZPOPMIN", "z"})
		}
	}
	samePipelined(t, nil, cmds)
}

// TestDoPipelinedServesBetween: with a caller blocked, each command of the pipeline
// serves it before the next runs, as Redis does; a batch that served only at its end
// would leave both pushed elements in the list.
func TestDoPipelinedServesBetween(t *testing.T) {
	ctx := context.Background()
	db := zlite.New()
	blocked := make(chan struct{})
	got := make(chan any, 1)
	go func() {
		v, _ := hooks.DoNotify(ctx, db, func(b bool) {
			if b {
				close(blocked)
			}
		}, "BLPOP", "q", "0")
		got <- v
	}()
	<-blocked
	res := make([]serverapi.Result, 3)
	hooks.DoPipelined(ctx, db, [][]string{{"RPUSH", "q", "a"}, {"RPUSH", "q", "b"}, {"LRANGE", "q", "0", "-1"}}, res, nil)
	if want := []any{"b"}; !slices.Equal(res[2].Value.([]any), want) {
		t.Errorf("LRANGE after the pipeline = %v; want %v", res[2].Value, want)
	}
	if v := <-got; fmt.Sprint(v) != "[q a]" {
		t.Errorf("BLPOP = %v; want [q a]", v)
	}
}

// TestDoNotify checks the notices: blocked when the command blocks, served before the
// command that serves it returns, and none for a command served at once.
func TestDoNotify(t *testing.T) {
	ctx := context.Background()
	db := zlite.New()
	var notes []bool // written under the keyspace lock, read after the pushes return
	blocked := make(chan struct{})
	done := make(chan any, 1)
	go func() {
		v, _ := hooks.DoNotify(ctx, db, func(b bool) {
			notes = append(notes, b)
			if b {
				close(blocked)
			}
		}, "BZPOPMIN", "z", "0")
		done <- v
	}()
	<-blocked
	if _, err := db.Do(ctx, "ZADD", "z", "1", "m"); err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, false}; !slices.Equal(notes, want) {
		t.Errorf("notices when ZADD returned = %v; want %v", notes, want)
	}
	<-done
	if _, err := db.Do(ctx, "ZADD", "z", "2", "n"); err != nil {
		t.Fatal(err)
	}
	v, err := hooks.DoNotify(ctx, db, func(bool) { t.Error("notified for a command served at once") }, "BZPOPMIN", "z", "0")
	if err != nil || fmt.Sprint(v) != "[z n 2]" {
		t.Errorf("BZPOPMIN = %v, %v; want [z n 2]", v, err)
	}
}
