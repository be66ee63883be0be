package persist

import (
	"encoding/binary"
	"errors"
	"iter"
)

// ErrBadCommand is returned (through [Commands]) for a record that does not decode as
// commands written by [AppendCommand].
var ErrBadCommand = errors.New("persist: malformed command in record")

// AppendCommand appends one command, its words, to rec and returns the extended
// slice: uvarint(number of words), then each word as uvarint(length) and its bytes.
// A record of several commands (an atomic batch) is their concatenation; persist does
// not require this encoding, it is the one [Commands] reads. The complexity is
// O(total bytes).
func AppendCommand(rec []byte, words ...string) []byte {
	rec = binary.AppendUvarint(rec, uint64(len(words)))
	for _, w := range words {
		rec = binary.AppendUvarint(rec, uint64(len(w)))
		rec = append(rec, w...)
	}
	return rec
}

// Commands iterates over the commands of a record written with [AppendCommand], in
// order. The words are fresh strings; the slice holding them is reused from one
// command to the next. A malformed record yields ErrBadCommand once and stops. The
// complexity is O(len(rec)), with one allocation per word.
func Commands(rec []byte) iter.Seq2[[]string, error] {
	return func(yield func([]string, error) bool) {
		var words []string
		for len(rec) > 0 {
			n, k := binary.Uvarint(rec)
			// Every word takes at least one byte, which bounds the allocation.
			if k <= 0 || n == 0 || n > uint64(len(rec)-k) {
				yield(nil, ErrBadCommand)
				return
			}
			rec = rec[k:]
			words = words[:0]
			for range n {
				l, k := binary.Uvarint(rec)
				if k <= 0 || l > uint64(len(rec)-k) {
					yield(nil, ErrBadCommand)
					return
				}
				words = append(words, string(rec[k:k+int(l)]))
				rec = rec[k+int(l):]
			}
			if !yield(words, nil) {
				return
			}
		}
	}
}
