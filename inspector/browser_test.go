package inspector_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/zlite/zlite"
	"github.com/zlite/zlite/inspector"
	"github.com/zlite/zlite/queues"
	"github.com/zlite/zlite/queues/embedded"
)

// update rewrites the layout goldens in testdata/ instead of comparing with them:
//
//	go test ./inspector -run TestBrowserConsole -update
var update = flag.Bool("update", false, "rewrite the layout goldens in testdata/")

// chromium returns the browser to drive: $ZLITE_CHROMIUM, or chromium from PATH.
// Without one the test is skipped, except under CI (CI set), which installs it, or
// with ZLITE_REQUIRE_BROWSER=1.
func chromium(t *testing.T) string {
	if p := os.Getenv("ZLITE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" || os.Getenv("ZLITE_REQUIRE_BROWSER") == "1" {
		t.Fatal("no chromium on PATH, and CI or ZLITE_REQUIRE_BROWSER=1 requires one: .ci/run installs Debian's chromium package")
	}
	t.Skip("no chromium on PATH (Debian: apt-get install chromium; or set ZLITE_CHROMIUM): the browser test needs one")
	return ""
}

// artifacts returns the directory for screenshots: $ZLITE_ARTIFACTS/<test> when set
// (CI keeps it), or else a temporary directory that is removed when the test passes
// and kept, with its path logged, when it fails.
func artifacts(t *testing.T) string {
	if root := os.Getenv("ZLITE_ARTIFACTS"); root != "" {
		dir := filepath.Join(root, t.Name())
		require.NoError(t, os.MkdirAll(dir, 0o755))
		t.Logf("screenshots in %s", dir)
		return dir
	}
	dir, err := os.MkdirTemp("", "zlite-inspector-")
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("screenshots kept in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	return dir
}

// startBrowser starts headless Chromium: bctx is the browser's context, sctx
// bctx with a timeout for the test's steps; stop ends both and the browser.
func startBrowser(t *testing.T, exe string) (bctx, sctx context.Context, stop func()) {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	// The first Do starts the browser, which lives as long as bctx: no timeout on
	// it; the steps run with one.
	if err := chromedp.Do(bctx); err != nil {
		cancelBrowser()
		cancelAlloc()
		t.Fatalf("starting %s: %v", exe, err)
	}
	sctx, cancelSteps := context.WithTimeout(bctx, 60*time.Second)
	return bctx, sctx, func() { cancelSteps(); cancelBrowser(); cancelAlloc() }
}

// TestBrowser drives the pages in headless Chromium: the figures shown must be the
// API's, keyboard navigation starts at the skip link, and an action's button changes
// the queue.
func TestBrowser(t *testing.T) {
	exe := chromium(t)
	dir := artifacts(t)
	ctx := t.Context()

	// Real queues on one frozen clock, shared with the handler, so that the
	// figures, waits and lease states shown are exact.
	clock := &fixedClock{time.Now().Truncate(time.Second)}
	now := clock.t
	b := embedded.New(zlite.New())
	calls := queues.NewCallQueue(b, "support", queues.WithClock(clock.Now))
	for i, id := range []string{"ann", "bob", "cy", "dee"} {
		require.NoError(t, calls.Enqueue(ctx, id, float64(i%2)))
	}
	fifo := queues.NewFIFO(b, "emails")
	require.NoError(t, fifo.Push(ctx, "a", "b", "c"))
	pay := queues.NewReliable(b, "payments", queues.WithLease(time.Minute), queues.WithClock(clock.Now), queues.WithMaxDeliveries(2))
	_, err := pay.Push(ctx, "charge 0")
	require.NoError(t, err)
	var dead queues.Delivery
	for range 2 { // both its deliveries fail: dead
		dead, _, err = pay.Pop(ctx, time.Second)
		require.NoError(t, err)
		_, err = pay.Nack(ctx, dead)
		require.NoError(t, err)
	}
	for _, v := range []string{"charge 1", "charge 2", "charge 3"} {
		_, err := pay.Push(ctx, v)
		require.NoError(t, err)
	}
	expired, _, err := pay.Pop(ctx, time.Second) // "charge 1", leased until now-1m
	require.NoError(t, err)
	clock.t = now.Add(2 * time.Minute)
	_, _, err = pay.Pop(ctx, time.Second) // "charge 2", leased until now+3m
	require.NoError(t, err)
	clock.t = now.Add(-time.Minute) // a due time in the past would mean now
	later := queues.NewDelayed(b, "reminders", queues.WithClock(clock.Now))
	require.NoError(t, errOnly(later.Schedule(ctx, "was due", now.Add(-1500*time.Millisecond))))
	clock.t = now
	_, _, err = later.TryPop(ctx) // 1.5 s late
	require.NoError(t, err)
	due := now.Add(10 * time.Minute)
	require.NoError(t, errOnly(later.Schedule(ctx, "remind", due)))
	// The reliable queue's leases read the clock as it is at the end of the setup.
	clock.t = now.Add(2 * time.Minute)
	qs := []inspector.Queue{inspector.CallQueue("support", calls), inspector.FIFO("emails", fifo),
		inspector.Reliable("payments", pay, clock.Now), inspector.Delayed("reminders", later)}
	h := inspector.New(qs, inspector.WithActions(), inspector.WithClock(clock.Now))
	for range 3 {
		require.NoError(t, h.Sample(ctx))
	}
	srv, _ := serve(t, h)

	bctx, sctx, stop := startBrowser(t, exe)
	defer stop()

	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			png, err := chromedp.FullScreenshot(100)(ctx, tg)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
		})
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(sctx, chromedp.Text(chromedp.CSS(sel), chromedp.NodeVisible))
		require.NoError(t, err, "text of %s", sel)
		return strings.TrimSpace(s)
	}
	eval := func(js string) []string {
		t.Helper()
		v, err := chromedp.Run(sctx, chromedp.Evaluate[[]string](js))
		require.NoError(t, err, js)
		return v
	}
	// On failure, a picture of the page as it was (defers run before the browser's).
	defer func() {
		if t.Failed() {
			if err := chromedp.Do(bctx, shot("failure")); err != nil {
				t.Logf("no failure screenshot: %v", err)
			}
		}
	}()
	// The page behaves as focused although no window is, so that key presses
	// reach it whatever the headless browser's idea of focus.
	_, err = chromedp.Call(sctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
	require.NoError(t, err)
	const rowIDs = `[...document.querySelectorAll('tr[data-id]')].map(e => e.dataset.id)`

	// The index: each queue's figures as the API reports them.
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Navigate(srv.URL+"/admin/"),
		chromedp.WaitVisible(chromedp.CSS(`table.queues`)),
		shot("index"),
	))
	for _, c := range []struct {
		q     inspector.Queue
		field string
		pick  func(inspector.Stats) int64
	}{
		{qs[0], "depth", func(s inspector.Stats) int64 { return s.Depth }},
		{qs[0], "blocked", func(s inspector.Stats) int64 { return s.Activity.Blocked }},
		{qs[1], "depth", func(s inspector.Stats) int64 { return s.Depth }},
		{qs[2], "depth", func(s inspector.Stats) int64 { return s.Depth }},
		{qs[2], "in_flight", func(s inspector.Stats) int64 { return s.InFlight }},
		{qs[3], "depth", func(s inspector.Stats) int64 { return s.Depth }},
	} {
		st, err := c.q.Stats(ctx)
		require.NoError(t, err)
		shown := text(`tr[data-queue="` + c.q.Name() + `"] td[data-field="` + c.field + `"]`)
		assert.Equal(t, c.pick(st), mustInt(t, shown), "index %s of %s", c.field, c.q.Name())
	}
	assert.Equal(t, "1.5s / 1.5s / 1.5s (1 delivered)", text(`tr[data-queue="reminders"] td[data-field="lateness"]`))
	assert.Equal(t, "2m0s", text(`tr[data-queue="support"] td[data-field="oldest"]`), "ann waited from setup to the frozen clock")
	require.NoError(t, chromedp.Do(sctx, chromedp.KeyEvent("\t"), shot("index-skip-link")))
	active, err := chromedp.Run(sctx, chromedp.Evaluate[string](`document.activeElement.textContent`))
	require.NoError(t, err)
	assert.Equal(t, "Skip to content", active, "the first Tab focuses the skip link")

	// The call queue's page, reached by its link: items in the API's serving order.
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Click(chromedp.CSS(`a[href="queues/support"]`)),
		chromedp.WaitVisible(chromedp.CSS(`table.items`)),
		shot("support"),
	))
	want, err := qs[0].Items(ctx, 0, 50)
	require.NoError(t, err)
	var wantIDs []string
	for _, it := range want {
		wantIDs = append(wantIDs, it.ID)
	}
	assert.Equal(t, wantIDs, eval(rowIDs))
	assert.Equal(t, []string{"bob", "dee", "ann", "cy"}, wantIDs, "priority 1 before 0, then arrival")

	// Cancel "dee" with its button: the flash says so and the queue no longer has it.
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Click(chromedp.CSS(`button[aria-label="Cancel dee"]`)),
		chromedp.WaitVisible(chromedp.CSS(`p.flash`)),
		shot("support-after-cancel"),
	))
	assert.Equal(t, `Cancelled "dee".`, text(`p.flash`))
	assert.Equal(t, "3", text(`dd[data-field="depth"]`))
	assert.Equal(t, []string{"bob", "ann", "cy"}, eval(rowIDs))
	n, err := calls.Len(ctx)
	require.NoError(t, err)
	assert.EqualValues(t, 3, n)

	// The reliable queue: the waiting element, then the leases, the expired one
	// first; requeue it with its button and it is the next one served.
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Navigate(srv.URL+"/admin/queues/payments"),
		chromedp.WaitVisible(chromedp.CSS(`table.items`)),
		shot("payments"),
	))
	states := `[...document.querySelectorAll('tr[data-id]')].map(e => e.querySelector('.value').textContent + ": " + e.querySelector('.state').textContent)`
	assert.Equal(t, []string{"charge 3: waiting", "charge 1: expired", "charge 2: leased", "charge 0: dead"}, eval(states))
	assert.Equal(t, "1", text(`dd[data-field="dead"]`))
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Click(chromedp.CSS(`button[aria-label="Requeue `+expired.ID+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`p.flash`)),
		shot("payments-after-requeue"),
	))
	assert.Equal(t, []string{"charge 1: waiting", "charge 3: waiting", "charge 2: leased", "charge 0: dead"}, eval(states))
	assert.Equal(t, "2", text(`dd[data-field="requeued"]`), "charge 0's first Nack, and this")
	ready, processing, err := pay.Len(ctx)
	require.NoError(t, err)
	assert.Equal(t, [2]int64{2, 1}, [2]int64{ready, processing})

	// Move the dead element back with its button: it is the next one served. (The
	// page is loaded afresh first, so that the flash waited for is the new one.)
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Navigate(srv.URL+"/admin/queues/payments"),
		chromedp.WaitVisible(chromedp.CSS(`table.items`)),
		chromedp.Click(chromedp.CSS(`button[aria-label="Move back `+dead.ID+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`p.flash`)),
		shot("payments-after-move-back"),
	))
	assert.Equal(t, `Moved "`+dead.ID+`" back to the queue.`, text(`p.flash`))
	assert.Equal(t, []string{"charge 0: waiting", "charge 1: waiting", "charge 3: waiting", "charge 2: leased"}, eval(states))
	st, err := pay.Stats(ctx)
	require.NoError(t, err)
	assert.Equal(t, [3]int64{3, 1, 0}, [3]int64{st.Depth, st.InFlight, st.Dead})

	// A FIFO's waiting element has its cancel button too.
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Navigate(srv.URL+"/admin/queues/emails"),
		chromedp.WaitVisible(chromedp.CSS(`table.items`)),
		chromedp.Click(chromedp.CSS(`button[aria-label="Cancel b"]`)),
		chromedp.WaitVisible(chromedp.CSS(`p.flash`)),
		shot("emails-after-cancel"),
	))
	assert.Equal(t, []string{"a", "c"}, eval(rowIDs))
	emails, err := fifo.Items(ctx, 0, 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "c"}, emails)

	// The delayed queue's page shows its due time and lateness.
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Navigate(srv.URL+"/admin/queues/reminders"),
		chromedp.WaitVisible(chromedp.CSS(`table.items`)),
		shot("reminders"),
	))
	assert.Equal(t, due.UTC().Format("15:04:05.000"), text(`table.items time`))
	assert.Equal(t, "scheduled", text(`table.items td.state`))
	assert.Equal(t, "1.5s / 1.5s / 1.5s (1 delivered)", text(`dd[data-field="lateness"]`))
}

// TestBrowserKeys drives the key browser in headless Chromium: from the index's
// keyspace panel to the keys of a type, to a key's page and its next page; a
// hostile key is shown as text.
func TestBrowserKeys(t *testing.T) {
	exe := chromium(t)
	dir := artifacts(t)
	ctx := t.Context()
	db := zlite.New()
	_, err := db.RPush(ctx, "jobs:list", series("item-", 120)...)
	require.NoError(t, err)
	require.NoError(t, db.Set(ctx, "greeting", "hello", 0))
	require.NoError(t, db.Set(ctx, scriptKey, "<b>bold?</b>", 0))
	_, err = db.HSet(ctx, "user:1", "name", "ann")
	require.NoError(t, err)
	srv, _ := serve(t, inspector.New(nil, inspector.WithKeyspace(db)))
	bctx, sctx, stop := startBrowser(t, exe)
	defer stop()
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			png, err := chromedp.FullScreenshot(100)(ctx, tg)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
		})
	}
	defer func() {
		if t.Failed() {
			if err := chromedp.Do(bctx, shot("failure")); err != nil {
				t.Logf("no failure screenshot: %v", err)
			}
		}
	}()
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(sctx, chromedp.Text(chromedp.CSS(sel), chromedp.NodeVisible))
		require.NoError(t, err, "text of %s", sel)
		return strings.TrimSpace(s)
	}
	eval := func(js string) []string {
		t.Helper()
		v, err := chromedp.Run(sctx, chromedp.Evaluate[[]string](js))
		require.NoError(t, err, js)
		return v
	}
	const keys = `[...document.querySelectorAll('tr[data-key]')].map(e => e.dataset.key)`
	const values = `[...document.querySelectorAll('table.elems td.value')].map(e => e.textContent)`

	// The index's list row leads to the lists, and the list's row to its page.
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Navigate(srv.URL+"/admin/"),
		chromedp.WaitVisible(chromedp.CSS(`section.keyspace`)),
		chromedp.Click(chromedp.CSS(`tr[data-type="list"] a`)),
		chromedp.WaitVisible(chromedp.CSS(`table.keys`)),
		shot("keys-list"),
	))
	assert.Equal(t, []string{"jobs:list"}, eval(keys))
	assert.Equal(t, "120 elements", text(`tr[data-key="jobs:list"] td[data-field="size"]`))
	assert.Equal(t, "none", text(`tr[data-key="jobs:list"] td[data-field="ttl"]`))
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Click(chromedp.CSS(`tr[data-key="jobs:list"] a`)),
		chromedp.WaitVisible(chromedp.CSS(`table.elems`)),
		shot("key-list"),
	))
	assert.Equal(t, "Key jobs:list", text(`h1`))
	assert.Equal(t, "quicklist", text(`dd[data-field="encoding"]`))
	assert.Equal(t, series("item-", 50), eval(values))
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Click(chromedp.CSS(`a[rel="next"]`)),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-index="50"]`)),
		shot("key-list-page-2"),
	))
	assert.Equal(t, series("item-", 100)[50:], eval(values))

	// Every key; the hostile one is text, and its link leads to it.
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Navigate(srv.URL+"/admin/keys"),
		chromedp.WaitVisible(chromedp.CSS(`table.keys`)),
		shot("keys"),
	))
	assert.ElementsMatch(t, []string{"jobs:list", "greeting", scriptKey, "user:1"}, eval(keys))
	n, err := chromedp.Run(sctx, chromedp.Evaluate[int](`document.querySelectorAll('main script, main b').length`))
	require.NoError(t, err)
	assert.Zero(t, n, "no markup from the keyspace")
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Click(chromedp.CSS(`tr[data-key="`+scriptKey+`"] a`)), // no quote or backslash to escape
		chromedp.WaitVisible(chromedp.CSS(`pre.value`)),
		shot("key-script"),
	))
	assert.Equal(t, "Key "+scriptKey, text(`h1`))
	assert.Equal(t, "<b>bold?</b>", text(`pre.value`))
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	var n int64
	for _, r := range strings.TrimSpace(s) {
		if r < '0' || r > '9' {
			break // the levels list follows the number
		}
		n = 10*n + int64(r-'0')
	}
	return n
}

// TestBrowserConsole drives the console features in headless Chromium: a live
// update without navigation, pause and resume, retrying a dead element, a bulk
// delete confirmed in the dialog, search by id and by filter, the item page; then
// the layout at 1280 and 375 px wide against the goldens in testdata/.
func TestBrowserConsole(t *testing.T) {
	exe := chromium(t)
	dir := artifacts(t)
	ctx := t.Context()

	clock := &fixedClock{time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)}
	b := embedded.New(zlite.New())
	pay := queues.NewReliable(b, "payments", queues.WithLease(time.Minute), queues.WithClock(clock.Now), queues.WithMaxDeliveries(1))
	var ids []string
	for _, v := range []string{"charge <a>", "charge b", "charge c", "charge d"} {
		id, err := pay.Push(ctx, v)
		require.NoError(t, err)
		ids = append(ids, id)
	}
	// Three deliveries fail for good: dead, each with its error.
	for i := range 3 {
		d, ok, err := pay.Pop(ctx, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		_, err = pay.Fail(ctx, d, fmt.Errorf("card declined (%d)", i))
		require.NoError(t, err)
	}
	fifo := queues.NewFIFO(b, "emails")
	require.NoError(t, fifo.Push(ctx, "hello", "world"))
	qs := []inspector.Queue{inspector.Reliable("payments", pay, clock.Now), inspector.FIFO("emails", fifo)}
	h := inspector.New(qs, inspector.WithActions(), inspector.WithClock(clock.Now))
	for range 3 {
		require.NoError(t, h.Sample(ctx))
	}
	srv, _ := serve(t, h)

	bctx, sctx, stop := startBrowser(t, exe)
	defer stop()
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			png, err := chromedp.FullScreenshot(100)(ctx, tg)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
		})
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(sctx, chromedp.Text(chromedp.CSS(sel), chromedp.NodeVisible))
		require.NoError(t, err, "text of %s", sel)
		return strings.TrimSpace(s)
	}
	defer func() {
		if t.Failed() {
			if err := chromedp.Do(bctx, shot("failure")); err != nil {
				t.Logf("no failure screenshot: %v", err)
			}
		}
	}()
	const rowIDs = `[...document.querySelectorAll('tr[data-id]')].map(e => e.dataset.id)`
	stats := func() queues.Stats {
		t.Helper()
		st, err := pay.Stats(ctx)
		require.NoError(t, err)
		return st
	}

	// Live: the page connects to its stream; an element pushed after it loaded
	// appears without navigation once a sample announces it.
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Navigate(srv.URL+"/admin/queues/payments"),
		chromedp.WaitVisible(chromedp.CSS(`[data-live-status]`)),
	))
	assert.Equal(t, []string{ids[3], ids[0], ids[1], ids[2]}, evalStrings(t, sctx, rowIDs))
	late, err := pay.Push(ctx, "charge e")
	require.NoError(t, err)
	require.NoError(t, h.Sample(ctx))
	require.NoError(t, chromedp.Do(sctx,
		chromedp.WaitVisible(chromedp.CSS(`tr[data-id="`+late+`"]`)),
		shot("live"),
	))
	assert.Equal(t, "2", text(`dd[data-field="depth"]`), "the figures are refreshed too")
	loc, err := chromedp.Run(sctx, chromedp.Location())
	require.NoError(t, err)
	assert.Equal(t, srv.URL+"/admin/queues/payments", loc, "no navigation")

	// Pause and resume with the buttons.
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Click(chromedp.CSS(`button[data-action="pause"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[data-action="resume"]`)),
		shot("paused"),
	))
	assert.Equal(t, "Paused the queue: consumers get nothing until it is resumed.", text(`p.flash`))
	assert.True(t, stats().Paused)
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Click(chromedp.CSS(`button[data-action="resume"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[data-action="pause"]`)),
	))
	assert.False(t, stats().Paused)

	// The dead letters: attempts and errors; retry one with its button.
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Click(chromedp.CSS(`a[data-link="dead"]`)),
		chromedp.WaitVisible(chromedp.CSS(`table.dead`)),
		shot("dead"),
	))
	assert.Equal(t, []string{ids[0], ids[1], ids[2]}, evalStrings(t, sctx, rowIDs))
	assert.Equal(t, "card declined (0)", text(`tr[data-id="`+ids[0]+`"] td[data-field="last_error"]`))
	assert.Equal(t, "1", text(`tr[data-id="`+ids[0]+`"] td[data-field="attempt"]`))
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Click(chromedp.CSS(`button[aria-label="Retry `+ids[0]+`"]`)),
		chromedp.WaitVisible(chromedp.CSS(`p.flash`)),
	))
	assert.Equal(t, `Moved "`+ids[0]+`" back to the queue.`, text(`p.flash`))
	assert.Equal(t, []string{ids[1], ids[2]}, evalStrings(t, sctx, rowIDs))
	assert.EqualValues(t, 2, stats().Dead)

	// Bulk delete of both, confirmed in the dialog.
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Click(chromedp.CSS(`input[aria-label="Select `+ids[1]+`"]`)),
		chromedp.Click(chromedp.CSS(`input[aria-label="Select `+ids[2]+`"]`)),
		chromedp.SetValue(chromedp.CSS(`#bulk select`), "delete"),
		chromedp.Click(chromedp.CSS(`button[data-bulk]`)),
		chromedp.WaitVisible(chromedp.CSS(`dialog[open] button[data-confirm]`)),
		shot("bulk-dialog"),
	))
	assert.Equal(t, "Delete for good: 2 selected items?", text(`dialog[open] [data-confirm-text]`))
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Click(chromedp.CSS(`dialog[open] button[data-confirm]`)),
		chromedp.WaitVisible(chromedp.CSS(`#dead-live > p`)), // only on the page after
	))
	assert.Equal(t, "Done for 2 selected items.", text(`p.flash`))
	assert.Equal(t, "No dead letters.", text(`#dead-live > p`))
	assert.Zero(t, stats().Dead)

	// Search: the filter keeps the matching items of the page; the id form opens
	// the item page, with the payload escaped.
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Navigate(srv.URL+"/admin/queues/payments"),
		chromedp.WaitVisible(chromedp.CSS(`table.items`)),
		chromedp.SendKeys(chromedp.CSS(`input[name="q"]`), "charge e"),
		chromedp.Submit(chromedp.CSS(`input[name="q"]`)),
		chromedp.WaitVisible(chromedp.CSS(`p[data-field="filter"]`)),
	))
	assert.Equal(t, []string{late}, evalStrings(t, sctx, rowIDs))
	require.NoError(t, chromedp.Do(sctx,
		chromedp.SendKeys(chromedp.CSS(`input[name="id"]`), ids[0]),
		chromedp.Submit(chromedp.CSS(`input[name="id"]`)),
		chromedp.WaitVisible(chromedp.CSS(`pre[data-field="payload"]`)),
		shot("item"),
	))
	assert.Equal(t, "charge <a>", text(`pre[data-field="payload"]`))
	assert.Equal(t, "waiting", text(`dd[data-field="state"]`))
	assert.Equal(t, "card declined (0)", text(`pre[data-field="last_error"]`))
	// Its cancel button removes it.
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Click(chromedp.CSS(`form[action="./cancel"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`p.flash`)),
	))
	assert.Equal(t, `Cancelled "`+ids[0]+`".`, text(`p.flash`))
	assert.EqualValues(t, 2, stats().Depth)

	// Layout at two widths: no horizontal scroll of the page, and the boxes of the
	// main elements as in the goldens.
	layout := map[string]map[string][]int{}
	for _, width := range []int64{1280, 375} {
		require.NoError(t, chromedp.Do(sctx, chromedp.EmulateViewport(width, 800)))
		for _, pg := range []struct{ name, path, ready string }{
			{"index", "", "table.queues"},
			{"queue", "queues/payments", "table.items"},
			{"dead", "queues/payments/dead", "h1"},
			{"item", "queues/payments/item?id=" + ids[3], "pre[data-field=payload]"},
		} {
			key := fmt.Sprintf("%s@%d", pg.name, width)
			require.NoError(t, chromedp.Do(sctx,
				chromedp.Navigate(srv.URL+"/admin/"+pg.path),
				chromedp.WaitVisible(chromedp.CSS(pg.ready)),
				shot(key),
			))
			overflow, err := chromedp.Run(sctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - document.documentElement.clientWidth`))
			require.NoError(t, err)
			assert.LessOrEqual(t, overflow, 0, "%s: the page scrolls sideways by %d px", key, overflow)
			boxes, err := chromedp.Run(sctx, chromedp.Evaluate[map[string][]int](layoutJS))
			require.NoError(t, err)
			layout[key] = boxes
		}
	}
	compareLayout(t, filepath.Join("testdata", "layout.golden.json"), layout)
}

// layoutJS measures the main elements of a page: their boxes [x, y, width,
// height] in CSS pixels, rounded to 4 px.
const layoutJS = `(() => {
	const out = {};
	for (const [name, sel] of Object.entries({header: "header", h1: "h1", main: "main",
			table: ".scroll", charts: ".charts", chart: ".chart svg", figures: "dl.figures",
			bulk: "#bulk", find: ".finds", payload: "pre[data-field=payload]"})) {
		const el = document.querySelector(sel);
		if (!el) continue;
		const r = el.getBoundingClientRect();
		out[name] = [r.x, r.y + window.scrollY, r.width, r.height].map(v => Math.round(v / 4) * 4);
	}
	return out;
})()`

// layoutTolerance is how far, in CSS pixels, a box may move or grow from its
// golden: fonts differ between machines, a broken layout moves boxes by more.
const layoutTolerance = 40

// compareLayout compares the measured boxes with the golden file, or rewrites it
// under -update.
func compareLayout(t *testing.T, path string, got map[string]map[string][]int) {
	t.Helper()
	if *update {
		b, err := json.MarshalIndent(got, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, append(b, '\n'), 0o644))
		t.Logf("wrote %s", path)
		return
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err, "no golden: run the test with -update")
	var want map[string]map[string][]int
	require.NoError(t, json.Unmarshal(b, &want))
	for page, boxes := range want {
		for name, w := range boxes {
			g, ok := got[page][name]
			if !assert.True(t, ok, "%s: no %s element", page, name) {
				continue
			}
			for i, what := range []string{"x", "y", "width", "height"} {
				if math.Abs(float64(g[i]-w[i])) > layoutTolerance {
					t.Errorf("%s: %s %s = %d; golden %d (±%d px; rewrite with -update if intended)", page, name, what, g[i], w[i], layoutTolerance)
				}
			}
		}
		for name := range got[page] {
			assert.Contains(t, boxes, name, "%s: a %s element not in the golden", page, name)
		}
	}
	for page := range got {
		assert.Contains(t, want, page, "page %s not in the golden", page)
	}
}

// evalStrings evaluates js, which must give an array of strings.
func evalStrings(t *testing.T, ctx context.Context, js string) []string {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](js))
	require.NoError(t, err, js)
	return v
}
