package zset

import "errors"

// Errors returned by this package. Each one's Error() is Redis's reply text, byte for
// byte, so the command layer can return it unchanged; match them with errors.Is.
var (
	// ErrNotFloat is returned for a score that Redis would not parse, or a NaN score.
	ErrNotFloat = errors.New("ERR value is not a valid float")
	// ErrMinMaxNotFloat is returned for a malformed score range bound.
	ErrMinMaxNotFloat = errors.New("ERR min or max is not a float")
	// ErrLexRange is returned for a malformed lexicographic range bound.
	ErrLexRange = errors.New("ERR min or max not valid string range item")
	// ErrNaNResult is returned when an increment would make a score NaN (inf + -inf).
	ErrNaNResult = errors.New("ERR resulting score is not a number (NaN)")
	// ErrXXAndNX is returned when ZADD is given both XX and NX.
	ErrXXAndNX = errors.New("ERR XX and NX options at the same time are not compatible")
	// ErrGTLTNX is returned when ZADD is given more than one of GT, LT and NX.
	ErrGTLTNX = errors.New("ERR GT, LT, and/or NX options at the same time are not compatible")
)
