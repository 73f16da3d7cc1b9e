package system_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// focused fails the test unless the focus is on sel and visibly so.
func (p *tab) focused(sel string) {
	p.t.Helper()
	p.waitFor("the focus on "+sel, fmt.Sprintf(`document.activeElement && document.activeElement.matches(%q)`, sel))
	if !eval[bool](p, `document.activeElement.matches(':focus-visible') && getComputedStyle(document.activeElement).outlineStyle !== 'none'`) {
		p.t.Errorf("the focus on %s is not visible", sel)
	}
}

// TestPracticeDeskKeyboard: with keys only, staff switch the language,
// move to a day, move through the day's plan with the arrow keys, block a
// time with Space, and book a free time for a caller with Enter; the focus
// is visible at every step and stays on the button just used.
func TestPracticeDeskKeyboard(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	s := d.s
	on := s.now().In(berlin).AddDate(0, 0, 2)
	day := time.Date(on.Year(), on.Month(), on.Day(), 10, 0, 0, 0, berlin)
	booked, free := s.slot(42, day, 1), s.slot(42, day.Add(time.Hour), 1)
	other := s.slot(43, day, 1)
	s.slot(43, day.Add(time.Hour), 1)
	expect(t, "a booking", s.patient(300).mustSend("POST", "/api/appointments", "keys-1", bookBody(booked, 300)), 201)

	p := d.staffTab(t)
	p.tabTo(`#p-langs button[data-lang=tr]`)
	p.press(kb.Enter)
	p.waitFor("Turkish", `document.documentElement.lang === 'tr'`)
	p.focused(`#p-langs button[data-lang=tr]`)
	p.press(kb.Tab, chromedp.ModifierShift)
	p.press(kb.Tab, chromedp.ModifierShift)
	p.focused(`#p-langs button[data-lang=de]`)
	p.press(" ")
	p.waitFor("German", `document.documentElement.lang === 'de' && localStorage.getItem('termin.lang') === 'de'`)

	p.tabTo("#p-next")
	p.press(kb.Enter)
	p.press(kb.Enter)
	p.waitFor("the day after tomorrow", fmt.Sprintf(`document.querySelector('#p-grid td[data-slot="%d"]')`, booked))
	p.tabTo(`#p-grid button[data-action=block-day][data-doctor="42"]`)
	p.focused(`#p-grid button[data-action=block-day][data-doctor="42"]`)
	for _, step := range []struct{ key, want string }{
		{kb.ArrowRight, `button[data-action=block-day][data-doctor="43"]`},
		{kb.ArrowDown, fmt.Sprintf(`button[data-action=block][data-slot="%d"]`, other)},
		{kb.ArrowLeft, `li.appt button[data-action=attended]`},
		{kb.ArrowUp, `button[data-action=block-day][data-doctor="42"]`},
		{kb.ArrowRight, `button[data-action=block-day][data-doctor="43"]`},
		{kb.ArrowDown, fmt.Sprintf(`button[data-action=block][data-slot="%d"]`, other)},
	} {
		p.press(step.key)
		p.focused("#p-grid " + step.want)
	}
	p.press(" ")
	p.waitNotice("blockedDone", map[string]any{"slots": 1, "cancelled": 0})
	p.focused(fmt.Sprintf(`#p-grid button[data-action=unblock][data-slot="%d"]`, other))

	p.press(kb.ArrowLeft)
	p.press(kb.ArrowDown)
	p.focused(fmt.Sprintf(`#p-grid button[data-action=block][data-slot="%d"]`, free))
	p.press(kb.Tab)
	p.focused(fmt.Sprintf(`#p-grid button[data-action=book][data-slot="%d"]`, free))
	p.press(kb.Enter)
	p.focused("#p-caller-patient")
	p.run("type the caller's number", chromedp.KeyEvent("301"))
	p.press(kb.Enter)
	p.waitNotice("booked", map[string]any{"time": "11:00", "doctor": "Dr. Anna Weber", "patient": p.tx("patientN", map[string]any{"id": 301})})
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE slot_id = $1 AND patient_id = 301 AND status = 'BOOKED'`, free); n != 1 {
		t.Errorf("the caller's booking: %d rows, want 1", n)
	}
}

// TestPracticeDeskLayout: on a desktop the day's doctors are columns side
// by side across the width; on a phone, and at 200 % text size on both,
// the page never scrolls sideways: only the plan's own box does.
func TestPracticeDeskLayout(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	on := d.s.now().In(berlin).AddDate(0, 0, 1)
	day := time.Date(on.Year(), on.Month(), on.Day(), 9, 0, 0, 0, berlin)
	for i := range 6 {
		d.s.slot(42, day.Add(time.Duration(i)*15*time.Minute), 1)
		d.s.slot(43, day.Add(time.Duration(i)*15*time.Minute), 2)
	}
	p := d.staffTab(t)
	p.showDay(day.Format(time.DateOnly))
	p.waitFor("the day", `document.querySelectorAll('#p-grid tbody tr').length === 6`)
	p.sideBySide()
	if w := eval[int](p, `document.getElementById('p-grid-wrap').clientWidth`); w < 1000 {
		t.Errorf("the plan is %d px wide on a 1280 px screen, want the width used", w)
	}
	zoom := func(percent int) {
		eval[bool](p, fmt.Sprintf(`(document.documentElement.style.fontSize = '%d%%', true)`, percent))
	}
	for _, size := range []struct{ w, h int64 }{{1280, 800}, {375, 812}} {
		p.viewport(size.w, size.h)
		for _, lang := range []string{"de", "en", "tr"} {
			p.click(fmt.Sprintf(`#p-langs button[data-lang=%s]`, lang))
			for _, view := range []string{"#p-view-week", "#p-view-day"} {
				p.click(view)
				p.waitFor("the view", `document.querySelector('`+view+`').getAttribute('aria-pressed') === 'true'`)
				for _, percent := range []int{100, 200} {
					zoom(percent)
					p.noPageScroll(fmt.Sprintf("%s in %s at %d×%d, text at %d %%", view, lang, size.w, size.h, percent))
				}
				zoom(100)
			}
		}
	}
	if !eval[bool](p, `(w => w.scrollWidth > w.clientWidth)(document.getElementById('p-grid-wrap'))`) {
		t.Errorf("on a phone the day's plan does not scroll in its own box")
	}
}

// TestPracticeDeskSignIn: the sign-in in three languages, the first visit's
// language from the browser's, a patient's key refused, an admin choosing
// a practice, a doctor seeing its own day, and signing out.
func TestPracticeDeskSignIn(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	p := openTab(t, d.browser, d.s.gateway.URL()+"/praxis")
	p.run("a Turkish browser", acceptLanguage("tr-TR,tr;q=0.9,en;q=0.5"), chromedp.Reload())
	p.waitFor("the sign-in in Turkish", `!document.getElementById('p-signin-form').hidden && document.documentElement.lang === 'tr'`)
	for _, lang := range []string{"tr", "en", "de"} {
		p.click(fmt.Sprintf(`#p-langs button[data-lang=%s]`, lang))
		p.waitFor(lang, fmt.Sprintf(`document.documentElement.lang === %q`, lang))
		p.deskCheck("sign-in")
	}
	paste := func(c caller) {
		p.run("paste a key", chromedp.SetValue(chromedp.CSS("#p-token"), strings.TrimPrefix(c.bearer, "Bearer ")))
		p.click("#p-signin-form button[type=submit]")
	}
	paste(d.s.patient(7))
	p.waitFor("a patient refused", `document.getElementById('p-signin-why').textContent === `+p.txJS("signinWrongRole", nil))
	p.deskCheck("sign-in refused")

	paste(d.s.admin())
	p.waitNotice("pickPractice", nil)
	p.choose("#p-practice", "2")
	p.waitFor("practice 2's doctor", `document.querySelector('#p-grid th[data-doctor="44"]') && !document.querySelector('#p-grid th[data-doctor="42"]')`)
	if who := p.text("#p-who"); !strings.Contains(who, p.tx("roleAdmin", nil)) || !strings.Contains(who, "Praxis Nord") {
		t.Errorf("an admin at practice 2 shows as %q", who)
	}
	p.deskCheck("an admin's practice")
	p.click("#p-signout")
	p.waitFor("signed out", `!document.getElementById('p-signin').hidden && document.getElementById('p-desk').hidden`)

	paste(d.s.doctor(43))
	p.waitFor("the doctor's own day", `(h => h.length === 1 && h[0].dataset.doctor === '43' && h[0].textContent.includes('Dr. Jonas Krüger'))(document.querySelectorAll('#p-grid th[data-doctor]'))`)
	if who := p.text("#p-who"); !strings.Contains(who, p.tx("roleDoctor", nil)) || !strings.Contains(who, "Praxis Mitte") {
		t.Errorf("doctor 43 shows as %q", who)
	}
	p.deskCheck("a doctor's day")
}

// acceptLanguage makes the browser's languages those of a person whose
// browser asks for langs.
func acceptLanguage(langs string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		ua, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.userAgent`))
		if err != nil {
			return err
		}
		_, err = cdp.Call(ctx, t, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: ua, AcceptLanguage: langs})
		return err
	})
}
