package system_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// focused is the element that has the focus, as a keyboard user sees it.
type focused struct {
	What    string `json:"what"`
	Visible bool   `json:"visible"`
	Ring    bool   `json:"ring"`
}

// focusNow reads the focused element: whether it is shown within the
// viewport, and whether it draws a focus indicator (an outline or a
// shadow, as computed; none on the body, which nothing focused leaves).
const focusNow = `(() => {
  const e = document.activeElement;
  if (!e || e === document.body || e === document.documentElement) return {what: 'nothing (the body)', visible: false, ring: false};
  const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
  const visible = r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && !e.closest('[hidden]') &&
    r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth;
  const ring = (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) || cs.boxShadow !== 'none';
  const what = e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ' "' + (e.textContent || e.value || '').trim().slice(0, 40) + '"';
  return {what, visible, ring};
})()`

// press sends one key, with modifiers, and checks where the focus is then.
func (p *tab) press(key string, mods ...chromedp.Modifier) {
	p.t.Helper()
	p.run("press "+fmt.Sprintf("%q", key), chromedp.KeyEvent(key, chromedp.KeyModifiers(mods...)))
	p.focusShown()
}

// focusShown fails the test unless the focus is on a visible element
// that shows it has the focus.
func (p *tab) focusShown() {
	p.t.Helper()
	f := eval[focused](p, focusNow)
	if !f.Visible || !f.Ring {
		p.t.Fatalf("the focus is on %s: visible %v, with a focus indicator %v", f.What, f.Visible, f.Ring)
	}
}

// pressTo presses key (Tab, or Shift-Tab with the modifier) until the
// element sel has the focus, checking the focus at each step.
func (p *tab) pressTo(sel, key string, mods ...chromedp.Modifier) {
	p.t.Helper()
	for range 60 {
		if eval[bool](p, fmt.Sprintf(`document.activeElement.matches(%q)`, sel)) {
			return
		}
		p.press(key, mods...)
	}
	p.t.Fatalf("60 presses of %q did not reach %s\npage shows:\n%s", key, sel, p.visibleText())
}

// focusMovesTo waits until the page has put the focus on the element sel
// (the next step), and checks that it shows there.
func (p *tab) focusMovesTo(what, sel string) {
	p.t.Helper()
	p.waitFor("the focus on "+what, fmt.Sprintf(`document.activeElement.matches(%q)`, sel))
	p.focusShown()
}

// keysOnlyBooking books from the search to the outcome with the keyboard
// alone — Tab and Shift-Tab to move, the arrows in the specialty's list,
// letters into the town, Enter and Space to press — and checks after each
// key that the focus shows on a visible element, and after each step that
// the focus went on to the next one.
func keysOnlyBooking(t *testing.T, w *webStack, p *tab) {
	t.Helper()
	for _, sql := range []string{
		`INSERT INTO practice (id, name, street, postcode, city) VALUES (19, 'Praxis am Markt', 'Markt 1', '14467', 'Potsdam')`,
		`INSERT INTO doctor (id, name, specialty, practice_id) VALUES (70, 'Dr. Ida Klee', 'hno', 19)`,
	} {
		if _, err := w.db.Exec(t.Context(), sql); err != nil {
			t.Fatal(err)
		}
	}
	at := tomorrowAt(11, 30)
	slot := w.slot(70, at, 1)
	searchByKeys(t, p)
	bookByKeys(t, p, at, slot)
	if n := w.queryInt(`SELECT count(*) FROM appointment WHERE slot_id = $1 AND status = 'BOOKED'`, slot); n != 1 {
		t.Errorf("%d bookings of slot %d after the keys, want 1", n, slot)
	}
}

// searchByKeys chooses the specialty with the arrows, types the town and
// sends the search, which says what it found.
func searchByKeys(t *testing.T, p *tab) {
	t.Helper()
	p.waitFor("the specialties", `document.querySelector('#search-specialty option[value="hno"]')`)
	p.pressTo("#search-specialty", kb.Tab)
	for range 40 {
		if eval[bool](p, `document.getElementById('search-specialty').value === 'hno'`) {
			break
		}
		p.press(kb.ArrowDown)
	}
	if got := eval[string](p, `document.getElementById('search-specialty').value`); got != "hno" {
		t.Fatalf("the arrows chose specialty %q, want hno", got)
	}
	p.pressTo("#search-place", kb.Tab)
	p.run("type the town", chromedp.KeyEvent("Potsdam"))
	p.listen()
	p.press(kb.Enter)
	p.waitToHear("live-status", `^1 Treffer$`)
	p.waitFor("the town's doctor", `document.querySelector('[data-doctor="70"]') && document.querySelectorAll('[data-doctor]').length === 1`)
}

// bookByKeys chooses the doctor found, the day and the time, and books it
// from the confirm step, the focus following each step.
func bookByKeys(t *testing.T, p *tab, at time.Time, slot int64) {
	t.Helper()
	p.pressTo(`[data-doctor="70"]`, kb.Tab)
	p.press(" ")
	p.focusMovesTo("the day step", "#day-title")
	p.pressTo(fmt.Sprintf(`[data-date="%s"]`, at.In(berlin).Format(time.DateOnly)), kb.Tab)
	p.press(kb.Enter)
	p.focusMovesTo("the times", "#slot-title")
	p.waitFor("the day's times", fmt.Sprintf(`document.querySelector('[data-slot="%d"]')`, slot))
	p.pressTo(fmt.Sprintf(`[data-slot="%d"]`, slot), kb.Tab)
	p.screenshot("page-keyboard-focus")
	p.press(kb.Enter)
	p.focusMovesTo("the confirm step", "#confirm-title")
	p.pressTo("#confirm-back", kb.Tab)
	p.pressTo("#confirm-book", kb.Tab, chromedp.ModifierShift)
	p.press(kb.Enter)
	p.waitText("#result-title", "Ihr Termin ist gebucht")
	p.focusMovesTo("the outcome", "#result-title")
}
