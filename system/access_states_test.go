package system_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"termin/gateway/token"
)

// pageVisit is a check made on the patient page in one of its states,
// named by state.
type pageVisit func(p *tab, state string)

// Conditions on the patient page's states, as JavaScript.
const (
	inSignIn      = `!document.getElementById('v-signin').hidden`
	inConfirm     = `!document.getElementById('v-confirm').hidden`
	inResult      = `!document.getElementById('v-result').hidden`
	mineLoaded    = `!document.getElementById('v-mine').hidden && document.querySelector('#mine [data-appointment]')`
	profileLoaded = `!document.getElementById('v-profile').hidden && document.getElementById('profile-form').getAttribute('aria-busy') === 'false'`
	problemShown  = `!document.getElementById('notice').hidden && document.getElementById('notice').classList.contains('problem')`
)

// walkPatientPage takes the patient page through each of its states as a
// patient meets them, from the sign-in to a problem shown, and calls visit
// in each: the search with its results, a day's times, the confirm step,
// the waiting room with a place in line, the booking, a full slot's
// refusal with other times, my appointments and my details. The patient
// books with the doctor, who must have no slots of its own yet; others
// (patient+1, patient+2) book beside it.
func walkPatientPage(t *testing.T, w *webStack, browser context.Context, patient, doctor int64, visit pageVisit) {
	t.Helper()
	signin := openTab(t, browser, w.page.URL()+"/")
	signin.waitFor("the sign-in view", inSignIn)
	visit(signin, "sign-in")

	at := tomorrowAt(10, 0)
	slot := w.slot(doctor, at, 10)
	full := w.slot(doctor, at.Add(30*time.Minute), 1)
	w.slot(doctor, at.Add(45*time.Minute), 1)
	p := openAs(t, w, browser, patient)
	walkToBooked(t, w, p, patient, doctor, at, slot, full, visit)
	walkAfterBooked(t, w, p, patient, full, visit)
}

// walkToBooked goes from the search to the booking of slot, which waits
// in line first; full is listed too.
func walkToBooked(t *testing.T, w *webStack, p *tab, patient, doctor int64, at time.Time, slot, full int64, visit pageVisit) {
	t.Helper()
	p.waitFor("the doctors found", fmt.Sprintf(`document.querySelector('#doctors [data-doctor="%d"]')`, doctor))
	visit(p, "search with results")

	p.chooseDay(doctor, at)
	p.waitFor("the day's times", fmt.Sprintf(`document.querySelector('#slots [data-slot="%d"]')`, full))
	visit(p, "a day's times")

	p.click(fmt.Sprintf(`[data-slot="%d"]`, slot))
	p.waitFor("the confirm step", inConfirm)
	visit(p, "the confirm step")

	queueBehind(t, w, patient+1, slot, func() { p.click("#confirm-book") })
	p.waitFor("a place in line", inWaitingRoom+` && /^[0-9]/.test(`+waitPos+`)`)
	visit(p, "the waiting room")
	w.startBooker(nil, nil)
	p.waitText("#result-title", "Ihr Termin ist gebucht")
	visit(p, "booked")
}

// walkAfterBooked goes on from the booking: full, listed as free, is
// taken by another patient before the patient books it; then my
// appointments, a cancellation asked for, my details, and a detail the
// API refuses.
func walkAfterBooked(t *testing.T, w *webStack, p *tab, patient, full int64, visit pageVisit) {
	t.Helper()
	p.click("#result-again")
	p.waitFor("the full slot, still listed", fmt.Sprintf(`document.querySelector('#slots button[data-slot="%d"]')`, full))
	if a := w.postAs(patient+2, full, fmt.Sprint("walk-full-", patient)); a.status != http.StatusCreated {
		t.Fatalf("another patient's booking of the full slot: %d %v", a.status, a.body)
	}
	p.book(fmt.Sprintf(`[data-slot="%d"]`, full))
	p.waitFor("the refusal with other times", resultCode+` === 'SLOT_FULL' && `+altsState+` === 'shown'`)
	visit(p, "a full slot's refusal")

	p.click("#nav-mine")
	p.waitFor("my appointments", mineLoaded)
	visit(p, "my appointments")
	p.click("#mine .cancel")
	p.waitFor("the question", `document.querySelector('#mine .cancel-no')`)
	visit(p, "a cancellation to confirm")
	p.click("#mine .cancel-no")

	p.click("#nav-profile")
	p.waitFor("my details", profileLoaded)
	visit(p, "my details")

	p.typeInto("#pf-phone", "not a number")
	p.click("#profile-form button[type=submit]")
	p.waitFor("the problem", problemShown)
	visit(p, "a problem shown")
}

// openAs opens the patient page signed in as the patient, as w.open
// does, for the test t (a subtest) rather than the stack's.
func openAs(t *testing.T, w *webStack, browser context.Context, patient int64) *tab {
	t.Helper()
	tok, err := token.Sign(w.secret, strconv.FormatInt(patient, 10), "patient", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return signedInTab(t, browser, w.page.URL(), "/", tok)
}

// queueBehind stops the booker and puts another patient's booking of the
// slot in line, so that what click sends waits behind it; the test starts
// the booker again.
func queueBehind(t *testing.T, w *webStack, other, slot int64, click func()) {
	t.Helper()
	w.stopBooker(t)
	if a := w.postAs(other, slot, fmt.Sprint("ahead-", other)); a.status != http.StatusAccepted {
		t.Fatalf("patient %d ahead in line: %d, want 202 with no booker running", other, a.status)
	}
	click()
}
