package zlite

import (
	"errors"
	"strconv"
	"strings"
)

// The generic key commands of Do: parse the words exactly as Redis does, then call the
// typed Tx method (keys.go).

func init() {
	register(
		&command{name: "del", arity: -2, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.Del(a[1:]...))
		}},
		&command{name: "exists", arity: -2, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.Exists(a[1:]...))
		}},
		&command{name: "type", arity: 2, reply: replyStatus, run: func(tx *Tx, a []string) (any, error) {
			return tx.Type(a[1])
		}},
		&command{name: "keys", arity: 2, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			ks, _ := tx.Keys(a[1])
			return stringsReply(ks), nil
		}},
		&command{name: "scan", arity: -2, reply: replyBulk, run: cmdScan},
		&command{name: "dbsize", arity: 1, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return intReply(tx.DBSize())
		}},
		&command{name: "flushall", arity: -1, reply: replyStatus, write: true, run: func(tx *Tx, a []string) (any, error) {
			if len(a) > 2 || (len(a) == 2 && !strings.EqualFold(a[1], "sync") && !strings.EqualFold(a[1], "async")) {
				return nil, ErrSyntax
			}
			return okReply(tx.FlushAll())
		}},
		&command{name: "rename", arity: 3, reply: replyStatus, write: true, run: func(tx *Tx, a []string) (any, error) {
			return okReply(tx.Rename(a[1], a[2]))
		}},
	)
}

// parseCursor parses a SCAN cursor as Redis's strtoul: optional sign (a '-' wraps
// around), decimal digits, nothing else; the empty string is 0.
func parseCursor(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	neg := false
	d := s
	if d[0] == '+' || d[0] == '-' {
		neg = d[0] == '-'
		d = d[1:]
	}
	n, err := strconv.ParseUint(d, 10, 64)
	if err != nil || d == "" || d[0] == '+' || d[0] == '-' {
		return 0, ErrInvalidCursor
	}
	if neg {
		n = -n
	}
	return n, nil
}

// cmdScan is SCAN cursor [MATCH pattern] [COUNT count] [TYPE type].
func cmdScan(tx *Tx, a []string) (any, error) {
	cursor, err := parseCursor(a[1])
	if err != nil {
		return nil, err
	}
	match, count, keyType, err := parseScanOptions(a[2:], true)
	if err != nil {
		return nil, err
	}
	keys, next, _ := tx.scan(cursor, match, count, keyType)
	return []any{strconv.FormatUint(next, 10), stringsReply(keys)}, nil
}

// parseScanOptions parses the [MATCH pattern] [COUNT count] options of SCAN and
// ZSCAN, and SCAN's [TYPE type] when withType is set. count defaults to 10; an empty
// TYPE comes back as "\x00", which matches no type name.
func parseScanOptions(opts []string, withType bool) (match string, count int64, keyType string, err error) {
	count = 10
	for i := 0; i < len(opts); i += 2 {
		more := i+1 < len(opts)
		switch {
		case strings.EqualFold(opts[i], "count") && more:
			n, err := parseInt(opts[i+1])
			if err != nil {
				return "", 0, "", err
			}
			if n < 1 {
				return "", 0, "", ErrSyntax
			}
			count = n
		case strings.EqualFold(opts[i], "match") && more:
			match = opts[i+1]
		case withType && strings.EqualFold(opts[i], "type") && more:
			keyType = opts[i+1]
			if keyType == "" {
				keyType = "\x00" // matches no type name
			}
		default:
			return "", 0, "", ErrSyntax
		}
	}
	return match, count, keyType, nil
}

// cmdCopy is COPY source destination [DB destination-db] [REPLACE].
func cmdCopy(tx *Tx, a []string) (any, error) {
	replace, db := false, int64(0)
	for j := 3; j < len(a); j++ {
		switch {
		case strings.EqualFold(a[j], "replace"):
			replace = true
		case strings.EqualFold(a[j], "db") && j+1 < len(a):
			n, err := parseInt(a[j+1])
			if err != nil {
				return nil, err
			}
			if n != int64(int32(n)) {
				return nil, errors.New("ERR value is out of range, value must between -2147483648 and 2147483647")
			}
			if n != 0 {
				return nil, ErrDBIndex
			}
			db = n
			j++
		default:
			return nil, ErrSyntax
		}
	}
	return intReply(tx.Copy(a[1], a[2], int(db), replace))
}
