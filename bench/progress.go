package bench

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progress reports how far a [Run] is: on a terminal, one bar redrawn in place
// (done/total workloads, elapsed time, estimated time left, the latest figure);
// elsewhere, one plain line per event, so that a log stays readable.
type progress struct {
	w           io.Writer // nil for no progress
	tty         bool
	start       time.Time
	done, total int // workloads
}

func newProgress(w io.Writer, total int, start time.Time) *progress {
	return &progress{w: w, tty: isTerminal(w), total: total, start: start}
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// event reports what the run is doing or has just measured.
func (p *progress) event(msg string) {
	if p == nil || p.w == nil {
		return
	}
	elapsed := time.Since(p.start)
	if !p.tty {
		fmt.Fprintf(p.w, "[%5.1fs] %s\n", elapsed.Seconds(), msg)
		return
	}
	const width = 24
	filled := 0
	if p.total > 0 {
		filled = width * p.done / p.total
	}
	left := "?"
	if p.done > 0 {
		left = "~" + (elapsed * time.Duration(p.total-p.done) / time.Duration(p.done)).Round(time.Second).String()
	}
	line := fmt.Sprintf("[%s%s] %d/%d workloads, %s elapsed, %s left · %s",
		strings.Repeat("=", filled), strings.Repeat(" ", width-filled), p.done, p.total,
		elapsed.Round(time.Second), left, strings.Join(strings.Fields(msg), " "))
	fmt.Fprintf(p.w, "\r\x1b[K%s", line)
}

// finished counts one workload as done.
func (p *progress) finished() {
	if p != nil {
		p.done++
	}
}

// end finishes the bar's line on a terminal.
func (p *progress) end() {
	if p != nil && p.w != nil && p.tty {
		p.event("done")
		fmt.Fprintln(p.w)
	}
}
