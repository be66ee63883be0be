package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Reference is the system the ratio columns compare the others with.
const Reference = "zlite"

var displayNames = map[string]string{
	"zlite":      "zlite",
	"zlite-do":   "zlite Do",
	"redis":      "Redis",
	"redis-pipe": "Redis pipelined ×100",
	"miniredis":  "miniredis",
}

// DisplayName returns the column title of the system named name.
func DisplayName(name string) string {
	if d, ok := displayNames[name]; ok {
		return d
	}
	return name
}

// peers returns the systems compared with the reference in ratio columns.
func (r *Report) peers() []string {
	var out []string
	hasRef := false
	for _, s := range r.Systems {
		if s == Reference {
			hasRef = true
		}
		if !strings.HasPrefix(s, "zlite") {
			out = append(out, s)
		}
	}
	if !hasRef {
		return nil
	}
	return out
}

// addColumn adds the system named name to r's columns unless it is there.
func (r *Report) addColumn(name string) {
	if !slices.Contains(r.Systems, name) {
		r.Systems = append(r.Systems, name)
	}
}

// Ratio returns how many times better the reference's figure is than other's: above
// 1 the reference is better (faster, lower latency, smaller), below 1 it is worse.
// ok is false when either figure is missing or not positive.
func Ratio(m Metric, ref, other float64) (float64, bool) {
	if !(ref > 0) || !(other > 0) || math.IsInf(ref, 0) || math.IsInf(other, 0) {
		return 0, false
	}
	if m.HigherIsBetter() {
		return ref / other, true
	}
	return other / ref, true
}

// RatioText renders a [Ratio] for a table cell, in words, with the cases where the
// reference is worse in bold.
func RatioText(m Metric, ratio float64) string {
	better, worse := "faster", "slower"
	if m == BytesPerElem || m == BytesPerKey {
		better, worse = "smaller", "larger"
	}
	switch {
	case ratio >= 1:
		return fmt.Sprintf("%s× %s", sig(ratio), better)
	default:
		return fmt.Sprintf("**%s× %s**", sig(1/ratio), worse)
	}
}

func sig(x float64) string {
	switch {
	case x >= 10:
		return fmt.Sprintf("%.0f", x)
	case x >= 2:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

// formatValue renders a figure with its unit.
func formatValue(m Metric, v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	switch m {
	case OpsPerSec:
		switch {
		case v >= 1e6:
			return fmt.Sprintf("%.2fM/s", v/1e6)
		case v >= 1e3:
			return fmt.Sprintf("%.1fk/s", v/1e3)
		}
		return fmt.Sprintf("%.1f/s", v)
	case LatencyP50, LatencyP99:
		switch {
		case v >= 1:
			return fmt.Sprintf("%.2fs", v)
		case v >= 1e-3:
			return fmt.Sprintf("%.2fms", v*1e3)
		case v >= 1e-6:
			return fmt.Sprintf("%.1fµs", v*1e6)
		}
		return fmt.Sprintf("%.0fns", v*1e9)
	}
	return fmt.Sprintf("%.1f B", v)
}

func sizeText(n int) string {
	switch {
	case n == 0:
		return ""
	case n >= 1e6 && n%1e6 == 0:
		return fmt.Sprintf("%dM", n/1e6)
	case n >= 1e3 && n%1e3 == 0:
		return fmt.Sprintf("%dk", n/1e3)
	}
	return fmt.Sprint(n)
}

// sizeText is the table's n column: the elements, or keys×elements per key.
func (row *Row) sizeText() string {
	if row.Keys > 0 {
		return sizeText(row.Keys) + "×" + sizeText(row.N)
	}
	return sizeText(row.N)
}

// Markdown renders the report as a Markdown table: one row per workload, size and
// metric; a column per system, each figure with its spread (±: half the range of its
// runs, as a percentage of the figure); and a column per peer giving the zlite ratio,
// marked ⚠ where it is [Row.Uncertain]: the two systems' runs overlap, so that the
// ratio's direction is not settled by this run.
func (r *Report) Markdown() string {
	var b strings.Builder
	peers := r.peers()
	b.WriteString("| Workload | n | Metric |")
	for _, s := range r.Systems {
		fmt.Fprintf(&b, " %s |", DisplayName(s))
	}
	for _, p := range peers {
		fmt.Fprintf(&b, " zlite vs %s |", DisplayName(p))
	}
	b.WriteString("\n|---|--:|---|")
	b.WriteString(strings.Repeat("--:|", len(r.Systems)+len(peers)))
	b.WriteString("\n")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "| %s | %s | %s |", row.Workload, row.sizeText(), row.Metric)
		for _, s := range r.Systems {
			v, ok := row.Values[s]
			cell := "—"
			if ok {
				cell = formatValue(row.Metric, v)
				if sp, ok := row.Spread[s]; ok && sp.Max > sp.Min {
					cell += fmt.Sprintf(" ±%.0f%%", 50*sp.Relative(v))
				}
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		for _, p := range peers {
			cell := "—"
			if ratio, ok := Ratio(row.Metric, row.Values[Reference], row.Values[p]); ok {
				cell = RatioText(row.Metric, ratio)
				if row.Uncertain(p) {
					cell += " ⚠"
				}
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		b.WriteString("\n")
	}
	return b.String()
}
