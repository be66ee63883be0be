package inspector

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// chart is a small line chart drawn as inline SVG by the templates: the polyline's
// points are computed here, the text (label, summary) is escaped by html/template.
type chart struct {
	Label   string // what is drawn, e.g. "depth"
	Points  string // SVG polyline points in a W×H box, "" when there is nothing to draw
	Summary string // the figures in words: the chart's accessible name
	Caption string // the short form shown under the chart
	W, H    int
}

// newChart draws vals over the samples' span, skipping vals[i] when !ok[i] (no
// figure at that sample); fmtv formats one value for the summary. O(len(vals)).
func newChart(label string, w, h int, vals []float64, ok []bool, span time.Duration, fmtv func(float64) string) chart {
	c := chart{Label: label, W: w, H: h}
	lo, hi, n, last := math.Inf(1), math.Inf(-1), 0, 0.0
	for i, v := range vals {
		if !ok[i] {
			continue
		}
		lo, hi, last, n = min(lo, v), max(hi, v), v, n+1
	}
	if n == 0 {
		c.Summary = label + ": no samples yet"
		c.Caption = c.Summary
		return c
	}
	c.Summary = fmt.Sprintf("%s over the last %s: now %s, min %s, max %s",
		label, span.Round(time.Second), fmtv(last), fmtv(lo), fmtv(hi))
	c.Caption = fmt.Sprintf("%s: now %s, max %s", label, fmtv(last), fmtv(hi))
	// The vertical scale starts at zero so that a flat line near zero does not look
	// like wild swings.
	top := max(hi, 0)
	if top == 0 {
		top = 1
	}
	var b strings.Builder
	step := float64(w-2) / float64(max(len(vals)-1, 1))
	for i, v := range vals {
		if !ok[i] {
			continue
		}
		x := 1 + step*float64(i)
		y := float64(h-1) - (float64(h-2) * max(v, 0) / top)
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(x, 'f', 1, 64))
		b.WriteByte(',')
		b.WriteString(strconv.FormatFloat(y, 'f', 1, 64))
	}
	c.Points = b.String()
	return c
}

// charts returns the depth chart of one queue's history, and its throughput and
// lateness charts when the queue reports counters and due times.
func charts(s []sample, w, h int) []chart {
	n := len(s)
	depth, rate, late := make([]float64, n), make([]float64, n), make([]float64, n)
	hasDepth, hasRate, hasLate := make([]bool, n), make([]bool, n), make([]bool, n)
	anyRate, anyLate := false, false
	for i, p := range s {
		depth[i], hasDepth[i] = float64(p.Depth), true
		rate[i], hasRate[i] = p.Rate, p.HasRate
		late[i], hasLate[i] = p.Late.Seconds(), p.HasLate
		anyRate, anyLate = anyRate || p.Counted, anyLate || p.HasLate
	}
	var span time.Duration
	if n > 1 {
		span = s[n-1].At.Sub(s[0].At)
	}
	out := []chart{newChart("depth", w, h, depth, hasDepth, span, func(v float64) string { return strconv.FormatInt(int64(v), 10) })}
	if anyRate {
		out = append(out, newChart("throughput", w, h, rate, hasRate, span, fmtRate))
	}
	if anyLate {
		out = append(out, newChart("lateness p99", w, h, late, hasLate, span, func(v float64) string {
			return fmtDuration(time.Duration(v * float64(time.Second)))
		}))
	}
	return out
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
