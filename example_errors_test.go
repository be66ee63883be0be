package zlite_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zlite/zlite"
)

// Errors are matched with errors.Is, never by their text (which is Redis's).
func ExampleError() {
	ctx := context.Background()
	db := zlite.New()
	db.RPush(ctx, "l", "a")

	_, err := db.Do(ctx, "ZADD", "z", "1")
	var e *zlite.Error
	if errors.As(err, &e) && errors.Is(err, zlite.ErrArity) {
		fmt.Println("arity:", e.Command)
	}
	_, err = db.Do(ctx, "FROB", "x")
	fmt.Printf("%v %q\n", errors.Is(err, zlite.ErrUnknownCommand), err)
	_, err = db.Do(ctx, "ZRANGE", "l", "0", "-1")
	fmt.Println(errors.Is(err, zlite.ErrWrongType))
	_, err = db.Do(ctx, "LMPOP", "0", "l", "LEFT")
	fmt.Println(errors.Is(err, zlite.ErrNumKeys))
	_, err = db.Do(ctx, "ZUNION", "0", "z")
	fmt.Println(errors.Is(err, zlite.ErrNoInputKeys), err)
	// Output:
	// arity: zadd
	// true "ERR unknown command 'FROB', with args beginning with: 'x' "
	// true
	// true
	// true ERR at least 1 input key is needed for 'zunion' command
}

// A reply may hold at most WithMaxReplyElements elements; only ZRANDMEMBER with a
// negative count (members may repeat) can ask for more than the keyspace holds.
func ExampleWithMaxReplyElements() {
	ctx := context.Background()
	db := zlite.New(zlite.WithMaxReplyElements(1000))
	db.ZAdd(ctx, "z", zlite.Z{Member: "a", Score: 1})
	picks, _ := db.ZRandMember(ctx, "z", -3)
	fmt.Println(picks)
	_, err := db.Do(ctx, "ZRANDMEMBER", "z", "-2000000000", "WITHSCORES")
	fmt.Println(errors.Is(err, zlite.ErrReplyTooLarge), err)
	// Output:
	// [a a a]
	// true ERR reply would hold more than 1000 elements (zlite.WithMaxReplyElements)
}

func ExampleDB_Stats() {
	ctx := context.Background()
	// A fake clock so that the output is stable: each reading is 500 ns after the last, so every command
	// takes 500 ns.
	var now time.Time
	clock := func() time.Time { now = now.Add(500 * time.Nanosecond); return now }
	db := zlite.New(zlite.WithLatencyClock(clock))
	db.ZAdd(ctx, "z", zlite.Z{Member: "a", Score: 1}, zlite.Z{Member: "b", Score: 2})
	db.RPush(ctx, "l", "x")
	db.ZScore(ctx, "z", "a")
	db.Do(ctx, "ZSCORE", "z", "b")

	st := db.Stats()
	fmt.Println("keys:", st.Keys, "zset members:", st.Types["zset"].Elements, "commands:", st.Commands)
	zscore := st.Command["zscore"]
	fmt.Println("ZSCORE calls:", zscore.Calls, "p99 ≤", zscore.Latency.Quantile(0.99))
	// Output:
	// keys: 2 zset members: 2 commands: 4
	// ZSCORE calls: 2 p99 ≤ 512ns
}
