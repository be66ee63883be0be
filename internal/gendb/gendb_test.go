package gendb

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// write creates a package in a temporary directory from its files' sources.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644))
	}
	return dir
}

const header = "package zlite\n\ntype DB struct{}\ntype Tx struct{}\n"

func TestGenerate(t *testing.T) {
	dir := write(t, map[string]string{
		"a.go": header + `
// Get returns the value.
//
//zlite:command get key
func (tx *Tx) Get(key string) (string, error) { return "", nil }

// GetMany is Get over many keys.
//
//zlite:command get keys...
func (tx *Tx) GetMany(keys ...string) (vals []string, err error) { return nil, nil }

// Wait is hand-written on DB, so not generated, and needs no directive.
func (tx *Tx) Wait() {}

func (db *DB) Wait() {}

// Mute is for batches alone.
//
//zlite:tx-only
func (tx *Tx) Mute() {}

func (tx *Tx) unexported() {}
`,
		"a_test.go":     "package zlite\n\nfunc (tx *Tx) Ignored() {}\n",
		"db_methods.go": "package zlite\n\nfunc (db *DB) Get() {}\n", // the old output is ignored
	})
	src, err := Generate(dir)
	require.NoError(t, err)
	out := string(src)
	require.Contains(t, out, "func (db *DB) Get(ctx context.Context, key string) (string, error) {")
	require.Contains(t, out, "func (db *DB) GetMany(ctx context.Context, keys ...string) (vals []string, err error) {")
	require.Contains(t, out, "r0, err := tx.GetMany(keys...)")
	require.Contains(t, out, "return r0, tx.finish(statGet, t0, err)", "a method returning an error returns the log's error too")
	require.Contains(t, out, "tx.home.count(statGet)", "GetMany counts as GET, named after the shorter Get")
	require.Contains(t, out, "tx := db.lockKey(key)", "Get locks its key's shard")
	require.Contains(t, out, "tx := db.lockMask(db.maskOf(keys...))", "GetMany locks its keys' shards")
	require.NotContains(t, out, "Wait")
	require.NotContains(t, out, "Mute")
	require.NotContains(t, out, "Ignored")
	require.NotContains(t, out, "unexported")
	require.Equal(t, 1, strings.Count(out, `"get",`))
}

func TestLockExpr(t *testing.T) {
	tests := []struct {
		name string
		keys []string
		want string
	}{
		{"every shard", nil, "db.lockAll()"},
		{"one key", []string{"key"}, "db.lockKey(key)"},
		{"two keys", []string{"src", "dst"}, "db.lockMask(db.maskOf(src, dst))"},
		{"variadic keys", []string{"keys..."}, "db.lockMask(db.maskOf(keys...))"},
		{"store", []string{"dest", "storeKeys(store)..."}, "db.lockMask(db.maskOf(dest) | db.maskOf(storeKeys(store)...))"},
		{"two slices", []string{"a...", "b.Keys..."}, "db.lockMask(db.maskOf(a...) | db.maskOf(b.Keys...))"},
		{"range args", []string{"z.Key"}, "db.lockKey(z.Key)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, lockExpr(method{keys: tt.keys}))
		})
	}
}

func TestGenerateErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"no directive", "// Get is GET.\nfunc (tx *Tx) Get(key string) error { return nil }\n", `has no "//zlite:command name key..." line`},
		{"no doc", "func (tx *Tx) Get(key string) error { return nil }\n", "has no"},
		{"no keys", "//zlite:command get\nfunc (tx *Tx) Get(key string) error { return nil }\n", "want"},
		{"upper-case name", "//zlite:command GET key\nfunc (tx *Tx) Get(key string) error { return nil }\n", "want"},
		{"a key that is no parameter", "//zlite:command get name\nfunc (tx *Tx) Get(key string) error { return nil }\n", `key "name" names no parameter`},
		{"a key that is a longer name", "//zlite:command get k\nfunc (tx *Tx) Get(key string) error { return nil }\n", "names no parameter"},
		{"shadowing ctx", "//zlite:command get ctx\nfunc (tx *Tx) Get(ctx string) error { return nil }\n", "parameter ctx would shadow"},
		{"unnamed parameter", "//zlite:command get *\nfunc (tx *Tx) Get(string) error { return nil }\n", "unnamed parameter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Generate(write(t, map[string]string{"a.go": header + tt.src}))
			require.ErrorContains(t, err, tt.want)
		})
	}
}
