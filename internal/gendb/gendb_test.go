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
// Get is GET: the value.
func (tx *Tx) Get(key string) (string, error) { return "", nil }

// GetMany is GET over many keys.
func (tx *Tx) GetMany(keys ...string) (vals []string, err error) { return nil, nil }

// Wait is BLOCK: hand-written on DB, so not generated.
func (tx *Tx) Wait() {}

func (db *DB) Wait() {}

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
	require.NotContains(t, out, "Ignored")
	require.NotContains(t, out, "unexported")
	require.Equal(t, 1, strings.Count(out, `"get",`))
}

func TestLockExpr(t *testing.T) {
	str := func(names ...string) []param {
		var ps []param
		for _, n := range names {
			ps = append(ps, param{name: n, typ: "string"})
		}
		return ps
	}
	tests := []struct {
		name   string
		params []param
		want   string
	}{
		{"no key", str("pattern"), "db.lockAll()"},
		{"one key", str("key", "member"), "db.lockKey(key)"},
		{"two keys", str("src", "dst", "srcPos"), "db.lockMask(db.maskOf(src, dst))"},
		{"variadic keys", []param{{name: "keys", typ: "string", variadic: true}}, "db.lockMask(db.maskOf(keys...))"},
		{"variadic values are not keys", append(str("key"), param{name: "values", typ: "string", variadic: true}), "db.lockKey(key)"},
		{"store", append(str("dest"), param{name: "store", typ: "*ZStore"}), "db.lockMask(db.maskOf(dest) | db.maskOf(storeKeys(store)...))"},
		{"range args", []param{{name: "z", typ: "ZRangeArgs"}}, "db.lockKey(z.Key)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, lockExpr(method{params: tt.params}))
		})
	}
}

func TestGenerateErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"no command in the doc", "// Get returns the value.\nfunc (tx *Tx) Get(key string) error { return nil }\n", `doc comment must start "Get is COMMAND"`},
		{"no doc", "func (tx *Tx) Get(key string) error { return nil }\n", "doc comment must start"},
		{"a link, not a command", "// Get is [DB.Get] without waiting.\nfunc (tx *Tx) Get() error { return nil }\n", "doc comment must start"},
		{"shadowing ctx", "// Get is GET.\nfunc (tx *Tx) Get(ctx string) error { return nil }\n", "parameter ctx would shadow"},
		{"unnamed parameter", "// Get is GET.\nfunc (tx *Tx) Get(string) error { return nil }\n", "unnamed parameter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Generate(write(t, map[string]string{"a.go": header + tt.src}))
			require.ErrorContains(t, err, tt.want)
		})
	}
}
