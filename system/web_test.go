package system_test

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	gatewayapp "termin/gateway/app"
	"termin/system"
)

// webStack is a stack with a second gateway that checks bearer tokens, as
// in production: the page talks to it; the test's own requests go to the
// first gateway, which acts for any patient.
type webStack struct {
	*stack
	page    *gatewayapp.App
	secret  []byte
	browser *tab
}

func newWebStack(t *testing.T) *webStack {
	t.Helper()
	s := newStack(t)
	secret := []byte(rand.Text() + rand.Text())
	w := &webStack{stack: s, secret: secret}
	w.page = s.startGatewayWith(func(c *gatewayapp.Config) { c.AuthSecret = secret })
	return w
}

// link is the page's sign-in link for the patient, as `make run` prints it.
func (w *webStack) link(patient int64) string {
	w.t.Helper()
	url, err := system.PageLink(w.page.URL(), w.secret, patient, time.Hour)
	if err != nil {
		w.t.Fatal(err)
	}
	return url
}

// postAs books through the page's gateway with the patient's token.
func (w *webStack) postAs(patient, slot int64, key string) answer {
	w.t.Helper()
	tok, err := system.PatientToken(w.secret, patient, time.Hour)
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
	return answer{status: resp.StatusCode, header: resp.Header}
}

// tomorrowAt is a wall-clock time of tomorrow in the clinic's zone.
func tomorrowAt(hour, minute int) time.Time {
	d := time.Now().In(berlin).AddDate(0, 0, 1)
	return time.Date(d.Year(), d.Month(), d.Day(), hour, minute, 0, 0, berlin)
}

// chooseSlot walks the page's steps: the doctor, the day, the time.
func (p *tab) chooseSlot(doctor int64, day time.Time, slot int64) {
	p.t.Helper()
	p.chooseDay(doctor, day)
	p.click(fmt.Sprintf(`[data-slot="%d"]`, slot))
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
	w := newWebStack(t)
	browser := newBrowser(t)

	t.Run("books a slot end to end", func(t *testing.T) {
		at := tomorrowAt(10, 0)
		slot := w.slot(41, at, 1)
		w.slot(41, at.Add(15*time.Minute), 1)
		p := openTab(t, browser, w.link(101))
		if h := p.text("#book-title"); h != "Termin buchen" {
			t.Errorf("heading = %q, want the German page first", h)
		}
		p.chooseDay(41, at)
		p.screenshot("page-booking")
		p.click(fmt.Sprintf(`[data-slot="%d"]`, slot))
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
		p.click("#lang")
		if got := p.text("#result-title"); got != "Your appointment is booked" {
			t.Errorf("in English the result = %q", got)
		}
		p.click("#lang")
	})
}
