package list

import (
	"errors"
	"math"
)

// Errors returned by [List.Set], [List.Pos] and [ValidatePos]. Their Error() texts are
// Redis's replies word for word, so the command layer can send them unchanged.
var (
	// ErrIndexOutOfRange is LSET's reply to an index outside the list.
	ErrIndexOutOfRange = errors.New("ERR index out of range")
	// ErrRankZero is LPOS's reply to RANK 0.
	ErrRankZero = errors.New("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
	// ErrRankOutOfRange is LPOS's reply to RANK -9223372036854775808 (math.MinInt64),
	// whose negation overflows. Redis 7.2 and later reject it with this text; Redis
	// 7.0 silently treated it as RANK -1.
	ErrRankOutOfRange = errors.New("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807")
	// ErrNegativeCount is LPOS's reply to a negative COUNT.
	ErrNegativeCount = errors.New("ERR COUNT can't be negative")
	// ErrNegativeMaxLen is LPOS's reply to a negative MAXLEN.
	ErrNegativeMaxLen = errors.New("ERR MAXLEN can't be negative")
)

// ValidatePos checks LPOS's RANK, COUNT and MAXLEN options, so the command layer can
// reject bad options before it looks the key up (Redis replies with the error even when
// the key is missing). rank 0 is [ErrRankZero], rank math.MinInt (Redis's LONG_MIN on
// 64-bit platforms) [ErrRankOutOfRange],
// a negative count [ErrNegativeCount], a negative maxLen [ErrNegativeMaxLen].
//
// Redis reports the first bad option in argument order. To match that, validate each
// option as it is parsed, passing the defaults for the others:
// ValidatePos(rank, 0, 0), ValidatePos(1, count, 0), ValidatePos(1, 0, maxLen).
func ValidatePos(rank, count, maxLen int) error {
	switch {
	case rank == math.MinInt:
		return ErrRankOutOfRange
	case rank == 0:
		return ErrRankZero
	case count < 0:
		return ErrNegativeCount
	case maxLen < 0:
		return ErrNegativeMaxLen
	}
	return nil
}
