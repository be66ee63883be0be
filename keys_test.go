package zlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/zlite/zlite/internal/glob"
	"github.com/zlite/zlite/list"
)

func TestKeysCompare(t *testing.T) {
	tests := []struct {
		name string
		cmds [][]string
	}{
		{"del exists type dbsize", [][]string{
			cmd("RPUSH", "a", "1"), cmd("RPUSH", "b", "1"), cmd("ZADD", "c", "1", "m"), cmd("DBSIZE"),
			cmd("EXISTS", "a", "a", "b", "x"), cmd("TYPE", "a"), cmd("TYPE", "c"), cmd("TYPE", "x"),
			cmd("DEL", "a", "x", "a"), cmd("DEL", "x"), cmd("DBSIZE"), cmd("EXISTS", "a"), cmd("DBSIZE", "x"),
			cmd("TYPE"), cmd("TYPE", "a", "b"), cmd("EXISTS"),
		}},
		{"flushall", [][]string{
			cmd("RPUSH", "a", "1"), cmd("ZADD", "c", "1", "m"), cmd("FLUSHALL", "x"), cmd("FLUSHALL", "sync", "async"),
			cmd("DBSIZE"), cmd("FLUSHALL"), cmd("DBSIZE"), cmd("RPUSH", "a", "1"), cmd("FLUSHALL", "ASYNC"),
			cmd("EXISTS", "a"), cmd("RPUSH", "a", "1"), cmd("flushall", "sync"), cmd("KEYS", "*"),
		}},
		{"rename", [][]string{
			cmd("RPUSH", "a", "1", "2"), cmd("ZADD", "z", "1", "m"), cmd("RENAME", "a", "b"), cmd("EXISTS", "a"),
			cmd("LRANGE", "b", "0", "-1"), cmd("RENAME", "b", "z"), cmd("TYPE", "z"), cmd("RENAME", "z", "z"),
			cmd("RENAME", "x", "y"), cmd("RENAME", "x", "x"), cmd("DBSIZE"), cmd("RENAME", "a"),
		}},
		{"keys glob", [][]string{
			cmd("RPUSH", "hello", "1"), cmd("RPUSH", "hallo", "1"), cmd("RPUSH", "hxllo", "1"), cmd("RPUSH", "hllo", "1"),
			cmd("RPUSH", "heeeello", "1"), cmd("RPUSH", "h[e]llo", "1"), cmd("RPUSH", "a*b", "1"), cmd("RPUSH", "a\\b", "1"),
			cmd("RPUSH", "", "1"), cmd("RPUSH", "-", "1"), cmd("RPUSH", "]", "1"), cmd("RPUSH", "^", "1"),
			cmd("sorted:KEYS", "*"), cmd("sorted:KEYS", "h?llo"), cmd("sorted:KEYS", "h*llo"), cmd("sorted:KEYS", "h[ae]llo"),
			cmd("sorted:KEYS", "h[^e]llo"), cmd("sorted:KEYS", "h[a-b]llo"), cmd("sorted:KEYS", "h[b-a]llo"),
			cmd("sorted:KEYS", "h\\[e\\]llo"), cmd("sorted:KEYS", "a\\*b"), cmd("sorted:KEYS", "a\\\\b"),
			cmd("sorted:KEYS", "a\\"), cmd("sorted:KEYS", "h[e"), cmd("sorted:KEYS", "h[el"), cmd("sorted:KEYS", "["),
			cmd("sorted:KEYS", "[]]"), cmd("sorted:KEYS", "[\\]]"), cmd("sorted:KEYS", "[^]"), cmd("sorted:KEYS", "[-]"),
			cmd("sorted:KEYS", "[a-]"), cmd("sorted:KEYS", "**o"), cmd("sorted:KEYS", "*l*l*"), cmd("sorted:KEYS", ""),
			cmd("sorted:KEYS", "?"), cmd("sorted:KEYS", "h*"), cmd("sorted:KEYS", "*?"), cmd("sorted:KEYS", "[^^]"),
			cmd("sorted:KEYS", "[\\"), cmd("sorted:KEYS", "h[^a-e]llo"), cmd("sorted:KEYS", "hello*"),
		}},
		{"scan errors", [][]string{
			cmd("RPUSH", "a", "1"), cmd("SCAN", "x"), cmd("SCAN", " 0"), cmd("SCAN", "0", "COUNT", "0"),
			cmd("SCAN", "0", "COUNT", "x"), cmd("SCAN", "0", "MATCH"), cmd("SCAN", "0", "FOO", "1"),
			cmd("SCAN", "18446744073709551616"), cmd("SCAN", "0", "TYPE", "list"), cmd("SCAN", "0", "type", "ZSET"),
			cmd("SCAN", "0", "TYPE", "string"), cmd("SCAN", "0", "MATCH", "b*"), cmd("SCAN", "0", "COUNT", "10", "MATCH", "a"),
			cmd("SCAN"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { compare(t, tt.cmds...) })
	}
}

// TestGlobRandom compares globMatch with KEYS on Redis for random patterns over a
// small alphabet rich in special characters.
func TestGlobRandom(t *testing.T) {
	rc := redisClient(t)
	ctx := context.Background()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 0))
	const alphabet = "ab*?[]^-\\"
	word := func(n int) string {
		b := make([]byte, r.IntN(n))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	if err := rc.FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for range 60 {
		k := word(6)
		keys = append(keys, k)
		rc.RPush(ctx, k, "1")
	}
	for range 300 {
		p := word(7)
		want, err := rc.Keys(ctx, p).Result()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, k := range keys {
			if (p == "*" || glob.Match(p, k)) && !slices.Contains(got, k) { // KEYS * skips matching
				got = append(got, k)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("pattern %q: zlite %q, redis %q", p, got, want)
		}
	}
}

// TestScanGuarantee checks SCAN's contract: with keys created and deleted between
// calls, every key present during the whole scan is returned exactly once.
func TestScanGuarantee(t *testing.T) {
	ctx := context.Background()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	for round := range 20 {
		db := New()
		n := 200 + r.IntN(300)
		for i := range n {
			db.RPush(ctx, "k"+strconv.Itoa(i), "v")
		}
		stable := map[string]bool{}
		for i := range n {
			stable["k"+strconv.Itoa(i)] = true
		}
		seen := map[string]int{}
		cursor, next := uint64(0), n
		for {
			keys, c, err := db.Scan(ctx, cursor, "", int64(1+r.IntN(20)))
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range keys {
				seen[k]++
			}
			if c == 0 {
				break
			}
			cursor = c
			mustCheck(t, db)
			// Churn: delete some keys (they are no longer stable), create new ones.
			for range r.IntN(10) {
				k := "k" + strconv.Itoa(r.IntN(next))
				db.Del(ctx, k)
				delete(stable, k)
			}
			for range r.IntN(10) {
				db.RPush(ctx, "k"+strconv.Itoa(next), "v")
				next++
			}
		}
		for k := range stable {
			if seen[k] != 1 {
				t.Fatalf("round %d: stable key %s returned %d times", round, k, seen[k])
			}
		}
		for k, c := range seen {
			if c != 1 {
				t.Fatalf("round %d: key %s returned %d times", round, k, c)
			}
		}
	}
}

// TestScanCompare scans a keyspace to the end on both sides, with MATCH, COUNT and
// TYPE, and compares the sets of keys returned (cursor values and order are
// implementation details in Redis).
func TestScanCompare(t *testing.T) {
	rc := redisClient(t)
	ctx := context.Background()
	if err := rc.FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	db := New()
	for i := range 300 {
		k := fmt.Sprintf("key:%d", i)
		if i%3 == 0 {
			db.Do(ctx, "ZADD", k, "1", "m")
			rc.ZAdd(ctx, k, redisZ(1, "m"))
		} else {
			db.RPush(ctx, k, "x")
			rc.RPush(ctx, k, "x")
		}
	}
	for _, tc := range []struct{ match, typ string }{{"", ""}, {"key:1*", ""}, {"", "zset"}, {"*2", "list"}} {
		var got, want []string
		for c := uint64(0); ; {
			keys, next, err := db.ScanType(ctx, c, tc.match, 7, tc.typ)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, keys...)
			if c = next; c == 0 {
				break
			}
		}
		for c := uint64(0); ; {
			keys, next, err := rc.ScanType(ctx, c, tc.match, 7, tc.typ).Result()
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, keys...)
			if c = next; c == 0 {
				break
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		want = slices.Compact(want) // Redis may return a key twice after a rehash
		if !slices.Equal(got, want) {
			t.Errorf("SCAN MATCH %q TYPE %q: zlite %d keys, redis %d keys", tc.match, tc.typ, len(got), len(want))
		}
	}
}

// TestScanCursorAcrossCompaction checks that a SCAN cursor taken before many deletes
// (and the compaction they cause) and before growth resumes at the same key.
func TestScanCursorAcrossCompaction(t *testing.T) {
	db := New(WithShards(1)) // SCAN's order is a shard's creation order
	sh := &db.shards[0]
	tx := &sh.rtx
	tx.begin(db.all)
	for i := range 1000 {
		sh.add(fmt.Sprintf("k%04d", i), list.New())
	}
	first, cursor, _ := tx.Scan(0, "", 500)
	if len(first) != 500 || first[499] != "k0499" {
		t.Fatalf("first SCAN page: %d keys ending %q", len(first), first[len(first)-1])
	}
	for i := range 600 {
		if i != 500 {
			sh.del(fmt.Sprintf("k%04d", i))
		}
	}
	if sh.keys.Entries() >= 1000 {
		t.Fatalf("%d entries after 599 deletes of 1000: not compacted", sh.keys.Entries())
	}
	for i := range 3000 {
		sh.add(fmt.Sprintf("n%04d", i), list.New())
	}
	if err := sh.keys.Check(); err != nil {
		t.Fatal(err)
	}
	rest, _, _ := tx.Scan(cursor, "", 1)
	if len(rest) != 1 || rest[0] != "k0500" {
		t.Fatalf("SCAN resumed at %q; want k0500", rest)
	}
}
