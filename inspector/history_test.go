package inspector

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRing(t *testing.T) {
	tests := []struct {
		cap, adds int
		want      []int64 // depths, oldest first
	}{
		{3, 0, []int64{}},
		{3, 2, []int64{0, 1}},
		{3, 3, []int64{0, 1, 2}},
		{3, 7, []int64{4, 5, 6}},
		{1, 5, []int64{4}},
	}
	for _, tt := range tests {
		r := newRing(tt.cap)
		for i := range tt.adds {
			r.add(sample{Depth: int64(i)})
		}
		got := []int64{}
		for _, s := range r.all() {
			got = append(got, s.Depth)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("ring(cap %d) after %d adds = %v; want %v", tt.cap, tt.adds, got, tt.want)
		}
		if cap(r.buf) != tt.cap {
			t.Errorf("ring(cap %d) grew to %d", tt.cap, cap(r.buf))
		}
		if last, ok := r.last(); ok != (tt.adds > 0) || (ok && last.Depth != int64(tt.adds-1)) {
			t.Errorf("ring(cap %d) after %d adds: last() = %d, %v", tt.cap, tt.adds, last.Depth, ok)
		}
	}
}

// counting is a queue whose Stats returns the next of a list of snapshots.
type counting struct {
	snaps []Stats
	i     int
}

func (q *counting) Name() string { return "q" }
func (q *counting) Kind() Kind   { return KindFIFO }
func (q *counting) Stats(context.Context) (Stats, error) {
	s := q.snaps[q.i]
	q.i++
	return s, nil
}
func (q *counting) Items(context.Context, int64, int64) ([]Item, error) { return nil, nil }

func TestSampleRates(t *testing.T) {
	act := func(deq int64) *Activity { return &Activity{Dequeued: deq} }
	q := &counting{snaps: []Stats{
		{Depth: 1, Activity: act(10)},
		{Depth: 2, Activity: act(30)}, // +20 in 2s
		{Depth: 3, Activity: act(5)},  // counter went down: no rate
		{Depth: 4, Activity: act(9)},  // +4 in 2s
		{Depth: 5},                    // no counters
		{Depth: 6, Activity: act(20), Lateness: &Lateness{P99: time.Second}}, // no counted sample before
	}}
	now := time.Unix(1000, 0)
	h := New([]Queue{q}, WithClock(func() time.Time { return now }), WithHistory(4, time.Second))
	for range q.snaps {
		if err := h.Sample(t.Context()); err != nil {
			t.Fatal(err)
		}
		now = now.Add(2 * time.Second)
	}
	s := h.samples("q")
	type point struct {
		depth   int64
		rate    float64
		hasRate bool
		hasLate bool
	}
	var got []point
	for _, p := range s {
		got = append(got, point{p.Depth, p.Rate, p.HasRate, p.HasLate})
	}
	want := []point{{3, 0, false, false}, {4, 2, true, false}, {5, 0, false, false}, {6, 0, false, true}}
	if !slices.Equal(got, want) {
		t.Errorf("samples = %v; want %v (the last 4, rates from counter differences)", got, want)
	}
	cs := charts(s, 100, 20)
	var labels []string
	for _, c := range cs {
		labels = append(labels, c.Summary)
	}
	wantLabels := []string{
		"depth (items) over the last 6s: now 6, min 3, max 6",
		"throughput (items/s) over the last 6s: now 2/s, min 2/s, max 2/s",
		"lateness (seconds) over the last 6s: p50 now 0s, min 0s, max 0s; p99 now 1s, min 1s, max 1s",
	}
	if !slices.Equal(labels, wantLabels) {
		t.Errorf("chart summaries = %q; want %q", labels, wantLabels)
	}
	if len(cs[1].Lines) != 1 {
		t.Fatalf("throughput chart has %d lines; want 1", len(cs[1].Lines))
	}
	if n := strings.Count(cs[1].Lines[0].Points, ","); n != 1 {
		t.Errorf("throughput chart has %d points (%q); want 1, the only sample with a rate", n, cs[1].Lines[0].Points)
	}
	if len(cs[2].Lines) != 2 {
		t.Errorf("lateness chart has %d lines; want 2 (p50, p99)", len(cs[2].Lines))
	}
	var ticks []string
	for _, tk := range cs[0].YTicks {
		ticks = append(ticks, tk.Label)
	}
	if want := []string{"0", "6"}; !slices.Equal(ticks, want) {
		t.Errorf("depth chart y ticks = %q; want %q (20 px high: no middle tick)", ticks, want)
	}
	if got := []string{cs[0].XTicks[0].Label, cs[0].XTicks[1].Label}; !slices.Equal(got, []string{"-6s", "now"}) {
		t.Errorf("depth chart x ticks = %q; want [-6s now]", got)
	}
}

func TestRunStopsWithContext(t *testing.T) {
	q := &counting{snaps: make([]Stats, 1)}
	h := New([]Queue{q}, WithHistory(2, time.Hour))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := h.Run(ctx); err != context.Canceled {
		t.Errorf("Run with a cancelled ctx = %v; want context.Canceled", err)
	}
	if q.i != 1 {
		t.Errorf("Run sampled %d times before returning; want 1", q.i)
	}
}

func TestFmtDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{1234 * time.Nanosecond, "1µs"},
		{1234567 * time.Nanosecond, "1.2ms"},
		{1234567890 * time.Nanosecond, "1.23s"},
		{200 * time.Second, "3m20s"},
	}
	for _, tt := range tests {
		if got := fmtDuration(tt.d); got != tt.want {
			t.Errorf("fmtDuration(%v) = %q; want %q", tt.d, got, tt.want)
		}
	}
}
