// Package inspector implements a web page for looking inside queues: an
// [http.Handler] that a single-binary app mounts at a path of its choice, with an
// index of the queues (depth, throughput, lateness, each with a small chart), a page
// per queue listing its items in serving order, JSON endpoints beside the HTML, and,
// when enabled, actions on items:
//
//	h := inspector.New([]inspector.Queue{inspector.FIFO("jobs", jobs)})
//	go h.Run(ctx) // samples the queues for the charts
//	mux.Handle("/queues/", http.StripPrefix("/queues", h))
//
// The pages are server-rendered [html/template]s embedded in the binary, with one
// embedded style sheet and charts drawn as inline SVG: no JavaScript, no CDN, and
// nothing fetched from elsewhere, so they work offline. They are keyboard-navigable
// (real links and buttons, visible focus, a skip link) and readable without colour:
// every state is a word, every chart has its figures in text.
//
// # Queues
//
// The inspector reads queues through the small [Queue] interface (name, kind, a
// [Stats] snapshot, a page of [Item]s in serving order) and acts on them through the
// optional [Canceler], [LeaseRequeuer] and [DeadMover]. The adapters ([FIFO],
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
// [queues.WithMaxDeliveries]). A [Queue] of your own offers them through the same
// interfaces. [WithKeyspace] adds the figures of the zlite keyspace itself
// ([zlite.DB.Stats]) to the index.
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
//
// {name} is the queue's name, path-escaped; {action} is cancel (a waiting or
// scheduled item), requeue (an item whose lease expired) or revive (a dead item
// back into the queue). count is 1 to [MaxPageSize] (default 50, see
// [WithPageSize]); a bad offset or count is 400. A queue that cannot list its items
// gives an empty list and "items_error" in JSON.
//
// JSON: a queue is {"name", "kind", "depth", "levels": [{"name", "depth"}], "due",
// "in_flight", "dead", "oldest_seconds" (null when the queue records no times),
// "activity": {"blocked", "enqueued", "dequeued", "acked", "requeued", "expired",
// "dead_lettered", "cancelled"} or null, "lateness": {"count", "p50_seconds", "p99_seconds",
// "max_seconds"} or null, "throughput_per_second" (or null), "history": [{"at",
// "depth", "throughput_per_second"?, "lateness_p99_seconds"?}]}, plus "error" when
// its Stats failed; /api/queues is {"actions": bool, "queues": [...], "keyspace"?:
// {"keys", "blocked", "commands", "types": {type: {"keys", "elements", "bytes",
// "encodings"?}}, "command": {name: {"calls", "latency_p50_seconds"?,
// "latency_p99_seconds"?}}}}; a queue's page adds "offset", "count", "more",
// "items": [{"id", "value", "position" (1 = served next), "state" (waiting,
// scheduled, leased, expired or dead), "level"?, "priority", "enqueued"?, "due"?,
// "lease_expiry"?}] and "items_error"?. Times are RFC 3339, durations seconds.
// Errors are {"error": text} with a 4xx or 5xx status.
//
// # Charts and sampling
//
// The charts show the last n samples of each queue (120 by default; memory O(n) per
// queue, see [WithHistory]), kept in a ring buffer. [Handler.Run] takes a sample
// every interval (1 s by default) until its context ends; [Handler.Sample] takes one
// on demand. Throughput is the difference of the dequeued counter between two
// samples over their interval, so it needs a queue that reports [Activity]; the
// counters are those of the queue value the adapter wraps (this process's), so
// give it the value your consumers use.
//
// # Security model
//
// The inspector is read-only by default: without [WithActions] every action request
// is refused with 403 and the pages have no forms. With actions enabled, they are
// POST forms protected against cross-site request forgery by
// [http.CrossOriginProtection] (Sec-Fetch-Site and Origin checks, in every browser
// since 2023): a cross-origin browser request is refused with 403, so another site
// cannot make a logged-in operator's browser act. Requests without those headers
// (curl, scripts) are allowed, as they cannot come from a victim's browser. GET
// never changes anything. Behind a proxy that serves the page under another origin,
// name that origin with [WithTrustedOrigins].
//
// The inspector does no authentication: mount it behind whatever guards your admin
// pages (a loopback address, a VPN, an auth middleware). Everything shown is escaped
// by html/template; responses carry a strict Content-Security-Policy (no scripts,
// no framing), nosniff and no-store. Action bodies are limited to 64 KiB and pages
// to [MaxPageSize] items, so a request cannot make the handler allocate by a size
// it chooses.
//
// # Concurrency
//
// A [Handler] is safe for concurrent use by any number of requests and one or more
// Run loops; it holds one mutex, only around its sample history, never while it
// calls a queue. It starts no goroutine of its own. Each page calls the queues'
// Stats (and Items) once per request, so its figures are as fresh as the request;
// figures from separate calls (depth per level, say) need not be one atomic snapshot.
package inspector
