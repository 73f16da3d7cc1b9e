package system_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"termin/shared/poll"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// pageTimeout bounds each browser step; the machine may be loaded.
const pageTimeout = 30 * time.Second

// chromium finds the browser the page tests drive: CHROMIUM, else Debian's
// chromium or another Chromium or Chrome on PATH, else macOS's Google
// Chrome.app or Chromium.app in /Applications or
// ~/Applications. Without one the tests fail saying what to install.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	home, _ := os.UserHomeDir()
	for _, name := range browserCandidates(home) {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("the browser tests need Chromium: install it (make prereqs does; Debian: apt-get install chromium; macOS: brew install --cask google-chrome) or set CHROMIUM to its path")
	return ""
}

// browserCandidates are the names and paths chromium tries, in order
// (scripts/prereqs.sh looks in the same places).
func browserCandidates(home string) []string {
	names := []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}
	for _, dir := range []string{"/Applications", filepath.Join(home, "Applications")} {
		names = append(names, filepath.Join(dir, "Google Chrome.app/Contents/MacOS/Google Chrome"),
			filepath.Join(dir, "Chromium.app/Contents/MacOS/Chromium"))
	}
	return names
}

// newBrowser starts a headless Chromium on a fresh profile, stopped when
// the test ends; every tab opened from it shares its cookies and storage.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	dir, err := os.MkdirTemp("", "termin-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(dir),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
	}
	alloc, stopAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	browser, stopBrowser := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		stopBrowser()
		stopAlloc()
		_ = os.RemoveAll(dir)
	})
	if err := chromedp.Do(browser); err != nil {
		t.Fatalf("start %s: %v", chromium(t), err)
	}
	return browser
}

// tab is one browser tab of a test, the size of a phone.
type tab struct {
	t   *testing.T
	ctx context.Context
}

func openTab(t *testing.T, browser context.Context, url string) *tab {
	t.Helper()
	return openTabIn(t, browser, url, "de-DE,de;q=0.9")
}

// openTabIn opens a tab whose requests carry acceptLanguage, as a browser
// set to those languages sends: the patient's first visit is in the first
// of them the page has (openTab's tabs speak German, whatever the machine's
// browser would send).
func openTabIn(t *testing.T, browser context.Context, url, acceptLanguage string) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	// The first call opens the tab for the life of its context: no timeout.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	p := &tab{t: t, ctx: ctx}
	p.run("open "+url, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(1), chromedp.EmulateMobile),
		awayFromBerlin, speaking(acceptLanguage), chromedp.Navigate(url))
	return p
}

// awayFromBerlin puts the browser in New York, so that a time the page shows
// in Berlin's zone is one it converted, not the device's.
var awayFromBerlin = chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
	_, err := cdp.Call(ctx, t, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "America/New_York"})
	return err
})

// speaking sends Accept-Language with every request of the tab.
func speaking(acceptLanguage string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, network.SetExtraHTTPHeaders,
			network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": acceptLanguage}})
		return err
	})
}

// run does browser steps, failing the test with what was on the page.
func (p *tab) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, pageTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("%s: %v\npage shows:\n%s", what, err, p.visibleText())
	}
}

func (p *tab) visibleText() string {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ''`))
	return s
}

func (p *tab) click(sel string) {
	p.t.Helper()
	p.run("click "+sel, chromedp.WaitVisible(chromedp.CSS(sel)), chromedp.Click(chromedp.CSS(sel)))
}

func (p *tab) text(sel string) string {
	p.t.Helper()
	p.run("read "+sel, chromedp.WaitVisible(chromedp.CSS(sel)))
	return strings.TrimSpace(result(p, "read "+sel, chromedp.Text(chromedp.CSS(sel))))
}

// result runs one action that returns a value.
func result[T any](p *tab, what string, a chromedp.Action[T]) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, pageTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		p.t.Fatalf("%s: %v\npage shows:\n%s", what, err, p.visibleText())
	}
	return v
}

// eval evaluates a JavaScript expression.
func eval[T any](p *tab, js string) T {
	p.t.Helper()
	return result(p, "evaluate "+js, chromedp.Evaluate[T](js))
}

// waitFor polls a JavaScript condition until it holds.
func (p *tab) waitFor(what, cond string) {
	p.t.Helper()
	p.waitWithin(pageTimeout, what, cond)
}

// waitWithin polls a JavaScript condition until it holds, failing the test
// when limit passes first; it returns how long the wait took.
func (p *tab) waitWithin(limit time.Duration, what, cond string) time.Duration {
	p.t.Helper()
	began := time.Now()
	err := poll.Until(limit, 100*time.Millisecond, func() error {
		if !eval[bool](p, "!!("+cond+")") {
			return errors.New("the condition does not hold")
		}
		return nil
	})
	if err != nil {
		p.t.Fatalf("waited %v for %s (%s)\npage shows:\n%s", limit, what, cond, p.visibleText())
	}
	return time.Since(began)
}

// pendingKey is the Idempotency-Key of the booking the page is following,
// "" when none.
func (p *tab) pendingKey() string {
	p.t.Helper()
	return eval[string](p, `(JSON.parse(sessionStorage.getItem('termin.pending') || '{}').key || '')`)
}

// spyOnRequests records the page's POST requests to the API (not the
// sign-in provider's) from now until the next reload: their addresses,
// Idempotency-Keys and bodies.
func (p *tab) spyOnRequests() {
	p.t.Helper()
	eval[bool](p, `(() => {
	  window.__sent = [];
	  const real = window.fetch;
	  window.fetch = function (url, opts) {
	    if (opts && opts.method === 'POST' && String(url).indexOf('/api/') === 0) {
	      window.__sent.push({url: String(url), key: opts.headers['Idempotency-Key'], body: opts.body || ''});
	    }
	    return real.apply(this, arguments);
	  };
	  return true;
	})()`)
}

// sentRequest is one POST the page sent since spyOnRequests.
type sentRequest struct {
	URL  string `json:"url"`
	Key  string `json:"key"`
	Body string `json:"body"`
}

// requests are the POSTs the page sent since spyOnRequests, in order.
func (p *tab) requests() []sentRequest {
	p.t.Helper()
	return eval[[]sentRequest](p, `window.__sent || []`)
}

// sent is how many booking requests the page sent since spyOnRequests, and
// with which keys.
func (p *tab) sent() (posts int, keys []string) {
	p.t.Helper()
	seen := map[string]bool{}
	for _, r := range p.requests() {
		posts++
		if !seen[r.Key] {
			seen[r.Key] = true
			keys = append(keys, r.Key)
		}
	}
	return posts, keys
}

// screenshot saves the viewport as NAME.png into WEB_SCREENSHOTS, when set:
// how the pictures of docs/features.md are made.
func (p *tab) screenshot(name string) {
	p.t.Helper()
	dir := os.Getenv("WEB_SCREENSHOTS")
	if dir == "" {
		return
	}
	png := result(p, "screenshot", chromedp.CaptureScreenshot())
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		p.t.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "screenshot: %s\n", filepath.Join(dir, name+".png"))
}

// typeInto types text into a field with key events, as a person would.
func (p *tab) typeInto(sel, text string) {
	p.t.Helper()
	p.run("type into "+sel, chromedp.WaitVisible(chromedp.CSS(sel)), chromedp.SendKeys(chromedp.CSS(sel), text))
}

// waitText waits until the element shows want.
func (p *tab) waitText(sel, want string) {
	p.t.Helper()
	p.waitFor(fmt.Sprintf("%s to show %q", sel, want),
		fmt.Sprintf(`(document.querySelector(%q) || {}).textContent === %q`, sel, want))
}

// tabTo presses Tab until the element has the focus, as a keyboard user
// moves through the page.
func (p *tab) tabTo(sel string) {
	p.t.Helper()
	for range 60 {
		if eval[bool](p, fmt.Sprintf(`!!document.activeElement && document.activeElement.matches(%q)`, sel)) {
			return
		}
		p.run("press Tab", chromedp.KeyEvent(kb.Tab))
	}
	p.t.Fatalf("60 presses of Tab did not reach %s\npage shows:\n%s", sel, p.visibleText())
}

// signedInTab opens a page of the gateway at base (the patient page "/" or
// the practice page "/praxis") signed in with a service token, as a person
// who pasted it into the page's field would be: the page keeps a pasted
// token in the tab's storage. A gateway without a sign-in provider takes
// such tokens; no token travels in an address.
func signedInTab(t *testing.T, browser context.Context, base, page, tok string) *tab {
	t.Helper()
	key := map[string]string{"/": "termin.token", "/praxis": "termin.praxis.token"}[page]
	if key == "" {
		t.Fatalf("no page %q", page)
	}
	p := openTab(t, browser, base+page)
	eval[bool](p, fmt.Sprintf(`(sessionStorage.setItem(%q, %q), true)`, key, tok))
	p.run("reload "+page, chromedp.Reload())
	return p
}
