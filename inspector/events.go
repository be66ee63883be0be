package inspector

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"
)

// maxStream bounds how long one event stream lasts: the browser's EventSource
// reconnects by itself, so a stream that ends costs one reconnection, and a
// connection forgotten by a proxy cannot hold a goroutine forever.
const maxStream = 10 * time.Minute

// tick returns a channel closed at the next sample ([Handler.Sample] or
// [Handler.Run]): one channel shared by every waiter, replaced at each sample,
// so a sample wakes each stream once and costs O(1) whatever the streams.
func (h *Handler) tick() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ticked
}

// wake closes the current tick channel and makes the next one.
func (h *Handler) wake() {
	h.mu.Lock()
	defer h.mu.Unlock()
	close(h.ticked)
	h.ticked = make(chan struct{})
}

// indexEvents streams the index's JSON (GET /events); see [Handler.stream].
func (h *Handler) indexEvents(w http.ResponseWriter, r *http.Request) {
	h.stream(w, r, func() any { return h.jsonIndexOf(r) })
}

// queueEvents streams a queue page's JSON (GET /events/queues/{name}, with the
// page's ?offset= and ?count=); see [Handler.stream].
func (h *Handler) queueEvents(w http.ResponseWriter, r *http.Request) {
	if q, offset, count, ok := h.jsonPageRequest(w, r); ok {
		h.stream(w, r, func() any { return h.jsonPageOf(r, q, offset, count) })
	}
}

// stream writes server-sent events: build's JSON at once and then after each
// sample, until the request's context ends or maxStream passes. Each event is
// "event: sample" and one "data:" line of compact JSON, so a connection costs one
// page's work per sample and holds no buffer between events. It runs in the
// request's goroutine and starts none.
func (h *Handler) stream(w http.ResponseWriter, r *http.Request, build func() any) {
	rc := http.NewResponseController(w)
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("X-Accel-Buffering", "no") // nginx: do not hold the events back
	w.WriteHeader(http.StatusOK)
	ctx := r.Context()
	end := time.NewTimer(maxStream)
	defer end.Stop()
	// The browser reconnects after this long when the stream ends.
	if _, err := w.Write([]byte("retry: " + strconv.FormatInt(max(h.cfg.every.Milliseconds(), 1000), 10) + "\n\n")); err != nil {
		return
	}
	for {
		next := h.tick() // before building, so that a sample meanwhile is not missed
		b, err := json.Marshal(build())
		if err != nil {
			return
		}
		if _, err := w.Write(append(append([]byte("event: sample\ndata: "), b...), '\n', '\n')); err != nil {
			return
		}
		if err := rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-end.C:
			return
		case <-next:
		}
	}
}
