package inspector

import (
	"net/http"
	"time"

	"github.com/zlite/zlite"
)

// Option configures a [Handler]; pass options to [New].
type Option func(*config)

type config struct {
	actions  bool
	pageSize int64
	samples  int
	every    time.Duration
	now      func() time.Time
	title    string
	trusted  []string
	keyspace func() zlite.Stats
	db       *zlite.DB // the key browser's, nil without WithKeyspace
	auth     func(http.Handler) http.Handler
}

func defaults() config {
	return config{pageSize: 50, samples: 120, every: time.Second, now: time.Now, title: "zlite queues"}
}

// WithActions enables the actions (cancel an item, requeue an expired lease, move a
// dead item back or delete it, retry every dead item, pause and resume a queue,
// each of these but the last three on selected items too). Without it the inspector is read-only: every action request is
// refused with 403 Forbidden and the pages show no action buttons.
func WithActions() Option { return func(c *config) { c.actions = true } }

// WithPageSize sets how many items a queue page shows by default (50); n ≤ 0 keeps
// the default. A request may ask for up to [MaxPageSize] with ?count=.
func WithPageSize(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.pageSize = int64(min(n, MaxPageSize))
		}
	}
}

// WithHistory sets how many samples of each queue the charts keep (120) and how
// often [Handler.Run] takes one (every second): the charts span samples×every.
// Values ≤ 0 keep the defaults. The memory is O(samples) per queue.
func WithHistory(samples int, every time.Duration) Option {
	return func(c *config) {
		if samples > 0 {
			c.samples = samples
		}
		if every > 0 {
			c.every = every
		}
	}
}

// WithClock sets the clock used for wait times, due times and samples
// (time.Now by default); tests use it to make the pages deterministic.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}

// WithTitle sets the title of the pages ("zlite queues").
func WithTitle(title string) Option { return func(c *config) { c.title = title } }

// WithTrustedOrigins lets browsers on these origins ("https://admin.example.com")
// post actions although they are cross-origin, for an inspector behind a proxy
// that serves it under another origin; see [http.CrossOriginProtection.AddTrustedOrigin].
// [New] panics on a malformed origin.
func WithTrustedOrigins(origins ...string) Option {
	return func(c *config) { c.trusted = append(c.trusted, origins...) }
}

// WithKeyspace adds a panel on the index with the figures of db, the keyspace the
// queues live in (its [zlite.DB.Stats]: keys by type with their elements, bytes and
// encodings, blocked callers, and the commands run with their latency when
// [zlite.WithLatencyTracking] is on; the keyspace does not count the commands
// inside a batch, which is how the queues' atomic steps run), and a "keyspace"
// member to /api/queues. Each
// index request calls db.Stats once, which visits every key under the keyspace's
// lock: O(keys).
//
// It also enables the key browser: the keys page, a SCAN of db's keys with their
// type, TTL, size and encoding, and the key page, one page of a key's value; each
// request costs O(page size), whatever the keyspace and the key hold (see the
// package doc, section Key browser).
func WithKeyspace(db *zlite.DB) Option {
	return func(c *config) { c.keyspace, c.db = db.Stats, db }
}

// WithAuth wraps every route of the inspector, pages, JSON, event streams, the
// style sheet and script, and actions, in mw, the embedding app's authentication
// middleware: mw sees each request first (after the security headers are set) and
// either refuses it (writing, say, 401 or a redirect to a login page) or calls the
// handler it was given. Cross-origin protection of the actions runs inside mw, so
// it applies to authenticated requests too. A nil mw is ignored; several WithAuth
// nest, the first given outermost.
func WithAuth(mw func(http.Handler) http.Handler) Option {
	return func(c *config) {
		if mw == nil {
			return
		}
		if prev := c.auth; prev != nil {
			c.auth = func(h http.Handler) http.Handler { return prev(mw(h)) }
			return
		}
		c.auth = mw
	}
}
