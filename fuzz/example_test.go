package fuzz_test

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/zlite/zlite"
)

// Leaderboard stands for your code: a game's high-score table that keeps each
// player's best score in a sorted set (ZADD GT) and lists the leaders (ZREVRANGE).
// In production it would run on Redis through go-redis; with zlite the same calls run
// in-process, so `go test -fuzz` can hammer it with no server.
type Leaderboard struct{ db *zlite.DB }

func NewLeaderboard() *Leaderboard { return &Leaderboard{db: zlite.New()} }

// Submit records score for player unless the player already has a better one.
func (l *Leaderboard) Submit(ctx context.Context, player string, score float64) error {
	_, err := l.db.ZAddGT(ctx, "scores", zlite.Z{Member: player, Score: score})
	return err
}

// Top returns the n best players, best first; ties go to the greater name, as in Redis.
func (l *Leaderboard) Top(ctx context.Context, n int) ([]zlite.Z, error) {
	if n <= 0 {
		return nil, nil
	}
	return l.db.ZRevRangeWithScores(ctx, "scores", 0, int64(n-1))
}

// checkLeaderboard is the property the fuzz target checks: after any sequence of
// submissions decoded from data, Top agrees with a plain map of best scores.
func checkLeaderboard(data []byte) error {
	ctx := context.Background()
	lb := NewLeaderboard()
	best := map[string]float64{}
	for i := 0; i+1 < len(data); i += 2 {
		player := fmt.Sprintf("p%d", data[i]%8)
		score := float64(int8(data[i+1])) / 4
		switch data[i+1] { // the edges of float64 that a score can take
		case 0x80:
			score = math.Inf(-1)
		case 0x7f:
			score = math.Inf(1)
		case 0x7e:
			score = math.SmallestNonzeroFloat64
		}
		if err := lb.Submit(ctx, player, score); err != nil {
			return err
		}
		if old, ok := best[player]; !ok || score > old {
			best[player] = score
		}
	}
	var want []zlite.Z
	for p, s := range best {
		want = append(want, zlite.Z{Member: p, Score: s})
	}
	slices.SortFunc(want, func(a, b zlite.Z) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(b.Member, a.Member)
	})
	n := 1 + len(data)%5
	got, err := lb.Top(ctx, n)
	if err != nil {
		return err
	}
	if want = want[:min(n, len(want))]; !slices.Equal(got, want) {
		return fmt.Errorf("Top(%d) = %v; want %v", n, got, want)
	}
	return nil
}

// FuzzLeaderboard is how you would fuzz your own score-ordering code: decode the
// fuzzer's bytes into calls, run them on code backed by zlite, compare with a model.
// Run it with: go test ./fuzz -run '^$' -fuzz '^FuzzLeaderboard$' -fuzztime 30s
func FuzzLeaderboard(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{1, 8, 2, 8, 1, 4, 3, 0x7f, 4, 0x80, 5, 0x7e})
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := checkLeaderboard(data); err != nil {
			t.Fatal(err)
		}
	})
}

// Example_leaderboard shows the code under test and the check FuzzLeaderboard runs.
func Example_leaderboard() {
	ctx := context.Background()
	lb := NewLeaderboard()
	lb.Submit(ctx, "alice", 30)
	lb.Submit(ctx, "bob", 45)
	lb.Submit(ctx, "alice", 20) // not better than 30: ignored
	lb.Submit(ctx, "carol", 45) // ties with bob: the greater name ranks first
	top, _ := lb.Top(ctx, 3)
	for i, z := range top {
		fmt.Printf("%d. %s %v\n", i+1, z.Member, z.Score)
	}

	// The fuzz target's property, on one input: p1 scores 2 then 1, p2 scores 2.
	fmt.Println(checkLeaderboard([]byte{1, 8, 2, 8, 1, 4}))
	// Output:
	// 1. carol 45
	// 2. bob 45
	// 3. alice 30
	// <nil>
}
