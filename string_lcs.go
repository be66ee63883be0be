package zlite

import (
	"errors"
	"strings"
)

// LCS: the longest common subsequence of two strings, by Redis's dynamic
// programming table and its walk back through it, so that the subsequence and the
// ranges are Redis's among the equally long ones.

var (
	// ErrLCSNotString is LCS's error when a key holds another type than a string.
	ErrLCSNotString = errors.New("ERR The specified keys must contain string values")
	// ErrLCSLenAndIdx is LCS's error for LEN and IDX together.
	//lint:ignore ST1005 Redis's reply, byte for byte, ends with a full stop.
	ErrLCSLenAndIdx = errors.New("ERR If you want both the length and indexes, please just use IDX.")
	// ErrLCSTooLarge is LCS's error when its table of (len(a)+1)·(len(b)+1) 4-byte
	// cells would exceed 512 MB (Redis's proto-max-bulk-len).
	ErrLCSTooLarge = errors.New("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len")
)

// LCSQuery is LCS's arguments, as go-redis's redis.LCSQuery: Len asks for the
// length only, Idx for the matching ranges, MinMatchLen drops shorter ranges,
// WithMatchLen adds each range's length.
type LCSQuery struct {
	Key1, Key2   string
	Len, Idx     bool
	MinMatchLen  int
	WithMatchLen bool
}

// LCSPosition is a range of one string, inclusive.
type LCSPosition struct{ Start, End int64 }

// LCSMatchedPosition is one matching range of LCS ... IDX: where it is in each
// string, and its length (with WITHMATCHLEN).
type LCSMatchedPosition struct {
	Key1, Key2 LCSPosition
	MatchLen   int64
}

// LCSMatch is LCS's result: the subsequence (without LEN or IDX), its length, and
// with IDX the matching ranges, last first, as Redis lists them.
type LCSMatch struct {
	MatchString string
	Matches     []LCSMatchedPosition
	Len         int64
}

// LCS is LCS: the longest common subsequence of the strings at q.Key1 and q.Key2
// (a missing key is an empty string). Errors: [ErrLCSNotString], [ErrLCSLenAndIdx],
// [ErrLCSTooLarge]. The complexity is O(len(a)·len(b)) in time and memory.
//
//zlite:command lcs q.Key1 q.Key2
func (tx *Tx) LCS(q *LCSQuery) (*LCSMatch, error) {
	a, b, err := tx.lcsStrings(q.Key1, q.Key2)
	if err != nil {
		return nil, err
	}
	if q.Len && q.Idx {
		return nil, ErrLCSLenAndIdx
	}
	return lcs(a, b, q)
}

// lcsStrings reads LCS's two strings, checking both types first.
func (tx *Tx) lcsStrings(k1, k2 string) (a, b []byte, err error) {
	a, _, err1 := tx.stringView(k1)
	b, _, err2 := tx.stringView(k2)
	if err1 != nil || err2 != nil {
		return nil, nil, ErrLCSNotString
	}
	return a, b, nil
}

// lcs computes q's result over a and b (q's keys unused).
func lcs(a, b []byte, q *LCSQuery) (*LCSMatch, error) {
	w := len(b) + 1
	if cells := uint64(len(a)+1) * uint64(w); cells*4 > maxStringLen {
		return nil, ErrLCSTooLarge
	}
	t := make([]uint32, (len(a)+1)*w)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				t[i*w+j] = t[(i-1)*w+j-1] + 1
			} else {
				t[i*w+j] = max(t[(i-1)*w+j], t[i*w+j-1])
			}
		}
	}
	n := t[len(a)*w+len(b)]
	m := &LCSMatch{Len: int64(n)}
	if q.Len && !q.Idx {
		return m, nil
	}
	out := make([]byte, n)
	idx := n
	unset := len(a) // aStart == len(a): no range open
	aStart, aEnd, bStart, bEnd := unset, 0, 0, 0
	for i, j := len(a), len(b); i > 0 && j > 0; {
		emit := false
		if a[i-1] == b[j-1] {
			out[idx-1] = a[i-1]
			switch {
			case aStart == unset:
				aStart, aEnd, bStart, bEnd = i-1, i-1, j-1, j-1
			case aStart == i && bStart == j:
				aStart--
				bStart--
			default:
				emit = true
			}
			if aStart == 0 || bStart == 0 {
				emit = true
			}
			idx--
			i--
			j--
		} else {
			if t[(i-1)*w+j] > t[i*w+j-1] {
				i--
			} else {
				j--
			}
			if aStart != unset {
				emit = true
			}
		}
		if emit {
			length := int64(aEnd - aStart + 1)
			if q.Idx && (q.MinMatchLen <= 0 || length >= int64(q.MinMatchLen)) {
				p := LCSMatchedPosition{Key1: LCSPosition{int64(aStart), int64(aEnd)}, Key2: LCSPosition{int64(bStart), int64(bEnd)}}
				if q.WithMatchLen {
					p.MatchLen = length
				}
				m.Matches = append(m.Matches, p)
			}
			aStart = unset
		}
	}
	if !q.Idx {
		m.MatchString = string(out)
	}
	return m, nil
}

func init() {
	register(&command{name: "lcs", arity: -3, reply: replyLCS, run: cmdLCS})
}

// cmdLCS is LCS key1 key2 [LEN] [IDX] [MINMATCHLEN len] [WITHMATCHLEN]: the keys'
// types are checked first, then the options in order.
func cmdLCS(tx *Tx, a []string) (any, error) {
	x, y, err := tx.lcsStrings(a[1], a[2])
	if err != nil {
		return nil, err
	}
	q := &LCSQuery{}
	for j := 3; j < len(a); j++ {
		switch opt := a[j]; {
		case strings.EqualFold(opt, "idx"):
			q.Idx = true
		case strings.EqualFold(opt, "len"):
			q.Len = true
		case strings.EqualFold(opt, "withmatchlen"):
			q.WithMatchLen = true
		case strings.EqualFold(opt, "minmatchlen") && j+1 < len(a):
			n, err := parseInt(a[j+1])
			if err != nil {
				return nil, err
			}
			q.MinMatchLen = int(max(0, min(n, int64(maxStringLen))))
			j++
		default:
			return nil, ErrSyntax
		}
	}
	if q.Len && q.Idx {
		return nil, ErrLCSLenAndIdx
	}
	m, err := lcs(x, y, q)
	switch {
	case err != nil:
		return nil, err
	case q.Idx:
		matches := make([]any, len(m.Matches))
		for i, p := range m.Matches {
			r := []any{[]any{p.Key1.Start, p.Key1.End}, []any{p.Key2.Start, p.Key2.End}}
			if q.WithMatchLen {
				r = append(r, p.MatchLen)
			}
			matches[i] = r
		}
		return []any{"matches", matches, "len", m.Len}, nil
	case q.Len:
		return m.Len, nil
	}
	return m.MatchString, nil
}
