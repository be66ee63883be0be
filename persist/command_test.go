package persist

import (
	"errors"
	"slices"
	"testing"
)

func TestCommands(t *testing.T) {
	batch := [][]string{
		{"ZADD", "board", "1", "ann"},
		{"LPUSH", "jobs", ""},
		{"DEL", string([]byte{0, 0xff, '\n'})},
	}
	var rec []byte
	for _, c := range batch {
		rec = AppendCommand(rec, c...)
	}
	var got [][]string
	for words, err := range Commands(rec) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, slices.Clone(words))
	}
	if !slices.EqualFunc(got, batch, slices.Equal) {
		t.Fatalf("Commands(AppendCommand(...)) = %q; want %q", got, batch)
	}
	// Every strict prefix of the record (but the empty one and the command
	// boundaries) is malformed, and so is a command of zero words.
	bounds := map[int]bool{}
	var r []byte
	for _, c := range batch {
		r = AppendCommand(r, c...)
		bounds[len(r)] = true
	}
	for cut := 1; cut < len(rec); cut++ {
		var err error
		for _, e := range Commands(rec[:cut]) {
			err = e
		}
		if bad := errors.Is(err, ErrBadCommand); bad == bounds[cut] {
			t.Errorf("Commands(rec[:%d]) error = %v; want malformed: %v", cut, err, !bounds[cut])
		}
	}
	for _, e := range Commands([]byte{0}) {
		if !errors.Is(e, ErrBadCommand) {
			t.Errorf("a zero-word command: %v; want ErrBadCommand", e)
		}
	}
}

func FuzzCommands(f *testing.F) {
	f.Add(AppendCommand(AppendCommand(nil, "ZADD", "k", "1", "m"), "DEL", "k"))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, rec []byte) {
		// Whatever decodes re-encodes to the same bytes; nothing panics.
		var out []byte
		for words, err := range Commands(rec) {
			if err != nil {
				return
			}
			out = AppendCommand(out, words...)
		}
		if !slices.Equal(out, rec) && len(rec) > 0 {
			// Non-minimal varints decode too; re-decoding must give the same commands.
			a, b := slices.Collect(commandsOf(rec)), slices.Collect(commandsOf(out))
			if !slices.EqualFunc(a, b, slices.Equal) {
				t.Fatalf("re-encoding changed the commands: %q vs %q", a, b)
			}
		}
	})
}

// commandsOf collects the commands of rec (cloned), stopping at an error.
func commandsOf(rec []byte) func(func([]string) bool) {
	return func(yield func([]string) bool) {
		for w, err := range Commands(rec) {
			if err != nil || !yield(slices.Clone(w)) {
				return
			}
		}
	}
}
