package zlite

import "testing"

// TestCommandsDeclareReply checks that every command of the table declares the RESP
// form of its reply: a server cannot tell a null bulk string from a null array, or a
// status from a bulk string, by looking at Do's reply.
func TestCommandsDeclareReply(t *testing.T) {
	n := 0
	for c := range Commands() {
		n++
		if c.c.reply == replyUndeclared {
			t.Errorf("command %q declares no reply form (set reply: in its register call)", c.Name())
		}
	}
	if n != len(commands) {
		t.Errorf("Commands() yielded %d commands; the table has %d", n, len(commands))
	}
}

func TestCommandShape(t *testing.T) {
	tests := []struct {
		args []string
		want Shape
	}{
		{cmd("LPOP", "k"), Shape{}},
		{cmd("LPOP", "k", "2"), Shape{NullArray: true}},
		{cmd("BLPOP", "k", "0"), Shape{NullArray: true}},
		{cmd("BLMOVE", "a", "b", "LEFT", "LEFT", "0"), Shape{NullArray: true, BatchNullBulk: true}},
		{cmd("LSET", "k", "0", "v"), Shape{Status: true}},
		{cmd("ZSCORE", "k", "m"), Shape{Doubles: DoubleScalar}},
		{cmd("ZMSCORE", "k", "m"), Shape{Doubles: DoubleEach}},
		{cmd("ZRANGE", "k", "0", "-1"), Shape{}},
		{cmd("ZRANGE", "k", "0", "-1", "withscores"), Shape{Doubles: DoublePairs}},
		{cmd("ZRANGE", "withscores", "0", "-1"), Shape{}},
		{cmd("ZUNION", "1", "withscores"), Shape{}},
		{cmd("ZUNION", "1", "withscores", "WITHSCORES"), Shape{Doubles: DoublePairs}},
		{cmd("ZUNION", "x", "withscores"), Shape{}},
		{cmd("ZPOPMIN", "k"), Shape{Doubles: DoubleFlatPairs}},
		{cmd("ZPOPMIN", "k", "1"), Shape{Doubles: DoublePairs}},
		{cmd("BZPOPMIN", "k", "0"), Shape{NullArray: true, Doubles: DoubleLast}},
		{cmd("ZMPOP", "1", "k", "MIN"), Shape{NullArray: true, Doubles: DoubleMPop}},
	}
	for _, tt := range tests {
		c, err := Lookup(tt.args)
		if err != nil {
			t.Fatalf("Lookup(%q): %v", tt.args, err)
		}
		if got := c.Shape(tt.args); got != tt.want {
			t.Errorf("Shape(%q) = %+v; want %+v", tt.args, got, tt.want)
		}
	}
}
