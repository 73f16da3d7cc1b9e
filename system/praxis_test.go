package system_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestPracticePage: in Chromium, staff block a booked slot (its patient is
// cancelled through the queue and told, the counts are right), book for a
// caller, and mark a no-show on the practice's day.
func TestPracticePage(t *testing.T) {
	t.Parallel()
	s := newPeopleStack(t)
	s.doctorIn(42, 1, "Dr. Weber")
	anna := s.patient(7)
	expect(t, "profile", anna.send("PUT", "/api/patients/me", "", map[string]any{"name": "Anna Berg", "email": "anna@example.org",
		"consent": map[string]bool{"email": true}}), 200)
	d := s.now().In(berlin).AddDate(0, 0, 2)
	day := time.Date(d.Year(), d.Month(), d.Day(), 10, 0, 0, 0, berlin)
	booked, free := s.slot(42, day, 1), s.slot(42, day.Add(time.Hour), 1)
	expect(t, "Anna's booking", anna.mustSend("POST", "/api/appointments", "praxis-1", bookBody(booked, 7)), 201)
	gone := s.slot(42, s.now().Add(24*time.Hour).Truncate(time.Minute), 1)
	visit := s.patient(8).mustSend("POST", "/api/appointments", "praxis-2", bookBody(gone, 8))
	expect(t, "a visit", visit, 201)
	past := s.now().Add(-time.Hour).Truncate(time.Minute)
	s.startSlotAt(gone, past)

	browser := newBrowser(t)
	p := signedInTab(t, browser, s.gateway.URL(), "/praxis", strings.TrimPrefix(s.staff(1).bearer, "Bearer "))
	show := func(date string) {
		p.waitFor("the day view", `!document.getElementById('p-day').hidden`)
		eval[bool](p, fmt.Sprintf(`(document.getElementById('p-doctor').value = '42', document.getElementById('p-date').value = %q, true)`, date))
		p.click("#p-pick button[type=submit]")
	}
	row := func(slot int64) string { return fmt.Sprintf(`document.querySelector('tr[data-slot="%d"]')`, slot) }
	show(day.Format(time.DateOnly))
	p.waitFor("Anna in her slot", row(booked)+` && `+row(booked)+`.textContent.includes('Anna Berg') && `+row(booked)+`.textContent.includes('1 von 1')`)

	p.click(fmt.Sprintf(`tr[data-slot="%d"] button[data-action=block]`, booked))
	p.waitFor("the block's notice", `document.getElementById('notice').textContent.includes('1 Termin(e) abgesagt')`)
	p.waitFor("the slot shown blocked", row(booked)+` && `+row(booked)+`.textContent.includes('gesperrt')`)
	p.waitText("#p-summary", "0 Termine, 1 Plätze frei, 1 gesperrt")
	if n := s.queryInt(`SELECT booked_count FROM time_slot WHERE id = $1`, booked); n != 0 {
		t.Errorf("the blocked slot's booked_count = %d, want 0", n)
	}
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE slot_id = $1 AND status = 'CANCELLED'`, booked); n != 1 {
		t.Errorf("%d cancelled appointments in the blocked slot, want 1", n)
	}
	s.notifierSettled(map[string]int{"appointment.cancelled": 1})
	told := false
	for _, m := range anna.messages() {
		told = told || (m["kind"] == "appointment.cancelled" && m["to"] == "anna@example.org")
	}
	if !told {
		t.Errorf("Anna was not told of the cancellation: %v", anna.messages())
	}
	expect(t, "booking the blocked slot", s.patient(9).mustSend("POST", "/api/appointments", "praxis-3", bookBody(booked, 9)), 409, "SLOT_CLOSED")

	p.run("choose the caller's time", chromedp.SetValue(chromedp.CSS("#p-caller-slot"), fmt.Sprint(free)))
	p.typeInto("#p-caller-patient", "9")
	p.click("#p-caller button[type=submit]")
	p.waitFor("the caller's booking", `document.getElementById('notice').textContent.includes('Gebucht: 11:00 für Patient Nr. 9')`)
	p.waitFor("the caller in the slot", row(free)+` && `+row(free)+`.textContent.includes('1 von 1')`)
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE slot_id = $1 AND patient_id = 9 AND status = 'BOOKED'`, free); n != 1 {
		t.Errorf("the caller's booking: %d rows, want 1", n)
	}

	show(past.In(berlin).Format(time.DateOnly))
	item := fmt.Sprintf(`document.querySelector('li[data-appointment="%d"]')`, visit.id())
	p.waitFor("the visit", item)
	p.click(fmt.Sprintf(`li[data-appointment="%d"] button[data-action=noshow]`, visit.id()))
	p.waitFor("the no-show marked", item+` && `+item+`.textContent.includes('nicht erschienen')`)
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE id = $1 AND attendance = 'NO_SHOW'`, visit.id()); n != 1 {
		t.Errorf("the visit is not marked NO_SHOW")
	}
}
