package inspector

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/zlite/zlite"
)

// maxCommands is how many commands the keyspace panel lists, the most run first.
const maxCommands = 12

// keyspaceView is the index's keyspace panel, from [zlite.DB.Stats].
type keyspaceView struct {
	Keys, Blocked int64
	Commands      uint64
	Types         []typeRow
	Top           []commandRow // the maxCommands most run commands
	More          int          // commands run but not listed
}

type typeRow struct {
	Name                  string
	Keys, Elements, Bytes int64
	Encodings             string // "listpack: 3, skiplist: 1"
}

type commandRow struct {
	Name     string
	Calls    uint64
	P50, P99 string // "" when latency is not tracked
}

func newKeyspaceView(s zlite.Stats) *keyspaceView {
	v := &keyspaceView{Keys: s.Keys, Blocked: s.Blocked, Commands: s.Commands}
	for _, name := range slices.Sorted(maps.Keys(s.Types)) {
		t := s.Types[name]
		var enc []string
		for _, e := range slices.Sorted(maps.Keys(t.Encodings)) {
			enc = append(enc, e+": "+strconv.FormatInt(t.Encodings[e], 10))
		}
		v.Types = append(v.Types, typeRow{name, t.Keys, t.Elements, t.Bytes, strings.Join(enc, ", ")})
	}
	names := slices.SortedFunc(maps.Keys(s.Command), func(a, b string) int {
		return cmp.Or(cmp.Compare(s.Command[b].Calls, s.Command[a].Calls), cmp.Compare(a, b))
	})
	v.More = max(len(names)-maxCommands, 0)
	for _, name := range names[:min(len(names), maxCommands)] {
		c := s.Command[name]
		row := commandRow{Name: name, Calls: c.Calls}
		if c.Latency.Count() > 0 {
			row.P50, row.P99 = fmtDuration(c.Latency.Quantile(0.5)), fmtDuration(c.Latency.Quantile(0.99))
		}
		v.Top = append(v.Top, row)
	}
	return v
}

// The keyspace in JSON; see the package doc.
type jsonKeyspace struct {
	Keys     int64                  `json:"keys"`
	Blocked  int64                  `json:"blocked"`
	Commands uint64                 `json:"commands"`
	Types    map[string]jsonType    `json:"types"`
	Command  map[string]jsonCommand `json:"command"`
}

type jsonType struct {
	Keys      int64            `json:"keys"`
	Elements  int64            `json:"elements"`
	Bytes     int64            `json:"bytes"`
	Encodings map[string]int64 `json:"encodings,omitempty"`
}

type jsonCommand struct {
	Calls uint64   `json:"calls"`
	P50   *float64 `json:"latency_p50_seconds,omitempty"`
	P99   *float64 `json:"latency_p99_seconds,omitempty"`
}

func newJSONKeyspace(s zlite.Stats) *jsonKeyspace {
	j := &jsonKeyspace{Keys: s.Keys, Blocked: s.Blocked, Commands: s.Commands,
		Types: map[string]jsonType{}, Command: map[string]jsonCommand{}}
	for name, t := range s.Types {
		j.Types[name] = jsonType{t.Keys, t.Elements, t.Bytes, t.Encodings}
	}
	for name, c := range s.Command {
		jc := jsonCommand{Calls: c.Calls}
		if c.Latency.Count() > 0 {
			p50, p99 := c.Latency.Quantile(0.5).Seconds(), c.Latency.Quantile(0.99).Seconds()
			jc.P50, jc.P99 = &p50, &p99
		}
		j.Command[name] = jc
	}
	return j
}
