package bench

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
)

var systemColors = map[string]string{
	"zlite":      "#1d4ed8",
	"zlite-do":   "#60a5fa",
	"redis":      "#b91c1c",
	"redis-pipe": "#f87171",
	"miniredis":  "#15803d",
}

func colorOf(name string) string {
	if c, ok := systemColors[name]; ok {
		return c
	}
	return "#6b7280"
}

// SVG renders the report as a chart: one panel per kind of figure (throughput,
// latency, memory), each with its own logarithmic axis, and for every workload a
// group of bars, one per system, labelled with its value.
func (r *Report) SVG() string {
	const (
		barW   = 640
		valueW = 160 // room right of the longest bar for its value
		barH   = 9
		gap    = 1
		pad    = 6
	)
	panels := []struct {
		title   string
		metrics []Metric
	}{
		{"Throughput (log scale; longer is better)", []Metric{OpsPerSec}},
		{"Latency (log scale; shorter is better)", []Metric{LatencyP50, LatencyP99}},
		{"Memory per element (log scale; shorter is better)", []Metric{BytesPerElem}},
		{"Memory per key (log scale; shorter is better)", []Metric{BytesPerKey}},
	}
	peers := r.peers()
	// The label column is as wide as the longest label, so none is clipped.
	labelW := 0
	for _, row := range r.Rows {
		labelW = max(labelW, textWidth(row.label(peers)))
	}
	labelW += pad + labelGap
	width := labelW + barW + valueW
	var body strings.Builder
	y := 60
	// legend
	x := pad
	for _, s := range r.Systems {
		fmt.Fprintf(&body, `<rect x="%d" y="%d" width="14" height="14" fill="%s"/>`+"\n", x, y-12, colorOf(s))
		fmt.Fprintf(&body, `<text x="%d" y="%d">%s</text>`+"\n", x+20, y, esc(DisplayName(s)))
		x += 40 + 8*len(DisplayName(s))
	}
	y += 20
	fmt.Fprintf(&body, `<text x="%d" y="%d" class="s">%s</text>`+"\n", pad, y, esc("⚠ on a workload: for some system, its runs and zlite's overlap, so which is better is not settled by this run."))
	y += 10
	for _, p := range panels {
		var rows []Row
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, row := range r.Rows {
			if !slices.Contains(p.metrics, row.Metric) {
				continue
			}
			any := false
			for _, s := range r.Systems {
				if v, ok := row.Values[s]; ok && v > 0 {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
					any = true
				}
			}
			if any {
				rows = append(rows, row)
			}
		}
		if len(rows) == 0 {
			continue
		}
		dlo, dhi := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
		if math.Log10(lo)-dlo < 0.3 { // leave the shortest bar a visible length
			dlo--
		}
		if dhi <= dlo {
			dhi = dlo + 1
		}
		xOf := func(v float64) float64 {
			return float64(labelW) + (math.Log10(v)-dlo)/(dhi-dlo)*barW
		}
		y += 20
		fmt.Fprintf(&body, `<text x="%d" y="%d" class="h">%s</text>`+"\n", pad, y, esc(p.title))
		y += 22
		axisY := y
		top := y + 6
		// the grid goes first so the bars are drawn over it: a line per decade
		bottom := top + pad
		for _, row := range rows {
			for _, s := range r.Systems {
				if _, ok := row.Values[s]; ok {
					bottom += barH + gap
				}
			}
			bottom += 2 * pad
		}
		for d := dlo; d <= dhi; d++ {
			gx := float64(labelW) + (d-dlo)/(dhi-dlo)*barW
			fmt.Fprintf(&body, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" class="g"/>`+"\n", gx, top, gx, bottom-pad)
			fmt.Fprintf(&body, `<text x="%.1f" y="%d" text-anchor="middle" class="v">%s</text>`+"\n", gx, axisY, esc(tickText(p.metrics[0], int(d))))
		}
		y = top + pad
		for _, row := range rows {
			n := 0
			for _, s := range r.Systems {
				if _, ok := row.Values[s]; ok {
					n++
				}
			}
			groupH := n*(barH+gap) - gap
			fmt.Fprintf(&body, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", labelW-labelGap, y+groupH/2+4, esc(row.label(peers)))
			for _, s := range r.Systems {
				v, ok := row.Values[s]
				if !ok {
					continue
				}
				end := float64(labelW)
				if v > 0 {
					end = xOf(v)
				}
				fmt.Fprintf(&body, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %s</title></rect>`+"\n",
					labelW, y, math.Max(end-float64(labelW), 1), barH, colorOf(s), esc(DisplayName(s)), esc(formatValue(row.Metric, v)))
				fmt.Fprintf(&body, `<text x="%.1f" y="%d" class="v">%s</text>`+"\n", math.Max(end, float64(labelW)+1)+4, y+barH-1, esc(formatValue(row.Metric, v)))
				y += barH + gap
			}
			y += 2 * pad
		}
	}
	height := y + pad
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	b.WriteString(`<style>.h{font-size:15px;font-weight:bold}.t{font-size:18px;font-weight:bold}.v{font-size:9px;fill:#374151}.s{font-size:10px;fill:#374151}.g{stroke:#d1d5db;stroke-width:1}</style>` + "\n")
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="26" class="t">zlite vs Redis vs miniredis — %s</text>`+"\n", pad, esc(r.machine()))
	fmt.Fprintf(&b, `<text x="%d" y="42" class="s">%s</text>`+"\n", pad, esc(r.subtitle()))
	b.WriteString(body.String())
	b.WriteString("</svg>\n")
	return b.String()
}

// labelGap is the space between a workload's label and its bars.
const labelGap = 8

// label is the chart's label of row: the workload, its size, ⚠ when a ratio to
// one of peers is [Row.Uncertain], and the latency quantile.
func (row *Row) label(peers []string) string {
	label := row.Workload
	if row.N > 0 {
		label += " · n=" + row.sizeText()
	}
	if row.anyUncertain(peers) {
		label += " ⚠"
	}
	if row.Metric == LatencyP50 || row.Metric == LatencyP99 {
		label += " · " + row.Metric.String()
	}
	return label
}

// textWidth returns an upper bound on the width in pixels of s in the chart's
// 11-pixel sans-serif labels, from advance widths at least as large as DejaVu Sans
// (the widest of the common sans-serif faces) and Arial give each class of
// character: spaces and narrow punctuation 4.5, lower-case letters 7, digits 7,
// capitals 8.5, m, w, M and W 11, anything outside ASCII (⚠, ×, →) 11. A label
// measured so is never clipped; it may have a little room to spare.
func textWidth(s string) int {
	w := 0.0
	for _, c := range s {
		switch {
		case strings.ContainsRune(" .,:;()-/|'", c):
			w += 4.5
		case strings.ContainsRune("mwMW", c) || c > 0x7f:
			w += 11
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			w += 7
		default: // capitals, other ASCII symbols
			w += 8.5
		}
	}
	return int(math.Ceil(w))
}

// subtitle is the chart's provenance line: date, load, versions and flags.
func (r *Report) subtitle() string {
	s := r.Started.UTC().Format("2006-01-02 15:04 MST")
	if r.Load != "" {
		s += "; load " + r.Load
	}
	return s + "; " + r.Provenance.String()
}

func esc(s string) string { return html.EscapeString(s) }

// tickText labels the axis line at 10^d.
func tickText(m Metric, d int) string {
	var units []string
	base := 0 // the decade of units[0]
	switch m {
	case OpsPerSec:
		units = []string{"/s", "k/s", "M/s", "G/s"}
	case LatencyP50, LatencyP99:
		units, base = []string{"ns", "µs", "ms", "s"}, -9
	default:
		units = []string{" B", " kB", " MB", " GB"}
	}
	i := (d - base) / 3
	if d < base || i >= len(units) {
		return formatValue(m, math.Pow(10, float64(d)))
	}
	return fmt.Sprintf("%d%s", int(math.Pow(10, float64((d-base)%3))), units[i])
}
