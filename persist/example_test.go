package persist_test

import (
	"fmt"
	"log"
	"os"
	"slices"

	"github.com/zlite/zlite/persist"
)

// keyspace is a toy keyspace: one list, changed by records "push <item>".
type keyspace struct{ items []string }

func (k *keyspace) LoadKey(key *persist.Key) error {
	k.items = slices.Collect(key.ListItems())
	return nil
}

func (k *keyspace) Replay(rec []byte) error {
	k.items = append(k.items, string(rec[len("push "):]))
	return nil
}

func Example() {
	dir, _ := os.MkdirTemp("", "persist-example")
	defer os.RemoveAll(dir)

	var ks keyspace
	st, err := persist.Open(dir, &ks, persist.WithSync(persist.Always))
	if err != nil {
		log.Fatal(err)
	}
	for _, item := range []string{"a", "b"} {
		ks.items = append(ks.items, item)             // apply, under the keyspace lock
		pos, err := st.Append([]byte("push " + item)) // and log, under the same lock
		if err != nil || st.Wait(pos) != nil {        // then wait, without it
			log.Fatal("write failed: refuse further writes")
		}
	}

	// Compact: the snapshot replaces the two records.
	w, _ := st.StartSnapshot() // under the keyspace lock
	w.WriteList("items", 0, slices.Values(slices.Clone(ks.items)))
	if err := w.Commit(); err != nil {
		log.Fatal(err)
	}
	ks.items = append(ks.items, "c")
	pos, _ := st.Append([]byte("push c"))
	st.Wait(pos)
	st.Close()

	var again keyspace
	st, err = persist.Open(dir, &again) // snapshot [a b], then the record "push c"
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	fmt.Println(again.items)
	// Output: [a b c]
}
