package system_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gatewayapp "termin/gateway/app"
	gwhttp "termin/gateway/http"
	"termin/gateway/token"

	"termin/shared"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// webStack is a stack with a second gateway that checks bearer tokens, as
// in production: the page talks to it; the test's own requests go to the
// first gateway, which acts for any patient.
type webStack struct {
	*stack
	page   *gatewayapp.App
	secret []byte
}

func newWebStack(t *testing.T) *webStack {
	t.Helper()
	s := newStackOn(t, os.Getenv("TEST_NATS_URL"), pageClock)
	secret := []byte(rand.Text() + rand.Text())
	w := &webStack{stack: s, secret: secret}
	for id, doc := range pageDoctors {
		code, _ := shared.SpecialtyCode(doc[1]) // as the API stores it
		if _, err := s.db.Exec(t.Context(), `INSERT INTO doctor (id, name, specialty, address) VALUES ($1, $2, $3, $4)`,
			id, doc[0], code, fmt.Sprintf("Praxisweg %d, 10115 Berlin", id)); err != nil {
			t.Fatal(err)
		}
	}
	w.page = s.startGatewayWith(func(c *gatewayapp.Config) { c.Auth = gwhttp.AuthConfig{Secret: secret} })
	return w
}

// pageDoctors are the doctors of the page's cases, by id: name, specialty.
var pageDoctors = map[int64][2]string{
	40: {"Dr. Jonas Becker", "Kinderheilkunde"}, 41: {"Dr. Anna Weber", "Allgemeinmedizin"},
	42: {"Dr. Mehmet Yilmaz", "Innere Medizin"}, 43: {"Dr. Sophie Wagner", "Dermatologie"},
	44: {"Dr. Lukas Schmidt", "Orthopädie"}, 45: {"Dr. Lea Hoffmann", "HNO"},
	46: {"Dr. Paul Fischer", "Augenheilkunde"}, 47: {"Dr. Marie Schulz", "Frauenheilkunde"},
	48: {"Dr. Felix Braun", "Neurologie"},
}

// open opens the patient page signed in as the patient, with a service
// token of its own.
func (w *webStack) open(browser context.Context, patient int64) *tab {
	w.t.Helper()
	tok, err := token.Sign(w.secret, strconv.FormatInt(patient, 10), "patient", time.Hour)
	if err != nil {
		w.t.Fatal(err)
	}
	return signedInTab(w.t, browser, w.page.URL(), "/", tok)
}

// postAs books through the page's gateway with the patient's token.
func (w *webStack) postAs(patient, slot int64, key string) answer {
	w.t.Helper()
	tok, err := token.Sign(w.secret, strconv.FormatInt(patient, 10), "patient", time.Hour)
	if err != nil {
		w.t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", w.page.URL()+"/api/appointments", bytes.NewReader(bookBody(slot, patient)))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Idempotency-Key", key)
	resp, err := w.http.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	a := answer{status: resp.StatusCode, header: resp.Header}
	_ = json.NewDecoder(resp.Body).Decode(&a.body)
	return a
}

// openingSlot is a slot that opens for booking at opens, as at 7:00.
func (w *webStack) openingSlot(doctor int64, startAt time.Time, capacity int, opens time.Time) int64 {
	w.t.Helper()
	var id int64
	err := w.db.QueryRow(w.t.Context(), `
        INSERT INTO time_slot (doctor_id, start_at, end_at, capacity, opens_at) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
		doctor, startAt, startAt.Add(15*time.Minute), capacity, opens).Scan(&id)
	if err != nil {
		w.t.Fatal(err)
	}
	return id
}

// pageClock is the clock of the pages' tests: Chromium's own, the wall
// clock, which the page reads for its days; the stacks behind the pages
// take theirs from it too, so that both agree on what tomorrow is.
var pageClock = shared.Clock(time.Now)

// tomorrowAt is a time of the page's tomorrow in the clinic's zone.
func tomorrowAt(hour, minute int) time.Time {
	d := pageClock.Now().In(berlin).AddDate(0, 0, 1)
	return time.Date(d.Year(), d.Month(), d.Day(), hour, minute, 0, 0, berlin)
}

// chooseSlot walks the page's steps: the doctor, the day, the time, and
// "Termin verbindlich buchen".
func (p *tab) chooseSlot(doctor int64, day time.Time, slot int64) {
	p.t.Helper()
	p.chooseDay(doctor, day)
	p.book(fmt.Sprintf(`[data-slot="%d"]`, slot))
}

// book chooses a time and confirms it, as a patient does: nothing is sent
// before "Termin verbindlich buchen".
func (p *tab) book(sel string) {
	p.t.Helper()
	p.click(sel)
	p.waitFor("the confirm step", `!document.getElementById('v-confirm').hidden`)
	p.click("#confirm-book")
}

// chooseDay picks the doctor (from the list, or by number while the server
// has no list) and the day, and waits for the day's times.
func (p *tab) chooseDay(doctor int64, day time.Time) {
	p.t.Helper()
	doc := fmt.Sprintf(`[data-doctor="%d"]`, doctor)
	p.waitFor("the doctor list or the doctor form", `document.querySelector('`+doc+`') || !document.getElementById('doctor-form').hidden`)
	if eval[bool](p, `!!document.querySelector('`+doc+`')`) {
		p.click(doc)
	} else {
		p.typeInto("#doctor-id", fmt.Sprint(doctor))
		p.click("#doctor-form button")
	}
	p.click(fmt.Sprintf(`[data-date="%s"]`, day.In(berlin).Format(time.DateOnly)))
	p.waitFor("the day's times", `document.getElementById('slots-state').hidden || document.querySelector('#slots button')`)
}

// appointmentKeys lists the patient's appointments' idempotency keys.
func (w *webStack) appointmentKeys(patient int64) []string {
	w.t.Helper()
	rows, err := w.db.Query(w.t.Context(), `SELECT idempotency_key FROM appointment WHERE patient_id = $1 ORDER BY id`, patient)
	if err != nil {
		w.t.Fatal(err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			w.t.Fatal(err)
		}
		keys = append(keys, k)
	}
	return keys
}

var pageKey = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// TestPatientPage drives the page in a real headless Chromium against the
// whole system: one stack and one browser, a tab per case.
func TestPatientPage(t *testing.T) {
	t.Parallel()
	w := newWebStack(t)
	browser := newBrowser(t)

	t.Run("books a slot end to end", func(t *testing.T) {
		at := tomorrowAt(10, 0)
		slot := w.slot(41, at, 1)
		for i := range 5 {
			w.slot(41, at.Add(time.Duration(15*(i+1))*time.Minute), 1)
		}
		opening := tomorrowAt(7, 0)
		for i := range 3 { // not yet open: the page says when they open
			w.openingSlot(41, at.Add(time.Duration(90+15*i)*time.Minute), 1, opening)
		}
		p := w.open(browser, 101)
		if h := p.text("#book-title"); h != "Termin buchen" {
			t.Errorf("heading = %q, want the German page first", h)
		}
		p.chooseDay(41, at)
		if doc := p.text("#doctors .name"); doc != "Dr. Anna Weber" {
			t.Errorf("the chosen doctor shows as %q, want her name from the list", doc)
		}
		if note := p.text("#slots .sub"); !strings.HasPrefix(note, "öffnet ") {
			t.Errorf("a time not yet open says %q, want when it opens", note)
		}
		p.screenshot("page-booking")
		p.spyOnRequests()
		p.click(fmt.Sprintf(`[data-slot="%d"]`, slot))
		p.waitFor("the confirm step", `!document.getElementById('v-confirm').hidden`)
		if when, doc, addr := p.text("#confirm-when"), p.text("#confirm-doctor"), p.text("#confirm-address"); !strings.Contains(when, "10:00") ||
			!strings.HasPrefix(doc, "Dr. Anna Weber") || addr != "Praxisweg 41, 10115 Berlin" {
			t.Errorf("the confirm step shows %q, %q, %q; want the time, the doctor and the address", when, doc, addr)
		}
		if posts, _ := p.sent(); posts != 0 {
			t.Fatalf("%d bookings sent before the confirm step's button", posts)
		}
		if b := p.text("#confirm-book"); b != "Termin verbindlich buchen" {
			t.Errorf("the confirm button says %q", b)
		}
		p.click("#confirm-book")
		p.waitFor("the result", `!document.getElementById('v-result').hidden`)
		if got := p.text("#result-title"); got != "Ihr Termin ist gebucht" {
			t.Fatalf("result = %q, want the booking confirmed", got)
		}
		if what := p.text("#result-what"); !strings.Contains(what, "10:00") {
			t.Errorf("result names %q, want the time in Berlin (10:00) on a browser in New York", what)
		}
		keys := w.appointmentKeys(101)
		if len(keys) != 1 || !pageKey.MatchString(keys[0]) || w.queryInt(`SELECT booked_count FROM time_slot WHERE id = $1`, slot) != 1 {
			t.Fatalf("patient 101 holds appointments with keys %v, want one booking of slot %d", keys, slot)
		}
		if k := p.pendingKey(); k != "" {
			t.Errorf("the page still keeps key %q after the decision", k)
		}
		p.click("#lang-en")
		if got := p.text("#result-title"); got != "Your appointment is booked" {
			t.Errorf("in English the result = %q", got)
		}
		p.click("#lang-de")
		p.click("#result-again") // the same doctor and day, listed again
		mine := fmt.Sprintf(`#slots [data-slot="%d"]`, slot)
		p.waitFor("the booked time shown as the patient's", `document.querySelector('`+mine+`') && document.querySelector('`+mine+`').dataset.mine === 'BOOKED'`)
		if got, button := p.text(mine+" .sub"), eval[bool](p, `document.querySelector('`+mine+`').tagName === 'BUTTON'`); got != "Ihr Termin" || button {
			t.Errorf("the booked time shows %q (a button: %v), want \"Ihr Termin\" and nothing to book", got, button)
		}
	})

	t.Run("finds a doctor by specialty and town and books a next free time", func(t *testing.T) {
		searchToConfirm(t, w, browser)
	})

	t.Run("keeps the patient's details and consent, exports and erases them", func(t *testing.T) {
		p := w.open(browser, 110)
		p.click("#nav-profile")
		p.waitFor("the details view, loaded", `!document.getElementById('v-profile').hidden && document.getElementById('profile-form').getAttribute('aria-busy') === 'false'`)
		p.typeInto("#pf-name", "Clara Neumann")
		p.typeInto("#pf-email", "clara@example.org")
		p.click("#pf-consent-email")
		p.run("choose GKV", chromedp.SetValue(chromedp.CSS("#pf-insurance"), "GKV"))
		p.click("#profile-form button[type=submit]")
		p.waitFor("the consent's date", `document.getElementById('pf-consent-email-at').textContent.startsWith('Einwilligung erteilt am')`)
		if n := w.queryInt(`SELECT count(*) FROM patient_contact WHERE patient_id = 110 AND email = 'clara@example.org' AND email_consent AND insurance = 'GKV'`); n != 1 {
			t.Fatalf("the details were not stored with consent")
		}
		p.click("#pf-consent-email")
		p.click("#profile-form button[type=submit]")
		p.waitFor("the withdrawal's date", `document.getElementById('pf-consent-email-at').textContent.startsWith('Einwilligung widerrufen am')`)
		if n := w.queryInt(`SELECT count(*) FROM patient_contact WHERE patient_id = 110 AND NOT email_consent`); n != 1 {
			t.Errorf("the withdrawal was not stored")
		}
		p.click("#pf-erase")
		p.click("#pf-erase-yes")
		p.waitText("#notice", "Ihre Daten sind gelöscht.")
		if n := w.queryInt(`SELECT count(*) FROM patient_contact WHERE patient_id = 110`); n != 0 {
			t.Errorf("the details are still stored after erasure")
		}
	})

	t.Run("signs in only with a valid patient token", func(t *testing.T) {
		signin := `!document.getElementById('v-signin').hidden && document.getElementById('nav').hidden`
		p := openTab(t, browser, w.page.URL()+"/")
		p.waitFor("the sign-in view without a token", signin)
		expired, err := token.Sign(w.secret, "109", "patient", -time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		p.typeInto("#signin-token", expired)
		p.click("#signin-form button")
		p.waitFor("the sign-in view for an expired token", signin+` && document.getElementById('signin-why').textContent.includes('abgelaufen')`)
		forged, err := token.Sign([]byte(rand.Text()+rand.Text()), "109", "patient", time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		p.typeInto("#signin-token", forged)
		p.click("#signin-form button")
		p.waitFor("the sign-in view or the doctor form", signin+` || !document.getElementById('doctor-form').hidden`)
		if !eval[bool](p, signin) { // a server without the doctor list: the first API call refuses the token
			p.typeInto("#doctor-id", "41")
			p.click("#doctor-form button")
		}
		p.waitFor("the sign-in view once the API refuses a forged token", signin)
		if loc := eval[string](p, `location.href`); strings.Contains(loc, "token") {
			t.Errorf("the address still shows the token: %s", loc)
		}
	})

	t.Run("books with the keyboard alone", func(t *testing.T) {
		at := tomorrowAt(15, 0)
		slot := w.slot(47, at, 1)
		p := w.open(browser, 107)
		doc := `[data-doctor="47"]`
		p.waitFor("the doctor list or the doctor form", `document.querySelector('`+doc+`') || !document.getElementById('doctor-form').hidden`)
		if eval[bool](p, `!!document.querySelector('`+doc+`')`) {
			p.tabTo(doc)
		} else {
			p.tabTo("#doctor-id")
			p.run("type the number", chromedp.KeyEvent("47"))
		}
		p.run("press Enter", chromedp.KeyEvent(kb.Enter))
		p.waitFor("the focus on the day step", `document.activeElement.id === 'day-title'`)
		p.tabTo(fmt.Sprintf(`[data-date="%s"]`, at.Format(time.DateOnly)))
		p.run("press Enter", chromedp.KeyEvent(kb.Enter))
		p.waitFor("the day's times", fmt.Sprintf(`document.querySelector('[data-slot="%d"]')`, slot))
		p.tabTo(fmt.Sprintf(`[data-slot="%d"]`, slot))
		p.run("press Enter", chromedp.KeyEvent(kb.Enter))
		p.waitFor("the focus on the confirm step", `document.activeElement.id === 'confirm-title'`)
		p.tabTo("#confirm-book")
		p.run("press Enter", chromedp.KeyEvent(kb.Enter))
		p.waitText("#result-title", "Ihr Termin ist gebucht")
		p.waitFor("the focus on the result", `document.activeElement.id === 'result-title'`)
	})

	t.Run("a queued booking shows its place in line, then its result, with one key", func(t *testing.T) {
		at := tomorrowAt(11, 0)
		slot := w.slot(42, at, 10)
		p := w.open(browser, 102)
		p.chooseDay(42, at)
		w.stopBooker(t)
		for i, patient := range []int64{201, 202} {
			if a := w.postAs(patient, slot, fmt.Sprint("ahead-", i)); a.status != http.StatusAccepted {
				t.Fatalf("patient %d ahead in line: %d, want 202 with no booker running", patient, a.status)
			}
		}
		before := w.lastSeq()
		p.spyOnRequests()
		p.book(fmt.Sprintf(`[data-slot="%d"]`, slot))
		p.waitFor("the waiting room", `!document.getElementById('v-wait').hidden && document.getElementById('wait-pos').textContent !== '–'`)
		if pos := p.text("#wait-pos"); pos != "3" {
			t.Errorf("the page shows position %q, want 3 (two requests ahead)", pos)
		}
		key := p.pendingKey()
		p.waitFor("a repeat of the request", `(window.__sent || []).length >= 2`)
		p.waitFor("the countdown to the next repeat", `document.getElementById('wait-state').textContent.includes('Nächste')`)
		p.screenshot("page-waiting-room")
		if n := w.page.Limiter().Attempts(102); n != 1 {
			t.Errorf("the gateway counted %d booking attempts of patient 102 while the page repeated, want 1", n)
		}
		w.startBooker(nil, nil)
		p.waitText("#result-title", "Ihr Termin ist gebucht")
		posts, keys := p.sent()
		if posts < 2 || len(keys) != 1 || keys[0] != key || !pageKey.MatchString(key) {
			t.Errorf("the page sent %d requests with keys %v, want several with its one key %q", posts, keys, key)
		}
		if got := w.appointmentKeys(102); len(got) != 1 || got[0] != key {
			t.Errorf("patient 102's appointments have keys %v, want one with %q", got, key)
		}
		if n := w.lastSeq() - before; n != 1 {
			t.Errorf("the page's repeats put %d commands on the stream, want 1", n)
		}
	})

	t.Run("a full slot says so and offers the next free ones", func(t *testing.T) {
		at := tomorrowAt(12, 0)
		full := w.slot(43, at, 1)
		next := w.slot(43, at.Add(30*time.Minute), 1)
		p := w.open(browser, 103)
		p.chooseDay(43, at)
		p.waitFor("the slot", fmt.Sprintf(`document.querySelector('[data-slot="%d"]')`, full))
		if a := w.mustDo("POST", "/api/appointments", "taken", bookBody(full, 203)); a.status != http.StatusCreated {
			t.Fatalf("another patient's booking: %d %v", a.status, a.body)
		}
		p.book(fmt.Sprintf(`[data-slot="%d"]`, full))
		p.waitFor("the refusal", `document.getElementById('result-text').dataset.code === 'SLOT_FULL'`)
		if got := p.text("#result-text"); got != "Dieser Termin ist leider schon vergeben." {
			t.Errorf("message = %q", got)
		}
		p.book(fmt.Sprintf(`#alts [data-slot="%d"]`, next))
		p.waitText("#result-title", "Ihr Termin ist gebucht")
		if n := w.queryInt(`SELECT count(*) FROM appointment WHERE patient_id = 103 AND slot_id = $1 AND status = 'BOOKED'`, next); n != 1 {
			t.Errorf("patient 103 holds %d bookings of the offered slot, want 1", n)
		}
	})

	t.Run("cancel from my appointments", func(t *testing.T) {
		at := tomorrowAt(13, 0)
		slot := w.slot(44, at, 1)
		elsewhere := w.mustDo("POST", "/api/appointments", "by-phone", bookBody(w.slot(40, at.Add(24*time.Hour), 1), 104))
		p := w.open(browser, 104)
		p.chooseSlot(44, at, slot)
		p.waitText("#result-title", "Ihr Termin ist gebucht")
		p.click("#result-mine")
		mine := w.queryInt(`SELECT id FROM appointment WHERE patient_id = 104 AND slot_id = $1`, slot)
		item := fmt.Sprintf(`[data-appointment="%d"]`, mine)
		if when := p.text(item + " .when"); !strings.Contains(when, "13:00") {
			t.Errorf("my appointments show %q, want 13:00 Berlin time", when)
		}
		if who := p.text(fmt.Sprintf(`[data-appointment="%d"] .who`, elsewhere.id())); who != "Dr. Jonas Becker" {
			t.Errorf("the appointment booked elsewhere shows doctor %q, want Dr. Jonas Becker from the server's list", who)
		}
		if first := eval[string](p, `document.querySelector('#mine [data-appointment]').dataset.appointment`); first != fmt.Sprint(mine) {
			t.Errorf("the first of my appointments is %s, want the sooner one, %d", first, mine)
		}
		p.click(item + " .cancel")
		p.click(item + " .cancel-yes")
		p.waitFor("the confirmation", `document.getElementById('notice').textContent.includes('abgesagt')`)
		p.waitFor("the list without it", `!document.querySelector('`+item+`')`)
		if n := w.queryInt(`SELECT count(*) FROM appointment WHERE patient_id = 104 AND status = 'CANCELLED' AND slot_id = $1`, slot); n != 1 {
			t.Errorf("patient 104 has %d cancelled appointments, want 1", n)
		}
		if n := w.queryInt(`SELECT booked_count FROM time_slot WHERE id = $1`, slot); n != 0 {
			t.Errorf("booked_count after the cancel = %d, want 0", n)
		}
	})

	t.Run("reschedule from my appointments", func(t *testing.T) {
		at := tomorrowAt(16, 0)
		from := w.slot(48, at, 1)
		to := w.slot(48, at.Add(time.Hour), 1)
		booked := w.mustDo("POST", "/api/appointments", "before-move", bookBody(from, 108))
		p := w.open(browser, 108)
		p.click("#nav-mine")
		item := fmt.Sprintf(`[data-appointment="%d"]`, booked.id())
		p.click(item + " .move")
		p.book(fmt.Sprintf(`[data-slot="%d"]`, to))
		p.waitText("#result-title", "Ihr Termin ist verschoben")
		if n := w.queryInt(`SELECT count(*) FROM appointment WHERE id = $1 AND slot_id = $2 AND status = 'BOOKED'`, booked.id(), to); n != 1 {
			t.Errorf("appointment %d is not at slot %d after the move", booked.id(), to)
		}
		if n := w.queryInt(`SELECT booked_count FROM time_slot WHERE id = $1`, from); n != 0 {
			t.Errorf("the old slot still holds %d after the move, want 0", n)
		}
		p.click("#result-mine")
		if when := p.text(item + " .when"); !strings.Contains(when, "17:00") {
			t.Errorf("after the move my appointments show %q, want 17:00", when)
		}
	})

	t.Run("confirm a held place from my appointments", func(t *testing.T) {
		slot := w.slot(40, tomorrowAt(17, 0), 1)
		held := w.mustDo("POST", "/api/appointments", "offer", fmt.Appendf(nil, `{"slotId":%d,"patientId":110,"hold":true}`, slot))
		if held.status != http.StatusCreated || held.body["status"] != "HELD" {
			t.Fatalf("hold: %d %v", held.status, held.body)
		}
		p := w.open(browser, 110)
		p.click("#nav-mine")
		p.click(fmt.Sprintf(`[data-appointment="%d"] .confirm-hold`, held.id()))
		p.waitFor("the confirmation", `document.getElementById('notice').textContent.includes('verbindlich')`)
		if n := w.queryInt(`SELECT count(*) FROM appointment WHERE id = $1 AND status = 'BOOKED'`, held.id()); n != 1 {
			t.Errorf("appointment %d is not BOOKED after the confirmation", held.id())
		}
	})

	t.Run("a reload while waiting keeps the same request", func(t *testing.T) {
		at := tomorrowAt(14, 0)
		slot := w.slot(45, at, 5)
		p := w.open(browser, 105)
		p.chooseDay(45, at)
		w.stopBooker(t)
		before := w.lastSeq()
		p.book(fmt.Sprintf(`[data-slot="%d"]`, slot))
		p.waitFor("the waiting room", `!document.getElementById('v-wait').hidden && document.getElementById('wait-pos').textContent !== '–'`)
		key := p.pendingKey()
		p.run("reload", chromedp.Reload())
		p.waitFor("the waiting room after the reload", `!document.getElementById('v-wait').hidden && document.getElementById('wait-pos').textContent !== '–'`)
		if k := p.pendingKey(); k != key || key == "" {
			t.Fatalf("key after the reload = %q, before %q: want the same", k, key)
		}
		w.startBooker(nil, nil)
		p.waitText("#result-title", "Ihr Termin ist gebucht")
		if got := w.appointmentKeys(105); len(got) != 1 || got[0] != key {
			t.Errorf("patient 105's appointments have keys %v, want one with %q", got, key)
		}
		if n := w.lastSeq() - before; n != 1 {
			t.Errorf("request and reload put %d commands on the stream, want 1", n)
		}
	})

	t.Run("a patient on the page gets an answer in the opening burst", func(t *testing.T) {
		at := tomorrowAt(9, 0)
		slot := w.openingSlot(46, at, 5, w.now().Add(5*time.Second))
		p := w.open(browser, 106)
		p.chooseDay(46, at)
		p.waitFor("the slot", fmt.Sprintf(`document.querySelector('[data-slot="%d"]')`, slot))
		var wg sync.WaitGroup
		for i := range rushers {
			wg.Go(func() { // as a client of the burst does: after each Retry-After in full
				send := func() (answer, error) { return w.postAs(int64(3000+i), slot, fmt.Sprint("rush-", i)), nil }
				_, _, _ = untilDecided(send, time.Minute, 1)
			})
		}
		p.book(fmt.Sprintf(`[data-slot="%d"]`, slot))
		p.waitFor("the page's answer", `!document.getElementById('v-result').hidden`)
		wg.Wait()
		held := w.queryInt(`SELECT count(*) FROM appointment WHERE patient_id = 106 AND slot_id = $1 AND status = 'BOOKED'`, slot)
		code := eval[string](p, `document.getElementById('result-text').dataset.code`)
		switch title := p.text("#result-title"); {
		case title == "Ihr Termin ist gebucht" && held == 1, code == "SLOT_FULL" && held == 0:
			t.Logf("among %d clicks the page was told: %s %s", rushers+1, title, code)
		default:
			t.Errorf("the page shows %q (%s) while patient 106 holds %d bookings of the slot", title, code, held)
		}
		if n := w.queryInt(`SELECT count(*) FROM appointment WHERE slot_id = $1 AND status = 'BOOKED'`, slot); n != 5 {
			t.Errorf("%d bookings of the 5 places after %d clicks", n, rushers+1)
		}
	})
}

// rushers is how many other patients click at the opening in the burst case.
const rushers = 300

// stopBooker stops the stack's booker, so that bookings wait in line; the
// test starts it again, or its end does.
func (w *webStack) stopBooker(t *testing.T) {
	t.Helper()
	stopped := w.booker
	if err := stopped.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if w.booker == stopped {
			w.startBooker(nil, nil)
		}
	})
}
