package system_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"termin/shared/poll"
)

// desk is the practice page's world: practice 1 (Praxis Mitte) with two
// doctors, practice 2 with one that its staff must not see.
type desk struct {
	s       *stack
	browser context.Context
}

// Its stack runs on the wall clock, as Chromium does (pageClock).
func newDesk(t *testing.T) desk {
	t.Helper()
	return desk{s: deskStack(t), browser: newBrowser(t)}
}

// deskStack is the desk's stack and directory, without a browser.
func deskStack(t *testing.T) *stack {
	t.Helper()
	s := newStackOn(t, os.Getenv("TEST_NATS_URL"), pageClock)
	s.gateway = s.startGatewayAuth(peopleSecret)
	for _, sql := range []string{
		`INSERT INTO practice (id, name, street, postcode, city) VALUES (1, 'Praxis Mitte', 'Markt 1', '10115', 'Berlin')`,
		`INSERT INTO practice (id, name, street, postcode, city) VALUES (2, 'Praxis Nord', 'Ring 2', '20095', 'Hamburg')`,
	} {
		if _, err := s.db.Exec(context.Background(), sql); err != nil {
			t.Fatal(err)
		}
	}
	s.doctorIn(42, 1, "Dr. Anna Weber")
	s.doctorIn(43, 1, "Dr. Jonas Krüger")
	s.doctorIn(44, 2, "Dr. Else Ost")
	return s
}

// TestDoctorsOfAPractice: the search's practice filter, through HTTP (its
// answers checked against openapi.yaml), gives the desk its columns.
func TestDoctorsOfAPractice(t *testing.T) {
	t.Parallel()
	s := deskStack(t)
	for _, tt := range []struct {
		query string
		want  []float64
	}{
		{"practice=1", []float64{42, 43}},
		{"practice=2", []float64{44}},
		{"practice=1&q=kruger", []float64{43}},
		{"practice=3", nil},
	} {
		a := s.staff(1).mustSend("GET", "/api/doctors?"+tt.query, "", nil)
		expect(t, tt.query, a, 200)
		var got []float64
		for _, d := range a.body["doctors"].([]any) {
			got = append(got, d.(map[string]any)["id"].(float64))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s found %v, want %v", tt.query, got, tt.want)
		}
	}
	expect(t, "practice=0", s.staff(1).mustSend("GET", "/api/doctors?practice=0", "", nil), 400, "INVALID_REQUEST")
}

// staffTab is the page signed in as staff of practice 1 on a desktop.
func (d desk) staffTab(t *testing.T) *tab {
	t.Helper()
	p := signedInTab(t, d.browser, d.s.gateway.URL(), "/praxis", strings.TrimPrefix(d.s.staff(1).bearer, "Bearer "))
	p.viewport(1280, 800)
	p.waitFor("the desk", `!document.getElementById('p-desk').hidden && document.querySelector('#p-grid th[data-doctor="43"]')`)
	return p
}

// TestPracticeDesk: in Chromium, in German, English and Turkish, staff see
// their practice's doctors side by side by name, block a booked slot (its
// patient is cancelled through the queue and told), book for a caller, are
// refused an overlapping booking and an early attendance mark, read the
// week's counts, page through weeks and mark a no-show. Every state passes
// axe-core and shows no German string where the language has its own.
func TestPracticeDesk(t *testing.T) {
	t.Parallel()
	d := newDesk(t)
	for i, lang := range []string{"de", "en", "tr"} {
		t.Run(lang, func(t *testing.T) { d.flow(t, lang, i) })
	}
}

func (d desk) flow(t *testing.T, lang string, n int) {
	s := d.s
	base := int64(100 + 10*n)
	anna := s.patient(base)
	expect(t, "profile", anna.send("PUT", "/api/patients/me", "", map[string]any{"name": "Anna Berg", "email": fmt.Sprintf("anna%d@example.org", n),
		"consent": map[string]bool{"email": true}}), 200)
	on := s.now().In(berlin).AddDate(0, 0, 2+n)
	day := time.Date(on.Year(), on.Month(), on.Day(), 10, 0, 0, 0, berlin)
	booked, free := s.slot(42, day, 1), s.slot(42, day.Add(time.Hour), 1)
	s.slot(43, day, 2)
	clash := s.slot(43, day.Add(time.Hour), 1)
	expect(t, "Anna's booking", anna.mustSend("POST", "/api/appointments", fmt.Sprint("desk-", n), bookBody(booked, base)), 201)

	p := d.staffTab(t)
	p.click(fmt.Sprintf(`#p-langs button[data-lang=%s]`, lang))
	p.waitFor("the language", fmt.Sprintf(`document.documentElement.lang === %q`, lang))
	if who := p.text("#p-who"); !strings.Contains(who, "Praxis Mitte") || !strings.Contains(who, p.tx("roleStaff", nil)) {
		t.Errorf("signed in as %q, want the staff role and Praxis Mitte", who)
	}
	p.showDay(day.Format(time.DateOnly))
	cell := fmt.Sprintf(`document.querySelector('#p-grid td[data-slot="%d"]')`, booked)
	p.waitFor("Anna in her slot", cell+` && `+cell+`.textContent.includes('Anna Berg') && `+cell+`.textContent.includes(`+p.txJS("occupancy", map[string]any{"booked": 1, "capacity": 1})+`)`)
	p.sideBySide()
	if got := eval[string](p, cell+`.parentElement.querySelector('th').textContent`); got != "10:00" {
		t.Errorf("the slot's row says %q, want 10:00 (Berlin's time, the browser in New York)", got)
	}
	month := eval[string](p, fmt.Sprintf(`new Intl.DateTimeFormat(%q, {month: 'long', timeZone: 'UTC'}).format(new Date('%sT12:00:00Z'))`,
		map[string]string{"de": "de-DE", "en": "en-GB", "tr": "tr-TR"}[lang], day.Format(time.DateOnly)))
	if caption := p.text("#p-grid caption"); !strings.Contains(caption, month) {
		t.Errorf("the day's caption %q does not name the month as %s writes it (%q)", caption, lang, month)
	}
	p.deskCheck("day with columns, a slot with patients")
	if lang == "de" {
		p.screenshot("page-desk-day")
	}

	p.click(fmt.Sprintf(`#p-grid button[data-action=block][data-slot="%d"]`, booked))
	p.waitBlockNotice(1, 1)
	p.waitFor("the slot shown blocked", cell+`.textContent.includes(`+p.txJS("blocked", nil)+`)`)
	p.deskCheck("blocking")
	poll.For(t, 10*time.Second, 50*time.Millisecond, func() error {
		if n := s.queryInt(`SELECT booked_count FROM time_slot WHERE id = $1`, booked); n != 0 {
			return fmt.Errorf("the blocked slot's booked_count = %d, want 0", n)
		}
		return nil
	})
	s.notifierSettled(map[string]int{"appointment.cancelled": n + 1})
	told := false
	for _, m := range anna.messages() {
		told = told || (m["kind"] == "appointment.cancelled" && m["to"] == fmt.Sprintf("anna%d@example.org", n))
	}
	if !told {
		t.Errorf("Anna was not told of the cancellation: %v", anna.messages())
	}

	caller := base + 1
	p.click(fmt.Sprintf(`#p-grid button[data-action=book][data-slot="%d"]`, free))
	p.waitFor("the caller's number next", `document.activeElement && document.activeElement.id === 'p-caller-patient'`)
	p.typeInto("#p-caller-patient", fmt.Sprint(caller))
	p.click("#p-caller button[type=submit]")
	p.waitNotice("booked", map[string]any{"time": "11:00", "doctor": "Dr. Anna Weber", "patient": p.tx("patientN", map[string]any{"id": caller})})
	p.deskCheck("booking for a caller")
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE slot_id = $1 AND patient_id = $2 AND status = 'BOOKED'`, free, caller); n != 1 {
		t.Errorf("the caller's booking: %d rows, want 1", n)
	}

	p.choose("#p-caller-doctor", "43")
	p.choose("#p-caller-slot", fmt.Sprint(clash))
	p.typeInto("#p-caller-patient", fmt.Sprint(caller))
	p.click("#p-caller button[type=submit]")
	p.waitNotice("OVERLAPPING_APPOINTMENT", nil)
	p.deskCheck("a caller's booking refused")

	p.click(fmt.Sprintf(`#p-grid td[data-slot="%d"] button[data-action=noshow]`, free))
	p.waitNotice("APPOINTMENT_NOT_STARTED", nil)
	p.deskCheck("an error")

	d.week(t, p, day, n)
	d.noShow(t, p, base+2, n)
}

// week reads the week's counts, pages to the next week and back, and opens
// a day from the week.
func (d desk) week(t *testing.T, p *tab, day time.Time, n int) {
	t.Helper()
	date := day.Format(time.DateOnly)
	p.click("#p-view-week")
	count := func(doctorRow, date string, c map[string]any) string {
		return fmt.Sprintf(`Array.from(document.querySelectorAll('#p-week tbody tr')).some(r => r.querySelector('th').textContent === %s && r.querySelector('td[data-date="%s"]').textContent === %s)`,
			doctorRow, date, p.txJS("dayCounts", c))
	}
	p.waitFor("Dr. Weber's day in the week", count(`'Dr. Anna Weber'`, date, map[string]any{"appointments": 1, "free": 0, "blocked": 1}))
	p.waitFor("the practice's day in the week", count(p.txJS("total", nil), date, map[string]any{"appointments": 1, "free": 3, "blocked": 1}))
	if eval[int](p, `document.querySelectorAll('#p-week thead th[scope=col] button').length`) != 7 {
		t.Errorf("the week has not 7 days:\n%s", p.visibleText())
	}
	p.deskCheck("week view")
	if n == 0 {
		p.screenshot("page-desk-week")
	}
	next := day.AddDate(0, 0, 7).Format(time.DateOnly)
	p.click("#p-next")
	p.waitFor("the next week", fmt.Sprintf(`document.querySelector('#p-week td[data-date="%s"]')`, next))
	p.click("#p-prev")
	p.click(fmt.Sprintf(`#p-week button[data-action=open-day][data-date="%s"]`, date))
	p.waitFor("the day again", fmt.Sprintf(`!document.getElementById('p-grid-wrap').hidden && document.getElementById('p-date').value === %q && document.querySelector('#p-grid td[data-doctor="42"]')`, date))
}

// noShow marks a visit that has begun as a no-show.
func (d desk) noShow(t *testing.T, p *tab, patient int64, n int) {
	t.Helper()
	s := d.s
	gone := s.slot(42, s.now().Add(24*time.Hour).Truncate(time.Minute).Add(time.Duration(n)*20*time.Minute), 1)
	visit := s.patient(patient).mustSend("POST", "/api/appointments", fmt.Sprint("desk-visit-", n), bookBody(gone, patient))
	expect(t, "a visit", visit, 201)
	past := s.now().Add(-time.Hour).Truncate(time.Minute).Add(time.Duration(n) * 20 * time.Minute)
	s.startSlotAt(gone, past)
	p.showDay(past.In(berlin).Format(time.DateOnly))
	item := fmt.Sprintf(`document.querySelector('li[data-appointment="%d"]')`, visit.id())
	p.waitFor("the visit", item)
	p.click(fmt.Sprintf(`li[data-appointment="%d"] button[data-action=noshow]`, visit.id()))
	p.waitFor("the no-show marked", item+` && `+item+`.textContent.includes(`+p.txJS("markNoShow", nil)+`)`)
	if n := s.queryInt(`SELECT count(*) FROM appointment WHERE id = $1 AND attendance = 'NO_SHOW'`, visit.id()); n != 1 {
		t.Errorf("the visit is not marked NO_SHOW")
	}
}

// choose picks an option of a select as a person would, telling the page.
func (p *tab) choose(sel, value string) {
	p.t.Helper()
	// The list may be redrawn (a doctor chosen loads its times): wait for the
	// option, then set it and tell the page in one step.
	p.waitFor(sel+" to offer "+value, fmt.Sprintf(`document.querySelector(%q)`, sel+` option[value="`+value+`"]`))
	if !eval[bool](p, fmt.Sprintf(`(e => { e.value = %q; e.dispatchEvent(new Event('change')); return e.value === %q; })(document.querySelector(%q))`, value, value, sel)) {
		p.t.Fatalf("could not choose %s in %s", value, sel)
	}
}
