package inspector

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// maxScan bounds how many items a lookup by id reads ([Handler.lookup]): the item
// page of an item further down than this says it was not found.
const maxScan = 10_000

// flash is the message of the page after an action, from its ?done=, ?id=, ?n=
// and ?missing=; "" when none.
func flash(r *http.Request) string {
	q := r.URL.Query()
	done := q.Get("done")
	if f, ok := pauseFlashes[done]; ok {
		return f
	}
	if f, ok := wholeFlash[done]; ok {
		n, _ := strconv.ParseInt(q.Get("n"), 10, 64)
		msg := fmt.Sprintf(f, n)
		if m, _ := strconv.ParseInt(q.Get("missing"), 10, 64); m > 0 {
			msg += fmt.Sprintf(" %d were no longer there.", m)
		}
		return msg
	}
	if f, ok := flashes[done]; ok {
		return fmt.Sprintf(f, strconv.Quote(q.Get("id")))
	}
	return ""
}

// queueOf finds the queue of the request's {name}, or writes 404 (as JSON when
// api) and returns false.
func (h *Handler) queueOf(w http.ResponseWriter, r *http.Request, api bool) (Queue, bool) {
	q, ok := h.byName[r.PathValue("name")]
	if !ok {
		msg := "no queue named " + strconv.Quote(r.PathValue("name"))
		if api {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": msg})
		} else {
			http.Error(w, "inspector: "+msg, http.StatusNotFound)
		}
	}
	return q, ok
}

// refuse writes an error, as JSON when api.
func refuse(w http.ResponseWriter, api bool, code int, msg string) {
	if api {
		writeJSON(w, code, map[string]string{"error": msg})
		return
	}
	http.Error(w, "inspector: "+msg, code)
}

// lookup finds the item id by reading q's items in pages of MaxPageSize from the
// start, at most maxScan items: O(position of the item) of Items calls.
func lookup(ctx context.Context, q Queue, id string) (Item, bool, error) {
	for off := int64(0); off < maxScan; off += MaxPageSize {
		page, err := q.Items(ctx, off, MaxPageSize)
		if err != nil {
			return Item{}, false, err
		}
		for _, it := range page {
			if it.ID == id {
				return it, true, nil
			}
		}
		if len(page) < MaxPageSize {
			break
		}
	}
	return Item{}, false, nil
}

// row is it as the tables and the item page show it.
func (h *Handler) row(q Queue, it Item, now time.Time) itemRow {
	row := itemRow{Item: it, State: stateOf(it, now)}
	if !it.Enqueued.IsZero() {
		row.Wait = fmtDuration(now.Sub(it.Enqueued))
	}
	row.DueIn = relative(it.Due, now)
	row.LeaseIn = relative(it.LeaseExpiry, now)
	row.DiedAgo = relative(it.Died, now)
	row.Action, row.ActionLabel = h.actionFor(q, it, now)
	if row.State == StateDead && h.cfg.actions {
		if _, ok := q.(DeadLetters); ok {
			row.Delete = true
		}
	}
	row.Href = "./" + url.PathEscape(q.Name()) + "/item?id=" + url.QueryEscape(it.ID)
	row.Shown = escapeText(it.Value)
	return row
}

// maxPayload is how much of a payload the item page shows.
const maxPayload = 64 << 10

// escapeText is s as the key browser shows a value: escaped, at most maxPayload
// bytes of it.
func escapeText(s string) text { return newText(s, maxPayload) }

// --- the item page ---

type itemView struct {
	Title, Root, Page, Crumb string
	Events                   string
	Now                      time.Time
	Actions                  bool
	Name, Queue, Kind        string
	Item                     itemRow
}

// itemPage serves GET /queues/{name}/item?id= (and its JSON under /api/): one
// item's payload, state, attempts, last error and times, with its actions.
func (h *Handler) itemPage(w http.ResponseWriter, r *http.Request) {
	api := strings.HasPrefix(r.URL.Path, "/api/")
	q, ok := h.queueOf(w, r, api)
	if !ok {
		return
	}
	if !r.URL.Query().Has("id") {
		refuse(w, api, http.StatusBadRequest, "the query has no id")
		return
	}
	id := r.URL.Query().Get("id")
	it, found, err := lookup(r.Context(), q, id)
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		refuse(w, api, http.StatusNotFound, "this queue does not list its items")
		return
	case err != nil:
		refuse(w, api, http.StatusInternalServerError, err.Error())
		return
	case !found:
		refuse(w, api, http.StatusNotFound, fmt.Sprintf("no item %q among the first %d of queue %q", id, maxScan, q.Name()))
		return
	}
	now := h.now()
	if api {
		writeJSON(w, http.StatusOK, jsonItemOf(it, now))
		return
	}
	v := itemView{Title: h.cfg.title, Root: "../../", Page: "Item " + id, Crumb: q.Name(), Now: now,
		Actions: h.cfg.actions, Name: q.Name(), Queue: "../" + url.PathEscape(q.Name()), Kind: string(q.Kind()),
		Item: h.row(q, it, now), Events: "../../events/queues/" + url.PathEscape(q.Name()) + "?count=1"}
	render(w, http.StatusOK, "item.html", v)
}

// --- the dead-letter page ---

type deadView struct {
	Title, Root, Page, Crumb string
	Events                   string
	Now                      time.Time
	Actions                  bool
	Name, Queue              string
	Items                    []itemRow
	ItemsErr                 string
	First, Last, Offset      int64
	Count                    int64
	Prev, Next               string
	Flash                    string
}

// deadPage serves GET /queues/{name}/dead (and its JSON under /api/): a page of
// the dead-letter list with each item's attempts, last error and time of death.
func (h *Handler) deadPage(w http.ResponseWriter, r *http.Request) {
	api := strings.HasPrefix(r.URL.Path, "/api/")
	q, ok := h.queueOf(w, r, api)
	if !ok {
		return
	}
	d, ok := q.(DeadLetters)
	if !ok {
		refuse(w, api, http.StatusNotFound, "queue "+strconv.Quote(q.Name())+" has no dead-letter list")
		return
	}
	offset, count, err := h.paging(r)
	if err != nil {
		refuse(w, api, http.StatusBadRequest, err.Error())
		return
	}
	page, err := d.DeadItems(r.Context(), offset, count+1)
	more := int64(len(page)) > count
	if more {
		page = page[:count]
	}
	now := h.now()
	if api {
		out := struct {
			Name       string     `json:"name"`
			Offset     int64      `json:"offset"`
			Count      int64      `json:"count"`
			More       bool       `json:"more"`
			Items      []jsonItem `json:"items"`
			ItemsError string     `json:"items_error,omitempty"`
		}{Name: q.Name(), Offset: offset, Count: count, More: more, Items: []jsonItem{}}
		if err != nil {
			out.ItemsError = err.Error()
		}
		for _, it := range page {
			out.Items = append(out.Items, jsonItemOf(it, now))
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	v := deadView{Title: h.cfg.title, Root: "../../", Page: q.Name() + " dead letters", Crumb: q.Name(), Now: now,
		Actions: h.cfg.actions, Name: q.Name(), Queue: "../" + url.PathEscape(q.Name()), Offset: offset, Count: count,
		Flash: flash(r), Events: "../../events/queues/" + url.PathEscape(q.Name()) + "?count=1"}
	if err != nil {
		v.ItemsErr = err.Error()
	}
	for _, it := range page {
		row := h.row(q, it, now)
		row.Href = "item?id=" + url.QueryEscape(it.ID)
		v.Items = append(v.Items, row)
	}
	v.First, v.Last = offset+1, offset+int64(len(v.Items))
	link := func(off int64) string {
		u := "dead?offset=" + strconv.FormatInt(off, 10)
		if count != h.cfg.pageSize {
			u += "&count=" + strconv.FormatInt(count, 10)
		}
		return u
	}
	if offset > 0 {
		v.Prev = link(max(offset-count, 0))
	}
	if more {
		v.Next = link(offset + count)
	}
	render(w, http.StatusOK, "dead.html", v)
}

// --- bulk actions ---

// bulkActions are the actions a bulk request may name, with their labels.
var bulkActions = map[string]string{
	"cancel":  "Cancel",
	"requeue": "Requeue",
	"revive":  "Move back (retry)",
	"delete":  "Delete for good",
}

type confirmView struct {
	Title, Root, Page, Crumb string
	Events                   string
	Now                      time.Time
	Actions                  bool
	Name, Queue              string
	Action, Label            string
	IDs                      []string
	Back                     string
}

// bulk serves POST /queues/{name}/bulk: form fields action (cancel, requeue, revive
// or delete) and id, once per selected item (1 to MaxPageSize). Without
// confirm=yes the HTML route answers with a confirmation page whose form posts the
// same fields with confirm=yes; with it, or under /api/, the action runs for each
// id in turn (not one atomic step) and the page redirects to the queue page,
// saying how many it changed and how many were no longer there. The JSON answer
// is {"done": n, "missing": m}.
func (h *Handler) bulk(w http.ResponseWriter, r *http.Request) {
	api := strings.HasPrefix(r.URL.Path, "/api/")
	if !h.cfg.actions {
		refuse(w, api, http.StatusForbidden, "actions are disabled: this inspector is read-only")
		return
	}
	q, ok := h.queueOf(w, r, api)
	if !ok {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		refuse(w, api, http.StatusBadRequest, "bad form: "+err.Error())
		return
	}
	act := r.PostForm.Get("action")
	label, ok := bulkActions[act]
	if !ok {
		refuse(w, api, http.StatusBadRequest, "action must be cancel, requeue, revive or delete")
		return
	}
	ids := slices.DeleteFunc(slices.Clone(r.PostForm["id"]), func(s string) bool { return s == "" })
	if len(ids) == 0 || len(ids) > MaxPageSize {
		refuse(w, api, http.StatusBadRequest, fmt.Sprintf("select 1 to %d items", MaxPageSize))
		return
	}
	do, _ := itemAction(q, act)
	if do == nil {
		refuse(w, api, http.StatusBadRequest, "queue "+strconv.Quote(q.Name())+" does not support "+act)
		return
	}
	if !api && r.PostForm.Get("confirm") != "yes" {
		render(w, http.StatusOK, "confirm.html", confirmView{Title: h.cfg.title, Root: "../../", Page: "Confirm",
			Crumb: q.Name(), Now: h.now(), Actions: true, Name: q.Name(), Queue: back(r, q.Name()),
			Action: act, Label: label, IDs: ids, Back: r.PostForm.Get("back")})
		return
	}
	var n, missing int64
	for _, id := range ids {
		done, err := do(r.Context(), id)
		if err != nil {
			refuse(w, api, http.StatusInternalServerError, fmt.Sprintf("after %d done: %v", n, err))
			return
		}
		if done {
			n++
		} else {
			missing++
		}
	}
	if api {
		writeJSON(w, http.StatusOK, map[string]int64{"done": n, "missing": missing})
		return
	}
	w.Header().Set("Location", back(r, q.Name())+"?done=bulk&n="+strconv.FormatInt(n, 10)+"&missing="+strconv.FormatInt(missing, 10))
	w.WriteHeader(http.StatusSeeOther)
}
