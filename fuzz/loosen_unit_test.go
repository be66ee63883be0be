package fuzz

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/zlite/zlite/internal/redistest"
)

func str(s string) val  { return val{kind: kStr, s: s} }
func num(i int64) val   { return val{kind: kInt, i: i} }
func arr(vs ...val) val { return val{kind: kArr, a: vs} }

func strs(ss ...string) val {
	v := val{kind: kArr}
	for _, s := range ss {
		v.a = append(v.a, str(s))
	}
	return v
}

// TestCompareReply checks that each loosening accepts what it should and nothing more.
func TestCompareReply(t *testing.T) {
	set := strs("a", "1", "b", "2.5", "c", "3")
	tests := []struct {
		name    string
		args    []string
		zl, rd  val
		after   val
		redis72 bool
		ok      bool
	}{
		{"exact", []string{"LPOP", "l"}, str("a"), str("a"), val{}, true, true},
		{"different bytes", []string{"LPOP", "l"}, str("a"), str("b"), val{}, true, false},
		{"nil vs empty", []string{"LPOP", "l"}, val{}, str(""), val{}, true, false},
		{"int vs string", []string{"LLEN", "l"}, val{kind: kInt, i: 1}, str("1"), val{}, true, false},
		{"score-format 7.0", []string{"ZSCORE", "z", "m"}, str("0.1"), str("0.10000000000000001"), val{}, false, true},
		{"score-format 7.2 is exact", []string{"ZSCORE", "z", "m"}, str("0.1"), str("0.10000000000000001"), val{}, true, false},
		{"score-format other value", []string{"ZSCORE", "z", "m"}, str("0.1"), str("0.10000000000000002"), val{}, false, false},
		{"negative-zero", []string{"ZSCORE", "z", "m"}, str("0"), str("-0"), val{}, true, true},
		{"negative-zero in arrays", []string{"ZPOPMIN", "z"}, strs("m", "-0"), strs("m", "0"), val{}, true, true},
		{"negative-zero is not any zero", []string{"ZSCORE", "z", "m"}, str("0"), str("-0.0"), val{}, true, false},
		{"negative-zero not for lists", []string{"LPOP", "l"}, str("-0"), str("0"), val{}, true, false},
		{"score-format not for lists", []string{"LPOP", "l"}, str("0.1"), str("0.10000000000000001"), val{}, false, false},
		{"score-format in arrays", []string{"ZRANGE", "z", "0", "-1", "WITHSCORES"}, strs("a", "0.1"), strs("a", "0.10000000000000001"), val{}, false, true},
		{"score-format members stay exact", []string{"ZRANGE", "z", "0", "-1"}, strs("a"), strs("b"), val{}, false, false},
		{"keys unordered", []string{"KEYS", "*"}, strs("a", "b"), strs("b", "a"), val{}, true, true},
		{"keys different", []string{"KEYS", "*"}, strs("a", "b"), strs("b", "c"), val{}, true, false},
		{"zscan unordered pairs", []string{"ZSCAN", "z", "0"}, arr(str("0"), strs("a", "1", "b", "2")), arr(str("0"), strs("b", "2", "a", "1")), val{}, true, true},
		{"zscan pairs keep scores", []string{"ZSCAN", "z", "0"}, arr(str("0"), strs("a", "2", "b", "1")), arr(str("0"), strs("b", "2", "a", "1")), val{}, true, false},
		{"randmember distinct", []string{"ZRANDMEMBER", "z", "2"}, strs("c", "a"), strs("a", "b"), set, true, true},
		{"randmember repeated with positive count", []string{"ZRANDMEMBER", "z", "2"}, strs("a", "a"), strs("a", "b"), set, true, false},
		{"randmember repeats allowed", []string{"ZRANDMEMBER", "z", "-3"}, strs("a", "a", "a"), strs("a", "b", "c"), set, true, true},
		{"randmember wrong count", []string{"ZRANDMEMBER", "z", "-3"}, strs("a", "a"), strs("a", "b", "c"), set, true, false},
		{"randmember not a member", []string{"ZRANDMEMBER", "z", "1"}, strs("x"), strs("a"), set, true, false},
		{"randmember withscores", []string{"ZRANDMEMBER", "z", "1", "WITHSCORES"}, strs("b", "2.5"), strs("a", "1"), set, true, true},
		{"randmember wrong score", []string{"ZRANDMEMBER", "z", "1", "WITHSCORES"}, strs("b", "1"), strs("a", "1"), set, true, false},
		{"randmember single", []string{"ZRANDMEMBER", "z"}, str("c"), str("a"), set, true, true},
		{"randmember nil", []string{"ZRANDMEMBER", "z"}, val{}, str("a"), set, true, false},
		{"randomkey", []string{"RANDOMKEY"}, str("k2"), str("k1"), strs("k1", "k2"), true, true},
		{"randomkey unknown", []string{"RANDOMKEY"}, str("k3"), str("k1"), strs("k1", "k2"), true, false},
		{"a panic is never a reply", []string{"LMPOP", "9223372036854775807", "a", "LEFT"}, val{kind: kErr, s: "panic: index out of range"}, val{kind: kErr, s: "ERR syntax error"}, val{}, true, false},
		{"randomkey nil", []string{"RANDOMKEY"}, str("k1"), val{}, strs("k1"), true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := compareReply(tt.args, tt.zl, tt.rd, tt.after, tt.redis72)
			if (msg == "") != tt.ok {
				t.Errorf("compareReply(%q, %s, %s) = %q; want ok=%v", tt.args, tt.zl, tt.rd, msg, tt.ok)
			}
		})
	}
}

// TestZRankWithScoreRewrite checks the script that stands in for ZRANK … WITHSCORE
// on servers older than 7.2 against Redis's own ZRANK and ZSCORE.
func TestZRankWithScoreRewrite(t *testing.T) {
	c := newRedisClient(redistest.Require(t), redisDB, "zlite-fuzz-rank")
	defer c.Close()
	r := redisTarget{c}
	ctx := context.Background()
	if err := c.FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	c.ZAdd(ctx, "z", redis.Z{Score: 0.1, Member: "a"}, redis.Z{Score: 2, Member: "b"})
	c.RPush(ctx, "l", "x")
	tests := []struct {
		args []string
		want val
	}{
		{[]string{"ZRANK", "z", "b", "WITHSCORE"}, arr(num(1), str("2"))},
		{[]string{"zrevrank", "z", "a", "withscore"}, arr(num(1), str("0.1"))},
		{[]string{"ZRANK", "z", "nope", "WITHSCORE"}, val{}},
		{[]string{"ZRANK", "nokey", "a", "WITHSCORE"}, val{}},
		{[]string{"ZRANK", "l", "a", "WITHSCORE"}, val{kind: kErr, s: "WRONGTYPE Operation against a key holding the wrong kind of value"}},
	}
	for _, tt := range tests {
		got, err := r.exec([][]string{redisArgs(tt.args, false)})
		if err != nil {
			t.Fatal(err)
		}
		if !equalVal(got[0], tt.want, true) {
			t.Errorf("%s rewritten for Redis 7.0 = %s; want %s", formatCmd(tt.args), got[0], tt.want)
		}
	}
}
