package inspector

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"
)

// The JSON shapes; see the package doc. Durations are in seconds (float), times in
// RFC 3339 with nanoseconds, absent optional groups are null.

type jsonQueue struct {
	Name       string        `json:"name"`
	Kind       Kind          `json:"kind"`
	Error      string        `json:"error,omitempty"`
	Depth      int64         `json:"depth"`
	Levels     []jsonLevel   `json:"levels"`
	Due        int64         `json:"due"`
	InFlight   int64         `json:"in_flight"`
	Dead       int64         `json:"dead"`
	Retrying   int64         `json:"retrying"`
	Paused     bool          `json:"paused"`
	Oldest     *float64      `json:"oldest_seconds"`
	Activity   *Activity     `json:"activity"`
	Lateness   *jsonLateness `json:"lateness"`
	Throughput *float64      `json:"throughput_per_second"`
	History    []jsonSample  `json:"history,omitempty"`
}

type jsonLevel struct {
	Name  string `json:"name"`
	Depth int64  `json:"depth"`
}

type jsonLateness struct {
	Count int64   `json:"count"`
	P50   float64 `json:"p50_seconds"`
	P99   float64 `json:"p99_seconds"`
	Max   float64 `json:"max_seconds"`
}

type jsonSample struct {
	At          time.Time `json:"at"`
	Depth       int64     `json:"depth"`
	Throughput  *float64  `json:"throughput_per_second,omitempty"`
	LatenessP99 *float64  `json:"lateness_p99_seconds,omitempty"`
	LatenessP50 *float64  `json:"lateness_p50_seconds,omitempty"`
}

type jsonItem struct {
	ID          string    `json:"id"`
	Value       string    `json:"value"`
	Position    int64     `json:"position"`
	State       ItemState `json:"state"`
	Level       string    `json:"level,omitempty"`
	Group       string    `json:"group,omitempty"`
	Priority    float64   `json:"priority"`
	Enqueued    time.Time `json:"enqueued,omitzero"`
	Due         time.Time `json:"due,omitzero"`
	LeaseExpiry time.Time `json:"lease_expiry,omitzero"`
	Attempt     int64     `json:"attempt,omitempty"`
	LastError   string    `json:"last_error,omitempty"`
	Died        time.Time `json:"died,omitzero"`
}

func jsonItemOf(it Item, now time.Time) jsonItem {
	return jsonItem{ID: it.ID, Value: it.Value, Position: it.Position, State: stateOf(it, now),
		Level: it.Level, Group: it.Group, Priority: it.Priority, Enqueued: it.Enqueued, Due: it.Due, LeaseExpiry: it.LeaseExpiry,
		Attempt: it.Attempt, LastError: it.LastError, Died: it.Died}
}

type jsonPage struct {
	jsonQueue
	Offset     int64      `json:"offset"`
	Count      int64      `json:"count"`
	More       bool       `json:"more"`
	Items      []jsonItem `json:"items"`
	ItemsError string     `json:"items_error,omitempty"`
}

func (h *Handler) jsonQueueOf(r *http.Request, q Queue, history bool) jsonQueue {
	j := jsonQueue{Name: q.Name(), Kind: q.Kind(), Levels: []jsonLevel{}}
	st, err := q.Stats(r.Context())
	if err != nil {
		j.Error = err.Error()
	}
	j.Depth, j.Due, j.InFlight, j.Dead, j.Activity = st.Depth, st.Due, st.InFlight, st.Dead, st.Activity
	j.Retrying, j.Paused = st.Retrying, st.Paused
	if st.HasOldest {
		o := st.Oldest.Seconds()
		j.Oldest = &o
	}
	for _, l := range st.Levels {
		j.Levels = append(j.Levels, jsonLevel(l))
	}
	if l := st.Lateness; l != nil {
		j.Lateness = &jsonLateness{Count: l.Count, P50: l.P50.Seconds(), P99: l.P99.Seconds(), Max: l.Max.Seconds()}
	}
	s := h.samples(q.Name())
	if rate, ok := lastRate(s); ok {
		j.Throughput = &rate
	}
	if history {
		j.History = make([]jsonSample, 0, len(s))
		for _, p := range s {
			js := jsonSample{At: p.At, Depth: p.Depth}
			if p.HasRate {
				js.Throughput = &p.Rate
			}
			if p.HasLate {
				l, m := p.Late.Seconds(), p.Late50.Seconds()
				js.LatenessP99, js.LatenessP50 = &l, &m
			}
			j.History = append(j.History, js)
		}
	}
	return j
}

// indexJSON is the object of /api/queues.
type indexJSON struct {
	Actions  bool          `json:"actions"`
	Queues   []jsonQueue   `json:"queues"`
	Keyspace *jsonKeyspace `json:"keyspace,omitempty"`
}

func (h *Handler) jsonIndexOf(r *http.Request) indexJSON {
	out := indexJSON{Actions: h.cfg.actions, Queues: make([]jsonQueue, 0, len(h.queues))}
	if h.cfg.keyspace != nil {
		out.Keyspace = newJSONKeyspace(h.cfg.keyspace())
	}
	for _, q := range h.queues {
		out.Queues = append(out.Queues, h.jsonQueueOf(r, q, true))
	}
	return out
}

func (h *Handler) apiIndex(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, h.jsonIndexOf(r))
}

func (h *Handler) jsonPageOf(r *http.Request, q Queue, offset, count int64) jsonPage {
	p := jsonPage{jsonQueue: h.jsonQueueOf(r, q, true), Offset: offset, Count: count, Items: []jsonItem{}}
	page, more, err := items(r.Context(), q, offset, count)
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		p.ItemsError = "this queue does not list its items"
	case err != nil:
		p.ItemsError = err.Error()
	}
	p.More = more
	now := h.now()
	for _, it := range page {
		p.Items = append(p.Items, jsonItemOf(it, now))
	}
	return p
}

func (h *Handler) apiQueue(w http.ResponseWriter, r *http.Request) {
	if q, offset, count, ok := h.jsonPageRequest(w, r); ok {
		writeJSON(w, http.StatusOK, h.jsonPageOf(r, q, offset, count))
	}
}

// jsonPageRequest reads the queue and page of a JSON request for a queue page
// (GET /api/queues/{name} or /events/queues/{name}), or writes the 404 or 400
// reply and returns ok == false.
func (h *Handler) jsonPageRequest(w http.ResponseWriter, r *http.Request) (q Queue, offset, count int64, ok bool) {
	q, ok = h.byName[r.PathValue("name")]
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no queue named " + strconv.Quote(r.PathValue("name"))})
		return nil, 0, 0, false
	}
	offset, count, err := h.paging(r)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return nil, 0, 0, false
	}
	return q, offset, count, true
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, "inspector: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}
