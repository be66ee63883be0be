package zlite

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"

	"github.com/zlite/zlite/zset"
)

// zpopResult is what a blocked BZPOPMIN returned.
type zpopResult struct {
	key string
	z   Z
	ok  bool
	err error
}

// goBZPopMin starts a BZPOPMIN on keys and waits until it has blocked (or returned).
func goBZPopMin(ctx context.Context, db *DB, keys ...string) <-chan zpopResult {
	ch := make(chan zpopResult, 1)
	go func() {
		k, z, ok, err := db.BZPopMin(ctx, 0, keys...)
		ch <- zpopResult{k, z, ok, err}
	}()
	synctest.Wait()
	return ch
}

// TestZWritesServeBZPopMin checks that every command that gives a sorted set members
// serves the callers blocked on it, and that writes leaving it empty or absent do not.
func TestZWritesServeBZPopMin(t *testing.T) {
	do := func(args ...string) func(db *DB) error {
		return func(db *DB) error {
			_, err := db.Do(context.Background(), args...)
			return err
		}
	}
	ctx := context.Background()
	tests := []struct {
		name  string
		write func(db *DB) error
		serve bool // the waiter gets "m" from "q"
	}{
		{"ZADD", do("ZADD", "q", "1", "m"), true},
		{"ZADD INCR", do("ZADD", "q", "INCR", "1", "m"), true},
		{"ZADD XX", do("ZADD", "q", "XX", "1", "m"), false},
		{"ZINCRBY", do("ZINCRBY", "q", "1", "m"), true},
		{"ZRANGESTORE", do("ZRANGESTORE", "q", "src", "0", "0"), true},
		{"ZRANGESTORE empty", do("ZRANGESTORE", "q", "src", "5", "9"), false},
		{"ZUNIONSTORE", do("ZUNIONSTORE", "q", "1", "src"), true},
		{"ZINTERSTORE", do("ZINTERSTORE", "q", "2", "src", "src"), true},
		{"ZDIFFSTORE", do("ZDIFFSTORE", "q", "1", "src"), true},
		{"ZDIFFSTORE empty", do("ZDIFFSTORE", "q", "2", "src", "src"), false},
		{"typed ZAdd", func(db *DB) error {
			_, err := db.ZAdd(ctx, "q", Z{Member: "m", Score: 1})
			return err
		}, true},
		{"typed ZAddArgsIncr", func(db *DB) error {
			_, _, err := db.ZAddArgsIncr(ctx, "q", ZAddArgs{Members: []Z{{Member: "m", Score: 1}}})
			return err
		}, true},
		{"typed ZIncrBy", func(db *DB) error {
			_, err := db.ZIncrBy(ctx, "q", 1, "m")
			return err
		}, true},
		{"typed ZUnionStore", func(db *DB) error {
			_, err := db.ZUnionStore(ctx, "q", &ZStore{Keys: []string{"src"}})
			return err
		}, true},
		{"batch add then remove", func(db *DB) error {
			return db.Update(func(tx *Tx) error {
				if _, err := tx.ZAdd("q", Z{Member: "m", Score: 1}); err != nil {
					return err
				}
				_, err := tx.ZRem("q", "m")
				return err
			})
		}, false},
		{"batch add twice", func(db *DB) error {
			return db.Update(func(tx *Tx) error {
				if _, err := tx.ZAdd("q", Z{Member: "n", Score: 2}); err != nil {
					return err
				}
				_, err := tx.ZAdd("q", Z{Member: "m", Score: 1})
				return err
			})
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				db := New()
				if _, err := db.ZAdd(ctx, "src", Z{Member: "m", Score: 1}); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(ctx)
				defer cancel()
				ch := goBZPopMin(ctx, db, "q")
				if err := tt.write(db); err != nil {
					t.Fatalf("write: %v", err)
				}
				synctest.Wait()
				select {
				case r := <-ch:
					if !tt.serve {
						t.Fatalf("BZPopMin returned %+v; want still blocked", r)
					}
					if r.key != "q" || r.z.Member != "m" || !r.ok || r.err != nil {
						t.Fatalf("BZPopMin = %+v; want q m", r)
					}
				default:
					if tt.serve {
						t.Fatal("BZPopMin still blocked; want served")
					}
					cancel()
					if r := <-ch; !errors.Is(r.err, context.Canceled) {
						t.Fatalf("cancelled BZPopMin = %+v; want context.Canceled", r)
					}
				}
			})
		})
	}
}

// TestZRankWithScore checks ZRANK/ZREVRANK WITHSCORE against Redis 7.2's replies
// (the test server is Redis 7.0, which lacks the option): [rank, score], a null
// reply for a missing member or key, a syntax error for another word and an arity
// error for more words.
func TestZRankWithScore(t *testing.T) {
	ctx := context.Background()
	db := New()
	db.ZAdd(ctx, "k", Z{Member: "a", Score: 1.5}, Z{Member: "b", Score: 2}, Z{Member: "c", Score: 3})
	db.RPush(ctx, "l", "x")
	tests := []struct {
		args []string
		want any
		err  error
	}{
		{[]string{"ZRANK", "k", "a", "WITHSCORE"}, []any{int64(0), "1.5"}, nil},
		{[]string{"ZRANK", "k", "c", "withscore"}, []any{int64(2), "3"}, nil},
		{[]string{"ZREVRANK", "k", "a", "WithScore"}, []any{int64(2), "1.5"}, nil},
		{[]string{"ZREVRANK", "k", "c", "WITHSCORE"}, []any{int64(0), "3"}, nil},
		{[]string{"ZRANK", "k", "x", "WITHSCORE"}, nil, nil},
		{[]string{"ZRANK", "nokey", "a", "WITHSCORE"}, nil, nil},
		{[]string{"ZRANK", "k", "a", "WITHSCORES"}, nil, ErrSyntax},
		{[]string{"ZRANK", "nokey", "a", "FOO"}, nil, ErrSyntax},
		{[]string{"ZRANK", "k", "a", "WITHSCORE", "x"}, nil, errArity("zrank")},
		{[]string{"ZREVRANK", "k", "a", "WITHSCORE", "x"}, nil, errArity("zrevrank")},
		{[]string{"ZRANK", "l", "a", "WITHSCORE"}, nil, ErrWrongType},
		{[]string{"ZRANK", "l", "a", "FOO"}, nil, ErrSyntax},
	}
	for _, tt := range tests {
		got, err := db.Do(ctx, tt.args...)
		if canon(got, err, false) != canon(tt.want, tt.err, false) {
			t.Errorf("Do(%q) = %s; want %s", tt.args, canon(got, err, false), canon(tt.want, tt.err, false))
		}
	}
	r, f, ok, err := db.ZRevRankWithScore(ctx, "k", "b")
	if r != 1 || f != 2 || !ok || err != nil {
		t.Errorf("ZRevRankWithScore(b) = %d, %v, %v, %v; want 1, 2, true", r, f, ok, err)
	}
	if _, _, ok, err := db.ZRankWithScore(ctx, "k", "x"); ok || err != nil {
		t.Errorf("ZRankWithScore(x) = ok %v, %v; want false, nil", ok, err)
	}
	if _, _, _, err := db.ZRankWithScore(ctx, "l", "x"); !errors.Is(err, ErrWrongType) {
		t.Errorf("ZRankWithScore(list) err = %v; want ErrWrongType", err)
	}
}

// zscanAll runs a full ZSCAN of key with count, calling between(i) before each step
// after the first, and returns the members returned (with repetitions) and the
// number of calls.
func zscanAll(t *testing.T, db *DB, key string, count int64, between func(i int)) ([]string, int) {
	t.Helper()
	ctx := context.Background()
	var got []string
	cursor, calls := uint64(0), 0
	for {
		if calls > 0 && between != nil {
			between(calls)
		}
		zs, next, err := db.ZScan(ctx, key, cursor, "", count)
		if err != nil {
			t.Fatalf("ZScan: %v", err)
		}
		calls++
		got = append(got, zMembers(zs)...)
		if next == 0 {
			return got, calls
		}
		if calls > 1_000_000 {
			t.Fatal("ZScan does not terminate")
		}
		cursor = next
	}
}

func TestZScanLarge(t *testing.T) {
	ctx := context.Background()
	seed := zTestSeed(t)
	r := rand.New(rand.NewPCG(seed, 1))
	db := New()
	const n = 2000
	stable := map[string]bool{}
	for i := range n {
		m := "m" + strconv.Itoa(i)
		// Scores with repeats (groups of up to ~4 members) and infinities.
		score := float64(r.IntN(n / 4))
		switch r.IntN(50) {
		case 0:
			score = math.Inf(1)
		case 1:
			score = math.Inf(-1)
		}
		db.ZAdd(ctx, "k", Z{Member: m, Score: score})
		stable[m] = true
	}
	// Members in "churn" are added and removed during the scan; the others must be
	// returned (at least once: exactly once, given unchanged scores).
	var churn []string
	for i := range n / 10 {
		m := "m" + strconv.Itoa(i*10)
		churn = append(churn, m)
		delete(stable, m)
	}
	got, calls := zscanAll(t, db, "k", 7, func(i int) {
		m := churn[r.IntN(len(churn))]
		if r.IntN(2) == 0 {
			db.ZRem(ctx, "k", m)
		} else {
			db.ZAdd(ctx, "k", Z{Member: m, Score: float64(r.IntN(n/4)) - 0.5})
		}
		db.ZAdd(ctx, "k", Z{Member: "new" + strconv.Itoa(i), Score: float64(r.IntN(n / 4))})
	})
	seen := map[string]int{}
	for _, m := range got {
		seen[m]++
	}
	for m := range stable {
		if seen[m] != 1 {
			t.Fatalf("member %s returned %d times; want 1 (seed %d)", m, seen[m], seed)
		}
	}
	if calls < n/7/2 {
		t.Errorf("full scan took %d calls with COUNT 7 over %d members; want about %d", calls, n, n/7)
	}

	// A set of more than 128 members sharing one score comes in one call.
	for i := range 300 {
		db.ZAdd(ctx, "same", Z{Member: strconv.Itoa(i), Score: 5})
	}
	got, calls = zscanAll(t, db, "same", 10, nil)
	if calls != 1 || len(got) != 300 {
		t.Errorf("ZSCAN of 300 equal scores: %d calls, %d members; want 1 call, 300", calls, len(got))
	}

	// MATCH filters, and Do replies the same as the typed method.
	zs, next, err := db.ZScan(ctx, "k", 0, "m1?", 100000)
	if err != nil || next != 0 {
		t.Fatalf("ZScan MATCH = %v, %d, %v", zs, next, err)
	}
	for _, z := range zs {
		if len(z.Member) != 3 || z.Member[:2] != "m1" {
			t.Fatalf("ZScan MATCH m1? returned %q", z.Member)
		}
	}
	want := 0
	for i := 10; i < 20; i++ {
		if _, ok, _ := db.ZScore(ctx, "k", "m"+strconv.Itoa(i)); ok {
			want++
		}
	}
	if len(zs) != want {
		t.Errorf("ZScan MATCH m1? returned %d members; want %d (those of m10..m19 present)", len(zs), want)
	}
	reply, err := db.Do(ctx, "ZSCAN", "k", "0", "MATCH", "m1?", "COUNT", "100000")
	if err != nil || canon(reply, nil, false) != canon([]any{"0", entriesReply(zs)}, nil, false) {
		t.Errorf("Do ZSCAN = %s; want %s", canon(reply, err, false), canon([]any{"0", entriesReply(zs)}, nil, false))
	}
}

func TestScoreCursor(t *testing.T) {
	scores := []float64{math.Inf(-1), -math.MaxFloat64, -1, -math.SmallestNonzeroFloat64, 0,
		math.SmallestNonzeroFloat64, 1, math.MaxFloat64, math.Inf(1)}
	for i, f := range scores {
		c := scoreCursor(f)
		if c == 0 {
			t.Errorf("scoreCursor(%g) = 0, the start cursor", f)
		}
		if back := cursorScore(c); back != f {
			t.Errorf("cursorScore(scoreCursor(%g)) = %g", f, back)
		}
		if i > 0 && scoreCursor(scores[i-1]) >= c {
			t.Errorf("scoreCursor(%g) >= scoreCursor(%g): order not kept", scores[i-1], f)
		}
	}
}

// zTestSeed returns the seed for randomized tests: ZLITE_SEED if set, else random;
// it is logged so that a failure can be replayed.
func zTestSeed(t *testing.T) uint64 {
	t.Helper()
	seed := rand.Uint64()
	if s := os.Getenv("ZLITE_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("ZLITE_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("seed %d (set ZLITE_SEED to replay)", seed)
	return seed
}

func TestZTypedMethods(t *testing.T) {
	ctx := context.Background()
	db := New()
	mustInt := func(name string, got int64, err error, want int64) {
		t.Helper()
		if got != want || err != nil {
			t.Errorf("%s = %d, %v; want %d", name, got, err, want)
		}
	}
	mustErr := func(name string, err, want error) {
		t.Helper()
		if err == nil || err.Error() != want.Error() {
			t.Errorf("%s error = %v; want %v", name, err, want)
		}
	}
	mustZs := func(name string, got []Z, err error, want ...Z) {
		t.Helper()
		if err != nil || !slices.Equal(got, want) || got == nil {
			t.Errorf("%s = %v, %v; want %v", name, got, err, want)
		}
	}
	mustStrs := func(name string, got []string, err error, want ...string) {
		t.Helper()
		if err != nil || !slices.Equal(got, want) || got == nil {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	z := func(m string, f float64) Z { return Z{Member: m, Score: f} }

	n, err := db.ZAdd(ctx, "k", z("a", 1), z("b", 2), z("c", 3))
	mustInt("ZAdd", n, err, 3)
	n, err = db.ZAddNX(ctx, "k", z("a", 9), z("d", 4))
	mustInt("ZAddNX", n, err, 1)
	n, err = db.ZAddXX(ctx, "k", z("d", 5), z("e", 5))
	mustInt("ZAddXX", n, err, 0)
	n, err = db.ZAddGT(ctx, "k", z("d", 4.5))
	mustInt("ZAddGT", n, err, 0)
	n, err = db.ZAddLT(ctx, "k", z("d", 4))
	mustInt("ZAddLT", n, err, 0)
	n, err = db.ZAddArgs(ctx, "k", ZAddArgs{Ch: true, Members: []Z{z("d", 5), z("e", 6)}})
	mustInt("ZAddArgs CH", n, err, 2)
	f, ok, err := db.ZAddArgsIncr(ctx, "k", ZAddArgs{GT: true, Members: []Z{z("e", -1)}})
	if ok || err != nil {
		t.Errorf("ZAddArgsIncr GT -1 = %v, %v, %v; want not ok", f, ok, err)
	}
	f, err = db.ZIncrBy(ctx, "k", 0.5, "e")
	if f != 6.5 || err != nil {
		t.Errorf("ZIncrBy = %v, %v; want 6.5", f, err)
	}
	mustZs("ZRangeWithScores", zOrEmpty(zMust(db.ZRangeWithScores(ctx, "k", 0, -1))), nil,
		z("a", 1), z("b", 2), z("c", 3), z("d", 5), z("e", 6.5))

	// Errors change nothing.
	_, err = db.ZAdd(ctx, "k")
	mustErr("ZAdd no members", err, errArity("zadd"))
	_, err = db.ZAddArgs(ctx, "k", ZAddArgs{NX: true, Ch: true})
	mustErr("ZAddArgs NX CH no members", err, ErrSyntax)
	_, err = db.ZAddArgs(ctx, "k", ZAddArgs{NX: true, XX: true, Members: []Z{z("x", 1)}})
	mustErr("ZAddArgs NX XX", err, zset.ErrXXAndNX)
	_, err = db.ZAddArgs(ctx, "k", ZAddArgs{GT: true, LT: true, Members: []Z{z("x", 1)}})
	mustErr("ZAddArgs GT LT", err, zset.ErrGTLTNX)
	_, _, err = db.ZAddArgsIncr(ctx, "k", ZAddArgs{Members: []Z{z("x", 1), z("y", 1)}})
	mustErr("ZAddArgsIncr two pairs", err, ErrIncrPair)
	_, err = db.ZAdd(ctx, "k", z("x", 1), z("y", math.NaN()))
	mustErr("ZAdd NaN", err, zset.ErrNotFloat)
	_, err = db.ZAdd(ctx, "new", z("y", math.NaN()))
	mustErr("ZAdd NaN new key", err, zset.ErrNotFloat)
	_, err = db.ZIncrBy(ctx, "k", math.NaN(), "a")
	mustErr("ZIncrBy NaN", err, zset.ErrNotFloat)
	db.ZAdd(ctx, "inf", z("a", math.Inf(1)))
	_, err = db.ZIncrBy(ctx, "inf", math.Inf(-1), "a")
	mustErr("ZIncrBy NaN result", err, zset.ErrNaNResult)
	n, err = db.ZAddXX(ctx, "none", z("a", 1))
	mustInt("ZAddXX missing key", n, err, 0)
	if n, _ := db.Exists(ctx, "new", "none"); n != 0 {
		t.Errorf("failed ZAdd and ZAddXX created keys")
	}
	n, err = db.ZCard(ctx, "k")
	mustInt("ZCard after errors", n, err, 5)

	// Reads.
	n, err = db.ZCount(ctx, "k", "(1", "5")
	mustInt("ZCount", n, err, 3)
	_, err = db.ZCount(ctx, "k", "x", "5")
	mustErr("ZCount bad bound", err, zset.ErrMinMaxNotFloat)
	n, err = db.ZLexCount(ctx, "k", "[b", "(d")
	mustInt("ZLexCount", n, err, 2)
	_, err = db.ZLexCount(ctx, "k", "b", "+")
	mustErr("ZLexCount bad bound", err, zset.ErrLexRange)
	if f, ok, err := db.ZScore(ctx, "k", "c"); f != 3 || !ok || err != nil {
		t.Errorf("ZScore(c) = %v, %v, %v", f, ok, err)
	}
	if _, ok, err := db.ZScore(ctx, "k", "x"); ok || err != nil {
		t.Errorf("ZScore(x) = %v, %v; want absent", ok, err)
	}
	scores, oks, err := db.ZMScore(ctx, "k", "a", "x", "e")
	if err != nil || !slices.Equal(scores, []float64{1, 0, 6.5}) || !slices.Equal(oks, []bool{true, false, true}) {
		t.Errorf("ZMScore = %v, %v, %v", scores, oks, err)
	}
	if r, ok, err := db.ZRank(ctx, "k", "c"); r != 2 || !ok || err != nil {
		t.Errorf("ZRank(c) = %d, %v, %v; want 2", r, ok, err)
	}
	if r, ok, err := db.ZRevRank(ctx, "k", "c"); r != 2 || !ok || err != nil {
		t.Errorf("ZRevRank(c) = %d, %v, %v; want 2", r, ok, err)
	}
	if _, ok, err := db.ZRank(ctx, "nokey", "c"); ok || err != nil {
		t.Errorf("ZRank(nokey) = %v, %v; want absent", ok, err)
	}

	mustStrs("ZRange", zMust(db.ZRange(ctx, "k", 1, 2)), nil, "b", "c")
	mustStrs("ZRange missing", zMust(db.ZRange(ctx, "nokey", 0, -1)), nil)
	mustStrs("ZRevRange", zMust(db.ZRevRange(ctx, "k", 0, 1)), nil, "e", "d")
	mustZs("ZRevRangeWithScores", zMust(db.ZRevRangeWithScores(ctx, "k", -1, -1)), nil, z("a", 1))
	mustStrs("ZRangeByScore", zMust(db.ZRangeByScore(ctx, "k", &ZRangeBy{Min: "(1", Max: "+inf", Offset: 1, Count: 2})), nil, "c", "d")
	mustStrs("ZRangeByScore offset only", zMust(db.ZRangeByScore(ctx, "k", &ZRangeBy{Min: "-inf", Max: "+inf", Offset: 1})), nil)
	mustStrs("ZRangeByScore count -1", zMust(db.ZRangeByScore(ctx, "k", &ZRangeBy{Min: "-inf", Max: "+inf", Offset: 3, Count: -1})), nil, "d", "e")
	mustZs("ZRangeByScoreWithScores", zMust(db.ZRangeByScoreWithScores(ctx, "k", &ZRangeBy{Min: "2", Max: "3"})), nil, z("b", 2), z("c", 3))
	mustStrs("ZRevRangeByScore", zMust(db.ZRevRangeByScore(ctx, "k", &ZRangeBy{Min: "2", Max: "(5"})), nil, "c", "b")
	mustZs("ZRevRangeByScoreWithScores", zMust(db.ZRevRangeByScoreWithScores(ctx, "k", &ZRangeBy{Min: "-inf", Max: "+inf", Count: 1})), nil, z("e", 6.5))
	_, err = db.ZRangeByScore(ctx, "k", &ZRangeBy{Min: "a", Max: "1"})
	mustErr("ZRangeByScore bad bound", err, zset.ErrMinMaxNotFloat)

	db.ZAdd(ctx, "lex", z("a", 0), z("b", 0), z("c", 0), z("d", 0))
	mustStrs("ZRangeByLex", zMust(db.ZRangeByLex(ctx, "lex", &ZRangeBy{Min: "(a", Max: "+"})), nil, "b", "c", "d")
	mustStrs("ZRevRangeByLex", zMust(db.ZRevRangeByLex(ctx, "lex", &ZRangeBy{Min: "-", Max: "[c", Offset: 1, Count: 1})), nil, "b")
	_, err = db.ZRangeByLex(ctx, "lex", &ZRangeBy{Min: "a", Max: "+"})
	mustErr("ZRangeByLex bad bound", err, zset.ErrLexRange)

	mustStrs("ZRangeArgs rank", zMust(db.ZRangeArgs(ctx, ZRangeArgs{Key: "k", Start: 0, Stop: int64(1)})), nil, "a", "b")
	mustStrs("ZRangeArgs score rev", zMust(db.ZRangeArgs(ctx, ZRangeArgs{Key: "k", Start: 5.0, Stop: "(2", ByScore: true, Rev: true})), nil, "d", "c")
	mustStrs("ZRangeArgs lex limit", zMust(db.ZRangeArgs(ctx, ZRangeArgs{Key: "lex", Start: "-", Stop: "+", ByLex: true, Offset: 1, Count: 2})), nil, "b", "c")
	mustZs("ZRangeArgsWithScores", zMust(db.ZRangeArgsWithScores(ctx, ZRangeArgs{Key: "k", Start: "-inf", Stop: math.Inf(1), ByScore: true, Count: 1})), nil, z("a", 1))
	_, err = db.ZRangeArgs(ctx, ZRangeArgs{Key: "k", Start: 0, Stop: 1, Offset: 1, Count: 1})
	mustErr("ZRangeArgs LIMIT by rank", err, ErrRangeLimit)
	_, err = db.ZRangeArgsWithScores(ctx, ZRangeArgs{Key: "lex", Start: "-", Stop: "+", ByLex: true})
	mustErr("ZRangeArgsWithScores BYLEX", err, ErrRangeWithScoresByLex)
	n, err = db.ZRangeStore(ctx, "dst", ZRangeArgs{Key: "k", Start: 1, Stop: 2})
	mustInt("ZRangeStore", n, err, 2)
	mustZs("ZRangeStore result", zMust(db.ZRangeWithScores(ctx, "dst", 0, -1)), nil, z("b", 2), z("c", 3))
	n, err = db.ZRangeStore(ctx, "dst", ZRangeArgs{Key: "k", Start: 10, Stop: 20})
	mustInt("ZRangeStore empty", n, err, 0)
	if n, _ := db.Exists(ctx, "dst"); n != 0 {
		t.Error("ZRangeStore with an empty range left dst")
	}

	// Pops and removals; emptied keys disappear.
	mustZs("ZPopMin", zMust(db.ZPopMin(ctx, "k")), nil, z("a", 1))
	mustZs("ZPopMax 2", zMust(db.ZPopMax(ctx, "k", 2)), nil, z("e", 6.5), z("d", 5))
	mustZs("ZPopMin 0", zMust(db.ZPopMin(ctx, "k", 0)), nil)
	mustZs("ZPopMin missing", zMust(db.ZPopMin(ctx, "nokey")), nil)
	_, err = db.ZPopMin(ctx, "k", -1)
	mustErr("ZPopMin -1", err, ErrNotPositive)
	_, err = db.ZPopMax(ctx, "k", 1, 2)
	mustErr("ZPopMax two counts", err, ErrSyntax)
	key, zs, err := db.ZMPop(ctx, "max", 10, "nokey", "k")
	if key != "k" || err != nil || !slices.Equal(zs, []Z{z("c", 3), z("b", 2)}) {
		t.Errorf("ZMPop = %q, %v, %v", key, zs, err)
	}
	if n, _ := db.Exists(ctx, "k"); n != 0 {
		t.Error("ZMPop emptied k but it still exists")
	}
	if key, zs, err := db.ZMPop(ctx, "MIN", 1, "k"); key != "" || zs != nil || err != nil {
		t.Errorf("ZMPop on missing keys = %q, %v, %v; want nothing", key, zs, err)
	}
	_, _, err = db.ZMPop(ctx, "middle", 1, "k")
	mustErr("ZMPop bad order", err, ErrSyntax)
	_, _, err = db.ZMPop(ctx, "MIN", 0, "k")
	mustErr("ZMPop count 0", err, ErrCountPositive)
	_, _, err = db.ZMPop(ctx, "MIN", 1)
	mustErr("ZMPop no keys", err, ErrNumKeys)

	db.ZAdd(ctx, "r", z("a", 1), z("b", 2), z("c", 3), z("d", 4))
	n, err = db.ZRemRangeByRank(ctx, "r", 0, 0)
	mustInt("ZRemRangeByRank", n, err, 1)
	n, err = db.ZRemRangeByScore(ctx, "r", "(2", "3")
	mustInt("ZRemRangeByScore", n, err, 1)
	n, err = db.ZRemRangeByLex(ctx, "r", "-", "+")
	mustInt("ZRemRangeByLex", n, err, 2)
	if n, _ := db.Exists(ctx, "r"); n != 0 {
		t.Error("ZRemRangeByLex emptied r but it still exists")
	}
	n, err = db.ZRem(ctx, "lex", "a", "b", "c", "d", "e")
	mustInt("ZRem", n, err, 4)
	if n, _ := db.Exists(ctx, "lex"); n != 0 {
		t.Error("ZRem emptied lex but it still exists")
	}

	// ZRANDMEMBER.
	db.ZAdd(ctx, "one", z("a", 1.5))
	mustStrs("ZRandMember -3", zMust(db.ZRandMember(ctx, "one", -3)), nil, "a", "a", "a")
	mustZs("ZRandMemberWithScores 5", zMust(db.ZRandMemberWithScores(ctx, "one", 5)), nil, z("a", 1.5))
	mustStrs("ZRandMember 0", zMust(db.ZRandMember(ctx, "one", 0)), nil)
	mustStrs("ZRandMember missing", zMust(db.ZRandMember(ctx, "nokey", 3)), nil)
	_, err = db.ZRandMemberWithScores(ctx, "one", math.MaxInt)
	mustErr("ZRandMemberWithScores huge", err, ErrOutOfRange)
	_, err = db.ZRandMember(ctx, "one", math.MinInt)
	mustErr("ZRandMember MinInt64", err, ErrRandCountRange)

	// Algebra.
	db.ZAdd(ctx, "s1", z("x", 1), z("y", 2))
	db.ZAdd(ctx, "s2", z("y", 10), z("z", 20))
	mustZs("ZUnionWithScores", zMust(db.ZUnionWithScores(ctx, ZStore{Keys: []string{"s1", "s2", "nokey"}, Weights: []float64{2, 1, 5}})), nil,
		z("x", 2), z("y", 14), z("z", 20))
	mustStrs("ZUnion MIN", zMust(db.ZUnion(ctx, ZStore{Keys: []string{"s1", "s2"}, Aggregate: "min"})), nil, "x", "y", "z")
	mustZs("ZInterWithScores MAX", zMust(db.ZInterWithScores(ctx, &ZStore{Keys: []string{"s1", "s2"}, Aggregate: "MAX"})), nil, z("y", 10))
	mustStrs("ZInter", zMust(db.ZInter(ctx, &ZStore{Keys: []string{"s1", "nokey"}})), nil)
	mustZs("ZDiffWithScores", zMust(db.ZDiffWithScores(ctx, "s1", "s2")), nil, z("x", 1))
	mustStrs("ZDiff", zMust(db.ZDiff(ctx, "s2", "s1")), nil, "z")
	n, err = db.ZInterCard(ctx, 0, "s1", "s2")
	mustInt("ZInterCard", n, err, 1)
	n, err = db.ZUnionStore(ctx, "u", &ZStore{Keys: []string{"s1", "s2"}})
	mustInt("ZUnionStore", n, err, 3)
	n, err = db.ZInterStore(ctx, "u", &ZStore{Keys: []string{"s1", "s2"}, Weights: []float64{1, 0}})
	mustInt("ZInterStore", n, err, 1)
	mustZs("ZInterStore result", zMust(db.ZRangeWithScores(ctx, "u", 0, -1)), nil, z("y", 2))
	n, err = db.ZDiffStore(ctx, "u", "s1", "s1")
	mustInt("ZDiffStore empty", n, err, 0)
	if n, _ := db.Exists(ctx, "u"); n != 0 {
		t.Error("ZDiffStore with an empty result left the destination")
	}
	_, err = db.ZUnion(ctx, ZStore{})
	if !errors.Is(err, ErrNoInputKeys) || err.Error() != "ERR at least 1 input key is needed for 'zunion' command" {
		t.Errorf("ZUnion no keys error = %v; want ErrNoInputKeys naming zunion", err)
	}
	_, err = db.ZInterStore(ctx, "u", &ZStore{Keys: []string{"s1", "s2"}, Weights: []float64{1}})
	mustErr("ZInterStore one weight for two keys", err, ErrSyntax)
	_, err = db.ZUnion(ctx, ZStore{Keys: []string{"s1"}, Weights: []float64{math.NaN()}})
	mustErr("ZUnion NaN weight", err, ErrWeightNotFloat)
	_, err = db.ZUnion(ctx, ZStore{Keys: []string{"s1"}, Aggregate: "COUNT"})
	mustErr("ZUnion AGGREGATE COUNT", err, ErrSyntax)
	_, err = db.ZInterCard(ctx, -1, "s1")
	mustErr("ZInterCard -1", err, ErrLimitNegative)
	db.RPush(ctx, "list", "x")
	_, err = db.ZUnion(ctx, ZStore{Keys: []string{"s1", "list"}, Aggregate: "bad"})
	mustErr("ZUnion list before bad aggregate", err, ErrWrongType)
}

// zMust drops the error of a typed read for table brevity; the callers check err
// separately where it matters (here every call above expects success).
func zMust[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestZWrongTypeTyped checks that every typed sorted-set method meeting a list
// returns ErrWrongType and leaves the list alone.
func TestZWrongTypeTyped(t *testing.T) {
	ctx := context.Background()
	db := New()
	db.RPush(ctx, "l", "x")
	calls := map[string]func() error{
		"ZAdd":       func() error { _, err := db.ZAdd(ctx, "l", Z{Member: "a", Score: 1}); return err },
		"ZIncrBy":    func() error { _, err := db.ZIncrBy(ctx, "l", 1, "a"); return err },
		"ZRem":       func() error { _, err := db.ZRem(ctx, "l", "a"); return err },
		"ZCard":      func() error { _, err := db.ZCard(ctx, "l"); return err },
		"ZCount":     func() error { _, err := db.ZCount(ctx, "l", "-inf", "+inf"); return err },
		"ZLexCount":  func() error { _, err := db.ZLexCount(ctx, "l", "-", "+"); return err },
		"ZScore":     func() error { _, _, err := db.ZScore(ctx, "l", "a"); return err },
		"ZMScore":    func() error { _, _, err := db.ZMScore(ctx, "l", "a"); return err },
		"ZRank":      func() error { _, _, err := db.ZRank(ctx, "l", "a"); return err },
		"ZRange":     func() error { _, err := db.ZRange(ctx, "l", 0, -1); return err },
		"ZRangeBy":   func() error { _, err := db.ZRangeByScore(ctx, "l", &ZRangeBy{Min: "0", Max: "1"}); return err },
		"ZRangeStor": func() error { _, err := db.ZRangeStore(ctx, "d", ZRangeArgs{Key: "l", Start: 0, Stop: 1}); return err },
		"ZPopMin":    func() error { _, err := db.ZPopMin(ctx, "l"); return err },
		"ZMPop":      func() error { _, _, err := db.ZMPop(ctx, "MIN", 1, "l"); return err },
		"ZRemRange":  func() error { _, err := db.ZRemRangeByRank(ctx, "l", 0, -1); return err },
		"ZRandMem":   func() error { _, err := db.ZRandMember(ctx, "l", 1); return err },
		"ZScan":      func() error { _, _, err := db.ZScan(ctx, "l", 0, "", 0); return err },
		"ZUnion":     func() error { _, err := db.ZUnion(ctx, ZStore{Keys: []string{"l"}}); return err },
		"ZInterCard": func() error { _, err := db.ZInterCard(ctx, 0, "l"); return err },
		"ZDiffStore": func() error { _, err := db.ZDiffStore(ctx, "d", "l"); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, ErrWrongType) {
			t.Errorf("%s on a list: err = %v; want ErrWrongType", name, err)
		}
	}
	if got, _ := db.LRange(ctx, "l", 0, -1); !slices.Equal(got, []string{"x"}) {
		t.Errorf("list changed to %q", got)
	}
	if n, _ := db.Exists(ctx, "d"); n != 0 {
		t.Error("a failed *STORE created its destination")
	}
}

// TestZReadOnlyView checks that writes through View's Tx fail with ErrReadOnly and
// change nothing, while reads work.
func TestZReadOnlyView(t *testing.T) {
	ctx := context.Background()
	db := New()
	db.ZAdd(ctx, "k", Z{Member: "a", Score: 1}, Z{Member: "b", Score: 2})
	err := db.View(func(tx *Tx) error {
		writes := map[string]error{}
		_, writes["ZAdd"] = tx.ZAdd("k", Z{Member: "c", Score: 3})
		_, writes["ZIncrBy"] = tx.ZIncrBy("k", 1, "a")
		_, writes["ZRem"] = tx.ZRem("k", "a")
		_, writes["ZPopMin"] = tx.ZPopMin("k")
		_, _, writes["ZMPop"] = tx.ZMPop("MIN", 1, "k")
		_, writes["ZRemRangeByRank"] = tx.ZRemRangeByRank("k", 0, -1)
		_, writes["ZRangeStore"] = tx.ZRangeStore("d", ZRangeArgs{Key: "k", Start: 0, Stop: -1})
		_, writes["ZUnionStore"] = tx.ZUnionStore("d", &ZStore{Keys: []string{"k"}})
		_, writes["ZInterStore"] = tx.ZInterStore("d", &ZStore{Keys: []string{"k"}})
		_, writes["ZDiffStore"] = tx.ZDiffStore("d", "k")
		_, writes["Do ZADD"] = tx.Do("ZADD", "k", "1", "z")
		_, writes["Do ZMPOP"] = tx.Do("ZMPOP", "1", "k", "MIN")
		for name, err := range writes {
			if !errors.Is(err, ErrReadOnly) {
				t.Errorf("%s in View: err = %v; want ErrReadOnly", name, err)
			}
		}
		if n, err := tx.ZCard("k"); n != 2 || err != nil {
			t.Errorf("ZCard in View = %d, %v; want 2", n, err)
		}
		if r, err := tx.Do("ZRANGE", "k", "0", "-1"); err != nil || canon(r, nil, false) != `["a", "b"]` {
			t.Errorf("Do ZRANGE in View = %v, %v", r, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if zs, _ := db.ZRangeWithScores(ctx, "k", 0, -1); !slices.Equal(zs, []Z{{Member: "a", Score: 1}, {Member: "b", Score: 2}}) {
		t.Errorf("View changed k to %v", zs)
	}
}

// TestZRandMemberDistinct checks ZRANDMEMBER's count semantics on a large set:
// positive counts give distinct members, negative counts exactly |count| members.
func TestZRandMemberDistinct(t *testing.T) {
	ctx := context.Background()
	db := New()
	for i := range 500 {
		db.ZAdd(ctx, "k", Z{Member: strconv.Itoa(i), Score: float64(i)})
	}
	for _, count := range []int{1, 10, 200, 499, 500, 1000} {
		got, err := db.ZRandMemberWithScores(ctx, "k", count)
		if err != nil || len(got) != min(count, 500) {
			t.Fatalf("ZRandMember(%d) = %d members, %v; want %d", count, len(got), err, min(count, 500))
		}
		seen := map[string]bool{}
		for _, z := range got {
			if seen[z.Member] {
				t.Fatalf("ZRandMember(%d) repeated %q", count, z.Member)
			}
			seen[z.Member] = true
			if strconv.Itoa(int(z.Score)) != z.Member {
				t.Fatalf("ZRandMember(%d) returned %v with the wrong score", count, z)
			}
		}
	}
	got, err := db.ZRandMember(ctx, "k", -1000)
	if err != nil || len(got) != 1000 {
		t.Fatalf("ZRandMember(-1000) = %d members, %v; want 1000", len(got), err)
	}
}

// TestZRandomCompare runs a random transcript over sets large enough for Redis's
// skiplist encoding (more than 128 members) on zlite and on Redis.
func TestZRandomCompare(t *testing.T) {
	seed := zTestSeed(t)
	r := rand.New(rand.NewPCG(seed, 2))
	keys := []string{"z1", "z2", "z3"}
	member := func() string { return fmt.Sprintf("m%03d", r.IntN(300)) }
	score := func() string {
		switch r.IntN(10) {
		case 0:
			return "-inf"
		case 1:
			return "+inf"
		case 2:
			return strconv.FormatFloat(r.Float64()*100, 'g', -1, 64)
		}
		return strconv.Itoa(r.IntN(100) - 20)
	}
	bound := func() string {
		b := score()
		if r.IntN(3) == 0 && b != "-inf" && b != "+inf" {
			b = "(" + b
		}
		return b
	}
	lex := func() string {
		switch r.IntN(6) {
		case 0:
			return "-"
		case 1:
			return "+"
		case 2:
			return "(" + member()
		}
		return "[" + member()
	}
	idx := func() string { return strconv.Itoa(r.IntN(400) - 200) }
	var cmds [][]string
	for _, k := range keys {
		add := []string{"ZADD", k}
		for range 200 {
			add = append(add, score(), member())
		}
		cmds = append(cmds, add)
	}
	lx := []string{"ZADD", "lx"}
	for range 200 {
		lx = append(lx, "0", member())
	}
	cmds = append(cmds, lx)
	for range 400 {
		k, k2 := keys[r.IntN(3)], keys[r.IntN(3)]
		var c []string
		switch r.IntN(20) {
		case 0:
			c = cmd("ZADD", k, "CH", score(), member(), score(), member())
		case 1:
			c = cmd("ZADD", k, []string{"NX", "XX", "GT", "LT"}[r.IntN(4)], "INCR", score(), member())
		case 2:
			c = cmd("ZINCRBY", k, score(), member())
		case 3:
			c = cmd("ZREM", k, member(), member())
		case 4:
			c = cmd("ZCOUNT", k, bound(), bound())
		case 5:
			// Lex ranges are defined only for members of equal scores: key "lx".
			switch r.IntN(5) {
			case 0:
				c = cmd("ZADD", "lx", "0", member(), "0", member())
			case 1:
				c = cmd("ZLEXCOUNT", "lx", lex(), lex())
			case 2:
				c = cmd("ZRANGEBYLEX", "lx", lex(), lex(), "LIMIT", strconv.Itoa(r.IntN(20)), strconv.Itoa(r.IntN(20)-2))
			case 3:
				c = cmd("ZREVRANGEBYLEX", "lx", lex(), lex())
			case 4:
				c = cmd("ZREMRANGEBYLEX", "lx", lex(), lex())
			}
		case 6:
			c = cmd("ZRANK", k, member())
		case 7:
			c = cmd("ZREVRANK", k, member())
		case 8:
			c = cmd("ZRANGE", k, idx(), idx(), "WITHSCORES")
		case 9:
			c = cmd("ZREVRANGE", k, idx(), idx())
		case 10:
			c = cmd("ZRANGEBYSCORE", k, bound(), bound(), "WITHSCORES", "LIMIT", strconv.Itoa(r.IntN(50)-5), strconv.Itoa(r.IntN(30)-3))
		case 11:
			c = cmd("ZREVRANGEBYSCORE", k, bound(), bound(), "LIMIT", strconv.Itoa(r.IntN(50)), strconv.Itoa(r.IntN(30)))
		case 12:
			c = cmd("ZMSCORE", k, member(), member(), member())
		case 13:
			c = cmd("ZPOPMIN", k, strconv.Itoa(r.IntN(5)))
		case 14:
			c = cmd("ZPOPMAX", k)
		case 15:
			c = cmd("ZREMRANGEBYSCORE", k, bound(), bound())
		case 16:
			c = cmd("ZREMRANGEBYRANK", k, idx(), idx())
		case 17:
			c = cmd("ZUNIONSTORE", "u", "2", k, k2, "WEIGHTS", strconv.Itoa(r.IntN(5)-2), "1.5",
				"AGGREGATE", []string{"SUM", "MIN", "MAX"}[r.IntN(3)])
		case 18:
			c = cmd("ZINTER", "2", k, k2, "WITHSCORES")
		case 19:
			c = cmd("ZRANGESTORE", "s", k, bound(), bound(), "BYSCORE", "LIMIT", "0", strconv.Itoa(r.IntN(20)))
		}
		cmds = append(cmds, c, cmd("ZCARD", k))
	}
	cmds = append(cmds, cmd("ZRANGE", "u", "0", "-1", "WITHSCORES"), cmd("ZRANGE", "s", "0", "-1", "WITHSCORES"),
		cmd("ZDIFF", "3", "z1", "z2", "z3", "WITHSCORES"), cmd("ZINTERCARD", "3", "z1", "z2", "z3"))
	compare(t, cmds...)
}
