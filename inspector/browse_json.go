package inspector

import (
	"encoding/base64"
	"math"
	"net/http"
	"strconv"
	"unicode/utf8"
)

// The key browser in JSON; see the package doc. A byte string s is the JSON
// string "s" (encoding/json replaces bytes that are not UTF-8 with U+FFFD), plus
// "s_base64", its exact bytes, when it is not valid UTF-8, and "s_length", its
// length in bytes, when only a prefix of it is given. Cursors are decimal strings:
// they use all 64 bits, more than a JSON number keeps exactly.

// blob splits a byte string for JSON: at most limit bytes of it (limit < 0: all),
// its base64 when that prefix is not valid UTF-8, and its length when cut.
func blob(s string, limit int) (str, b64 string, length int) {
	if limit >= 0 && len(s) > limit {
		s, length = s[:limit], len(s)
	}
	if !utf8.ValidString(s) {
		b64 = base64.StdEncoding.EncodeToString([]byte(s))
	}
	return s, b64, length
}

type jsonKeyInfo struct {
	Key       string   `json:"key"`
	KeyBase64 string   `json:"key_base64,omitempty"`
	Type      string   `json:"type"`
	TTL       *float64 `json:"ttl_seconds"` // null: no expiry
	Size      int64    `json:"size"`
	Encoding  string   `json:"encoding"`
}

func newJSONKeyInfo(k keyInfo) jsonKeyInfo {
	j := jsonKeyInfo{Type: k.Type, Size: k.Size, Encoding: k.Encoding}
	j.Key, j.KeyBase64, _ = blob(k.Key, -1)
	if k.HasTTL {
		s := k.TTL.Seconds()
		j.TTL = &s
	}
	return j
}

type jsonKeys struct {
	Match      string        `json:"match"`
	Type       string        `json:"type"`
	Count      int64         `json:"count"`
	Cursor     string        `json:"cursor"`
	NextCursor string        `json:"next_cursor"` // "0": the scan is complete
	More       bool          `json:"more"`
	Keys       []jsonKeyInfo `json:"keys"`
}

func (h *Handler) apiKeys(w http.ResponseWriter, r *http.Request) {
	if h.noKeyspace(w, r) {
		return
	}
	q, err := h.keysQueryOf(r)
	if err != nil {
		fail(w, true, err)
		return
	}
	keys, next, err := scanKeys(h.cfg.db, q)
	if err != nil {
		fail(w, true, err)
		return
	}
	out := jsonKeys{Match: q.Match, Type: q.Type, Count: q.Count, Cursor: strconv.FormatUint(q.Cursor, 10),
		NextCursor: strconv.FormatUint(next, 10), More: next != 0, Keys: make([]jsonKeyInfo, 0, len(keys))}
	for _, k := range keys {
		out.Keys = append(out.Keys, newJSONKeyInfo(k))
	}
	writeJSON(w, http.StatusOK, out)
}

// jsonScore is a score: a JSON number, or "inf" or "-inf", which JSON has no number for.
type jsonScore float64

func (s jsonScore) MarshalJSON() ([]byte, error) {
	if f := float64(s); math.IsInf(f, 0) {
		return strconv.AppendQuote(nil, fmtScore(f)), nil
	}
	return strconv.AppendFloat(nil, float64(s), 'g', -1, 64), nil
}

// The elements of a value, by type.
type (
	jsonListElem struct {
		Index       int64  `json:"index"`
		Value       string `json:"value"`
		ValueBase64 string `json:"value_base64,omitempty"`
		ValueLength int    `json:"value_length,omitempty"`
	}
	jsonZSetElem struct {
		Rank         int64     `json:"rank"`
		Member       string    `json:"member"`
		MemberBase64 string    `json:"member_base64,omitempty"`
		MemberLength int       `json:"member_length,omitempty"`
		Score        jsonScore `json:"score"`
	}
	jsonHashElem struct {
		Field       string `json:"field"`
		FieldBase64 string `json:"field_base64,omitempty"`
		FieldLength int    `json:"field_length,omitempty"`
		Value       string `json:"value"`
		ValueBase64 string `json:"value_base64,omitempty"`
		ValueLength int    `json:"value_length,omitempty"`
	}
	jsonSetElem struct {
		Member       string `json:"member"`
		MemberBase64 string `json:"member_base64,omitempty"`
		MemberLength int    `json:"member_length,omitempty"`
	}
)

type jsonValuePage struct {
	jsonKeyInfo
	Count       int64   `json:"count"`
	Offset      *int64  `json:"offset,omitempty"`      // string, list, zset
	Cursor      *string `json:"cursor,omitempty"`      // hash, set
	Skip        *int64  `json:"skip,omitempty"`        // hash, set
	More        bool    `json:"more"`                  // a next page, at:
	NextOffset  *int64  `json:"next_offset,omitempty"` // string, list, zset
	NextCursor  *string `json:"next_cursor,omitempty"` // hash, set
	NextSkip    *int64  `json:"next_skip,omitempty"`   // hash, set
	Value       *string `json:"value,omitempty"`       // string: bytes offset to next_offset
	ValueBase64 string  `json:"value_base64,omitempty"`
	Elements    any     `json:"elements,omitempty"` // the other types
}

func (h *Handler) apiKey(w http.ResponseWriter, r *http.Request) {
	if h.noKeyspace(w, r) {
		return
	}
	q, err := h.keyQueryOf(r)
	if err != nil {
		fail(w, true, err)
		return
	}
	p, ok, err := readValue(h.cfg.db, q)
	if err != nil {
		fail(w, true, err)
		return
	}
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such key"})
		return
	}
	j := jsonValuePage{jsonKeyInfo: newJSONKeyInfo(p.keyInfo), Count: p.Count, More: p.More}
	if p.Ordered {
		j.Offset = &p.Offset
		if p.More {
			j.NextOffset = &p.NextOffset
		}
	}
	if p.Scanned {
		c, nc := strconv.FormatUint(p.Cursor, 10), strconv.FormatUint(p.NextCursor, 10)
		j.Cursor, j.Skip = &c, &p.Skip
		if p.More {
			j.NextCursor, j.NextSkip = &nc, &p.NextSkip
		}
	}
	switch p.Type {
	case "string":
		var v string
		v, j.ValueBase64, _ = blob(p.Value, -1)
		j.Value = &v
		j.Count = maxString
	case "list":
		es := make([]jsonListElem, len(p.Elems))
		for i, e := range p.Elems {
			es[i].Index = e.Index
			es[i].Value, es[i].ValueBase64, es[i].ValueLength = blob(e.Value, maxShown)
		}
		j.Elements = es
	case "zset":
		es := make([]jsonZSetElem, len(p.Elems))
		for i, e := range p.Elems {
			es[i].Rank, es[i].Score = e.Index, jsonScore(e.Score)
			es[i].Member, es[i].MemberBase64, es[i].MemberLength = blob(e.Field, maxShown)
		}
		j.Elements = es
	case "hash":
		es := make([]jsonHashElem, len(p.Elems))
		for i, e := range p.Elems {
			es[i].Field, es[i].FieldBase64, es[i].FieldLength = blob(e.Field, maxShown)
			es[i].Value, es[i].ValueBase64, es[i].ValueLength = blob(e.Value, maxShown)
		}
		j.Elements = es
	case "set":
		es := make([]jsonSetElem, len(p.Elems))
		for i, e := range p.Elems {
			es[i].Member, es[i].MemberBase64, es[i].MemberLength = blob(e.Field, maxShown)
		}
		j.Elements = es
	}
	writeJSON(w, http.StatusOK, j)
}
