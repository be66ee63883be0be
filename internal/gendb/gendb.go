// Package gendb generates the root package's db_methods.go: one [zlite.DB] method
// per Tx method that has no hand-written DB method. Each generated method takes a
// context first (unused: only the blocking commands wait), locks the shards of the
// keys it names, counts the command for DB.Stats (and times it when latency
// tracking is on), and calls the Tx method of the same name.
//
// What a Tx method runs is declared by a directive, the last line of its doc
// comment:
//
//	//zlite:command zadd key
//
// names the Redis command (lower case; the counter DB.Stats reports it under) and
// then the keys, each a Go expression of the method's parameters: a string
// ("key", "z.Key") or, ending in "...", a []string ("keys...",
// "storeKeys(store)..."); "*" means every shard (KEYS, SCAN, DBSIZE, FLUSHALL). Every
// exported Tx method without a hand-written DB twin must have one, or the line
//
//	//zlite:tx-only
//
// for a method that only a batch has (one that changes how the batch's commands
// run); a directive whose keys name no parameter is an error. Run it with go generate in the root
// package; a root test fails when db_methods.go is not what [Generate] produces.
package gendb

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Output is the name of the generated file, in the root package's directory.
const Output = "db_methods.go"

// method is one Tx method to wrap.
type method struct {
	name    string
	command string   // Redis's lower-case command name
	keys    []string // the key expressions of its directive; nil for every shard
	params  []param
	results string
	nres    int  // number of results
	lastErr bool // the last result is an error
}

// param is one parameter of a method.
type param struct {
	name, typ string
	variadic  bool
}

// Generate parses the Go files of the package in dir (not its tests, not Output)
// and returns the formatted source of Output.
func Generate(dir string) ([]byte, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	fset := token.NewFileSet()
	var txs []*ast.FuncDecl
	hand := map[string]bool{}
	for _, p := range paths {
		base := filepath.Base(p)
		if strings.HasSuffix(base, "_test.go") || base == Output {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || !fd.Name.IsExported() {
				continue
			}
			switch recvName(fd) {
			case "DB":
				hand[fd.Name.Name] = true
			case "Tx":
				txs = append(txs, fd)
			}
		}
	}
	var gen []method
	for _, fd := range txs {
		if hand[fd.Name.Name] || txOnly(fd) {
			continue
		}
		m, err := newMethod(fset, fd)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fset.Position(fd.Pos()), err)
		}
		gen = append(gen, m)
	}
	return render(gen)
}

// recvName is the name of fd's receiver type, without the pointer.
func recvName(fd *ast.FuncDecl) string {
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// directive is the prefix of the line that declares a Tx method's command.
const directive = "//zlite:command "

// txOnly reports whether fd's doc comment says it has no DB method.
func txOnly(fd *ast.FuncDecl) bool {
	return fd.Doc != nil && slices.ContainsFunc(fd.Doc.List, func(c *ast.Comment) bool { return c.Text == "//zlite:tx-only" })
}

// newMethod reads a Tx method's directive and signature.
func newMethod(fset *token.FileSet, fd *ast.FuncDecl) (method, error) {
	m := method{name: fd.Name.Name}
	if fd.Doc != nil {
		for _, c := range fd.Doc.List {
			if rest, ok := strings.CutPrefix(c.Text, directive); ok {
				f := strings.Fields(rest)
				if len(f) < 2 || strings.ToLower(f[0]) != f[0] {
					return m, fmt.Errorf("method Tx.%s: want %q", m.name, directive+"name key...")
				}
				m.command = f[0]
				if f[1] != "*" {
					m.keys = f[1:]
				}
			}
		}
	}
	if m.command == "" {
		return m, fmt.Errorf("method Tx.%s: its doc comment has no %q line", m.name, directive+"name key...")
	}
	for _, f := range fd.Type.Params.List {
		typ := f.Type
		variadic := false
		if e, ok := typ.(*ast.Ellipsis); ok {
			typ, variadic = e.Elt, true
		}
		if len(f.Names) == 0 {
			return m, fmt.Errorf("method Tx.%s: unnamed parameter", m.name)
		}
		for _, n := range f.Names {
			if n.Name == "ctx" || n.Name == "db" || n.Name == "tx" {
				return m, fmt.Errorf("method Tx.%s: parameter %s would shadow the wrapper's", m.name, n.Name)
			}
			m.params = append(m.params, param{name: n.Name, typ: expr(fset, typ), variadic: variadic})
		}
	}
	for _, k := range m.keys {
		if !slices.ContainsFunc(m.params, func(p param) bool { return usesParam(k, p.name) }) {
			return m, fmt.Errorf("method Tx.%s: key %q names no parameter", m.name, k)
		}
	}
	if fd.Type.Results != nil {
		var parts []string
		named := false
		for _, f := range fd.Type.Results.List {
			t := expr(fset, f.Type)
			m.nres += max(1, len(f.Names))
			m.lastErr = t == "error"
			if len(f.Names) == 0 {
				parts = append(parts, t)
				continue
			}
			named = true
			var ns []string
			for _, n := range f.Names {
				ns = append(ns, n.Name)
			}
			parts = append(parts, strings.Join(ns, ", ")+" "+t)
		}
		m.results = strings.Join(parts, ", ")
		if named || len(parts) > 1 {
			m.results = "(" + m.results + ")"
		}
	}
	return m, nil
}

// usesParam reports whether the key expression k reads the parameter name.
func usesParam(k, name string) bool {
	for _, id := range strings.FieldsFunc(k, func(r rune) bool {
		return r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if id == name {
			return true
		}
	}
	return false
}

// lockExpr is the expression that locks the shards of m's keys and returns the Tx.
func lockExpr(m method) string {
	var one, many []string
	for _, k := range m.keys {
		if e, ok := strings.CutSuffix(k, "..."); ok {
			many = append(many, e+"...")
		} else {
			one = append(one, k)
		}
	}
	switch {
	case len(one) == 1 && len(many) == 0:
		return "db.lockKey(" + one[0] + ")"
	case len(one) == 0 && len(many) == 0:
		return "db.lockAll()"
	case len(many) == 0:
		return "db.lockMask(db.maskOf(" + strings.Join(one, ", ") + "))"
	}
	parts := []string{}
	if len(one) > 0 {
		parts = append(parts, "db.maskOf("+strings.Join(one, ", ")+")")
	}
	for _, k := range many {
		parts = append(parts, "db.maskOf("+k+")")
	}
	return "db.lockMask(" + strings.Join(parts, " | ") + ")"
}

// expr prints an expression as source.
func expr(fset *token.FileSet, e ast.Expr) string {
	var b bytes.Buffer
	printer.Fprint(&b, fset, e)
	return b.String()
}

// render writes the generated file.
func render(ms []method) ([]byte, error) {
	// The counter of each command is named after the shortest method running it.
	stat := map[string]string{}
	for _, m := range ms {
		if s, ok := stat[m.command]; !ok || len(m.name) < len(s) {
			stat[m.command] = m.name
		}
	}
	cmds := make([]string, 0, len(stat))
	for c := range stat {
		cmds = append(cmds, c)
	}
	sort.Strings(cmds)

	var b bytes.Buffer
	b.WriteString("// The counters of the commands that typed DB methods run, indexes into statNames.\n")
	b.WriteString("const (\n")
	for i, c := range cmds {
		if i == 0 {
			fmt.Fprintf(&b, "\tstat%s = iota\n", stat[c])
		} else {
			fmt.Fprintf(&b, "\tstat%s\n", stat[c])
		}
	}
	b.WriteString(")\n\n")
	b.WriteString("// statNames names the command counters of Stats; register appends the commands\n")
	b.WriteString("// that only Do runs.\n")
	b.WriteString("var statNames = []string{\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "\t%q,\n", c)
	}
	b.WriteString("}\n")
	for _, m := range ms {
		var decl, call []string
		for i, p := range m.params {
			t := p.typ
			a := p.name
			if p.variadic {
				t = "..." + t
				a += "..."
			}
			if i+1 < len(m.params) && m.params[i+1].typ == p.typ && !m.params[i+1].variadic {
				decl = append(decl, p.name) // "key, pivot string"
			} else {
				decl = append(decl, p.name+" "+t)
			}
			call = append(call, a)
		}
		s := "stat" + stat[m.command]
		lock := "the lock of its key's shard"
		switch l := lockExpr(m); {
		case l == "db.lockAll()":
			lock = "every shard's lock"
		case strings.HasPrefix(l, "db.lockMask"):
			lock = "the locks of its keys' shards"
		}
		fmt.Fprintf(&b, "\n// %s is [Tx.%s] (%s) under %s.\n", m.name, m.name, strings.ToUpper(m.command), lock)
		fmt.Fprintf(&b, "func (db *DB) %s(ctx context.Context", m.name)
		if len(decl) > 0 {
			b.WriteString(", " + strings.Join(decl, ", "))
		}
		fmt.Fprintf(&b, ") %s {\n", m.results)
		fmt.Fprintf(&b, "\ttx := %s\n\ttx.home.count(%s)\n", lockExpr(m), s)
		if m.lastErr {
			// No defer: the log's error (a DB made by Open) reaches the caller
			// when the command itself succeeded (see DB.finish).
			var res []string
			for i := range m.nres - 1 {
				res = append(res, fmt.Sprintf("r%d", i))
			}
			rs := strings.Join(append(res, "err"), ", ")
			b.WriteString("\tt0 := db.start()\n")
			fmt.Fprintf(&b, "\t%s := tx.%s(%s)\n", rs, m.name, strings.Join(call, ", "))
			fmt.Fprintf(&b, "\treturn %s\n}\n", strings.Join(append(res, fmt.Sprintf("tx.finish(%s, t0, err)", s)), ", "))
			continue
		}
		fmt.Fprintf(&b, "\tdefer tx.end(%s, db.start())\n", s)
		ret := "return "
		if m.results == "" {
			ret = ""
		}
		fmt.Fprintf(&b, "\t%stx.%s(%s)\n}\n", ret, m.name, strings.Join(call, ", "))
	}
	imports := "import \"context\"\n\n"
	if bytes.Contains(b.Bytes(), []byte("time.")) {
		imports = "import (\n\t\"context\"\n\t\"time\"\n)\n\n"
	}
	src := "// Code generated by internal/gendb (go generate); DO NOT EDIT.\n\npackage zlite\n\n" + imports + b.String()
	return format.Source([]byte(src))
}
