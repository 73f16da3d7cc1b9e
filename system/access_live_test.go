package system_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// said is one message of the page's live regions: what a screen reader
// is told, in which region (live-status, polite; live-alert, at once) and
// when, in the browser's milliseconds since 1970.
type said struct {
	Region string  `json:"region"`
	Text   string  `json:"text"`
	At     float64 `json:"at"`
}

// listen records from now on every message the page puts into its live
// regions, as a screen reader would hear them.
func (p *tab) listen() {
	p.t.Helper()
	eval[bool](p, `(() => {
	  window.__said = [];
	  for (const id of ['live-status', 'live-alert']) {
	    const el = document.getElementById(id);
	    new MutationObserver(() => {
	      const text = el.textContent.trim();
	      if (text) window.__said.push({region: id, text: text, at: Date.now()});
	    }).observe(el, {childList: true, characterData: true, subtree: true});
	  }
	  return true;
	})()`)
}

// heard is what the page has said since listen.
func (p *tab) heard() []said {
	p.t.Helper()
	return eval[[]said](p, `window.__said`)
}

// waitToHear waits until the region has said text matching the pattern.
func (p *tab) waitToHear(region, pattern string) said {
	p.t.Helper()
	return p.hearWithin(pageTimeout, region, pattern)
}

// hearWithin waits up to limit until the region has said text matching
// the pattern, and returns the first such message.
func (p *tab) hearWithin(limit time.Duration, region, pattern string) said {
	p.t.Helper()
	re := regexp.MustCompile(pattern)
	p.waitWithin(limit, fmt.Sprintf("%s to say %s", region, pattern),
		fmt.Sprintf(`window.__said.some(s => s.region === %q && new RegExp(%q).test(s.text))`, region, re.String()))
	for _, s := range p.heard() {
		if s.Region == region && re.MatchString(s.Text) {
			return s
		}
	}
	p.t.Fatalf("%s said %v", region, p.heard())
	return said{}
}

// announcesLineAndOutcome books a time that waits behind another patient's:
// the place in line, the booking, and then a full slot's refusal are said
// through the live regions, the refusal at once.
func announcesLineAndOutcome(t *testing.T, w *webStack, p *tab) {
	t.Helper()
	at := tomorrowAt(12, 0)
	slot := w.slot(42, at, 10)
	full := w.slot(42, at.Add(time.Hour), 1)
	p.chooseDay(42, at)
	p.waitFor("the full slot", fmt.Sprintf(`document.querySelector('#slots button[data-slot="%d"]')`, full))
	p.listen()
	queueBehind(t, w, 322, slot, func() { p.book(fmt.Sprintf(`[data-slot="%d"]`, slot)) })
	p.waitToHear("live-status", `^Sie sind an Position 2 der Warteschlange\. Geschätzte Wartezeit: `)
	w.startBooker(nil, nil)
	p.waitToHear("live-status", `^Ihr Termin ist gebucht\. .*12:00`)

	p.click("#result-again")
	p.waitFor("the full slot, still listed", fmt.Sprintf(`document.querySelector('#slots button[data-slot="%d"]')`, full))
	if a := w.postAs(323, full, "live-full"); a.status != http.StatusCreated {
		t.Fatalf("another patient's booking of the full slot: %d %v", a.status, a.body)
	}
	p.book(fmt.Sprintf(`[data-slot="%d"]`, full))
	p.waitToHear("live-alert", `^Das hat leider nicht geklappt\. .*Dieser Termin ist leider schon vergeben\.$`)
}

// holdLeft is how long the hold of warnsBeforeAHoldEnds has left when
// the page opens: within the first warning's 60 s, with room for a slow
// machine's page load before the second's 30 s.
const holdLeft = 50 * time.Second

// warnsBeforeAHoldEnds: a place held for the patient whose hold ends in
// holdLeft is said to end, with the seconds left, as my appointments list
// it, and again from 30 s on, at once; both before the hold's end. The
// hold is shortened in the database: the page reads its end from the API,
// as for any hold.
func warnsBeforeAHoldEnds(t *testing.T, w *webStack, p *tab) {
	t.Helper()
	slot := w.slot(43, tomorrowAt(17, 0), 1)
	held := w.mustDo("POST", "/api/appointments", "access-hold", fmt.Appendf(nil, `{"slotId":%d,"patientId":331,"hold":true}`, slot))
	if held.status != http.StatusCreated || held.body["status"] != "HELD" {
		t.Fatalf("hold: %d %v", held.status, held.body)
	}
	var ends time.Time
	if err := w.db.QueryRow(t.Context(), `UPDATE appointment SET expires_at = now() + $2::interval WHERE id = $1 RETURNING expires_at`,
		held.id(), holdLeft.String()).Scan(&ends); err != nil {
		t.Fatal(err)
	}
	p.listen()
	p.click("#nav-mine")
	p.waitFor("the hold listed", fmt.Sprintf(`document.querySelector('[data-appointment="%d"] .confirm-hold')`, held.id()))
	p.axeCheck("a held place in my appointments")
	first := p.waitToHear("live-status", `^Ihre Reservierung für .*17:00.* endet in [0-9]+ Sekunden\.`)
	last := p.hearWithin(holdLeft, "live-alert", `^Ihre Reservierung für .* endet in [0-9]+ Sekunden\.`)
	for _, s := range []said{first, last} {
		left := secondsIn(t, s.Text)
		at := time.UnixMilli(int64(s.At))
		if !at.Before(ends) || left <= 0 {
			t.Errorf("%q was said at %s, the hold ends at %s: want it said before", s.Text, at.Format("15:04:05.000"), ends.Format("15:04:05.000"))
		}
	}
	if l1, l2 := secondsIn(t, first.Text), secondsIn(t, last.Text); l1 > 60 || l1 <= 30 || l2 > 30 {
		t.Errorf("the warnings said %d s, then %d s left: want one within 60 s, then one within 30 s", l1, l2)
	}
}

var secondsLeft = regexp.MustCompile(`endet in ([0-9]+) Sekunden`)

// secondsIn reads the seconds left a hold's warning says.
func secondsIn(t *testing.T, text string) int {
	t.Helper()
	m := secondsLeft.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("%q names no seconds", text)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
