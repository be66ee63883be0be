package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/zlite/zlite/persist"
	"github.com/zlite/zlite/server"
)

// layoutFile is the file, in the data directory, that says which keyspace
// directory each number holds once SWAPDB has moved them: one line "<number>
// <directory>" per number, 0 to 15. Without it, number i holds db<i>.
const layoutFile = "keyspaces"

// layout is which keyspace each number (SELECT's) holds, kept in layoutFile so
// that SWAPDB outlives the process, as Redis's RDB file holds each database at
// its number when saved. It is safe for concurrent use.
type layout struct {
	path string // <dir>/layoutFile

	mu sync.Mutex
	at [server.NumDBs]*keyspace // by number
}

// readLayout returns the directory names held by each number under dir, as
// layoutFile says, or db0 to db15 when there is none. A file that is not 16
// lines, each number once with a distinct db<k>, is an error: the keyspaces are
// not loaded under numbers they may not have.
func readLayout(dir string) ([server.NumDBs]string, error) {
	var names [server.NumDBs]string
	path := filepath.Join(dir, layoutFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		for i := range names {
			names[i] = fmt.Sprintf("db%d", i)
		}
		return names, nil
	}
	if err != nil {
		return names, err
	}
	bad := func(why string) error { return fmt.Errorf("%s: %s", path, why) }
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	lines := 0
	for sc.Scan() {
		lines++
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			return names, bad(fmt.Sprintf("line %d is not \"<number> <directory>\"", lines))
		}
		i, err := strconv.Atoi(f[0])
		if err != nil || i < 0 || i >= server.NumDBs || names[i] != "" {
			return names, bad(fmt.Sprintf("line %d: number %q is out of range or repeated", lines, f[0]))
		}
		k, err := strconv.Atoi(strings.TrimPrefix(f[1], "db"))
		if err != nil || !strings.HasPrefix(f[1], "db") || f[1] != fmt.Sprintf("db%d", k) || k < 0 || k >= server.NumDBs || seen[f[1]] {
			return names, bad(fmt.Sprintf("line %d: directory %q is not one of db0 to db15 or is repeated", lines, f[1]))
		}
		names[i], seen[f[1]] = f[1], true
	}
	if lines != server.NumDBs {
		return names, bad(fmt.Sprintf("%d lines, want %d", lines, server.NumDBs))
	}
	return names, nil
}

// swap records that numbers i and j exchange their keyspaces, durably (the file
// is replaced by a new one written and fsynced first), and then the keyspaces'
// numbers. On failure nothing changes. It is SWAPDB's handler
// (server.WithSwapHandler), so the swap is on disk before the server makes it.
// The cost is one small file written and two fsyncs.
func (l *layout) swap(i, j int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	next := l.at
	next[i], next[j] = next[j], next[i]
	var b strings.Builder
	for n, ks := range next {
		fmt.Fprintf(&b, "%d %s\n", n, filepath.Base(ks.dir))
	}
	if err := writeFileAtomic(l.path, []byte(b.String())); err != nil {
		return err
	}
	l.at = next
	l.at[i].index.Store(int32(i))
	l.at[j].index.Store(int32(j))
	return nil
}

// writeFileAtomic replaces path with data so that a crash leaves either the old
// file or the new one: it writes a temporary file beside it, fsyncs it, renames
// it over path and fsyncs the directory.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return persist.OSFS{}.SyncDir(filepath.Dir(path))
}
