package zlite

import (
	"errors"
	"strconv"
	"strings"
)

// Errors returned by the keyspace. Each one's Error() is Redis's reply text, byte for
// byte, so a reply from [DB.Do] can be compared with (or sent as) Redis's; match them
// with errors.Is, never by text. Errors whose text names the command or quotes its
// arguments are an [*Error] that matches its kind (ErrArity, ErrUnknownCommand,
// ErrNoInputKeys, ErrReplyTooLarge) with errors.Is. Errors from the zset and list
// packages (zset.ErrNotFloat, list.ErrIndexOutOfRange, ...) are returned unchanged.
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
	// ErrInvalidCursor is SCAN's and ZSCAN's reply to a malformed cursor.
	ErrInvalidCursor = errors.New("ERR invalid cursor")
	// ErrNotPositive is returned by LPOP/RPOP for a negative count.
	ErrNotPositive = errors.New("ERR value is out of range, must be positive")
	// ErrNumKeys is LMPOP/ZMPOP/BLMPOP/BZMPOP's reply to a numkeys below 1 or
	// malformed, and the typed methods' to no keys.
	ErrNumKeys = errors.New("ERR numkeys should be greater than 0")
	// ErrCountPositive is LMPOP/ZMPOP's reply to a COUNT below 1 or malformed.
	ErrCountPositive = errors.New("ERR count should be greater than 0")
	// ErrArity matches (with errors.Is) Redis's reply to a command called with the
	// wrong number of arguments, an [*Error] whose text names the command:
	// "ERR wrong number of arguments for 'zadd' command".
	ErrArity = errors.New("ERR wrong number of arguments")
	// ErrUnknownCommand matches (with errors.Is) [DB.Do]'s reply to a command it does
	// not know, an [*Error] whose text quotes the command and its first arguments as
	// Redis does: "ERR unknown command 'foo', with args beginning with: 'a' ".
	ErrUnknownCommand = errors.New("ERR unknown command")
	// ErrReplyTooLarge matches (with errors.Is) the error of a command whose reply
	// would hold more elements than [WithMaxReplyElements] allows, an [*Error] whose
	// text gives the bound. It has no Redis counterpart (Redis streams the reply).
	ErrReplyTooLarge = errors.New("ERR reply too large")
	// ErrReadOnly is returned by a write made through the [Tx] of [DB.View].
	// It has no Redis counterpart.
	ErrReadOnly = errors.New("zlite: write in a read-only transaction (DB.View)")
	// ErrUndeclaredKey is the value of the panic of a [Tx] of [DB.UpdateKeys] or
	// [DB.ViewKeys] that reaches a key in a shard that none of the declared keys
	// shares (a programming error, like a misuse of a sync.Mutex).
	ErrUndeclaredKey = errors.New("zlite: key not declared to UpdateKeys or ViewKeys")
)

// Error is an error whose text is Redis's reply and names the command or quotes its
// arguments, so it cannot be one fixed value. Kind is the exported sentinel it
// matches with errors.Is; errors.As gives the command:
//
//	var e *zlite.Error
//	if errors.As(err, &e) && errors.Is(e, zlite.ErrArity) { ... e.Command ... }
type Error struct {
	// Kind is the sentinel the error matches: [ErrArity], [ErrUnknownCommand],
	// [ErrNoInputKeys] or [ErrReplyTooLarge].
	Kind error
	// Command is the command's name: lower case as Redis prints it, or as typed for
	// ErrUnknownCommand.
	Command string
	msg     string
}

// Error returns Redis's reply text.
func (e *Error) Error() string { return e.msg }

// Is reports whether target is e's Kind.
func (e *Error) Is(target error) bool { return target == e.Kind }

// errArity is Redis's reply to a command called with the wrong number of arguments;
// name is the command's canonical lower-case name, as Redis prints it.
func errArity(name string) error {
	return &Error{Kind: ErrArity, Command: name,
		msg: "ERR wrong number of arguments for '" + name + "' command"}
}

// errNoInputKeys is the algebra commands' reply to numkeys < 1, naming the command.
func errNoInputKeys(name string) error {
	return &Error{Kind: ErrNoInputKeys, Command: name,
		msg: "ERR at least 1 input key is needed for '" + name + "' command"}
}

// errReplyTooLarge is the error of command when its reply would hold more than max
// elements.
func errReplyTooLarge(name string, max int) error {
	return &Error{Kind: ErrReplyTooLarge, Command: name,
		msg: "ERR reply would hold more than " + strconv.Itoa(max) +
			" elements (zlite.WithMaxReplyElements)"}
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
	return &Error{Kind: ErrUnknownCommand, Command: args[0], msg: errorText(msg)}
}

// errorText returns msg as Redis sends an error it formats with the caller's bytes in
// it (addReplyErrorFormat): CR and LF at either end trimmed, the others turned into
// spaces, so that the reply stays one line of the protocol. Checked against
// redis-server 7.0.15: an option "fo\r\n\n" replies "ERR Unsupported option fo", one
// "\na\nb" "ERR Unsupported option  a b". O(len(msg)).
func errorText(msg string) string {
	msg = strings.Trim(msg, "\r\n")
	if !strings.ContainsAny(msg, "\r\n") {
		return msg
	}
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(msg)
}
