package inspector

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zlite/zlite"
)

// The key browser: the keys page (a SCAN page of the keyspace) and the key page (a
// page of one key's value), in HTML and JSON; see the package doc.

const (
	// maxString is how many bytes of a string value one key page shows.
	maxString = 4 << 10
	// maxShown is how many bytes of a key, an element, a field or a member a page
	// shows (keys in JSON are given whole: they are what a script asks for next).
	maxShown = 1 << 10
	// maxMatch bounds a SCAN MATCH pattern, whose cost per key is
	// O(len(pattern)·len(key)).
	maxMatch = 1 << 10
	// scanSteps is how many SCAN steps one keys page takes at most to fill itself
	// when a pattern or a type leaves keys out.
	scanSteps = 8
)

// keyTypes are the types a keys page can be filtered by, as SCAN's TYPE names them.
var keyTypes = []string{"string", "list", "zset", "hash", "set"}

// units names what a key's size counts, by type.
var units = map[string]string{"string": "byte", "list": "element", "zset": "member", "hash": "field", "set": "member"}

// unitOf names what n counts for a key of type typ: "1 field", "2 fields".
func unitOf(typ string, n int64) string {
	if n == 1 {
		return units[typ]
	}
	return units[typ] + "s"
}

// text is a hostile byte string prepared for a page: at most limit bytes of it,
// escaped by [escape] (html/template then escapes that for HTML).
type text struct {
	Shown string // the escaped prefix
	Len   int    // the whole string's length in bytes
	Cut   bool   // Shown is of a prefix only
}

func newText(s string, limit int) text {
	t := text{Len: len(s)}
	if len(s) > limit {
		s, t.Cut = s[:limit], true
	}
	t.Shown = escape(s)
	return t
}

// escape shows the bytes of s as text that cannot mislead: valid printable UTF-8 as
// it is; a backslash as \\; \n, \r and \t; any other control or invisible character
// (format characters such as bidirectional overrides, non-ASCII spaces) as \xNN,
// \uNNNN or \UNNNNNNNN; and a byte that is not UTF-8 as \xNN. It is one-to-one, so
// two different keys never look the same.
func escape(s string) string {
	clean := true
	for _, r := range s {
		if r == '\\' || r == utf8.RuneError || !strconv.IsPrint(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case strconv.IsPrint(r):
			b.WriteString(s[i : i+n])
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += n
	}
	return b.String()
}

// keyInfo is what the keys page shows of a key.
type keyInfo struct {
	Key      string
	Type     string
	TTL      time.Duration // the time left; meaningful when HasTTL
	HasTTL   bool
	Size     int64 // bytes of a string, elements of the other types
	Encoding string
}

// describe reads key's type, TTL, size and encoding in tx: O(1). ok is false when
// the key does not exist.
func describe(tx *zlite.Tx, key string) (k keyInfo, ok bool, err error) {
	k.Key = key
	if k.Type, err = tx.Type(key); err != nil || k.Type == "none" {
		return k, false, err
	}
	ttl, err := tx.PTTL(key)
	if err != nil {
		return k, false, err
	}
	k.TTL, k.HasTTL = ttl, ttl >= 0 // -1 ns: no expiry
	k.Encoding, _ = tx.ObjectEncoding(key)
	switch k.Type {
	case "string":
		k.Size, err = tx.StrLen(key)
	case "list":
		k.Size, err = tx.LLen(key)
	case "zset":
		k.Size, err = tx.ZCard(key)
	case "hash":
		k.Size, err = tx.HLen(key)
	case "set":
		k.Size, err = tx.SCard(key)
	}
	return k, true, err
}

// ttlText is a TTL for a page: "none" for a key without expiry.
func (k keyInfo) ttlText() string {
	if !k.HasTTL {
		return "none"
	}
	return fmtDuration(k.TTL)
}

// badRequest is a query parameter's error: 400.
type badRequest string

func (e badRequest) Error() string { return string(e) }

// The query parameters of the browser's pages. Each rejects what it cannot use
// whole: a value out of range is an error, never clamped.

func (h *Handler) countParam(q url.Values) (int64, error) {
	s := q.Get("count")
	if s == "" {
		return h.cfg.pageSize, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 || n > MaxPageSize {
		return 0, badRequest(fmt.Sprintf("count must be an integer from 1 to %d", MaxPageSize))
	}
	return n, nil
}

func cursorParam(q url.Values) (uint64, error) {
	s := q.Get("cursor")
	if s == "" {
		return 0, nil
	}
	c, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, badRequest("cursor must be a cursor from a previous page: an integer from 0 to 18446744073709551615")
	}
	return c, nil
}

func intParam(q url.Values, name string) (int64, error) {
	s := q.Get(name)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > maxOffset {
		return 0, badRequest(fmt.Sprintf("%s must be an integer from 0 to %d", name, int64(maxOffset)))
	}
	return n, nil
}

// --- the keys page ---

// keysQuery is a keys page's request.
type keysQuery struct {
	Match, Type string
	Count       int64
	Cursor      uint64
}

func (h *Handler) keysQueryOf(r *http.Request) (keysQuery, error) {
	q := r.URL.Query()
	k := keysQuery{Match: q.Get("match"), Type: strings.ToLower(q.Get("type"))} // as SCAN, any case
	if len(k.Match) > maxMatch {
		return k, badRequest(fmt.Sprintf("match must be at most %d bytes", maxMatch))
	}
	if k.Type != "" && !slices.Contains(keyTypes, k.Type) {
		return k, badRequest("type must be one of " + strings.Join(keyTypes, ", ") + " (or absent, for every type)")
	}
	var err error
	if k.Count, err = h.countParam(q); err != nil {
		return k, err
	}
	k.Cursor, err = cursorParam(q)
	return k, err
}

// href is the keys page (prefix "keys" or "api/keys") for q, with the cursor c.
func (q keysQuery) href(prefix string, defCount int64, c uint64) string {
	v := url.Values{}
	if q.Match != "" {
		v.Set("match", q.Match)
	}
	if q.Type != "" {
		v.Set("type", q.Type)
	}
	if q.Count != defCount {
		v.Set("count", strconv.FormatInt(q.Count, 10))
	}
	if c != 0 {
		v.Set("cursor", strconv.FormatUint(c, 10))
	}
	if len(v) == 0 {
		return prefix
	}
	return prefix + "?" + v.Encode()
}

// scanKeys reads one keys page in one read-only transaction: SCAN steps from
// q.Cursor, each asking for the keys the page still lacks, until the page is full,
// the scan is complete or scanSteps steps are taken; then each key's type, TTL,
// size and encoding. A step visits as many keys as it asks for, so the page costs
// O(scanSteps·q.Count) plus SCAN's O(log n + shards) per step, and never holds
// more than q.Count keys. next is the cursor to continue from, 0 at the end.
func scanKeys(db *zlite.DB, q keysQuery) (keys []keyInfo, next uint64, err error) {
	err = db.View(func(tx *zlite.Tx) error {
		keys, next = nil, q.Cursor
		for range scanSteps {
			want := q.Count - int64(len(keys))
			var page []string
			var err error
			if q.Type != "" {
				page, next, err = tx.ScanType(next, q.Match, want, q.Type)
			} else {
				page, next, err = tx.Scan(next, q.Match, want)
			}
			if err != nil {
				return err
			}
			for _, key := range page {
				k, ok, err := describe(tx, key)
				if err != nil {
					return err
				}
				if ok {
					keys = append(keys, k)
				}
			}
			if next == 0 || int64(len(keys)) >= q.Count {
				break
			}
		}
		return nil
	})
	return keys, next, err
}

// keyHref is the key page (prefix "key" or "api/key") of key, with extra parameters.
func keyHref(prefix, key string, extra ...string) string {
	u := prefix + "?key=" + url.QueryEscape(key)
	for i := 0; i+1 < len(extra); i += 2 {
		u += "&" + extra[i] + "=" + url.QueryEscape(extra[i+1])
	}
	return u
}

type keyRow struct {
	Key                 text
	Href                string
	Type, TTL, Encoding string
	Size                int64
	Unit                string
}

type keysView struct {
	Events                   string // no event stream: always ""
	Title, Root, Page, Crumb string
	Now                      time.Time
	Actions                  bool
	Query                    keysQuery
	MatchShown               string
	Types                    []string
	Max                      int64
	Rows                     []keyRow
	First, Next, API         string // hrefs; First and Next "" when there is no such page
}

// noKeyspace answers a browser request on a handler made without WithKeyspace.
func (h *Handler) noKeyspace(w http.ResponseWriter, r *http.Request) bool {
	if h.cfg.db != nil {
		return false
	}
	const msg = "the key browser needs inspector.WithKeyspace"
	if strings.HasPrefix(r.URL.Path, "/api/") {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": msg})
	} else {
		http.Error(w, "inspector: "+msg, http.StatusNotFound)
	}
	return true
}

// fail answers a failed browser request: 400 for a bad parameter, else 500.
func fail(w http.ResponseWriter, api bool, err error) {
	code := http.StatusInternalServerError
	if _, ok := err.(badRequest); ok {
		code = http.StatusBadRequest
	}
	if api {
		writeJSON(w, code, map[string]string{"error": err.Error()})
		return
	}
	http.Error(w, "inspector: "+err.Error(), code)
}

func (h *Handler) keysPage(w http.ResponseWriter, r *http.Request) {
	if h.noKeyspace(w, r) {
		return
	}
	q, err := h.keysQueryOf(r)
	if err != nil {
		fail(w, false, err)
		return
	}
	keys, next, err := scanKeys(h.cfg.db, q)
	if err != nil {
		fail(w, false, err)
		return
	}
	v := keysView{Title: h.cfg.title, Root: "./", Page: "Keys", Crumb: "Keys", Now: h.now(), Actions: h.cfg.actions,
		Query: q, MatchShown: escape(q.Match), Types: keyTypes, Max: MaxPageSize,
		API: q.href("api/keys", h.cfg.pageSize, q.Cursor)}
	for _, k := range keys {
		v.Rows = append(v.Rows, keyRow{Key: newText(k.Key, maxShown), Href: keyHref("key", k.Key), Type: k.Type,
			TTL: k.ttlText(), Encoding: k.Encoding, Size: k.Size, Unit: unitOf(k.Type, k.Size)})
	}
	if q.Cursor != 0 {
		v.First = q.href("keys", h.cfg.pageSize, 0)
	}
	if next != 0 {
		v.Next = q.href("keys", h.cfg.pageSize, next)
	}
	render(w, http.StatusOK, "keys.html", v)
}

// --- the key page ---

// keyQuery is a key page's request: the page of the value to show.
type keyQuery struct {
	Key    string
	Count  int64  // elements per page
	Offset int64  // first byte (string) or index (list, zset) shown
	Cursor uint64 // the HSCAN or SSCAN cursor of the page (hash, set)
	Skip   int64  // elements of that scan step already shown on earlier pages
}

func (h *Handler) keyQueryOf(r *http.Request) (keyQuery, error) {
	q := r.URL.Query()
	if !q.Has("key") {
		return keyQuery{}, badRequest("the key parameter is missing (key= is the empty key)")
	}
	k := keyQuery{Key: q.Get("key")}
	var err error
	if k.Count, err = h.countParam(q); err != nil {
		return k, err
	}
	if k.Offset, err = intParam(q, "offset"); err != nil {
		return k, err
	}
	if k.Cursor, err = cursorParam(q); err != nil {
		return k, err
	}
	k.Skip, err = intParam(q, "skip")
	return k, err
}

// elem is one element of a page of a value: a list's element (Index, Value), a
// sorted set's member (Index is its rank, Field the member, Score), a hash's field
// (Field, Value) or a set's member (Field).
type elem struct {
	Index        int64
	Field, Value string
	Score        float64
}

// valuePage is one page of a key's value.
type valuePage struct {
	keyInfo
	Count            int64
	Offset           int64 // string, list, zset: the first byte or index shown
	Cursor           uint64
	Skip             int64 // hash, set: where the page starts
	Value            string
	Elems            []elem
	More             bool // there is a next page, at:
	NextOffset       int64
	NextCursor       uint64
	NextSkip         int64
	Scanned, Ordered bool // the page is a scan step (hash, set), an offset range (the others)
}

// readValue reads one page of q.Key in one read-only transaction of its shard. A
// string page is at most maxString bytes from q.Offset (GETRANGE); a list or sorted
// set page is at most q.Count elements from index q.Offset (LRANGE; ZRANGE by rank
// with the scores); a hash or set page is one HSCAN or SSCAN step of q.Count from
// q.Cursor, of which it shows at most q.Count elements from q.Skip on: a packed
// hash or set is one step returned whole, which the pages then show q.Count at a
// time. ok is false when the key does not exist.
func readValue(db *zlite.DB, q keyQuery) (p valuePage, ok bool, err error) {
	p = valuePage{Count: q.Count, Offset: q.Offset, Cursor: q.Cursor, Skip: q.Skip}
	err = db.ViewKeys([]string{q.Key}, func(tx *zlite.Tx) error {
		var err error
		if p.keyInfo, ok, err = describe(tx, q.Key); !ok || err != nil {
			return err
		}
		key, off, n := q.Key, q.Offset, q.Count
		switch p.Type {
		case "string":
			p.Ordered = true
			end := min(off+maxString, p.Size) // off ≤ 2^62: no overflow
			if off < end {
				p.Value, err = tx.GetRange(key, off, end-1)
			}
			p.More, p.NextOffset = end < p.Size, end
		case "list":
			p.Ordered = true
			if off < p.Size {
				var vs []string
				if vs, err = tx.LRange(key, off, min(off+n, p.Size)-1); err != nil {
					return err
				}
				for i, v := range vs {
					p.Elems = append(p.Elems, elem{Index: off + int64(i), Value: v})
				}
			}
			p.More, p.NextOffset = off+n < p.Size, off+n
		case "zset":
			p.Ordered = true
			if off < p.Size {
				var zs []zlite.Z
				if zs, err = tx.ZRangeWithScores(key, off, min(off+n, p.Size)-1); err != nil {
					return err
				}
				for i, z := range zs {
					p.Elems = append(p.Elems, elem{Index: off + int64(i), Field: z.Member, Score: z.Score})
				}
			}
			p.More, p.NextOffset = off+n < p.Size, off+n
		case "hash":
			p.Scanned = true
			var flat []string
			var next uint64
			if flat, next, err = tx.HScan(key, q.Cursor, "", n); err != nil {
				return err
			}
			all := make([]elem, 0, len(flat)/2)
			for i := 0; i+1 < len(flat); i += 2 {
				all = append(all, elem{Field: flat[i], Value: flat[i+1]})
			}
			p.page(all, next)
		case "set":
			p.Scanned = true
			var ms []string
			var next uint64
			if ms, next, err = tx.SScan(key, q.Cursor, "", n); err != nil {
				return err
			}
			all := make([]elem, len(ms))
			for i, m := range ms {
				all[i].Field = m
			}
			p.page(all, next)
		}
		return err
	})
	return p, ok, err
}

// page keeps at most p.Count of the elements of a scan step from p.Skip on, and
// says where the next page starts: later in the same step, or at the step's next
// cursor.
func (p *valuePage) page(step []elem, next uint64) {
	from := min(p.Skip, int64(len(step)))
	to := min(from+p.Count, int64(len(step)))
	p.Elems = step[from:to]
	if to < int64(len(step)) {
		p.More, p.NextCursor, p.NextSkip = true, p.Cursor, to
		return
	}
	p.More, p.NextCursor = next != 0, next
}

type elemRow struct {
	Index        int64
	Field, Value text
	Score        string
}

type keyView struct {
	Events                   string // no event stream: always ""
	Title, Root, Page, Crumb string
	Now                      time.Time
	Actions                  bool
	Key                      text
	Missing                  bool
	Info                     keyRow
	P                        valuePage
	Value                    text // a string's page
	First, Last              int64
	Rows                     []elemRow
	Prev, Next, Start, API   string // hrefs, "" when there is no such page
}

// fmtScore is a sorted set's score as Redis writes it: the shortest decimal that
// reads back as the same float, "inf" or "-inf".
func fmtScore(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func (h *Handler) keyPage(w http.ResponseWriter, r *http.Request) {
	if h.noKeyspace(w, r) {
		return
	}
	q, err := h.keyQueryOf(r)
	if err != nil {
		fail(w, false, err)
		return
	}
	p, ok, err := readValue(h.cfg.db, q)
	if err != nil {
		fail(w, false, err)
		return
	}
	v := keyView{Title: h.cfg.title, Root: "./", Now: h.now(), Actions: h.cfg.actions, Key: newText(q.Key, maxShown),
		P: p, API: keyHref("api/key", q.Key, h.pageArgs(q.Count, p, q.Offset, q.Cursor, q.Skip)...)}
	v.Page = "Key " + v.Key.Shown
	if len(v.Page) > 80 { // a title, not the key: cut at a rune's start
		i := 80
		for !utf8.RuneStart(v.Page[i]) {
			i--
		}
		v.Page = v.Page[:i] + "…"
	}
	v.Crumb = "Key"
	if !ok {
		v.Missing = true
		render(w, http.StatusNotFound, "key.html", v)
		return
	}
	v.Info = keyRow{Type: p.Type, TTL: p.ttlText(), Encoding: p.Encoding, Size: p.Size, Unit: unitOf(p.Type, p.Size)}
	v.Value = newText(p.Value, maxString)
	for _, e := range p.Elems {
		v.Rows = append(v.Rows, elemRow{Index: e.Index, Field: newText(e.Field, maxShown), Value: newText(e.Value, maxShown), Score: fmtScore(e.Score)})
	}
	switch {
	case p.Ordered && p.Type == "string":
		v.First, v.Last = p.Offset, p.Offset+int64(len(p.Value))-1
	case p.Ordered:
		v.First, v.Last = p.Offset, p.Offset+int64(len(p.Elems))-1
	}
	if p.Ordered && p.Offset > 0 {
		step := q.Count
		if p.Type == "string" {
			step = maxString
		}
		v.Prev = keyHref("key", q.Key, h.pageArgs(q.Count, p, max(p.Offset-step, 0), 0, 0)...)
	}
	if p.Scanned && (p.Cursor != 0 || p.Skip != 0) {
		v.Start = keyHref("key", q.Key, h.pageArgs(q.Count, p, 0, 0, 0)...)
	}
	if p.More {
		v.Next = keyHref("key", q.Key, h.pageArgs(q.Count, p, p.NextOffset, p.NextCursor, p.NextSkip)...)
	}
	render(w, http.StatusOK, "key.html", v)
}

// pageArgs are the query parameters of a key page after key: count when not the
// default, then offset (string, list, zset) or cursor and skip (hash, set) when
// not 0.
func (h *Handler) pageArgs(count int64, p valuePage, offset int64, cursor uint64, skip int64) []string {
	var a []string
	if count != h.cfg.pageSize && p.Type != "string" {
		a = append(a, "count", strconv.FormatInt(count, 10))
	}
	if offset != 0 && !p.Scanned {
		a = append(a, "offset", strconv.FormatInt(offset, 10))
	}
	if cursor != 0 && !p.Ordered {
		a = append(a, "cursor", strconv.FormatUint(cursor, 10))
	}
	if skip != 0 && !p.Ordered {
		a = append(a, "skip", strconv.FormatInt(skip, 10))
	}
	return a
}
