package inspector_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/inspector"
)

// Hostile keys: markup, bytes that are not UTF-8 (and a NUL), the empty key, URL
// syntax, and a right-to-left override.
const (
	scriptKey = `<script>alert(1)</script>`
	binaryKey = "\xff\xfe\x00bad"
	urlKey    = "a&b=c d/e?f#g%zz+"
	bidiKey   = "\u202eevil"
)

// keyspace returns a DB with a key of every type, big ones of each for the pages,
// packed ones, and hostile keys and values.
func keyspace(t *testing.T) *zlite.DB {
	t.Helper()
	ctx := t.Context()
	db := zlite.New()
	must := func(_ any, err error) { t.Helper(); require.NoError(t, err) }
	require.NoError(t, db.Set(ctx, "greeting", "hello", 0))
	require.NoError(t, db.Set(ctx, "big", bigString(10000), 0))
	require.NoError(t, db.Set(ctx, "empty", "", 0))
	require.NoError(t, db.Set(ctx, "ttl", "soon", time.Hour))
	require.NoError(t, db.Set(ctx, scriptKey, `<img src=x onerror=alert(1)>`, 0))
	require.NoError(t, db.Set(ctx, bidiKey, "\x00\x1b[31m\\n\n", 0))
	must(db.RPush(ctx, "list", series("item-", 2500)...))
	must(db.RPush(ctx, binaryKey, "\xc3\x28", "</td></tr></table>"))
	var pairs []string
	for i := range 2000 {
		pairs = append(pairs, "f"+strconv.Itoa(i), "v"+strconv.Itoa(i))
	}
	must(db.HSet(ctx, "hash", pairs...))
	must(db.HSet(ctx, "packed-hash", pairs[:200]...)) // 100 fields: packed
	must(db.HSet(ctx, "", "<b>", "\xff"))
	must(db.SAdd(ctx, "set", series("m", 2000)...))
	must(db.SAdd(ctx, "ints", series("", 300)...)) // an intset
	must(db.SAdd(ctx, urlKey, "x"))
	zs := make([]zlite.Z, 2000)
	for i := range zs {
		zs[i] = zlite.Z{Member: "z" + strconv.Itoa(i), Score: float64(i) / 2}
	}
	zs[0].Score, zs[1999].Score = math.Inf(-1), math.Inf(1)
	must(db.ZAdd(ctx, "zset", zs...))
	return db
}

func series(prefix string, n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = prefix + strconv.Itoa(i)
	}
	return s
}

// bigString is n bytes of digits, each 10-byte block its offset.
func bigString(n int) string {
	var b strings.Builder
	for b.Len() < n {
		fmt.Fprintf(&b, "%09d ", b.Len())
	}
	return b.String()[:n]
}

var (
	nextLink = regexp.MustCompile(`<a href="([^"]*)" rel="next">`)
	rowKey   = regexp.MustCompile(`<tr data-key="([^"]*)">`)
)

// follow resolves a link of page as a browser would.
func follow(t *testing.T, page, href string) string {
	t.Helper()
	base, err := url.Parse(page)
	require.NoError(t, err)
	ref, err := url.Parse(html.UnescapeString(href))
	require.NoError(t, err, href)
	return base.ResolveReference(ref).String()
}

func getJSONPage(t *testing.T, c *http.Client, u string, v any) int {
	t.Helper()
	code, body := get(t, c, u)
	if code == http.StatusOK {
		require.NoError(t, json.Unmarshal([]byte(body), v), body)
	}
	return code
}

type keysJSON struct {
	Match, Type string
	Count       int64
	Cursor      string `json:"cursor"`
	NextCursor  string `json:"next_cursor"`
	More        bool
	Keys        []struct {
		Key       string   `json:"key"`
		KeyBase64 string   `json:"key_base64"`
		Type      string   `json:"type"`
		TTL       *float64 `json:"ttl_seconds"`
		Size      int64    `json:"size"`
		Encoding  string   `json:"encoding"`
	}
}

// TestKeysPage lists the keys, filtered by pattern and type, in HTML and JSON.
func TestKeysPage(t *testing.T) {
	db := keyspace(t)
	srv, c := serve(t, inspector.New(nil, inspector.WithKeyspace(db)))
	all := []string{"greeting", "big", "empty", "ttl", scriptKey, bidiKey, "list", binaryKey, "hash", "packed-hash", "", "set", "ints", urlKey, "zset"}
	tests := []struct {
		name, query string
		want        []string // the keys listed, in any order
	}{
		{"every key", "?count=500", all},
		{"default page size", "", all},
		{"lists", "?type=list", []string{"list", binaryKey}},
		{"lists, the type in any case", "?type=LiSt", []string{"list", binaryKey}},
		{"hashes", "?type=hash&count=100", []string{"hash", "packed-hash", ""}},
		{"sets", "?type=set", []string{"set", "ints", urlKey}},
		{"sorted sets", "?type=zset", []string{"zset"}},
		{"strings", "?type=string", []string{"greeting", "big", "empty", "ttl", scriptKey, bidiKey}},
		{"pattern", "?match=" + url.QueryEscape("*i*"), []string{"greeting", "big", "list", "ints", bidiKey, scriptKey}},
		{"pattern and type", "?match=" + url.QueryEscape("*i*") + "&type=set", []string{"ints"}},
		{"glob class", "?match=" + url.QueryEscape("[lz]*"), []string{"list", "zset"}},
		{"pattern matching nothing", "?match=nothing", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var j keysJSON
			require.Equal(t, http.StatusOK, getJSONPage(t, c, srv.URL+"/admin/api/keys"+tt.query, &j))
			var got []string
			for _, k := range j.Keys {
				key := k.Key
				if k.KeyBase64 != "" {
					b, err := base64.StdEncoding.DecodeString(k.KeyBase64)
					require.NoError(t, err)
					key = string(b)
				}
				got = append(got, key)
			}
			assert.ElementsMatch(t, tt.want, got)
			assert.False(t, j.More, "one page holds them all")
			assert.Equal(t, "0", j.NextCursor)

			code, body := get(t, c, srv.URL+"/admin/keys"+tt.query)
			require.Equal(t, http.StatusOK, code)
			got = got[:0]
			for _, m := range rowKey.FindAllStringSubmatch(body, -1) {
				got = append(got, html.UnescapeString(m[1]))
			}
			var shown []string
			for _, k := range tt.want {
				shown = append(shown, escaped(k))
			}
			assert.ElementsMatch(t, shown, got)
			assert.NotContains(t, body, `rel="next"`)
			if len(tt.want) == 0 {
				assert.Contains(t, body, "No keys on this page.")
			}
		})
	}

	// Each key's figures.
	var j keysJSON
	require.Equal(t, http.StatusOK, getJSONPage(t, c, srv.URL+"/admin/api/keys?count=100", &j))
	type fig struct {
		typ, enc string
		size     int64
		ttl      bool
	}
	figs := map[string]fig{}
	for _, k := range j.Keys {
		figs[k.Key] = fig{k.Type, k.Encoding, k.Size, k.TTL != nil}
		if k.Key == "ttl" {
			assert.InDelta(t, 3600, *k.TTL, 5)
		}
	}
	for key, want := range map[string]fig{
		"greeting":    {"string", "embstr", 5, false},
		"big":         {"string", "raw", 10000, false},
		"ttl":         {"string", "embstr", 4, true},
		"list":        {"list", "quicklist", 2500, false},
		"hash":        {"hash", "hashtable", 2000, false},
		"set":         {"set", "hashtable", 2000, false},
		"zset":        {"zset", "skiplist", 2000, false},
		"ints":        {"set", "intset", 300, false},
		"":            {"hash", "listpack", 1, false},
		scriptKey:     {"string", "embstr", 28, false},
		"packed-hash": {"hash", "listpack", 100, false},
	} {
		assert.Equal(t, want, figs[key], "%q", key)
	}
	_, body := get(t, c, srv.URL+"/admin/keys?count=100")
	assert.Regexp(t, `<tr data-key="list">\s*<th scope="row" class="value"><a href="key\?key=list"><code>list</code></a></th>\s*<td data-field="type">list</td>\s*<td class="num" data-field="ttl">none</td>\s*<td class="num" data-field="size">2500 elements</td>\s*<td data-field="encoding">quicklist</td>`, body)
	assert.Regexp(t, `<tr data-key="ttl">(?s:.*?)data-field="ttl">(59m59\.\d+s|1h0m0s|59m\d+s)</td>`, body)
}

// escaped is how the pages show a key or value (see inspector's escape).
func escaped(s string) string {
	switch s {
	case binaryKey:
		return `\xff\xfe\x00bad`
	case bidiKey:
		return `\u202eevil`
	}
	return s
}

// TestKeysPagination walks the keys page by page by its next links (HTML) and
// next_cursor (JSON): every key once, no page over its size.
func TestKeysPagination(t *testing.T) {
	ctx := t.Context()
	db := zlite.New(zlite.WithShards(4))
	want := map[string]bool{}
	for i := range 300 {
		k := fmt.Sprintf("k:%03d", i)
		want[k] = true
		require.NoError(t, db.Set(ctx, k, "v", 0))
		_, err := db.RPush(ctx, fmt.Sprintf("l:%03d", i), "x")
		require.NoError(t, err)
	}
	srv, c := serve(t, inspector.New(nil, inspector.WithKeyspace(db)))
	for _, q := range []string{"count=7&match=k%3A%2A", "count=7&type=string", "count=1&type=string", "count=500&type=string"} {
		t.Run(q, func(t *testing.T) {
			seen := map[string]int{}
			pages := 0
			for u := srv.URL + "/admin/keys?" + q; u != ""; pages++ {
				require.Less(t, pages, 1000, "the scan must end")
				code, body := get(t, c, u)
				require.Equal(t, http.StatusOK, code, u)
				rows := rowKey.FindAllStringSubmatch(body, -1)
				count, _ := strconv.Atoi(regexp.MustCompile(`count=(\d+)`).FindStringSubmatch(q)[1])
				assert.LessOrEqual(t, len(rows), count)
				for _, m := range rows {
					seen[m[1]]++
				}
				u = ""
				if m := nextLink.FindStringSubmatch(body); m != nil {
					u = follow(t, srv.URL+"/admin/keys?"+q, m[1])
					assert.Contains(t, u, "/admin/keys?")
				}
			}
			assert.Len(t, seen, len(want))
			for k, n := range seen {
				assert.True(t, want[k], "listed %q", k)
				assert.Equal(t, 1, n, "%q listed %d times", k, n)
			}

			seen = map[string]int{}
			cursor := "0"
			for pages = 0; ; pages++ {
				require.Less(t, pages, 1000, "the scan must end")
				var j keysJSON
				require.Equal(t, http.StatusOK, getJSONPage(t, c, srv.URL+"/admin/api/keys?"+q+"&cursor="+cursor, &j))
				assert.Equal(t, cursor, j.Cursor)
				for _, k := range j.Keys {
					seen[k.Key]++
				}
				if !j.More {
					assert.Equal(t, "0", j.NextCursor)
					break
				}
				cursor = j.NextCursor
			}
			assert.Len(t, seen, len(want))
			for k, n := range seen {
				assert.Equal(t, 1, n, "%q listed %d times", k, n)
			}
		})
	}
}

// valueJSON is the key page in JSON, every type's fields.
type valueJSON struct {
	Key         string   `json:"key"`
	KeyBase64   string   `json:"key_base64"`
	Type        string   `json:"type"`
	TTL         *float64 `json:"ttl_seconds"`
	Size        int64    `json:"size"`
	Encoding    string   `json:"encoding"`
	Count       int64    `json:"count"`
	Offset      *int64   `json:"offset"`
	Cursor      *string  `json:"cursor"`
	Skip        *int64   `json:"skip"`
	More        bool     `json:"more"`
	NextOffset  *int64   `json:"next_offset"`
	NextCursor  *string  `json:"next_cursor"`
	NextSkip    *int64   `json:"next_skip"`
	Value       *string  `json:"value"`
	ValueBase64 string   `json:"value_base64"`
	Elements    []struct {
		Index        *int64 `json:"index"`
		Rank         *int64 `json:"rank"`
		Member       string `json:"member"`
		MemberBase64 string `json:"member_base64"`
		Field        string `json:"field"`
		FieldBase64  string `json:"field_base64"`
		Value        string `json:"value"`
		ValueBase64  string `json:"value_base64"`
		Score        any    `json:"score"`
	} `json:"elements"`
}

// one is a page element as one string: "value", "member", "field=value", or
// "member@score".
func (v valueJSON) elems(t *testing.T) []string {
	t.Helper()
	dec := func(s, b64 string) string {
		if b64 == "" {
			return s
		}
		b, err := base64.StdEncoding.DecodeString(b64)
		require.NoError(t, err)
		return string(b)
	}
	var out []string
	for i, e := range v.Elements {
		switch v.Type {
		case "list":
			require.NotNil(t, e.Index)
			assert.Equal(t, *v.Offset+int64(i), *e.Index)
			out = append(out, dec(e.Value, e.ValueBase64))
		case "zset":
			require.NotNil(t, e.Rank)
			assert.Equal(t, *v.Offset+int64(i), *e.Rank)
			out = append(out, fmt.Sprint(dec(e.Member, e.MemberBase64), "@", e.Score))
		case "hash":
			out = append(out, dec(e.Field, e.FieldBase64)+"="+dec(e.Value, e.ValueBase64))
		case "set":
			out = append(out, dec(e.Member, e.MemberBase64))
		}
	}
	return out
}

// TestKeyPagination reads every big value page by page, in HTML by the next links
// and in JSON by next_offset or next_cursor and next_skip: together the pages hold
// each element once, and no page holds more than its size.
func TestKeyPagination(t *testing.T) {
	db := keyspace(t)
	srv, c := serve(t, inspector.New(nil, inspector.WithKeyspace(db)))
	zsetWant := make([]string, 2000)
	for i := range zsetWant {
		var s any = float64(i) / 2
		switch i {
		case 0:
			s = "-inf"
		case 1999:
			s = "inf"
		}
		zsetWant[i] = fmt.Sprint("z", i, "@", s)
	}
	var hashWant, packedWant []string
	for i := range 2000 {
		hashWant = append(hashWant, fmt.Sprintf("f%d=v%d", i, i))
	}
	packedWant = hashWant[:100]
	// The HTML rows, as elements.
	htmlRows := map[string]*regexp.Regexp{
		"list": regexp.MustCompile(`<tr data-index="\d+"><td class="num">\d+</td><td class="value"><code>([^<]*)</code></td></tr>`),
		"zset": regexp.MustCompile(`<tr data-index="\d+"><td class="num">\d+</td><td class="value"><code>([^<]*)</code></td><td class="num">([^<]*)</td></tr>`),
		"hash": regexp.MustCompile(`<tr><td class="value"><code>([^<]*)</code></td><td class="value"><code>([^<]*)</code></td></tr>`),
		"set":  regexp.MustCompile(`<tr><td class="value"><code>([^<]*)</code></td></tr>`),
	}
	tests := []struct {
		key, typ string
		count    int
		want     []string
		ordered  bool
	}{
		{"list", "list", 100, series("item-", 2500), true},
		{"list", "list", 500, series("item-", 2500), true},
		{"list", "list", 7, series("item-", 2500), true},
		{"zset", "zset", 100, zsetWant, true},
		{"zset", "zset", 333, zsetWant, true},
		{"hash", "hash", 100, hashWant, false},
		{"hash", "hash", 500, hashWant, false},
		{"packed-hash", "hash", 7, packedWant, false},
		{"set", "set", 100, series("m", 2000), false},
		{"set", "set", 3, series("m", 2000), false},
		{"ints", "set", 50, series("", 300), false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s by %d", tt.key, tt.count), func(t *testing.T) {
			// JSON
			var got []string
			next := ""
			for pages := 0; ; pages++ {
				require.Less(t, pages, 3000)
				var v valueJSON
				u := srv.URL + "/admin/api/key?key=" + url.QueryEscape(tt.key) + "&count=" + strconv.Itoa(tt.count) + next
				require.Equal(t, http.StatusOK, getJSONPage(t, c, u, &v), u)
				require.Equal(t, tt.typ, v.Type)
				es := v.elems(t)
				assert.LessOrEqual(t, len(es), tt.count, u)
				got = append(got, es...)
				if !v.More {
					break
				}
				if tt.ordered {
					require.NotNil(t, v.NextOffset)
					assert.Equal(t, *v.Offset+int64(tt.count), *v.NextOffset)
					next = "&offset=" + strconv.FormatInt(*v.NextOffset, 10)
				} else {
					require.NotNil(t, v.NextCursor)
					next = "&cursor=" + *v.NextCursor + "&skip=" + strconv.FormatInt(*v.NextSkip, 10)
				}
			}
			if tt.ordered {
				assert.Equal(t, tt.want, got)
			} else {
				assert.ElementsMatch(t, tt.want, got)
			}

			// HTML
			got = got[:0]
			u := srv.URL + "/admin/key?key=" + url.QueryEscape(tt.key) + "&count=" + strconv.Itoa(tt.count)
			for pages := 0; u != ""; pages++ {
				require.Less(t, pages, 3000)
				code, body := get(t, c, u)
				require.Equal(t, http.StatusOK, code, u)
				rows := htmlRows[tt.typ].FindAllStringSubmatch(body, -1)
				assert.LessOrEqual(t, len(rows), tt.count, u)
				for _, m := range rows {
					switch tt.typ {
					case "zset":
						got = append(got, m[1]+"@"+m[2])
					case "hash":
						got = append(got, m[1]+"="+m[2])
					default:
						got = append(got, m[1])
					}
				}
				if m := nextLink.FindStringSubmatch(body); m != nil {
					u = follow(t, u, m[1])
				} else {
					u = ""
				}
			}
			if tt.ordered {
				assert.Equal(t, tt.want, got)
			} else {
				assert.ElementsMatch(t, tt.want, got)
			}
		})
	}

	// A string in 4 KiB pages.
	big := bigString(10000)
	var got strings.Builder
	for off := int64(0); ; {
		var v valueJSON
		require.Equal(t, http.StatusOK, getJSONPage(t, c, srv.URL+"/admin/api/key?key=big&offset="+strconv.FormatInt(off, 10), &v))
		require.NotNil(t, v.Value)
		assert.LessOrEqual(t, len(*v.Value), 4096)
		assert.Equal(t, off, *v.Offset)
		got.WriteString(*v.Value)
		if !v.More {
			break
		}
		off = *v.NextOffset
	}
	assert.Equal(t, big, got.String())
	got.Reset()
	pre := regexp.MustCompile(`(?s)<pre class="value" data-field="value">(.*?)</pre>`)
	for u := srv.URL + "/admin/key?key=big"; u != ""; {
		code, body := get(t, c, u)
		require.Equal(t, http.StatusOK, code)
		m := pre.FindStringSubmatch(body)
		require.NotNil(t, m, body)
		got.WriteString(m[1])
		u = ""
		if m := nextLink.FindStringSubmatch(body); m != nil {
			u = follow(t, srv.URL+"/admin/key?key=big", m[1])
		}
	}
	assert.Equal(t, big, got.String())
	_, body := get(t, c, srv.URL+"/admin/key?key=big&offset=8192")
	assert.Contains(t, body, "Bytes 8192 to 9999 of 10000")
	assert.Contains(t, body, `href="key?key=big&amp;offset=4096" rel="prev"`)
}

// TestKeyPage shows one key of each type, and the hostile ones, in HTML and JSON.
func TestKeyPage(t *testing.T) {
	db := keyspace(t)
	srv, c := serve(t, inspector.New(nil, inspector.WithKeyspace(db)))
	tests := []struct {
		name, key string
		query     string
		code      int
		want, not []string
		json      func(t *testing.T, v valueJSON)
	}{
		{name: "string", key: "greeting", code: 200,
			want: []string{`<dd data-field="type">string</dd>`, `<dd data-field="size">5 bytes</dd>`, `<dd data-field="ttl">none</dd>`, `<dd data-field="encoding">embstr</dd>`, `>hello</pre>`, "Bytes 0 to 4 of 5"},
			not:  []string{`rel="next"`, `rel="prev"`},
			json: func(t *testing.T, v valueJSON) {
				assert.Equal(t, "hello", *v.Value)
				assert.Nil(t, v.TTL)
				assert.False(t, v.More)
				assert.Nil(t, v.Elements)
			}},
		{name: "empty string", key: "empty", code: 200, want: []string{"The empty string."},
			json: func(t *testing.T, v valueJSON) { assert.Equal(t, "", *v.Value) }},
		{name: "a string with a TTL", key: "ttl", code: 200, want: []string{`<dd data-field="ttl">`}, not: []string{`<dd data-field="ttl">none`},
			json: func(t *testing.T, v valueJSON) { assert.InDelta(t, 3600, *v.TTL, 5) }},
		{name: "big string, first page", key: "big", code: 200,
			want: []string{"Bytes 0 to 4095 of 10000", `href="key?key=big&amp;offset=4096" rel="next"`, "000004080 000004</pre>"},
			not:  []string{"000004090", `rel="prev"`},
			json: func(t *testing.T, v valueJSON) {
				assert.Len(t, *v.Value, 4096)
				assert.True(t, v.More)
				assert.EqualValues(t, 4096, *v.NextOffset)
				assert.EqualValues(t, 4096, v.Count)
			}},
		{name: "string past its end", key: "big", query: "&offset=20000", code: 200, want: []string{"No bytes from byte 20000 on."}},
		{name: "list", key: "list", query: "&count=3&offset=10", code: 200,
			want: []string{`<tr data-index="10"><td class="num">10</td><td class="value"><code>item-10</code></td></tr>`, "Elements 10 to 12", `href="key?key=list&amp;count=3&amp;offset=13" rel="next"`, `href="key?key=list&amp;count=3&amp;offset=7" rel="prev"`, `2500 elements`, `>quicklist<`},
			not:  []string{"item-13<", "item-9<"},
			json: func(t *testing.T, v valueJSON) {
				assert.Equal(t, []string{"item-10", "item-11", "item-12"}, v.elems(t))
				assert.EqualValues(t, 13, *v.NextOffset)
				assert.Nil(t, v.Cursor)
			}},
		{name: "list past its end", key: "list", query: "&offset=9999", code: 200, want: []string{"No elements on this page."},
			json: func(t *testing.T, v valueJSON) {
				assert.Empty(t, v.Elements)
				assert.NotNil(t, v.Elements)
				assert.False(t, v.More)
			}},
		{name: "sorted set", key: "zset", query: "&count=2", code: 200,
			want: []string{`<tr data-index="0"><td class="num">0</td><td class="value"><code>z0</code></td><td class="num">-inf</td></tr>`, `<code>z1</code></td><td class="num">0.5</td>`, ">skiplist<"},
			json: func(t *testing.T, v valueJSON) { assert.Equal(t, []string{"z0@-inf", "z1@0.5"}, v.elems(t)) }},
		{name: "sorted set, last page", key: "zset", query: "&count=2&offset=1998", code: 200,
			want: []string{`<code>z1999</code></td><td class="num">inf</td>`},
			not:  []string{`rel="next"`},
			json: func(t *testing.T, v valueJSON) { assert.Equal(t, []string{"z1998@999", "z1999@inf"}, v.elems(t)) }},
		{name: "hash", key: "hash", query: "&count=5", code: 200,
			want: []string{"5 fields from an HSCAN step", `href="key?key=hash&amp;count=5&amp;cursor=`, ">hashtable<"},
			json: func(t *testing.T, v valueJSON) {
				assert.Len(t, v.Elements, 5)
				assert.Equal(t, "0", *v.Cursor)
				assert.NotEqual(t, "0", *v.NextCursor)
				assert.Nil(t, v.Offset)
			}},
		{name: "packed hash: one step, shown in pages", key: "packed-hash", query: "&count=30&skip=90", code: 200,
			want: []string{"10 fields from an HSCAN step", `href="key?key=packed-hash&amp;count=30">← First page`},
			not:  []string{`rel="next"`},
			json: func(t *testing.T, v valueJSON) { assert.Len(t, v.Elements, 10); assert.False(t, v.More) }},
		{name: "set", key: "ints", query: "&count=4", code: 200,
			want: []string{"4 members from an SSCAN step", `href="key?key=ints&amp;count=4&amp;skip=4" rel="next"`, ">intset<"},
			json: func(t *testing.T, v valueJSON) {
				assert.Len(t, v.Elements, 4)
				assert.Equal(t, "0", *v.NextCursor)
				assert.EqualValues(t, 4, *v.NextSkip)
			}},
		{name: "script key and value", key: scriptKey, code: 200,
			want: []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(1)&gt;"},
			not:  []string{"<script", "<img"},
			json: func(t *testing.T, v valueJSON) {
				assert.Equal(t, scriptKey, v.Key)
				assert.Equal(t, "<img src=x onerror=alert(1)>", *v.Value)
			}},
		{name: "binary key and values", key: binaryKey, code: 200,
			want: []string{`<code>\xff\xfe\x00bad</code>`, `<code>\xc3(</code>`, `<code>&lt;/td&gt;&lt;/tr&gt;&lt;/table&gt;</code>`},
			not:  []string{"</td></tr></table>"},
			json: func(t *testing.T, v valueJSON) {
				assert.Equal(t, base64.StdEncoding.EncodeToString([]byte(binaryKey)), v.KeyBase64)
				assert.Equal(t, []string{"\xc3\x28", "</td></tr></table>"}, v.elems(t))
			}},
		{name: "control characters and a bidi override", key: bidiKey, code: 200,
			want: []string{`<code>\u202eevil</code>`, `>\x00\x1b[31m\\n\n</pre>`},
			not:  []string{"\u202e", "\x1b"},
			json: func(t *testing.T, v valueJSON) {
				assert.Equal(t, "\x00\x1b[31m\\n\n", *v.Value)
				assert.Empty(t, v.ValueBase64)
			}},
		{name: "the empty key", key: "", code: 200,
			want: []string{`<h1>Key <q><span class="na">(empty)</span></q></h1>`, `<dd data-field="size">1 field</dd>`, `<code>&lt;b&gt;</code></td><td class="value"><code>\xff</code>`},
			json: func(t *testing.T, v valueJSON) {
				assert.Equal(t, "", v.Key)
				assert.Equal(t, []string{"<b>=\xff"}, v.elems(t))
			}},
		{name: "URL syntax in a key", key: urlKey, code: 200, want: []string{"<code>a&amp;b=c d/e?f#g%zz&#43;</code>", "<code>x</code>"},
			json: func(t *testing.T, v valueJSON) { assert.Equal(t, urlKey, v.Key) }},
		{name: "missing key", key: "nope", code: 404, want: []string{"There is no such key", "<code>nope</code>"}, not: []string{"<dl"}},
		{name: "bad offset", key: "list", query: "&offset=-1", code: 400, want: []string{"offset must be an integer from 0 to"}},
		{name: "huge offset", key: "list", query: "&offset=9223372036854775807", code: 400, want: []string{"offset must be"}},
		{name: "bad cursor", key: "hash", query: "&cursor=x", code: 400, want: []string{"cursor must be"}},
		{name: "negative cursor", key: "hash", query: "&cursor=-1", code: 400, want: []string{"cursor must be"}},
		{name: "cursor too big", key: "hash", query: "&cursor=18446744073709551616", code: 400, want: []string{"cursor must be"}},
		{name: "bad skip", key: "hash", query: "&skip=1.5", code: 400, want: []string{"skip must be"}},
		{name: "count 0", key: "list", query: "&count=0", code: 400, want: []string{"count must be an integer from 1 to 500"}},
		{name: "count too big", key: "list", query: "&count=501", code: 400, want: []string{"count must be"}},
		{name: "a cursor the hash did not give", key: "hash", query: "&cursor=123456789", code: 200, want: []string{"No elements on this page."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := get(t, c, srv.URL+"/admin/key?key="+url.QueryEscape(tt.key)+tt.query)
			require.Equal(t, tt.code, code, body)
			for _, w := range tt.want {
				assert.Contains(t, body, w)
			}
			for _, n := range tt.not {
				assert.NotContains(t, body, n)
			}
			if code == 200 {
				assert.True(t, utf8.ValidString(body), "the page is UTF-8 whatever the key holds")
				assert.Contains(t, html.UnescapeString(body), `href="api/key?key=`+url.QueryEscape(tt.key))
			}
			var v valueJSON
			jcode := getJSONPage(t, c, srv.URL+"/admin/api/key?key="+url.QueryEscape(tt.key)+tt.query, &v)
			require.Equal(t, tt.code, jcode)
			if tt.json != nil {
				tt.json(t, v)
			}
		})
	}

	for _, tt := range []struct {
		path, want string
		code       int
	}{
		{"api/key?key=nope", `{"error":"no such key"}`, 404},
		{"api/key", `{"error":"the key parameter is missing (key= is the empty key)"}`, 400},
		{"api/key?key=list&offset=x", `{"error":"offset must be an integer from 0 to 4611686018427387904"}`, 400},
		{"api/keys?cursor=x", `{"error":"cursor must be a cursor from a previous page: an integer from 0 to 18446744073709551615"}`, 400},
	} {
		code, body := get(t, c, srv.URL+"/admin/"+tt.path)
		assert.Equal(t, tt.code, code, tt.path)
		assert.JSONEq(t, tt.want, body, tt.path)
	}
	code, body := get(t, c, srv.URL+"/admin/key")
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, body, "the key parameter is missing")
}

// TestKeysBadParams: the keys page's parameters are checked, in HTML and JSON.
func TestKeysBadParams(t *testing.T) {
	srv, c := serve(t, inspector.New(nil, inspector.WithKeyspace(keyspace(t))))
	for _, tt := range []struct{ query, want string }{
		{"cursor=x", "cursor must be"},
		{"cursor=-1", "cursor must be"},
		{"cursor=1e3", "cursor must be"},
		{"cursor=99999999999999999999", "cursor must be"},
		{"count=0", "count must be an integer from 1 to 500"},
		{"count=501", "count must be"},
		{"count=ten", "count must be"},
		{"type=stream", "type must be one of string, list, zset, hash, set"},
		{"match=" + strings.Repeat("*", 1025), "match must be at most 1024 bytes"},
	} {
		code, body := get(t, c, srv.URL+"/admin/keys?"+tt.query)
		assert.Equal(t, http.StatusBadRequest, code, tt.query)
		assert.Contains(t, body, tt.want, tt.query)
		code, body = get(t, c, srv.URL+"/admin/api/keys?"+tt.query)
		assert.Equal(t, http.StatusBadRequest, code, tt.query)
		assert.Contains(t, body, `"error": "`+tt.want, tt.query)
	}
	// A cursor that names no shard ends the scan.
	var j keysJSON
	require.Equal(t, http.StatusOK, getJSONPage(t, c, srv.URL+"/admin/api/keys?cursor=18446744073709551615", &j))
	assert.Empty(t, j.Keys)
	assert.False(t, j.More)
}

// TestKeysHostile: the keys page escapes hostile keys, links each to its page, and
// is UTF-8 whatever the keys hold.
func TestKeysHostile(t *testing.T) {
	srv, c := serve(t, inspector.New(nil, inspector.WithKeyspace(keyspace(t))))
	page := srv.URL + "/admin/keys?count=100"
	code, body := get(t, c, page)
	require.Equal(t, http.StatusOK, code)
	assert.True(t, utf8.ValidString(body))
	assert.NotContains(t, body, "<script")
	assert.NotContains(t, body, "\u202e")
	assert.Contains(t, body, `<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>`)
	assert.Contains(t, body, `<code>\xff\xfe\x00bad</code>`)
	assert.Contains(t, body, `<a href="key?key="><span class="na">(empty)</span></a>`)
	links := regexp.MustCompile(`<th scope="row" class="value"><a href="([^"]*)">`).FindAllStringSubmatch(body, -1)
	require.Len(t, links, 15)
	for _, l := range links {
		u := follow(t, page, l[1])
		pu, err := url.Parse(u)
		require.NoError(t, err)
		assert.Equal(t, "/admin/key", pu.Path)
		key := pu.Query().Get("key")
		code, kbody := get(t, c, u)
		require.Equal(t, http.StatusOK, code, "%q", key)
		assert.Contains(t, kbody, "<h1>Key <q>", "%q", key)
		var v valueJSON
		require.Equal(t, http.StatusOK, getJSONPage(t, c, strings.Replace(u, "/admin/key?", "/admin/api/key?", 1), &v))
		got := v.Key
		if v.KeyBase64 != "" {
			b, _ := base64.StdEncoding.DecodeString(v.KeyBase64)
			got = string(b)
		}
		assert.Equal(t, key, got, "the link leads to its key, byte for byte")
	}
}

// TestKeyspaceLinks: the index's type rows lead to the keys page filtered by type,
// and every link of the browser's pages loads and stays under the mount point.
func TestKeyspaceLinks(t *testing.T) {
	ctx := t.Context()
	db := zlite.New()
	require.NoError(t, db.Set(ctx, "s", "v", 0))
	_, err := db.RPush(ctx, "l", "a", "b", "c")
	require.NoError(t, err)
	_, err = db.HSet(ctx, "h", "f", "v", "g", "w", "k", "x")
	require.NoError(t, err)
	_, err = db.SAdd(ctx, "<set>", "1", "2", "3")
	require.NoError(t, err)
	_, err = db.ZAdd(ctx, "z", zlite.Z{Member: "a", Score: 1}, zlite.Z{Member: "b", Score: 2}, zlite.Z{Member: "c", Score: 3})
	require.NoError(t, err)
	srv, c := serve(t, inspector.New(nil, inspector.WithKeyspace(db), inspector.WithPageSize(2)))
	_, body := get(t, c, srv.URL+"/admin/")
	for _, typ := range []string{"string", "list", "hash", "set", "zset"} {
		assert.Contains(t, body, `<tr data-type="`+typ+`"><th scope="row"><a href="keys?type=`+typ+`">`+typ+`</a></th>`)
	}
	assert.Contains(t, body, `<a href="keys">Browse the keys</a>`)

	attr := regexp.MustCompile(`(href|action)="([^"]*)"`)
	seen := map[string]bool{}
	todo := []string{srv.URL + "/admin/"}
	for len(todo) > 0 {
		page := todo[0]
		todo = todo[1:]
		code, body := get(t, c, page)
		require.Equal(t, http.StatusOK, code, "GET %s", page)
		if !strings.Contains(body, "<html") {
			continue
		}
		for _, m := range attr.FindAllStringSubmatch(body, -1) {
			u, err := url.Parse(follow(t, page, m[2]))
			require.NoError(t, err)
			u.Fragment = ""
			require.True(t, strings.HasPrefix(u.Path, "/admin/"), "%s on %s leads to %s", m[0], page, u)
			if m[1] == "action" {
				assert.Equal(t, "/admin/keys", u.Path, "the only form is the scan's")
				continue
			}
			if !seen[u.String()] {
				seen[u.String()] = true
				todo = append(todo, u.String())
			}
		}
	}
	var paths []string
	for u := range seen {
		paths = append(paths, strings.TrimPrefix(u, srv.URL))
	}
	for _, want := range []string{
		"/admin/keys", "/admin/keys?type=list", "/admin/keys?type=zset",
		"/admin/key?key=l", "/admin/key?key=l&offset=2", "/admin/key?key=%3Cset%3E", "/admin/key?key=h&skip=2",
		"/admin/api/keys?type=list", "/admin/api/key?key=z&offset=2",
	} {
		assert.Contains(t, paths, want)
	}
	assert.True(t, slices.ContainsFunc(paths, func(p string) bool { return strings.HasPrefix(p, "/admin/keys?cursor=") }), "a next page of keys: %v", paths)
}

// TestNoKeyspace: without WithKeyspace there is no key browser.
func TestNoKeyspace(t *testing.T) {
	srv, c := serve(t, inspector.New(nil))
	for _, p := range []string{"keys", "key?key=a", "api/keys", "api/key?key=a"} {
		code, body := get(t, c, srv.URL+"/admin/"+p)
		assert.Equal(t, http.StatusNotFound, code, p)
		assert.Contains(t, body, "the key browser needs inspector.WithKeyspace", p)
	}
	_, body := get(t, c, srv.URL+"/admin/")
	assert.NotContains(t, body, `href="keys`)
}

// TestLongValues: a page shows at most 1 KiB of a key, an element, a field or a
// member, and says how long it is; JSON gives the prefix and the length (keys
// whole); the link to a long key leads to it.
func TestLongValues(t *testing.T) {
	ctx := t.Context()
	db := zlite.New()
	long := strings.Repeat("<&>", 2000)        // 6000 bytes
	longKey := "k" + strings.Repeat("é", 1000) // 2001 bytes: cut in the middle of an é
	_, err := db.RPush(ctx, "list", long, "short")
	require.NoError(t, err)
	_, err = db.HSet(ctx, "hash", long, long)
	require.NoError(t, err)
	_, err = db.SAdd(ctx, "set", long)
	require.NoError(t, err)
	_, err = db.ZAdd(ctx, "zset", zlite.Z{Member: long, Score: 1})
	require.NoError(t, err)
	require.NoError(t, db.Set(ctx, longKey, "v", 0))
	srv, c := serve(t, inspector.New(nil, inspector.WithKeyspace(db)))
	shownLong := strings.Repeat("&lt;&amp;&gt;", 1024/3) + "&lt;" // the first 1024 bytes
	for _, key := range []string{"list", "hash", "set", "zset"} {
		code, body := get(t, c, srv.URL+"/admin/key?key="+key)
		require.Equal(t, http.StatusOK, code)
		assert.Contains(t, body, "<code>"+shownLong+`</code><span class="note"> … (6000 bytes in all)</span>`, key)
		assert.NotContains(t, body, shownLong+"&amp;", key)
		var v struct {
			Elements []map[string]any `json:"elements"`
		}
		require.Equal(t, http.StatusOK, getJSONPage(t, c, srv.URL+"/admin/api/key?key="+key, &v))
		e := v.Elements[0]
		name := map[string]string{"list": "value", "hash": "field", "set": "member", "zset": "member"}[key]
		assert.Equal(t, long[:1024], e[name], key)
		assert.EqualValues(t, 6000, e[name+"_length"], key)
		if key == "list" {
			assert.Equal(t, map[string]any{"index": 1.0, "value": "short"}, v.Elements[1], "no length when whole")
		}
	}
	code, body := get(t, c, srv.URL+"/admin/keys")
	require.Equal(t, http.StatusOK, code)
	assert.True(t, utf8.ValidString(body))
	assert.Contains(t, body, `(2001 bytes in all)`)
	assert.Contains(t, body, `\xc3</code>`, "the cut é's first byte, escaped")
	assert.Contains(t, body, `href="key?key=`+url.QueryEscape(longKey)+`"`, "the link has the whole key")
	var j keysJSON
	require.Equal(t, http.StatusOK, getJSONPage(t, c, srv.URL+"/admin/api/keys?type=string", &j))
	require.Len(t, j.Keys, 1)
	assert.Equal(t, longKey, j.Keys[0].Key)
}

// TestBrowsingIsNotCounted: the browser reads in transactions, which the
// keyspace's command counters do not count, so browsing leaves the figures shown
// on the index as they were.
func TestBrowsingIsNotCounted(t *testing.T) {
	db := keyspace(t)
	before := db.Stats()
	srv, c := serve(t, inspector.New(nil, inspector.WithKeyspace(db)))
	for _, p := range []string{"keys", "api/keys?type=hash", "key?key=list", "api/key?key=hash", "key?key=zset", "key?key=set", "key?key=big"} {
		code, _ := get(t, c, srv.URL+"/admin/"+p)
		require.Equal(t, http.StatusOK, code, p)
	}
	after := db.Stats()
	assert.Equal(t, before.Commands, after.Commands)
}
