package zlite

import "strings"

// The Do forms of SORT and SORT_RO: the options parsed exactly as Redis's
// sortCommandGeneric does (same words, same order of errors), then the code of
// sort.go.

func init() {
	register(
		&command{name: "sort", arity: -2, reply: replyBulk, write: true, run: func(tx *Tx, a []string) (any, error) {
			return cmdSort(tx, a, "sort")
		}},
		&command{name: "sort_ro", arity: -2, reply: replyBulk, run: func(tx *Tx, a []string) (any, error) {
			return cmdSort(tx, a, "sort_ro")
		}},
	)
}

// cmdSort is SORT key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC]
// [ALPHA] [STORE destination], and SORT_RO without STORE. The options may come in
// any order and repeat (the last ASC or DESC, LIMIT, BY and STORE win; every GET
// counts). An option word is read up to a NUL byte, as Redis's strcasecmp does. An
// unknown word, or an option without its arguments, is ErrSyntax; a LIMIT whose
// offset or count is not an integer is ErrNotInteger, at once. Only then is the key
// read.
func cmdSort(tx *Tx, a []string, name string) (any, error) {
	o := sortOptions{name: name, count: -1}
	for j := 2; j < len(a); j++ {
		left := len(a) - j - 1
		switch w := cString(a[j]); {
		case strings.EqualFold(w, "asc"):
			o.desc = false
		case strings.EqualFold(w, "desc"):
			o.desc = true
		case strings.EqualFold(w, "alpha"):
			o.alpha = true
		case strings.EqualFold(w, "limit") && left >= 2:
			var err error
			if o.offset, err = parseInt(a[j+1]); err != nil {
				return nil, err
			}
			if o.count, err = parseInt(a[j+2]); err != nil {
				return nil, err
			}
			j += 2
		case name == "sort" && strings.EqualFold(w, "store") && left >= 1:
			o.store, o.hasStore = a[j+1], true
			j++
		case strings.EqualFold(w, "by") && left >= 1:
			o.setBy(a[j+1])
			j++
		case strings.EqualFold(w, "get") && left >= 1:
			o.gets = append(o.gets, a[j+1])
			j++
		default:
			return nil, ErrSyntax
		}
	}
	if o.hasStore {
		return intReply(tx.sortStore(a[1], &o))
	}
	return tx.sortReply(a[1], &o)
}
