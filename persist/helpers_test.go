package persist

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(crashChildEnv) != "" {
		if os.Getenv(crashFreeEnv) != "" {
			os.Exit(crashFreeChild())
		}
		os.Exit(crashChild())
	}
	goleak.VerifyTestMain(m)
}

// model is a Replayer that keeps what it is handed: the snapshot's keys and the records.
type model struct {
	lists   map[string][]string
	zsets   map[string]map[string]float64
	strs    map[string]string
	sets    map[string][]string
	hashes  map[string][][2]string
	expires map[string]int64
	records []string
}

func newModel() *model {
	return &model{lists: map[string][]string{}, zsets: map[string]map[string]float64{}, strs: map[string]string{},
		sets: map[string][]string{}, hashes: map[string][][2]string{}, expires: map[string]int64{}}
}

func (m *model) LoadKey(k *Key) error {
	m.expires[k.Name] = k.ExpireAt
	switch k.Type {
	case TypeList:
		m.lists[k.Name] = slices.Collect(k.ListItems())
	case TypeZSet:
		m.zsets[k.Name] = maps.Collect(k.ZSetEntries())
	case TypeString:
		v, ok := k.String()
		if !ok {
			return fmt.Errorf("string key %q: no value", k.Name)
		}
		m.strs[k.Name] = v
	case TypeSet:
		m.sets[k.Name] = slices.Collect(k.SetMembers())
	case TypeHash:
		var fv [][2]string
		for f, v := range k.HashFields() {
			fv = append(fv, [2]string{f, v})
		}
		m.hashes[k.Name] = fv
	}
	return nil
}

func (m *model) Replay(rec []byte) error {
	m.records = append(m.records, string(rec))
	return nil
}

// quietLogger collects warnings instead of printing them.
type quietLogger struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (q *quietLogger) Write(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.buf.Write(p)
}

func (q *quietLogger) String() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.buf.String()
}

func (q *quietLogger) logger() *slog.Logger { return slog.New(slog.NewTextHandler(q, nil)) }

// openT opens dir into a new model, failing the test on error.
func openT(t testing.TB, dir string, opts ...Option) (*Store, *model) {
	t.Helper()
	m := newModel()
	s, err := Open(dir, m, opts...)
	if err != nil {
		t.Fatalf("Open(%s) = %v", dir, err)
	}
	return s, m
}

// appendWait appends each payload and waits for it.
func appendWait(t testing.TB, s *Store, payloads ...string) {
	t.Helper()
	for _, p := range payloads {
		pos, err := s.Append([]byte(p))
		if err != nil {
			t.Fatalf("Append(%q) = %v", p, err)
		}
		if err := s.Wait(pos); err != nil {
			t.Fatalf("Wait(%d) = %v", pos, err)
		}
	}
}

// recs returns n distinct payloads of varying length, starting at index from.
func recs(from, n int) []string {
	out := make([]string, n)
	for i := range out {
		k := from + i
		out[i] = fmt.Sprintf("rec-%d-%s", k, bytes.Repeat([]byte{'a' + byte(k%26)}, k%37))
	}
	return out
}

// copyDir copies the regular files of src into a new temporary directory.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	names, err := OSFS{}.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := os.ReadFile(src + "/" + n)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst+"/"+n, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

var _ io.Writer = (*quietLogger)(nil)
