package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgress(t *testing.T) {
	tests := []struct {
		name     string
		tty      bool
		done     int
		want     []string // substrings of the output
		wantNot  []string
		newlines int
	}{
		{"plain line", false, 1, []string{"] zscore 1.2M/s\n"}, []string{"\r", "workloads"}, 1},
		{"bar before any workload", true, 0, []string{"\r\x1b[K[", "] 0/4 workloads", "? left · zscore 1.2M/s"}, []string{"\n"}, 0},
		{"bar half way", true, 2, []string{strings.Repeat("=", 12) + strings.Repeat(" ", 12) + "] 2/4 workloads", "left · zscore"}, []string{"? left", "\n"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			p := &progress{w: &b, tty: tt.tty, total: 4, start: time.Now().Add(-time.Second)}
			for range tt.done {
				p.finished()
			}
			p.event("zscore   1.2M/s")
			out := b.String()
			if !tt.tty {
				out = strings.ReplaceAll(out, "zscore   1.2M/s", "zscore 1.2M/s")
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output %q lacks %q", out, w)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(out, w) {
					t.Errorf("output %q contains %q", out, w)
				}
			}
			if n := strings.Count(out, "\n"); n != tt.newlines {
				t.Errorf("output %q has %d newlines; want %d", out, n, tt.newlines)
			}
		})
	}
	var nilBar *progress
	nilBar.event("ignored") // a Config without a bar (Run not started) reports nothing
	nilBar.finished()
	if isTerminal(&bytes.Buffer{}) {
		t.Error("isTerminal(a buffer) = true")
	}
}
