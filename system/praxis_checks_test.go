package system_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chromedp/chromedp"
)

// viewport gives the tab a screen of w × h CSS pixels, not a phone's.
func (p *tab) viewport(w, h int64) {
	p.t.Helper()
	p.run(fmt.Sprintf("a %d×%d screen", w, h), chromedp.EmulateViewport(w, h, chromedp.EmulateScale(1)))
}

// showDay picks a day in the practice page's date field.
func (p *tab) showDay(date string) {
	p.t.Helper()
	eval[bool](p, fmt.Sprintf(`(() => { const e = document.getElementById('p-date'); e.value = %q; e.dispatchEvent(new Event('change')); return true; })()`, date))
}

// txJS is a JavaScript expression for the practice page's text key in the
// page's current language, its {placeholders} filled from vars.
func (p *tab) txJS(key string, vars map[string]any) string {
	p.t.Helper()
	v, err := json.Marshal(vars)
	if err != nil {
		p.t.Fatal(err)
	}
	return fmt.Sprintf(`((k, v) => { let s = window.TerminPraxisTexts[document.documentElement.lang][k];
	  Object.keys(v || {}).forEach(x => { s = s.split('{' + x + '}').join(String(v[x])); }); return s; })(%q, %s)`, key, v)
}

// tx is the text txJS names, as the page would show it now.
func (p *tab) tx(key string, vars map[string]any) string {
	p.t.Helper()
	return eval[string](p, p.txJS(key, vars))
}

// waitNotice waits until the page's notice says the text of key.
func (p *tab) waitNotice(key string, vars map[string]any) {
	p.t.Helper()
	p.waitFor("the notice "+key, `document.getElementById('notice').textContent === `+p.txJS(key, vars))
}

// waitBlockNotice waits until the notice tells of slots blocked and their
// cancelled appointments: all cancelled at once, or, when the queue took
// longer than the gateway's reply budget to decide them (a busy machine),
// none yet and all of them following shortly. Either is the page's right
// answer; what matters is that the cancellations happen.
func (p *tab) waitBlockNotice(slots, cancelled int) {
	p.t.Helper()
	notice := `document.getElementById('notice').textContent`
	now := p.txJS("blockedDone", map[string]any{"slots": slots, "cancelled": cancelled})
	later := p.txJS("blockedDone", map[string]any{"slots": slots, "cancelled": 0}) + ` + ' ' + ` + p.txJS("blockedLater", map[string]any{"n": cancelled})
	p.waitFor("the notice of the block", notice+` === `+now+` || `+notice+` === (`+later+`)`)
}

// untranslatedJS lists what the page shows in German although its language
// has a text of its own: visible text, accessible names and options that
// match a German text (placeholders matching anything) whose translation
// differs. Names of practices, doctors and patients are marked
// translate="no" and left out.
const untranslatedJS = `(() => {
  const T = window.TerminPraxisTexts, lang = document.documentElement.lang, de = T.de, cur = T[lang];
  const esc = s => s.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  const german = Object.keys(de).filter(k => de[k] !== cur[k])
    .map(k => new RegExp('^' + esc(de[k]).replace(/\{[a-z]+\}/gi, '.+') + '$'));
  const shown = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = walk.nextNode());) {
    const e = n.parentElement;
    if (e && !e.closest('[hidden], noscript, option, [translate=no]') && e.getClientRects().length) shown.push(n.textContent.trim());
  }
  document.querySelectorAll('[aria-label]').forEach(e => { if (!e.closest('[hidden]')) shown.push(e.getAttribute('aria-label')); });
  document.querySelectorAll('option:not([translate=no])').forEach(e => shown.push(e.textContent.trim()));
  shown.push(document.title);
  return shown.filter(s => s && german.some(r => r.test(s)));
})()`

// deskCheck holds a state of the practice page to axe-core's WCAG 2.1 A
// and AA rules and to its language: nothing German in English or Turkish.
func (p *tab) deskCheck(state string) {
	p.t.Helper()
	lang := eval[string](p, `document.documentElement.lang`)
	p.axeCheck(lang + ": " + state)
	if left := eval[[]string](p, untranslatedJS); len(left) > 0 {
		p.t.Errorf("%s: %s shows German texts: %q", lang, state, left)
	}
}

// noPageScroll fails the test when the page is wider than the screen: only
// the plan's own box may scroll sideways.
func (p *tab) noPageScroll(what string) {
	p.t.Helper()
	sizes := eval[[]int](p, `[document.documentElement.scrollWidth, window.innerWidth]`)
	if sizes[0] > sizes[1] {
		wide := eval[[]string](p, `Array.from(document.querySelectorAll('body *')).filter(e => e.getBoundingClientRect().right > innerWidth + 1 && !e.closest('.grid-wrap'))
		  .slice(0, 5).map(e => e.tagName + '#' + e.id + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))`)
		p.t.Errorf("%s: the page is %d px wide on a screen of %d px; too wide: %v", what, sizes[0], sizes[1], wide)
	}
}

// sideBySide fails the test unless the day's doctors are columns next to
// each other, on one row.
func (p *tab) sideBySide() {
	p.t.Helper()
	boxes := eval[[][]float64](p, `Array.from(document.querySelectorAll('#p-grid thead th[data-doctor]')).map(e => { const r = e.getBoundingClientRect(); return [r.left, r.top]; })`)
	if len(boxes) < 2 {
		p.t.Fatalf("%d doctor columns, want 2:\n%s", len(boxes), p.visibleText())
	}
	if boxes[0][1] != boxes[1][1] || boxes[1][0] <= boxes[0][0] {
		p.t.Errorf("the doctors' columns are not side by side: %v", boxes)
	}
	if strings.Contains(p.visibleText(), "Arzt-Nummer") {
		p.t.Errorf("the page still asks for a doctor's number")
	}
}
