package zlite

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDeps keeps the modules a user's build needs lean: importing a package of
// this module compiles only the modules listed for it (the test-only and comparison
// tooling modules never), and queues/redisq, a client of a real Redis, does not
// compile the engine.
func TestDeps(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to list the dependencies with: %v", err)
	}
	const self, xsys = "github.com/zlite/zlite", "golang.org/x/sys"
	goRedis := []string{"github.com/cespare/xxhash/v2", "github.com/redis/go-redis/v9", "go.uber.org/atomic", xsys}
	prom := []string{"github.com/beorn7/perks", "github.com/cespare/xxhash/v2", "github.com/munnerz/goautoneg",
		"github.com/prometheus/client_golang", "github.com/prometheus/client_model", "github.com/prometheus/common",
		"github.com/prometheus/procfs", "google.golang.org/protobuf", xsys}
	for _, tt := range []struct {
		pkg     string
		modules []string // besides this module
		without []string // packages of this module it must not compile
	}{
		{"zset", nil, nil},
		{"list", nil, nil},
		{"dict", nil, nil},
		{"intset", nil, nil},
		{"set", nil, nil},
		{"blocking", nil, nil},
		{"pubsub", nil, nil},
		{"queues", nil, []string{self}},
		{"persist", []string{xsys}, nil},
		{".", []string{xsys}, nil},
		{"queues/embedded", []string{xsys}, nil},
		{"queues/redisq", goRedis, []string{self, self + "/persist"}},
		{"server", []string{"github.com/yuin/gopher-lua", xsys}, nil},
		{"metrics", []string{xsys}, nil},
		{"metrics/prom", prom, nil},
		{"inspector", []string{xsys}, nil},
	} {
		t.Run(tt.pkg, func(t *testing.T) {
			out, err := exec.Command(gobin, "list", "-deps", "-f", "{{.ImportPath}} {{with .Module}}{{.Path}}{{end}}", "./"+tt.pkg).Output()
			if err != nil {
				t.Fatalf("go list: %v", err)
			}
			var mods, pkgs []string
			for line := range strings.Lines(string(out)) {
				pkg, mod, _ := strings.Cut(strings.TrimSpace(line), " ")
				pkgs = append(pkgs, pkg)
				if mod != "" && mod != self && !slices.Contains(mods, mod) {
					mods = append(mods, mod)
				}
			}
			slices.Sort(mods)
			want := slices.Sorted(slices.Values(tt.modules))
			if !slices.Equal(mods, want) {
				t.Errorf("%s compiles the modules\n%q\nwant\n%q", tt.pkg, mods, want)
			}
			for _, p := range tt.without {
				if slices.Contains(pkgs, p) {
					t.Errorf("%s compiles %s", tt.pkg, p)
				}
			}
		})
	}
}
