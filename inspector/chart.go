package inspector

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// chart is a line chart drawn as inline SVG by the templates, with a y axis (zero
// to the largest value, in the chart's unit) and an x axis (time before now): the
// coordinates and tick labels are computed here, the text is escaped by
// html/template.
type chart struct {
	Label   string // what is drawn, e.g. "depth"
	Unit    string // the y axis's unit, e.g. "items/s"
	Lines   []line // nil when there is nothing to draw
	Summary string // the figures in words: the chart's accessible name
	Caption string // the short form shown under the chart
	W, H    int
	// The plot area, inside the axes.
	Left, Right, Top, Bottom float64
	XTicks, YTicks           []tick
}

// line is one series of a chart.
type line struct {
	Name   string // "" for a chart's only series, else e.g. "p99"
	Class  string // the CSS class that styles it
	Points string // SVG polyline points
}

// tick is one labelled mark of an axis at coordinate At.
type tick struct {
	At    float64
	Label string
}

// series is one set of values for a chart: vals[i] is drawn when ok[i].
type series struct {
	name string
	vals []float64
	ok   []bool
}

// Margins of the plot area: the y labels on the left, the x labels below.
const (
	marginLeft   = 46
	marginRight  = 8
	marginTop    = 8
	marginBottom = 18
)

// newChart draws the series over the samples' span (the x axis runs from -span
// to now), fmtv formatting one value for the labels and summary. O(len(vals)).
func newChart(label, unit string, w, h int, span time.Duration, fmtv func(float64) string, ss ...series) chart {
	c := chart{Label: label, Unit: unit, W: w, H: h,
		Left: marginLeft, Right: float64(w - marginRight), Top: marginTop, Bottom: float64(h - marginBottom)}
	hi := math.Inf(-1)
	var parts []string
	for _, sr := range ss {
		lo, shi, n, last := math.Inf(1), math.Inf(-1), 0, 0.0
		for i, v := range sr.vals {
			if sr.ok[i] {
				lo, shi, last, n = min(lo, v), max(shi, v), v, n+1
			}
		}
		if n == 0 {
			continue
		}
		hi = max(hi, shi)
		name := ""
		if sr.name != "" {
			name = sr.name + " "
		}
		parts = append(parts, fmt.Sprintf("%snow %s, min %s, max %s", name, fmtv(last), fmtv(lo), fmtv(shi)))
	}
	if len(parts) == 0 {
		c.Summary = label + ": no samples yet"
		c.Caption = c.Summary
		return c
	}
	c.Summary = fmt.Sprintf("%s (%s) over the last %s: %s", label, unit, span.Round(time.Second), strings.Join(parts, "; "))
	c.Caption = fmt.Sprintf("%s (%s): %s", label, unit, strings.Join(parts, "; "))
	// The vertical scale starts at zero so that a flat line near zero does not look
	// like wild swings.
	top := max(hi, 0)
	if top == 0 {
		top = 1
	}
	pw, ph := c.Right-c.Left, c.Bottom-c.Top
	for i, f := range []float64{0, 0.5, 1} {
		if i == 1 && h < 80 {
			continue // no room for a middle label
		}
		c.YTicks = append(c.YTicks, tick{At: c.Bottom - ph*f, Label: fmtv(top * f)})
	}
	start := ""
	if span >= time.Second {
		start = "-" + fmtDuration(span.Round(time.Second))
	}
	c.XTicks = []tick{{At: c.Left, Label: start}, {At: c.Right, Label: "now"}}
	for k, sr := range ss {
		var b strings.Builder
		step := pw / float64(max(len(sr.vals)-1, 1))
		for i, v := range sr.vals {
			if !sr.ok[i] {
				continue
			}
			x := c.Left + step*float64(i)
			if len(sr.vals) == 1 {
				x = c.Right
			}
			y := c.Bottom - ph*max(v, 0)/top
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.FormatFloat(x, 'f', 1, 64))
			b.WriteByte(',')
			b.WriteString(strconv.FormatFloat(y, 'f', 1, 64))
		}
		if b.Len() > 0 {
			c.Lines = append(c.Lines, line{Name: sr.name, Class: "line line" + strconv.Itoa(k), Points: b.String()})
		}
	}
	return c
}

// charts returns the depth chart of one queue's history, and its throughput and
// lateness (p50 and p99) charts when the queue reports counters and due times.
func charts(s []sample, w, h int) []chart {
	n := len(s)
	depth, rate, late, late50 := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	hasDepth, hasRate, hasLate := make([]bool, n), make([]bool, n), make([]bool, n)
	anyRate, anyLate := false, false
	for i, p := range s {
		depth[i], hasDepth[i] = float64(p.Depth), true
		rate[i], hasRate[i] = p.Rate, p.HasRate
		late[i], late50[i], hasLate[i] = p.Late.Seconds(), p.Late50.Seconds(), p.HasLate
		anyRate, anyLate = anyRate || p.Counted, anyLate || p.HasLate
	}
	var span time.Duration
	if n > 1 {
		span = s[n-1].At.Sub(s[0].At)
	}
	out := []chart{newChart("depth", "items", w, h, span, fmtCount, series{vals: depth, ok: hasDepth})}
	if anyRate {
		out = append(out, newChart("throughput", "items/s", w, h, span, fmtRate, series{vals: rate, ok: hasRate}))
	}
	if anyLate {
		out = append(out, newChart("lateness", "seconds", w, h, span, func(v float64) string {
			return fmtDuration(time.Duration(v * float64(time.Second)))
		}, series{name: "p50", vals: late50, ok: hasLate}, series{name: "p99", vals: late, ok: hasLate}))
	}
	return out
}

// fmtCount formats a depth: an integer, or with a decimal when the axis's middle
// falls between two.
func fmtCount(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// fmtRate formats a rate per second with three significant digits.
func fmtRate(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) + "/s" }

// fmtDuration formats d for people: 1.25s, 340ms, 12µs, 3m20s.
func fmtDuration(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(100 * time.Microsecond).String()
	case d < time.Minute:
		return d.Round(10 * time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}
