package inspector

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MaxPageSize is the most items one page or JSON request returns.
const MaxPageSize = 500

// maxForm bounds the body of an action request.
const maxForm = 64 << 10

// maxOffset bounds ?offset= so that offset+count+1 cannot overflow.
const maxOffset = 1 << 62

//go:embed templates/*.html static/style.css static/live.js
var files embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"dur": fmtDuration,
}).ParseFS(files, "templates/*.html"))

// Handler serves the inspector: HTML pages, JSON endpoints and, when enabled, the
// actions. It is an [http.Handler] for any mount point; see the package doc for the
// routes.
//
// A Handler is safe for concurrent use. It starts no goroutine; the charts fill as
// [Handler.Run] (or your own calls to [Handler.Sample]) samples the queues.
type Handler struct {
	cfg     config
	queues  []Queue
	byName  map[string]Queue
	mux     http.Handler
	csrf    *http.CrossOriginProtection
	mu      sync.Mutex // guards history
	history map[string]*ring
	ticked  chan struct{} // closed at the next sample; guarded by mu
}

// New returns a Handler for queues, read-only unless [WithActions] is given. It
// panics if two queues have the same name or a name is empty (programming errors).
func New(queues []Queue, opts ...Option) *Handler {
	h := &Handler{cfg: defaults(), byName: map[string]Queue{}, history: map[string]*ring{}, ticked: make(chan struct{}),
		csrf: http.NewCrossOriginProtection()}
	for _, o := range opts {
		o(&h.cfg)
	}
	for _, o := range h.cfg.trusted {
		if err := h.csrf.AddTrustedOrigin(o); err != nil {
			panic("inspector: " + err.Error())
		}
	}
	for _, q := range queues {
		n := q.Name()
		if n == "" {
			panic("inspector: a queue has an empty name")
		}
		if _, dup := h.byName[n]; dup {
			panic("inspector: two queues named " + strconv.Quote(n))
		}
		h.queues = append(h.queues, q)
		h.byName[n] = q
		h.history[n] = newRing(h.cfg.samples)
	}
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", h.index)
	m.HandleFunc("GET /static/style.css", serveCSS)
	m.HandleFunc("GET /static/live.js", serveJS)
	m.HandleFunc("GET /events", h.indexEvents)
	m.HandleFunc("GET /events/queues/{name}", h.queueEvents)
	m.HandleFunc("GET /queues/{name}", h.queuePage)
	m.HandleFunc("GET /api/queues", h.apiIndex)
	m.HandleFunc("GET /api/queues/{name}", h.apiQueue)
	m.HandleFunc("GET /keys", h.keysPage)
	m.HandleFunc("GET /key", h.keyPage)
	m.HandleFunc("GET /api/keys", h.apiKeys)
	m.HandleFunc("GET /api/key", h.apiKey)
	m.HandleFunc("GET /queues/{name}/item", h.itemPage)
	m.HandleFunc("GET /api/queues/{name}/item", h.itemPage)
	m.HandleFunc("GET /queues/{name}/dead", h.deadPage)
	m.HandleFunc("GET /api/queues/{name}/dead", h.deadPage)
	m.Handle("POST /queues/{name}/bulk", h.csrf.Handler(http.HandlerFunc(h.bulk)))
	m.Handle("POST /api/queues/{name}/bulk", h.csrf.Handler(http.HandlerFunc(h.bulk)))
	m.Handle("POST /queues/{name}/{action}", h.csrf.Handler(http.HandlerFunc(h.action)))
	m.Handle("POST /api/queues/{name}/{action}", h.csrf.Handler(http.HandlerFunc(h.action)))
	h.mux = m
	if h.cfg.auth != nil {
		h.mux = h.cfg.auth(m)
	}
	return h
}

// ServeHTTP serves the request. Paths are relative to the mount point, so mount the
// Handler with [http.StripPrefix]:
//
//	mux.Handle("/queues/", http.StripPrefix("/queues", h))
//
// Every link and form in the pages is relative, so the pages work under any prefix.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/") {
		// http.StripPrefix("/x/", h) leaves "" or "queues/…": the mux needs the slash.
		r2 := new(http.Request)
		*r2 = *r
		u := *r.URL
		u.Path, u.RawPath = "/"+u.Path, ""
		r2.URL = &u
		r = r2
	}
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "same-origin")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.mux.ServeHTTP(w, r)
}

func (h *Handler) now() time.Time { return h.cfg.now() }

func serveCSS(w http.ResponseWriter, r *http.Request) {
	b, _ := files.ReadFile("static/style.css")
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Write(b)
}

func serveJS(w http.ResponseWriter, r *http.Request) {
	b, _ := files.ReadFile("static/live.js")
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Write(b)
}

// esc is a queue's name as a relative URL path segment. The "./" keeps a name
// with a colon from reading as a URL scheme.
func esc(name string) string { return "./" + url.PathEscape(name) }

// --- the index ---

type queueRow struct {
	Name, Href, Kind string
	Stats            Stats
	Err              string
	Throughput       string // "" when unknown
	Charts           []chart
}

type indexView struct {
	Title, Root, Page, Crumb string
	Now                      time.Time
	Actions                  bool
	Queues                   []queueRow
	Keyspace                 *keyspaceView // nil without WithKeyspace
	Events                   string        // the page's event stream, for the live script
}

func (h *Handler) rows(ctx context.Context, w, ht int) []queueRow {
	rows := make([]queueRow, 0, len(h.queues))
	for _, q := range h.queues {
		row := queueRow{Name: q.Name(), Href: "queues/" + url.PathEscape(q.Name()), Kind: string(q.Kind())}
		st, err := q.Stats(ctx)
		if err != nil {
			row.Err = err.Error()
		}
		row.Stats = st
		s := h.samples(q.Name())
		if last, ok := lastRate(s); ok {
			row.Throughput = fmtRate(last)
		}
		row.Charts = charts(s, w, ht)
		rows = append(rows, row)
	}
	return rows
}

func lastRate(s []sample) (float64, bool) {
	if len(s) == 0 || !s[len(s)-1].HasRate {
		return 0, false
	}
	return s[len(s)-1].Rate, true
}

func (h *Handler) index(w http.ResponseWriter, r *http.Request) {
	v := indexView{Title: h.cfg.title, Root: "./", Page: "Queues", Now: h.now(), Actions: h.cfg.actions,
		Queues: h.rows(r.Context(), 180, 76), Events: "events"}
	if h.cfg.keyspace != nil {
		v.Keyspace = newKeyspaceView(h.cfg.keyspace())
	}
	render(w, http.StatusOK, "index.html", v)
}

func render(w http.ResponseWriter, code int, name string, v any) {
	var b strings.Builder
	if err := pages.ExecuteTemplate(&b, name, v); err != nil {
		http.Error(w, "inspector: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	io.WriteString(w, b.String())
}

// --- the queue page ---

// columns says which item columns a kind of queue has.
type columns struct{ ID, Value, Level, Priority, Wait, Due, State, Lease bool }

func columnsOf(k Kind) columns {
	switch k {
	case KindLevels:
		return columns{Value: true, Level: true}
	case KindPriority:
		return columns{Value: true, Priority: true}
	case KindCall: // a call is its id
		return columns{ID: true, Priority: true, Wait: true}
	case KindDelayed, KindScheduler:
		return columns{Value: true, State: true, Due: true}
	case KindReliable:
		return columns{ID: true, Value: true, State: true, Lease: true}
	case KindWaitlist:
		return columns{ID: true, Value: true}
	}
	return columns{Value: true}
}

type itemRow struct {
	Item
	State       ItemState
	Wait        string // "" when unknown
	DueIn       string // "in 3s" / "2s ago"
	LeaseIn     string
	Action      string // "cancel", "requeue", "revive" or ""
	ActionLabel string
	DiedAgo     string
	Delete      bool   // a dead item that can be deleted
	Href        string // its item page
	Shown       text   // the payload, escaped
}

type queueView struct {
	Title, Root, Page, Crumb string
	Name, Self, API, Kind    string
	Now                      time.Time
	Stats                    Stats
	StatsErr                 string
	Throughput               string
	Charts                   []chart
	Cols                     columns
	Items                    []itemRow
	ItemsErr                 string
	Unsupported              bool
	First, Last, Offset      int64 // positions shown, and the page's offset
	Count                    int64
	Prev, Next               string // hrefs, "" when there is no such page
	Actions                  bool   // actions are enabled (the header says so)
	ActionCol                bool   // the queue supports an action: an Action column is shown
	Flash                    string
	Pausable                 bool   // actions are enabled and the queue is a Pauser
	Filter                   string // ?q=: only the page's items whose id or value holds it
	Hidden                   int64  // the page's items the filter left out
	Listed                   int64  // the page's items, before the filter
	HasDead                  bool   // the queue has a dead-letter page
	Bulk                     bool   // the page has checkboxes and the bulk form
	BulkOps                  []bulkOp
	Events                   string // the page's event stream, for the live script
}

// bulkOp is one choice of the bulk form.
type bulkOp struct{ Value, Label string }

// paging reads ?offset= and ?count= (count defaults to the page size, at most
// MaxPageSize).
func (h *Handler) paging(r *http.Request) (offset, count int64, err error) {
	q := r.URL.Query()
	count = h.cfg.pageSize
	if s := q.Get("offset"); s != "" {
		if offset, err = strconv.ParseInt(s, 10, 64); err != nil || offset < 0 || offset > maxOffset {
			return 0, 0, fmt.Errorf("offset must be an integer from 0 to %d", int64(maxOffset))
		}
	}
	if s := q.Get("count"); s != "" {
		if count, err = strconv.ParseInt(s, 10, 64); err != nil || count < 1 || count > MaxPageSize {
			return 0, 0, fmt.Errorf("count must be an integer from 1 to %d", MaxPageSize)
		}
	}
	return offset, count, nil
}

// items reads one page of q's items plus one to learn whether there is a next page.
func items(ctx context.Context, q Queue, offset, count int64) (page []Item, more bool, err error) {
	it, err := q.Items(ctx, offset, count+1)
	if err != nil {
		return nil, false, err
	}
	if int64(len(it)) > count {
		return it[:count], true, nil
	}
	return it, false, nil
}

// stateOf is it's state, derived from its due time when the queue gave none.
func stateOf(it Item, now time.Time) ItemState {
	switch {
	case it.State != "":
		return it.State
	case it.Due.After(now):
		return StateScheduled
	}
	return StateWaiting
}

// actionFor says which action, if any, an item offers.
func (h *Handler) actionFor(q Queue, it Item, now time.Time) (string, string) {
	if !h.cfg.actions {
		return "", ""
	}
	switch stateOf(it, now) {
	case StateWaiting, StateScheduled:
		if _, ok := q.(Canceler); ok {
			return "cancel", "Cancel"
		}
	case StateExpired:
		if _, ok := q.(LeaseRequeuer); ok {
			return "requeue", "Requeue"
		}
	case StateDead:
		if _, ok := q.(DeadMover); ok {
			return "revive", "Move back"
		}
	}
	return "", ""
}

var flashes = map[string]string{
	"cancel":  "Cancelled %s.",
	"requeue": "Requeued %s.",
	"revive":  "Moved %s back to the queue.",
	"missing": "%s was no longer there; nothing changed.",
	"delete":  "Deleted %s for good.",
}

var pauseFlashes = map[string]string{
	"pause":     "Paused the queue: consumers get nothing until it is resumed.",
	"resume":    "Resumed the queue.",
	"unchanged": "The queue was already in that state; nothing changed.",
}

// wholeFlash is the message after retry-all or a bulk action: %d items changed.
var wholeFlash = map[string]string{
	"retry-all": "Moved %d dead items back to the queue.",
	"bulk":      "Done for %d selected items.",
}

func (h *Handler) queuePage(w http.ResponseWriter, r *http.Request) {
	q, ok := h.byName[r.PathValue("name")]
	if !ok {
		http.Error(w, "inspector: no queue named "+strconv.Quote(r.PathValue("name")), http.StatusNotFound)
		return
	}
	offset, count, err := h.paging(r)
	if err != nil {
		http.Error(w, "inspector: "+err.Error(), http.StatusBadRequest)
		return
	}
	now := h.now()
	v := queueView{Title: h.cfg.title, Root: "../", Page: q.Name(), Crumb: q.Name(),
		Name: q.Name(), Self: esc(q.Name()), API: "../api/queues/" + url.PathEscape(q.Name()), Kind: string(q.Kind()), Actions: h.cfg.actions,
		Now: now, Cols: columnsOf(q.Kind()), Offset: offset, Count: count}
	ctx := r.Context()
	if v.Stats, err = q.Stats(ctx); err != nil {
		v.StatsErr = err.Error()
	}
	s := h.samples(q.Name())
	if rate, ok := lastRate(s); ok {
		v.Throughput = fmtRate(rate)
	}
	v.Charts = charts(s, 360, 120)
	v.Events = "../events/queues/" + url.PathEscape(q.Name()) + "?offset=" + strconv.FormatInt(offset, 10) + "&count=" + strconv.FormatInt(count, 10)
	page, more, err := items(ctx, q, offset, count)
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		v.Unsupported = true
	case err != nil:
		v.ItemsErr = err.Error()
	}
	v.Filter = r.URL.Query().Get("q")
	for _, it := range page {
		if v.Filter != "" && !strings.Contains(it.ID, v.Filter) && !strings.Contains(it.Value, v.Filter) {
			v.Hidden++
			continue
		}
		v.Items = append(v.Items, h.row(q, it, now))
	}
	v.Listed = int64(len(page))
	link := func(off int64) string {
		u := v.Self + "?offset=" + strconv.FormatInt(off, 10)
		if count != h.cfg.pageSize {
			u += "&count=" + strconv.FormatInt(count, 10)
		}
		return u
	}
	_, c := q.(Canceler)
	_, l := q.(LeaseRequeuer)
	_, d := q.(DeadMover)
	v.ActionCol = h.cfg.actions && (c || l || d)
	v.First, v.Last = offset+1, offset+v.Listed
	_, v.HasDead = q.(DeadLetters)
	v.Bulk = h.cfg.actions && v.ActionCol
	_, dl := q.(DeadLetters)
	for _, op := range []struct {
		ok   bool
		name string
	}{{c, "cancel"}, {l, "requeue"}, {d, "revive"}, {dl, "delete"}} {
		if op.ok && v.Bulk {
			v.BulkOps = append(v.BulkOps, bulkOp{op.name, bulkActions[op.name]})
		}
	}
	if offset > 0 {
		v.Prev = link(max(offset-count, 0))
	}
	if more {
		v.Next = link(offset + count)
	}
	_, v.Pausable = q.(Pauser)
	v.Pausable = v.Pausable && h.cfg.actions
	v.Flash = flash(r)
	render(w, http.StatusOK, "queue.html", v)
}

// relative says how far t is from now ("in 3s", "2s ago"); "" for the zero time.
func relative(t, now time.Time) string {
	switch {
	case t.IsZero():
		return ""
	case t.After(now):
		return "in " + fmtDuration(t.Sub(now))
	default:
		return fmtDuration(now.Sub(t)) + " ago"
	}
}

// --- actions ---

func (h *Handler) action(w http.ResponseWriter, r *http.Request) {
	api := strings.HasPrefix(r.URL.Path, "/api/")
	fail := func(code int, msg string) {
		if api {
			writeJSON(w, code, map[string]string{"error": msg})
			return
		}
		http.Error(w, "inspector: "+msg, code)
	}
	if !h.cfg.actions {
		fail(http.StatusForbidden, "actions are disabled: this inspector is read-only")
		return
	}
	name := r.PathValue("name")
	q, ok := h.byName[name]
	if !ok {
		fail(http.StatusNotFound, "no queue named "+strconv.Quote(name))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		fail(http.StatusBadRequest, "bad form: "+err.Error())
		return
	}
	act := r.PathValue("action")
	if act == "pause" || act == "resume" || act == "retry-all" {
		h.whole(w, r, q, act, api, fail)
		return
	}
	id := r.PostForm.Get("id")
	if id == "" {
		fail(http.StatusBadRequest, "the form has no id")
		return
	}
	do, known := itemAction(q, act)
	if !known {
		fail(http.StatusNotFound, "no action "+strconv.Quote(act)+" (cancel, requeue, revive, delete, retry-all, pause, resume)")
		return
	}
	if do == nil {
		fail(http.StatusBadRequest, "queue "+strconv.Quote(name)+" does not support "+act)
		return
	}
	done, err := do(r.Context(), id)
	if err != nil {
		fail(http.StatusInternalServerError, err.Error())
		return
	}
	if api {
		writeJSON(w, http.StatusOK, map[string]bool{"ok": done})
		return
	}
	if !done {
		act = "missing"
	}
	// A relative Location: http.Redirect would make it absolute from the path
	// without the mount prefix. From /queues/NAME/ACTION, ../NAME is the queue page.
	w.Header().Set("Location", back(r, name)+"?done="+act+"&id="+url.QueryEscape(id))
	w.WriteHeader(http.StatusSeeOther)
}

// back is the page an action's form returns to, relative to /queues/NAME/ACTION:
// the dead-letter page when the form says back=dead, else the queue page.
func back(r *http.Request, name string) string {
	if r.PostForm.Get("back") == "dead" {
		return "dead"
	}
	return "../" + url.PathEscape(name)
}

// whole serves POST …/pause, …/resume and …/retry-all, which act on the whole
// queue and take no id.
func (h *Handler) whole(w http.ResponseWriter, r *http.Request, q Queue, act string, api bool, fail func(int, string)) {
	var done bool
	var n int64
	var err error
	switch p, _ := q.(Pauser); {
	case act == "retry-all":
		d, ok := q.(DeadLetters)
		if !ok {
			fail(http.StatusBadRequest, "queue "+strconv.Quote(q.Name())+" does not support "+act)
			return
		}
		n, err = d.RetryAllDead(r.Context())
		done = n > 0
	case p == nil:
		fail(http.StatusBadRequest, "queue "+strconv.Quote(q.Name())+" does not support "+act)
		return
	case act == "pause":
		done, err = p.Pause(r.Context())
	default:
		done, err = p.Resume(r.Context())
	}
	if err != nil {
		fail(http.StatusInternalServerError, err.Error())
		return
	}
	if api {
		if act == "retry-all" {
			writeJSON(w, http.StatusOK, map[string]any{"ok": done, "count": n})
			return
		}
		writeJSON(w, http.StatusOK, map[string]bool{"ok": done})
		return
	}
	loc := back(r, q.Name()) + "?done=" + act
	switch {
	case act == "retry-all":
		loc += "&n=" + strconv.FormatInt(n, 10)
	case !done:
		loc = back(r, q.Name()) + "?done=unchanged"
	}
	w.Header().Set("Location", loc)
	w.WriteHeader(http.StatusSeeOther)
}

// itemAction returns the function that does the action act (cancel, requeue,
// revive or delete) on one item of q, nil when q does not support it; known is
// false for any other action.
func itemAction(q Queue, act string) (do func(context.Context, string) (bool, error), known bool) {
	switch act {
	case "cancel":
		if c, ok := q.(Canceler); ok {
			do = c.Cancel
		}
	case "requeue":
		if c, ok := q.(LeaseRequeuer); ok {
			do = c.RequeueExpired
		}
	case "revive":
		if c, ok := q.(DeadMover); ok {
			do = c.MoveDeadBack
		}
	case "delete":
		if c, ok := q.(DeadLetters); ok {
			do = c.DeleteDead
		}
	default:
		return nil, false
	}
	return do, true
}
