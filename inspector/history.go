package inspector

import (
	"context"
	"time"
)

// sample is one point of a queue's history.
type sample struct {
	At       time.Time
	Depth    int64
	Dequeued int64   // counter value; rates come from differences
	Counted  bool    // the queue reported counters (Dequeued is meaningful)
	Rate     float64 // dequeued per second since the previous sample, if HasRate
	HasRate  bool
	Late     time.Duration // lateness p99 at this sample, if HasLate
	Late50   time.Duration // lateness p50 at this sample, if HasLate
	HasLate  bool
}

// ring is a bounded history: the last cap(buf) samples, oldest first from start.
// It is not safe for concurrent use; the Handler guards it with its mutex.
type ring struct {
	buf   []sample
	start int // index of the oldest sample once the ring is full
}

func newRing(n int) *ring { return &ring{buf: make([]sample, 0, n)} }

// add appends s, dropping the oldest sample when the ring is full. O(1).
func (r *ring) add(s sample) {
	if len(r.buf) < cap(r.buf) {
		r.buf = append(r.buf, s)
		return
	}
	r.buf[r.start] = s
	r.start = (r.start + 1) % len(r.buf)
}

// last returns the newest sample.
func (r *ring) last() (sample, bool) {
	if len(r.buf) == 0 {
		return sample{}, false
	}
	return r.buf[(r.start+len(r.buf)-1)%len(r.buf)], true
}

// all returns a copy of the samples, oldest first. O(n).
func (r *ring) all() []sample {
	out := make([]sample, 0, len(r.buf))
	out = append(out, r.buf[r.start:]...)
	return append(out, r.buf[:r.start]...)
}

// Sample reads every queue's [Queue.Stats] once and adds a point to its history
// (the charts); the history keeps the last n points set by [WithHistory]. A queue
// whose Stats fails gets no point this time; Sample returns the first such error.
// [Handler.Run] calls it periodically; call it yourself to sample on your own
// schedule. The cost is one Stats call per queue; then every open event stream
// (see the package doc, Live updates) sends its page once.
func (h *Handler) Sample(ctx context.Context) error {
	var first error
	for _, q := range h.queues {
		st, err := q.Stats(ctx)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		h.record(q.Name(), st, h.now())
	}
	h.wake()
	return first
}

func (h *Handler) record(name string, st Stats, at time.Time) {
	s := sample{At: at, Depth: st.Depth}
	if st.Lateness != nil {
		s.Late, s.Late50, s.HasLate = st.Lateness.P99, st.Lateness.P50, true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.history[name]
	if st.Activity != nil {
		s.Dequeued, s.Counted = st.Activity.Dequeued, true
		// A rate needs an earlier counted sample; a counter that went down (the
		// queue was recreated) gives no rate for this interval.
		if prev, ok := r.last(); ok && prev.Counted && prev.At.Before(at) && s.Dequeued >= prev.Dequeued {
			s.Rate, s.HasRate = float64(s.Dequeued-prev.Dequeued)/at.Sub(prev.At).Seconds(), true
		}
	}
	r.add(s)
}

// samples returns a copy of the named queue's samples, oldest first.
func (h *Handler) samples(name string) []sample {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.history[name].all()
}

// Run samples every queue (see [Handler.Sample]) every interval set by
// [WithHistory] until ctx is done, then returns ctx.Err(). It starts no other
// goroutine; run it in one of yours:
//
//	go h.Run(ctx)
func (h *Handler) Run(ctx context.Context) error {
	t := time.NewTicker(h.cfg.every)
	defer t.Stop()
	for {
		_ = h.Sample(ctx)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}
