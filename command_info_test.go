package zlite

import (
	"context"
	"testing"

	"github.com/zlite/zlite/internal/serverapi"
)

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
		want serverapi.Shape
	}{
		{cmd("LPOP", "k"), serverapi.Shape{}},
		{cmd("LPOP", "k", "2"), serverapi.Shape{NullArray: true}},
		{cmd("BLPOP", "k", "0"), serverapi.Shape{NullArray: true}},
		{cmd("BLMOVE", "a", "b", "LEFT", "LEFT", "0"), serverapi.Shape{NullArray: true, BatchNullBulk: true}},
		{cmd("LSET", "k", "0", "v"), serverapi.Shape{Status: true}},
		{cmd("ZSCORE", "k", "m"), serverapi.Shape{Doubles: serverapi.DoubleScalar}},
		{cmd("ZMSCORE", "k", "m"), serverapi.Shape{Doubles: serverapi.DoubleEach}},
		{cmd("ZRANGE", "k", "0", "-1"), serverapi.Shape{}},
		{cmd("ZRANGE", "k", "0", "-1", "withscores"), serverapi.Shape{Doubles: serverapi.DoublePairs}},
		{cmd("ZRANGE", "withscores", "0", "-1"), serverapi.Shape{}},
		{cmd("ZUNION", "1", "withscores"), serverapi.Shape{}},
		{cmd("ZUNION", "1", "withscores", "WITHSCORES"), serverapi.Shape{Doubles: serverapi.DoublePairs}},
		{cmd("ZUNION", "x", "withscores"), serverapi.Shape{}},
		{cmd("ZPOPMIN", "k"), serverapi.Shape{Doubles: serverapi.DoubleFlatPairs}},
		{cmd("ZPOPMIN", "k", "1"), serverapi.Shape{Doubles: serverapi.DoublePairs}},
		{cmd("BZPOPMIN", "k", "0"), serverapi.Shape{NullArray: true, Doubles: serverapi.DoubleLast}},
		{cmd("ZMPOP", "1", "k", "MIN"), serverapi.Shape{NullArray: true, Doubles: serverapi.DoubleMPop}},
	}
	for _, tt := range tests {
		c, err := Lookup(tt.args)
		if err != nil {
			t.Fatalf("Lookup(%q): %v", tt.args, err)
		}
		if got := shapeOf(c, tt.args); got != tt.want {
			t.Errorf("Shape(%q) = %+v; want %+v", tt.args, got, tt.want)
		}
	}
}

// TestErrorTextLines checks the errors whose text holds the caller's bytes against
// the replies of redis-server 7.0.15: CR and LF at the ends of the message trimmed,
// the others turned into spaces, the option cut at a NUL.
func TestErrorTextLines(t *testing.T) {
	db := New()
	ctx := context.Background()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"PEXPIREAT", "k", "1", "fo\r\n\n"}, "ERR Unsupported option fo"},
		{[]string{"PEXPIREAT", "k", "1", "\x89\n"}, "ERR Unsupported option \x89"},
		{[]string{"PEXPIREAT", "k", "1", "\na\nb"}, "ERR Unsupported option  a b"},
		{[]string{"PEXPIREAT", "k", "1", "x\x00y\n"}, "ERR Unsupported option x"},
		{[]string{"foo\n", "x\ny\n"}, "ERR unknown command 'foo ', with args beginning with: 'x y ' "},
	}
	for _, tt := range tests {
		_, err := db.Do(ctx, tt.args...)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Do(%q) = %v; want %q", tt.args, err, tt.want)
		}
	}
}
