// Package inspector implements a web console for queues: an [http.Handler] that a
// single-binary app mounts at a path of its choice, with an index of the queues
// (depth, throughput, lateness, each with a chart), a page per queue listing its
// items in serving order with search, a page per item, a dead-letter page, JSON
// endpoints and event streams beside the HTML, pages that update live, when
// enabled actions on one item, on selected items or on the whole queue (pause,
// resume, retry all), and, with [WithKeyspace], a browser of the keys and values
// of the zlite keyspace:
//
//	h := inspector.New([]inspector.Queue{inspector.FIFO("jobs", jobs)})
//	go h.Run(ctx) // samples the queues for the charts
//	mux.Handle("/queues/", http.StripPrefix("/queues", h))
//
// The pages are server-rendered [html/template]s embedded in the binary, with one
// embedded style sheet, one small embedded script and charts drawn as inline SVG:
// no CDN and nothing fetched from elsewhere, so they work offline. Every page works
// without JavaScript (links, GET forms, POST forms, a confirmation page); the
// script only adds live updates and a confirmation dialog. They are
// keyboard-navigable (real links and buttons, visible focus, a skip link), readable
// without colour (every state is a word, every chart has its figures in text) and
// usable 375 px wide: the page never scrolls sideways, wide tables scroll inside
// their box.
//
// # Queues
//
// The inspector reads queues through the small [Queue] interface (name, kind, a
// [Stats] snapshot, a page of [Item]s in serving order) and acts on them through the
// optional [Canceler], [LeaseRequeuer], [DeadMover], [DeadLetters] (the
// dead-letter page: list, retry all, delete) and [Pauser]. The adapters ([FIFO],
// [Levels], [Priority], [CallQueue], [Delayed], [Scheduler], [Reliable], [Waitlist])
// wrap the types of package queues, reading their Stats (depth per level, priority
// or party size; due, in-flight and dead counts; the age of the oldest item; blocked
// consumers; the enqueued, dequeued, acked, requeued, expired-lease, dead-lettered
// and cancelled counters; the lateness of delayed jobs and scheduler moves, p50/p99/max) and
// their paged Items, so a page of k items costs what the queue's Items costs for k:
// the call queue lists its calls at the position [queues.CallQueue.Position] gives,
// with priority and wait; the delayed queue and scheduler their jobs with due
// times; the reliable queue its waiting elements, then its leases with their
// expiry, then its dead elements. Actions: every adapter cancels a waiting item
// (O(log n) by id for the sorted-set queues, O(n) by value for the list queues: see
// each adapter); the reliable queue's adapter also requeues an expired lease in one
// atomic step that checks the expiry itself ([queues.Reliable.Requeue]) and moves a
// dead element back ([queues.Reliable.Retry], for a queue made with
// [queues.WithMaxDeliveries]); it lists its dead elements with their attempts,
// last error and time of death ([queues.Reliable.Dead]), retries them all
// ([queues.Reliable.RetryAll]), deletes one ([queues.Reliable.DeleteDead]) and
// pauses and resumes the queue ([queues.Reliable.Pause], [queues.Reliable.Resume]).
// Its items carry their delivery attempt, last error, enqueue time and group
// ([queues.Group]); it lists the waiting elements (the ungrouped ones, then each
// group's), the leases, the elements waiting out a retry delay with the time of
// their next attempt ([queues.Reliable.Retrying], state "retrying"), then the dead
// ones. A [Queue] of your own offers the actions through the same
// interfaces. [WithKeyspace] adds the figures of the zlite keyspace itself
// ([zlite.DB.Stats]) to the index, and the key browser (below).
//
// # Routes
//
// Paths are relative to the mount point; every link and form in the pages is a
// relative URL, so any prefix works (mount with [http.StripPrefix]).
//
//	GET  /                           the index of queues
//	GET  /queues/{name}?offset=&count=   a queue's figures and a page of its items
//	POST /queues/{name}/{action}     form field id; 303 back to the queue page
//	GET  /api/queues                 JSON: every queue's figures and history
//	GET  /api/queues/{name}?offset=&count=   JSON: one queue's figures and items
//	POST /api/queues/{name}/{action} form field id; JSON {"ok": true|false}
//	GET  /queues/{name}/item?id=     one item: payload, state, attempts, times, actions
//	GET  /api/queues/{name}/item?id= JSON: the item object
//	GET  /queues/{name}/dead?offset=&count=      the dead-letter page (DeadLetters)
//	GET  /api/queues/{name}/dead?offset=&count=  JSON: a page of dead items
//	POST /queues/{name}/bulk         fields action, id (repeated), confirm; see below
//	POST /api/queues/{name}/bulk     fields action, id (repeated); JSON {"done", "missing"}
//	GET  /events                     server-sent events: /api/queues's JSON per sample
//	GET  /events/queues/{name}?offset=&count=   events: /api/queues/{name}'s JSON
//	GET  /static/style.css, /static/live.js     the style sheet and the script
//	GET  /keys?match=&type=&count=&cursor=          the keys, a SCAN page (WithKeyspace)
//	GET  /key?key=&count=&offset=&cursor=&skip=     a page of one key's value (WithKeyspace)
//	GET  /api/keys?match=&type=&count=&cursor=      JSON: the keys page
//	GET  /api/key?key=&count=&offset=&cursor=&skip= JSON: the key page
//
// {name} is the queue's name, path-escaped; {action} is cancel (a waiting or
// scheduled item), requeue (an item whose lease expired), revive (a dead item back
// into the queue), delete (a dead item, for good), or, with no id, retry-all
// (every dead item: JSON {"ok", "count"}), pause and resume. An unknown action is
// 404, one the queue does not support 400. A form with back=dead returns to the
// dead-letter page instead of the queue page. count is 1 to [MaxPageSize] (default
// 50, see [WithPageSize]); a bad offset or count is 400. A queue that cannot list
// its items gives an empty list and "items_error" in JSON.
//
// Search: the queue page's "Item id" form opens the item page, which finds the
// item by reading the queue's items in pages of [MaxPageSize] from the start, at
// most 10 000 of them (O(position) Items calls; an item further down is 404); the
// page's ?q= keeps only the items of the page shown whose id or value contains
// it, O(count), a filter of the page and not a search of the queue.
//
// Bulk actions: the queue and dead-letter pages have a checkbox per item and a
// form naming an action (cancel, requeue, revive, delete) for the selected items,
// 1 to [MaxPageSize] ids. Without confirm=yes the HTML route answers 200 with a
// confirmation page listing them, whose button posts again with confirm=yes; the
// script asks in a dialog instead. Then the action runs for each id in turn (not
// one atomic step: an item no longer in that state is counted as missing) and the
// answer is a 303 to the page the form came from, saying how many were done.
//
// JSON: a queue is {"name", "kind", "depth", "levels": [{"name", "depth"}], "due",
// "in_flight", "dead", "oldest_seconds" (null when the queue records no times),
// "activity": {"blocked", "enqueued", "dequeued", "acked", "requeued", "expired",
// "dead_lettered", "cancelled"} or null, "lateness": {"count", "p50_seconds", "p99_seconds",
// "max_seconds"} or null, "throughput_per_second" (or null), "retrying", "paused",
// "history": [{"at", "depth", "throughput_per_second"?, "lateness_p99_seconds"?,
// "lateness_p50_seconds"?}]}, plus "error" when
// its Stats failed; /api/queues is {"actions": bool, "queues": [...], "keyspace"?:
// {"keys", "blocked", "commands", "types": {type: {"keys", "elements", "bytes",
// "encodings"?}}, "command": {name: {"calls", "latency_p50_seconds"?,
// "latency_p99_seconds"?}}}}; a queue's page adds "offset", "count", "more",
// "items": [{"id", "value", "position" (1 = served next), "state" (waiting,
// scheduled, leased, expired or dead), "level"?, "priority", "enqueued"?, "due"?,
// "lease_expiry"?, "attempt"?, "last_error"?, "died"?}] and "items_error"?; the
// item page is one such item object; the dead-letter page is {"name", "offset",
// "count", "more", "items", "items_error"?}. Times are RFC 3339, durations seconds.
// Errors are {"error": text} with a 4xx or 5xx status.
//
// # Key browser
//
// With [WithKeyspace], the index's keyspace panel links to the keys page, and each
// of its type rows to the keys page filtered by that type. The keys page lists the
// keys a few steps of SCAN find from ?cursor= (0, the start, by default), filtered
// by ?match= (a glob pattern, as SCAN MATCH: * ? [a-z] [^a] \x; at most 1 KiB) and
// ?type= (string, list, zset, hash or set, as SCAN TYPE), up to ?count= keys (1 to
// [MaxPageSize], default the page size), each with its type, its TTL ("none" for
// no expiry), its size (STRLEN, LLEN, ZCARD, HLEN or SCARD) and its OBJECT
// ENCODING; each key links to its key page, and the page to the next one by its
// cursor. It is SCAN: keys come in no particular order, a key that exists for the
// whole scan is listed exactly once, keys created or deleted meanwhile may or may
// not be; there is no previous page, only the first. Each SCAN step asks for the
// keys the page still lacks, and visits as many (a step visits keys that the
// pattern or type then leave out), so a page takes up to 8 steps to fill and may
// still hold fewer keys, even none, and have a next page. The whole page is read in
// one [zlite.DB.View] (the keyspace's reads, which the command counters do not
// count, so browsing does not change the figures shown): it costs O(8·count) keys
// visited plus SCAN's O(log n + shards) per step, and O(1) per key listed.
//
// The key page (?key=, the key's exact bytes; key= is the empty key) shows the
// key's figures and one page of its value, read in one [zlite.DB.ViewKeys] of the
// key's shard: a string's bytes from ?offset=, 4 KiB at most (GETRANGE); a list's
// elements from index ?offset= (LRANGE) and a sorted set's members from rank
// ?offset= with their scores (ZRANGE by rank, WITHSCORES), ?count= at most; a
// hash's fields and values (HSCAN) and a set's members (SSCAN), one step of
// ?count= from ?cursor=. The engine returns a packed hash or set (a listpack or an
// intset, at most the entries of [zlite.WithHashLimits] or [zlite.WithSetLimits])
// whole in one step, with cursor 0; the pages show it ?count= at a time, ?skip=
// saying how many of the step earlier pages showed. So no page holds more than
// ?count= elements (4 KiB of a string) whatever the key holds, and a request costs
// O(count) (for a list, plus O(log pages) to find the offset; for a packed hash or
// set, O(its entries)), plus the bytes of the elements the engine copies. A hash
// or set that changes between pages may have elements listed twice or not at all,
// as with HSCAN and SSCAN. A missing key is "no such key", 404.
//
// Keys and values are any bytes: every page shows them escaped, as valid UTF-8
// that cannot pass for something else: a byte that is not UTF-8 as \xNN, a control
// or invisible character (a NUL, an escape, a bidirectional override, a non-ASCII
// space) as \xNN, \uNNNN or \n, \r, \t, and a backslash as \\; then html/template
// escapes that. A page shows at most 1 KiB of a key, element, field or member,
// with its full length. Links carry a key's exact bytes, query-escaped.
//
// In JSON, the keys page is {"match", "type", "count", "cursor", "next_cursor"
// ("0" when the scan is complete), "more", "keys": [{"key", "type", "ttl_seconds"
// (null: no expiry), "size", "encoding"}]}; the key page is one such key object
// plus "count", "more", for a string "offset", "value" (at most 4 KiB; "count" is
// then 4096) and "next_offset" when more; for a list or sorted set "offset",
// "next_offset" when more and "elements": [{"index", "value"}] or [{"rank",
// "member", "score"}]; for a hash or set "cursor", "skip", "next_cursor" and
// "next_skip" when more, and "elements": [{"field", "value"}] or [{"member"}].
// Cursors are decimal strings: they use all 64 bits, more than a JSON number keeps
// exactly. A score is a number, or "inf" or "-inf". A byte string s (key, value,
// field, member) is a JSON string, which cannot hold bytes that are not UTF-8
// (encoding/json replaces them with U+FFFD): then "s_base64" has its exact bytes.
// Elements, fields and members longer than 1 KiB are cut to 1 KiB, "s_length"
// giving their length; keys are always whole.
//
// # Charts and sampling
//
// Each chart has a y axis from zero to its largest value in its unit (items for
// depth, items/s for throughput, seconds for the p50 and p99 lateness of delayed
// jobs and scheduler moves), with tick labels, and an x axis from the oldest
// sample's age to now; its accessible name and caption give the figures in words.
// The charts show the last n samples of each queue (120 by default; memory O(n) per
// queue, see [WithHistory]), kept in a ring buffer. [Handler.Run] takes a sample
// every interval (1 s by default) until its context ends; [Handler.Sample] takes one
// on demand. Throughput is the difference of the dequeued counter between two
// samples over their interval, so it needs a queue that reports [Activity]; the
// counters are those of the queue value the adapter wraps (this process's), so
// give it the value your consumers use.
//
// # Live updates
//
// The index, queue, item and dead-letter pages name their event stream; the
// script opens it with EventSource and, at each event, re-reads the page and swaps
// in its live regions (the figures, charts and tables), leaving a region alone
// while it holds the keyboard focus or a ticked checkbox. A stream sends the page's
// JSON once at once and then once per sample ([Handler.Sample], which [Handler.Run]
// calls every interval), as "event: sample" with one "data:" line. It runs in the
// request's goroutine, starts none, and ends when the request's context ends (the
// client goes away, or the server's BaseContext is cancelled) or after 10 minutes,
// when the browser reconnects by itself. So each open stream costs one Stats (and,
// for a queue page, one Items of its page) per sample, and no memory between
// samples; without Run or Sample it sends one event and then waits. An http.Server
// whose Shutdown should not wait for open streams needs a BaseContext that ends
// with the server.
//
// # Security model
//
// The inspector is read-only by default: without [WithActions] every action request
// is refused with 403 and the pages have no action forms and no checkboxes (the
// search forms are GET forms). The key browser only reads. With actions enabled, they are
// POST forms protected against cross-site request forgery by
// [http.CrossOriginProtection] (Sec-Fetch-Site and Origin checks, in every browser
// since 2023): a cross-origin browser request is refused with 403, so another site
// cannot make a logged-in operator's browser act. Requests without those headers
// (curl, scripts) are allowed, as they cannot come from a victim's browser. GET
// never changes anything. The same check guards every POST: single actions, bulk
// actions, retry-all, pause and resume. Behind a proxy that serves the page under another origin,
// name that origin with [WithTrustedOrigins].
//
// The inspector does no authentication itself: give it the embedding app's
// middleware with [WithAuth], which wraps every route (pages, JSON, event streams,
// the style sheet and script, actions; with the cross-origin check inside it), or
// mount it behind whatever guards your admin pages (a loopback address, a VPN).
// Everything shown is escaped by html/template, and keys, values and payloads are
// shown escaped (see Key browser); responses carry a strict
// Content-Security-Policy (script-src and connect-src 'self': the one embedded
// script and its own event streams, no inline script or handler, no framing),
// nosniff and no-store. Action bodies are limited to 64 KiB, pages to [MaxPageSize]
// items and a string's page to 4 KiB, so a request cannot make the handler
// allocate by a size it chooses; a query parameter out of its range (a count, an
// offset, a cursor that is not a 64-bit unsigned integer, an unknown type, a
// pattern over 1 KiB) is refused with 400, never clamped.
//
// # Concurrency
//
// A [Handler] is safe for concurrent use by any number of requests and one or more
// Run loops; it holds one mutex, only around its sample history and the channel
// that wakes the event streams, never while it calls a queue. It starts no
// goroutine of its own. A sample wakes every stream by closing one shared channel:
// O(1) under the lock whatever the number of streams. Each page calls the queues'
// Stats (and Items) once per request, so its figures are as fresh as the request;
// figures from separate calls (depth per level, say) need not be one atomic snapshot.
// A keys page or key page is one read-only transaction: one consistent state of
// the keyspace (of the key's shard), holding its locks for O(page size).
package inspector
