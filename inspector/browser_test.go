package inspector_test

import (
	"context"
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
)

// chromium returns the browser to drive: $ZLITE_CHROMIUM, or chromium from PATH.
// Without one the test is skipped, except under CI (CI set), which installs it.
func chromium(t *testing.T) string {
	if p := os.Getenv("ZLITE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium on PATH under CI: .ci/run installs Debian's chromium package")
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

// TestBrowser drives the pages in headless Chromium: the figures shown must be the
// API's, keyboard navigation starts at the skip link, and an action's button changes
// the queue.
func TestBrowser(t *testing.T) {
	exe := chromium(t)
	dir := artifacts(t)
	ctx := t.Context()

	// Real queues for what the adapters can show and act on, and a fake reliable
	// queue for leases until package queues lists them.
	b := queues.NewEmbedded(zlite.New())
	calls := queues.NewCallQueue(b, "support")
	for i, id := range []string{"ann", "bob", "cy", "dee"} {
		require.NoError(t, calls.Enqueue(ctx, id, float64(i%2)))
	}
	fifo := queues.NewFIFO(b, "emails")
	require.NoError(t, fifo.Push(ctx, "a", "b", "c"))
	_, jobs, later, _ := fixtureAt(time.Now())
	qs := []inspector.Queue{inspector.CallQueue("support", calls, nil), inspector.FIFO("emails", fifo), jobs, later}
	h := inspector.New(qs, inspector.WithActions())
	for range 3 {
		require.NoError(t, h.Sample(ctx))
	}
	srv, _ := serve(t, h)

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
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	// The first Do starts the browser, which lives as long as bctx: no timeout on
	// it; the steps below run with one.
	require.NoError(t, chromedp.Do(bctx), "starting %s", exe)
	sctx, cancelSteps := context.WithTimeout(bctx, 60*time.Second)
	defer cancelSteps()

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
	_, err := chromedp.Call(sctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true})
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
		{qs[1], "depth", func(s inspector.Stats) int64 { return s.Depth }},
		{qs[2], "in_flight", func(s inspector.Stats) int64 { return s.InFlight }},
	} {
		st, err := c.q.Stats(ctx)
		require.NoError(t, err)
		shown := text(`tr[data-queue="` + c.q.Name() + `"] td[data-field="` + c.field + `"]`)
		assert.Equal(t, c.pick(st), mustInt(t, shown), "index %s of %s", c.field, c.q.Name())
	}
	assert.Equal(t, "2ms / 40ms / 1.5s (9 delivered)", text(`tr[data-queue="later"] td[data-field="lateness"]`))
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

	// The reliable queue: requeue the expired lease, then move the dead item back.
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Navigate(srv.URL+"/admin/queues/jobs"),
		chromedp.WaitVisible(chromedp.CSS(`table.items`)),
		shot("jobs"),
		chromedp.Click(chromedp.CSS(`button[aria-label="Requeue r3"]`)),
		chromedp.WaitVisible(chromedp.CSS(`p.flash`)),
		chromedp.Click(chromedp.CSS(`button[aria-label="Move back r4"]`)),
		chromedp.WaitVisible(`//p[@class="flash" and contains(., "r4")]`), // a Search: XPath
		shot("jobs-after-actions"),
	))
	assert.Equal(t, []string{"waiting", "leased", "waiting", "waiting"}, eval(`[...document.querySelectorAll('td.state')].map(e => e.textContent)`))

	// The delayed queue's page shows its due time.
	require.NoError(t, chromedp.Do(sctx,
		chromedp.Navigate(srv.URL+"/admin/queues/later"),
		chromedp.WaitVisible(chromedp.CSS(`table.items`)),
		shot("later"),
	))
	assert.Equal(t, later.it[0].Due.UTC().Format("15:04:05.000"), text(`tr[data-id="d1"] time`))
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
