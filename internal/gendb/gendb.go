// Package gendb generates the root package's db_methods.go: one [zlite.DB] method
// per exported Tx method that has no hand-written DB method. Each generated method
// takes a context first (unused: only the blocking commands wait), locks the
// keyspace, counts the command for DB.Stats (and times it when latency tracking is
// on), and calls the Tx method of the same name.
//
// The Redis command a method runs is the first word after "is " in the Tx
// method's doc comment ("ZAddNX is ZADD NX: ..." runs ZADD), which must be a
// command name in upper case. Run it with go generate in the root package; a root
// test fails when db_methods.go is not what [Generate] produces.
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
	"sort"
	"strings"
)

// Output is the name of the generated file, in the root package's directory.
const Output = "db_methods.go"

// method is one Tx method to wrap.
type method struct {
	name    string
	command string // Redis's lower-case command name
	params  []param
	results string
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
	var txs []method
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
				m, err := newMethod(fset, fd)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", fset.Position(fd.Pos()), err)
				}
				txs = append(txs, m)
			}
		}
	}
	var gen []method
	for _, m := range txs {
		if !hand[m.name] {
			gen = append(gen, m)
		}
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

// newMethod reads a Tx method's name, command and signature.
func newMethod(fset *token.FileSet, fd *ast.FuncDecl) (method, error) {
	m := method{name: fd.Name.Name}
	doc := ""
	if fd.Doc != nil {
		doc = fd.Doc.Text()
	}
	rest, ok := strings.CutPrefix(doc, m.name+" is ")
	if ok {
		m.command, _, _ = strings.Cut(strings.Fields(rest + " ")[0], ":")
	}
	if !ok || m.command == "" || strings.ToUpper(m.command) != m.command || strings.ContainsAny(m.command, "[].") {
		m.command = ""
	}
	m.command = strings.ToLower(m.command)
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
	if fd.Type.Results != nil {
		var parts []string
		named := false
		for _, f := range fd.Type.Results.List {
			t := expr(fset, f.Type)
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
		if m.command == "" {
			return nil, fmt.Errorf("method Tx.%s: its doc comment must start %q", m.name, m.name+" is COMMAND")
		}
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
		fmt.Fprintf(&b, "\n// %s is [Tx.%s] (%s) under the keyspace lock.\n", m.name, m.name, strings.ToUpper(m.command))
		fmt.Fprintf(&b, "func (db *DB) %s(ctx context.Context", m.name)
		if len(decl) > 0 {
			b.WriteString(", " + strings.Join(decl, ", "))
		}
		fmt.Fprintf(&b, ") %s {\n", m.results)
		fmt.Fprintf(&b, "\ttx := db.lock()\n\tdb.stats.calls[%s]++\n", s)
		fmt.Fprintf(&b, "\tdefer db.end(%s, db.start())\n", s)
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
