package server

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/zlite/zlite/internal/redistest"
)

// TestGenerateCommandDocs writes command_docs.resp, redis-server's COMMAND DOCS for
// every command of the server in RESP3, when ZLITE_GEN_DOCS=1 (after a Redis
// upgrade or a new command):
//
//	ZLITE_GEN_DOCS=1 go test ./server -run TestGenerateCommandDocs
func TestGenerateCommandDocs(t *testing.T) {
	if os.Getenv("ZLITE_GEN_DOCS") != "1" {
		t.Skip("skipping: set ZLITE_GEN_DOCS=1 to regenerate command_docs.resp from redis-server")
	}
	w := dial(t, redistest.Require(t))
	w.do("HELLO", "3")
	args := []string{"COMMAND", "DOCS"}
	for _, e := range allCommands() {
		args = append(args, e.name)
	}
	raw := w.do(args...)
	top, err := readNode(bufio.NewReader(strings.NewReader(raw)))
	if err != nil || top.kind != '%' || len(top.kids) != 2*(len(args)-2) {
		t.Fatalf("COMMAND DOCS: %d entries for %d commands, %v", len(top.kids)/2, len(args)-2, err)
	}
	if err := os.WriteFile("command_docs.resp", []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCommandDocs checks that every command has its entry, and each entry Redis's
// arguments (what redis-cli's hints are built from).
func TestCommandDocs(t *testing.T) {
	for _, e := range allCommands() {
		d, ok := commandDocs(e.name)
		if !ok || d.kind != '%' {
			t.Errorf("COMMAND DOCS %s: no entry", e.name)
			continue
		}
		var keys []string
		for i := 0; i < len(d.kids); i += 2 {
			keys = append(keys, d.kids[i].s)
		}
		// MONITOR's entry has no complexity in Redis either.
		if j := strings.Join(keys, " "); !strings.HasPrefix(j, "summary since group complexity") && !(e.name == "monitor" && strings.HasPrefix(j, "summary since group")) {
			t.Errorf("COMMAND DOCS %s has %q; want summary, since, group, complexity first", e.name, keys)
		}
	}
	if d, _ := commandDocs("client"); strings.Contains(fmtNode(d), "client|pause") {
		t.Errorf("COMMAND DOCS client lists CLIENT PAUSE, which the server does not have")
	}
}

// fmtNode renders a node's strings, for searching.
func fmtNode(nd node) string {
	var b strings.Builder
	b.WriteString(nd.s)
	for _, k := range nd.kids {
		b.WriteString(" " + fmtNode(k))
	}
	return b.String()
}
