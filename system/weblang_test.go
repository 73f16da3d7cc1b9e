package system_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"termin/gateway/token"
	"termin/shared"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// pageLanguages are the patient page's languages with an Accept-Language
// that prefers each and the names of the months in each.
var pageLanguages = []struct {
	lang, accept string
	months       [12]string
}{
	{"de", "de-DE,de;q=0.9", [12]string{"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"}},
	{"en", "en-GB,en;q=0.9", [12]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}},
	{"tr", "tr-TR,tr;q=0.9", [12]string{"Ocak", "Şubat", "Mart", "Nisan", "Mayıs", "Haziran", "Temmuz", "Ağustos", "Eylül", "Ekim", "Kasım", "Aralık"}},
}

// TestPatientPageInEveryLanguage drives the patient page through each of
// its states in German, English and Turkish: the page says its language in
// <html lang>, shows no text of another language's catalogue that its own
// says differently, writes dates as the language does, and says that the
// times are Berlin's wherever it shows times, on a browser in New York.
func TestPatientPageInEveryLanguage(t *testing.T) {
	t.Parallel()
	w := newWebStack(t)
	browser := newBrowser(t)
	// The first case needs a browser that has not chosen a language yet.
	t.Run("the first visit speaks the browser's language, a choice is kept", func(t *testing.T) {
		for _, l := range pageLanguages {
			p := openTabIn(t, browser, w.page.URL()+"/", l.accept)
			p.waitFor("the sign-in view", `!document.getElementById('v-signin').hidden`)
			if got := eval[string](p, `document.documentElement.lang`); got != l.lang {
				t.Errorf("Accept-Language %s: the page is in %q", l.accept, got)
			}
			texts := catalogue(p)
			if got := p.text("#signin-title"); got != texts[l.lang]["signinTitle"] {
				t.Errorf("Accept-Language %s: the sign-in says %q", l.accept, got)
			}
		}
		p := openTabIn(t, browser, w.page.URL()+"/", "tr-TR,tr;q=0.9")
		p.tabTo("#lang-en")
		p.run("press Enter", chromedp.KeyEvent(kb.Enter))
		p.waitFor("English", `document.documentElement.lang === 'en'`)
		again := openTabIn(t, browser, w.page.URL()+"/", "tr-TR,tr;q=0.9")
		again.waitFor("the sign-in view", `!document.getElementById('v-signin').hidden`)
		if got := eval[string](again, `document.documentElement.lang`); got != "en" {
			t.Errorf("after choosing English a new visit with Accept-Language tr is in %q", got)
		}
		eval[bool](again, `(localStorage.removeItem('termin.lang'), true)`)
	})
	for i, l := range pageLanguages {
		t.Run(l.lang, func(t *testing.T) { walkInLanguage(t, w, browser, l.lang, l.months, int64(i)) })
	}
}

// walkInLanguage chooses lang on the sign-in view and goes through every
// state of the page, checking each (speaks).
func walkInLanguage(t *testing.T, w *webStack, browser context.Context, lang string, months [12]string, i int64) {
	patient := 120 + i
	// A doctor of its own: the gateway may keep a day's free times a moment.
	doctor, at := 41+i, tomorrowAt(9+int(i), 0)
	slot, full := w.slot(doctor, at, 1), w.slot(doctor, at.Add(30*time.Minute), 1)
	p := openTab(t, browser, w.page.URL()+"/")
	p.waitFor("the sign-in view", `!document.getElementById('v-signin').hidden`)
	p.click("#lang-" + lang)
	if pressed := eval[string](p, `document.getElementById('lang-`+lang+`').getAttribute('aria-pressed')`); pressed != "true" {
		t.Errorf("the chosen language's button is pressed %q", pressed)
	}
	texts := catalogue(p)
	p.speaks(texts, lang, "sign-in", false)

	tok, err := token.Sign(w.secret, fmt.Sprint(patient), "patient", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	eval[bool](p, fmt.Sprintf(`(sessionStorage.setItem('termin.token', %q), true)`, tok))
	p.run("reload", chromedp.Reload())
	p.waitFor("the search with the doctor's next free times", fmt.Sprintf(`document.querySelector('[data-doctor="%d"]') && document.querySelector('[data-free-slot]')`, doctor))
	p.speaks(texts, lang, "search", true)

	p.chooseDay(doctor, at)
	p.waitFor("the day's times", fmt.Sprintf(`document.querySelector('[data-slot="%d"]')`, slot))
	p.speaks(texts, lang, "slot list", true)
	if lang != "en" { // docs/features.md shows the German and the Turkish page
		p.screenshot("page-times-" + lang)
	}

	p.click(fmt.Sprintf(`[data-slot="%d"]`, slot))
	p.waitFor("the confirm step", `!document.getElementById('v-confirm').hidden`)
	p.speaks(texts, lang, "confirm step", true)
	if when, month := p.text("#confirm-when"), months[at.Month()-1]; !strings.Contains(when, at.Format("15:04")) || !strings.Contains(when, month) {
		t.Errorf("the confirm step says %q, want %s's month (%s) and the time in Berlin (%s)", when, lang, month, at.Format("15:04"))
	}

	p.click("#confirm-book")
	p.waitText("#result-title", texts[lang]["resultBooked"])
	p.speaks(texts, lang, "booked", true)

	p.click("#result-again")
	p.waitFor("the later time", fmt.Sprintf(`document.querySelector('button[data-slot="%d"]')`, full))
	if a := w.mustDo("POST", "/api/appointments", "lang-taken-"+lang, bookBody(full, 220+i)); a.status != http.StatusCreated {
		t.Fatalf("another patient's booking: %d %v", a.status, a.body)
	}
	p.book(fmt.Sprintf(`[data-slot="%d"]`, full))
	p.waitText("#result-text", texts[lang]["problems.SLOT_FULL"])
	p.speaks(texts, lang, "an error", true)

	p.click("#nav-mine")
	p.waitFor("my appointment", `document.querySelector('#mine [data-appointment]')`)
	p.speaks(texts, lang, "my appointments", true)

	p.click("#nav-profile")
	p.waitFor("the details, loaded", `!document.getElementById('v-profile').hidden && document.getElementById('profile-form').getAttribute('aria-busy') === 'false'`)
	p.waitText("#pf-consent-email-at", texts[lang]["pfNotGiven"])
	if got := eval[string](p, `document.getElementById('pf-language').value`); got != lang {
		t.Errorf("a new profile offers messages in %q, want the page's %s", got, lang)
	}
	p.speaks(texts, lang, "profile", false)
	p.typeInto("#pf-email", "patient@example.org")
	p.click("#pf-consent-email")
	p.click("#profile-form button[type=submit]")
	given := template(texts[lang]["pfGivenAt"])
	p.waitFor("the consent's time", `document.getElementById('pf-consent-email-at').textContent !== `+fmt.Sprintf("%q", texts[lang]["pfNotGiven"]))
	if line := p.text("#pf-consent-email-at"); !given.MatchString(line) {
		t.Errorf("the consent line says %q, want %q", line, texts[lang]["pfGivenAt"])
	}
	if n := w.queryInt(`SELECT count(*) FROM patient_contact WHERE patient_id = $1 AND language = $2`, patient, lang); n != 1 {
		t.Errorf("patient %d's messages are not stored in %s", patient, lang)
	}
}

// catalogue is the page's texts by language and flat key, with the
// specialties' names as "specialty.CODE".
func catalogue(p *tab) map[string]map[string]string {
	p.t.Helper()
	raw := eval[map[string]map[string]any](p, `window.TerminTexts`)
	out := map[string]map[string]string{}
	for lang, texts := range raw {
		out[lang] = map[string]string{}
		for k, v := range texts {
			if inner, ok := v.(map[string]any); ok {
				for ik, iv := range inner {
					out[lang][k+"."+ik] = fmt.Sprint(iv)
				}
				continue
			}
			out[lang][k] = fmt.Sprint(v)
		}
	}
	for _, sp := range shared.Specialties {
		for lang, name := range map[string]string{"de": sp.De, "en": sp.En, "tr": sp.Tr} {
			out[lang]["specialty."+sp.Code] = name
		}
	}
	return out
}

// visibleTexts are the page's visible strings: each shown text node, and
// the choices of each shown select.
const visibleTexts = `(() => {
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const e = n.parentElement, s = n.textContent.trim();
    if (!s || !e || e.closest('option, script, noscript') || !e.checkVisibility({ visibilityProperty: true })) continue;
    out.push(s);
  }
  document.querySelectorAll('select').forEach(function (sel) {
    if (sel.checkVisibility()) for (const o of sel.options) out.push(o.text.trim());
  });
  return out;
})()`

// speaks checks one state of the page in lang: its <html lang>, no string
// of another language that lang says differently, and, where it shows
// times, the note that they are Berlin's; and axe-core's WCAG 2.1 A and AA
// rules in that language.
func (p *tab) speaks(texts map[string]map[string]string, lang, state string, times bool) {
	p.t.Helper()
	if got := eval[string](p, `document.documentElement.lang`); got != lang {
		p.t.Errorf("%s in %s: <html lang=%q>", state, lang, got)
	}
	shown := eval[[]string](p, visibleTexts)
	for other, theirs := range texts {
		if other == lang {
			continue
		}
		for key, text := range theirs {
			if text == texts[lang][key] {
				continue
			}
			if s, ok := showsText(shown, text); ok {
				p.t.Errorf("%s in %s shows %q, the %s text %s (%s says %q)", state, lang, s, other, key, lang, texts[lang][key])
			}
		}
	}
	if zone := texts[lang]["zoneNote"]; times && !slices.Contains(shown, zone) {
		p.t.Errorf("%s in %s shows times without %q:\n%s", state, lang, zone, strings.Join(shown, "\n"))
	}
	p.axeCheck(state + " in " + lang)
}

// showsText finds text among the shown strings; a text with placeholders
// matches as a pattern when it has words of its own to tell it by.
func showsText(shown []string, text string) (string, bool) {
	text = strings.TrimSpace(text)
	var pattern *regexp.Regexp
	if placeholderRe.MatchString(text) {
		if letters(placeholderRe.ReplaceAllString(text, "")) < 4 {
			return "", false
		}
		pattern = template(text)
	}
	for _, s := range shown {
		if s == text || pattern != nil && pattern.MatchString(s) {
			return s, true
		}
	}
	return "", false
}

var placeholderRe = regexp.MustCompile(`\{[A-Za-z]+\}`)

// template is a text with placeholders as a pattern of a whole string.
func template(text string) *regexp.Regexp {
	parts := placeholderRe.Split(text, -1)
	for i := range parts {
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return regexp.MustCompile(`^` + strings.Join(parts, `.+`) + `$`)
}

func letters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}
