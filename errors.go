package zlite

import (
	"errors"
	"strings"

	"github.com/zlite/zlite/list"
)

// Errors returned by the keyspace. Each one's Error() is Redis's reply text, byte for
// byte, so a reply from [DB.Do] can be compared with (or sent as) Redis's; match them
// with errors.Is. Errors from the zset and list packages (zset.ErrNotFloat,
// list.ErrIndexOutOfRange, ...) are returned unchanged.
var (
	// ErrWrongType is returned when a command meets a key holding the other kind of value.
	ErrWrongType = errors.New("WRONGTYPE Operation against a key holding the wrong kind of value")
	// ErrSyntax is Redis's reply to an unknown option or a misplaced argument.
	ErrSyntax = errors.New("ERR syntax error")
	// ErrNotInteger is returned for an argument that is not a 64-bit integer as Redis
	// parses them (no sign '+', no leading zeros, no spaces).
	ErrNotInteger = errors.New("ERR value is not an integer or out of range")
	// ErrNoSuchKey is returned by RENAME and LSET when the key does not exist.
	ErrNoSuchKey = errors.New("ERR no such key")
	// ErrTimeoutNegative is returned by the blocking commands for a negative timeout.
	ErrTimeoutNegative = errors.New("ERR timeout is negative")
	// ErrTimeoutNotFloat is returned by the blocking commands for a malformed timeout.
	ErrTimeoutNotFloat = errors.New("ERR timeout is not a float or out of range")
	// ErrTimeoutOutOfRange is returned by the blocking commands (through Do) for a
	// timeout whose deadline, in milliseconds since 1970, does not fit in 64 bits.
	ErrTimeoutOutOfRange = errors.New("ERR timeout is out of range")
	// ErrNotPositive is returned by LPOP/RPOP for a negative count.
	ErrNotPositive = errors.New("ERR value is out of range, must be positive")
	// errNumKeys is LMPOP/ZMPOP/BLMPOP/BZMPOP's reply to a numkeys below 1 or malformed.
	errNumKeys = errors.New("ERR numkeys should be greater than 0")
	// errCountPositive is LMPOP/ZMPOP's reply to a COUNT below 1 or malformed.
	errCountPositive = errors.New("ERR count should be greater than 0")
	// LPOS's replies to bad options; errRankZero is list.ErrRankZero's text.
	errRankZero   = list.ErrRankZero
	errLPosCount  = list.ErrNegativeCount
	errLPosMaxLen = list.ErrNegativeMaxLen
	// ErrReadOnly is returned by a write made through the [Tx] of [DB.View].
	// It has no Redis counterpart.
	ErrReadOnly = errors.New("zlite: write in a read-only transaction (DB.View)")
)

// errArity is Redis's reply to a command called with the wrong number of arguments;
// name is the command's canonical lower-case name, as Redis prints it.
func errArity(name string) error {
	return errors.New("ERR wrong number of arguments for '" + name + "' command")
}

// errUnknownCommand is Redis 7.0's reply to an unknown command: the name as typed (at
// most 128 bytes), then the arguments quoted, each cut so that the list stays within
// about 128 bytes, exactly as Redis builds it; CR and LF become spaces.
func errUnknownCommand(args []string) error {
	var list strings.Builder
	for _, a := range args[1:] {
		if list.Len() >= 128 {
			break
		}
		list.WriteString("'")
		list.WriteString(a[:min(len(a), 128-list.Len()+1)])
		list.WriteString("' ")
	}
	name := args[0]
	if len(name) > 128 {
		name = name[:128]
	}
	msg := "ERR unknown command '" + name + "', with args beginning with: " + list.String()
	return errors.New(strings.NewReplacer("\r", " ", "\n", " ").Replace(msg))
}

// errorString is an error whose text is a Redis reply.
type errorString string

func (e errorString) Error() string { return string(e) }
